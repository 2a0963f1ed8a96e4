"""The jump rule's rest search, vectorized in session 32 (`rest._rest_within_steps`, `rest.rest_index`), against
its step-by-step forms of session 31 (kept here as the references, verbatim but for their names and for what the
in-step search returns: where it read its value, since session 32 reads a rest at a point of its own,
`rest._rest_value`, tests/test_jump_rule_rest.py): the same rests, on drawn tracks with rests shorter than a step,
steps without slopes, float arrays and mpmath values."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.flows import rest
from relucheck.numerics.flows.norm_track import NormTrack
from relucheck.numerics.flows.rest import REST_RATE, REST_SAMPLES, REST_WINDOW


def reference(track: NormTrack, j: int, cut, per_tau: float = 1.0):
    """Session 31's `_rest_within_steps` (3dc000f), a Python loop over steps and points; it returns the step and time
    of its reading (the slowest point of the rest) instead of the value there. (Session 31 also ended a rest at a step
    with an engine's own interpolant; session 32 reads those on the Hermite too: the drawn tracks below have none.)"""
    rate, window = REST_RATE / per_tau, REST_WINDOW * per_tau
    xs = np.linspace(0.0, 1.0, REST_SAMPLES)
    reached, opened, last, best = cut is None, None, None, None
    for k in range(1, len(track.t)):
        if not reached:
            reached = track.values[k - 1][j] >= cut
            if not reached:
                continue
        s0, s1 = track.slopes[k - 1], track.slopes[k]
        t0, t1 = float(track.t[k - 1]), float(track.t[k])
        if s0 is None or s1 is None or k in track.exact or not t1 > t0:
            if opened is not None and last - opened >= window:
                return best[1], best[2]
            opened = best = None
            continue
        h = t1 - t0
        secant = float(track.values[k][j] - track.values[k - 1][j]) / h
        a, b = float(s0[j]), float(s1[j])
        rates = np.abs(6 * xs * (1 - xs) * secant + a * (1 - xs) * (1 - 3 * xs) - b * xs * (2 - 3 * xs))
        for x, r in zip(xs.tolist(), rates.tolist()):
            t = t0 + x * h
            if r <= rate:
                if opened is None:
                    opened, best = t, (r, k, t)
                elif r < best[0]:
                    best = (r, k, t)
                last = t
            elif opened is not None:
                if last - opened >= window:
                    return best[1], best[2]
                opened = best = None
    if opened is not None and last - opened >= window:
        return best[1], best[2]
    return None


def reference_rest_index(track, j, cut=None, per_tau=1.0, start=0):
    """Session 31's `rest_index`, a loop over step ends."""
    rate, window = REST_RATE / per_tau, REST_WINDOW * per_tau
    opened = None
    reached = cut is None
    for k in range(start, len(track.t)):
        if not reached:
            reached = track.values[k][j] >= cut
            if not reached:
                continue
        r = rest._rate(track, k, j)
        if not abs(r) <= rate:
            opened = None
        elif opened is None:
            opened = float(track.t[k])
        elif float(track.t[k]) - opened >= window:
            return k
    return None


def _track(steps, m, rng, *, gaps, own, mp, flat, signed=True):
    """A track of ``steps`` step ends for m neurons: rises, then rests (rates of 1e-12 … 1e-7), some steps long
    enough that a rest falls between their ends."""
    track = NormTrack()
    t, v = 0.0, rng.normal(size=m) - 5.0
    for k in range(steps):
        slope = np.where(rng.random(m) < flat, rng.choice([1e-12, 3e-10, 2e-9, 1e-7], size=m) *
                         (rng.choice([-1.0, 1.0], size=m) if signed else 1.0), rng.normal(size=m))
        frozen = v.copy()  # an engine's own interpolant, here the step end's value
        if mp:
            track.append(mpmath.mpf(t), [mpmath.mpf(float(q)) for q in v],
                         None if k in gaps else [mpmath.mpf(float(q)) for q in slope],
                         (lambda s, j, v=frozen: mpmath.mpf(float(v[j]))) if k in own else None)
        else:
            track.append(t, v.copy(), None if k in gaps else slope.copy(),
                         (lambda s, j, v=frozen: float(v[j])) if k in own else None)
        h = float(rng.choice([0.01, 0.2, 0.7, 2.5]))
        t += h
        v = v + h * slope * (rng.random(m) < 0.7)
    return track


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(2, 60), mp=st.booleans(), flat=st.sampled_from([0.5, 0.9, 1.0]),
       per_tau=st.sampled_from([1.0, 23.0]))
def test_the_same_rests_as_the_step_by_step_form(seed, steps, mp, flat, per_tau):
    rng = np.random.default_rng(seed)
    gaps = set(rng.choice(steps, size=min(2, steps), replace=False).tolist()) if rng.random() < 0.5 else set()
    m = 3
    track = _track(steps, m, rng, gaps=gaps, own=set(), mp=mp, flat=flat)
    for j in range(m):
        for cut in (None, -6.0, -5.0, 100.0):
            want = reference(track, j, cut, per_tau)
            got = rest._rest_within_steps(track, j, cut, per_tau)
            assert (want is None) == (got is None), (j, cut)
            if want is not None:
                assert got[0] <= want[0] <= got[1], (j, cut, got, want)  # its slowest point is in the rest found


def test_rests_are_found_at_all():
    """The drawn tracks of the comparison contain rests (else it compares None with None)."""
    found = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        track = _track(40, 3, rng, gaps=set(), own=set(), mp=False, flat=1.0)
        found += sum(rest._rest_within_steps(track, j, None) is not None for j in range(3))
    assert found >= 20


def test_no_rest_where_a_step_without_slopes_cuts_it():
    track = NormTrack()
    track.append(0.0, np.array([0.0]), np.array([0.0]))
    track.append(0.3, np.array([0.0]), None)  # a step end without slopes: a rest cannot span it
    track.append(0.6, np.array([0.0]), np.array([0.0]))
    assert rest._rest_within_steps(track, 0, None) is None
    assert reference(track, 0, None) is None
    assert math.isclose(REST_WINDOW, 0.5)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(2, 60), mp=st.booleans(), flat=st.sampled_from([0.5, 0.9, 1.0]),
       per_tau=st.sampled_from([1.0, 23.0]), start=st.integers(0, 5), signed=st.booleans())
def test_rest_index_as_the_step_by_step_form(seed, steps, mp, flat, per_tau, start, signed):
    rng = np.random.default_rng(seed)
    gaps = set(rng.choice(steps, size=min(2, steps), replace=False).tolist()) if rng.random() < 0.5 else set()
    track = _track(steps, 3, rng, gaps=gaps, own=set(), mp=mp, flat=flat, signed=signed)
    for j in range(3):
        for cut in (None, -6.0, -5.0, 100.0):
            assert rest.rest_index(track, j, cut, per_tau, start) == reference_rest_index(track, j, cut, per_tau, start)
