"""Direct unit tests of `theory.paper_b_closed_form` and `theory.paper_b_probability` (paper B, spec B §2.11, §2.13).

Independent references: SymPy's own evaluation of the closed forms, mpmath derivatives of the exact solution,
vector forms of the group loss and of μ, and exact rational (Fraction) sums and brute-force enumeration for
Lemma 5's probability.
"""
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import stats

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory import paper_b_closed_form as cf
from relucheck.theory import paper_b_probability as pb

# -- the group system (66) ----------------------------------------------------------------------------

rho, N = sp.symbols("rho N", real=True)


def test_group_rhs_is_system_66():
    f_rho, f_N = cf.group_rhs(rho, N)
    assert sp.expand(f_rho - cf.c * (1 - rho**2) / 2) == 0
    assert sp.expand(f_N - cf.c * N * (rho - N / cf.P)) == 0
    g_rho, g_N = cf.group_rhs(rho, N, rate=1)
    assert sp.expand(g_rho - cf.c * (1 - rho**2)) == 0 and sp.expand(g_N - f_N) == 0
    assert cf.HALF == sp.Rational(1, 2)


def test_ode_problem_data_exactly():
    data = cf.ode_problem_data(cf.RHO_TRUE, cf.N_TRUE)
    assert data == {
        "time": "t", "state": ["rho", "N"],
        "parameters": {"c": [0.05, 2.0], "P": [1.5, 100.0], "N0": [0.01, 1.5], "rho0": [0.001, 0.999]},
        "equations": {"rho": "c*(1 - rho**2)/2", "N": "N*c*(-N/P + rho)"},
        "initial": {"rho": "rho0", "N": "N0"},
        "solution": {"rho": sp.sstr(cf.RHO_TRUE), "N": sp.sstr(cf.N_TRUE)},
        "time_span": [0, 10.0],
    }
    assert list(data) == ["time", "state", "parameters", "equations", "initial", "solution", "time_span"]
    assert data["solution"]["rho"] == "tanh(c*t/2 + atanh(rho0))"
    # the strings parse back to the expressions
    names = {"rho": rho, "N": N, "c": cf.c, "P": cf.P, "t": cf.t, "rho0": cf.rho0, "N0": cf.N0}
    assert sp.simplify(sp.sympify(data["solution"]["N"], locals=names) - cf.N_TRUE) == 0
    assert sp.expand(sp.sympify(data["equations"]["N"], locals=names) - cf.group_rhs(rho, N)[1]) == 0


def test_ode_problem_data_options():
    data = cf.ode_problem_data(cf.RHO_PAPER, cf.N_PAPER, rho0_range=None, rate=1, time_span=3.5)
    assert data["parameters"] == {"c": [0.05, 2.0], "P": [1.5, 100.0], "N0": [0.01, 1.5]}
    assert data["initial"] == {"rho": "1", "N": "N0"}
    assert data["equations"]["rho"] == "c*(1 - rho**2)"
    assert data["time_span"] == [0, 3.5]
    assert data["solution"] == {"rho": sp.sstr(cf.RHO_PAPER), "N": sp.sstr(cf.N_PAPER)}
    assert cf.ode_problem_data(cf.RHO_TRUE, cf.N_TRUE, rho0_range=(0.2, 0.4))["parameters"]["rho0"] == [0.2, 0.4]


@pytest.mark.parametrize("k", [2, 3, 4])  # k = 1 has ρ ≡ 1: no rate
def test_derive_scalar_system_from_the_vector_ode(k):
    res_rho, res_N, rate = cf.derive_scalar_system(k)
    assert res_rho == 0 and res_N == 0
    assert rate == sp.Rational(1, 2)


def test_derive_scalar_system_default():
    assert cf.derive_scalar_system() == (0, 0, sp.Rational(1, 2))


def test_paper_rho_residual_is_the_spec_expression():
    expected = cf.c * (1 - cf.rho0**2) / (2 * (sp.cosh(cf.c * cf.t) + cf.rho0 * sp.sinh(cf.c * cf.t)) ** 2)
    res = cf.paper_rho_residual()
    assert sp.simplify(res - expected) == 0
    assert res != 0


@pytest.mark.parametrize("F", [0.0, 0.7])
def test_frozen_rhs(F):
    Y, n, p = 3.0, 12, 5
    rhs = cf.frozen_rhs(Y, n, p, F)
    r, Nv = 0.4, 1.3
    got = rhs(0.0, (r, Nv))
    assert got[0] == pytest.approx(Y / n * math.sqrt((Nv + F) / Nv) * (1 - r * r), rel=1e-15)
    assert got[1] == pytest.approx(2 / n * (Y * r * math.sqrt(Nv * (Nv + F)) - Nv * (Nv + F) / p), rel=1e-14)
    if F == 0:  # the group system (66) with c = 2‖Y‖/n, P = p‖Y‖
        c_, P_ = 2 * Y / n, p * Y
        assert got[0] == pytest.approx(c_ / 2 * (1 - r * r), rel=1e-15)
        assert got[1] == pytest.approx(c_ * Nv * (r - Nv / P_), rel=1e-14)
    assert rhs(7.0, [r, Nv]) == got  # autonomous


def vector_group(seed, k=3, p=4):
    rng = np.random.default_rng(seed)
    Y = np.abs(rng.standard_normal(k)) + 0.2
    u = np.abs(rng.standard_normal(k)) + 0.1
    R = Y - np.linalg.norm(u) * u / p  # residual of the group, s = +1: a⟨w, x_i⟩/p = ‖u‖u_i/p
    Nj, rj = u @ u, Y @ u / (np.linalg.norm(Y) * np.linalg.norm(u))
    return Y, u, R, Nj, rj


@pytest.mark.parametrize("seed", range(3))
def test_group_loss_sq_is_the_squared_residual(seed):
    Y, _, R, Nj, rj = vector_group(seed)
    assert cf.group_loss_sq(np.linalg.norm(Y), Nj, rj, 4) == pytest.approx(R @ R, rel=1e-12)


def test_mu_closed_form_against_the_vector_form():
    n, p = 9, 4
    groups = [vector_group(s, k=3, p=p) for s in (5, 6, 7)]
    num = sum((R @ u) ** 2 + (u @ u) * (R @ R) for _, u, R, _, _ in groups)
    den = sum(R @ R for _, _, R, _, _ in groups)
    expected = 2 / (n * p) * num / den
    got = cf.mu_closed_form([np.linalg.norm(g[0]) for g in groups], [g[3] for g in groups], [g[4] for g in groups], n, p)
    assert got == pytest.approx(expected, rel=1e-12)
    one = cf.mu_closed_form([np.linalg.norm(groups[0][0])], [groups[0][3]], [groups[0][4]], n, p)
    _, u, R, _, _ = groups[0]
    assert one == pytest.approx(2 / (n * p) * ((R @ u) ** 2 + (u @ u) * (R @ R)) / (R @ R), rel=1e-12)


def test_mu_closed_form_in_mpmath():
    with mpmath.workdps(40):
        Y, Nj, rj = mpmath.mpf(2), mpmath.mpf(1) / 3, mpmath.mpf("0.5")
        got = cf.mu_closed_form([Y], [Nj], [rj], 6, 3)
        R2 = Y**2 - 2 * Nj * Y * rj / 3 + Nj**2 / 9
        expected = 2 / mpmath.mpf(18) * ((Y * mpmath.sqrt(Nj) * rj - Nj * mpmath.sqrt(Nj) / 3) ** 2 + Nj * R2) / R2
        assert isinstance(got, mpmath.mpf)
        # the prefactor 2/(np) is a Python float, so the result carries a double's relative error, not 40 digits
        assert abs(got / expected - 1) < mpmath.mpf(10) ** -15


POINTS = [("0.5", "3", "0.2", "0.4", "1.7"), ("1.5", "40", "0.9", "1.2", "0.3"), ("0.05", "1.5", "0.001", "0.01", "9")]


def sympy_value(expr, c_, P_, rho0_, N0_, t_, digits=50):
    subs = {cf.c: sp.Rational(c_), cf.P: sp.Rational(P_), cf.rho0: sp.Rational(rho0_), cf.N0: sp.Rational(N0_),
            cf.t: sp.Rational(t_)}
    return mpmath.mpf(str(sp.N(expr.subs(subs), digits)))


@pytest.mark.parametrize("point", POINTS)
def test_true_and_paper_states_match_the_sympy_closed_forms_at_high_precision(point):
    with mpmath.workdps(45):
        r, n_ = cf.true_state(*point)
        assert abs(r - sympy_value(cf.RHO_TRUE, *point)) < mpmath.mpf(10) ** -40
        assert abs(n_ / sympy_value(cf.N_TRUE, *point) - 1) < mpmath.mpf(10) ** -40
        r, n_ = cf.paper_state(*point)
        assert abs(r - sympy_value(cf.RHO_PAPER, *point)) < mpmath.mpf(10) ** -40
        assert abs(n_ / sympy_value(cf.N_PAPER, *point) - 1) < mpmath.mpf(10) ** -40


@pytest.mark.parametrize("point", POINTS)
def test_true_state_solves_system_66(point):
    c_, P_, rho0_, N0_, t_ = (float(v) for v in point)
    with mpmath.workdps(30):
        r0, n0 = cf.true_state(c_, P_, rho0_, N0_, 0)
        assert abs(r0 - mpmath.mpf(rho0_)) < mpmath.mpf(10) ** -28 and abs(n0 - mpmath.mpf(N0_)) < mpmath.mpf(10) ** -28
        dr = mpmath.diff(lambda s: cf.true_state(c_, P_, rho0_, N0_, s)[0], t_)
        dn = mpmath.diff(lambda s: cf.true_state(c_, P_, rho0_, N0_, s)[1], t_)
        r, n_ = cf.true_state(c_, P_, rho0_, N0_, t_)
        assert abs(dr - c_ / 2 * (1 - r**2)) < mpmath.mpf(10) ** -20
        assert abs(dn - c_ * n_ * (r - n_ / P_)) < mpmath.mpf(10) ** -20 * (1 + abs(dn))
        # the paper's (67) starts right but is not the solution
        pr, pn = cf.paper_state(c_, P_, rho0_, N0_, 0)
        assert abs(pr - mpmath.mpf(rho0_)) < mpmath.mpf(10) ** -28 and abs(pn - mpmath.mpf(N0_)) < mpmath.mpf(10) ** -28
        dpr = mpmath.diff(lambda s: cf.paper_state(c_, P_, rho0_, N0_, s)[0], t_)
        pr, _ = cf.paper_state(c_, P_, rho0_, N0_, t_)
        assert abs(dpr - c_ / 2 * (1 - pr**2)) > mpmath.mpf(10) ** -6


# -- Lemma 5 ------------------------------------------------------------------------------------------

def exact_probability(n_pos, n_neg, p):
    """Σ_m C(p,m) 2^{-p} (1 − 2^{-m})^{n_+} (1 − 2^{-(p−m)})^{n_-} in exact rationals."""
    return sum(Fraction(math.comb(p, m), 2**p) * (1 - Fraction(1, 2**m)) ** n_pos * (1 - Fraction(1, 2 ** (p - m))) ** n_neg
               for m in range(p + 1))


def enumerated_probability(labels, p):
    """P(∀i ∃j: ⟨w_j, x_i⟩ > 0 and a_j y_i > 0) by enumerating the fair, independent signs of ⟨w_j, x_i⟩ and a_j."""
    n = len(labels)
    good = 0
    for bits in itertools.product((0, 1), repeat=p * (n + 1)):
        a = bits[:p]
        act = [bits[p + j * n:p + (j + 1) * n] for j in range(p)]
        if all(any(act[j][i] and (a[j] == (labels[i] > 0)) for j in range(p)) for i in range(n)):
            good += 1
    return Fraction(good, 2 ** (p * (n + 1)))


@pytest.mark.parametrize("labels, p", [((1, 1), 2), ((1, -1), 2), ((1, -1, -1), 2), ((1,), 3), ((-1, -1), 3)])
def test_exact_good_init_by_enumeration(labels, p):
    n_pos = sum(1 for v in labels if v > 0)
    n_neg = len(labels) - n_pos
    exact = enumerated_probability(labels, p)
    assert exact == exact_probability(n_pos, n_neg, p)
    assert pb.exact_good_init(n_pos, n_neg, p) == pytest.approx(float(exact), rel=1e-13)


@pytest.mark.parametrize("n_pos, n_neg, p", [(0, 0, 1), (0, 5, 3), (7, 0, 4), (3, 4, 6), (40, 25, 30), (1, 1, 1)])
def test_exact_good_init_against_rationals(n_pos, n_neg, p):
    exact = exact_probability(n_pos, n_neg, p)
    assert pb.exact_good_init(n_pos, n_neg, p) == pytest.approx(float(exact), rel=1e-12, abs=1e-300)
    with mpmath.workdps(50):
        mp = pb.exact_good_init_mp(n_pos, n_neg, p, dps=50)
        assert abs(mp - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -45
    mp40 = pb.exact_good_init_mp(n_pos, n_neg, p)
    assert abs(mp40 - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -12


def test_exact_good_init_mp_uses_its_precision():
    exact = exact_probability(3, 4, 6)
    with mpmath.workdps(15):
        mp = pb.exact_good_init_mp(3, 4, 6, dps=60)
    with mpmath.workdps(60):
        assert abs(mp - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -55


def test_exact_good_init_large_n_in_log_space():
    # n = 10^5, p = 60: every term is representable only in log space
    got = pb.exact_good_init(50000, 50000, 60)
    with mpmath.workdps(30):
        ref = pb.exact_good_init_mp(50000, 50000, 60, dps=30)
    assert got == pytest.approx(float(ref), rel=1e-10)


def test_log1m_pow2():
    got = pb._log1m_pow2(np.array([0, 1, 2, 60]))
    assert got[0] == -math.inf
    np.testing.assert_allclose(got[1:], [math.log(0.5), math.log(0.75), math.log1p(-(2.0**-60))], rtol=1e-15)


@pytest.mark.parametrize("n, p", [(1, 1), (3, 2), (6, 4)])
def test_random_labels_average(n, p):
    exact = sum(Fraction(math.comb(n, k), 2**n) * exact_probability(k, n - k, p) for k in range(n + 1))
    assert pb.exact_good_init_random_labels(n, p) == pytest.approx(float(exact), rel=1e-12)


def test_union_bound():
    assert pb.union_bound(4, 2) == pytest.approx(1 - 4 * 0.5625, rel=1e-15)
    assert pb.union_bound(0, 1) == 1.0
    assert pb.union_bound(10, 30) == pytest.approx(1 - 10 * 0.75**30, rel=1e-15)


@pytest.mark.parametrize("call", [lambda: pb.union_bound(-1, 3), lambda: pb.union_bound(3, 0), lambda: pb.union_bound(1.5, 3),
                                  lambda: pb.union_bound(3, 2.5), lambda: pb.exact_good_init(-2, 1, 3),
                                  lambda: pb.exact_good_init_random_labels(2, 0),
                                  lambda: pb.exact_good_init_mp(1, 1, 0)])
def test_lemma5_argument_checks(call):
    with pytest.raises(RelucheckInputError, match="Lemma 5 needs integers n ≥ 0 and p ≥ 1, got n = "):
        call()


def test_lemma5_check_message():
    with pytest.raises(RelucheckInputError) as info:
        pb.union_bound(1.5, 0)
    assert str(info.value) == "Lemma 5 needs integers n ≥ 0 and p ≥ 1, got n = 1.5, p = 0"
    pb._check(0, 1)  # the boundary is allowed
    pb._check(2.0, 1.0)


@pytest.mark.parametrize("k, N", [(0, 1), (0, 10), (3, 10), (10, 10), (1, 1), (17, 40)])
def test_clopper_pearson_against_scipy_binomtest(k, N):
    low, high = pb.clopper_pearson(k, N)
    ci = stats.binomtest(k, N).proportion_ci(confidence_level=0.95, method="exact")
    assert low == pytest.approx(ci.low, abs=1e-12) and high == pytest.approx(ci.high, abs=1e-12)
    assert (low == 0.0) == (k == 0) and (high == 1.0) == (k == N)
    low99, high99 = pb.clopper_pearson(k, N, 0.99)
    ci99 = stats.binomtest(k, N).proportion_ci(confidence_level=0.99, method="exact")
    assert low99 == pytest.approx(ci99.low, abs=1e-12) and high99 == pytest.approx(ci99.high, abs=1e-12)
    assert isinstance(low, float) and isinstance(high, float)


@pytest.mark.parametrize("k, N", [(0, 0), (-1, 5), (6, 5)])
def test_clopper_pearson_bad_counts(k, N):
    with pytest.raises(RelucheckInputError, match=f"need 0 ≤ k ≤ N and N ≥ 1, got k = {k}, N = {N}"):
        pb.clopper_pearson(k, N)


def bullets_by_hand(ns, epss, fractions, first_constant):
    cases, bad = 0, []
    for n in ns:
        for eps in epss:
            x = math.log(n / eps)
            for frac in fractions:
                n_pos = int(round(frac * n))
                p1 = max(1, math.ceil(first_constant * x))
                cases += 1
                q1 = float(exact_probability(n_pos, n - n_pos, p1))
                if q1 < 1 - eps:
                    bad.append(("bullet 1", n, eps, frac, p1, q1))
                p2 = math.floor(3 * x - 2)
                if p2 >= 1:
                    cases += 1
                    q2 = float(exact_probability(n_pos, n - n_pos, p2))
                    if q2 > 1 - eps:
                        bad.append(("bullet 2", n, eps, frac, p2, q2))
    return cases, bad


@pytest.mark.parametrize("ns, epss, fractions, constant", [
    ((2, 10, 100), (0.5, 0.1, 0.01), (0.0, 0.5, 1.0), 4.0),
    ((2, 10, 100), (0.5, 0.1, 0.01), (0.0, 0.5, 1.0), 1.5),
    ((5, 30, 1000), (0.9, 0.7, 0.3), (0.0, 0.3, 1.0), 4.0),
    ((1, 3), (0.9, 0.5), (0.5,), 0.2),
])
def test_bullet_violations_against_rationals(ns, epss, fractions, constant):
    cases, bad = pb.bullet_violations(ns, epss, fractions, first_constant=constant)
    want_cases, want_bad = bullets_by_hand(ns, epss, fractions, constant)
    assert cases == want_cases
    assert [v[:5] for v in bad] == [v[:5] for v in want_bad]
    assert [v[5] for v in bad] == pytest.approx([v[5] for v in want_bad], rel=1e-12)


def test_bullet_violations_defaults():
    assert pb.bullet_violations([10], [0.1]) == pb.bullet_violations([10], [0.1], (0.0, 0.5, 1.0), first_constant=4.0)
    cases, bad = pb.bullet_violations([30], [0.9])
    assert cases == 6 and [v[:5] for v in bad] == [("bullet 2", 30, 0.9, 0.0, 8), ("bullet 2", 30, 0.9, 1.0, 8)]
    assert pb.bullet_violations([10], [0.1], first_constant=2.0)[1][0][:5] == ("bullet 1", 10, 0.1, 0.0, 10)


def test_proof_step_violations():
    bad = pb.proof_step_violations([4, 10, 100], [1.0, 0.5, 0.01])
    # 4ε/n ≥ 1 (n = 4, ε = 1) is skipped; everywhere else the proof's step is false
    assert [(n, eps) for n, eps, _, _ in bad] == [(4, 0.5), (4, 0.01), (10, 1.0), (10, 0.5), (10, 0.01),
                                                   (100, 1.0), (100, 0.5), (100, 0.01)]
    for n, eps, lhs, rhs in bad:
        assert lhs == pytest.approx((1 - 4 * (eps / n) ** (3 * math.log(2))) ** n, rel=1e-12)
        assert rhs == pytest.approx((1 - 4 * eps / n) ** n, rel=1e-12)
        assert lhs > rhs
    assert pb.proof_step_violations([2], [1.0]) == []  # 4ε/n = 2


# -- the same closed forms at any precision (theory.high_precision_closed_forms) ----------------------------------

@pytest.mark.parametrize("t_, N0_, rho0_, Y, n, p", [("0.7", "0.3", "0.25", "2", 5, 1), ("3.5", "0.01", "0.9", "1.5", 4, 7),
                                                   ("0", "0.2", "0.5", "3", 6, 2)])
def test_group_solution_is_the_exact_solution_at_high_precision(t_, N0_, rho0_, Y, n, p):
    from relucheck.theory.high_precision_closed_forms import group_solution, group_solution_as_published

    with mpmath.workdps(60):
        t, N0, rho0, Yn = (mpmath.mpf(v) for v in (t_, N0_, rho0_, Y))
        c, P = 2 * Yn / n, p * Yn
        rho, N = group_solution(t, N0, rho0, Yn, n, p)
        r_ref, n_ref = cf.true_state(c, P, rho0, N0, t)
        assert abs(rho - r_ref) < mpmath.mpf(10) ** -55 and abs(N / n_ref - 1) < mpmath.mpf(10) ** -55
        pr, pn = group_solution_as_published(t, N0, rho0, Yn, n, p)
        r_pap, n_pap = cf.paper_state(c, P, rho0, N0, t)
        assert abs(pr - r_pap) < mpmath.mpf(10) ** -55 and abs(pn / n_pap - 1) < mpmath.mpf(10) ** -55


def test_group_solution_aligned_start_is_the_logistic_law():
    from relucheck.theory.high_precision_closed_forms import group_solution, group_solution_as_published

    with mpmath.workdps(50):
        t, N0, Y, n, p = mpmath.mpf("1.3"), mpmath.mpf("0.05"), mpmath.mpf(2), 4, 3
        rho, N = group_solution(t, N0, mpmath.mpf(1), Y, n, p)
        assert rho == 1
        # ρ ≡ 1: N' = cN(1 − N/P), c = 2‖Y‖/n, P = p‖Y‖, a logistic curve
        c, P = 2 * Y / n, p * Y
        logistic = P * N0 * mpmath.exp(c * t) / (P + N0 * (mpmath.exp(c * t) - 1))
        assert abs(N / logistic - 1) < mpmath.mpf(10) ** -45
        pr, pn = group_solution_as_published(t, N0, mpmath.mpf(1), Y, n, p)
        assert abs(pr - 1) < mpmath.mpf(10) ** -45 and abs(pn / logistic - 1) < mpmath.mpf(10) ** -45
        assert group_solution(t, N0, mpmath.mpf(1), Y, n) == group_solution(t, N0, mpmath.mpf(1), Y, n, 1)


def test_proof_step_near_the_validity_edge():
    # 4ε/n = 0.9 < 1: still a valid (and violated) case; 4ε/n = 1 is skipped
    bad = pb.proof_step_violations([4], [0.9, 1.0])
    assert [(n, eps) for n, eps, _, _ in bad] == [(4, 0.9)]


def test_group_solution_as_published_defaults_to_one_neuron_group():
    import mpmath

    from relucheck.theory.high_precision_closed_forms import group_solution_as_published
    with mpmath.workdps(30):
        args = (mpmath.mpf("0.7"), mpmath.mpf("0.3"), mpmath.mpf("0.2"), 2, 6)
        default = group_solution_as_published(*args)
        assert default == group_solution_as_published(*args, p=1)
        assert default[1] != group_solution_as_published(*args, p=2)[1]  # p enters N through P = p‖y‖
