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


def settled(run, last_event_t: float, settle_rtol: float) -> bool:
    """No event for SETTLE_DELAY, the loss and every grown norm static over it (`static`), and no small neuron able
    to reach a non-negligible size before the maximal horizon at its current exponential rate."""
    t = run.step_t[-1]
    if t < last_event_t + SETTLE_DELAY:
        return False
    grown = static(run, settle_rtol)
    if grown is None:
        return False
    values = np.array([float(v) for v in run.track.values[-1]])
    rates = np.array([float(v) for v in run.track.slopes[-1]])
    small = ~grown & (rates > 0)
    significant = 0.5 * math.log(ACTIVE_FRACTION * max(run.label_scale, 1e-300))
    reach = (significant - values[small]) / rates[small]
    return bool(np.all(t + reach > run.problem.max_horizon))


def static(run, settle_rtol: float):
    """The loss and every grown norm (‖θ_j‖² ≥ ACTIVE_FRACTION of the labels' scale, the neurons the jump rule reads)
    static over the last SETTLE_DELAY, to ``settle_rtol`` above what the engine cannot resolve: the mask of grown
    neurons, or None. What the jump rule and the last plateau read (half the final ‖θ_j‖², the final loss) then no
    longer depends on where the run stops."""
    t = run.step_t[-1]
    if t < SETTLE_DELAY:
        return None
    k = bisect.bisect_left(run.step_t, t - SETTLE_DELAY)  # on the list itself: no O(steps) conversion per step
    loss_then, loss_now = run.step_loss[k], run.step_loss[-1]
    # what the loss and the log-norm rates cannot be told from: rounding, and the engine's error on the residuals
    # (at a minimum they are made of residuals at that level): L = ‖r‖²/2n moves by ‖r‖ ‖δr‖/n, and
    # d ln‖θ_j‖/d(time) = 2 T c a_j⟨w_j, D_j⟩/‖θ_j‖² by at most 2 T c Σ_i |δr_i| / n (|z_ij| ≤ ‖x_i‖ ≤ 1 relative)
    view, p = run.last_view, run.problem
    r_error = np.zeros(p.n) if view.r_error is None else np.array([float(v) for v in view.r_error])
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
