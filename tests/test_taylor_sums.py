"""The arb kernel's fast recurrence (`numerics.taylor_sums`, used by `numerics.taylor.ArbStep`) against the ball
kernel `TaylorProblem.coefficients`: the same balls, midpoint and radius, bit for bit (issue 22, item 5)."""
import mpmath
import numpy as np
import pytest
from flint import arb

from relucheck.numerics.mp_arrays import flint_precision, to_arb, to_mp, to_mpf
from relucheck.numerics.network import PAPER_C, paper_b
from relucheck.numerics.taylor import ArbStep, TaylorProblem
from relucheck.numerics.taylor_sums import sparse_coefficients


def _same_balls(u, v) -> bool:
    return u.mid() == v.mid() and u.rad() == v.rad()


def _case(seed, n, d, m, identity, sliding, digits=20):
    rng = np.random.default_rng(seed)
    X = np.eye(n) if identity else rng.standard_normal((n, d))
    y, a, W = rng.standard_normal(n), rng.standard_normal(m) * 1e-3, rng.standard_normal((m, X.shape[1])) * 1e-3
    prob = TaylorProblem(X, y, PAPER_C if identity else paper_b(m), 5)
    Z = prob.X @ to_mp(W).T
    act = rng.random((n, m)) < 0.6
    act[:, 0] = False  # a neuron with no active datum
    act[0, :] = False  # a datum with no active neuron
    P = {j: to_arb(to_mp(rng.standard_normal((n, n)) / n)) for j in sliding}

    def effective(r):  # a linear map r ↦ V, act ∘ r except on the sliding neurons' columns
        V = r[:, None] * (act.astype(object) * 1)
        for j, Pj in P.items():
            V[:, j] = Pj @ r
        return V

    return prob, to_arb(to_mp(a)), to_arb(Z), act, effective


@pytest.mark.parametrize("seed, n, d, m, identity, sliding", [
    (0, 5, 3, 3, False, ()), (1, 5, 3, 4, False, (2,)), (2, 6, 6, 3, True, ()), (3, 4, 2, 5, False, (1, 3)),
])
def test_sparse_kernel_gives_the_ball_kernels_balls(seed, n, d, m, identity, sliding):
    K = 12
    with mpmath.workdps(20), flint_precision(20):
        prob, a, Z, act, effective = _case(seed, n, d, m, identity, sliding)
        ref = prob.coefficients(a, Z, act, K, effective, sliding)
        got = sparse_coefficients(prob.y_arb, prob.scale_arb, prob.cT_arb, None if prob.identity else prob.G_arb,
                                  prob.identity, a, Z, act, K, effective, sliding)
    for name, new in zip(("A", "Zs", "BT", "R", "V"), got, strict=True):
        old = getattr(ref, name)
        assert old.shape == new.shape, name
        assert all(_same_balls(u, v) for u, v in zip(old.ravel(), new.ravel(), strict=True)), name
    assert any(not v.is_exact() for v in got[0].ravel()), "the comparison must include inexact balls"


def test_arb_step_uses_the_ball_kernels_numbers():
    with mpmath.workdps(20), flint_precision(20):
        prob, a, Z, act, _ = _case(4, 5, 3, 3, False, ())
        step = ArbStep(prob, to_mpf(a), to_mpf(Z), act, 10)  # mpf in, as the engine passes them (exact)
        ref = prob.coefficients(a, Z, act, 10)
    assert all(_same_balls(u, v) for u, v in zip(ref.Zs.ravel(), step.series.Zs.ravel(), strict=True))


def test_a_wrong_order_of_summation_is_seen():
    """The comparison is sharp: the same sums in another order differ in some midpoint (so an equality above is not
    an accident of round numbers)."""
    with mpmath.workdps(20), flint_precision(20):
        prob, a, Z, act, effective = _case(0, 5, 3, 3, False, ())
        ref = prob.coefficients(a, Z, act, 12, effective)
        terms = [arb(v) for v in ref.Zs[12].ravel()]
        forward = sum(terms[1:], terms[0])
        backward = sum(terms[-2::-1], terms[-1])
    assert forward.mid() != backward.mid()
