"""Paper A's early-alignment field in float64: D_n(w) and G_n(w) (A eqs. 4–5, spec A §1.5).

    D_n(w) = (1/n) Σ_k 1{⟨w,x_k⟩ > 0} y_k x_k,          G_n(w) = (1/n) Σ_k y_k σ(⟨w,x_k⟩),

with σ'(0) = 0 (a tied input does not count in D_n). The exact objects built on them (the Clarke set 𝒟_n(w) and
the extremal vectors of Definition 2.1) are in `theory.extremal_vectors`.
"""
from __future__ import annotations

import numpy as np


def D_n(X, y, w) -> np.ndarray:
    """D_n(w) = (1/n) Σ_k 1{⟨w,x_k⟩>0} y_k x_k (A eq. 4 at θ = 0); w may be (d,) or a batch (p, d)."""
    X, y, w = np.asarray(X, float), np.asarray(y, float), np.asarray(w, float)
    act = (w @ X.T) > 0
    return (act * y) @ X / len(y)


def G_n(X, y, w) -> np.ndarray:
    """G_n(w) = (1/n) Σ_k y_k σ(⟨w,x_k⟩) (A eq. 5); w may be (d,) or a batch (p, d)."""
    X, y, w = np.asarray(X, float), np.asarray(y, float), np.asarray(w, float)
    return np.maximum(w @ X.T, 0) @ y / len(y)
