"""Direct unit tests of `theory.paper_a_limits` (paper A's infinite-data objects and the two-piece OLS limit).

Closed forms are checked against independent computations: SciPy quadrature of the Gaussian expectations,
finite differences, normal equations solved by hand, and the binomial average summed with exact binomials.
"""
import math

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.theory import paper_a_limits as pa


def relu_kernel_by_quadrature(w, beta):
    """E[σ(⟨β,x⟩)σ(⟨w,x⟩)], x ~ N(0, I_2), in polar coordinates: E[r²] = 2 and the angle uniform on [0, 2π)."""
    a, b = math.atan2(w[1], w[0]), math.atan2(beta[1], beta[0])

    def f(t):
        return max(math.cos(t - a), 0.0) * max(math.cos(t - b), 0.0)

    angular = quad(f, 0, 2 * math.pi, points=sorted({(a + s) % (2 * math.pi) for s in (-math.pi / 2, math.pi / 2)}
                                                  | {(b + s) % (2 * math.pi) for s in (-math.pi / 2, math.pi / 2)}),
                   epsabs=1e-14, epsrel=1e-13, limit=200)[0]
    return np.linalg.norm(w) * np.linalg.norm(beta) * 2 * angular / (2 * math.pi)


def test_D_inf_linear_is_half_sigma_beta():
    Sigma = [[2.0, 1.0], [1.0, 3.0]]
    beta = [1, -2]
    got = pa.D_inf_linear(Sigma, beta)
    np.testing.assert_array_equal(got, [0.0, -2.5])
    assert got.dtype == float


def test_D_inf_linear_proof_is_the_zero_matrix():
    assert pa.D_inf_linear_proof() == sp.zeros(2, 2)


@pytest.mark.parametrize("w, beta", [([1.0, 0.0], [1.0, 0.0]), ([1.0, 0.0], [0.0, 2.0]), ([1.0, 1.0], [-1.0, -1.0]),
                                     ([0.3, -1.2], [2.0, 0.5]), ([-1.0, 0.2], [0.4, 0.7]), ([2.0, 1.0], [1.0, 0.5])])
def test_G_inf_relu_against_quadrature(w, beta):
    assert pa.G_inf_relu(w, beta) == pytest.approx(relu_kernel_by_quadrature(w, beta), rel=1e-10, abs=1e-14)


def test_G_inf_relu_special_angles():
    e1, e2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    assert pa.G_inf_relu(2 * e1, 3 * e1) == pytest.approx(3.0, rel=1e-15)  # φ = 0: ‖w‖‖β‖/2
    assert pa.G_inf_relu(e1, 3 * e2) == pytest.approx(3 / (2 * math.pi), rel=1e-15)  # φ = π/2
    assert pa.G_inf_relu(-e1, e1) == pytest.approx(0.0, abs=1e-16)  # φ = π
    # cos φ rounded above 1 is clipped, not nan
    w = np.array([0.1, 0.2, 0.3]) * 3
    assert pa._angle(w, np.array([0.1, 0.2, 0.3])) == pytest.approx(0.0, abs=1e-7)
    assert pa._angle(-w, np.array([0.1, 0.2, 0.3])) == pytest.approx(math.pi, abs=1e-7)
    assert pa._angle([1.0, 0.0], [1.0, 1.0]) == pytest.approx(math.pi / 4, rel=1e-15)
    assert isinstance(pa.G_inf_relu(e1, e2), float) and isinstance(pa._angle(e1, e2), float)


@pytest.mark.parametrize("seed", range(4))
def test_D_inf_relu_is_the_gradient_of_G(seed):
    rng = np.random.default_rng(seed)
    w, beta = rng.standard_normal(3), rng.standard_normal(3)
    h = 1e-6
    grad = np.array([(pa.G_inf_relu(w + h * e, beta) - pa.G_inf_relu(w - h * e, beta)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(pa.D_inf_relu(w, beta), grad, rtol=1e-7, atol=1e-9)
    # homogeneous of degree 0 in w and 1 in β
    np.testing.assert_allclose(pa.D_inf_relu(3 * w, 2 * beta), 2 * pa.D_inf_relu(w, beta), rtol=1e-13)


def test_D_inf_relu_special_directions():
    beta = np.array([0.0, 2.0])
    np.testing.assert_allclose(pa.D_inf_relu([0.0, 5.0], beta), beta / 2, rtol=1e-15)  # φ = 0: β/2
    np.testing.assert_allclose(pa.D_inf_relu([0.0, -5.0], beta), [0.0, 0.0], atol=1e-15)  # φ = π
    # φ = π/2: (π/2 β + ‖β‖ w̄)/(2π)
    np.testing.assert_allclose(pa.D_inf_relu([3.0, 0.0], beta), [2 / (2 * math.pi), 0.5], rtol=1e-15)


def test_G_inf_relu_angle_derivative_exactly():
    phi = sp.Symbol("phi", real=True)
    G, dG = pa.G_inf_relu_angle_derivative()
    assert sp.simplify(G - (sp.sin(phi) + (sp.pi - phi) * sp.cos(phi)) / (2 * sp.pi)) == 0
    assert sp.simplify(dG + (sp.pi - phi) * sp.sin(phi) / (2 * sp.pi)) == 0
    assert G.free_symbols == {phi} == dG.free_symbols


# -- two-piece OLS -----------------------------------------------------------------------------------

def normal_equations(X, y):
    return np.linalg.solve(X.T @ X, X.T @ y)


def hand_data():
    X = np.array([[1.0, 0.5], [2.0, -1.0], [0.5, 2.0], [-1.0, 1.0], [-2.0, -0.5], [-0.5, 0.3], [1.5, 1.5]])
    y = np.array([1.0, 2.5, -0.5, 3.0, 1.0, 0.2, -1.0])
    return X, y


def test_two_piece_ols_against_the_normal_equations():
    X, y = hand_data()
    t = pa.two_piece_ols(X, y)
    plus = X[:, 0] > 0
    np.testing.assert_array_equal(t.plus, plus)
    bp, bm, bo = normal_equations(X[plus], y[plus]), normal_equations(X[~plus], y[~plus]), normal_equations(X, y)
    np.testing.assert_allclose(t.beta_plus, bp, rtol=1e-12)
    np.testing.assert_allclose(t.beta_minus, bm, rtol=1e-12)
    np.testing.assert_allclose(t.beta_ols, bo, rtol=1e-12)
    r2 = np.concatenate([y[plus] - X[plus] @ bp, y[~plus] - X[~plus] @ bm])
    ro = y - X @ bo
    assert t.loss_2ols == pytest.approx(np.sum(r2**2) / 14, rel=1e-12)
    assert t.loss_ols == pytest.approx(np.sum(ro**2) / 14, rel=1e-12)
    assert isinstance(t.loss_2ols, float) and isinstance(t.loss_ols, float)
    # another β*: the halves follow it
    bs = np.array([0.0, 1.0])
    u = pa.two_piece_ols(X.tolist(), y.tolist(), bs)
    up = X[:, 1] > 0
    np.testing.assert_array_equal(u.plus, up)
    np.testing.assert_allclose(u.beta_plus, normal_equations(X[up], y[up]), rtol=1e-12)
    np.testing.assert_allclose(u.beta_minus, normal_equations(X[~up], y[~up]), rtol=1e-12)


def test_two_piece_predictions_by_hand():
    t = pa.TwoPieceOLS(np.array([1.0, 2.0]), np.array([-3.0, 1.0]), np.zeros(2), np.array([True]), 0.0, 0.0)
    X = [[1.0, 1.0], [-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]]
    # σ(⟨β̂_+,x⟩) − σ(−⟨β̂_−,x⟩) with ⟨β̂_+,x⟩ = (3, −1, −1, 2), ⟨β̂_−,x⟩ = (−2, 3, −4, 1): (3, 0, 0, 2) − (2, 0, 4, 0)
    np.testing.assert_array_equal(t.predict(X), [1.0, 0.0, -4.0, 2.0])
    # by the side of ⟨β*, x⟩ = x_1 > 0: ⟨β̂_+,x⟩ on rows 0 and 2, ⟨β̂_−,x⟩ on rows 1 and 3
    np.testing.assert_array_equal(t.predict_by_side(X, [1, 0]), [3.0, 3.0, -1.0, 1.0])


def test_two_piece_split_violations_by_hand():
    """sign⟨β̂_±, x_k⟩ against the side of k; a zero (tie) counts as a violation on either side."""
    t = pa.TwoPieceOLS(np.array([1.0, 0.5]), np.array([1.0, -0.5]), np.zeros(2), np.array([True, True, False, False, True]),
                       0.0, 0.0)
    X = [[1.0, 0.0], [1.0, 3.0], [-1.0, 0.0], [-1.0, 3.0], [1.0, 2.0]]
    # ⟨β̂_+,x⟩ = (1, 2.5, −1, 0.5, 2), ⟨β̂_−,x⟩ = (1, −0.5, −1, −2.5, 0); sides (+, +, −, −, +)
    np.testing.assert_array_equal(t.split_violations(X), [1, 3, 4])
    assert t.split_violations([[1.0, 0.0], [2.0, 1.0], [-1.0, 0.0], [-2.0, 1.0], [1.0, -1.0]]).size == 0
    with pytest.raises(RelucheckInputError, match=r"X must be the 5×2 training inputs, got shape \(4, 2\)"):
        t.split_violations(X[:4])
    with pytest.raises(RelucheckInputError, match=r"got shape \(5,\)"):
        t.split_violations(np.ones(5))


def test_two_piece_ols_input_errors():
    X, y = hand_data()
    with pytest.raises(RelucheckInputError, match=r"X must be n×d and y of length n, got \(7,\) and \(7,\)"):
        pa.two_piece_ols(X[:, 0], y)
    with pytest.raises(RelucheckInputError, match=r"got \(7, 2\) and \(6,\)"):
        pa.two_piece_ols(X, y[:6])
    Z = X.copy()
    Z[2, 0] = 0.0
    with pytest.raises(HypothesisViolation) as info:
        pa.two_piece_ols(Z, y)
    assert info.value.hypothesis == "Assumption 4.1 (continuous law: no x_k orthogonal to β*)"
    assert info.value.detail == "some ⟨β*, x_k⟩ = 0"


def test_two_piece_ols_rank_conditions():
    X, y = hand_data()
    hyp = "Assumption 4.1 (X_± of full column rank, so that β̂_± is unique)"
    few = np.array([[1.0, 0.5], [-1.0, 1.0], [-2.0, -0.5], [-0.5, 0.3]])  # one row in X_+
    with pytest.raises(HypothesisViolation) as info:
        pa.two_piece_ols(few, y[:4])
    assert info.value.hypothesis == hyp
    assert info.value.detail == "X_+ has 1 rows of rank 1 < d = 2"
    flat = np.array([[1.0, 0.5], [2.0, 1.0], [3.0, 1.5], [-1.0, 1.0], [-2.0, -0.5], [-0.5, 0.3]])  # X_+ of rank 1
    with pytest.raises(HypothesisViolation) as info:
        pa.two_piece_ols(flat, y[:6])
    assert info.value.detail == "X_+ has 3 rows of rank 1 < d = 2"
    neg = np.array([[1.0, 0.5], [2.0, -1.0], [0.5, 2.0], [-1.0, 1.0], [-2.0, 2.0]])  # X_− of rank 1
    with pytest.raises(HypothesisViolation) as info:
        pa.two_piece_ols(neg, y[:5])
    assert info.value.detail == "X_− has 2 rows of rank 1 < d = 2"
    # exactly d rows of full rank on each side is enough
    square = np.array([[1.0, 0.5], [2.0, -1.0], [-1.0, 1.0], [-2.0, -0.5]])
    t = pa.two_piece_ols(square, y[:4])
    np.testing.assert_allclose(square[:2] @ t.beta_plus, y[:2], rtol=1e-12)
    assert t.loss_2ols == pytest.approx(0.0, abs=1e-28)


def test_lstsq_messages():
    with pytest.raises(HypothesisViolation) as info:
        pa._lstsq(np.array([[1.0, 2.0, 3.0]]), np.array([1.0]), "X")
    assert info.value.detail == "X has 1 rows of rank 1 < d = 3"
    with pytest.raises(HypothesisViolation) as info:
        pa._lstsq(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones(3), "X_−")
    assert info.value.detail == "X_− has 3 rows of rank 1 < d = 2"
    np.testing.assert_allclose(pa._lstsq(np.eye(2), np.array([3.0, 4.0]), "X"), [3.0, 4.0], rtol=1e-15)


def test_ols_excess_risk_gaussian():
    assert pa.ols_excess_risk_gaussian(10, 3, 2.0) == pytest.approx(4 * 3 / 6, rel=1e-15)
    assert pa.ols_excess_risk_gaussian(5, 3, 1.0) == pytest.approx(3.0, rel=1e-15)  # n = d + 2
    for n in (4, 3):  # n ≤ d + 1
        with pytest.raises(RelucheckInputError, match=f"the OLS excess risk needs n > d \\+ 1, got n = {n}, d = 3"):
            pa.ols_excess_risk_gaussian(n, 3, 1.0)


@pytest.mark.parametrize("n, d, sigma", [(12, 2, 1.0), (20, 3, 0.5), (9, 1, 2.0), (40, 5, 1.5)])
def test_two_piece_excess_risk_prediction_by_exact_binomials(n, d, sigma):
    num = den = 0.0
    for k in range(d + 2, n - d - 1):  # both halves need n_± ≥ d + 2
        p = math.comb(n, k) / 2**n
        num += p * 0.5 * sigma**2 * d * (1 / (k - d - 1) + 1 / (n - k - d - 1))
        den += p
    assert pa.two_piece_excess_risk_prediction(n, d, sigma) == pytest.approx(num / den, rel=1e-12)


def test_two_piece_excess_risk_smallest_case():
    # n = 2d + 5 leaves k ∈ {d + 2, d + 3}: both terms 1/1 + 1/2 (by symmetry the average is exact)
    d = 2
    assert pa.two_piece_excess_risk_prediction(2 * d + 5, d, 1.0) == pytest.approx(0.5 * d * 1.5, rel=1e-14)


def test_angle_clips_rounding_beyond_plus_minus_one():
    # float64 gives cos φ = ±(1 + 2^-52) for these exactly (anti)parallel vectors: arccos would be nan
    beta = np.array([-0.535669373161111, 0.36159505490948474, 1.3040000451301372])
    w = np.array([-3.9221796962164084, 2.647604760841311, 9.54790913412261])
    assert float(np.dot(w, beta) / (np.linalg.norm(w) * np.linalg.norm(beta))) > 1
    assert float(np.dot(-w, beta) / (np.linalg.norm(w) * np.linalg.norm(beta))) < -1
    assert pa._angle(w, beta) == 0.0 and pa._angle(-w, beta) == math.pi
    assert pa.G_inf_relu(w, beta) == pytest.approx(np.linalg.norm(w) * np.linalg.norm(beta) / 2, rel=1e-15)
    np.testing.assert_allclose(pa.D_inf_relu(-w, beta), [0.0, 0.0, 0.0], atol=1e-15)


def test_lstsq_message_reports_the_rank():
    with pytest.raises(HypothesisViolation) as info:
        pa._lstsq(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.ones(2), "X_+")
    assert info.value.detail == "X_+ has 2 rows of rank 2 < d = 3"
    with pytest.raises(HypothesisViolation) as info:
        pa._lstsq(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [2.0, 3.0, 0.0]]), np.ones(4), "X_+")
    assert info.value.detail == "X_+ has 4 rows of rank 2 < d = 3"
