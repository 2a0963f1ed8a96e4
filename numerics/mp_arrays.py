"""Arrays of mpmath and python-flint numbers for the high-precision engines: conversions (numpy object arrays of
mpf ↔ arb, exactly), python-flint's working precision, and the precision rule of the Taylor engine (issue 4)."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb, arf
from flint import ctx as flint_ctx

from .errors import RelucheckInputError

MIN_DIGITS = 15  # below this mpmath is no more precise than float64: use a float64 engine


def required_digits(log_inv_lambda: float, accuracy_digits: float) -> int:
    """Working digits needed for ``accuracy_digits`` correct digits of the state at scale λ.

    Raw coordinates keep every neuron's relative precision, but the time factor T = ln(1/λ)
    multiplies every rounding error of τ and of the field: relative errors grow like T·(1 + τ·rate),
    i.e. about log10(T) + 2 digits are lost; 3 more digits cover the accumulation over the ~√steps
    rounding errors (a few thousand steps at most).
    """
    return int(math.ceil(accuracy_digits + math.log10(max(log_inv_lambda, 1.0)) + 5))


def check_precision(digits, log_inv_lambda: float = 1.0, accuracy_digits: float | None = None) -> None:
    """Raise `RelucheckInputError` when ``digits`` cannot deliver the requested accuracy at this λ."""
    if not isinstance(digits, (int, np.integer)) or isinstance(digits, bool):
        raise RelucheckInputError(f"precision must be an integer number of decimal digits, got {digits!r}")
    if digits < MIN_DIGITS:
        raise RelucheckInputError(
            f"precision of {digits} digits is too low: the mpmath engine needs at least {MIN_DIGITS} digits "
            "(use a float64 engine below that)")
    if accuracy_digits is not None:
        need = required_digits(log_inv_lambda, accuracy_digits)
        if digits < need:
            raise RelucheckInputError(
                f"precision of {digits} digits is too low for {accuracy_digits:g} correct digits at "
                f"ln(1/λ) = {log_inv_lambda:.6g}: need at least {need} digits (log10 ln(1/λ) + 5 are lost)")


def exact_mpf(value) -> mpmath.mpf:
    """A float64 constant as mpf, recovering simple rationals (1/p of paper B) exactly.

    Convention factors are stored as floats (1/3 = 0.333…3 to 17 digits); a constant within 4 ulps
    of a fraction with denominator ≤ 10⁶ is taken as that fraction, everything else as its exact
    binary value.
    """
    if isinstance(value, mpmath.mpf):
        return value
    frac = Fraction(float(value)).limit_denominator(10**6)
    if abs(float(frac) - float(value)) <= 4 * np.spacing(abs(float(value))):
        return mpmath.mpf(frac.numerator) / frac.denominator
    return mpmath.mpf(float(value))


def to_mp(arr) -> np.ndarray:
    """Float (or mpf) array to a dtype=object array of mpf at the current precision."""
    arr = np.asarray(arr, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx, v in np.ndenumerate(arr):
        out[idx] = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v if isinstance(v, (int, str)) else float(v))
    return out


def _mpf_to_arb(x) -> arb:
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    man = int(man)
    return arb(arf((-man if sign else man, int(exp))))


def _arb_to_mpf(v: arb) -> mpmath.mpf:
    man, exp = v.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


to_arb = np.frompyfunc(_mpf_to_arb, 1, 1)
to_mpf = np.frompyfunc(_arb_to_mpf, 1, 1)


class flint_precision:
    """Context manager: python-flint's working precision set to ``digits`` decimal digits (+ guard bits)."""

    def __init__(self, digits: int):
        self.bits = int(math.ceil(digits * math.log2(10))) + 16

    def __enter__(self):
        self.saved = flint_ctx.prec
        flint_ctx.prec = self.bits
        return self

    def __exit__(self, *exc):
        flint_ctx.prec = self.saved
