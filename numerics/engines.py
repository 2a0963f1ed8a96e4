"""Flow engines for orthonormal instances: a common result (`FlowRun`), a registry, jump detection.

An engine is a function ``engine(instance, lam, **options) -> FlowRun`` registered under a name
(``@register_engine("uw-float64")``); `relucheck flow --engine NAME` selects it.

Jump-detection rule (paper C, used by every engine): a neuron's *activation time* is the first
accelerated time τ at which a_j(τ)² reaches half of its value at the end of the run; only neurons
whose final a_j² is at least ``active_fraction`` of the largest final a_j² count as activated.
Jumps are the activation times in increasing order. The data a jumped neuron *fits* are the points
i with a_j σ(⟨w_j, x_i⟩) ≥ y_i/2 in the label's direction at the end of the run. Plateau losses are
the losses at the midpoints between consecutive jump times (before the first: at τ_1/2; after the
last: at the end of the run).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .errors import RelucheckInputError

ENGINES: dict[str, Callable[..., "FlowRun"]] = {}


def register_engine(name: str):
    def decorate(fn):
        if name in ENGINES:
            raise ValueError(f"engine {name!r} registered twice")
        ENGINES[name] = fn
        return fn

    return decorate


def load_engines() -> dict:
    """Import every module of `numerics` so that their engines register; return the registry."""
    import importlib
    import pkgutil

    from relucheck import numerics

    for info in pkgutil.iter_modules(numerics.__path__):
        importlib.import_module(f"relucheck.numerics.{info.name}")
    return ENGINES


def get_engine(name: str):
    load_engines()
    if name not in ENGINES:
        raise RelucheckInputError(f"unknown engine {name!r}; available: {sorted(ENGINES)}")
    return ENGINES[name]


@dataclass
class Jump:
    tau: float
    neuron: int
    fitted: list[int]


@dataclass
class FlowRun:
    """What a flow engine returns on an orthonormal instance (accelerated time τ = t / ln(1/λ))."""

    engine: str
    lam: str
    log_inv_lambda: float
    taus: np.ndarray  # (T,) accelerated times of the stored samples
    losses: np.ndarray  # (T,)
    rho: np.ndarray  # (T, m): a_j(τ)² (= ‖w_j(τ)‖² under balancedness)
    a: np.ndarray  # (m,) final output weights (float64; may underflow to 0 for unfitted neurons)
    W: np.ndarray  # (m, d) final hidden weights
    jumps: list[Jump]
    loss_plateaus: list[float]
    interpolates: bool
    squared_norm: float
    status: str
    message: str
    precision: str = "float64"
    tolerances: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "engine": self.engine, "lambda": self.lam, "log_inv_lambda": self.log_inv_lambda,
            "jumps": [{"tau": j.tau, "neuron": j.neuron, "fitted": j.fitted} for j in self.jumps],
            "interpolates": self.interpolates, "squared_norm": self.squared_norm,
            "loss_plateaus": self.loss_plateaus, "final_loss": float(self.losses[-1]) if len(self.losses) else None,
            "status": self.status, "message": self.message, "precision": self.precision,
            "tolerances": self.tolerances, "stats": self.stats,
        }


def activation_times(taus, rho, *, active_fraction: float = 1e-3) -> list[tuple[float, int]]:
    """(τ_j, j) sorted by τ: first τ with ρ_j(τ) ≥ ρ_j(end)/2, for neurons with a non-negligible final ρ_j.

    The crossing is located by linear interpolation in ln ρ between the two samples around it.
    """
    taus = np.asarray(taus, dtype=float)
    rho = np.asarray(rho, dtype=float)
    if rho.ndim != 2 or rho.shape[0] != taus.shape[0]:
        raise RelucheckInputError(f"rho must have shape (T, m) with T = {taus.shape[0]}, got {rho.shape}")
    final = rho[-1]
    if not np.any(final > 0):
        return []
    out = []
    for j in np.flatnonzero(final >= active_fraction * final.max()):
        half = final[j] / 2
        k = int(np.argmax(rho[:, j] >= half))
        if k == 0:
            out.append((float(taus[0]), int(j)))
            continue
        lo, hi = rho[k - 1, j], rho[k, j]
        if lo > 0 and hi > 0:
            frac = (np.log(half) - np.log(lo)) / (np.log(hi) - np.log(lo))
        else:
            frac = (half - lo) / (hi - lo)
        out.append((float(taus[k - 1] + frac * (taus[k] - taus[k - 1])), int(j)))
    return sorted(out)


def fitted_points(X, y, a, W, neuron: int) -> list[int]:
    """Data i with a_j σ(⟨w_j, x_i⟩) ≥ y_i/2 in the label's direction (0-based indices)."""
    contrib = a[neuron] * np.maximum(X @ W[neuron], 0.0)
    return [int(i) for i in np.flatnonzero(contrib * np.sign(y) >= np.abs(y) / 2)]


def plateau_losses(taus, losses, jump_taus) -> list[float]:
    """Loss at the midpoints between consecutive jumps (τ_1/2 first, the end of the run last)."""
    taus = np.asarray(taus, dtype=float)
    losses = np.asarray(losses, dtype=float)
    marks = [0.0] + list(jump_taus)
    points = [(marks[k] + marks[k + 1]) / 2 for k in range(len(marks) - 1)]
    out = [float(np.interp(p, taus, losses)) for p in points]
    out.append(float(losses[-1]))
    return out
