"""The batched GD core (numerics/flows/batched_gd.py): a stack of different problems evaluates as each problem alone,
to a derived rounding bound; descend's contract; bad arguments."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import batched_gd
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.network import PAPER_A, field, paper_b


def rounding_bound(X, y, a, W, convention, eps):
    """|Δ(da, dW)| between two summation orders of one field evaluation, componentwise.

    Each quantity is a sum of products; a sum of K terms in any order is within γ_K Σ|terms| of the exact sum
    (γ_K = K ε/(1 − K ε), Higham Thm 3.1), and the three nested sums (⟨w_j, x_i⟩ over d, h_i over m, D_j over n)
    add their γ's: K = n + m + d + 2 covers all of them and the products and the residual's subtraction. Two orders
    are each within that of the exact value: twice it bounds their difference. Σ|terms| is the same computation on
    magnitudes (the pattern taken from the exact signs; random data keeps every ⟨w_j, x_i⟩ far from 0)."""
    n, d = X.shape
    m = a.shape[0]
    K = n + m + d + 2
    gamma = K * eps / (1 - K * eps)
    act = (X @ W.T > 0).astype(float)
    scale = 1.0 / convention.width_divisor
    r_abs = np.abs(y) + scale * (act * (np.abs(X) @ np.abs(W).T)) @ np.abs(a)  # Σ|terms| of r_i
    D_abs = (act * r_abs[:, None]).T @ np.abs(X)  # Σ|terms| of D_j = Σ_i act_ij r_i x_i
    c = convention.time_factor * scale / n
    return 2 * gamma * c * (np.abs(W) * D_abs).sum(1), 2 * gamma * c * np.abs(a)[:, None] * D_abs


problem = st.tuples(st.integers(1, 20), st.integers(0, 2**32 - 1))


@settings(max_examples=25, deadline=None)
@given(problems=st.lists(problem, min_size=2, max_size=4), d=st.integers(1, 4), m=st.integers(1, 5),
       b_convention=st.booleans(), sort=st.booleans(), block=st.sampled_from([128, 1 << 18]))
def test_a_stack_of_different_problems_evaluates_as_each_problem_alone(problems, d, m, b_convention, sort, block):
    """Padding rows add exact zeros; blocks of rows and batched products change only the order of the sums."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batched_gd, "BLOCK_BYTES", block)  # 128 bytes: blocks of 8 rows, several per problem
        _stack_equals_alone(problems, d, m, b_convention, sort)


def _stack_equals_alone(problems, d, m, b_convention, sort):
    conv = paper_b(m) if b_convention else PAPER_A
    data, params = [], []
    for n, seed in problems:
        rng = np.random.default_rng(seed)
        data.append((rng.standard_normal((n, d)), rng.standard_normal(n)))
        params.append((rng.standard_normal(m), rng.standard_normal((m, d))))
    if sort:
        order = np.argsort([-len(y) for _, y in data], kind="stable")
        data, params = [data[i] for i in order], [params[i] for i in order]
    F = GDBatch.stack(data, convention=conv).evaluate(np.array([p[0] for p in params]), np.array([p[1] for p in params]))
    for b, ((X, y), (a, W)) in enumerate(zip(data, params)):
        alone = GDBatch.shared(X, y, convention=conv).evaluate(a, W)
        bound_a, bound_W = rounding_bound(X, y, a, W, conv, np.finfo(float).eps)
        assert np.all(np.abs(F.da[b] - alone.da) <= bound_a)
        assert np.all(np.abs(F.dW[b] - alone.dW) <= bound_W)
        assert np.all(F.r[b, len(y):] == 0)  # padding: residual exactly 0
        # and both agree with the one definition of the field (numerics.network.field)
        da, dW = field(X, y, a, W, conv)
        assert np.all(np.abs(alone.da - da) <= bound_a) and np.all(np.abs(alone.dW - dW) <= bound_W)
        assert F.loss()[b] == pytest.approx(float(alone.loss()), rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), runs=st.integers(1, 4), p=st.integers(1, 5))
def test_shared_runs_diagonal_inputs_and_float32(seed, n, runs, p):
    """Paper B's mode: runs sharing one data set equal each run alone; the norms λ of x_i = λ_i e_i give the same
    field as the matrix diag(λ); a float32 field is within the float32 rounding bound of the float64 one."""
    rng = np.random.default_rng(seed)
    lam, y = rng.uniform(1, 2, n), rng.standard_normal(n)
    A, W = rng.standard_normal((runs, p)), rng.standard_normal((runs, p, n))
    conv = paper_b(p)
    diag = GDBatch.shared(lam, y, convention=conv).evaluate(A, W)
    full = GDBatch.shared(np.diag(lam), y, convention=conv).evaluate(A, W)
    single = GDBatch.shared(np.diag(lam), y, convention=conv, dtype=np.float32).evaluate(A, W)
    for b in range(runs):
        alone = GDBatch.shared(np.diag(lam), y, convention=conv).evaluate(A[b], W[b])
        bound_a, bound_W = rounding_bound(np.diag(lam), y, A[b], W[b], conv, np.finfo(float).eps)
        for F in (diag, full):
            assert np.all(np.abs(F.da[b] - alone.da) <= bound_a) and np.all(np.abs(F.dW[b] - alone.dW) <= bound_W)
        # float32: inputs rounded to float32 (one more relative ε₃₂ per factor) and float32 arithmetic
        bound_a, bound_W = rounding_bound(np.diag(lam), y, A[b], W[b], conv, 4 * np.finfo(np.float32).eps)
        assert single.da.dtype == np.float32
        assert np.all(np.abs(single.da[b] - alone.da) <= bound_a) and np.all(np.abs(single.dW[b] - alone.dW) <= bound_W)


def test_descend_observes_before_each_step_and_stops_on_request():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((7, 3)), rng.standard_normal(7)
    a, W = rng.standard_normal((2, 4)), rng.standard_normal((2, 4, 3))
    P = GDBatch.shared(X, y)
    seen = []

    def observe(k, F, a_k, W_k):
        seen.append((k, float(F.loss()[0]), a_k.copy()))
        return k == 5

    a1, W1 = a.copy(), W.copy()
    taken, F = descend(P, a1, W1, np.array([0.1, 0.2]), 10, observe=observe)
    assert taken == 5 and [k for k, _, _ in seen] == list(range(6))
    assert np.array_equal(seen[0][2], a)  # before the first step: the initial state
    # the same five steps by hand, per-run step sizes
    a2, W2 = a.copy(), W.copy()
    for _ in range(5):
        G = P.evaluate(a2, W2)
        a2, W2 = a2 + np.array([0.1, 0.2])[:, None] * G.da, W2 + np.array([0.1, 0.2])[:, None, None] * G.dW
    assert np.array_equal(a1, a2) and np.array_equal(W1, W2)
    assert np.array_equal(F.r, P.evaluate(a1, W1).r)  # the field returned is the one at the final state


def test_bad_arguments():
    P = GDBatch.shared(np.eye(2), np.ones(2))
    with pytest.raises(RelucheckInputError, match="learning rate must be > 0"):
        descend(P, np.ones(2), np.ones((2, 2)), 0.0, 3)
    with pytest.raises(RelucheckInputError, match="steps must be ≥ 0"):
        descend(P, np.ones(2), np.ones((2, 2)), 0.1, -1)
    with pytest.raises(RelucheckInputError, match="dtype must be float64 or float32"):
        GDBatch.shared(np.eye(2), np.ones(2), dtype=np.float16)
    with pytest.raises(RelucheckInputError, match="X must be"):
        GDBatch.shared(np.eye(2), np.ones(3))
    with pytest.raises(RelucheckInputError, match="problem 1: X must be"):
        GDBatch.stack([(np.eye(2), np.ones(2)), (np.ones((3, 2)), np.ones(2))])
    with pytest.raises(RelucheckInputError, match="at least one problem"):
        GDBatch.stack([])
