"""The Taylor kernel, the precision guard, the mpmath closed forms and the arb enclosures (issue 4; the engine
"mpmath" behind the flow contract: tests/test_engine_mpmath.py)."""
import math

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

from relucheck.numerics.arb_enclosure import certified_crossing, enclose_instance
from relucheck.numerics.errors import HypothesisViolation
from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.instances import Instance
from relucheck.numerics.mp_arrays import _mpf_to_arb, check_precision, exact_mpf, flint_precision, to_arb, to_mp, to_mpf
from relucheck.numerics.network import field, paper_b
from relucheck.numerics.precision_guard import guarded
from relucheck.numerics.taylor import TaylorProblem
from relucheck.proofs_checks.checks.high_precision_arb import a_squared_crossing
from relucheck.proofs_checks.result import Outcome, Status, apply_guard
from relucheck.theory.high_precision_closed_forms import first_jump_constant, group_solution, group_solution_as_published


def golden():
    G = np.array([[1, 1, -1, -1], [-1, 1, 1, 1], [-1, -1, 1, -1]], dtype=float) / 2.0
    return Instance(np.eye(4), np.array([3.0, 4.0, 1.0, 2.0]), G, np.ones(3))


# --- precision rule -----------------------------------------------------------------------------------------------

def test_digits_must_be_an_integer():
    with pytest.raises(Exception, match="integer number of decimal digits"):
        check_precision(30.5)


def test_accuracy_beyond_precision_at_tiny_lambda_is_rejected():
    L = 1000 * math.log(10)  # λ = 1e-1000
    with pytest.raises(Exception, match=r"too low for 20 correct digits at ln\(1/λ\) = 2302.59: need at least 29"):
        check_precision(25, L, accuracy_digits=20)
    check_precision(30, L, accuracy_digits=20)  # 20 + log10(2302.6) + 5 = 28.4 ≤ 30


# --- the Taylor recurrence --------------------------------------------------------------------------------------

def test_first_taylor_coefficient_is_the_network_field():
    """Order-1 coefficients of the arb recurrence = T·(network.field) for a fixed pattern (general data, B's scale).

    n = p = 4 keeps network.field's float factors scale/n exact (with n = 5 its float 1/n limits it to 1e-16)."""
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((4, 3)), rng.standard_normal(4)
    a, W = rng.standard_normal(4), rng.standard_normal((4, 3))
    conv = paper_b(4)
    with mpmath.workdps(30), flint_precision(30):
        prob = TaylorProblem(X, y, conv, 7)
        Z = to_mp(X) @ to_mp(W).T
        act = np.array(Z > 0, dtype=bool)
        series = prob.coefficients(to_arb(to_mp(a)), to_arb(Z), act, 3)
        A, Zs = series.A, series.Zs
        da, dW = field(to_mp(X), to_mp(y), to_mp(a), to_mp(W), conv, active=act)
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(A[1]), da, strict=False)) < 1e-25
        dZ = to_mp(X) @ dW.T
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(Zs[1]).ravel(), dZ.ravel(), strict=False)) < 1e-25


def test_exact_mpf_recovers_one_over_p():
    with mpmath.workdps(50):
        assert exact_mpf(1 / 3) == mpmath.mpf(1) / 3
        assert exact_mpf(0.1) == mpmath.mpf(1) / 10
        assert exact_mpf(math.pi) == mpmath.mpf(math.pi)  # not a simple fraction: its binary value


def test_first_coefficient_with_sliding_is_the_field_of_the_effective_residuals():
    """With a Filippov pattern (neuron 0 sliding on datum 1, weights P r_A), the order-1 coefficients are
    T·`network.neuron_rates` with V = `Pattern.effective_residuals`(r); without sliding the general recurrence equals
    the V = act ∘ r one."""
    from relucheck.numerics.flows.filippov import Pattern
    from relucheck.numerics.network import neuron_rates, pattern_residuals

    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((4, 3)), rng.standard_normal(4)
    a, W = rng.standard_normal(3), rng.standard_normal((3, 3))
    conv = paper_b(4)
    with mpmath.workdps(30), flint_precision(30):
        Xm, Wm = to_mp(X), to_mp(W)
        Wm[0] = Wm[0] - mpmath.fdot(Wm[0], Xm[1]) / mpmath.fdot(Xm[1], Xm[1]) * Xm[1]  # neuron 0 on the kink of datum 1
        Z = Xm @ Wm.T
        act = np.array(Z > 0, dtype=bool)
        act[1, 0] = False
        slide = np.zeros_like(act)
        slide[1, 0] = True
        A_idx = np.flatnonzero(act[:, 0])
        P = np.array([[mpmath.mpf(k + 1) / 7 for k in range(len(A_idx))]], dtype=object)  # any linear weights
        pattern = Pattern(act, slide, {0: (np.array([1]), A_idx, P)})
        arb_pattern = Pattern(act, slide, {0: (np.array([1]), A_idx, to_arb(P))})
        prob = TaylorProblem(X, y, conv, 7)
        series = prob.coefficients(to_arb(to_mp(a)), to_arb(Z), act, 3, arb_pattern.effective_residuals, (0,))
        r = pattern_residuals(to_mp(y), to_mp(a), Z, act, conv)
        da, dW = neuron_rates(Xm, pattern.effective_residuals(r), to_mp(a), Wm, conv)
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(series.A[1]), da, strict=True)) < 1e-25
        dZ = Xm @ dW.T
        assert max(abs(u - 7 * v) for u, v in zip(to_mpf(series.Zs[1]).ravel(), dZ.ravel(), strict=True)) < 1e-25
        plain = prob.coefficients(to_arb(to_mp(a)), to_arb(Z), act, 6)
        general = prob.coefficients(to_arb(to_mp(a)), to_arb(Z), act, 6, Pattern(act, 0 * act).effective_residuals)
        for u, v in ((plain.A, general.A), (plain.Zs, general.Zs), (plain.V, general.V)):
            assert max(abs(float(x - z)) for x, z in zip(np.ravel(u), np.ravel(v), strict=True)) < 1e-25


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
    run = solve(FlowProblem.from_instance(inst, "0.1", horizon=1.5), "mpmath", digits=40)
    with mpmath.workdps(40), flint_precision(40):
        event = _mpf_to_arb(run.events[0].exact)
        assert lo <= event and event <= hi
        assert enc.a[-1][0].contains(_mpf_to_arb(mpmath.mpf(run.stats["a_final_mp"][0])))
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
    run = solve(FlowProblem.from_instance(inst, "0.01", horizon=3.0), "mpmath", digits=30)
    with mpmath.workdps(30):
        tau = a_squared_crossing(run, 0, mpmath.mpf(1) / 2)
        assert mpmath.mpf(float(lo.mid())) <= tau <= mpmath.mpf(float(hi.mid()))
    assert float((hi - lo).mid()) < 1e-6
