"""Engine "gd" takes up to K GD steps per call of the loop (numerics/flows/engines/gd.py, Cost; issue 22, item 4).

The steps of a call are the one-step form's to the last bit, and the loop records each of their ends
(numerics/flows/step_ends.py): a run with K substeps per call and the same run with one (MAX_SUBSTEPS = 1, the loop's
generic path) give the same record — samples, parameters, final state, status, message, statistics, jumps, plateaus
and the norm track (`tests/test_step_ends.record`). Drawn general instances with mixed signs, at λ = 1e-10 and
1e-1000 (log-scale form), a horizon that is not a multiple of the step (a shortened last step), and an unstable step
whose overflow falls inside a call (the steps before it are kept and recorded, the failure is reported after them).
"""
import numpy as np
import pytest

from relucheck.numerics.flows import FlowProblem, Init, solve
from relucheck.testing.strategies import random_general_instance
from tests.test_step_ends import assert_same, pair


def _pair(problem, **options):
    return pair(problem, save_params=True, **options)


@pytest.mark.parametrize("seed, lam", [(1, "1e-10"), (3, "1e-10"), ([0, 71, 1], "1e-1000")])
def test_substeps_give_the_one_step_iterates(seed, lam):
    inst = random_general_instance(6, 3, 5, seed)
    horizon = 6.0 if lam == "1e-10" else 0.3  # at λ = 1e-10 past the first jumps (τ = 5.10 for seed 1)
    problem = FlowProblem.from_instance(inst, lam, horizon=horizon, save_at=tuple(np.linspace(0.0, horizon, 37)))
    many, one = _pair(problem, step=0.03)
    assert_same(many, one)
    if lam == "1e-10":
        assert many.jumps  # the jump rule ran on every step end of the calls


@pytest.mark.parametrize("save_at", [(0.0, 0.25, 0.5, 1.0, 50.0), None])
def test_a_failure_inside_a_call_keeps_the_steps_before_it(save_at):
    inst = random_general_instance(6, 3, 5, 1)  # labels × 100 at an O(1) start: GD at η = 0.5 is unstable
    problem = FlowProblem(inst.inputs, 100 * inst.labels, Init.explicit(inst.signs, inst.directions), horizon=50.0,
                          time_unit="t", save_at=save_at)
    many, one = _pair(problem, step=0.5)
    assert not many.success and "overflowed at step" in many.message
    assert 1 < many.stats["gd_steps"] < 100  # inside the first call (K = 128 here), after some steps
    assert_same(many, one)


def test_statistics_and_the_landing_step_are_those_of_plain_gradient_descent():
    """Against the batched GD core in raw coordinates (`descend`, one problem): the steps (61: 60 of η and a last one
    of 0.01 landing on the horizon), the final state, and the counts of steps whose pattern changed, of component
    flips and of loss rises, read from the core's own states."""
    from relucheck.numerics.flows.batched_gd import GDBatch, descend

    inst = random_general_instance(6, 3, 5, 9)  # components chatter across kinks, several in one step at times
    eta, horizon = 0.05, 3.01
    a0, W0 = 0.3 * inst.signs.astype(float), 0.3 * np.asarray(inst.directions, dtype=float)
    problem = FlowProblem(inst.inputs, inst.labels, Init.explicit(a0, W0), horizon=horizon, time_unit="t",
                          save_at=(0.0, horizon))
    res = solve(problem, "gd", step=eta)
    states = []

    def record(_k, field, a, W):
        states.append((inst.inputs @ W.T > 0, float(field.loss())))

    core, a, W = GDBatch.shared(inst.inputs, inst.labels), a0.copy(), W0.copy()
    descend(core, a, W, eta, 60, observe=record)
    _, last = descend(core, a, W, horizon - 60 * eta, 1, observe=record)
    states.append((inst.inputs @ W.T > 0, float(last.loss())))
    flips = [int(np.count_nonzero(p != q)) for (p, _), (q, _) in zip(states, states[1:])]
    rises = sum(b > a for (_, a), (_, b) in zip(states, states[1:]))
    assert res.stats["gd_steps"] == 61 and res.end == horizon
    assert np.allclose(res.a, a, rtol=1e-12, atol=0) and np.allclose(res.W, W, rtol=1e-12, atol=0)
    assert sum(flips) > 0 and res.stats["component_flips"] == sum(flips)
    assert res.stats["pattern_changes"] == sum(f > 0 for f in flips) < sum(flips)
    assert res.stats["loss_rises"] == rises
