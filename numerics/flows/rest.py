"""Where a grown neuron first rests, and the point of that rest its jump is read against (the jump rule of
`numerics.flows.result`; paper C's incremental learning, C Theorem 2): `rest_index` on a run's step ends,
`_rest_within_steps` inside steps, `first_rest` and `_rest_value` for the reading, on a run's `NormTrack`.
"""
from __future__ import annotations

import math

import numpy as np

from .events import bracketed_root
from .norm_track import NormTrack


# A jumped neuron *rests* where |d ln‖θ_j‖/dτ| ≤ REST_RATE at every step end over REST_WINDOW of τ: the settling
# rule's thresholds (`numerics.flows.settle`: SETTLE_RTOL over SETTLE_DELAY; literal here, since settle imports this
# module). Its jump is read against its size there, not at the run's end: a later jump of other neurons can move it
# again, and read against the end its jump would move with them (red team, session 30: drawn general data at
# λ = 1e-10, neuron 2 rests at ln‖θ‖ = −0.238 from τ ≈ 40 to 80 with rates down to 6e-13, and grows to 1.061 with
# neurons 3 and 4 at τ ≈ 240, where half its final ‖θ‖² puts its jump, 227 later than its rise at 12.75).
REST_RATE = 1e-9
REST_WINDOW = 0.5
# A neuron that moves on from its first rest by at most this in ln‖θ_j‖ is read at the end (`first_rest`): 1e-6, far
# above what resting at REST_RATE leaves to converge (rate/κ with κ ∝ ln(1/λ): ≲ 1e-9), far below a later jump's
# change (1.3 in the red team's case, an O(1) factor in ‖θ_j‖ in general).
SAME_PLATEAU = 1e-6


def _rate(track: NormTrack, k: int, j: int) -> float:
    """d ln‖θ_j‖/d(time) at step end k: the track's slope, or the secant of the step ending there (inf at the start
    without a slope)."""
    slopes = track.slopes[k]
    if slopes is not None:
        return float(slopes[j])
    if k == 0:
        return math.inf
    return float(track.values[k][j] - track.values[k - 1][j]) / float(track.t[k] - track.t[k - 1])


def _rates(track: NormTrack, j: int) -> np.ndarray:
    """`_rate` at every step end, as a float array (vectorized on a track of float arrays: a run of engine "gd" has a
    step end per GD step)."""
    t, V, S, has = track.stacked()
    if V is None:
        return np.array([_rate(track, k, j) for k in range(len(t))])
    out = S[:, j].copy()
    if not has.all():
        ks = np.flatnonzero(~has)
        prev = np.maximum(ks - 1, 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[ks] = np.where(ks == 0, np.inf, (V[ks, j] - V[prev, j]) / (t[ks] - t[prev]))
    return out


def _reached(track: NormTrack, j: int, cut, start: int) -> int | None:
    """The first step end from ``start`` on where ln‖θ_j‖ ≥ ``cut`` (``start`` if cut is None), or None."""
    if cut is None:
        return start if start < len(track.t) else None
    V = track.stacked()[1]
    if V is None:
        return next((k for k in range(start, len(track.t)) if track.values[k][j] >= cut), None)
    hit = np.flatnonzero(V[start:, j] >= cut)
    return start + int(hit[0]) if hit.size else None


def rest_index(track: NormTrack, j: int, cut=None, per_tau: float = 1.0, start: int = 0) -> int | None:
    """The step end closing the first window of REST_WINDOW (in τ; ``per_tau``: the track's time units per unit of τ)
    over which neuron j's rate is at most REST_RATE at every step end, from ``start`` on and once ln‖θ_j‖ has reached
    ``cut``; None where it does not rest before the end. Rates are the track's slopes, or its secants where a step end
    has none. (Vectorized over step ends; `tests/test_rest_within_steps.py` keeps the step-by-step form as reference.)"""
    rate, window = REST_RATE / per_tau, REST_WINDOW * per_tau
    first = _reached(track, j, cut, start)
    if first is None:
        return None
    slow = np.abs(_rates(track, j)[first:]) <= rate
    t = track.stacked()[0][first:]
    index = np.arange(len(slow))
    opens = slow & ~np.concatenate(([False], slow[:-1]))  # the step end opening each run of slow step ends
    opened = np.maximum.accumulate(np.where(opens, index, -1))  # the last opening at or before each step end
    closes = slow & ~opens & (opened >= 0) & (t - t[np.maximum(opened, 0)] >= window)
    hit = np.flatnonzero(closes)
    return first + int(hit[0]) if hit.size else None


def first_rest(track: NormTrack, j: int, cut, per_tau: float = 1.0):
    """ln‖θ_j‖ where neuron j first rests after reaching ``cut`` (`rest_index`), if it moves on from there by more
    than SAME_PLATEAU. Read at the last zero of its rate inside that rest (from the window's opening to the last step
    end below REST_RATE), a local extremum of ln‖θ_j‖ located on the step's interpolant (`_rate_zero`): its value is
    first-order insensitive to where the point is, so runs that step differently read the same value (engine
    mpmath's precision guard compares jump times between 30 and 60 digits to 1e-23: red team, session 31, read at
    the slowest step end the two runs differed by 1.2e-13). Where the rate keeps its sign over the rest, at the
    slowest step end from the window's end on. Else, or where it does not rest before the end, its final value: a
    neuron that rests and then only converges is read at the end, as before, so that engines that resolve rates far
    below REST_RATE read the same value whatever their steps."""
    final = track.values[-1][j]
    k = rest_index(track, j, cut, per_tau)
    rates = _rates(track, j)
    if k is None:
        span = _rest_within_steps(track, j, cut, per_tau)
        if span is None:
            return final
        value = _rest_value(track, j, rates, *span)
        return value if abs(float(final - value)) > SAME_PLATEAU else final
    fast = np.flatnonzero(~(np.abs(rates) <= REST_RATE / per_tau))
    opening = int(fast[fast < k][-1]) + 1 if (fast < k).any() else 0  # the rest's first step end
    stop = int(fast[fast > k][0]) if (fast > k).any() else len(rates)  # … and one past its last
    # the steps from the one that enters the rest to the one that leaves it
    value = _rest_value(track, j, rates, max(opening, 1), min(stop, len(rates) - 1), slowest=(opening, stop))
    return value if abs(float(final - value)) > SAME_PLATEAU else final


def _rest_value(track: NormTrack, j: int, rates: np.ndarray, lo: int, hi: int, slowest=None):
    """ln‖θ_j‖ where a rest over the steps lo … hi (step q from step end q − 1 to q) is read: a point of the flow that
    does not depend on where the steps fall, located on the steps' interpolants, so that runs that step differently
    (engine mpmath's guard compares 30 and 60 digits to 1e-23) read the same value.

    1. The last zero of the rate (``rates``: `_rates`): at a step end whose rate is 0, or inside the last step whose
       end rates have opposite signs, the root of the step interpolant's rate (`NormTrack.rate_at`). A local extremum
       of ln‖θ_j‖: its value is first-order insensitive to where the point is. The last, not the first: a rest's
       first zero can lie next to its opening (a neuron that overshoots its plateau), while after the last zero the
       rate grows steadily as the neuron moves on. The steps entering and leaving the rest count (red team, session
       32: a zero in the step that leaves the rest was missed and the rest read 2.5e-10 above the extremum).
    2. Where the rate keeps its sign, its extremum, the slowest point of the rest: around the slowest step end (of
       ``slowest``, a range of step ends, else lo − 1 … hi), the root of the rate's derivative (`NormTrack.
       rate_slope_at`) in a step where it changes sign; its value moves with the point only at the rest's slowest
       rate (red team, session 32: at the slowest step end 30 and 60 digits differed by 3.3e-11).
    3. Else the slowest step end."""
    r = rates[lo - 1:hi + 1]  # step ends lo − 1 … hi
    zeros = np.flatnonzero(r == 0)
    turns = np.flatnonzero((r[1:] > 0) != (r[:-1] > 0))  # step lo + i has end rates of opposite signs
    zero = lo - 1 + int(zeros[-1]) if zeros.size else None
    turn = lo + int(turns[-1]) if turns.size else None
    pair = _zero_pair(track, j, rates, lo, hi)  # (step, a time between its two zeros)
    if pair is not None and (turn is None or pair[0] > turn) and (zero is None or pair[0] > zero):
        step, inside = pair
        root = bracketed_root(lambda t: track.rate_at(step, j, t), inside, track.t[step])
        return track.value_at(step, j, root)
    if zero is not None and (turn is None or zero + 1 >= turn):  # a zero at the step's start ranks before its turn
        return track.values[zero][j]
    if turn is not None:
        root = bracketed_root(lambda t: track.rate_at(turn, j, t), track.t[turn - 1], track.t[turn])
        return track.value_at(turn, j, root)
    first, stop = slowest if slowest is not None else (lo - 1, hi + 1)
    q = first + int(np.argmin(np.abs(rates[first:stop])))  # the slowest step end
    found = []
    for step in (q, q + 1):
        if not 1 <= step < len(rates):
            continue
        t0, t1 = track.t[step - 1], track.t[step]
        d0, d1 = track.rate_slope_at(step, j, t0), track.rate_slope_at(step, j, t1)
        if (d0 > 0) != (d1 > 0):
            t = bracketed_root(lambda t, step=step: track.rate_slope_at(step, j, t), t0, t1)
            found.append((abs(track.rate_at(step, j, t)), step, t))
    if found:
        _, step, t = min(found, key=lambda f: f[0])
        return track.value_at(step, j, t)
    return track.values[q][j]


REST_SAMPLES = 17  # points per step at which `_rest_within_steps` reads the interpolant's rate


def _float_columns(track: NormTrack, j: int, first: int):
    """Over the steps k = first … K − 1 of the track (K step ends), as float arrays: t_{k−1}, t_k, the rise
    ln‖θ_j(t_k)‖ − ln‖θ_j(t_{k−1})‖ (formed in the track's arithmetic, then rounded), the slopes at both ends (NaN
    where a step end has none). A track of float arrays is
    stacked once for all neurons (`NormTrack.stacked`), an mpmath one is read neuron by neuron."""
    K, stack = len(track.t), track.stacked()
    t = stack[0]
    if stack[1] is not None:
        V, S = stack[1], stack[2]
        rise, s0, s1 = V[first:, j] - V[first - 1:-1, j], S[first - 1:-1, j], S[first:, j]
    else:
        rise = np.array([float(track.values[k][j] - track.values[k - 1][j]) for k in range(first, K)])
        col = np.array([math.nan if s is None else float(s[j]) for s in track.slopes])
        s0, s1 = col[first - 1:-1], col[first:]
    return t[first - 1:-1], t[first:], rise, s0, s1


def _rest_within_steps(track: NormTrack, j: int, cut, per_tau: float = 1.0):
    """(first step, last step) of neuron j's first rest seen *inside* steps, or None: the rate of each step's cubic
    Hermite interpolant (the track's values and slopes at its ends) at REST_SAMPLES points, a rest being REST_WINDOW
    of them at most REST_RATE (`_rest_value` reads it). For a rest shorter than the integrator's steps, which step
    ends alone miss (red team, session 31: at λ = 2.5e-7 a rest of 2.2 in τ held one step end of DOP853's, 52.55,
    between 49.95 and 55.31, and the jump was read 289 later). Steps without slopes end a rest; a step with an
    engine's own interpolant is read on the Hermite too, which DOP853's dense output is within the integrator's error
    of (red team, session 32: a rest of 0.9 in τ inside such a step was missed at λ = 6e-7, and the jump read 300
    later).
    The steps are scanned from the first whose start has reached ``cut``. Vectorized over steps and points (a run of
    engine "gd" has one step per GD step: 29 474 of them took 3 s per run as a Python loop); the rates and times are
    the same floating-point operations as the step-by-step form (`tests/test_rest_within_steps.py` keeps it as the
    reference)."""
    rate, window = REST_RATE / per_tau, REST_WINDOW * per_tau
    K = len(track.t)
    reached = _reached(track, j, cut, 0)  # the first step end at or above the cut starts the first step scanned
    if reached is None or reached + 1 >= K:
        return None
    first = reached + 1
    t0, t1, rise, a, b = _float_columns(track, j, first)
    xs = np.linspace(0.0, 1.0, REST_SAMPLES)
    h = t1 - t0
    usable = ~np.isnan(a) & ~np.isnan(b) & (t1 > t0)  # (also a step with its own interpolant: red team, session 32)
    near = _steps_that_can_rest(t0, t1, np.abs(a) <= rate, np.abs(b) <= rate, window) & usable
    rates, times = np.full((len(h), REST_SAMPLES), np.inf), np.zeros((len(h), REST_SAMPLES))
    with np.errstate(all="ignore"):
        secant = rise[near] / h[near]
        rates[near] = np.abs(6 * xs * (1 - xs) * secant[:, None] + a[near, None] * (1 - xs) * (1 - 3 * xs)
                             - b[near, None] * xs * (2 - 3 * xs))  # |H'(t)|, as (steps, points)
        times[near] = t0[near, None] + xs * h[near, None]
    if track.stacked()[1] is not None:  # float64: a long step's own interpolant (DOP853's dense output) gives its rates
        for k in (k for k in track.exact if k >= first and near[k - first] and h[k - first] >= window):
            rates[k - first] = _own_rates(track.exact[k], j, times[k - first], h[k - first])
    slow = rates <= rate  # a step without slopes ends a rest (its rates stay inf)
    flat = slow.ravel()
    if not flat.any():
        return None
    edges = np.diff(np.concatenate(([False], flat, [False])).astype(np.int8))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1  # each maximal run of slow points
    tflat = times.ravel()
    long = np.flatnonzero(tflat[stops] - tflat[starts] >= window)
    if long.size == 0:
        return None
    lo, hi = int(starts[long[0]]), int(stops[long[0]])
    return first + lo // REST_SAMPLES, first + hi // REST_SAMPLES  # the steps holding its first and last points


def _zero_pair(track: NormTrack, j: int, rates: np.ndarray, lo: int, hi: int):
    """The last step q of lo … hi whose end rates have one sign while its cubic Hermite's rate, the quadratic
    A x² + B x + C in x = (t − t_{q−1})/h (C = s₀; A, B from s₁ and the secant), has two zeros inside: (q, the time
    of the rate's extremum, between them), or None. On an mpmath track the step's own rate decides, at its extremum.
    Red team, session 32: such a pair was missed, and the rest read 2.7e-10 above the later zero's value."""
    q = np.arange(lo, hi + 1)
    t = track.stacked()[0]
    V = track.stacked()[1]
    if V is not None:
        rise = V[q, j] - V[q - 1, j]
    else:
        rise = np.array([float(track.values[k][j] - track.values[k - 1][j]) for k in q.tolist()])
    s0, s1 = rates[q - 1], rates[q]
    with np.errstate(all="ignore"):
        secant = rise / (t[q] - t[q - 1])
        A, B = 3 * (s0 + s1) - 6 * secant, 6 * secant - 4 * s0 - 2 * s1  # rate(x) = 6x(1−x)S + s₀(1−x)(1−3x) − s₁x(2−3x)
        x = -B / (2 * A)
        at_vertex = s0 - B * B / (4 * A)
    inside = (s0 * s1 > 0) & (x > 0) & (x < 1)
    if V is not None:  # float64: the step's interpolant is this Hermite
        pairs = np.flatnonzero(inside & (at_vertex * s0 < 0))
        if not pairs.size:
            return None
        step = lo + int(pairs[-1])
        t0 = track.t[step - 1]
        return step, t0 + float(x[int(pairs[-1])]) * (track.t[step] - t0)
    for k in np.flatnonzero(inside)[::-1].tolist():  # mpmath: the extremum of the step's own rate decides, so that
        step = lo + k  # the decision does not depend on the Hermite's rounding (30 and 60 digits must agree)
        t0, t1 = track.t[step - 1], track.t[step]
        d0, d1 = track.rate_slope_at(step, j, t0), track.rate_slope_at(step, j, t1)
        if (d0 > 0) == (d1 > 0):
            continue
        extremum = bracketed_root(lambda t, step=step: track.rate_slope_at(step, j, t), t0, t1)
        if (track.rate_at(step, j, extremum) > 0) != (s0[k] > 0):
            return step, extremum
    return None


def _own_rates(interpolant, j: int, times, h: float) -> np.ndarray:
    """|d ln‖θ_j‖/dt| at ``times`` inside a step of length h ≥ REST_WINDOW, by central differences of the step's own
    float64 interpolant, δ = 1e-4 h: rounding ε|ln‖θ_j‖|/δ ≤ 4.4e-12 |ln‖θ_j‖| per unit of τ, and truncation
    δ²|f⁽³⁾|/6 vanishes with the third derivative on a rest. A step longer than a rest: its cubic Hermite cannot show
    the rest, its dense output can (red team, session 32: at λ = 6e-7 and the default rtol a rest of 0.9 in τ inside
    such a step was missed and the jump read 300 later). Shorter steps are read on the Hermite: a rest spans several
    of them, and their ends' slopes are exact."""
    delta = 1e-4 * h
    return np.array([abs(float(interpolant(t + delta, j) - interpolant(t - delta, j))) / (2 * delta)
                     for t in times.tolist()])


def _steps_that_can_rest(t0, t1, slow_start, slow_end, window) -> np.ndarray:
    """The steps that can hold part of a rest of ``window`` (by the points of `_rest_within_steps`): a run of slow points
    that crosses a step end holds that step end's point, the track's slope there, so it lies within a run of step ends
    with slow slopes and the two steps around it; one that crosses none lies inside one step. Every other step is left
    out without computing its rates: a step only in runs shorter than the window changes no outcome (a run of engine
    "gd" has a step end per GD step, 29 474 in 0.2 s of a 0.7 s run before this)."""
    n = len(t0)
    ends_t = np.concatenate((t0[:1], t1))  # step end e = step e's start (e < n) or step e − 1's end
    slow = np.concatenate((slow_start[:1], slow_end))  # (the shared ends hold one slope: step e's start is e − 1's end)
    edges = np.diff(np.concatenate(([False], slow, [False])).astype(np.int8))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1  # runs of slow step ends
    lo, hi = np.maximum(starts - 1, 0), np.minimum(stops + 1, n)  # … with the ends beyond them
    can = (t1 - t0 >= window)
    for p, q in zip(lo[ends_t[hi] - ends_t[lo] >= window].tolist(), hi[ends_t[hi] - ends_t[lo] >= window].tolist()):
        can[p:q] = True  # steps p … q − 1 join ends p … q
    return can
