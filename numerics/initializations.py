"""Initializations: parameters (a, W) from an instance or a width, at scale λ.

Each returns ``(a, W)`` with a of shape (m,) and W of shape (m, d).
"""
from __future__ import annotations

import math

import numpy as np

from .datasets import random_directions, random_signs, rng_of
from .errors import HypothesisViolation, RelucheckInputError
from .instances import Instance, require_orthonormal
from .scale import InitScale


def balanced(instance: Instance, lam, *, backend: str = "float64"):
    """C Assumption 3: w_j(0) = λ ḡ_j, a_j(0) = s_j λ, so a_j² = ‖w_j‖² (balanced).

    ``lam`` is a float or an `InitScale`; with backend ``"mpmath"`` the arrays hold mpmath numbers
    at the current precision (for λ below float64's range), otherwise float64 and λ ≥ 1e-150.
    """
    scale = InitScale.of(lam)
    if backend == "mpmath":
        import mpmath

        lam_mp = scale.mpf()
        W = np.array([[lam_mp * mpmath.mpf(float(g)) for g in row] for row in instance.directions], dtype=object)
        a = np.array([lam_mp * int(s) for s in instance.signs], dtype=object)
        return a, W
    if backend != "float64":
        raise RelucheckInputError(f"unknown backend {backend!r}; expected 'float64' or 'mpmath'")
    lam_f = scale.as_float()
    return instance.signs * lam_f, instance.directions * lam_f


def dominated(m: int, d: int, lam: float, seed, *, width_normalized: bool = True):
    """A eqs. (2)–(3) as sampled by I8 (spec A §3.3, §5.0): strict domination |a_j| ≥ ‖w_j‖.

    a_j(0) = ±λ/√m (fair signs), w_j(0) = λ/√m · λ u_j with u_j uniform in the unit ball B_d, so that
    ‖w_j(0)‖ ≤ λ |a_j(0)|. ``width_normalized=False`` drops the 1/√m.
    """
    lam = InitScale.of(lam).as_float(0.0)
    rng = rng_of(seed)
    c = lam / math.sqrt(m) if width_normalized else lam
    signs = random_signs(m, rng)
    radii = rng.random(m) ** (1.0 / d)
    U = random_directions(m, d, rng) * radii[:, None]
    return signs * c, (c * lam) * U


def paper_b_experiment(m: int, d: int, seed):
    """B Appendix B initialization: w_j ~ N(0, I_d/d), sign(a_j) fair, |a_j| − ‖w_j‖ ~ Exp(1) (strict Assumption 1)."""
    rng = rng_of(seed)
    W = rng.standard_normal((m, d)) / math.sqrt(d)
    a = random_signs(m, rng) * (np.linalg.norm(W, axis=1) + rng.exponential(1.0, m))
    return a, W


def gaussian(m: int, d: int, lam: float, seed):
    """All entries i.i.d. N(0, λ²/m) (IG of spec A §5.0)."""
    lam = InitScale.of(lam).as_float(0.0)
    rng = rng_of(seed)
    sd = lam / math.sqrt(m)
    return sd * rng.standard_normal(m), sd * rng.standard_normal((m, d))


def group(X: np.ndarray, y: np.ndarray, p: int, lam: float, *, alignment: float = 1.0, seed=None):
    """B eq. (9) group initialization on orthonormal data, n = p·k.

    Neuron j is positive exactly on group G_j = {j k, …, (j+1) k − 1} (0-based), non-positive on the
    others, and balanced: a_j = s_j ‖w_j‖ with s_j the common sign of the labels of G_j. Its
    component on span(G_j) has cosine ``alignment`` (ρ_0 of spec B §2.13) with ŷ_j = Σ_{G_j} |y_i| x_i/‖y_{G_j}‖;
    ``alignment = 1`` (the authors' code) makes it exactly ŷ_j. ‖w_j(0)‖ = λ.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    require_orthonormal(X)
    n = X.shape[0]
    if p < 1 or n % p:
        raise RelucheckInputError(f"group initialization needs n = p·k; n = {n} is not a multiple of p = {p}")
    if not 0 < alignment <= 1:
        raise RelucheckInputError(f"alignment ρ_0 must lie in (0, 1], got {alignment}")
    k = n // p
    rng = rng_of(seed) if alignment < 1 else None
    lam = InitScale.of(lam).as_float(0.0)
    a = np.empty(p)
    W = np.empty((p, X.shape[1]))
    for j in range(p):
        idx = np.arange(j * k, (j + 1) * k)
        signs = np.sign(y[idx])
        if np.any(signs == 0) or np.any(signs != signs[0]):
            raise HypothesisViolation("B eq. (9) (labels of a group share one sign)", f"group {j} has labels {y[idx]}")
        coef = np.abs(y[idx]) / np.linalg.norm(y[idx])
        if alignment < 1:
            # a positive perturbation orthogonal to ŷ_j inside the positive orthant of the group
            noise = rng.random(k) + 0.1
            noise -= (noise @ coef) * coef
            noise /= np.linalg.norm(noise)
            coef = alignment * coef + math.sqrt(1 - alignment**2) * noise
            if np.any(coef <= 0):
                raise RelucheckInputError(f"alignment {alignment} too small for a positive group direction")
        others = np.ones(n, dtype=bool)
        others[idx] = False
        comp = np.zeros(n)
        comp[idx] = coef
        comp[others] = 0.0  # ⟨w_j, x_i⟩ = 0 ≤ 0 off the group: frozen by σ'(0) = 0
        W[j] = lam * (comp @ X)
        a[j] = signs[0] * lam
    return a, W


def random_instance_directions(m: int, d: int, seed):
    """(directions, signs) of C Assumption 3 from one seed."""
    rng = rng_of(seed)
    return random_directions(m, d, rng), random_signs(m, rng)
