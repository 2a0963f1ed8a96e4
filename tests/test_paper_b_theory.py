"""Paper B theory: closed forms of the group dynamics, Lemma 5's probabilities, statements."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory import paper_b_closed_form as cf
from relucheck.theory import paper_b_probability as prob
from relucheck.theory.statements import get_statement

pos = st.floats(0.05, 3.0)
rho0s = st.floats(0.001, 0.999)


@settings(max_examples=30, deadline=None)
@given(c=pos, P=st.floats(1.5, 200.0), rho0=rho0s, N0=st.floats(0.01, 1.4), t=st.floats(0.0, 15.0))
def test_exact_solution_solves_66_at_random_points(c, P, rho0, N0, t):
    with mpmath.workdps(40):
        rho, N = cf.true_state(c, P, rho0, N0, t)
        drho = mpmath.diff(lambda s: cf.true_state(c, P, rho0, N0, s)[0], t)
        dN = mpmath.diff(lambda s: cf.true_state(c, P, rho0, N0, s)[1], t)
        assert abs(drho - c / 2 * (1 - rho**2)) <= mpmath.mpf(10) ** -25 * (1 + abs(drho))
        assert abs(dN - c * N * (rho - N / P)) <= mpmath.mpf(10) ** -25 * (1 + abs(dN))


@settings(max_examples=30, deadline=None)
@given(c=pos, P=st.floats(1.5, 200.0), rho0=rho0s, N0=st.floats(0.01, 1.4), t=st.floats(0.01, 15.0))
def test_paper_rho_is_true_rho_at_twice_the_time_and_exact_only_at_rho0_one(c, P, rho0, N0, t):
    with mpmath.workdps(30):
        assert abs(cf.paper_state(c, P, rho0, N0, t)[0] - cf.true_state(c, P, rho0, N0, 2 * t)[0]) < 1e-25
        one_pap, one_true = cf.paper_state(c, P, 1, N0, t), cf.true_state(c, P, 1, N0, t)
        assert abs(one_pap[1] - one_true[1]) <= 1e-20 * one_true[1]
        # for ρ_0 < 1 the paper's ρ is strictly ahead of the true one
        assert cf.paper_state(c, P, rho0, N0, t)[0] > cf.true_state(c, P, rho0, N0, t)[0]


@settings(max_examples=30, deadline=None)
@given(Y=st.lists(st.floats(0.5, 3.0), min_size=1, max_size=3), N=st.lists(st.floats(0.01, 10.0), min_size=3, max_size=3),
       rho=st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3), p=st.integers(1, 5), n=st.integers(3, 30))
def test_mu_closed_form_within_lemma7_orthonormal_range(Y, N, rho, p, n):
    N, rho = N[:len(Y)], rho[:len(Y)]
    mu = cf.mu_closed_form(Y, N, rho, n, p)
    R2 = sum(cf.group_loss_sq(a, b, c, p) for a, b, c in zip(Y, N, rho, strict=False))
    if R2 < 1e-9:
        return
    assert 2 * min(N) / (n * p) * (1 - 1e-12) <= mu <= 4 * max(N) / (n * p) * (1 + 1e-12)


def test_frozen_system_reduces_to_66_when_F_is_zero():
    rhs = cf.frozen_rhs(2.0, 6, 2, 0.0)
    c, P = 2 * 2.0 / 6, 2 * 2.0
    drho, dN = rhs(0, [0.4, 1.3])
    assert drho == pytest.approx(c / 2 * (1 - 0.16)) and dN == pytest.approx(c * 1.3 * (0.4 - 1.3 / P))


def test_paper_statements_present_with_spec_tags():
    assert get_statement("B.thm2").confidence == "error"
    assert get_statement("B.conj1").confidence == "unverified"
    for sid in ("B.lem2", "B.lem3", "B.lem4", "B.lem5", "B.lem6", "B.lem7", "B.lem8", "B.thm1", "B.thm2",
                "B.prop1", "B.prop2", "B.prop3", "B.cor1", "B.asm1", "B.asm2", "B.conj1", "B.remC2"):
        assert get_statement(sid).paper == "B"


# -- Lemma 5 ---------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(n_pos=st.integers(0, 60), n_neg=st.integers(0, 60), p=st.integers(1, 40))
def test_exact_formula_float_matches_mpmath_and_dominates_union_bound(n_pos, n_neg, p):
    exact = prob.exact_good_init(n_pos, n_neg, p)
    assert exact == pytest.approx(float(prob.exact_good_init_mp(n_pos, n_neg, p)), rel=1e-10, abs=1e-300)
    assert exact >= prob.union_bound(n_pos + n_neg, p) - 1e-12
    assert exact <= prob.exact_good_init(n_pos, n_neg, p + 1) + 1e-12  # monotone in p


def test_exact_formula_brute_force_small_case():
    # enumerate all sign patterns: p = 2 neurons, n_+ = 1, n_- = 1 (4 activation bits + 2 output signs)
    import itertools

    good = 0
    for signs in itertools.product([-1, 1], repeat=2):
        for act in itertools.product([0, 1], repeat=4):
            A = np.array(act).reshape(2, 2)  # A[j, i]: neuron j active on x_i; y = (+, −)
            ok = all(any(A[j, i] and signs[j] * (1 if i == 0 else -1) > 0 for j in range(2)) for i in range(2))
            good += ok
    assert prob.exact_good_init(1, 1, 2) == pytest.approx(good / 64)


def test_random_labels_average_and_bounds():
    val = prob.exact_good_init_random_labels(20, 12)
    assert min(prob.exact_good_init(k, 20 - k, 12) for k in range(21)) <= val <= 1


@pytest.mark.parametrize("k, N", [(0, 10), (10, 10), (3, 17)])
def test_clopper_pearson_contains_frequency(k, N):
    lo, hi = prob.clopper_pearson(k, N)
    assert 0 <= lo <= k / N <= hi <= 1


def test_bad_arguments():
    with pytest.raises(RelucheckInputError, match="Lemma 5"):
        prob.exact_good_init(3, 2, 0)
    with pytest.raises(RelucheckInputError):
        prob.clopper_pearson(5, 3)


def test_lemma5_spec_table_minimal_widths():
    """Spec B §2.11: minimal p with P(𝓘) ≥ 1 − ε for (n, ε) = (100, 0.05) and (1000, 0.05) (random signs)."""
    for n, eps, expected in [(100, 0.05, 26), (1000, 0.05, 34)]:
        p = next(p for p in range(1, 100) if prob.exact_good_init_random_labels(n, p) >= 1 - eps)
        assert p == expected
        assert abs(p - math.log(n / eps) / math.log(4 / 3)) < 1
