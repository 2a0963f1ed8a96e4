"""What every engine returns: a status with its message, events, jumps and plateaus, the trajectory, statistics.
(`Event` and `EventKind` are defined in `numerics.flows.events`, with the root finder the jump rule uses; this
module imports that root finder, never the other way round.)

Modelled on scipy's `solve_ivp` (one result object, a status and a message) and diffrax's `RESULTS` (an enum
whose members carry their message): numerical outcomes are values, not exceptions.

Jumps and plateaus are derived once, here, from the trajectory, by one rule for every engine (paper C's
incremental learning, C Theorem 2; `jumps_of`):

* a neuron *jumps* when its squared norm ‖θ_j‖² = a_j² + ‖w_j‖² first reaches half its value *at rest*, provided
  it grew there: it starts below that level and ends at a non-negligible size, ‖θ_j(end)‖² ≥ ``ACTIVE_FRACTION``
  of the largest final ‖θ_k‖² and of the smallest non-zero |y_i|. A run in which no neuron grows has no jump
  (never a jump at τ = 0, nor one of a neuron still far below the labels when the run stops). "At rest" is where
  the neuron, once that large, first rests (|d ln‖θ_j‖/dτ| ≤ REST_RATE over REST_WINDOW, `rest.first_rest`: a later
  jump of other neurons that moves it again does not move its jump), else the run's end: where the run stopped
  before the flow was at rest, the float64 engine's check run goes on and the jump's bound covers the difference
  (`numerics.flows.vouch.extends`).
* the crossing is solved on the engine's interpolant of ln‖θ_j‖ inside the step (`NormTrack`);
* the data a jumped neuron *fits* are the i with a_j σ(⟨w_j, x_i⟩) ≥ y_i/2 in the label's direction at the end;
* plateau losses are the losses at the midpoints between consecutive jumps (τ_1/2 first, the end of the run
  last), interpolated between step ends (on a plateau the loss is flat to within the step's change).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np

from . import rest
from .norm_track import NormTrack

ACTIVE_FRACTION = 1e-3
HALF = 0.5 * math.log(2.0)  # ln‖θ‖ drops by ln(2)/2 when ‖θ‖² halves


class Status(enum.Enum):
    """How a run ended; the value is the message (`FlowResult.message` adds where and why)."""

    SUCCESS = "reached the horizon"
    SETTLED = "stopped early: the flow settled (no neuron can still grow before the maximal horizon)"
    UNSETTLED = "reached the maximal horizon without settling (no horizon was given)"
    EVENT_LIMIT = "stopped after the maximal number of events"
    STEP_LIMIT = "stopped after the maximal number of steps"
    CHATTER = "stopped: events of zero length repeat (a sliding mode the Filippov rule cannot resolve)"
    PRECISION = "a sign decision depended on a quantity below the working precision"
    SOLVER_FAILED = "the integrator failed"
    GUARD_FAILED = "the precision guard failed: a rerun at more digits disagrees"
    TOLERANCE = "the rerun at a tighter tolerance does not vouch for the answer"  # numerics.flows.vouch
    BUDGET = "stopped: the time budget was exceeded"

    @property
    def success(self) -> bool:
        return self in (Status.SUCCESS, Status.SETTLED)


@dataclass(frozen=True)
class Jump:
    tau: float
    neuron: int
    fitted: tuple
    exact: object = field(default=None, compare=False, repr=False)  # the time in the engine's arithmetic (mpmath)

    def to_json(self) -> dict:
        return {"tau": self.tau, "neuron": self.neuron, "fitted": list(self.fitted)}


@dataclass
class Trajectory:
    """Samples at the requested times (or at the engine's step ends): time, loss, ln‖θ_j‖, optionally (a, W)."""

    tau: np.ndarray  # (T,) in the problem's time unit
    loss: np.ndarray  # (T,)
    log_norms: np.ndarray  # (T, m): ln‖θ_j‖
    a: np.ndarray | None = None  # (T, m) float64 (tiny neurons underflow to 0)
    W: np.ndarray | None = None  # (T, m, d)

    def to_json(self, params: bool = False) -> dict:
        out = {"tau": self.tau.tolist(), "loss": self.loss.tolist()}
        if params and self.a is not None:
            out["a"], out["W"] = self.a.tolist(), self.W.tolist()
        return out


@dataclass
class FlowResult:
    """The outcome of `numerics.flows.solve` (module docstring)."""

    status: Status
    message: str
    engine: str
    events: list
    jumps: list
    plateaus: list
    trajectory: Trajectory
    a: np.ndarray  # (m,) final output weights, float64
    W: np.ndarray  # (m, d) final hidden weights, float64
    final_log_norms: np.ndarray  # (m,) ln‖θ_j(end)‖ (finite even where a, W underflow)
    problem: dict
    interpolates: bool = False  # every |r_i| ≤ |y_i|/2 at the end and every datum fitted by a jump
    squared_norm: float = 0.0  # Σ_j ‖θ_j(end)‖² = Σ_j (a_j² + ‖w_j‖²)
    precision: str = "float64"
    tolerances: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)  # error bounds of the answers (numerics.flows.vouch)
    stats: dict = field(default_factory=dict)
    track: NormTrack | None = field(default=None, repr=False)

    @property
    def success(self) -> bool:
        return self.status.success

    @property
    def final_loss(self) -> float:
        return float(self.stats["final_loss"] if "final_loss" in self.stats else self.trajectory.loss[-1])

    @property
    def log_inv_lambda(self) -> float:
        return self.problem["log_inv_lambda"]

    @property
    def end(self) -> float:
        return float(self.stats["end"])

    def to_json(self, params: bool = False) -> dict:
        return {"status": self.status.name.lower(), "message": self.message, "engine": self.engine,
                "precision": self.precision, "problem": self.problem,
                "events": [e.to_json() for e in self.events], "jumps": [j.to_json() for j in self.jumps],
                "plateaus": self.plateaus, "final_loss": self.final_loss, "interpolates": self.interpolates,
                "squared_norm": self.squared_norm,
                "trajectory": self.trajectory.to_json(params), "tolerances": self.tolerances, "errors": self.errors,
                "stats": self.stats}


def jumps_of(track: NormTrack, X, y, a, W, *, active_fraction: float = ACTIVE_FRACTION, per_tau: float = 1.0) -> list[Jump]:
    """The jump rule of the module docstring, on a run's `NormTrack` and final float64 parameters (a, W); ``per_tau``:
    the track's time units per unit of τ (ln(1/λ) for a run in units of t)."""
    return [Jump(float(tau), j, tuple(fitted_points(X, y, a, W, j)), exact=tau)
            for tau, j in jump_times(track, y, active_fraction=active_fraction, per_tau=per_tau)]


def jump_times(track: NormTrack, y, *, active_fraction: float = ACTIVE_FRACTION, per_tau: float = 1.0) -> list[tuple]:
    """(τ, neuron) of every jump by the rule of the module docstring, on a run's `NormTrack`, in time order."""
    final = np.array([float(v) for v in track.values[-1]])
    start = np.array([float(v) for v in track.values[0]])
    if final.size == 0 or not np.isfinite(final.max()):
        return []
    # grown: ‖θ_j‖² ≥ active_fraction of the largest and of the smallest non-zero label (a run stopped before any neuron
    # grew has no jump: red team, session 28, a "jump" of a neuron at ‖θ‖² = 1.3e-10 at λ = 1e-10, τ = 2.23, bound
    # 3.2e-10; the smallest label, not the largest, so that a neuron fitting labels of 3e-4 next to one of 1 still jumps)
    nonzero = np.abs(np.asarray(y, dtype=float))[np.asarray(y) != 0]
    label_scale = float(nonzero.min()) if nonzero.size else 0.0
    cut = max(final.max(), 0.5 * math.log(max(label_scale, 1e-300))) + 0.5 * math.log(active_fraction)
    out = []
    for j in np.flatnonzero(final >= cut):
        top = rest.first_rest(track, int(j), cut, per_tau)
        level = top - _half_log2(top)
        if not start[j] < float(level):
            continue  # it did not grow past half its size at rest after the start
        tau = track.first_crossing(int(j), level)
        if tau is not None and float(tau) > float(track.t[0]):
            out.append((tau, int(j)))
    return sorted(out, key=lambda q: float(q[0]))


def _half_log2(value):
    """ln(2)/2 in the arithmetic of ``value`` (an mpmath number gets it at the working precision)."""
    if isinstance(value, (float, int, np.floating)):
        return HALF
    import mpmath

    return mpmath.log(2) / 2


def fitted_points(X, y, a, W, neuron: int) -> list[int]:
    """Data i with a_j σ(⟨w_j, x_i⟩) ≥ y_i/2 in the label's direction (0-based), y_i ≠ 0."""
    contrib = a[neuron] * np.maximum(X @ W[neuron], 0.0)
    return [int(i) for i in np.flatnonzero((y != 0) & (contrib * np.sign(y) >= np.abs(y) / 2))]


def plateau_losses(times, losses, jump_times) -> list[float]:
    """Loss at the midpoints between consecutive jumps (τ_1/2 first) and at the end of the run."""
    times = np.asarray(times, dtype=float)
    losses = np.asarray(losses, dtype=float)
    marks = [float(times[0])] + list(jump_times)
    points = [(marks[k] + marks[k + 1]) / 2 for k in range(len(marks) - 1)]
    return [float(np.interp(p, times, losses)) for p in points] + [float(losses[-1])]


def plateau_spreads(times, losses, jump_times) -> list[float]:
    """How far each plateau loss of `plateau_losses` can be from the loss at its midpoint: the loss of a gradient
    flow never increases, so between two step ends it lies between their losses; the spread is their difference
    (0 for the last, read at a step end)."""
    times = np.asarray(times, dtype=float)
    losses = np.asarray(losses, dtype=float)
    marks = [float(times[0])] + list(jump_times)
    out = []
    for k in range(len(marks) - 1):
        q = min(max(int(np.searchsorted(times, (marks[k] + marks[k + 1]) / 2)), 1), len(times) - 1)
        out.append(float(abs(losses[q - 1] - losses[q])))
    return out + [0.0]
