"""Events: what an event is (`Event`, `EventKind`), what a segment watches, and roots located inside a step.

Within a segment of fixed pattern (`numerics.flows.filippov.Pattern`) the loop watches, for every neuron j:

* an active datum i: the pre-activation z_ij = ⟨w_j, x_i⟩ / ‖θ_j‖ must stay > 0 (its zero is DEACTIVATE);
* an inactive datum with z_ij < 0: −z_ij must stay > 0 (ACTIVATE; only on non-orthogonal data can it rise);
* a sliding datum: its weight η_ij = v_ij / r_i must stay in (0, 1): sgn(r_i)·v_ij > 0 (LEAVE_DOWN at its zero)
  and sgn(r_i)·(r_i − v_ij) > 0 (LEAVE_UP), with v = `Pattern.effective_residuals`.

Pre-activations are relative to the neuron's own size ‖θ_j‖ (θ_j = (a_j, w_j)), so thresholds are relative to
the neuron's scale whatever λ is. Inactive data at z = 0 exactly (orthonormal data: they never move again)
are not watched. Roots are found by `bracketed_root` (scipy's brentq in float64; the Illinois method in
mpmath at the working precision).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from .complementarity import nonzero2d
from .engine import poll


class EventKind(str, enum.Enum):
    """What happened to component (i, j) at an event."""

    DEACTIVATE = "deactivate"  # an active pre-activation reached 0 and the neuron leaves the datum
    ACTIVATE = "activate"  # a negative pre-activation reached 0 and the datum becomes active
    SLIDE = "slide"  # the pre-activation is held on the kink (Filippov sliding, 0 < η < 1)
    LEAVE_DOWN = "leave_down"  # a sliding component's weight η reached 0: it leaves to the inactive side
    LEAVE_UP = "leave_up"  # η reached 1: it leaves to the active side

    @property
    def words(self) -> str:
        """The kind for a reader: 'deactivation', 'onset of sliding', 'exit from sliding to the active side', …"""
        return _WORDS[self.value]


_WORDS = {"deactivate": "deactivation", "activate": "activation", "slide": "onset of sliding",
          "leave_down": "exit from sliding to the inactive side", "leave_up": "exit from sliding to the active side"}


@dataclass(frozen=True)
class Event:
    """One event of a run, as `FlowResult.events` lists them (`numerics.flows.result`)."""

    tau: float  # in the problem's time unit
    neuron: int
    datum: int
    kind: EventKind
    exact: object = field(default=None, compare=False, repr=False)  # the time in the engine's arithmetic (mpmath)

    def to_json(self) -> dict:
        return {"tau": self.tau, "neuron": self.neuron, "datum": self.datum, "kind": self.kind.value}


KINDS = tuple(EventKind)
_Z_ROWS = (KINDS.index(EventKind.DEACTIVATE), KINDS.index(EventKind.ACTIVATE))


@dataclass
class Watch:
    """The watched functions of one segment: one row per (kind, datum i, neuron j), with the sign of r_i for
    sliding exits fixed at the segment's start."""

    codes: np.ndarray  # (k,) index into KINDS
    data: np.ndarray  # (k,) datum index i
    neurons: np.ndarray  # (k,) neuron index j
    signs: np.ndarray  # (k,) sgn(r_i) at the start for sliding exits, else 1
    floors: np.ndarray  # (k,) a row has crossed once its value is below −floor (rounding of a value that starts at 0)

    def __len__(self) -> int:
        return len(self.codes)

    def kind(self, row: int) -> EventKind:
        return KINDS[int(self.codes[row])]

    def subset(self, rows) -> "Watch":
        rows = np.asarray(rows, dtype=int)
        return Watch(self.codes[rows], self.data[rows], self.neurons[rows], self.signs[rows], self.floors[rows])

    def crossed(self, values) -> np.ndarray:
        """Rows whose value is past the kink by more than its floor."""
        return np.flatnonzero(_below(values, self.floors))

    @classmethod
    def of(cls, pattern, Z, r, kink, crosstalk, z_floor, r_floor) -> "Watch":
        """Rows for the segment starting with pre-activations Z (n, m) and residuals r under ``pattern``; inactive
        components just decided on the ``kink`` are watched too (on general data they leave it downwards). An
        inactive component of a datum orthogonal to all others (``crosstalk[i]`` False) is never pushed, so it is
        not watched. Floors: ``z_floor`` (n,) for pre-activation rows (the kink threshold: a component snapped onto
        its kink is 0 only up to rounding), ``r_floor`` (n,) for sliding exits (in units of residuals)."""
        masks = [(pattern.act, EventKind.DEACTIVATE)]
        if crosstalk.any():  # (orthonormal data: no datum has crosstalk, and no inactive row is watched)
            negative = ~pattern.act & ~pattern.slide & (np.array(Z < 0, dtype=bool) | kink) & crosstalk[:, None]
            masks.append((negative, EventKind.ACTIVATE))
        parts = []
        for mask, kind in masks:
            i, j = nonzero2d(mask)
            parts.append((np.full(len(i), KINDS.index(kind)), i, j, np.ones(len(i)), z_floor[i]))
        if pattern.slide.any():
            i, j = nonzero2d(pattern.slide)
            sign = np.where(r[i] > 0, 1.0, -1.0) if r.dtype != object else np.array([1.0 if float(r[q]) > 0 else -1.0 for q in i])
            for kind in (EventKind.LEAVE_DOWN, EventKind.LEAVE_UP):
                parts.append((np.full(len(i), KINDS.index(kind)), i, j, sign, r_floor[i]))
        codes, data, neurons, signs, floors = (np.concatenate([p[q] for p in parts]) for q in range(5))
        return cls(codes.astype(int, copy=False), data.astype(int, copy=False), neurons.astype(int, copy=False), signs,
                   floors)

    def _z_rows(self):
        """(sign (k,), exit rows): +1 on DEACTIVATE rows, −1 elsewhere (z or −z, exactly); the sliding-exit rows.
        Computed once per watch: the loop reads the same watch at every step of its segment."""
        cached = self.__dict__.get("_z_cache")
        if cached is None:
            cached = self.__dict__["_z_cache"] = (np.where(self.codes == _Z_ROWS[0], 1.0, -1.0),
                                                   np.flatnonzero(self.codes > max(_Z_ROWS)))
        return cached

    def _gather(self, Z):
        """Z[data, neurons], through flat indices (numpy's 2-D fancy gather costs about 30 µs for 8 000 rows, a
        take about 4 µs): Z is C-contiguous (general data) or the transpose of a strided (m, n) view (data basis)."""
        i, j = self.data, self.neurons
        if Z.dtype == object or Z.ndim != 2:
            return Z[i, j]
        if Z.flags.c_contiguous:
            return Z.ravel().take(i * Z.shape[1] + j)
        return np.ravel(Z.T).take(j * Z.shape[0] + i)  # (one copy of Z when its transpose is not contiguous either)

    def values(self, Z, r, V):
        """Watched values (k,) from pre-activations Z (n, m), residuals r (n,) and effective residuals V (n, m)."""
        i, j = self.data, self.neurons
        z = self._gather(Z)
        if Z.dtype != object:
            sign, exits = self._z_rows()
            out = sign * z
        else:
            out = np.array([v if c == _Z_ROWS[0] else -v for v, c in zip(z, self.codes, strict=True)], dtype=object)
            exits = np.flatnonzero(self.codes > max(_Z_ROWS))
        if not exits.size:
            return out
        if out.dtype != object and np.asarray(V).dtype != object and np.asarray(r).dtype != object:  # float64: at once
            ie = i[exits]
            v = V[ie, j[exits]]
            down = self.codes[exits] == KINDS.index(EventKind.LEAVE_DOWN)
            out[exits] = self.signs[exits] * np.where(down, v, r[ie] - v)
            return out
        for q in exits:
            v = V[i[q], j[q]]
            out[q] = self.signs[q] * (v if KINDS[self.codes[q]] is EventKind.LEAVE_DOWN else r[i[q]] - v)
        return out

    def needs_residuals(self) -> bool:
        return bool(self.codes.size) and int(self.codes.max()) > max(_Z_ROWS)


BISECTIONS = 8  # float64: bisections (each halving the bracket) before simultaneous crossings are separated by a root


def first_crossing(evaluator, watch: Watch, rows, t0, t1):
    """(t, row) of the earliest crossing among ``rows`` (each past its floor at t1) inside [t0, t1].

    ``evaluator(sub_watch)`` returns a function t -> watched values of ``sub_watch`` at t. An event step often holds
    many later crossings (the next steps meet them again), so only the earliest is located: bisection on [t0, t1]
    keeps the rows already past their floor at the upper end until one row is left (or the bracket is at
    rounding), then `bracketed_root` refines that row. In float64, rows still together after BISECTIONS halvings
    cross (nearly) simultaneously — symmetric neurons, or data meeting a kink at once — and bisection would take
    some 40 more evaluations to part them: the earliest crossing is then the first root of their minimum
    F(t) = min_q (value_q(t) + floor_q) (F ≥ 0 at the lower end, < 0 at the upper; `bracketed_root`), and its row the
    one that attains the minimum there."""
    rows = np.asarray(rows)
    sub = watch.subset(rows)
    values_at = evaluator(sub)
    live = np.arange(len(rows))
    lo, hi = t0, t1
    resolution = 8 * _unit_roundoff(t1)
    bisections = BISECTIONS if isinstance(t1, float) else 4 * 1100
    for _ in range(bisections):
        poll("locating an event")  # 10⁵ crossings in one step take seconds per bisection (issue 20, bounded work)
        if len(live) == 1 or not hi - lo > resolution * max(abs(hi), 1):
            break
        if 4 * len(live) <= len(sub):  # evaluate only the rows still in the race: the work shrinks with them
            rows, sub = rows[live], sub.subset(live)
            values_at, live = evaluator(sub), np.arange(len(live))
        mid = lo + (hi - lo) / 2
        past = live[_below(values_at(mid)[live], sub.floors[live])]
        if past.size:
            hi, live = mid, past
        else:
            lo = mid
    if isinstance(t1, float) and len(live) > 1 and hi - lo > resolution * max(abs(hi), 1):  # (float64 only: see above)
        rows, sub = rows[live], sub.subset(live)
        values_at, floors = evaluator(sub), sub.floors
        root = bracketed_root(lambda t: float(np.min(values_at(t) + floors)), lo, hi)
        return root, int(rows[int(np.argmin(values_at(root) + floors))])
    q = int(live[np.argmin([float(v + f) for v, f in zip(values_at(hi)[live], sub.floors[live], strict=True)])])
    one = evaluator(sub.subset([q])) if len(sub) > 1 else values_at  # the root needs that row only
    root = bracketed_root(lambda t: one(t)[0] + sub.floors[q], lo, hi)
    return root, int(rows[q])


def _below(values, floors) -> np.ndarray:
    """values < −floors elementwise, in the values' own arithmetic (object arrays of mpmath numbers are compared
    as such: a value far below float64's range still counts)."""
    values = np.asarray(values)
    if values.dtype == object or np.asarray(floors).dtype == object:
        return np.array([v < -f for v, f in zip(values, floors, strict=True)], dtype=bool)
    return values < -floors


def _unit_roundoff(t):
    """ε of the time's arithmetic: float64's, or 2^-prec of mpmath's working precision."""
    if isinstance(t, (float, int, np.floating)):
        return float(np.finfo(float).eps)
    import mpmath

    return mpmath.mpf(2) ** -mpmath.mp.prec


def bracketed_root(f, lo, hi, tol=None):
    """A root of f in [lo, hi] with f(lo) < 0 ≤ f(hi) or f(lo) > 0 ≥ f(hi).

    float64: brentq to 4 ulps. mpmath numbers: the Illinois method (regula falsi with halving), superlinear on a
    simple root, to ``tol`` (default 10^-dps relative to the bracket) — the working precision.
    """
    if isinstance(lo, float) and isinstance(hi, float):
        flo, fhi = f(lo), f(hi)
        if flo == 0:
            return lo
        if fhi == 0:
            return hi
        if (flo > 0) == (fhi > 0):
            return hi if abs(fhi) < abs(flo) else lo
        from scipy.optimize import brentq  # imported here: `relucheck engines` does not pay for scipy.optimize

        return brentq(f, lo, hi, xtol=4 * np.finfo(float).eps * max(abs(lo), abs(hi), 1e-300),
                      rtol=4 * np.finfo(float).eps)
    import mpmath

    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    tol = tol if tol is not None else mpmath.mpf(10) ** (-mpmath.mp.dps) * max(abs(hi), abs(hi - lo))
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo
    if (flo > 0) == (fhi > 0):
        return hi
    side = 0
    for _ in range(4 * mpmath.mp.prec):
        s = (lo * fhi - hi * flo) / (fhi - flo)
        fs = f(s)
        if fs == 0 or hi - lo <= tol:
            return s
        if (fs > 0) == (flo > 0):
            lo, flo = s, fs
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = s, fs
            if side == 1:
                flo /= 2
            side = 1
    return hi
