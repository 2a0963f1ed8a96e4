"""ln‖θ_j‖ of every neuron at a run's step ends, with its slopes and per-step interpolants: what the jump rule
(`numerics.flows.result`) and the settling rule (`numerics.flows.settle`) read. Every engine's loop appends one row
per step end (`numerics.flows.loop`); times and values may be floats or mpmath numbers (the root finder is generic).
"""
from __future__ import annotations

import numpy as np

from .events import bracketed_root


class NormTrack:
    """ln‖θ_j‖ at every step end with its slope, and per-step interpolants for locating level crossings.

    An engine appends (t, values, slopes) at each step end; ``exact`` optionally replaces the cubic Hermite
    interpolant of a step by the engine's own (a Taylor polynomial: jump times to working precision, kept in
    `Jump.exact`). Times and values may be floats or mpmath numbers (the root finder is generic).
    """

    def __init__(self):
        self.t: list = []
        self.values: list = []
        self.slopes: list = []
        self.exact: dict = {}
        self._stacked = None  # (step ends, arrays) of `stacked`

    def stacked(self):
        """(t, values, slopes, has_slopes) as float arrays (K,), (K, m), (K, m), (K,) bool — slopes NaN where a step
        end has none — or (t, None, None, has_slopes) where the values are not float arrays (mpmath); kept until the
        track grows."""
        K = len(self.t)
        if self._stacked is None or self._stacked[0] != K:
            t, V, S = np.array([float(v) for v in self.t]), None, None
            has = np.array([s is not None for s in self.slopes], dtype=bool)
            if K and isinstance(self.values[0], np.ndarray) and self.values[0].dtype == float:
                V = np.array(self.values)
                nan_row = np.full(V.shape[1:], np.nan)
                S = np.array([nan_row if s is None else s for s in self.slopes], dtype=float)
            self._stacked = (K, (t, V, S, has))
        return self._stacked[1]

    def append(self, t, values, slopes=None, exact=None) -> None:
        self.t.append(t)
        self.values.append(values)
        self.slopes.append(slopes)
        if exact is not None:
            self.exact[len(self.t) - 1] = exact  # interpolant of the step ending here

    def value_at(self, k: int, j: int, t):
        """ln‖θ_j‖ at t inside step k (t_{k−1} ≤ t ≤ t_k)."""
        if k in self.exact:
            return self.exact[k](t, j)
        t0, t1 = self.t[k - 1], self.t[k]
        v0, v1 = self.values[k - 1][j], self.values[k][j]
        s0, s1 = self.slopes[k - 1], self.slopes[k]
        h = t1 - t0
        x = (t - t0) / h
        if s0 is None or s1 is None:
            return v0 + x * (v1 - v0)
        d0, d1 = s0[j] * h, s1[j] * h  # cubic Hermite
        return (v0 * (1 + 2 * x) * (1 - x) ** 2 + d0 * x * (1 - x) ** 2 + v1 * x * x * (3 - 2 * x) - d1 * x * x * (1 - x))

    def rate_at(self, k: int, j: int, t):
        """d ln‖θ_j‖/d(time) at t inside step k: the derivative of the cubic Hermite of the step's end values and
        slopes, or, for an engine's own interpolant in mpmath arithmetic (engine mpmath's Taylor polynomials), its
        derivative by mpmath at the working precision. (A float64 engine's own interpolant, DOP853's dense output, is
        within the integrator's error of that Hermite.)"""
        if k in self.exact and not isinstance(t, float):
            import mpmath

            return mpmath.diff(lambda s: self.exact[k](s, j), t)
        t0, t1 = self.t[k - 1], self.t[k]
        h = t1 - t0
        secant = (self.values[k][j] - self.values[k - 1][j]) / h
        s0, s1 = self.slopes[k - 1], self.slopes[k]
        if s0 is None or s1 is None:
            return secant
        x = (t - t0) / h
        return 6 * x * (1 - x) * secant + s0[j] * (1 - x) * (1 - 3 * x) - s1[j] * x * (2 - 3 * x)  # cubic Hermite

    def rate_slope_at(self, k: int, j: int, t):
        """The derivative of `rate_at` in t inside step k: of the cubic Hermite's rate (linear in t), or by mpmath for
        an engine's own interpolant in mpmath arithmetic."""
        if k in self.exact and not isinstance(t, float):
            import mpmath

            return mpmath.diff(lambda s: self.exact[k](s, j), t, 2)
        t0, t1 = self.t[k - 1], self.t[k]
        h = t1 - t0
        s0, s1 = self.slopes[k - 1], self.slopes[k]
        if s0 is None or s1 is None:
            return 0 * h
        secant = (self.values[k][j] - self.values[k - 1][j]) / h
        x = (t - t0) / h
        return (6 * (1 - 2 * x) * secant + s0[j] * (6 * x - 4) + s1[j] * (6 * x - 2)) / h

    def first_crossing(self, j: int, level):
        """First t with ln‖θ_j‖ ≥ level, or None; t_0 if it starts there."""
        if self.values[0][j] >= level:
            return self.t[0]
        for k in range(1, len(self.t)):
            if self.values[k][j] >= level:
                return bracketed_root(lambda t, k=k: self.value_at(k, j, t) - level, self.t[k - 1], self.t[k])
        return None


def cut(track: NormTrack, end, values) -> NormTrack:
    """The track as a run that ended at ``end`` (inside it) with ln‖θ_j(end)‖ = ``values`` would have it: its steps
    before ``end``, then a last one to ``end`` (linear in ln‖θ_j‖: its slopes at ``end`` are not known)."""
    k = int(np.searchsorted(np.asarray(track.t, dtype=float), float(end)))
    out = NormTrack()
    out.t, out.values, out.slopes = list(track.t[:k]), list(track.values[:k]), list(track.slopes[:k])
    out.exact = {q: f for q, f in track.exact.items() if q < k}
    out.append(end, values, None)
    return out
