"""`theory.paper_b_closed_form.mu_closed_form` at 50 digits against an exact SymPy evaluation of the same
formula (spec B §2.13): the result must carry the working precision, not a double's 1e-16."""
import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.theory import paper_b_closed_form as cf

DPS = 50


def rational(x: mpmath.mpf) -> sp.Rational:
    """The binary mpf x exactly."""
    sign, man, exp, _ = x._mpf_  # x = (−1)^sign · man · 2^exp
    return (-1) ** sign * sp.Integer(int(man)) * sp.Integer(2) ** int(exp)


def exact_mu(Y, N, rho, n, p):
    """μ in exact arithmetic (rationals and √N_j), plus the same formula with every '−' made '+' (the scale
    that bounds the rounding error of each sum: Σ|terms|)."""
    Y, N, rho = ([rational(v) for v in vs] for vs in (Y, N, rho))
    num = den = num_abs = den_abs = 0
    for Yn, Nj, rj in zip(Y, N, rho):
        R2 = Yn**2 - 2 * Nj * Yn * rj / p + Nj**2 / p**2
        R2_abs = Yn**2 + 2 * Nj * Yn * abs(rj) / p + Nj**2 / p**2
        num += (Yn * sp.sqrt(Nj) * rj - Nj**sp.Rational(3, 2) / p) ** 2 + Nj * R2
        num_abs += (Yn * sp.sqrt(Nj) * abs(rj) + Nj**sp.Rational(3, 2) / p) ** 2 + Nj * R2_abs
        den, den_abs = den + R2, den_abs + R2_abs
    value = (2 * num / (n * p * den)).evalf(DPS + 30)
    kappa = (num_abs / abs(num) + den_abs / abs(den)).evalf(20)
    return mpmath.mpf(str(value)), float(kappa)


def tolerance(kappa, groups):
    """Each group costs ≤ 20 roundings (pow, products, sums), relative 2^-prec each, amplified by the
    cancellation factors κ = Σ|terms|/|Σ terms| of the numerator and denominator (first-order bound)."""
    return (20 * groups + 5) * kappa * mpmath.mpf(2) ** -mpmath.mp.prec


def check(Y, N, rho, n, p):
    with mpmath.workdps(DPS):
        Y, N, rho = ([mpmath.mpf(v) for v in vs] for vs in (Y, N, rho))
        got = cf.mu_closed_form(Y, N, rho, n, p)
        expected, kappa = exact_mu(Y, N, rho, n, p)
        assert isinstance(got, mpmath.mpf)
        assert abs(got - expected) <= tolerance(kappa, len(Y)) * abs(expected)


def test_regression_one_over_three_groups():
    """n·p = 18: 2/18 is not a double; the float prefactor erred by ~1e-17 relative (tolerance here ~1e-48)."""
    with mpmath.workdps(DPS):
        check([mpmath.mpf(2), mpmath.mpf(1) / 7], [mpmath.mpf(1) / 3, mpmath.mpf(3) / 2],
              [mpmath.mpf("0.5"), -mpmath.mpf(1) / 5], 6, 3)


unit = st.floats(-0.95, 0.95, allow_nan=False)
positive = st.floats(0.05, 3, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(positive, positive, unit), min_size=1, max_size=3),
       st.integers(1, 40), st.integers(1, 12))
def test_fifty_digits_against_exact(groups, n, p):
    Y, N, rho = zip(*groups)
    check(Y, N, rho, n, p)


@pytest.mark.parametrize("seed", range(3))
def test_float_input_unchanged(seed):
    rng = np.random.default_rng(seed)
    Y, N, rho = rng.uniform(0.5, 2, 3), rng.uniform(0.1, 2, 3), rng.uniform(-0.9, 0.9, 3)
    with mpmath.workdps(40):
        expected, kappa = exact_mu([mpmath.mpf(v) for v in Y], [mpmath.mpf(v) for v in N],
                                   [mpmath.mpf(v) for v in rho], 9, 4)
    got = cf.mu_closed_form(list(Y), list(N), list(rho), 9, 4)
    assert abs(got - float(expected)) <= 65 * kappa * 2.0**-53 * abs(float(expected))
