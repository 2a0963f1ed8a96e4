"""A flow problem: data, initialization, convention, horizon, time unit and the times to save.

The gradient flow of all three papers (A eq. 4, B eqs. 1–3, C eqs. 2–4), with σ'(0) = 0 and Filippov
sliding where a neuron is held on a kink (`numerics.flows.filippov`):

    dθ/dt = −time_factor ∇L(θ),   L = 1/(2n) Σ_i (y_i − h_θ(x_i))²,   h_θ(x) = scale Σ_j a_j σ(⟨w_j, x⟩).

The initialization is θ_j(0) = λ·(â_j, ŵ_j) with λ a decimal string ("1e-1000" works: engines that need
λ itself check that it is representable; the others use ln(1/λ) only). `Init.balanced` is C's
Assumption 3 (â_j = s_j, ŵ_j = ḡ_j, a unit direction); `Init.explicit` takes given (a0, W0) (λ = 1).

Time is either t (``time_unit="t"``) or C's accelerated time τ = t / ln(1/λ) (``"tau"``, needs λ < 1); the
horizon and ``save_at`` are in that unit. Every failure is a `RelucheckInputError` naming the argument.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import RelucheckInputError
from ..network import PAPER_A, Convention
from ..scale import InitScale

TIME_UNITS = ("tau", "t")
ORTHONORMAL_ROUNDING = 64  # X Xᵀ = I up to 64 ulps: orthonormal data as written in float64 (rotated bases included)
MAX_MAGNITUDE = 1e100  # inputs, labels and initial weights: squares and products of a few hundred stay finite


def _array(value, name: str, ndim: int) -> np.ndarray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"{name} must be an array of numbers: {exc}") from exc
    if arr.ndim != ndim or 0 in arr.shape:
        raise RelucheckInputError(f"{name} must be a non-empty {ndim}-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0].tolist()
        raise RelucheckInputError(f"{name} must be finite; non-finite value at index {bad}")
    if np.abs(arr).max() > MAX_MAGNITUDE:
        raise RelucheckInputError(f"{name} must have magnitudes ≤ {MAX_MAGNITUDE:g} (squares and sums of products must "
                                  f"stay finite in float64), got {np.abs(arr).max():.3g}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class Init:
    """θ_j(0) = λ·(â_j, ŵ_j): ``a_hat`` (m,), ``W_hat`` (m, d), ``lam`` a decimal string (`InitScale`)."""

    a_hat: np.ndarray
    W_hat: np.ndarray
    lam: str = "1"

    def __post_init__(self):
        object.__setattr__(self, "a_hat", _array(self.a_hat, "a_hat (initial output weights / λ)", 1))
        object.__setattr__(self, "W_hat", _array(self.W_hat, "W_hat (initial hidden weights / λ)", 2))
        object.__setattr__(self, "lam", str(InitScale.of(self.lam)))
        if self.W_hat.shape[0] != self.a_hat.shape[0]:
            raise RelucheckInputError(f"a_hat has {self.a_hat.shape[0]} entries but W_hat has m = {self.W_hat.shape[0]} rows")
        norms = np.hypot(self.a_hat, np.linalg.norm(self.W_hat, axis=1))
        if np.any(norms == 0):
            raise RelucheckInputError(f"neuron {int(np.flatnonzero(norms == 0)[0])} starts at θ_j = 0, which never moves: "
                                      "drop it or give it a non-zero initialization")

    @classmethod
    def balanced(cls, directions, signs, lam) -> "Init":
        """C Assumption 3: w_j(0) = λ ḡ_j, a_j(0) = s_j λ with unit directions ḡ_j and signs s_j = ±1."""
        G = _array(directions, "directions", 2)
        s = _array(signs, "signs", 1)
        if not np.all(np.isin(s, (-1.0, 1.0))):
            bad = sorted(set(s.tolist()) - {-1.0, 1.0})
            raise RelucheckInputError("signs must be ±1, got " + ", ".join(f"{v:g}" for v in bad))
        norms = np.linalg.norm(G, axis=1)
        if np.any(np.abs(norms - 1) > 1e-9):
            k = int(np.argmax(np.abs(norms - 1)))
            raise RelucheckInputError(f"directions must be unit vectors to 1e-9 (write them to 10 digits or more, or "
                                      f"normalize them); row {k} has norm {norms[k]:.12g}")
        return cls(s, G, lam)

    @classmethod
    def explicit(cls, a0, W0) -> "Init":
        """Given initial parameters (a0, W0) as float64 (λ = 1)."""
        return cls(a0, W0, "1")

    @property
    def scale(self) -> InitScale:
        return InitScale.of(self.lam)

    @property
    def m(self) -> int:
        return self.a_hat.shape[0]


@dataclass(frozen=True)
class FlowProblem:
    """What every engine solves (module docstring). ``horizon`` None: the engine runs until the flow settles,
    at most ``max_horizon``; ``save_at`` None: the trajectory is sampled at the engine's own step ends."""

    inputs: np.ndarray
    labels: np.ndarray
    init: Init
    convention: Convention = PAPER_A
    horizon: float | None = None
    time_unit: str = "tau"
    save_at: tuple | None = None
    max_horizon: float = 100.0
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "inputs", _array(self.inputs, "inputs", 2))
        object.__setattr__(self, "labels", _array(self.labels, "labels", 1))
        if not isinstance(self.init, Init):
            raise RelucheckInputError(f"init must be a numerics.flows.Init, got {type(self.init).__name__}")
        n, d = self.inputs.shape
        if self.labels.shape[0] != n:
            raise RelucheckInputError(f"labels has {self.labels.shape[0]} entries but inputs has n = {n} rows")
        if self.init.W_hat.shape[1] != d:
            raise RelucheckInputError(f"initial hidden weights have dimension {self.init.W_hat.shape[1]} but inputs have d = {d}")
        if np.any(np.linalg.norm(self.inputs, axis=1) == 0):
            raise RelucheckInputError(f"input {int(np.flatnonzero(np.linalg.norm(self.inputs, axis=1) == 0)[0])} is zero: "
                                      "a zero input is on every neuron's kink (drop it)")
        if self.time_unit not in TIME_UNITS:
            raise RelucheckInputError(f"time_unit must be one of {TIME_UNITS}, got {self.time_unit!r}")
        if self.time_unit == "tau" and not self.log_inv_lambda > 0:
            raise RelucheckInputError(f"accelerated time τ = t/ln(1/λ) needs λ < 1, got λ = {self.init.lam}; "
                                      "use time_unit='t'")
        for name in ("horizon", "max_horizon"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise RelucheckInputError(f"{name} must be a finite time > 0, got {value!r}")
        if self.save_at is not None:
            times = np.array(self.save_at, dtype=float)
            end = self.horizon if self.horizon is not None else self.max_horizon
            if times.ndim != 1 or times.size == 0 or not np.all(np.isfinite(times)):
                raise RelucheckInputError("save_at must be a non-empty list of finite times")
            if np.any(np.diff(times) <= 0) or times[0] < 0 or times[-1] > end:
                raise RelucheckInputError(f"save_at must be increasing times in [0, {end:g}] (the horizon), got "
                                          f"{times.tolist()[:6]}{'…' if times.size > 6 else ''}")
            object.__setattr__(self, "save_at", tuple(float(t) for t in times))

    @classmethod
    def from_instance(cls, instance, lam, **kwargs) -> "FlowProblem":
        """C Assumption 3 on an `Instance` (inputs, labels, directions, signs) at scale λ."""
        return cls(instance.inputs, instance.labels, Init.balanced(instance.directions, instance.signs, lam), **kwargs)

    @property
    def n(self) -> int:
        return self.inputs.shape[0]

    @property
    def d(self) -> int:
        return self.inputs.shape[1]

    @property
    def m(self) -> int:
        return self.init.m

    @functools.cached_property
    def log_inv_lambda(self) -> float:
        """ln(1/λ) (float64, finite for every decimal λ > 0)."""
        return self.init.scale.log_inv

    @property
    def time_scale(self) -> float:
        """T with t = T·(problem time): ln(1/λ) for τ, 1 for t."""
        return self.log_inv_lambda if self.time_unit == "tau" else 1.0

    @property
    def units_per_tau(self) -> float:
        """The problem's time units in one unit of τ: ln(1/λ) in units of t (1 at λ ≥ 1, where τ is not defined), 1
        in τ. What the settling and jump rules' windows and rates, stated in τ, are scaled by."""
        return self.log_inv_lambda if self.time_unit == "t" and self.log_inv_lambda > 0 else 1.0

    @property
    def end(self) -> float:
        return self.horizon if self.horizon is not None else self.max_horizon

    def gram(self) -> np.ndarray:
        return self.inputs @ self.inputs.T

    def orthonormal(self) -> bool:
        """X Xᵀ = I up to float64 rounding of the given inputs (C Assumption 1 as written in float64)."""
        if self.d < self.n:
            return False
        defect = np.abs(self.gram() - np.eye(self.n)).max()
        return bool(defect <= ORTHONORMAL_ROUNDING * np.finfo(float).eps)

    def describe(self) -> dict:
        return {"n": self.n, "d": self.d, "m": self.m, "lambda": self.init.lam, "log_inv_lambda": self.log_inv_lambda,
                "convention": self.convention.name, "time_unit": self.time_unit, "horizon": self.horizon,
                "max_horizon": self.max_horizon if self.horizon is None else None}
