"""The stiff integrator of paper A's flow (`numerics.paper_a_stiff`): its field is GDBatch's, its steps are of order 2
(local error O(h³)) and its error estimate bounds the accepted step; the measurement that keeps it out of the regime
sweep (docs/paper_a.md, "Larger budgets for the runs still moving")."""
import numpy as np
import pytest

from relucheck.numerics import paper_a_stiff as S
from relucheck.numerics.flows.batched_gd import GDBatch


def _problem():
    rng = np.random.default_rng(3)
    n, d, m = 6, 2, 5
    return rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal(m), rng.standard_normal((m, d)), n


def _flow(X, y, a, W, n, T, k=400):
    """RK4 with k steps: the reference (no activation changes along these short pieces; checked below)."""
    h = T / k
    for _ in range(k):
        def f(a, W):
            return S._field(X, y, a, W, n)[:2]
        k1 = f(a, W)
        k2 = f(a + h / 2 * k1[0], W + h / 2 * k1[1])
        k3 = f(a + h / 2 * k2[0], W + h / 2 * k2[1])
        k4 = f(a + h * k3[0], W + h * k3[1])
        a = a + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        W = W + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return a, W


def _mutant_step(X, y, a, W, h, n):
    """ROS2 without the −2k₁ of its second stage: consistent (order 1), not of order 2."""
    fac = S._Factored(X, a, W, n, h)
    k1 = fac.solve(*S._field(X, y, a, W, n)[:2])
    G = S._field(X, y, a + h * k1[0], W + h * k1[1], n)[:2]
    k2 = fac.solve(*G)
    return a + 1.5 * h * k1[0] + 0.5 * h * k2[0] - h * k1[0], W + 1.5 * h * k1[1] + 0.5 * h * k2[1] - h * k1[1]


def test_field_is_gdbatch_field():
    X, y, a, W, n = _problem()
    F = GDBatch.stack([(X, y)]).evaluate(a[None], W[None])
    Fa, FW, r = S._field(X, y, a, W, n)
    assert np.allclose(F.da[0], Fa, atol=1e-14) and np.allclose(F.dW[0], FW, atol=1e-14)
    assert np.allclose(F.r[0], r, atol=1e-14)


def test_ros2_is_of_order_two_and_the_mutant_is_not():
    X, y, a, W, n = _problem()

    def err(step, h):
        ar, Wr = _flow(X, y, a, W, n, h)
        assert ((X @ W.T > 0) == (X @ Wr.T > 0)).all()  # a smooth piece: order is measurable
        a1, W1 = step(h)
        return float(np.sqrt(((a1 - ar) ** 2).sum() + ((W1 - Wr) ** 2).sum()))

    def ros2(h):
        return S.ros2_window(X, y, a, W, h, 1, n, rtol=np.inf)[:2]

    # local error ∝ h³: halving h divides it by 8 (measured 6.4 at h = 0.02 → 0.01); an order-1 step by 4
    assert err(ros2, 0.01) / err(ros2, 0.005) > 6.0
    ratio = err(lambda h: _mutant_step(X, y, a, W, h, n), 0.01) / err(lambda h: _mutant_step(X, y, a, W, h, n), 0.005)
    assert ratio < 5.0


def test_error_estimate_rejects_a_step_too_large():
    X, y, a, W, n = _problem()
    assert S.ros2_window(X, y, a, W, 1e-4, 3, n)[2] <= 1.0
    assert S.ros2_window(X, y, a, W, 0.5, 3, n)[2] > 1.0


@pytest.mark.full
def test_noise_fitting_state_allows_no_step_much_above_gd():
    """The measurement of docs/paper_a.md: d = 3, n = 32, seed 2, m = 128 at t = 4000 (regime protocol's GD): the
    error control (RTOL per neuron) accepts h = 0.01 and rejects h = 0.1, against GD's stable step ≈ 0.012; the
    activation pattern changes at dozens of (neuron, datum) pairs within one stage of h = 0.01."""
    from relucheck.numerics.paper_a_regime import REGIME_PROTOCOL as P
    from relucheck.numerics.paper_a_training import threshold_problem, train_batch

    d, n, m = 3, 32, 128
    mt = threshold_problem(d, n, 2, m=m, lam=P["lam"], sigma=P["sigma"], n_test=10)
    res = train_batch(GDBatch.stack([(mt["X"], mt["y"])], dtype=np.float32), mt["a0"][None], mt["W0"][None],
                      P["lr"], 10**6, loss_ref=np.array([mt["train_ols"]]), interp_ratio=1e-3, rel_tol=-1.0,
                      check_every=P["check_every"], max_lr_factor=P["lr_factor"], max_time=4000.0)
    a, W = res.a[0], res.W[0]
    assert S.ros2_window(mt["X"], mt["y"], a, W, 0.01, 1, n)[2] <= 1.0
    assert S.ros2_window(mt["X"], mt["y"], a, W, 0.1, 1, n)[2] > 1.0
    fac = S._Factored(mt["X"], a, W, n, 0.01)
    k1 = fac.solve(*S._field(mt["X"], mt["y"], a, W, n)[:2])
    flips = ((mt["X"] @ W.T > 0) != (mt["X"] @ (W + 0.01 * k1[1]).T > 0)).sum()
    assert flips >= 10, flips
