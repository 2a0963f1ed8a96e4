"""When a run is at rest: the loop's settling rule (`numerics.flows.loop`, status SETTLED) and the static test that
the float64 engine's check run uses to vouch for jump times past a run's end (`numerics.flows.vouch.extends`).

``run`` is the loop's bookkeeping (`numerics.flows.loop._Run`): step ends ``step_t`` and losses ``step_loss``, the
norm track (ln‖θ_j‖ and its rate at every step end), the last `View` (residuals and their error), the problem.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from .result import ACTIVE_FRACTION

SETTLE_DELAY = 0.5  # settling needs this long without an event …
SETTLE_RTOL = 1e-9  # … and a loss and grown norms that changed relatively by less than this over it
# `at_rest` tells rates from the noise of the float64 engine's check run, whose tolerance is 100× tighter
# (`numerics.flows.vouch.CHECK_FACTOR`): the check run vouches for what the run reads off its end
AT_REST_NOISE = 1e-2


def settled(run, last_event_t: float, settle_rtol: float, *, quiet: bool = True, until: float | None = None,
            window: float = SETTLE_DELAY, noise: float = 1.0) -> bool:
    """No event for ``window`` (``quiet``), the loss and every grown norm static over it (`static`), and no small
    neuron able to reach a non-negligible size before ``until`` (default: the maximal horizon) at its current
    exponential rate. ``noise`` scales the engine's error on the residuals in `static`."""
    t = run.step_t[-1]
    if quiet and t < last_event_t + window:
        return False
    grown = static(run, settle_rtol, window, noise)
    if grown is None:
        return False
    values = np.array([float(v) for v in run.track.values[-1]])
    rates = np.array([float(v) for v in run.track.slopes[-1]])
    small = ~grown & (rates > 0)
    significant = 0.5 * math.log(ACTIVE_FRACTION * max(run.label_scale, 1e-300))
    reach = (significant - values[small]) / rates[small]
    return bool(np.all(t + reach > (run.problem.max_horizon if until is None else until)))


def rest_window(problem) -> float:
    """SETTLE_DELAY in units of τ = t/ln(1/λ) whatever the problem's time unit (at λ ≥ 1, in t): the window over which a
    run's end must be at rest for its jump times (`at_rest`). In units of t, 0.5 is 0.005 τ at λ = 1e-40, too short to
    see a norm still converging (red team, session 28: a jump time 4.8 times its bound off)."""
    if problem.time_unit == "t" and problem.log_inv_lambda > 0:
        return SETTLE_DELAY * problem.log_inv_lambda
    return SETTLE_DELAY


def rest_horizon(t: float, window: float) -> float:
    """How far a check run past a run's end at ``t`` may go to find the flow at rest: twice the end, at least two
    windows beyond it."""
    return max(2 * t, t + 2 * window)


def at_rest(run, settle_rtol: float) -> bool:
    """The run's end is at rest for what it reads off its end (jump times against half the final ‖θ_j‖², the last
    plateau): the loss and the grown norms static over `rest_window`, and no small neuron able to grow to a
    non-negligible size before `rest_horizon` (a later jump changes the final norms of earlier ones: red team, session
    28, 0.034 in τ at λ = 1e-40). Events may go on (small neurons' kinks). The rates are told from noise at
    AT_REST_NOISE times the engine's error on the residuals: at the run's own noise level a final norm still moving by
    1e-7 passed for static, and a jump time moved 37 times its bound (red team, session 28, λ = 1e-10, τ = 6.1)."""
    window = rest_window(run.problem)
    return settled(run, -math.inf, settle_rtol, quiet=False, until=rest_horizon(run.step_t[-1], window), window=window,
                   noise=AT_REST_NOISE)


def static(run, settle_rtol: float, window: float = SETTLE_DELAY, noise: float = 1.0):
    """The loss and every grown norm (‖θ_j‖² ≥ ACTIVE_FRACTION of the labels' scale, the neurons the jump rule reads)
    static over the last ``window``, to ``settle_rtol`` above what the engine cannot resolve: the mask of grown
    neurons, or None. What the jump rule and the last plateau read (half the final ‖θ_j‖², the final loss) then no
    longer depends on where the run stops."""
    t = run.step_t[-1]
    if t < window:
        return None
    k = bisect.bisect_left(run.step_t, t - window)  # on the list itself: no O(steps) conversion per step
    loss_then, loss_now = run.step_loss[k], run.step_loss[-1]
    # what the loss and the log-norm rates cannot be told from: rounding, and the engine's error on the residuals
    # (at a minimum they are made of residuals at that level): L = ‖r‖²/2n moves by ‖r‖ ‖δr‖/n, and
    # d ln‖θ_j‖/d(time) = 2 T c a_j⟨w_j, D_j⟩/‖θ_j‖² by at most 2 T c Σ_i |δr_i| / n (|z_ij| ≤ ‖x_i‖ ≤ 1 relative)
    view, p = run.last_view, run.problem
    r_error = np.zeros(p.n) if view.r_error is None else noise * np.array([float(v) for v in view.r_error])
    r_now = np.array([float(v) for v in view.r])
    loss_noise = float(np.linalg.norm(r_now) * np.linalg.norm(r_error)) / p.n + np.finfo(float).eps * run.label_scale ** 2
    if abs(loss_now - loss_then) > settle_rtol * abs(loss_now) + loss_noise:
        return None
    values = np.array([float(v) for v in run.track.values[-1]])
    rates = run.track.slopes[-1]
    if rates is None:
        return None
    rates = np.array([float(v) for v in rates])
    significant = 0.5 * math.log(ACTIVE_FRACTION * max(run.label_scale, 1e-300))
    grown = values >= significant
    c = p.time_scale * p.convention.time_factor / (p.convention.width_divisor * p.n)
    if np.any(np.abs(rates[grown]) > settle_rtol + 2 * c * float((r_error * run.X_norms).sum())):
        return None
    return grown
