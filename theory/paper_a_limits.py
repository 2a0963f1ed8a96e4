"""Closed forms of paper A's infinite-data objects and of the two-piece OLS limit (Theorem 4.1).

* `D_inf_linear`: D_∞(w) = E[1{⟨w,x⟩>0} y x] = ½ Σ β* for every w, for symmetric continuous x and the
  linear teacher y = ⟨β*,x⟩ + η (spec A §3.4, S4; the proof of Lemma F.2). Symbolic proof in
  `D_inf_linear_proof`.
* `G_inf_relu`, `D_inf_relu`: one-ReLU teacher y = σ(⟨β,x⟩), x ~ N(0, I_d) (spec S5):
  G_∞(w) = ‖w‖‖β‖ (sin φ + (π − φ) cos φ)/(2π), D_∞(w) = ((π − φ) β + ‖β‖ sin φ w̄)/(2π), φ = ∠(w, β).
* `two_piece_ols`: β̂_± = OLS on S_± = {k : ±⟨β*,x_k⟩ > 0} (v1 row convention, spec §3.4), the limit
  function h_∞(x) = σ(⟨β̂_+,x⟩) − σ(⟨−β̂_−,x⟩), its training loss L_2OLS ≤ L_OLS, and excess risks;
  `TwoPieceOLS.split_violations`: the data where sign⟨β̂_±,x_k⟩ ≠ sign⟨β*,x_k⟩, the hypothesis under which
  the estimator is a stationary point (docs/paper_a.md, finding 7).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import sympy as sp

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError


def D_inf_linear(Sigma, beta) -> np.ndarray:
    """D_∞(w) = ½ Σ β* (constant in w) for symmetric continuous x and centered independent noise."""
    return 0.5 * np.asarray(Sigma, float) @ np.asarray(beta, float)


def D_inf_linear_proof() -> sp.Expr:
    """SymPy, standard Gaussian in d = 2: E[1{⟨w,x⟩>0} x xᵀ] − ½ I in polar coordinates, for symbolic w.

    Returns the simplified difference matrix (zero when the claim holds), integrating over the
    half-plane {⟨w,x⟩ > 0} = {φ ∈ (α − π/2, α + π/2)} with w = (cos α, sin α). SymPy needs no
    assumption on the symbols (r and φ are integration variables, the φ-integral is entire in α).
    """
    r, phi, alpha = sp.symbols("r phi alpha")  # pragma: no mutate (names show only in a failed proof)
    radial = sp.integrate(r**3 * sp.exp(-r**2 / 2), (r, 0, sp.oo)) / (2 * sp.pi)  # E over r of r², density r e^{−r²/2}/(2π)
    u = sp.Matrix([sp.cos(phi), sp.sin(phi)])
    M = (u * u.T).applyfunc(lambda e: sp.integrate(e, (phi, alpha - sp.pi / 2, alpha + sp.pi / 2)))
    return sp.simplify(radial * M - sp.eye(2) / 2)


def _angle(w, beta) -> float:
    """φ = ∠(w, β) for float arrays w, β."""
    c = float(np.dot(w, beta) / (np.linalg.norm(w) * np.linalg.norm(beta)))
    return float(np.arccos(np.clip(c, -1.0, 1.0)))


def G_inf_relu(w, beta) -> float:
    """G_∞(w) = E[σ(⟨β,x⟩) σ(⟨w,x⟩)] for x ~ N(0, I_d) (arc-cosine kernel of degree 1)."""
    w, beta = np.asarray(w, float), np.asarray(beta, float)  # integers would overflow ⟨w, β⟩ in int64
    phi = _angle(w, beta)
    return float(np.linalg.norm(w) * np.linalg.norm(beta) * (np.sin(phi) + (np.pi - phi) * np.cos(phi)) / (2 * np.pi))


def D_inf_relu(w, beta) -> np.ndarray:
    """D_∞(w) = ∇G_∞(w) = E[1{⟨w,x⟩>0} σ(⟨β,x⟩) x] = ((π − φ) β + ‖β‖ sin φ w̄)/(2π)."""
    w, beta = np.asarray(w, float), np.asarray(beta, float)
    phi = _angle(w, beta)
    return ((np.pi - phi) * beta + np.linalg.norm(beta) * np.sin(phi) * w / np.linalg.norm(w)) / (2 * np.pi)


def G_inf_relu_angle_derivative() -> tuple[sp.Expr, sp.Expr]:
    """(G(φ), dG/dφ) for unit w, β: dG/dφ = −(π − φ) sin φ/(2π), zero on [0, π] only at φ ∈ {0, π} (S5)."""
    phi = sp.symbols("phi", real=True)
    G = (sp.sin(phi) + (sp.pi - phi) * sp.cos(phi)) / (2 * sp.pi)
    return G, sp.simplify(sp.diff(G))  # φ is G's only symbol


@dataclass(frozen=True)
class TwoPieceOLS:
    """β̂_± (OLS on S_±), the global OLS β̂, and the training losses L = 1/(2n) Σ r² of each."""

    beta_plus: np.ndarray
    beta_minus: np.ndarray
    beta_ols: np.ndarray
    plus: np.ndarray  # boolean mask of S_+
    loss_2ols: float
    loss_ols: float

    def predict(self, X) -> np.ndarray:
        """h_∞(x) = σ(⟨β̂_+,x⟩) − σ(⟨−β̂_−,x⟩) (A Theorem 4.1)."""
        X = np.asarray(X, float)
        return np.maximum(X @ self.beta_plus, 0) - np.maximum(-(X @ self.beta_minus), 0)

    def split_violations(self, X) -> np.ndarray:
        """Indices k of the training inputs X (rows in the order of `plus`) where the split is not
        self-consistent: sign⟨β̂_+, x_k⟩ or sign⟨β̂_−, x_k⟩ differs from the side of k (+1 on S_+, −1 on S_−).

        Empty means both β̂_± lie in the open activation cone of β* on the data: the network with
        Σ_{N_+} a_j w_j = β̂_+ (w_j ∥ β̂_+) and Σ_{N_−} a_j w_j = β̂_− (w_j ∥ −β̂_−) is then active exactly on
        S_+ resp. S_−, computes h_∞ = ⟨β̂_±, x⟩ on S_±, and the normal equations make ∇L = 0 (spec H7).
        A violating k generically breaks stationarity; the OLS fits do not keep β̂_± inside the cone at
        small n (paper A's Theorem 4.1 holds with high probability for large n only).
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] != len(self.plus) or X.shape[1] != len(self.beta_plus):
            raise RelucheckInputError(f"X must be the {len(self.plus)}×{len(self.beta_plus)} training inputs, "
                                      f"got shape {X.shape}")
        side = np.where(self.plus, 1.0, -1.0)
        bad = (np.sign(X @ self.beta_plus) != side) | (np.sign(X @ self.beta_minus) != side)
        return np.flatnonzero(bad)

    def predict_by_side(self, X, beta_star) -> np.ndarray:
        """⟨β̂_+,x⟩ if ⟨β*,x⟩ > 0 else ⟨β̂_−,x⟩: equals `predict` on the support under the margin."""
        X = np.asarray(X, float)
        return np.where(X @ np.asarray(beta_star) > 0, X @ self.beta_plus, X @ self.beta_minus)


def _lstsq(X, y, what: str) -> np.ndarray:
    if np.linalg.matrix_rank(X) < X.shape[1]:  # also when X has fewer rows than columns
        raise HypothesisViolation("Assumption 4.1 (X_± of full column rank, so that β̂_± is unique)",
                                  f"{what} has {X.shape[0]} rows of rank {np.linalg.matrix_rank(X)} < d = {X.shape[1]}")
    return scipy.linalg.lstsq(X, y)[0]


def two_piece_ols(X, y, beta_star=None) -> TwoPieceOLS:
    """β̂_± = (X_±ᵀ X_±)⁻¹ X_±ᵀ y_± on S_± = {k : ±⟨β*,x_k⟩ > 0} (β* = e_1 by default)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise RelucheckInputError(f"X must be n×d and y of length n, got {X.shape} and {y.shape}")
    beta_star = np.eye(X.shape[1])[0] if beta_star is None else np.asarray(beta_star)
    s = X @ beta_star
    if np.any(s == 0):
        raise HypothesisViolation("Assumption 4.1 (continuous law: no x_k orthogonal to β*)", "some ⟨β*, x_k⟩ = 0")
    plus = s > 0  # pragma: no mutate (s = 0 raised above: > and ≥ agree)
    bp = _lstsq(X[plus], y[plus], "X_+")
    bm = _lstsq(X[~plus], y[~plus], "X_−")
    bo = scipy.linalg.lstsq(X, y)[0]  # X contains X_+, so it has full column rank too
    n = len(y)
    r2 = np.where(plus, y - X @ bp, y - X @ bm)
    ro = y - X @ bo
    return TwoPieceOLS(bp, bm, bo, plus, float(r2 @ r2 / (2 * n)), float(ro @ ro / (2 * n)))


def ols_excess_risk_gaussian(n: int, d: int, sigma: float) -> float:
    """E‖β̂_OLS − β*‖² = σ² d/(n − d − 1) for x ~ N(0, I_d) (inverse-Wishart mean); the excess risk
    E_x[(⟨β̂ − β*, x⟩)²] in the 1/2-free convention."""
    if n <= d + 1:
        raise RelucheckInputError(f"the OLS excess risk needs n > d + 1, got n = {n}, d = {d}")
    return sigma**2 * d / (n - d - 1)


def two_piece_excess_risk_prediction(n: int, d: int, sigma: float) -> float:
    """Predicted excess risk of the two-piece estimator on S_G(d, σ) data (spec §6 item 5, N16).

    Each half holds n_± ~ Bin(n, ½) points with E[x xᵀ | ±x_1 > 0] = I_d, so to first order each β̂_±
    is an OLS on n_± isotropic points: risk ½ Σ_± σ² d/(n_± − d − 1), averaged over n_+ ~ Bin(n, ½).
    The half-Gaussian design differs from a Gaussian one by O(d/n) relative corrections.
    """
    from scipy.stats import binom

    k = np.arange(d + 2, n - d - 1)
    p = binom.pmf(k, n, 0.5)
    risk = 0.5 * sigma**2 * d * (1 / (k - d - 1) + 1 / (n - k - d - 1))
    return float((p * risk).sum() / p.sum())
