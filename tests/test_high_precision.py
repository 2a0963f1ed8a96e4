"""The mpmath Taylor engine, the precision guard, the mpmath closed forms and the arb enclosures (issue 4)."""
import math

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

from relucheck.numerics.arb_enclosure import certified_crossing, enclose_instance
from relucheck.numerics.engines import activation_times, get_engine
from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.flow import gradient_flow
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import field, paper_b
from relucheck.numerics.precision_guard import apply_guard, guarded
from relucheck.numerics.mp_arrays import _mpf_to_arb, check_precision, exact_mpf, flint_precision, to_arb, to_mp, to_mpf
from relucheck.numerics.taylor import _Problem, taylor_flow
from relucheck.numerics.taylor_engine import level_crossing, mpmath_taylor
from relucheck.proofs_checks.result import Outcome, Status
from relucheck.theory.high_precision_closed_forms import first_jump_constant, group_solution, group_solution_as_published


def golden():
    G = np.array([[1, 1, -1, -1], [-1, 1, 1, 1], [-1, -1, 1, -1]], dtype=float) / 2.0
    return Instance(np.eye(4), np.array([3.0, 4.0, 1.0, 2.0]), G, np.ones(3))


# --- bad input --------------------------------------------------------------------------------------------------

def test_digits_too_low_is_rejected():
    with pytest.raises(RelucheckInputError, match="precision of 10 digits is too low"):
        mpmath_taylor(golden(), "1e-10", digits=10)


def test_digits_must_be_an_integer():
    with pytest.raises(RelucheckInputError, match="integer number of decimal digits"):
        check_precision(30.5)


def test_accuracy_beyond_precision_at_tiny_lambda_is_rejected():
    L = 1000 * math.log(10)  # λ = 1e-1000
    with pytest.raises(RelucheckInputError, match=r"too low for 20 correct digits at ln\(1/λ\) = 2302.59: need at least 29"):
        check_precision(25, L, accuracy_digits=20)
    check_precision(30, L, accuracy_digits=20)  # 20 + log10(2302.6) + 5 = 28.4 ≤ 30


@pytest.mark.parametrize("lam", ["0", "-1e-5", "nan"])
def test_nonpositive_lambda_is_rejected(lam):
    with pytest.raises(RelucheckInputError, match="λ must be finite and > 0"):
        mpmath_taylor(golden(), lam, digits=20)


def test_lambda_at_least_one_is_rejected():
    with pytest.raises(RelucheckInputError, match=r"needs λ < 1"):
        mpmath_taylor(golden(), "2", digits=20)


def test_non_orthonormal_instance_is_rejected():
    inst = Instance(np.array([[1.0, 0.2], [0.0, 1.0]]), np.array([1.0, 1.0]), np.array([[1.0, 0.0]]), np.ones(1))
    with pytest.raises(HypothesisViolation, match="Assumption 1"):
        mpmath_taylor(inst, "1e-5", digits=20)


def test_bad_shapes_and_final_time_are_rejected():
    X, y = np.eye(2), np.ones(2)
    with pytest.raises(RelucheckInputError, match="a0 must be"):
        taylor_flow(X, y, np.ones(3), np.ones((2, 2)), 1.0, digits=20)
    with pytest.raises(RelucheckInputError, match="tau_end must be > 0"):
        taylor_flow(X, y, np.ones(2), np.ones((2, 2)), 0.0, digits=20)


# --- the Taylor recurrence --------------------------------------------------------------------------------------

def test_first_taylor_coefficient_is_the_network_field():
    """Order-1 coefficients of the arb recurrence = T·(network.field) for a fixed pattern (general data, B's scale).

    n = p = 4 keeps network.field's float factors scale/n exact (with n = 5 its float 1/n limits it to 1e-16)."""
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((4, 3)), rng.standard_normal(4)
    a, W = rng.standard_normal(4), rng.standard_normal((4, 3))
    conv = paper_b(4)
    with mpmath.workdps(30), flint_precision(30):
        prob = _Problem(X, y, conv, 7)
        Z = to_mp(X) @ to_mp(W).T
        act = np.array(Z > 0, dtype=bool)
        A, Zs, _ = prob.coefficients(to_arb(to_mp(a)), to_arb(Z), act, 3)
        da, dW = field(to_mp(X), to_mp(y), to_mp(a), to_mp(W), conv, active=act)
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(A[1]), da, strict=False)) < 1e-25
        dZ = to_mp(X) @ dW.T
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(Zs[1]).ravel(), dZ.ravel(), strict=False)) < 1e-25


def test_exact_mpf_recovers_one_over_p():
    with mpmath.workdps(50):
        assert exact_mpf(1 / 3) == mpmath.mpf(1) / 3
        assert exact_mpf(0.1) == mpmath.mpf(1) / 10
        assert exact_mpf(math.pi) == mpmath.mpf(math.pi)  # not a simple fraction: its binary value


def test_taylor_flow_matches_float64_flow_with_events():
    """Gaussian data with activation events: final state equal to the float64 DOP853 flow within its rtol."""
    rng = np.random.default_rng([0, 41, 0])
    X = rng.standard_normal((4, 8)) / math.sqrt(8)
    y = rng.choice([-1.0, 1.0], 4) * rng.uniform(1, 2, 4)
    W = rng.standard_normal((3, 8)) / math.sqrt(8)
    a = rng.choice([-1.0, 1.0], 3) * np.linalg.norm(W, axis=1)
    traj = taylor_flow(X, y, a, W, 10.0, convention=paper_b(3), digits=20)
    ref = gradient_flow(X, y, a, W, 10.0, convention=paper_b(3), rtol=1e-12, atol=1e-14)
    assert traj.status == "success" and len(traj.events) >= 2
    assert np.max(np.abs(np.array(traj.a_final, dtype=float) - ref.a[-1])) < 1e-8
    assert np.max(np.abs(np.array(traj.W_final, dtype=float) - ref.W[-1])) < 1e-8


def _former_chatter_draw():
    """n = 5 > d = 4: the draw on which the event-only engine chattered on the kink (status "sliding_mode" before
    Filippov sliding was implemented); it has two components of one neuron sliding at once and leaves both ways."""
    rng = np.random.default_rng([0, 41])
    X = rng.standard_normal((5, 4)) / 2
    y = rng.choice([-1.0, 1.0], 5) * rng.uniform(1, 2, 5)
    W = rng.standard_normal((3, 4)) / 2
    a = rng.choice([-1.0, 1.0], 3) * np.linalg.norm(W, axis=1)
    return X, y, a, W, 3


# --- the engine -------------------------------------------------------------------------------------------------

def test_engine_registered_and_agrees_with_float64_engine():
    inst = golden()
    run = get_engine("mpmath-taylor")(inst, "1e-10", digits=16, guard=False)
    ref = get_engine("uw-float64")(inst, "1e-10")
    assert [jp.neuron for jp in run.jumps] == [0, 1]
    assert [jp.fitted for jp in run.jumps] == [[0, 1], [2, 3]]
    assert np.allclose([jp.tau for jp in run.jumps], [jp.tau for jp in ref.jumps], atol=1e-7)
    assert run.rho.shape == (len(run.taus), 3) and run.W.shape == (3, 4)
    assert run.interpolates and run.stats["digits"] == 16 and run.stats["guard_discrepancy"] is None


def test_float_activation_times_agree_with_mpmath_roots():
    """engines.activation_times on the float samples ≈ the exact roots (interpolation in ln ρ between samples)."""
    inst = golden()
    run = mpmath_taylor(inst, "1e-10", digits=16, guard=False)
    approx = activation_times(run.taus, run.rho)
    assert [j for _, j in approx] == [jp.neuron for jp in run.jumps]
    assert np.allclose([t for t, _ in approx], [jp.tau for jp in run.jumps], atol=1e-2)


def test_guard_reports_discrepancy_and_digits():
    run = mpmath_taylor(golden(), "1e-5", digits=16)
    assert run.stats["guard_digits"] == 32
    assert run.stats["guard_ok"] and run.stats["guard_discrepancy"] < 1e-10
    assert run.to_json()["stats"]["guard_discrepancy"] == run.stats["guard_discrepancy"]


def test_tiny_lambda_runs_and_keeps_relative_precision():
    """λ = 1e-330 (below float64's range) on a one-neuron instance: the jump at τ_1 = 1/γ + O(1/ln(1/λ))."""
    inst = Instance(np.eye(2), np.array([1.0, -1.0]), np.array([[1.0, 0.0]]), np.ones(1))
    run = mpmath_taylor(inst, "1e-330", digits=16, horizon=2.3, guard=False)
    L = 330 * math.log(10)
    C1 = math.log(1 / ((1 + 1) / 2)) / 0.5  # κ = 1 (aligned), γ = ‖y_S‖/n = 1/2, ‖y_S‖ = 1
    assert abs(run.jumps[0].tau - (2 + C1 / L)) < 1e-6


# --- precision guard --------------------------------------------------------------------------------------------

def test_guard_makes_outcome_inconclusive_with_both_values():
    g = guarded(lambda d: mpmath.mpf(1) / 3 + (1e-5 if d == 20 else 0), 20, lambda u, v: abs(float(u - v)), 1e-10)
    assert not g.ok and g.guard_digits == 40
    out = apply_guard(Outcome(Status.VERIFIED, 0, 0, 1e-3, "r"), g)
    assert out.status is Status.INCONCLUSIVE
    assert set(out.measurement) == {"at_digits", "at_double_digits"}
    assert "precision guard" in out.message and out.details["guard_discrepancy"] > 1e-6


def test_guard_passes_outcome_through_when_consistent():
    g = guarded(lambda d: 1.0, 20, lambda u, v: abs(u - v), 1e-10)
    out = apply_guard(Outcome(Status.REFUTED, 0, 1, 0.1, "r"), g)
    assert out.status is Status.REFUTED and out.details["guard_ok"]


# --- closed forms -----------------------------------------------------------------------------------------------

@given(st.floats(0.05, 0.99), st.floats(0.01, 3.0), st.floats(0.0, 5.0), st.integers(1, 4))
def test_group_solution_solves_the_scalar_odes(rho0, N0, t, p):
    """ρ' = (c/2)(1 − ρ²) and N' = cN(ρ − N/P) (spec B §2.13) at 30 digits, by numerical differentiation."""
    with mpmath.workdps(40):
        norm_y, n = mpmath.mpf(1.7), 6
        c, P = 2 * norm_y / n, p * norm_y

        def rho(s):
            return group_solution(s, mpmath.mpf(N0), mpmath.mpf(rho0), norm_y, n, p)[0]

        def N(s):
            return group_solution(s, mpmath.mpf(N0), mpmath.mpf(rho0), norm_y, n, p)[1]

        t = mpmath.mpf(t)
        assert abs(mpmath.diff(rho, t) - c / 2 * (1 - rho(t) ** 2)) < 1e-25
        assert abs(mpmath.diff(N, t) - c * N(t) * (rho(t) - N(t) / P)) < 1e-25 * (1 + N(t))


def test_published_group_formula_is_right_only_for_aligned_start():
    with mpmath.workdps(30):
        for rho0, equal in ((mpmath.mpf(1), True), (mpmath.mpf("0.6"), False)):
            ours = group_solution(mpmath.mpf(3), mpmath.mpf("0.2"), rho0, 2, 6, 2)
            paper = group_solution_as_published(mpmath.mpf(3), mpmath.mpf("0.2"), rho0, 2, 6, 2)
            assert (max(abs(u - v) for u, v in zip(ours, paper, strict=False)) < 1e-25) is equal


def test_first_jump_constant_golden_and_wrong_sign_rejected():
    with mpmath.workdps(30):
        C1 = first_jump_constant([0.5, 0.5, -0.5, -0.5], [3, 4, 1, 2], [0, 1], 1)
        assert abs(C1 - mpmath.log(mpmath.sqrt(5) / mpmath.mpf("0.85")) / mpmath.mpf("1.25")) < 1e-28
        with pytest.raises(HypothesisViolation, match="wrong-sign"):
            first_jump_constant([0.5, 0.5, 0.5, -0.5], [3, 4, -1, 2], [0, 1], 1)


# --- arb enclosures ---------------------------------------------------------------------------------------------

def test_enclosure_contains_single_neuron_closed_form():
    """One neuron on its own support (C25 / B §2.13 with p = 1): the closed form lies in every step-end enclosure."""
    g = np.array([[0.5, 0.5, 0.5, 0.5, 0.0]])  # exactly unit in binary: a = λ and ‖w‖ = λ exactly (balanced)
    y = np.array([1.0, 2.0, 1.5, 0.5, -1.0])
    inst = Instance(np.eye(5), y, g, np.ones(1))
    enc = enclose_instance(inst, "0.01", 1.0, digits=25, order=25)
    with mpmath.workdps(45), flint_precision(45):
        lam = mpmath.mpf("0.01")
        L = -mpmath.log(lam)
        norm_y = mpmath.sqrt(sum(mpmath.mpf(v) ** 2 for v in y[:4]))
        rho0 = sum(mpmath.mpf(v) / 2 for v in y[:4]) / norm_y
        for tau, box in zip(enc.taus, enc.a, strict=False):
            t = to_mpf(np.array([tau], dtype=object))[0] * L  # τ exactly (a sum of float steps)
            _, N = group_solution(t, lam**2, rho0, norm_y, 5, 1)
            assert (box[0] ** 2).contains(arb(mpmath.nstr(N, 40)))
    assert len(enc.steps) > 3


def test_enclosure_certifies_an_event_and_continues():
    """A wrong-sign component deactivates: its certified event interval contains the mpmath event time, and the
    enclosure after the event contains the mpmath final state."""
    inst = Instance(np.eye(2), np.array([1.0, -1.0]), np.array([[0.6, 0.8]]), np.ones(1))
    enc = enclose_instance(inst, "0.1", 1.5, digits=30, order=30)
    assert len(enc.events) == 1 and enc.events[0][2:] == (0, 1)
    lo, hi = enc.events[0][:2]
    with mpmath.workdps(40):
        lam = mpmath.mpf("0.1")
        traj = taylor_flow(np.eye(2), inst.labels, np.array([lam], dtype=object),
                           np.array([[lam * mpmath.mpf(0.6), lam * mpmath.mpf(0.8)]], dtype=object), 1.5,
                           time_scale=-mpmath.log(lam), digits=40)
        with flint_precision(40):
            event = _mpf_to_arb(traj.events[0].tau)
            assert lo <= event and event <= hi
            assert enc.a[-1][0].contains(_mpf_to_arb(traj.a_final[0]))
    assert float((hi - lo).mid()) < 1e-25


def test_enclosure_refuses_simultaneous_events():
    """Two identical wrong-sign components reach 0 at the same time: the events cannot be separated."""
    inst = Instance(np.eye(4), np.array([1.0, -1.0, -1.0, 2.0]), np.array([[0.5, 0.5, 0.5, 0.5]]), np.ones(1))
    with pytest.raises(HypothesisViolation, match="overlap"):
        enclose_instance(inst, "0.1", 1.0, digits=20, order=20)


def test_certified_crossing_brackets_the_mpmath_root():
    """One neuron, λ = 0.01: the certified bracket of the first τ with a² ≥ 1/2 contains the mpmath root."""
    inst = Instance(np.eye(2), np.array([1.0, -1.0]), np.array([[1.0, 0.0]]), np.ones(1))
    enc = enclose_instance(inst, "0.01", 3.0, digits=20, order=23)
    lo, hi = certified_crossing(enc, 0, arb(1) / 2)
    with mpmath.workdps(30):
        lam = mpmath.mpf("0.01")
        traj = taylor_flow(np.eye(2), inst.labels, np.array([lam], dtype=object), np.array([[lam, 0]], dtype=object),
                           3.0, time_scale=-mpmath.log(lam), digits=30)
        tau = level_crossing(traj, 0, mpmath.mpf(1) / 2)
        assert mpmath.mpf(float(lo.mid())) <= tau <= mpmath.mpf(float(hi.mid()))
    assert float((hi - lo).mid()) < 1e-6


# --- sliding modes (Filippov) on non-orthogonal data ------------------------------------------------------------

def _sliding_draw(attempt):
    """B's convention (p = 3), Gaussian data n = 4 < d = 8: draws 2 and 4 of default_rng([0, 41, ·]) reach a sliding
    mode (a component pushed onto the kink from both sides); draw 2 also leaves one upwards at t ≈ 4.35."""
    n, d, p = 4, 8, 3
    rng = np.random.default_rng([0, 41, attempt])
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    W = rng.standard_normal((p, d)) / np.sqrt(d)
    signs = rng.choice([-1.0, 1.0], p)
    a0 = signs * np.linalg.norm(W, axis=1)
    return X, y, a0, W, p


@pytest.mark.parametrize("attempt, t_end", [(4, 1.0), (2, 5.0), ("chatter", 5.0)])
def test_sliding_mode_is_the_limit_of_small_step_gradient_descent(attempt, t_end):
    """Through sliding modes (and out of them: draw 2 upwards, the former chatter draw both ways, with two components
    of a neuron sliding at once) the Taylor flow is the limit of plain GD with σ'(0) = 0: GD's distance to it falls
    like the learning rate (first order), and balancedness holds across the sliding."""
    X, y, a0, W0, p = _former_chatter_draw() if attempt == "chatter" else _sliding_draw(attempt)
    with mpmath.workdps(20):
        traj = taylor_flow(X, y, to_mp(a0), to_mp(W0), t_end, convention=paper_b(p), digits=20)
    assert traj.status == "success"
    kinds = {e.kind for e in traj.events}
    assert "slide" in kinds and (attempt != 2 or "leave_up" in kinds)
    assert attempt != "chatter" or {"leave_up", "leave_down"} <= kinds
    aT = np.array([float(v) for v in traj.a_final])
    WT = np.array([[float(v) for v in row] for row in traj.W_final])
    errors = []
    for lr in (1e-3, 1e-4):
        a, W = a0.copy(), W0.copy()
        for _ in range(int(round(t_end / lr))):
            da, dW = field(X, y, a, W, paper_b(p))
            a, W = a + lr * da, W + lr * dW
        errors.append(max(np.abs(a - aT).max(), np.abs(W - WT).max()))
    assert errors[0] / errors[1] > 5 and errors[1] < 1e-4  # first-order convergence of GD to the Filippov flow
    with mpmath.workdps(20):
        drift = max(abs(b - b0) for bal in traj.balance for b, b0 in zip(bal, traj.balance[0], strict=True))
    assert drift < 1e-10
