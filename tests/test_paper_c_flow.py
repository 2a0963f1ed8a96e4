"""Paper C's flow through the "float64" engine of `numerics.flows` (data basis and inputs basis), the first-jump
constant, `relucheck flow` on orthonormal data, and the flow-versus-Algorithm-1 property (spec C §2.6, C11)."""
import argparse
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.flows import EventKind, FlowProblem, Status, get_engine, solve
from relucheck.numerics.flows import available_engines
from relucheck.numerics.instances import Instance
from relucheck.proofs_checks.checks.paper_c_flow import SPEC_C_BOUND
from relucheck.proofs_checks.checks.paper_c_instances import (golden_instance, instance_of, separated_instance,
                                                             wrong_sign_instance)
from relucheck.proofs_checks.checks.paper_c_runs import exponents, run_flow, squared_outputs
from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.commands.flow import engine_and_options
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
    run = run_flow(inst, "1e-30")
    assert run.status is Status.SUCCESS, run.message
    assert [jp.neuron for jp in run.jumps] == [jp.neuron for jp in lp.jumps]
    assert [list(jp.fitted) for jp in run.jumps] == [jp.fitted for jp in lp.jumps]
    errors = np.array([a.tau - b.tau for a, b in zip(run.jumps, lp.jumps, strict=True)])
    assert np.all(np.abs(errors) * run.log_inv_lambda <= SPEC_C_BOUND), errors * run.log_inv_lambda
    assert np.allclose(run.plateaus, lp.plateaus, atol=0.05 * np.abs(inst.labels).sum() / inst.n)


# -- the float64 engine on paper C's instances --------------------------------------------------------

def test_golden_at_1e_minus_1000_is_finite_and_matches_the_first_jump_constant():
    inst = golden_instance()
    run = run_flow(inst, "1e-1000")
    assert run.status is Status.SUCCESS and run.engine == "float64"
    assert run.log_inv_lambda == pytest.approx(1000 * math.log(10), rel=1e-15)
    traj = run.trajectory
    assert np.all(np.isfinite(traj.loss)) and np.all(np.isfinite(traj.log_norms)) and np.all(np.isfinite(run.W))
    assert [jp.neuron for jp in run.jumps] == [0, 1]
    assert [list(jp.fitted) for jp in run.jumps] == [[0, 1], [2, 3]]
    scaled = (run.jumps[0].tau - GOLDEN_TAUS[0]) * run.log_inv_lambda
    # spec C11(d); the half-final crossing is solved on the engine's dense output: with the loop's cubic Hermite
    # between step ends it was 6e-5 off at λ = 1e-200
    assert scaled == pytest.approx(first_jump(inst).constant, abs=1e-7)
    assert run.plateaus == pytest.approx([15 / 4, 5 / 8, 0.0], abs=1e-9)
    # integration error: ≤ rtol (1e-10) per step, accumulated over the run's steps
    assert run.squared_norm == pytest.approx(2 * (5 + math.sqrt(5)), rel=run.stats["steps"] * 1e-10)


def test_inputs_basis_and_data_basis_agree_on_a_rotated_mixed_sign_instance():
    """The raw coordinates of the rotated inputs against the exact orthonormal coordinates (C.thm2.engines_agree)."""
    inst = instance_of("random", 0)
    data, inputs = run_flow(inst, "1e-10", basis="data"), run_flow(inst, "1e-10", basis="inputs")
    assert data.stats["basis"] == "data" and inputs.stats["basis"] == "inputs"
    assert data.success and inputs.success
    # at λ = 1e-40 a frozen component of the rotated inputs basis lies below ε: the engine either says so (PRECISION)
    # or its answer is the exact data basis' (earlier versions said PRECISION; now it succeeds and agrees to 8e-13,
    # measured): never a confident wrong answer
    deep_data, deep_inputs = run_flow(inst, "1e-40", basis="data"), run_flow(inst, "1e-40", basis="inputs")
    assert deep_data.success and deep_inputs.status in (Status.SUCCESS, Status.PRECISION)
    if deep_inputs.success:
        assert [(j.neuron, round(j.tau, 7)) for j in deep_data.jumps] == [(j.neuron, round(j.tau, 7)) for j in deep_inputs.jumps]
        assert np.allclose(deep_data.a, deep_inputs.a, atol=1e-7) and np.allclose(deep_data.W, deep_inputs.W, atol=1e-7)
    assert [j.neuron for j in data.jumps] == [j.neuron for j in inputs.jumps]
    assert np.allclose([j.tau for j in data.jumps], [j.tau for j in inputs.jumps], atol=1e-7)
    assert np.allclose(data.a, inputs.a, atol=1e-7) and np.allclose(data.W, inputs.W, atol=1e-7)
    # every wrong-sign component dies in both at the same τ: a deactivation in the exact data basis; in the rotated
    # inputs basis, where ⟨x_i, x_k⟩ carries rounding, a deactivation or a slide whose Filippov weight is set by it
    left = {(round(e.tau, 6), e.neuron, e.datum) for e in inputs.events if e.kind in (EventKind.DEACTIVATE, EventKind.SLIDE)}
    died = {(round(e.tau, 6), e.neuron, e.datum) for e in data.events}
    assert died and {e.kind for e in data.events} == {EventKind.DEACTIVATE} and died <= left


def test_events_freeze_components_assumption_2():
    """x_i = e_i, inputs basis, every component's error controlled relative to itself: deactivated components are
    exact zeros, non-positive ones keep their initial value to the integrator's relative accuracy."""
    inst = instance_of("random-unrotated", 0)
    run = run_flow(inst, "1e-20", basis="inputs", atol=1e-300)
    Z = run.W @ inst.inputs.T
    events = [e for e in run.events if e.kind is EventKind.DEACTIVATE]
    assert events and len(events) == len(run.events)
    for e in events:
        assert Z[e.neuron, e.datum] == 0.0
        assert inst.signs[e.neuron] * inst.labels[e.datum] < 0  # only wrong-sign components die here
    Z0 = 1e-20 * inst.directions @ inst.inputs.T
    frozen = Z0 < 0
    assert np.allclose(Z[frozen], Z0[frozen], rtol=10 * run.stats["steps"] * 1e-10, atol=0)


def test_without_a_horizon_the_flow_settles():
    run = solve(FlowProblem.from_instance(golden_instance(), "1e-20"), "float64")
    assert run.status is Status.SETTLED and run.success
    assert run.end < 10.0
    assert [jp.neuron for jp in run.jumps] == [0, 1]


def test_jump_times_are_the_half_final_crossings_of_the_sampled_state():
    """Sampling the state at the reported jump times (dense output of the state) gives ‖θ_j‖² = ‖θ_j(end)‖²/2."""
    inst = golden_instance()
    run = run_flow(inst, "1e-40")
    horizon = run.problem["horizon"]
    again = solve(FlowProblem.from_instance(inst, "1e-40", horizon=horizon, save_at=[jp.tau for jp in run.jumps]),
                  "float64")
    for k, jp in enumerate(run.jumps):
        at_jump = again.trajectory.log_norms[k, jp.neuron]
        assert at_jump == pytest.approx(run.final_log_norms[jp.neuron] - 0.5 * math.log(2), abs=1e-8)


def test_exponents_and_squared_outputs_of_a_balanced_run():
    """ũ_j = −ln(a_j²)/(2 ln(1/λ)) with a_j² = ‖θ_j‖²/2: ũ_j(0) = 1 and a_j(end)² = the final a_j²."""
    run = run_flow(golden_instance(), "1e-20")
    assert np.allclose(exponents(run)[0], 1.0, atol=1e-12)
    assert np.allclose(squared_outputs(run)[-1], run.a**2, rtol=1e-8)


def test_float64_engine_registered():
    assert "float64" in available_engines()
    described = get_engine("float64").describe()
    assert described["name"] == "float64" and "basis" in described["options"] and "any data" in described["domain"]


# -- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lam, message", [("0", "λ must be finite and > 0"), ("-1e-3", "λ must be finite and > 0"),
                                          ("1", "needs λ < 1"), ("abc", "must be a decimal number"),
                                          ("1/2", "must be a decimal number"), ("1e-10_0", "must be a decimal number")])
def test_bad_lambda(lam, message):
    with pytest.raises(RelucheckInputError, match=message):
        run_flow(golden_instance(), lam, 2.0)


def test_data_basis_needs_orthonormal_inputs():
    inst = golden_instance()
    X = inst.inputs.copy()
    X[1] = (X[0] + X[1]) / math.sqrt(2)
    bad = Instance(X, inst.labels, inst.directions, inst.signs)
    with pytest.raises(RelucheckInputError, match="basis='data' needs orthonormal inputs"):
        run_flow(bad, "1e-20", 2.0, basis="data")
    assert run_flow(bad, "1e-20", 2.0).success  # the engine itself takes any data
    with pytest.raises(HypothesisViolation, match="Assumption 1"):
        run_flow(bad, "1e-20")  # Algorithm 1's horizon needs orthonormal data


def test_bad_horizon():
    with pytest.raises(RelucheckInputError, match="horizon"):
        run_flow(golden_instance(), "1e-20", -1.0)


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
    for key in ("status", "message", "engine", "events", "jumps", "trajectory", "plateaus", "final_loss", "interpolates",
                "squared_norm", "tolerances", "stats", "limit_process"):
        assert key in out
    assert out["status"] == "success" and out["engine"] == "float64"
    assert [set(j) for j in out["jumps"]] == [{"tau", "neuron", "fitted"}] * 2
    assert out["jumps"][0]["fitted"] == [0, 1]
    assert out["stats"]["nfev"] > 0 and out["tolerances"]["rtol"] == 1e-10
    assert out["problem"]["horizon"] == pytest.approx(GOLDEN_TAUS[1] + 0.5)  # Algorithm 1's τ_K + 0.5
    assert len(out["trajectory"]["tau"]) == len(out["trajectory"]["loss"]) == out["stats"]["steps"] + 1


def test_flow_command_human_output_shows_algorithm_1(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    assert main(["flow", str(path), "--lam", "1e-20", "--engine", "float64"]) == 0
    out = capsys.readouterr().out
    assert "τ (Alg. 1)" in out and "0.8" in out and "engine float64" in out and "status: success" in out


def test_flow_command_accepts_non_orthonormal_inputs_without_algorithm_1(tmp_path, capsys):
    raw = golden_instance().to_json()
    raw["inputs"][1] = [0.6, 0.8, 0.0, 0.0]
    path = tmp_path / "correlated.json"
    path.write_text(json.dumps(raw))
    assert main(["flow", str(path), "--lam", "1e-20", "--horizon", "3"]) == 0
    out = capsys.readouterr().out
    assert "Algorithm 1: not shown" in out and "τ (Alg. 1)" not in out


def test_precision_option_selects_the_mpmath_engine():
    args = argparse.Namespace(engine=None, precision=30)
    if "mpmath" in available_engines():
        assert engine_and_options(args) == ("mpmath", {"digits": 30, "guard": True})
    else:
        with pytest.raises(RelucheckInputError, match="--precision needs the 'mpmath' engine"):
            engine_and_options(args)
    assert engine_and_options(argparse.Namespace(engine="float64", precision=None)) == ("float64", {})


def test_precision_outside_the_float64_engine_is_bad_input(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    assert main(["flow", str(path), "--lam", "1e-20", "--engine", "float64", "--precision", "30"]) == 2
    err = capsys.readouterr().err  # names the option as typed, not the engine's internal 'digits' (session 31)
    assert "--precision is the number of digits of engine 'mpmath'; engine 'float64' computes in float64" in err
    assert "digits'" not in err and "instance file" not in err
