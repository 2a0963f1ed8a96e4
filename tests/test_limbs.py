"""Exactness of the fixed-point limb arithmetic (`numerics.limbs`) and of the limb Taylor kernel
(`numerics.taylor_limbs`) against Python integers and against the arb kernel of `numerics.taylor`, and the two
kernels of engine "mpmath" giving the same flow."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from relucheck.numerics.flows import FlowProblem, Init, Status, solve
from relucheck.numerics.limbs import FixedFormat, LimbOverflow
from relucheck.numerics.mp_arrays import flint_precision, to_arb, to_mp, to_mpf
from relucheck.numerics.network import PAPER_C
from relucheck.numerics.taylor import TaylorProblem
from relucheck.numerics.taylor_limbs import LimbStep, fixed_format

FMT = FixedFormat(4, 2)  # 76 fraction bits, small enough for quick exhaustive-ish tests
P = FMT.P
values = st.integers(min_value=-(1 << (P + 10)), max_value=1 << (P + 10))  # |v·2^-P| < 2^10


@given(st.lists(values, min_size=1, max_size=12))
def test_limbs_round_trip(vs):
    assert FMT.to_ints(FMT.from_ints(vs)) == vs


@given(st.lists(st.tuples(values, values), min_size=1, max_size=40))
def test_dot_is_the_exact_product_up_to_truncation(pairs):
    us, vs = [u for u, _ in pairs], [v for _, v in pairs]
    U = FMT.from_ints(us).T.reshape(FMT.L, len(us))  # one output: rows are its limbs
    got = FMT.to_ints(FMT.dot(U, FMT.from_ints(vs), 1))[0]
    exact = sum(u * v for u, v in zip(us, vs, strict=True))
    # the only rounding: the low F limbs dropped once (at most 2 units of 2^-P, `FixedFormat.reduce`)
    assert abs(got * (1 << P) - exact) <= 2 * (1 << P)


def test_long_dot_products_are_cut_into_exact_pieces():
    rng = np.random.default_rng(3)
    us = [int(x) for x in rng.integers(-(1 << 40), 1 << 40, 3 * FMT.max_terms + 5)]
    vs = [int(x) << (P - 20) for x in rng.integers(-(1 << 20), 1 << 20, len(us))]
    U = FMT.from_ints(us).T.copy()
    got = FMT.to_ints(FMT.dot(U, FMT.from_ints(vs), 1))[0]
    exact = sum(u * v for u, v in zip(us, vs, strict=True))
    assert abs(got * (1 << P) - exact) <= 2 * 4 * (1 << P)


@given(st.lists(values, min_size=1, max_size=8), st.integers(min_value=0, max_value=1 << (P + 5)))
def test_times_constant(vs, c):
    got = FMT.to_ints(FMT.times(FMT.from_ints(vs), FMT.constant(c)))
    for g, v in zip(got, vs, strict=True):
        assert abs(g * (1 << P) - v * c) <= 2 * (1 << P)


@given(st.lists(values, min_size=3, max_size=3), st.lists(st.integers(0, 200), min_size=3, max_size=3))
def test_right_shift_per_row(vs, bits):
    got = FMT.to_ints(FMT.right_shift(np.array(bits))(FMT.from_ints(vs)))
    for g, v, b in zip(got, vs, bits, strict=True):
        assert abs(g - v / 2**b) <= 2


def test_overflow_is_reported_not_wrapped():
    big = 1 << (P + 36)  # 2^36 > the 2^(19·2 − 3) headroom of two integer limbs
    with pytest.raises(LimbOverflow):
        FMT.from_ints([big])
    x = FMT.from_ints([1 << (P + 20)])
    with pytest.raises(LimbOverflow):
        FMT.times(x, FMT.constant(1 << (P + 20)))  # 2^40


def _instance(n=5, m=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n)
    a = rng.standard_normal(m) * 0.1
    Z = np.abs(rng.standard_normal((n, m))) * 0.1
    return y, a, Z


def test_limb_coefficients_equal_the_arb_kernel_including_a_tiny_neuron():
    """Taylor coefficients of both kernels agree to a few units of 2^-P, relative to each neuron's size, even for a
    neuron of size 1e-300 next to neurons of size 0.1 (per-neuron scales)."""
    n, m, K, D = 5, 3, 30, 40
    y, a0, Z0 = _instance(n, m)
    with mpmath.workdps(D + 30), flint_precision(D + 30):  # the arb reference 30 digits beyond the limb format
        prob = TaylorProblem(np.eye(n), y, PAPER_C, "23.0")
        a, Z = to_mp(a0), to_mp(Z0)
        a[2] *= mpmath.mpf("1e-300")
        Z[:, 2] *= mpmath.mpf("1e-300")
        act = np.array(Z > 0, dtype=bool)
        act[0, 0] = False
        series = prob.coefficients(to_arb(a), to_arb(Z), act, K)
        A, Zs = to_mpf(series.A), to_mpf(series.Zs)
        fmt = fixed_format(D)
        step = LimbStep(prob, a, Z, act, K, fmt, -6)
        unit = mpmath.ldexp(1, -6)
        worst = mpmath.mpf(0)
        for j in range(m):
            size = max(abs(a[j]), max(abs(z) for z in Z[:, j]))
            zc = [step.z_coefficients(i, j) for i in range(n)]
            for k in range(K + 1):
                worst = max(worst, abs(A[k, j] - step.a_coefficients()[k, j]) * unit**k / size)
                worst = max(worst, max(abs(Zs[k, i, j] - zc[i][k]) for i in range(n)) * unit**k / size)
        assert worst <= 8 * mpmath.ldexp(1, -fmt.P)


def _random_orthonormal_problem(seed, n, m, lam="1e-20", horizon=3.0):
    """x_i = e_i, labels of mixed signs |y_i| ≥ 0.3, random unit directions and signs (C's flow in its data basis)."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], n) * (0.3 + np.abs(rng.standard_normal(n)))
    G = rng.standard_normal((m, n))
    G /= np.linalg.norm(G, axis=1, keepdims=True)
    return FlowProblem(np.eye(n), y, Init.balanced(G, rng.choice([-1.0, 1.0], m), lam), horizon=horizon)


def _same_flow(arb_run, limb_run, D):
    assert (arb_run.stats["kernel"], limb_run.stats["kernel"]) == ("arb", "limbs")
    assert arb_run.status is limb_run.status is Status.SUCCESS
    assert [(e.neuron, e.datum, e.kind) for e in arb_run.events] == [(e.neuron, e.datum, e.kind) for e in limb_run.events]
    with mpmath.workdps(D):
        for e, f in zip(arb_run.events, limb_run.events, strict=True):
            assert abs(e.exact - f.exact) <= mpmath.mpf(10) ** -(D - 4)
        fa = [mpmath.mpf(v) for v in arb_run.stats["a_final_mp"]]
        fb = [mpmath.mpf(v) for v in limb_run.stats["a_final_mp"]]
        assert max(abs(u - v) for u, v in zip(fa, fb, strict=True)) <= max(abs(v) for v in fa) * 10.0 ** -(D - 6)


def test_limb_and_arb_kernels_give_the_same_flow_with_events():
    """Orthonormal data in the data basis, C's convention, through several deactivation events: both kernels of engine
    "mpmath" find the same events at the same times and the same final state."""
    D = 24
    problem = _random_orthonormal_problem(5, 6, 3)
    arb_run, limb_run = (solve(problem, "mpmath", digits=D, kernel=k) for k in ("arb", "limbs"))
    assert len(arb_run.events) >= 2
    _same_flow(arb_run, limb_run, D)


def test_overflow_retries_with_a_smaller_time_unit(monkeypatch):
    """Order 120 at 20 digits: a Jorba–Zou step spans ~30 e-foldings, so the coefficients outgrow the format's 2^35
    headroom and the step is redone in a smaller time unit; an overflow of the state at the step's end (forced here
    once) is retried the same way. The flow still matches the arb kernel."""
    import relucheck.numerics.taylor_limbs as taylor_limbs

    original = taylor_limbs.LimbStep.state_at
    raised = []

    def state_at_once_overflowing(self, sigma_int):
        if not raised:
            raised.append(True)
            raise LimbOverflow("forced")
        return original(self, sigma_int)

    monkeypatch.setattr(taylor_limbs.LimbStep, "state_at", state_at_once_overflowing)
    D = 20
    problem = _random_orthonormal_problem(5, 6, 3)
    arb_run, limb_run = (solve(problem, "mpmath", digits=D, order=120, kernel=k) for k in ("arb", "limbs"))
    assert raised
    _same_flow(arb_run, limb_run, D)
