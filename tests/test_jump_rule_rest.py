"""The jump rule reads a neuron's jump against its size where it first rests (`numerics.flows.rest.first_rest`),
not at the run's end: a neuron that rises, rests, and grows again later with other neurons jumps once, at its rise
(red team, session 30: read against the end, such a jump moved by 227 in τ; tests/test_red_team_session30.py runs
the flow itself). Here on exact curves, so that the expected crossing is known in closed form."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from relucheck.numerics.flows import rest
from relucheck.numerics.flows.norm_track import NormTrack
from relucheck.numerics.flows.result import jump_times

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
    monkeypatch.setattr(rest, "first_rest", lambda track, j, cut, per_tau=1.0: track.values[-1][j])
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


# Session 32: a rest is read at the last zero of the rate inside it, else at the rate's extremum (`rest._rest_value`),
# not at the slowest step end, so that runs stepping differently read the same value (engine mpmath's guard compares
# them to 1e-23).

def _dip(t):
    """A rise to 0 around τ = 12, a local minimum of ln‖θ‖ at τ = 47 (curvature 2e-12) and a second rise by 0.01 around
    τ = 90: ln‖θ‖ and its rate. The rate is below 1e-9 from τ ≈ 18.1 to 81 and has two zeros there: a local maximum
    at τ ≈ 18.8, next to the rest's opening (step ends at 18.9 open the rest after it, at 19.0 before it: the first
    zero depends on the steps), and the minimum at 47."""
    s1, s2 = _logistic(4.0 * (t - 12.0)), _logistic(2.0 * (t - 90.0))
    value = -10.0 + 10.0 * s1 + 1e-12 * (t - 47.0) ** 2 + 0.01 * s2
    rate = 40.0 * s1 * (1 - s1) + 2e-12 * (t - 47.0) + 0.02 * s2 * (1 - s2)
    return value, rate


def _slow_growth(t):
    """The same rises, but on the plateau ln‖θ‖ grows at the rate 2e-10 + 1e-12 (τ − 47)², which keeps its sign: its
    slowest point is τ = 47."""
    s1, s2 = _logistic(4.0 * (t - 12.0)), _logistic(2.0 * (t - 90.0))
    value = -10.0 + 10.0 * s1 + 2e-10 * (t - 47.0) + 1e-12 * (t - 47.0) ** 3 / 3 + 0.01 * s2
    rate = 40.0 * s1 * (1 - s1) + 2e-10 + 1e-12 * (t - 47.0) ** 2 + 0.02 * s2 * (1 - s2)
    return value, rate


def _dip_track(step, offset, curve=_dip):
    track = NormTrack()
    for tau in [0.0] + list(np.arange(offset, 100.0, step)) + [100.0]:
        v, r = curve(float(tau))
        track.append(float(tau), np.array([v]), np.array([r]))
    return track


READINGS = [(0.7, 0.0), (1.1, 0.3), (0.9, 0.45)]  # step ends at different places around τ = 47


def test_the_rest_is_read_at_the_local_extremum_whatever_the_steps():
    values = [rest.first_rest(_dip_track(*grid), 0, -1.0) for grid in READINGS]
    exact = _dip(47.0)[0]  # the cubic Hermite reproduces the quadratic dip: the minimum to rounding
    assert max(abs(float(v) - exact) for v in values) <= 1e-14, [float(v) - exact for v in values]


def test_a_rest_whose_rate_keeps_its_sign_is_read_at_its_slowest_point_whatever_the_steps():
    values = [float(rest.first_rest(_dip_track(*grid, curve=_slow_growth), 0, -1.0)) for grid in READINGS]
    exact = _slow_growth(47.0)[0]  # within the Hermite's error on the cubic (h⁴ · 0): to rounding
    assert max(abs(v - exact) for v in values) <= 1e-14, [v - exact for v in values]


def _slowest_step_end(track, j, rates, lo, hi, slowest=None):
    """Mutant: the reading before session 32, the slowest step end of the rest."""
    first, stop = slowest if slowest is not None else (lo - 1, hi + 1)
    return track.values[first + int(np.argmin(np.abs(rates[first:stop])))][j]


@pytest.mark.parametrize("curve", [_dip, _slow_growth])
def test_mutant_read_at_the_slowest_step_end_depends_on_the_steps(monkeypatch, curve):
    monkeypatch.setattr(rest, "_rest_value", _slowest_step_end)
    values = [float(rest.first_rest(_dip_track(*grid, curve=curve), 0, -1.0)) for grid in READINGS]
    assert max(values) - min(values) > 1e-14, values


def test_mutant_read_at_the_first_zero_depends_on_the_steps(monkeypatch):
    """The first zero of the rate in the rest (the local maximum at τ ≈ 18.8, next to the rest's opening) is seen by
    some step placements and not by others."""
    def first_zero(track, j, rates, lo, hi, slowest=None):
        for q in range(lo, hi + 1):
            before, after = rates[q - 1], rates[q]
            if (after > 0) != (before > 0):
                root = rest.bracketed_root(lambda t, q=q: track.rate_at(q, j, t), track.t[q - 1], track.t[q])
                return track.value_at(q, j, root)
        return _slowest_step_end(track, j, rates, lo, hi, slowest)

    monkeypatch.setattr(rest, "_rest_value", first_zero)
    values = [float(rest.first_rest(_dip_track(*grid), 0, -1.0)) for grid in READINGS]
    assert max(values) - min(values) > 1e-14, values
