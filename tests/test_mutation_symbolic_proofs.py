"""Tests written against the surviving mutants of docs/mutation.md (issue 12); each compares with an independent computation.

Modules: `theory.first_jump` (C's first-jump system), `theory.high_precision_closed_forms.first_jump_constant`,
`theory.paper_a_limits` (A's limits and the two-piece OLS), `theory.paper_b_closed_form` (B's closed form).
The piecewise-linear system of `first_jump` is solved here by mpmath's matrix exponential at 30 digits (not by the
cosh/sinh formula of the module) and its event times by `mpmath.findroot`.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from relucheck.theory import first_jump as fj
from relucheck.theory import paper_a_limits as pa
from relucheck.theory import paper_b_closed_form as cf
from relucheck.theory.high_precision_closed_forms import first_jump_constant

EPS = np.finfo(float).eps


# ---------------------------------------------------------------- C's first-jump system, by the matrix exponential

def exact_segment(alpha0, z0, b, active, t):
    """(α, z)(t) of [α; z_P]' = [[0, bᵀ], [b, 0]] [α; z_P] (z off P frozen), by mpmath.expm of t·A."""
    idx = [i for i in range(len(z0)) if active[i]]
    k = len(idx)
    A = mpmath.zeros(k + 1, k + 1)
    for r, i in enumerate(idx):
        A[0, r + 1] = A[r + 1, 0] = b[i]
    u = mpmath.expm(A * t) * mpmath.matrix([alpha0] + [z0[i] for i in idx])
    z = list(z0)
    for r, i in enumerate(idx):
        z[i] = u[r + 1]
    return u[0], z


def exact_first_event(g, y, s, i):
    """Time at which the wrong-sign component i of z(0) = g reaches 0, at 30 digits (one segment)."""
    n = len(y)
    b = [mpmath.mpf(s) * mpmath.mpf(v) / n for v in y]
    z0 = [mpmath.mpf(v) for v in g]
    active = [v > 0 for v in g]
    beta = mpmath.sqrt(sum(b[j] ** 2 for j in range(n) if active[j]))
    guess = z0[i] / (-b[i]) / beta * beta  # z_i decreases at rate ≥ |b_i| α(0) = |b_i| at first
    return mpmath.findroot(lambda t: exact_segment(mpmath.mpf(1), z0, b, active, t)[1][i], guess)


@pytest.mark.parametrize("seed", range(8))
def test_event_times_to_the_documented_brentq_accuracy(seed):
    # One wrong-sign active component among right-sign ones, fast rates (labels ~100, n = 3), so that rounding in
    # F costs ~ε·F/F' ≈ 1e-18 and the documented 1e-15 + 4ε·dt is what remains. SciPy's default xtol (2e-12)
    # leaves errors of 1e-14…1e-12 here; the docstring promises 1e-15 + 4ε·dt (brentq: |x − x*| ≤ xtol + rtol·x*).
    mpmath.mp.dps = 30
    rng = np.random.default_rng(seed)
    g = rng.uniform(0.1, 0.5, 3)
    y = np.array([rng.uniform(150, 300), rng.uniform(100, 200), -rng.uniform(50, 150)])
    phase = fj.linear_phase(g, y, 1.0)
    assert len(phase.events) == 1
    exact = exact_first_event(g, y, 1.0, 2)
    # 2·ε·dt: the float time t = 0 + dt is the root itself; rounding of F/target: ≤ 10ε·(|F| + |target|)/F' with
    # F' = β α ≥ β ≈ 100 and |F|, |target| ≤ 1, i.e. < 1e-16
    tolerance = 1e-15 + 4 * EPS * float(exact) + 1e-16
    assert abs(phase.events[0] - float(exact)) <= tolerance


def test_state_at_a_finite_time_after_an_event_matches_the_matrix_exponential():
    # the event, then the segment without component 2; checks the index of the event (min of hits) and the state
    mpmath.mp.dps = 30
    g, y, s = [0.3, 0.4, 0.5], [3.0, 2.0, -1.0], 1.0
    t_event = exact_first_event(g, y, s, 2)
    b = [mpmath.mpf(s) * v / 3 for v in y]
    a1, z1 = exact_segment(mpmath.mpf(1), [mpmath.mpf(v) for v in g], b, [True, True, True], t_event)
    z1[2] = mpmath.mpf(0)
    t_end = float(t_event) + 0.75
    a2, z2 = exact_segment(a1, z1, b, [True, True, False], mpmath.mpf(t_end) - t_event)
    phase = fj.linear_phase(g, y, s, t_end)
    assert phase.events == [pytest.approx(float(t_event), rel=1e-14, abs=0)]
    # state of size ~3: rounding over two segments, a few ε per operation (cosh/sinh of βt ≤ 2)
    assert phase.alpha == pytest.approx(float(a2), rel=1e-13, abs=0)
    np.testing.assert_allclose(phase.z, [float(v) for v in z2], rtol=1e-13, atol=1e-15)
    assert phase.z[2] == 0.0 and math.isnan(phase.kappa)


def test_finite_time_without_wrong_sign_component_is_one_segment():
    # no event can stop it (no hits: the segment runs to t_end)
    mpmath.mp.dps = 30
    g, y = [0.6, 0.0, 0.8], [2.0, -5.0, 1.0]
    b = [mpmath.mpf(v) / 3 for v in y]
    a, z = exact_segment(mpmath.mpf(1), [mpmath.mpf(v) for v in g], b, [True, False, True], mpmath.mpf("1.25"))
    phase = fj.linear_phase(g, y, 1.0, 1.25)
    assert phase.events == []
    assert phase.alpha == pytest.approx(float(a), rel=1e-14, abs=0)
    np.testing.assert_allclose(phase.z, [float(v) for v in z], rtol=1e-14, atol=0)


def test_kappa_closed_form_accepts_a_list_of_indices():
    # ŷ_S = (3 x_0 + 4 x_2)/5, ⟨ḡ, ŷ_S⟩ = (3·0.6 + 4·0.8)/5 = 1, κ = 1
    assert fj.kappa_closed_form(np.array([0.6, 0.0, 0.8]), np.array([3.0, -1.0, 4.0]), [0, 2]) == pytest.approx(1.0, abs=2 * EPS)


# ---------------------------------------------------------------- first_jump_constant: a zero label is not a wrong sign

def test_first_jump_constant_with_an_active_zero_label():
    # x_2 is active (⟨ḡ, x_2⟩ = 0.5 > 0) with y_2 = 0: b_2 = 0, z_2 stays put; it is not wrong-signed (s·y_2 = 0), so
    # the closed form holds: ‖y_S‖ = 4, ⟨ḡ, ŷ_S⟩ = 0.75, κ = 7/8, γ = 4/3, C_1 = ln(2/(7/8))·3/4 (binary-exact data)
    mpmath.mp.dps = 30
    expected = mpmath.log(mpmath.mpf(16) / 7) * 3 / 4
    assert abs(first_jump_constant([0.75, 0.0, 0.5], [4.0, 1.0, 0.0], [0], 1.0) - expected) < mpmath.mpf(10) ** -28
    # the float system agrees: no event, κ = 7/8
    phase = fj.linear_phase([0.75, 0.0, 0.5], [4.0, 1.0, 0.0], 1.0)
    assert phase.events == [] and phase.kappa == pytest.approx(0.875, rel=4 * EPS)
    # s = −1 with y_0 < 0, and an integer zero label
    assert abs(first_jump_constant([0.75, 0.0, 0.5], [-4.0, 1.0, 0], [0], -1.0) - expected) < mpmath.mpf(10) ** -28


# ---------------------------------------------------------------- paper A: exact rational and large integer inputs

def test_D_inf_linear_of_fractions_is_a_float_array():
    Sigma = [[Fraction(2), Fraction(1, 3)], [Fraction(1, 3), Fraction(1)]]
    beta = [Fraction(3, 7), Fraction(5, 2)]  # positive terms: no cancellation, each entry within 4ε
    exact = [sum(Sigma[i][j] * beta[j] for j in range(2)) / 2 for i in range(2)]
    got = pa.D_inf_linear(Sigma, beta)
    assert got.dtype == np.float64  # an object array would fail np.isfinite and the numerics downstream
    np.testing.assert_allclose(got, [float(v) for v in exact], rtol=4 * EPS)


def test_D_inf_relu_of_fractions_equals_that_of_floats():
    w, beta = [Fraction(1, 3), Fraction(2, 3)], [Fraction(3, 5), Fraction(-4, 5)]
    got = pa.D_inf_relu(w, beta)
    assert got.dtype == np.float64
    # D_∞ = ((π − φ) β + ‖β‖ sin φ w̄)/(2π) at 30 digits, φ from the exact cosine (1/5 − 8/15)/(√5/3) = −1/√5
    mpmath.mp.dps = 30
    cos = mpmath.mpf(-1) / mpmath.sqrt(5)
    phi, wbar = mpmath.acos(cos), [mpmath.mpf(1) / mpmath.sqrt(5), mpmath.mpf(2) / mpmath.sqrt(5)]
    exact = [((mpmath.pi - phi) * mpmath.mpf(bi.numerator) / bi.denominator + mpmath.sin(phi) * wi) / (2 * mpmath.pi)
             for bi, wi in zip(beta, wbar, strict=True)]
    np.testing.assert_allclose(got, [float(v) for v in exact], rtol=1e-14)


def test_G_inf_relu_of_large_integers_does_not_overflow():
    # ⟨w, β⟩ = 3·10^20 does not fit in int64 (9.2·10^18); cos φ = 0.6, sin φ = 0.8, ‖w‖‖β‖ = 5·10^20
    mpmath.mp.dps = 30
    phi = mpmath.acos(mpmath.mpf("0.6"))
    exact = 5 * mpmath.mpf(10) ** 20 * (mpmath.mpf("0.8") + (mpmath.pi - phi) * mpmath.mpf("0.6")) / (2 * mpmath.pi)
    got = pa.G_inf_relu([10**10, 0], [3 * 10**10, 4 * 10**10])
    assert got == pytest.approx(float(exact), rel=1e-14)
    small = pa.G_inf_relu([Fraction(1, 10), 0], [Fraction(3, 10), Fraction(4, 10)])  # the same, scaled by 10^-22
    assert small == pytest.approx(float(exact) / 1e22, rel=1e-14)


def fraction_data():
    X = [[Fraction(3), Fraction(1)], [Fraction(2), Fraction(-1)], [Fraction(1, 2), Fraction(1, 3)],
         [Fraction(-1), Fraction(2)], [Fraction(-2), Fraction(-1, 2)], [Fraction(-1, 3), Fraction(1)]]
    y = [Fraction(1), Fraction(2, 3), Fraction(-1, 2), Fraction(3), Fraction(1, 5), Fraction(-2)]
    return X, y


def exact_ols(rows, targets):
    """(XᵀX)⁻¹Xᵀy in d = 2 by Cramer's rule over the rationals."""
    a = sum(r[0] * r[0] for r in rows)
    b = sum(r[0] * r[1] for r in rows)
    d = sum(r[1] * r[1] for r in rows)
    u = sum(r[0] * t for r, t in zip(rows, targets, strict=True))
    v = sum(r[1] * t for r, t in zip(rows, targets, strict=True))
    det = a * d - b * b
    return [(d * u - b * v) / det, (a * v - b * u) / det]


def test_two_piece_ols_of_fractions_matches_the_exact_normal_equations():
    X, y = fraction_data()
    fit = pa.two_piece_ols(X, y)
    plus = [k for k in range(6) if X[k][0] > 0]
    minus = [k for k in range(6) if X[k][0] < 0]
    bp = exact_ols([X[k] for k in plus], [y[k] for k in plus])
    bm = exact_ols([X[k] for k in minus], [y[k] for k in minus])
    bo = exact_ols(X, y)
    # 3×2 systems with condition numbers < 20: lstsq is backward stable, a few hundred ε is ample
    np.testing.assert_allclose(fit.beta_plus, [float(v) for v in bp], rtol=1e-13)
    np.testing.assert_allclose(fit.beta_minus, [float(v) for v in bm], rtol=1e-13)
    np.testing.assert_allclose(fit.beta_ols, [float(v) for v in bo], rtol=1e-13)
    r2 = [y[k] - sum(X[k][j] * (bp if k in plus else bm)[j] for j in range(2)) for k in range(6)]
    assert fit.loss_2ols == pytest.approx(float(sum(r * r for r in r2) / 12), rel=1e-12)
    # the same data given as β* explicitly (a list of Fractions)
    again = pa.two_piece_ols(X, y, beta_star=[Fraction(1), Fraction(0)])
    np.testing.assert_array_equal(again.plus, fit.plus)


def test_predictions_of_fractions_are_float_arrays():
    X, y = fraction_data()
    fit = pa.two_piece_ols(np.array(X, float), np.array(y, float))
    Xq = [[Fraction(1, 2), Fraction(3)], [Fraction(-5, 4), Fraction(1, 7)]]
    Xf = np.array(Xq, float)
    h = fit.predict(Xq)
    assert h.dtype == np.float64
    # h_∞(x) = σ(⟨β̂_+, x⟩) − σ(⟨−β̂_−, x⟩), from the fitted vectors
    expected = [max(float(x @ fit.beta_plus), 0.0) - max(-float(x @ fit.beta_minus), 0.0) for x in Xf]
    np.testing.assert_allclose(h, expected, rtol=4 * EPS)
    side = fit.predict_by_side(Xq, [Fraction(1), Fraction(0)])
    assert side.dtype == np.float64
    np.testing.assert_allclose(side, [float(Xf[0] @ fit.beta_plus), float(Xf[1] @ fit.beta_minus)], rtol=4 * EPS)
    assert list(fit.split_violations([[Fraction(v) for v in row] for row in X])) == list(fit.split_violations(np.array(X, float)))


# ---------------------------------------------------------------- paper B

def test_mu_closed_form_refuses_lists_of_different_lengths():
    # one (‖Y_j‖, N_j, ρ_j) per group: a missing entry is an error, not the μ of the first groups
    with pytest.raises(ValueError):
        cf.mu_closed_form([1.0, 2.0], [0.5, 0.25], [0.5], 6, 2)
    with pytest.raises(ValueError):
        cf.mu_closed_form([1.0], [0.5, 0.25], [0.5, 0.1], 6, 2)
    # one group by hand: ‖R‖² = 1 − 2·0.25·0.5/2 + 0.0625/4 = 0.890625, numerator (0.5·0.5 − 0.125/2)² + 0.25·‖R‖²
    R2 = 1 - 2 * 0.25 * 0.5 / 2 + 0.0625 / 4
    expected = 2 * ((0.5 * 0.5 - 0.125 / 2) ** 2 + 0.25 * R2) / (6 * 2 * R2)
    assert cf.mu_closed_form([1.0], [0.25], [0.5], 6, 2) == pytest.approx(expected, rel=4 * EPS)


def test_a_component_reached_while_alpha_plus_v_is_negative_is_an_event():
    # z = (0.2, 2.0), both labels against s: α + v = 1 − 2.2/√2 < 0, so F rises to a finite maximum (≈ 0.364·√2…);
    # component 0's target 0.2·√2 ≈ 0.283 lies below it and is reached (the time checked against mpmath.expm)
    mpmath.mp.dps = 30
    g, y = [0.2, 2.0], [-1.0, -1.0]
    with pytest.raises(ValueError, match="stops growing"):  # component 1 then never reaches 0
        fj.linear_phase(g, y, 1.0)
    phase = fj.linear_phase(g, y, 1.0, t_end=1.0)
    exact = exact_first_event(g, y, 1.0, 0)
    assert phase.events == [pytest.approx(float(exact), rel=1e-12)]  # brentq's 1e-15 + 4ε·dt, far below 1e-12


def test_a_wrong_sign_component_that_never_reaches_zero_is_a_value_error():
    # off orthonormal data: z = 2, y = −1, s = 1 gives α + v = 1 − 2 < 0 and sup F = F(atanh(1/2)) ≈ 0.268 < 2,
    # so z never reaches 0 and κ ≤ 0 (α(t) → −∞); this was an OverflowError from the doubling search
    with pytest.raises(ValueError, match=r"stops growing: α \+ ⟨b̂, z⟩ = -1 ≤ 0 .*components \[0\] never reach 0"):
        fj.linear_phase([2.0], [-1.0], 1.0)
    # at a finite t_end the state is still defined: by the matrix exponential, no event
    phase = fj.linear_phase([2.0], [-1.0], 1.0, t_end=0.5)
    alpha, z = exact_segment(mpmath.mpf(1), [mpmath.mpf(2)], [mpmath.mpf(-1)], [True], mpmath.mpf("0.5"))
    assert phase.events == [] and phase.alpha == pytest.approx(float(alpha), rel=1e-14)
    assert phase.z[0] == pytest.approx(float(z[0]), rel=1e-14)


def test_alpha_plus_v_exactly_zero_has_sup_alpha_which_no_target_reaches():
    # z = 1, y = −1 (n = 1, s = 1): v = −1 = −α exactly, F(dt) = 1 − e^{−dt} < 1 = α = target for every dt:
    # the component never reaches 0 (the sup α is not attained)
    with pytest.raises(ValueError, match=r"stops growing: α \+ ⟨b̂, z⟩ = 0 ≤ 0"):
        fj.linear_phase([1.0], [-1.0], 1.0)


def test_a_target_between_the_maximum_of_F_and_alpha_is_not_reached():
    # z = (0.5, 2), both wrong-sign: v = −2.5/√2 < −α, max F = F(atanh(−α/v)/β) ≈ 0.311 (by mpmath below), and
    # component 0's target 0.5·√2 ≈ 0.707 lies between that maximum and α = 1: neither component reaches 0
    mpmath.mp.dps = 30
    v = -mpmath.mpf("2.5") / mpmath.sqrt(2)
    x = mpmath.atanh(-1 / v)
    assert mpmath.sinh(x) + v * (mpmath.cosh(x) - 1) < mpmath.mpf("0.5") * mpmath.sqrt(2) < 1
    with pytest.raises(ValueError, match=r"components \[0, 1\] never reach 0"):
        fj.linear_phase([0.5, 2.0], [-1.0, -1.0], 1.0)


def test_an_unreachable_component_listed_first_does_not_hide_a_reachable_one():
    # the two components of the α + v < 0 example above in the other order: component 1 (z = 0.2) is still an event
    mpmath.mp.dps = 30
    g, y = [2.0, 0.2], [-1.0, -1.0]
    phase = fj.linear_phase(g, y, 1.0, t_end=1.0)
    exact = exact_first_event(g, y, 1.0, 1)
    assert phase.events == [pytest.approx(float(exact), rel=1e-12)]  # brentq's 1e-15 + 4ε·dt, far below 1e-12


def test_the_root_before_the_maximum_of_F_when_doubling_would_overshoot_it():
    # v = −(0.601 + 0.827)/√2 ≈ −1.0097 < −α: F rises to its maximum at β·dt = atanh(1/|v|) ≈ 2.65 and falls to −∞;
    # component 0's target 0.601·√2 ≈ 0.850 lies between F(2/β) ≈ 0.837 and that maximum, so a bracket searched by
    # doubling from 1/β (F(1/β), F(2/β), F(4/β) < target, then F(8/β) ≈ −13) never closes; the root is before it
    mpmath.mp.dps = 30
    g, y = [0.601, 0.827], [-1.0, -1.0]
    phase = fj.linear_phase(g, y, 1.0, t_end=4.0)
    exact = exact_first_event(g, y, 1.0, 0)
    v = -(mpmath.mpf("0.601") + mpmath.mpf("0.827")) / mpmath.sqrt(2)
    assert exact < mpmath.atanh(-1 / v) / mpmath.sqrt(mpmath.mpf("0.5"))  # the rising root: β = 1/√2
    assert phase.events == [pytest.approx(float(exact), rel=1e-12)]  # brentq's 1e-15 + 4ε·dt, far below 1e-12
