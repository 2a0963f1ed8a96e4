"""When a run is at rest: the loop's settling rule (`numerics.flows.loop`, status SETTLED) and the static test that
the float64 engine's check run uses to vouch for jump times past a run's end (`numerics.flows.vouch.extends`).

``run`` is the loop's bookkeeping (`numerics.flows.loop._Run`): step ends ``step_t`` and losses ``step_loss``, the
norm track (ln‖θ_j‖ and its rate at every step end), the last `View` (residuals and their error), the problem.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from .rest import rest_index
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
    arrivals = [tau for _, tau in growing(run.track, run.label_scale, t, ~grown)]
    return bool(np.all(np.array(arrivals) > (run.problem.max_horizon if until is None else until)))


def growing(track, label_scale: float, end: float, small=None) -> list[tuple[int, float]]:
    """The neurons below the labels' scale still growing at the track's end, each with the time at which, at its
    present exponential rate, its ‖θ_j‖² reaches ACTIVE_FRACTION of the labels' scale (where the jump rule reads it),
    earliest first. ``small``: the neurons to consider (default: those below that size)."""
    if track.slopes[-1] is None:
        return []
    values = np.array([float(v) for v in track.values[-1]])
    rates = np.array([float(v) for v in track.slopes[-1]])
    significant = 0.5 * math.log(ACTIVE_FRACTION * max(label_scale, 1e-300))
    if small is None:
        small = values < significant
    rising = np.flatnonzero(small & (rates > 0))
    reach = end + (significant - values[rising]) / rates[rising]
    return sorted(zip(rising.tolist(), reach.tolist()), key=lambda x: x[1])


def later_growth(result, problem, shown: int = 3) -> None:
    """A run that ends with vouched answers (status SUCCESS or SETTLED) whose small neurons still grow names them, with
    the time each would reach the labels' scale at its present rate, in ``stats["later_growth"]`` and in its message.
    Such a neuron's later jump changes the last plateau, which is read at the end, and the jump time of a jumped neuron
    that has not come to rest before the end (`rest.rest_index`; a neuron's jump is read where it first rests, so a
    later jump does not move the others). Red team, session 30: on drawn general data neurons 3 and 4 reach the labels'
    scale at τ ≈ 101 and 105, past the default max_horizon 100 where the run settled at τ = 34, and jump at τ = 241.6
    in a run to 1000, where neuron 2, at rest from τ ≈ 40 on, grows again with them; read against its final norm its
    jump moved from 12.75 to 240.1, read where it first rests it stays at 12.75. Neither the settling rule (up to
    max_horizon) nor the at-rest test (up to twice the end) can see past its look-ahead: the message says so."""
    track = getattr(result, "track", None)  # (a stand-in result without one: nothing to say)
    if track is None or not track.values:
        return
    label_scale = float(np.abs(np.asarray(problem.labels, dtype=float)).max())
    end = float(result.stats.get("end", track.t[-1]))
    later = growing(track, label_scale, end)
    result.stats["later_growth"] = [{"neuron": j, "reaches_labels_scale_at": tau} for j, tau in later]
    if not later:
        return
    unit = "τ" if problem.time_unit == "tau" else "t"
    first = later[:shown]
    who = ", ".join(f"neuron {j} at {unit} ≈ " + (f"{tau:.4g}" if tau < 1e4 else f"{tau:,.0f}") for j, tau in first)
    more = f" and {len(later) - len(first)} more" if len(later) > len(first) else ""
    times = np.asarray([float(v) for v in track.t])
    moving = [jp.neuron for jp in result.jumps
              if rest_index(track, jp.neuron, None, problem.units_per_tau, int(np.searchsorted(times, jp.tau))) is None]
    read = (f"the last plateau is read at {unit} = {end:.6g}" + (
        f", and so {'are the jump times of neurons' if len(moving) > 1 else 'is the jump time of neuron'} "
        f"{', '.join(str(j) for j in moving)}, not at rest before it" if moving else
        " (the jump times are read where each neuron first rests, which a later jump does not move)"))
    result.message += (f"; still growing below the labels' scale at the end, reaching it at their present rates: "
                       f"{who}{more}; {read}: a later jump would change "
                       + ("them" if moving else "it") + " (a later end includes it)")


def rest_window(problem) -> float:
    """SETTLE_DELAY in units of τ = t/ln(1/λ) whatever the problem's time unit (at λ ≥ 1, in t): the window over which a
    run's end must be at rest for its jump times (`at_rest`). In units of t, 0.5 is 0.005 τ at λ = 1e-40, too short to
    see a norm still converging (red team, session 28: a jump time 4.8 times its bound off)."""
    return SETTLE_DELAY * problem.units_per_tau


def rest_horizon(t: float, window: float) -> float:
    """How far a check run past a run's end at ``t`` may go to find the flow at rest: twice the end, at least two
    windows beyond it."""
    return max(2 * t, t + 2 * window)


def at_rest(run, settle_rtol: float) -> bool:
    """The run's end is at rest for what it reads off its end (jump times against half ‖θ_j‖² at rest, the last
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
    neurons, or None. What the jump rule and the last plateau read (half ‖θ_j‖² at rest, the final loss) then no
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


def jump_drift(track, jumps, window: float) -> list[float]:
    """How far each jump time can still move after the end of ``track`` (the run whose end the jumps were read at):
    the jump rule reads τ_j where ln‖θ_j‖ crosses its value at rest − ln2/2 (the final value for a neuron not at rest
    before the end, `rest.rest_index`), so a final value that still moves by Δ_j
    moves the crossing by Δ_j / (d ln‖θ_j‖/dτ at the crossing). Δ_j = |rate at the end| / κ_j, κ_j the rate's decay
    over the last ``window`` (exponential convergence to a minimum); where the rate does not decay (a rate at the
    noise level), the rate times the end time. A run "at rest" by `at_rest` has rates below about 1e-9: a float64 bound
    covers that motion, the mpmath engine's or one at rtol 1e-12 need not (red team, session 29: jump times 2e-11 from
    the flow at rest against bounds of 8e-14 and 6.3e-12). inf where the crossing does not rise."""
    t = np.array([float(v) for v in track.t])
    end = t[-1]
    values = [np.array([float(v) for v in row]) for row in track.values]
    k0 = max(int(np.searchsorted(t, end - window, side="right")) - 1, 0)
    span = end - t[k0]
    if span <= 0:
        return [math.inf] * len(jumps)
    secant = (values[-1] - values[k0]) / span
    s1 = secant if track.slopes[-1] is None else np.array([float(v) for v in track.slopes[-1]])
    s0 = secant if track.slopes[k0] is None else np.array([float(v) for v in track.slopes[k0]])
    out = []
    for jp in jumps:
        j = jp.neuron
        if s0[j] * s1[j] > 0 and abs(s1[j]) < abs(s0[j]):
            moves = abs(s1[j]) * span / math.log(abs(s0[j]) / abs(s1[j]))  # |rate| / κ
        else:
            moves = abs(s1[j]) * end
        k = min(max(int(np.searchsorted(t, float(jp.tau))), 1), len(t) - 1)
        rise = (values[k][j] - values[k - 1][j]) / (t[k] - t[k - 1])
        out.append(moves / rise if rise > 0 else (0.0 if moves == 0 else math.inf))
    return out
