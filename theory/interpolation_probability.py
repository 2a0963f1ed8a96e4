"""Proposition 2(i) of paper C: the exact probability that Algorithm 1 interpolates, and the union lower bound.

Under Assumption 3 with orthonormal inputs the mask entries M_ij = 1{⟨ḡ_j, x_i⟩ > 0, s_j y_i > 0} are
built from fair activation signs and fair output signs (spec C §1.5, §1.7). Conditioning on the number k
of positive output signs, a positive-label row is zero with probability 2^{−k} and a negative-label row
with probability 2^{−(m−k)}, independently across rows, so (spec C §3, Proposition 2, "exact facts")

    P(every row of M non-zero) = Σ_{k=0}^m C(m,k) 2^{−m} (1 − 2^{−k})^{n_+} (1 − 2^{−(m−k)})^{n_−},

and Algorithm 1 interpolates exactly when every row is non-zero (spec C §2.2). Values are exact rationals.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

from relucheck.numerics.errors import RelucheckInputError


def _check(n_plus: int, n_minus: int, m: int) -> None:
    for name, v in (("n_+", n_plus), ("n_-", n_minus)):
        if int(v) != v or v < 0:
            raise RelucheckInputError(f"{name} must be a non-negative integer, got {v!r}")
    if int(m) != m or m < 1:
        raise RelucheckInputError(f"width m must be a positive integer, got {m!r}")
    if n_plus + n_minus < 1:
        raise RelucheckInputError("need at least one data point (n_+ + n_- ≥ 1)")


def all_rows_nonzero_probability(n_plus: int, n_minus: int, m: int) -> Fraction:
    """P(every row of the mask is non-zero) = P(Algorithm 1 interpolates), exactly (Proposition 2(i))."""
    _check(n_plus, n_minus, m)
    half = Fraction(1, 2)
    # k = m, …, 0 (a sum of Fractions, m ≥ 1 terms); descending, so a bound past 0 fails in comb (k < 0)
    # instead of adding a zero term as comb(m, m + 1) = 0 would
    return sum(comb(m, k) * half**m * (1 - half**k) ** n_plus * (1 - half**(m - k)) ** n_minus
               for k in range(m, -1, -1))


def row_union_lower_bound(n_plus: int, n_minus: int, m: int, *, columns: bool = False) -> Fraction:
    """Union bounds of Proposition 2(i)'s proof: 1 − n(3/4)^m for the rows (DPB25 Lemma 5); with
    ``columns`` also − (m + m(m−1)/4)·2^{−min(n_+, n_−)} for zero or equal columns (spec C §3, constants G)."""
    _check(n_plus, n_minus, m)
    bound = 1 - (n_plus + n_minus) * Fraction(3, 4) ** m
    if columns:
        bound -= (m + Fraction(m * (m - 1), 4)) * Fraction(1, 2) ** min(n_plus, n_minus)
    return bound
