"""Seeded data generators for the three papers.

Every generator takes ``seed`` (an int or a numpy Generator) and returns float64 arrays with the
data as rows: X of shape (n, d), y of shape (n,).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from .errors import RelucheckInputError


def rng_of(seed) -> np.random.Generator:
    """numpy Generator from an int seed (or pass a Generator through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise RelucheckInputError("a seed is required: every random draw in relucheck is seeded")
    return np.random.default_rng(seed)


def _check_sizes(n: int, d: int) -> None:
    if int(n) != n or n < 1:
        raise RelucheckInputError(f"number of data n must be a positive integer, got {n!r}")
    if int(d) != d or d < 1:
        raise RelucheckInputError(f"dimension d must be a positive integer, got {d!r}")


def orthonormal_inputs(n: int, d: int | None = None, seed=None, *, rotate: bool = True) -> np.ndarray:
    """n orthonormal inputs in ℝ^d (C Assumption 1; B's orthonormal case): e_1..e_n, or a random rotation of them."""
    d = n if d is None else d
    _check_sizes(n, d)
    if d < n:
        raise RelucheckInputError(f"n = {n} orthonormal inputs need d ≥ n, got d = {d}")
    if not rotate:
        return np.eye(n, d)
    Q, R = np.linalg.qr(rng_of(seed).standard_normal((d, d)))
    Q = Q * np.sign(np.diag(R))  # Haar-distributed rotation
    return Q[:n].copy()


def gaussian_inputs(n: int, d: int, seed) -> np.ndarray:
    """x_i ~ N(0, I_d/d) i.i.d.: weakly correlated data, ⟨x_i,x_k⟩ = O(1/√d) (B Lemma 3)."""
    _check_sizes(n, d)
    return rng_of(seed).standard_normal((n, d)) / math.sqrt(d)


def random_directions(m: int, d: int, seed) -> np.ndarray:
    """m directions uniform on the sphere S^{d−1} (C Assumption 3)."""
    _check_sizes(m, d)
    G = rng_of(seed).standard_normal((m, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def random_signs(m: int, seed) -> np.ndarray:
    """m fair signs ±1 (C Assumption 3, B's Rademacher output signs)."""
    return rng_of(seed).choice(np.array([-1.0, 1.0]), size=m)


def margin_second_moment(d: int, c0: float) -> float:
    """q = E[t² | |t| ≥ c0] for t the first coordinate of a uniform point of S^{d−1} (spec A §5.0).

    t has density ∝ (1 − t²)^{(d−3)/2} on [−1, 1].
    """
    if d < 2:
        raise RelucheckInputError(f"the margin sampler needs d ≥ 2, got d = {d}")

    def dens(t):
        return (1 - t * t) ** ((d - 3) / 2)

    num = integrate.quad(lambda t: t * t * dens(t), c0, 1)[0]
    den = integrate.quad(dens, c0, 1)[0]
    return num / den


def margin_inputs(n: int, d: int, seed, *, c0: float = 0.3, whiten: bool = True) -> np.ndarray:
    """Sampler S_A1 of spec A §5.0: z ~ N(0, I_d) kept if |z_1| ≥ c0 ‖z‖ (margin around β* = e_1).

    With ``whiten`` the data are x = A z with A chosen so that E[x xᵀ] = I_d exactly (A's Assumption
    4.1, point 4, candidate (a)); the margin survives whitening when q > 1/d.
    """
    _check_sizes(n, d)
    if not 0 < c0 < 1:
        raise RelucheckInputError(f"margin c0 must lie in (0, 1), got {c0}")
    rng = rng_of(seed)
    rows = []
    while sum(len(r) for r in rows) < n:
        Z = rng.standard_normal((2 * n + 16, d))
        keep = np.abs(Z[:, 0]) >= c0 * np.linalg.norm(Z, axis=1)
        rows.append(Z[keep])
    Z = np.concatenate(rows)[:n]
    if not whiten:
        return Z
    q = margin_second_moment(d, c0)
    scale_1 = (d * q) ** -0.5
    scale_perp = (d * (1 - q) / (d - 1)) ** -0.5
    X = Z * scale_perp
    X[:, 0] = Z[:, 0] * scale_1
    return X


def linear_teacher(X: np.ndarray, seed, *, beta=None, noise: float = 0.0) -> np.ndarray:
    """y = ⟨β*, x⟩ + σ ξ, ξ ~ N(0,1) (A eq. 7); β* = e_1 by default."""
    X = np.asarray(X, dtype=float)
    beta = np.eye(X.shape[1])[0] if beta is None else np.asarray(beta, dtype=float)
    if noise < 0:
        raise RelucheckInputError(f"noise level σ must be ≥ 0, got {noise}")
    return X @ beta + noise * rng_of(seed).standard_normal(X.shape[0])


def relu_teacher(X: np.ndarray, seed, *, k: int = 1, noise: float = 0.0):
    """y = Σ_{l ≤ k} b_l σ(⟨v_l, x⟩) + σ ξ with unit v_l uniform on the sphere and b_l = ±1.

    Returns (y, V, b): labels, teacher neurons (k, d) and output weights (k,). k = 1 is the one-ReLU
    teacher of spec A (S5).
    """
    X = np.asarray(X, dtype=float)
    rng = rng_of(seed)
    V = random_directions(k, X.shape[1], rng)
    b = np.ones(k) if k == 1 else random_signs(k, rng)
    y = np.maximum(X @ V.T, 0) @ b + noise * rng.standard_normal(X.shape[0])
    return y, V, b
