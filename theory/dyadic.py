"""Exact arithmetic on float64 data, for `theory.extremal_vectors` (paper A Definition 2.1, spec A §5.0).

A float64 value is a dyadic rational p'·2^e; data scaled by one power of two are exact Python integers (`_to_int`),
on which every predicate of the enumeration is evaluated without a tolerance. The way back: float images of
integer rows that never overflow (`_floats`), the nearest float of an exact rational (`_nearest_float`), and its
decimal digits at any exponent (`_decimal`); and the small exact vector operations (`_dot`, `_cross`, `_sign`,
`_canonical`) with float64's unit roundoff U and smallest normal number FLOAT64_TINY.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

U = 2.0**-53  # unit roundoff of float64
FLOAT64_TINY = 2.2250738585072014e-308  # smallest normal float64: below it a float loses relative precision


def _to_int(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Exact integers N without a common factor 2 and a shift s (of either sign) with values = N · 2^{−s}.

    float64 values are dyadic rationals p'·2^e (p' odd); s = max(−e) makes every N an integer, and the
    integers are the same for data that differ by a power-of-two scale: this is the normalization that
    makes the enumeration scale-invariant (entries of 1e-170 or 1e170 give integers of ~53 bits, as 1 does).
    """
    fr = [Fraction(float(v)) for v in values.ravel()]
    s = max((f.denominator.bit_length() - 1 - _twos(f.numerator) for f in fr if f), default=0)
    scale = Fraction(2) ** s
    ints = np.array([int(f * scale) for f in fr], dtype=object)
    return ints.reshape(values.shape), s


def _twos(p: int) -> int:
    """The exponent of the largest power of two dividing the non-zero integer p."""
    return (p ^ (p - 1)).bit_length() - 1  # p ^ (p − 1) = 2^(v+1) − 1 for p = 2^v · odd (either sign)


def _floats(rows, d: int, per_row: bool = False) -> np.ndarray:
    """Float images of integer rows, all divided by one power of two 2^E (E = the largest bit length), or with
    ``per_row`` each by its own (signs of ⟨w, x⟩ do not change; rows of mixed exponents 1e-150 … 1e150 stay in range).
    Nothing overflows; each entry is correctly rounded (Python's int / int), hence exact for the ≤ 53-bit integers
    of the data, with an absolute error ≤ 2^-1075 only where it is below 2^-1022 times its row's (all rows') largest.
    """
    rows = [[int(c) for c in row] for row in rows]
    tops = [1 << max((c.bit_length() for c in row), default=0) for row in rows]  # pragma: no mutate (a zero row: 0/top)
    if not per_row:
        tops = [max(tops, default=1)] * len(rows)  # pragma: no mutate (default: no rows, nothing to divide)
    return np.array([c / top for row, top in zip(rows, tops) for c in row]).reshape(len(rows), d)


def _decimal(value: Fraction, digits: int) -> str:
    """An exact rational as a decimal with ``digits`` significant digits, at any exponent.

    Rounded exactly (half away from zero, as mpmath rounds binary values), then written by mpmath's ``nstr``:
    rounding a binary approximation instead misrounds values within its error of a half-way point.
    """
    a = abs(value)
    if a:
        # e = ⌊log10 a⌋ from the bit lengths (within one; no decimal string: ints beyond 4300 digits refuse str), then
        # corrected; at a power of ten < for ≤ is undone by the second line and > for ≥ rounds 10^(e+1) to itself
        e = math.floor((a.numerator.bit_length() - a.denominator.bit_length()) * math.log10(2))
        e -= a < Fraction(10) ** e  # pragma: no mutate
        e += a >= Fraction(10) ** (e + 1)  # pragma: no mutate
        scale = Fraction(10) ** (digits - 1 - e)
        value = _sign(value) * math.floor(a * scale + Fraction(1, 2)) / scale
    with mpmath.workdps(digits + 10):  # pragma: no mutate (value has ``digits`` significant digits: any margin works)
        return mpmath.nstr(mpmath.mpf(value.numerator) / value.denominator, digits)


def _nearest_float(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # pragma: no mutate (|value| ≥ 2^1024 here: any threshold near 0 works)


def _sign(v) -> int:
    return (v > 0) - (v < 0)


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def _cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _canonical(v) -> tuple:
    g = 0
    for c in v:
        g = math.gcd(g, int(c))
    return tuple(int(c) // g for c in v) if g else tuple(int(c) for c in v)
