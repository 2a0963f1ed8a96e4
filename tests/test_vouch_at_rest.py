"""A run that stopped before the flow was at rest, whose jumps at rest are other neurons (`numerics.flows.vouch.moved_at_rest`).

The check run of engine "float64" goes on until at rest (`vouch.extends`) and reads the jumps there. When the check read
at the run's end has the run's own jumping neurons, a difference at rest comes from where the run stopped, not from its
tolerance: the run succeeds and its jump times and plateaus get no bound (status TOLERANCE, and engine "auto"'s
escalation to mpmath, would say the tolerance was at fault). Measured on paper C's n = 256, m = 64 orthonormal
instance at λ = 1e-40 to Algorithm 1's last jump + 0.5 (`bench.race`, part 1): neuron 26 jumps at rest at τ = 37.56,
before the run's end 38.97, where it is still below the jump rule's floor.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.flows.norm_track import cut
from relucheck.numerics.flows.result import Jump, jump_times
from relucheck.numerics.flows.vouch import moved_at_rest
from relucheck.testing.strategies import random_general_instance


def _runs():
    instance = random_general_instance(5, 3, 4, 1)  # jumps at τ ≈ 7.55 and 10.50 (red team, session 28)
    rest = solve(FlowProblem.from_instance(instance, "1e-40", horizon=None, max_horizon=30.0), "float64")
    horizon = 0.5 * (rest.jumps[0].tau + rest.jumps[-1].tau)
    times = tuple(sorted(set(np.linspace(0.5, 29.0, 12).tolist()) | {horizon}))
    rest = solve(FlowProblem.from_instance(instance, "1e-40", horizon=None, max_horizon=30.0, save_at=times),
                 "float64")
    short = solve(FlowProblem.from_instance(instance, "1e-40", horizon=horizon), "float64")
    return instance, rest, short, horizon


def test_the_track_cut_at_a_runs_end_gives_that_runs_jumps():
    instance, rest, short, horizon = _runs()
    k = int(np.searchsorted(rest.trajectory.tau, horizon))
    assert rest.trajectory.tau[k] == horizon
    read = jump_times(cut(rest.track, horizon, list(rest.trajectory.log_norms[k])), np.asarray(instance.labels))
    assert [j for _, j in read] == [jp.neuron for jp in short.jumps] and read
    for (tau, _), jp, bound in zip(read, short.jumps, short.errors["jumps"], strict=True):
        assert abs(float(tau) - jp.tau) <= bound  # (the cut's last piece is linear: it holds no jump here)


def test_a_jump_seen_only_at_rest_withdraws_the_bounds_and_a_missing_one_at_the_end_does_not():
    instance, rest, short, horizon = _runs()
    problem = FlowProblem.from_instance(instance, "1e-40", horizon=horizon)
    assert moved_at_rest(short, rest, problem) is None  # the same neurons at rest and at the end
    extra = max(set(range(4)) - {jp.neuron for jp in rest.jumps})
    early = dataclasses.replace(rest, jumps=rest.jumps + [Jump(horizon - 0.1, extra, ())])
    reason = moved_at_rest(short, early, problem)
    assert reason and f"neuron {extra} jumps at τ = {horizon - 0.1:.6g}" in reason
    # mutant: the run misses a jump that the check read at the run's end has — its tolerance, not where it stopped
    missing = dataclasses.replace(short, jumps=short.jumps[1:])
    assert moved_at_rest(missing, early, problem) is None


@pytest.mark.full
def test_paper_c_n256_at_the_default_horizon_succeeds_without_jump_bounds():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.bench_engines import orthonormal_instance
    from relucheck.theory.limit_process import limit_process_of

    instance = orthonormal_instance(0, 256, 64)
    problem = FlowProblem.from_instance(instance, "1e-40", horizon=limit_process_of(instance).jumps[-1].tau + 0.5)
    result = solve(problem, "float64")
    assert result.success and result.errors["jumps"] is None
    assert "neuron 26 jumps at τ = 37.5" in result.errors["jumps_reason"]
