"""Paper C flow engines ("uw-float64", "raw-float64"), the first-jump constant, `relucheck flow`, and the
flow-versus-Algorithm-1 property (spec C §2.6, C11)."""
import argparse
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.engines import get_engine
from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.instances import Instance
from relucheck.numerics.orthogonal_flow import uw_flow
from relucheck.numerics.orthogonal_raw import raw_flow
from relucheck.proofs_checks.checks.paper_c_flow import (SPEC_C_BOUND, golden_instance, instance_of, separated_instance,
                                               wrong_sign_instance)
from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.commands.flow import _engine_and_options
from relucheck.theory.first_jump import (first_jump, growth_phase_proof, half_fit_time_proof, kappa_closed_form,
                               kappa_linear_system, linear_phase, logistic_fit_phase_proof)
from relucheck.theory.limit_process import limit_process_of

GOLDEN_TAUS = (0.8, 0.8 + (4 / math.sqrt(5)) * (1 - math.sqrt(21) / 5))  # spec C §2.7


# -- property: flow against the limit ------------------------------------------------------------

@st.composite
def separated_instances(draw):
    n = draw(st.integers(2, 6))
    m = draw(st.integers(2, 4))
    d = n + draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**31))
    return separated_instance(seed, n, m, d, min_gap=0.5, min_leftover=0.25)


@settings(max_examples=12, deadline=None)
@given(separated_instances())
def test_flow_jumps_match_algorithm_1_within_C_over_log(inst):
    """At λ = 1e-30 (ln(1/λ) ≈ 69): same neurons in the same order, same fitted sets, and
    |τ̂_k − τ_k| ≤ C/ln(1/λ) with C = 25 (spec C11(b); jump gaps ≥ 0.5 > 25/69 keep jumps apart)."""
    lp = limit_process_of(inst)
    run = uw_flow(inst, "1e-30")
    assert [jp.neuron for jp in run.jumps] == [jp.neuron for jp in lp.jumps]
    assert [jp.fitted for jp in run.jumps] == [jp.fitted for jp in lp.jumps]
    errors = np.array([a.tau - b.tau for a, b in zip(run.jumps, lp.jumps, strict=True)])
    assert np.all(np.abs(errors) * run.log_inv_lambda <= SPEC_C_BOUND), errors * run.log_inv_lambda
    assert np.allclose(run.loss_plateaus, lp.plateaus, atol=0.05 * np.abs(inst.labels).sum() / inst.n)


# -- engines -------------------------------------------------------------------------------------

def test_golden_at_1e_minus_1000_is_finite_and_matches_the_first_jump_constant():
    inst = golden_instance()
    run = uw_flow(inst, "1e-1000")
    assert run.log_inv_lambda == pytest.approx(1000 * math.log(10), rel=1e-15)
    assert np.all(np.isfinite(run.losses)) and np.all(np.isfinite(run.rho)) and np.all(np.isfinite(run.W))
    assert [jp.neuron for jp in run.jumps] == [0, 1]
    assert [jp.fitted for jp in run.jumps] == [[0, 1], [2, 3]]
    scaled = (run.jumps[0].tau - GOLDEN_TAUS[0]) * run.log_inv_lambda
    assert scaled == pytest.approx(first_jump(inst).constant, abs=1e-6)  # spec C11(d)
    assert run.loss_plateaus == pytest.approx([15 / 4, 5 / 8, 0.0], abs=1e-9)
    # integration error: ≤ rtol (1e-10) per step, accumulated over the run's steps
    assert run.squared_norm == pytest.approx(2 * (5 + math.sqrt(5)), rel=run.stats["steps"] * 1e-10)


def test_raw_and_uw_engines_agree_on_a_rotated_mixed_sign_instance():
    inst = instance_of("random", 0)
    uw, raw = uw_flow(inst, "1e-20"), raw_flow(inst, "1e-20")
    assert [j.neuron for j in uw.jumps] == [j.neuron for j in raw.jumps]
    assert np.allclose([j.tau for j in uw.jumps], [j.tau for j in raw.jumps], atol=1e-7)
    assert np.allclose(uw.a, raw.a, atol=1e-7) and np.allclose(uw.W, raw.W, atol=1e-7)
    assert uw.stats["events"] == raw.stats["events"] > 0  # wrong-sign components deactivate in both
    for run in (uw, raw):  # every crossing is root-refined, events notwithstanding
        assert run.stats["refined_crossings"] == len(run.jumps)


def test_events_freeze_components_at_zero_assumption_2():
    inst = instance_of("random-unrotated", 0)
    run = raw_flow(inst, "1e-20")
    Z = run.W @ inst.inputs.T
    assert run.stats["events"] > 0
    for e in run.stats["event_list"]:
        assert Z[e["neuron"], e["datum"]] == 0.0
        assert inst.signs[e["neuron"]] * inst.labels[e["datum"]] < 0  # only wrong-sign components die here
    Z0 = 1e-20 * inst.directions @ inst.inputs.T
    assert np.array_equal(Z[Z0 <= 0], Z0[Z0 <= 0])


def test_settle_rule_stops_before_a_far_horizon():
    run = uw_flow(golden_instance(), "1e-20", horizon=50.0)
    assert run.stats["stopped"] == "settled"
    assert run.taus[-1] < 10.0
    assert [jp.neuron for jp in run.jumps] == [0, 1]


def test_detection_is_the_engines_rule_refined_to_the_root():
    run = uw_flow(golden_instance(), "1e-40")
    for jp in run.jumps:
        half = run.rho[-1, jp.neuron] / 2
        k = int(np.searchsorted(run.taus, jp.tau))
        near = run.rho[max(k - 1, 0):k + 1, jp.neuron]
        assert np.min(np.abs(near / half - 1)) < 1e-8  # a sample sits on the half-fit crossing
    assert run.stats["refined_crossings"] == 2


def test_engines_registered():
    assert get_engine("uw-float64") is uw_flow
    assert get_engine("raw-float64") is raw_flow


# -- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lam, message", [("0", "λ must be finite and > 0"), ("-1e-3", "λ must be finite and > 0"),
                                          ("1", "needs λ < 1"), ("abc", "must be a number")])
def test_bad_lambda(lam, message):
    with pytest.raises(RelucheckInputError, match=message):
        uw_flow(golden_instance(), lam)


def test_raw_engine_refuses_lambda_below_1e_150():
    with pytest.raises(RelucheckInputError, match="below 1e-150"):
        raw_flow(golden_instance(), "1e-200")


def test_non_orthonormal_inputs_name_assumption_1():
    inst = golden_instance()
    X = inst.inputs.copy()
    X[1] = (X[0] + X[1]) / math.sqrt(2)
    bad = Instance(X, inst.labels, inst.directions, inst.signs)
    for engine in (uw_flow, raw_flow):
        with pytest.raises(HypothesisViolation, match="Assumption 1"):
            engine(bad, "1e-20")


def test_bad_horizon():
    with pytest.raises(RelucheckInputError, match="horizon"):
        uw_flow(golden_instance(), "1e-20", horizon=-1.0)


# -- first-jump constant ---------------------------------------------------------------------------

def test_golden_kappa_and_c1():
    fj = first_jump(golden_instance())
    assert fj.kappa == pytest.approx(0.85, abs=1e-15)
    assert fj.constant == pytest.approx(math.log(math.sqrt(5) / 0.85) / 1.25, abs=1e-15)
    assert fj.wrong_sign == 0 and fj.events == []


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31))
def test_linear_system_reduces_to_the_closed_form_without_wrong_sign_components(n, seed):
    rng = np.random.default_rng(seed)
    y = np.abs(rng.standard_normal(n)) + 0.1
    g = rng.standard_normal(n + 2)
    g /= np.linalg.norm(g)
    g_data = g[:n]
    fitted = np.flatnonzero(g_data > 0)
    if fitted.size == 0:
        g_data = -g_data
        fitted = np.flatnonzero(g_data > 0)
    kappa, events = kappa_linear_system(g_data, y, 1.0)
    assert events == []
    assert kappa == pytest.approx(kappa_closed_form(g_data, y, fitted), rel=1e-12)


def test_linear_phase_with_wrong_sign_components_deactivates_them_in_order():
    inst = wrong_sign_instance(0)
    fj = first_jump(inst)
    assert fj.wrong_sign == len(fj.events) >= 1
    assert fj.events == sorted(fj.events)
    j = fj.neuron
    g = inst.inputs @ inst.directions[j]
    after = linear_phase(g, inst.labels, inst.signs[j], fj.events[-1] * 1.01)
    wrong = (g > 0) & (inst.signs[j] * inst.labels < 0)
    assert np.all(after.z[wrong] == 0.0)
    assert 0 < fj.kappa < 1


def test_sympy_proofs_of_the_growth_logistic_and_half_fit_laws():
    assert logistic_fit_phase_proof() == 0
    assert growth_phase_proof() == 0
    assert half_fit_time_proof() == 0


# -- command line ---------------------------------------------------------------------------------

def test_flow_command_json(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    assert main(["flow", str(path), "--lam", "1e-40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("jumps", "interpolates", "squared_norm", "loss_plateaus", "engine", "tolerances", "stats",
                "limit_process"):
        assert key in out
    assert [set(j) for j in out["jumps"]] == [{"tau", "neuron", "fitted"}] * 2
    assert out["jumps"][0]["fitted"] == [0, 1] and out["engine"] == "uw-float64"
    assert out["stats"]["nfev"] > 0 and out["tolerances"]["rtol"] == 1e-10


def test_flow_command_human_output_shows_algorithm_1(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    assert main(["flow", str(path), "--lam", "1e-20", "--engine", "raw-float64"]) == 0
    out = capsys.readouterr().out
    assert "tau (Alg. 1)" in out and "0.8" in out and "raw-float64" in out


def test_flow_command_rejects_non_orthonormal_inputs(tmp_path, capsys):
    raw = golden_instance().to_json()
    raw["inputs"][1] = [0.6, 0.8, 0.0, 0.0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    assert main(["flow", str(path), "--lam", "1e-20"]) == 2
    assert "Assumption 1" in capsys.readouterr().err


def test_precision_option_selects_the_high_precision_engine():
    args = argparse.Namespace(engine=None, precision=30, horizon=None)
    name, _, options = _engine_and_options(args)
    assert name == "mpmath" and options == {"digits": 30}
    with pytest.raises(RelucheckInputError, match="--precision"):
        _engine_and_options(argparse.Namespace(engine=None, precision=0, horizon=None))
