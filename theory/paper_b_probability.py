"""Paper B, Lemma 5: probability of a good initialization (seed 002 Lemma 5 and proof; spec B §2.11).

𝓘 is the event ∀i ∃j: ⟨w_j(0), x_i⟩ > 0 and a_j(0) y_i > 0. The paper's union bound is
P(𝓘) ≥ 1 − n(3/4)^p. For orthogonal data the signs of ⟨w_j, x_i⟩ are i.i.d. fair across i (w
rotation invariant) and independent of sign(a_j), so with n_± the numbers of positive/negative
labels, conditioning on the number m of positive output weights:

    P(𝓘) = Σ_{m=0}^{p} C(p, m) 2^{-p} (1 − 2^{-m})^{n_+} (1 − 2^{-(p−m)})^{n_-}.

Everything is evaluated in log space (gammaln, log1p) so that n up to 10^5 and p up to 200 cost
microseconds; `exact_good_init_mp` is the same sum in mpmath for cross-checks.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy import special, stats

from relucheck.numerics.errors import RelucheckInputError


def _check(n: int, p: int) -> None:
    if int(n) != n or n < 0 or int(p) != p or p < 1:
        raise RelucheckInputError(f"Lemma 5 needs integers n ≥ 0 and p ≥ 1, got n = {n!r}, p = {p!r}")


def union_bound(n: int, p: int) -> float:
    """The paper's lower bound 1 − n(3/4)^p (proof of Lemma 5, first bullet)."""
    _check(n, p)
    return 1.0 - n * 0.75**p


def _log1m_pow2(k: np.ndarray) -> np.ndarray:
    """log(1 − 2^{-k}) for integer k ≥ 0 (−inf at k = 0, log1p(−1), without a separate case)."""
    with np.errstate(divide="ignore"):
        return np.log1p(-np.exp2(-k))


def exact_good_init(n_pos: int, n_neg: int, p: int) -> float:
    """P(𝓘) for orthogonal data with n_+ positive and n_- negative labels (module docstring)."""
    _check(n_pos + n_neg, p)
    m = np.arange(p + 1)
    log_binom = special.gammaln(p + 1) - special.gammaln(m + 1) - special.gammaln(p - m + 1) - p * math.log(2)
    with np.errstate(invalid="ignore"):
        terms = log_binom + np.where(n_pos > 0, n_pos * _log1m_pow2(m), 0.0) + \
            np.where(n_neg > 0, n_neg * _log1m_pow2(p - m), 0.0)
    return float(np.exp(special.logsumexp(terms)))


def exact_good_init_random_labels(n: int, p: int) -> float:
    """P(𝓘) when the label signs are fair coins: average over n_+ ~ Bin(n, 1/2)."""
    _check(n, p)
    weights = stats.binom.pmf(np.arange(n + 1), n, 0.5)  # pragma: no mutate - a weight beyond n is 0, skipped below
    return float(sum(weights[kk] * exact_good_init(kk, n - kk, p) for kk in np.flatnonzero(weights)))  # 0: underflow


def exact_good_init_mp(n_pos: int, n_neg: int, p: int, dps: int = 40):
    """The same sum in mpmath at ``dps`` digits."""
    _check(n_pos + n_neg, p)
    with mpmath.workdps(dps):
        two = mpmath.mpf(2)
        # m from p down to 0 with math.comb: a range past either end raises (comb(p, −1)) instead of adding a 0 term
        return sum(math.comb(p, m) / two**p * (1 - two**-m) ** n_pos * (1 - two ** -(p - m)) ** n_neg
                   for m in range(p, -1, -1))


def clopper_pearson(k: int, N: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial confidence interval for k successes out of N."""
    if N < 1 or not 0 <= k <= N:
        raise RelucheckInputError(f"need 0 ≤ k ≤ N and N ≥ 1, got k = {k}, N = {N}")
    alpha = 1 - level
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, N - k + 1))
    high = 1.0 if k == N else float(stats.beta.ppf(1 - alpha / 2, k + 1, N - k))
    return low, high


def bullet_violations(ns, epss, fractions=(0.0, 0.5, 1.0), *, first_constant: float = 4.0):
    """Cases of the grid where a bullet of Lemma 5 fails, using the exact orthogonal formula.

    Bullet 1: p ≥ first_constant·log(n/ε) ⇒ P(𝓘) ≥ 1 − ε (the paper: 4). Bullet 2: p ≤ 3 log(n/ε) − 2 ⇒
    P(𝓘) ≤ 1 − ε. ``fractions`` are the shares n_+/n of positive labels. P(𝓘) is non-decreasing in p
    (a good initialization stays good when a neuron is added), so each bullet is decided at its
    extreme width: the smallest p of bullet 1 and the largest p of bullet 2.
    Returns (cases, violations) with cases the number of (n, ε, n_+/n, bullet) decided.
    """
    cases, bad = 0, []
    for n in ns:
        for eps in epss:
            x = math.log(n / eps)
            for frac in fractions:
                n_pos = int(round(frac * n))
                p1 = max(1, math.ceil(first_constant * x))
                p2 = math.floor(3 * x - 2)
                cases += 1
                prob1 = exact_good_init(n_pos, n - n_pos, p1)
                if prob1 < 1 - eps:
                    bad.append(("bullet 1", n, eps, frac, p1, prob1))
                if p2 >= 1:
                    cases += 1
                    prob2 = exact_good_init(n_pos, n - n_pos, p2)
                    if prob2 > 1 - eps:
                        bad.append(("bullet 2", n, eps, frac, p2, prob2))
    return cases, bad


def proof_step_violations(ns, epss):
    """The proof's step (1 − 4(ε/n)^{3 log 2})^n ≤ (1 − 4ε/n)^n on a grid: the (n, ε) where it is false.

    Spec B §5 item 11: it is false because 3 log 2 > 1 makes (ε/n)^{3 log 2} < ε/n.
    """
    bad = []
    for n in ns:
        for eps in epss:
            if 4 * eps / n >= 1:
                continue
            lhs = n * math.log1p(-4 * (eps / n) ** (3 * math.log(2)))
            rhs = n * math.log1p(-4 * eps / n)
            if lhs > rhs:
                bad.append((n, eps, math.exp(lhs), math.exp(rhs)))
    return bad
