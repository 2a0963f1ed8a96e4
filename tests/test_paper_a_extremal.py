"""Paper A extremal vectors (Definition 2.1), G_n, D_n, Cover's count, and the extremal-vectors command."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.proofs_checks.cli import main
from relucheck.theory.early_alignment import D_n, G_n
from relucheck.theory.extremal_vectors import count_cells, cover_count, extremal_vectors
from relucheck.theory.sup_deviation import sup_deviation_2d

seeds = st.integers(0, 2**31 - 1)


def _data(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X[:, 0] + rng.standard_normal(n)


def _in_clarke_set(X, y, w, D, tol=1e-10):
    """D ∈ 𝒟_n(w): D − D_n(w) is Σ_T η_k y_k x_k/n with η ∈ [0,1]^T (least squares with bounds)."""
    from scipy.optimize import lsq_linear

    n = len(y)
    z = X @ w
    ties = np.flatnonzero(np.abs(z) <= 1e-9 * np.linalg.norm(X, axis=1))
    base = ((z > 1e-9 * np.linalg.norm(X, axis=1)) * y) @ X / n
    if ties.size == 0:
        return np.linalg.norm(D - base) <= tol
    G = (y[ties, None] * X[ties]).T / n
    sol = lsq_linear(G, D - base, bounds=(0, 1))
    return np.linalg.norm(G @ sol.x - (D - base)) <= tol


@given(seed=seeds, n=st.integers(2, 14), d=st.sampled_from([2, 3]))
@settings(max_examples=20)
def test_every_extremal_vector_is_in_its_clarke_set_and_parallel_to_w(seed, n, d):
    X, y = _data(seed, n, d)
    for e in extremal_vectors(X, y):
        w, D = e.direction, e.vector
        assert abs(np.linalg.norm(w) - 1) < 1e-12
        assert np.linalg.norm(D - (D @ w) * w) <= 1e-12 * max(1.0, np.linalg.norm(D))
        assert (D @ w > 0) == (e.type == "max")
        assert _in_clarke_set(X, y, w, D)
        assert abs(D @ w - G_n(X, y, w)) <= 1e-12  # the component along w is G_n(w) whatever the selection


@given(seed=seeds, n=st.integers(2, 30))
@settings(max_examples=15)
def test_cell_extremals_match_brute_force_on_the_circle(seed, n):
    """d = 2: every open arc with constant D_c whose ±D̄_c lies in the arc is found, and nothing else in cells."""
    X, y = _data(seed, n, 2)
    phi = np.arctan2(X[:, 1], X[:, 0])
    b = np.sort(np.mod(np.concatenate([phi + np.pi / 2, phi - np.pi / 2]), 2 * np.pi))
    mids = (b + np.append(b[1:], b[0] + 2 * np.pi)) / 2
    brute = set()
    for t in mids:
        w = np.array([np.cos(t), np.sin(t)])
        Dc = D_n(X, y, w)
        if not np.any(Dc):
            continue  # D_c = 0 (no active point in the cell): not a non-zero extremal vector
        for s in (1, -1):
            u = s * Dc / np.linalg.norm(Dc)
            if np.array_equal(X @ u > 0, X @ w > 0) and np.all(np.abs(X @ u) > 1e-12):
                brute.add(tuple(np.round(Dc, 10)) + (("max" if s == 1 else "min"),))
    enumerated = {tuple(np.round(e.vector, 10)) + (e.type,) for e in extremal_vectors(X, y) if e.face == "cell"}
    assert enumerated == brute


@given(seed=seeds, n=st.integers(2, 12), d=st.sampled_from([2, 3]))
@settings(max_examples=15)
def test_invariant_under_permutation_and_rotation(seed, n, d):
    X, y = _data(seed, n, d)
    rng = np.random.default_rng(seed + 1)
    base = sorted((e.type, tuple(np.round(e.vector, 8))) for e in extremal_vectors(X, y))
    perm = rng.permutation(n)
    assert sorted((e.type, tuple(np.round(e.vector, 8))) for e in extremal_vectors(X[perm], y[perm])) == base
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    rotated = sorted((e.type, tuple(np.round(Q.T @ e.vector, 8))) for e in extremal_vectors(X @ Q.T, y))
    assert rotated == base


@given(seed=seeds, n=st.integers(2, 12), c=st.sampled_from([0.5, 3.0, -2.0]))
@settings(max_examples=15)
def test_label_scaling(seed, n, c):
    """y → c y scales every extremal vector by c; a negative c swaps max and min types."""
    X, y = _data(seed, n, 2)
    flip = {"max": "min", "min": "max"}
    base = sorted((e.type if c > 0 else flip[e.type], tuple(np.round(c * e.vector, 9))) for e in extremal_vectors(X, y))
    scaled = sorted((e.type, tuple(np.round(e.vector, 9))) for e in extremal_vectors(X, c * y))
    assert scaled == base


@given(seed=seeds, n=st.integers(1, 12), d=st.sampled_from([2, 3]))
@settings(max_examples=20)
def test_cover_count_equals_enumerated_cells(seed, n, d):
    X, _ = _data(seed, n, d)
    assert count_cells(X) == cover_count(n, d)


@given(seed=seeds, n=st.integers(2, 10))
@settings(max_examples=20)
def test_selection_independence_at_ties(seed, n):
    """H1: ⟨w, D_η⟩ = ⟨w, D_n(w)⟩ for any η_k ∈ [0, 1] on tied points (η_k⟨w, x_k⟩ = σ(⟨w, x_k⟩))."""
    rng = np.random.default_rng(seed)
    X, y = _data(seed, n, 3)
    w = np.cross(X[0], X[1])
    w /= np.linalg.norm(w)
    eta = (X @ w > 0).astype(float)
    eta[:2] = rng.random(2)
    D_eta = (eta * y) @ X / n
    assert abs(w @ D_eta - w @ D_n(X, y, w)) <= 1e-12


def test_spec_four_point_example():
    X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.3, 0.7, -0.9, -1.4])
    cells = {(e.type, tuple(np.round(e.vector, 12))) for e in extremal_vectors(X, y) if e.face == "cell"}
    assert cells == {("max", (0.5, 0.15)), ("min", (0.575, 0.125))}  # D_± = (1/n) Σ_{S±} y_k x_k


def test_margin_data_has_exactly_two_extremal_vectors_in_d3():
    from relucheck.numerics import datasets

    rng = np.random.default_rng(5)
    X = datasets.margin_inputs(60, 3, rng, c0=0.3)
    y = datasets.linear_teacher(X, rng, noise=0.5)
    plus = X[:, 0] > 0
    found = extremal_vectors(X, y)
    assert [(e.type, e.face) for e in found] == [("max", "cell"), ("min", "cell")]
    assert np.allclose(found[0].vector, (y * plus) @ X / 60, atol=1e-15)
    assert np.allclose(found[1].vector, (y * ~plus) @ X / 60, atol=1e-15)


def test_sup_deviation_matches_dense_sampling():
    X, y = _data(3, 40, 2)
    t = np.linspace(0, 2 * np.pi, 400001)
    W = np.stack([np.cos(t), np.sin(t)], 1)
    dense = np.max(np.linalg.norm(D_n(X, y, W) - [0.5, 0.0], axis=1))
    assert abs(sup_deviation_2d(X, y, [0.5, 0.0]) - dense) < 1e-12


@pytest.mark.parametrize("X, y, match", [
    (np.ones((3, 4)), np.ones(3), "d = 2 and d = 3"),
    (np.ones((3, 2)), np.ones(2), "labels must have n = 3"),
    (np.array([[1.0, np.nan]]), np.ones(1), "inputs must be finite"),
    (np.ones(3), np.ones(3), "n×d"),
])
def test_bad_input_is_named(X, y, match):
    with pytest.raises(RelucheckInputError, match=match):
        extremal_vectors(X, y)


def test_command_json_and_errors(tmp_path, capsys):
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"inputs": [[1, 1], [1, -1], [-1, 1], [-1, -1]], "labels": [1.3, 0.7, -0.9, -1.4]}))
    assert main(["extremal-vectors", str(path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"direction", "vector", "type"} <= set(rows[0])
    assert {r["type"] for r in rows} == {"max", "min"}
    assert main(["extremal-vectors", str(path)]) == 0
    assert "max" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"inputs": [[1, 2]]}))
    assert main(["extremal-vectors", str(bad)]) == 2
    assert "field 'labels' is missing" in capsys.readouterr().err
    assert main(["extremal-vectors", str(tmp_path / "none.json")]) == 2


def _data_file(tmp_path, n, d, seed=0):
    X, y = _data(seed, n, d)
    path = tmp_path / f"data_{n}_{d}.json"
    path.write_text(json.dumps({"inputs": X.tolist(), "labels": y.tolist()}))
    return path


def test_command_refuses_a_request_estimated_beyond_its_budgets(tmp_path, capsys):
    """The cost is estimated from n, d and the exponents before anything runs (issue 20: n = 300, d = 3 took 81 s and
    2.3 GB without a word): beyond --budget or --memory the request is refused, naming the bound and the estimate."""
    path = _data_file(tmp_path, 300, 3)  # estimated ≈ 9 s and ≈ 430 MB (theory.extremal_cost)
    assert main(["extremal-vectors", str(path), "--budget", "1"]) == 2
    err = capsys.readouterr().err
    assert f"data file {path}: the exact enumeration is estimated at" in err
    assert "beyond the time budget of 1 s (--budget" in err and "n = 300 points in d = 3" in err
    assert main(["extremal-vectors", str(path), "--memory", "64"]) == 2
    assert "beyond the memory budget of 64 MiB (--memory)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # argparse: the shared validator of --budget
        main(["extremal-vectors", str(path), "--budget", "-1"])
    assert exited.value.code == 2 and "argument --budget: must be a number of seconds" in capsys.readouterr().err


def _never_returns(X, y):
    import time

    time.sleep(600)


def test_command_beyond_its_time_budget_is_inconclusive(tmp_path, capsys, monkeypatch):
    """An enumeration that outruns --budget (here one that never returns) is stopped: exit 3, nothing on stdout."""
    from relucheck.proofs_checks.commands import extremal_vectors as command

    monkeypatch.setattr(command, "extremal_vectors", _never_returns)
    path = _data_file(tmp_path, 6, 2)
    assert main(["extremal-vectors", str(path), "--budget", "0.5", "--json"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert f"inconclusive (exit code 3): data file {path}" in err and "time budget of 0.5 s" in err


def test_command_default_budget_is_a_minute():
    from relucheck.proofs_checks.cli import build_parser

    args = build_parser().parse_args(["extremal-vectors", "data.json"])
    assert args.budget == 60.0 and args.memory == 2048
