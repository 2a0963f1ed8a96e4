"""Engine "float64" (`numerics.flows.engines.logscale`): reading its last DOP853 step — the state and the watched
functions (`numerics.flows.events.Watch`) at times inside it, the step cut at an event, and the interpolant of ln‖θ_j‖
for the jump rule. DOP853's dense output (Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.6; `numerics.flows.dense`)
costs three extra field evaluations, so it is built only for a step with a crossing, a requested time or a possible
jump. Split from the stepper along that boundary; `StepReading` is a mixin of `LogScaleStepper` and reads its
attributes (solver, dense, active, t, y, pattern, basis).
"""
from __future__ import annotations

import numpy as np

from ..dense import dense_of
from ..events import Watch
from .active_set import CompressedDense

JUMP_WINDOW = 8.0  # ln‖θ_j‖ within this of the largest: where the jump rule can place a jump (`norm_interpolant`)
GATHER_LIMIT = 1 << 20  # numbers in a (rows, d) gather of the event evaluator (8 MiB); beyond it X Φᵀ (n × neurons)


class StepReading:
    """The last step's dense output, read for events, samples and the jump rule."""

    def _dense(self):
        if self.dense is None:
            self.dense = dense_of(self.solver)
            if self.active:
                self.dense = CompressedDense(self.dense, self.active)
            self.dense_outputs += 1
        return self.dense

    def _state_at(self, t):
        if t == self.t:
            return self.y
        return self._dense()(t)

    def watched(self, watch: Watch, t):
        residuals = watch.needs_residuals()
        if t != self.t and not residuals:
            return self.evaluator(watch)(t)
        y = self._state_at(t)
        if residuals or (y is self._last[0] and self.pattern is self._last[1]):
            Z, r, V, _, _, _, _ = self._rates(y, self.pattern, weights=False)
            return watch.values(Z, r, V)
        return watch.values(self._pre_state(y, self.pattern)[4], None, None)  # pre-activation rows: Z only

    def sample(self, t, params):
        """(loss, ρ, a, W) at a time inside the last step (a requested time)."""
        y = self._state_at(t)
        Z, r, _, _, _, _, _ = self._rates(y, self.pattern, weights=False) if self.pattern is not None else \
            self._first_rates(y)
        a, W = self._params(y) if params else (None, None)
        return float(r @ r) / (2 * self.n), y[:self.m].copy(), a, W

    def _first_rates(self, y):
        from ..filippov import Pattern

        _, _, phi_w = self._parts(y)
        return self._rates(y, Pattern.of_signs(self.basis.pre(phi_w)), weights=False)

    def evaluator(self, watch: Watch):
        """Pre-activation rows: the dense output restricted to the neurons' φ_w, sliced once (cheap root finding)."""
        if watch.needs_residuals():
            def values(t):
                if t == self.t:
                    return self.watched(watch, t)
                return watch.values(*self._residual_state(self._dense()(t), self.pattern)[:3])  # (no rates needed)

            return values
        dense = self._dense()
        width, start = self._offset()
        sign = np.where(watch.codes == 0, 1.0, -1.0)  # DEACTIVATE watches z, ACTIVATE watches −z
        if self.balanced:
            sign = sign / np.sqrt(2.0)  # z = ⟨ψ_j, x_i⟩/√2 relative to ‖θ_j‖
        if self.basis.identity:
            part = dense.restrict(self.m + watch.neurons * width + start + watch.data)  # φ_j,w's coordinate on x_i
            return lambda t: sign * part(t)
        # each neuron's φ_j,w once (at most the state's size), then ⟨φ_j,w, x_i⟩ per row: row by row while k·d is
        # small, else as X Φᵀ (n × neurons): a (k, d) gather per row (7 copies in the dense output) took 7.7 GB for
        # 108 639 crossings at n = 2000, d = m = 800 (issue 20, bounded work)
        neurons = np.flatnonzero(np.bincount(watch.neurons, minlength=self.m))  # np.unique(…, return_inverse=True),
        col = np.searchsorted(neurons, watch.neurons)  # without its sort: a neuron index is below m
        dim = self.basis.dim
        idx = ((self.m + neurons * width + start)[:, None] + np.arange(dim)[None, :]).ravel()
        part = dense.restrict(idx)
        X, data = self.basis.X, watch.data
        if len(watch) * dim <= GATHER_LIMIT:
            rows = X[data]
            return lambda t: sign * (part(t).reshape(len(neurons), dim)[col] * rows).sum(1)
        return lambda t: sign * (X @ part(t).reshape(len(neurons), dim).T)[data, col]

    def truncate(self, t):
        self.y = self._dense()(t)  # the step's dense output stays valid up to t for sampling
        self.t = t
        self.solver = None

    def norm_interpolant(self):
        """DOP853's dense output of ln‖θ_j‖ on the steps where a jump can be located: a neuron within JUMP_WINDOW of the
        largest log-norm that moved by more than 1e-4 (elsewhere the loop's cubic Hermite is exact enough, and the
        dense output's three extra field evaluations are saved). A jump is ‖θ_j‖² reaching half its final value with
        the final value ≥ 10⁻³ of the largest: ln‖θ_j‖ is then within ln(2)/2 + ln(10³)/2 ≈ 3.8 of the largest."""
        if self.t == self.t_old or self.solver is None and self.dense is None:
            return None
        rho_end = self.y[:self.m]
        rho_start = self._dense().y_old[:self.m] if self.dense is not None else self.solver.y_old[:self.m]
        moving = (np.abs(rho_end - rho_start) > 1e-4) & (np.maximum(rho_end, rho_start) >= rho_end.max() - JUMP_WINDOW)
        if not moving.any():
            return None
        dense = self._dense()
        part = dense.restrict(np.arange(self.m))
        return lambda t, j: part(t)[j]
