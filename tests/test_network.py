"""One definition of the network math for float64 and mpmath."""
import mpmath
import numpy as np
import pytest

from relucheck.numerics import datasets
from relucheck.numerics.network import PAPER_A, balancedness_defect, field, forward, loss, paper_b, residuals


def _problem(seed=0, n=5, d=4, m=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal(m), rng.standard_normal((m, d))


def test_field_is_minus_gradient_of_loss():
    X, y, a, W = _problem()
    da, dW = field(X, y, a, W)
    h = 1e-6
    for j in range(len(a)):
        e = np.zeros_like(a)
        e[j] = h
        fd = (loss(X, y, a + e, W) - loss(X, y, a - e, W)) / (2 * h)
        assert da[j] == pytest.approx(-fd, rel=1e-6, abs=1e-9)
    E = np.zeros_like(W)
    E[1, 2] = h
    fd = (loss(X, y, a, W + E) - loss(X, y, a, W - E)) / (2 * h)
    assert dW[1, 2] == pytest.approx(-fd, rel=1e-6, abs=1e-9)


def test_relu_prime_at_zero_is_zero():
    X = np.eye(2)
    W = np.array([[0.0, 1.0]])  # ⟨w, x_0⟩ = 0 exactly
    a = np.array([1.0])
    y = np.array([1.0, 0.0])
    _, dW = field(X, y, a, W)
    assert dW[0, 0] == 0.0  # the component at the kink gets no gradient


def test_paper_b_convention_scales_output_and_time():
    X, y, a, W = _problem(1)
    conv = paper_b(3)
    assert np.allclose(forward(X, a, W, conv), forward(X, a, W) / 3)
    # dθ/dt = −p ∇L_B: with θ scaled output, the gradient carries 1/p, time factor p cancels it
    da_b, _ = field(X, y, a, W, conv)
    r = residuals(X, y, a, W, conv)
    Z = X @ W.T
    assert np.allclose(da_b, (np.maximum(Z, 0).T @ r) / len(y))


def test_mpmath_backend_matches_float64():
    X, y, a, W = _problem(2)
    obj = np.vectorize(mpmath.mpf, otypes=[object])
    with mpmath.workdps(40):
        da_m, dW_m = field(obj(X), obj(y), obj(a), obj(W))
        L_m = loss(obj(X), obj(y), obj(a), obj(W))
    da, dW = field(X, y, a, W)
    assert np.allclose(np.array(da_m, dtype=float), da, rtol=1e-13)
    assert np.allclose(np.array(dW_m, dtype=float), dW, rtol=1e-13)
    assert float(L_m) == pytest.approx(loss(X, y, a, W), rel=1e-13)


def test_mpmath_backend_at_tiny_scale():
    with mpmath.workdps(30):
        lam = mpmath.mpf("1e-1000")
        X = np.array([[mpmath.mpf(1), mpmath.mpf(0)], [mpmath.mpf(0), mpmath.mpf(1)]], dtype=object)
        W = np.array([[lam, -lam]], dtype=object)
        a = np.array([lam], dtype=object)
        y = np.array([mpmath.mpf(1), mpmath.mpf(1)], dtype=object)
        da, dW = field(X, y, a, W)
        assert da[0] == lam / 2  # ⟨w, D⟩ with r ≈ y: (1/2)·λ·1
        assert dW[0, 1] == 0  # inactive component frozen
        assert balancedness_defect(a, W)[0] == -lam**2


def test_balancedness_defect_shape():
    X, y, a, W = _problem(3)
    assert balancedness_defect(a, W).shape == (3,)
    assert PAPER_A.scale == 1.0


def test_paper_b_rejects_bad_width():
    with pytest.raises(ValueError, match="positive integer"):
        paper_b(0)


def test_datasets_are_seeded():
    assert np.array_equal(datasets.gaussian_inputs(4, 3, 5), datasets.gaussian_inputs(4, 3, 5))


def test_python_flint_arb_backend_encloses_float64():
    import flint  # a declared dependency (pyproject.toml)

    X, y, a, W = _problem(4)
    arb = np.vectorize(lambda v: flint.arb(float(v)), otypes=[object])
    da_b, dW_b = field(arb(X), arb(y), arb(a), arb(W))
    da, dW = field(X, y, a, W)
    for enclosure, value in zip(list(da_b) + list(dW_b.ravel()), list(da) + list(dW.ravel())):
        assert enclosure.contains(flint.arb(value).mid()) or abs(float(enclosure.mid()) - value) < 1e-14


def test_mpmath_field_carries_no_float64_coefficient_error():
    """n = 5 and p = 3 are not powers of two: a float coefficient 1/n would cost 1e-16 relative."""
    X, y, a, W = _problem(5, n=5, d=4, m=3)
    obj = np.vectorize(mpmath.mpf, otypes=[object])
    with mpmath.workdps(50):
        for conv in (PAPER_A, paper_b(3)):
            da, dW = field(obj(X), obj(y), obj(a), obj(W), conv)
            Z = obj(X) @ obj(W).T
            R = Z * (Z > 0)
            r = obj(y) - (R @ obj(a)) / conv.width_divisor
            exact = [(R[:, j] @ r) * conv.time_factor / (conv.width_divisor * mpmath.mpf(5)) for j in range(3)]
            assert max(abs(da[j] - exact[j]) for j in range(3)) < mpmath.mpf(10) ** -45
