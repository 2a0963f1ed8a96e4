"""The jump rule reads a neuron's jump against its size where it first rests (`numerics.flows.result._first_rest`),
not at the run's end: a neuron that rises, rests, and grows again later with other neurons jumps once, at its rise
(red team, session 30: read against the end, such a jump moved by 227 in τ; tests/test_red_team_session30.py runs
the flow itself). Here on exact curves, so that the expected crossing is known in closed form."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from relucheck.numerics.flows import result
from relucheck.numerics.flows.result import NormTrack, jump_times

START, FIRST, SECOND = -23.0, -0.24, 1.3  # ln‖θ‖: from λ's scale to a first plateau, then up by SECOND


def _logistic(x):
    return 0.5 * (1.0 + math.tanh(x / 2))


def _curve(t, k1=3.0, t1=12.7, k2=2.0, t2=80.0, drift=1e-10):
    """ln‖θ‖ and its rate: a rise to FIRST around t1 (steepness k1), a second rise by SECOND around t2 (k2), and a
    slow drift (the plateau's rates are then not exactly 0, so the rule's rate threshold matters)."""
    s1, s2 = _logistic(k1 * (t - t1)), _logistic(k2 * (t - t2))
    value = START + (FIRST - START) * s1 + SECOND * s2 + drift * t
    rate = (FIRST - START) * k1 * s1 * (1 - s1) + SECOND * k2 * s2 * (1 - s2) + drift
    return value, rate


def _track(scale=1.0, slopes=True, **shape):
    """Both curves on a grid of step 0.05 in τ, times in units scaled by ``scale`` (``scale`` units per τ)."""
    track = NormTrack()
    for tau in np.arange(0.0, 100.0 + 1e-9, 0.05):
        v, r = _curve(tau, **shape)
        track.append(float(tau) * scale, np.array([v]), np.array([r / scale]) if slopes else None)
    return track


def _crossing(level, lo, hi, **shape):
    return brentq(lambda t: _curve(t, **shape)[0] - level, lo, hi, xtol=1e-13)


def test_a_neuron_that_rests_and_grows_again_jumps_at_its_first_rise():
    (tau, j), = jump_times(_track(), np.array([1.0]))
    expected = _crossing(FIRST - math.log(2) / 2, 0.0, 40.0)  # half its ‖θ‖² on the first plateau (rests from τ ≈ 22)
    assert j == 0 and abs(float(tau) - expected) < 1e-6  # (cubic Hermite on steps of 0.05: error ~ h⁴ · |v''''|)


def test_mutant_read_against_the_end_jumps_at_the_second_rise(monkeypatch):
    """The rule before session 31, half the final ‖θ‖², puts the jump in the second rise; the test above sees it."""
    monkeypatch.setattr(result, "_first_rest", lambda track, j, cut, per_tau=1.0: track.values[-1][j])
    (tau, _), = jump_times(_track(), np.array([1.0]))
    assert float(tau) == pytest.approx(_crossing(FIRST + SECOND - math.log(2) / 2, 40.0, 100.0), abs=1e-6)
    assert float(tau) > 70.0


def test_a_neuron_that_never_rests_before_the_end_is_read_at_the_end():
    """A second rise close after the first (no window of 0.5 with rates ≤ 1e-9 between): it rests only after both
    and then moves on by the drift alone (6e-9 in ln‖θ‖, below SAME_PLATEAU): read at the end, as before."""
    shape = dict(t2=20.0, k2=1.0)
    (tau, _), = jump_times(_track(**shape), np.array([1.0]))
    final = _curve(100.0, **shape)[0]
    assert float(tau) == pytest.approx(_crossing(final - math.log(2) / 2, 0.0, 100.0, **shape), abs=1e-6)


def test_sampled_sizes_without_slopes_rest_by_their_secants():
    """Gradient descent's sampled sizes (`paper_c_runs.sampled_jump_times`) have no slopes: secants decide rest."""
    (tau, _), = jump_times(_track(slopes=False), np.array([1.0]))
    assert abs(float(tau) - _crossing(FIRST - math.log(2) / 2, 0.0, 40.0)) < 1e-3  # linear between samples


def test_a_track_in_units_of_t_rests_over_the_same_span_of_tau():
    """Window and rate are stated in τ; a run in units of t (``per_tau`` = ln(1/λ)) rests where its τ twin does."""
    L = 92.1
    (tau, _), = jump_times(_track(scale=L), np.array([1.0]), per_tau=L)
    assert float(tau) / L == pytest.approx(_crossing(FIRST - math.log(2) / 2, 0.0, 40.0), abs=1e-6)
    # a plateau drifting at 5e-9 per τ is not at rest; per unit of t (5.4e-11) it would be
    shape = dict(drift=5e-9)
    (tau, _), = jump_times(_track(scale=L, **shape), np.array([1.0]), per_tau=L)
    assert float(tau) / L > 70.0
    (unscaled, _), = jump_times(_track(scale=L, **shape), np.array([1.0]))  # mutant: τ's rate read per unit of t
    assert float(unscaled) / L < 20.0
