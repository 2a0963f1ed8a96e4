"""Recording many step ends at once: the loop's record step (`numerics.flows.loop`, 4. Record; 5. Stop) for a stepper
that takes several fixed steps per call (engine "gd": issue 22, item 4, gradient descent at the cost of a bare numpy
step).

A *batched* stepper (``stepper.batched``: no events, `ends`, `view_at`, `keep`, ``limit``) returns from one call of
``advance`` the ends of all the steps it took. Each is recorded as the one-step path records a step end
(`_Run.record_step`): its time and loss (``step_t``, ``step_loss``), ln‖θ_j‖ and its rate (`NormTrack`), a
trajectory row when there are no sample times (with (a, W) if asked), the samples at requested times inside it (the
stepper interpolates between the two steps around each, as in the one-step path). The settling rule (no horizon:
`numerics.flows.settle.settled`, or `settle.at_rest` after ``static_after``) is read at every step end of the call in
order, the run stopping at the first where it holds: the stepper then drops the steps after it (`keep`). Records,
statistics and status are those of the one-step path to the last bit (tests/test_step_ends.py, on drawn instances).

The rule itself costs tens of µs a call (float conversions of r, ln‖θ_j‖ and rates), more than a GD step, so it is
called only at the step ends where a necessary condition of it holds (`_candidates`): the same tests on the same
numbers, vectorized over the call's step ends, with their thresholds doubled (so that a rounding difference between
the two forms can only let more step ends through to the rule, never fewer). A step end the filter rejects fails the
rule; one it lets through is decided by the rule.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .result import ACTIVE_FRACTION
from .settle import SETTLE_DELAY, rest_window

SLACK = 2.0  # the filter's thresholds are the rule's times this (module docstring)


@dataclass
class SettleRule:
    """The settling rule the loop reads at each step end (its parameters, for the filter) and the rule itself."""

    rtol: float
    quiet_from: float | None  # no event before this time (`settled`'s quiet test: last event + window), None: at_rest
    window: float
    after: float  # static_after, or −inf
    until: Callable  # t (array) -> the look-ahead of the arrival test
    exact: Callable  # () -> bool on the run as recorded so far (the loop's own expression)
    _t: np.ndarray = field(default_factory=lambda: np.empty(0))  # run.step_t and step_loss as arrays (`history`)
    _loss: np.ndarray = field(default_factory=lambda: np.empty(0))
    _have: int = 0  # rows of them filled

    def history(self, run) -> tuple[np.ndarray, np.ndarray]:
        """The run's step ends and losses so far as float arrays, converting only the rows recorded since the last call
        (the buffers grow by doubling)."""
        k, have = len(run.step_t), self._have
        if k > len(self._t):
            grow = max(k, 2 * len(self._t), 1024) - have
            self._t, self._loss = (np.concatenate([b[:have], np.empty(grow)]) for b in (self._t, self._loss))
        self._t[have:k], self._loss[have:k] = run.step_t[have:k], run.step_loss[have:k]
        self._have = k
        return self._t[:k], self._loss[:k]


def settle_rule(run, last_event_t: float, settle_rtol: float, static_after, exact) -> SettleRule:
    """The rule of the loop for a run without horizon (`settle.settled`, or `settle.at_rest` after ``static_after``)."""
    if static_after is None:
        horizon = run.problem.max_horizon
        return SettleRule(settle_rtol, last_event_t + SETTLE_DELAY, SETTLE_DELAY, -math.inf,
                          lambda t: np.full_like(t, horizon), exact)
    window = rest_window(run.problem)
    return SettleRule(settle_rtol, None, window, static_after,
                      lambda t: np.maximum(2 * t, t + 2 * window), exact)  # `rest_horizon`, elementwise


@dataclass
class Block:
    """Trajectory rows of many step ends: times (T,), losses (T,), ln‖θ_j‖ (T, m), a (T, m) and W (T, m, d) or None."""

    t: np.ndarray
    loss: np.ndarray
    log_norms: np.ndarray
    a: np.ndarray | None
    W: np.ndarray | None


def record_batch(run, rule: SettleRule | None) -> tuple[int, bool]:
    """Record the step ends of the stepper's last call (module docstring): (step ends kept, whether the run settled at
    the last of them)."""
    st = run.stepper
    times, loss, values, rates, a, W = st.ends(run.params and run.save_at is None)
    c = len(times)
    losses = loss.tolist()
    done, stop = 0, False
    if rule is not None:
        for i in _candidates(run, rule, times, loss, values, rates):
            _extend(run, times[done:i + 1], losses[done:i + 1], values[done:i + 1], rates[done:i + 1])
            done = i + 1
            run.last_view = st.view_at(done)
            if rule.exact():
                stop = True
                st.keep(done)
                break
    kept = done if stop else c
    _extend(run, times[done:kept], losses[done:kept], values[done:kept], rates[done:kept])
    t = st.t
    while run.save_at and run.save_at[0] <= float(t):
        ts = run.save_at.pop(0)
        run.samples.append((ts, *st.sample(ts, run.params)))
    if run.save_at is None:
        run.samples.append(Block(np.array(times[:kept]), loss[:kept], values[:kept],
                                 None if a is None else a[:kept], None if W is None else W[:kept]))
    run.last_view = st.view()
    return kept, stop


def _extend(run, times, losses, values, rates) -> None:
    """Append step ends (as `_Run.record_step` appends one)."""
    if not times:
        return
    track = run.track
    track.t.extend(times)
    track.values.extend(values)  # rows of arrays the stepper does not write again
    track.slopes.extend(rates)
    run.step_t.extend(times)
    run.step_loss.extend(losses)


def _candidates(run, rule: SettleRule, times, loss, values, rates) -> list[int]:
    """The step ends of the call (indices) where `settle.settled`'s tests, thresholds × SLACK, all hold: time (quiet,
    at least a window), loss static over the window, grown neurons' rates at rest, no small neuron arriving before the
    look-ahead (`settle.static`, `settle.growing`). A test that reads the engine's error on the residuals
    (``View.r_error``, not None) is not applied (no stepper that batches has one)."""
    t = np.array(times)
    ok = (t >= rule.after) & (t >= rule.window)
    if rule.quiet_from is not None:
        ok &= t >= rule.quiet_from
    if not ok.any():
        return []
    r_error = run.last_view.r_error
    significant = 0.5 * math.log(ACTIVE_FRACTION * max(run.label_scale, 1e-300))
    grown = values >= significant
    if r_error is None:  # grown neurons: |rate| ≤ rtol
        ok &= np.all((np.abs(rates) <= SLACK * rule.rtol) | ~grown, axis=1)
    # small neurons growing at their present exponential rate reach the labels' scale after the look-ahead
    rising = ~grown & (rates > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = t[:, None] + (significant - values) / rates
    until = rule.until(t)[:, None]
    ok &= np.all(~rising | (reach > until - SLACK * 1e-9 * np.abs(until)), axis=1)
    if r_error is None and ok.any():
        # loss: |L(t) − L(first step end ≥ t − window)| ≤ rtol |L(t)| + loss noise (rounding: ε × the labels' scale²)
        past_t, past_loss = rule.history(run)
        lo = int(np.searchsorted(past_t, times[0] - rule.window, side="left"))
        then = np.concatenate([past_loss[lo:], loss])[np.searchsorted(np.concatenate([past_t[lo:], t]), t - rule.window)]
        noise = float(np.finfo(float).eps) * run.label_scale ** 2
        with np.errstate(invalid="ignore"):
            ok &= np.abs(loss - then) <= SLACK * (rule.rtol * np.abs(loss) + noise)
    return np.flatnonzero(ok).tolist()


def trajectory_arrays(samples: list, m: int, params: bool) -> tuple:
    """(t, loss, log_norms, a, W) arrays of the loop's samples: tuples (t, loss, log_norms, a, W) of single step ends
    or requested times, and `Block` rows of many."""
    if not any(isinstance(s, Block) for s in samples):
        times = [s[0] for s in samples]
        return (np.array(times, dtype=float), np.array([float(s[1]) for s in samples]),
                np.array([[float(v) for v in s[2]] for s in samples]).reshape(len(times), m),
                np.array([s[3] for s in samples]) if params else None, np.array([s[4] for s in samples]) if params else None)
    parts = [s if isinstance(s, Block) else
             Block(np.array([float(s[0])]), np.array([float(s[1])]), np.array([[float(v) for v in s[2]]]).reshape(1, m),
                   None if s[3] is None else np.array([s[3]]), None if s[4] is None else np.array([s[4]]))
             for s in samples]
    join = np.concatenate
    return (join([p.t for p in parts]).astype(float), join([p.loss for p in parts]).astype(float),
            join([p.log_norms for p in parts]).reshape(-1, m), join([p.a for p in parts]) if params else None,
            join([p.W for p in parts]) if params else None)
