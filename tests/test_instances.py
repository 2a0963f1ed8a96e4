"""Instances, generators, initializations and bad-input errors (each names the violated condition)."""
import json

import numpy as np
import pytest

from relucheck.numerics import datasets, initializations
from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.instances import Instance, load_instance, require_orthonormal
from relucheck.numerics.network import balancedness_defect
from relucheck.numerics.scale import InitScale


def _inst(n=4, d=5, m=3, seed=0, **over):
    X = datasets.orthonormal_inputs(n, d, seed)
    G, s = initializations.random_instance_directions(m, d, seed + 1)
    fields = dict(inputs=X, labels=np.arange(1.0, n + 1), directions=G, signs=s)
    fields.update(over)
    return Instance(**fields)


def test_round_trip(tmp_path):
    inst = _inst()
    path = tmp_path / "inst.json"
    inst.save(path)
    back = load_instance(path, orthonormal=True)
    assert np.array_equal(back.inputs, inst.inputs) and np.array_equal(back.signs, inst.signs)


@pytest.mark.parametrize(
    "override, message",
    [
        (dict(labels=[1.0, np.nan, 2.0, 3.0]), "labels must be finite"),
        (dict(labels=[1.0, 2.0]), "labels has 2 entries but inputs has n = 4"),
        (dict(directions=np.ones((3, 5))), "directions must be unit vectors"),
        (dict(directions=np.eye(3, 4)), "directions have dimension 4 but inputs have d = 5"),
        (dict(signs=[1.0, 0.5, -1.0]), "signs must be ±1"),
        (dict(signs=[1.0, -1.0]), "signs has 2 entries but directions has m = 3"),
        (dict(inputs=np.ones(4)), "inputs must be a 2-D array"),
    ],
)
def test_bad_instances_name_the_condition(override, message):
    with pytest.raises(RelucheckInputError, match=message):
        _inst(**override)


def test_non_orthonormal_inputs_rejected_naming_assumption_1(tmp_path):
    inst = _inst()
    raw = inst.to_json()
    raw["inputs"][0][0] += 0.3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(HypothesisViolation, match="Assumption 1 \\(orthonormal inputs"):
        load_instance(path, orthonormal=True)
    load_instance(path)  # fine where orthonormality is not required


def test_missing_field_and_bad_json(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"inputs": [[1]]}')
    with pytest.raises(RelucheckInputError, match="fields .* are missing"):
        load_instance(p)
    p.write_text("{not json")
    with pytest.raises(RelucheckInputError, match="not valid JSON"):
        load_instance(p)
    with pytest.raises(RelucheckInputError, match="not found"):
        load_instance(tmp_path / "none.json")


@pytest.mark.parametrize("lam", [0.0, -1e-3, "nan", "abc", float("nan")])
def test_lambda_must_be_positive(lam):
    with pytest.raises(RelucheckInputError, match="λ"):
        InitScale.of(lam)


def test_tiny_lambda_via_log_and_refused_as_float():
    s = InitScale.of("1e-1000")
    assert s.log_inv == pytest.approx(1000 * np.log(10), rel=1e-14)
    with pytest.raises(RelucheckInputError, match="below"):
        s.as_float()


def test_balanced_init_is_balanced_and_mpmath_reaches_tiny_scales():
    inst = _inst()
    a, W = initializations.balanced(inst, 1e-3)
    assert np.allclose(balancedness_defect(a, W), 0, atol=1e-20)
    a_m, W_m = initializations.balanced(inst, "1e-1000", backend="mpmath")
    assert abs(float(a_m[0] * 10**1000)) == pytest.approx(1.0)


def test_generators():
    X = datasets.orthonormal_inputs(5, 8, 3)
    require_orthonormal(X)
    with pytest.raises(RelucheckInputError, match="d ≥ n"):
        datasets.orthonormal_inputs(5, 3, 0)
    Xm = datasets.margin_inputs(4000, 3, 0, c0=0.3)
    assert np.allclose(Xm.T @ Xm / len(Xm), np.eye(3), atol=0.08)  # whitened: E[x xᵀ] = I
    cos = np.abs(Xm[:, 0]) / np.linalg.norm(Xm, axis=1)
    assert cos.min() > 0.2  # margin survives whitening (spec A §5.0: ≥ 0.24·… for d = 2; > 0 here)
    y, V, b = datasets.relu_teacher(Xm, 1, k=3)
    assert y.shape == (4000,) and V.shape == (3, 3)
    with pytest.raises(RelucheckInputError, match="seed is required"):
        datasets.gaussian_inputs(3, 3, None)


def test_dominated_and_group_initializations():
    a, W = initializations.dominated(6, 4, 0.5, 0)
    assert np.all(np.abs(a) >= np.linalg.norm(W, axis=1))
    a, W = initializations.paper_b_experiment(6, 4, 0)
    assert np.all(np.abs(a) > np.linalg.norm(W, axis=1))
    X = np.eye(6)
    y = np.array([1.0, 2, 1, -1, -2, -1])
    a, W = initializations.group(X, y, 2, 0.1)
    Z = X @ W.T
    assert np.all(Z[:3, 0] > 0) and np.all(Z[3:, 0] <= 0) and np.all(Z[3:, 1] > 0)
    assert np.allclose(balancedness_defect(a, W), 0)
    with pytest.raises(HypothesisViolation, match="share one sign"):
        initializations.group(X, np.array([1.0, -2, 1, -1, -2, -1]), 2, 0.1)
    with pytest.raises(RelucheckInputError, match="multiple of p"):
        initializations.group(X, y, 4, 0.1)
