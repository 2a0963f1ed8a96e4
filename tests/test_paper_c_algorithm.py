"""Algorithm 1 of paper C: properties (C02–C05), equivariance, float vs exact, ties, bad input, the CLI."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.instances import Instance
from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.checks.paper_c_instances import GOLDEN_LABELS, GOLDEN_SIGNS, golden_instance
from relucheck.testing.strategies import algorithm_inputs, orthonormal_instances
from relucheck.theory.interpolation_probability import all_rows_nonzero_probability, row_union_lower_bound
from relucheck.theory.limit_process import correct_sign_mask, limit_process, limit_process_of, rate_constant
from relucheck.theory.limit_process_exact import exact_sign, limit_process_exact

GOLDEN_ACT = golden_instance().activation()  # (n, m) = ⟨ḡ_j, e_i⟩ > 0 of spec C §2.7


# -- invariants (spec C §5, C02) --------------------------------------------------------------------
@given(algorithm_inputs())
def test_algorithm1_invariants(inputs):
    y, s, act = inputs
    lp = limit_process(y, s, act)
    n, m = act.shape
    taus = lp.taus
    assert np.all(np.diff(taus) >= 0)
    if not lp.ties:
        assert np.all(np.diff(taus) > 0)                                                # strict without ties
    assert len(lp.jumps) <= min(m, n)
    fitted = [i for jp in lp.jumps for i in jp.fitted]
    assert len(fitted) == len(set(fitted)) and all(jp.fitted for jp in lp.jumps)     # disjoint, non-empty
    assert len({jp.neuron for jp in lp.jumps}) == len(lp.jumps)
    assert np.all(np.diff(lp.plateaus) < 0)                                              # strictly decreasing
    assert lp.plateaus[-1] == pytest.approx(sum(y[i] ** 2 for i in set(range(n)) - set(fitted)) / (2 * n), abs=1e-12)
    U = np.stack([lp.segment_start[k] for k in range(len(lp.jumps) + 1)])
    assert np.all((U >= 0) & (U <= 1)) and np.all(np.diff(U, axis=0) <= 1e-15)         # exponents in [0,1], non-increasing
    rates = lp.segment_rates
    assert np.all(np.diff(rates, axis=0) <= 1e-12)                                      # slopes never increase
    for jp in lp.jumps:                                                  # each neuron fits its own correct-sign points
        assert all(act[i, jp.neuron] and s[jp.neuron] * y[i] > 0 for i in jp.fitted)
    assert lp.interpolates == bool(correct_sign_mask(y, s, act).any(1).all())          # ⟺ every mask row non-zero
    h = (lp.a[:, None] * np.maximum(lp.W_data, 0)).sum(0)                              # outputs of θ_∞ at x_i = e_i
    assert np.allclose(h[fitted], y[fitted], rtol=1e-12, atol=0) and np.all(h[np.setdiff1d(np.arange(n), fitted)] == 0)


@given(algorithm_inputs(), st.floats(0.1, 10.0))
def test_scaling_labels_divides_times(inputs, c):
    y, s, act = inputs
    base, scaled = limit_process(y, s, act), limit_process(c * y, s, act)
    assert [(j.neuron, j.fitted) for j in base.jumps] == [(j.neuron, j.fitted) for j in scaled.jumps]
    np.testing.assert_allclose(scaled.taus, base.taus / c, rtol=1e-12)
    assert scaled.squared_norm == pytest.approx(c * base.squared_norm, rel=1e-12)


@given(algorithm_inputs(), st.integers(0, 2**32 - 1))
def test_permutation_and_sign_flip_equivariance(inputs, seed):
    y, s, act = inputs
    base = limit_process(y, s, act)
    if base.ties:
        return      # the lowest-index tie rule is not permutation-invariant by construction
    rng = np.random.default_rng(seed)
    p, q = rng.permutation(y.size), rng.permutation(s.size)
    perm = limit_process(y[p], s[q], act[np.ix_(p, q)])
    assert [(int(q[j.neuron]), sorted(int(p[i]) for i in j.fitted)) for j in perm.jumps] == \
           [(j.neuron, j.fitted) for j in base.jumps]
    np.testing.assert_allclose(perm.taus, base.taus, rtol=1e-12)
    flip = limit_process(-y, -s, act)
    assert [(j.neuron, j.fitted) for j in flip.jumps] == [(j.neuron, j.fitted) for j in base.jumps]
    np.testing.assert_allclose(flip.taus, base.taus, rtol=1e-12)


@given(orthonormal_instances())
def test_rotation_invariance_and_instance_entry_point(inst):
    lp = limit_process_of(inst)
    direct = limit_process(inst.labels, inst.signs, inst.activation())
    assert lp.to_json() == direct.to_json()
    W = lp.weights(inst.inputs)                                # final neurons in input space, eq. (13)
    outputs = (lp.a[:, None] * np.maximum(W @ inst.inputs.T, 0)).sum(0)
    fitted = [i for jp in lp.jumps for i in jp.fitted]
    np.testing.assert_allclose(outputs[fitted], inst.labels[fitted], rtol=1e-9, atol=1e-12)


def test_b22_regime_recovers_min_norm():
    """C05: a neuron active on all of I_+ and one on all of I_− fit each sign class at once (ratio 1)."""
    y = np.array([1.0, -2.0, 0.5, -0.3, 2.0])
    act = np.column_stack([y > 0, y < 0, [True, False, False, True, False]])
    lp = limit_process(y, np.array([1.0, -1.0, 1.0]), act)
    assert sorted(jp.neuron for jp in lp.jumps) == [0, 1] and lp.interpolates
    assert lp.squared_norm == pytest.approx(lp.min_norm_squared, rel=1e-14)


def test_golden_example_float_and_json():
    lp = limit_process(list(GOLDEN_LABELS), list(GOLDEN_SIGNS), GOLDEN_ACT)
    np.testing.assert_allclose(lp.taus, [0.8, 0.8 + 4 / math.sqrt(5) * (1 - math.sqrt(21) / 5)], rtol=1e-15)
    assert lp.plateaus == [3.75, 0.625, 0.0] and lp.interpolates and lp.ties == []
    assert lp.exponents_at(0.5) == pytest.approx([1 - 0.5 * 5 / 4, 1 - 0.5 * math.sqrt(21) / 4, 1 - 0.5 / 4])
    assert lp.exponents_at(10.0)[:2].tolist() == [0.0, 0.0] and lp.loss_at(0.85) == 0.625
    assert rate_constant(4) == 0.25
    out = lp.to_json()
    assert set(out) == {"jumps", "interpolates", "squared_norm", "min_norm_squared", "loss_plateaus", "ties", "final"}
    assert out["jumps"][0] == {"tau": 0.8, "neuron": 0, "fitted": [0, 1], "norm_y": 5.0}
    json.dumps(out)


def test_exact_golden_values_and_exact_sign():
    ex = limit_process_exact([str(v) for v in GOLDEN_LABELS], list(GOLDEN_SIGNS), GOLDEN_ACT)
    assert ex.jumps[0].tau == sp.Rational(4, 5)
    assert exact_sign(ex.jumps[1].tau - (sp.Rational(4, 5) + 4 / sp.sqrt(5) * (1 - sp.sqrt(21) / 5))) == 0
    assert exact_sign(ex.squared_norm - 2 * (5 + sp.sqrt(5))) == 0
    assert exact_sign(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6))) == 0     # zero only provable exactly
    assert exact_sign(sp.sqrt(2) - sp.Rational(141421356237, 10**11)) == 1


@given(algorithm_inputs(max_n=5, max_m=3))
def test_float_matches_exact(inputs):
    y, s, act = inputs
    fl, ex = limit_process(y, s, act), limit_process_exact(y.tolist(), s.tolist(), act)
    assert [(j.neuron, j.fitted) for j in fl.jumps] == [(j.neuron, j.fitted) for j in ex.jumps]
    scale = max([1.0] + [float(j.tau) for j in ex.jumps])
    np.testing.assert_allclose(fl.taus, [float(j.tau) for j in ex.jumps], rtol=0, atol=1e-12 * scale)
    assert fl.squared_norm == pytest.approx(float(ex.squared_norm), rel=1e-12)
    assert len(fl.ties) == len(ex.ties)


def test_ties_reported_not_broken_silently():
    act = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=bool)
    lp = limit_process([1, 1, 1, 1], [1, 1], act)
    assert lp.ties == [{"iteration": 1, "neurons": [0, 1], "tau": pytest.approx(2 * math.sqrt(2))}]
    assert [j.neuron for j in lp.jumps] == [0, 1]                   # lowest index first, then the other
    ex = limit_process_exact([1, 1, 1, 1], [1, 1], act)
    assert ex.ties[0]["neurons"] == [0, 1] and ex.ties[0]["tau"] == 2 * sp.sqrt(2)


def test_interpolation_probability_exact_values():
    assert float(all_rows_nonzero_probability(16, 16, 15)) == pytest.approx(0.6969, abs=5e-5)
    assert float(all_rows_nonzero_probability(32, 32, 25)) == pytest.approx(0.9572, abs=5e-5)
    assert all_rows_nonzero_probability(1, 0, 1) == Fraction(1, 4)      # one neuron: positive sign and active
    assert row_union_lower_bound(32, 32, 25) <= all_rows_nonzero_probability(32, 32, 25)
    with pytest.raises(RelucheckInputError, match="width m"):
        all_rows_nonzero_probability(3, 3, 0)


# -- bad input -------------------------------------------------------------------------------------
def test_bad_inputs_name_the_problem():
    act = np.ones((2, 1), bool)
    with pytest.raises(HypothesisViolation, match=r"Assumption 4\(ii\).*label 1 is 0"):
        limit_process([1.0, 0.0], [1.0], act)
    with pytest.raises(RelucheckInputError, match="labels must be finite"):
        limit_process([1.0, np.nan], [1.0], act)
    with pytest.raises(RelucheckInputError, match="signs must be"):
        limit_process([1.0, 2.0], [0.5], act)
    with pytest.raises(RelucheckInputError, match=r"activation must have shape \(n, m\) = \(2, 1\)"):
        limit_process([1.0, 2.0], [1.0], np.ones((1, 2), bool))
    with pytest.raises(RelucheckInputError, match="tie_rtol"):
        limit_process([1.0, 2.0], [1.0], act, tie_rtol=-1)
    with pytest.raises(RelucheckInputError, match="τ must be finite"):
        limit_process([1.0, 2.0], [1.0], act).exponents_at(-1.0)
    with pytest.raises(HypothesisViolation, match=r"Assumption 4\(ii\)"):
        limit_process_exact([1, 0], [1], act)
    with pytest.raises(RelucheckInputError, match="not a number"):
        limit_process_exact(["x", 1], [1], act)
    skew = Instance([[1.0, 0.0], [0.6, 0.8]], [1.0, 2.0], [[1.0, 0.0]], [1.0])
    with pytest.raises(HypothesisViolation, match="Assumption 1"):
        limit_process_of(skew)


# -- the command ----------------------------------------------------------------------------------
def _write(tmp_path, inputs, labels, directions, signs, name="inst.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"inputs": inputs, "labels": labels, "directions": directions, "signs": signs}))
    return str(path)


def test_cli_limit_process_json_exact_and_table(tmp_path, capsys):
    path = _write(tmp_path, np.eye(4).tolist(), list(GOLDEN_LABELS), (GOLDEN_ACT.T * 1.0 - 0.5).tolist(), list(GOLDEN_SIGNS))
    assert main(["limit-process", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [j["neuron"] for j in out["jumps"]] == [0, 1] and out["interpolates"] and out["ties"] == []
    assert out["squared_norm"] == pytest.approx(2 * (5 + math.sqrt(5))) and out["loss_plateaus"] == [3.75, 0.625, 0.0]
    assert main(["limit-process", path, "--exact", "--json"]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert exact["jumps"][0]["tau"] == {"exact": "4/5", "value": 0.8}
    assert exact["squared_norm"]["exact"] == "2*sqrt(5) + 10"
    assert main(["limit-process", path]) == 0
    table = capsys.readouterr().out
    assert "interpolates: True" in table and "0.9493422594" in table


def test_cli_limit_process_warns_on_ties_and_refuses_non_orthonormal(tmp_path, capsys):
    tie = _write(tmp_path, np.eye(4).tolist(), [1, 1, 1, 1], [[.5, .5, -.5, -.5], [-.5, -.5, .5, .5]], [1, 1])
    assert main(["limit-process", tie, "--json"]) == 0
    captured = capsys.readouterr()
    assert "Assumption 4(ii) violated: tie between neurons 0, 1" in captured.err
    assert json.loads(captured.out)["ties"][0]["neurons"] == [0, 1]
    bad = _write(tmp_path, [[1, 0], [0.6, 0.8]], [1, 2], [[1, 0]], [1], "bad.json")
    assert main(["limit-process", bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("relucheck: error: instance file") and "bad.json: Assumption 1 (orthonormal inputs" in err


@pytest.mark.full
def test_norm_figure_writes_plots_and_table(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from relucheck.proofs_checks.figures.c_norm_vs_n import FIG5_SIZES, write_norm_figure

    paths = write_norm_figure(tmp_path, seed=0)
    assert sorted(p.suffix for p in paths) == [".csv", ".md", ".pdf", ".png", ".tex"] and all(p.stat().st_size for p in paths)
    table = (tmp_path / "fig5_norm_vs_n.md").read_text()
    assert all(f"| {n} |" in table for n in FIG5_SIZES)
