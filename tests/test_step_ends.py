"""The loop records every step end of a stepper that takes many steps per call (numerics/flows/step_ends.py; engine
"gd", issue 22 item 4) exactly as it records the one-step path's: on drawn general instances with mixed signs, at
λ = 1e-2, 1e-10 and 1e-1000, with sample times, every step end recorded, no horizon (the settling rule, read at every
step end: the run stops inside a call), ``static_after`` (`settle.at_rest`), a step limit and (a, W) kept, a run with
K steps per call and the same run with one (MAX_SUBSTEPS = 1: the loop's generic path, as for any stepper) give the
same record to the last bit: status and message, trajectory, final state, jumps, plateaus, the norm track, every
statistic. Mutants: a settling filter that rejects all (SLACK = 0) and a stepper whose calls report only their last
step end are both told apart.
"""
import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from relucheck.numerics.flows import FlowProblem, Status, solve
from relucheck.numerics.flows import step_ends
from relucheck.numerics.flows.engines import gd as gd_engine
from relucheck.testing.strategies import random_general_instance

UNCOMPARED = {"wall_seconds", "gd_steps_per_call"}  # the clock, and K itself


def record(res) -> dict:
    """Everything a run records, as exactly comparable values."""
    tr = res.trajectory
    return {"status": res.status, "message": res.message, "events": res.events,
            "trajectory": [None if v is None else np.asarray(v).tobytes() for v in (tr.tau, tr.loss, tr.log_norms, tr.a, tr.W)],
            "final": [np.asarray(v).tobytes() for v in (res.a, res.W, res.final_log_norms)],
            "squared_norm": res.squared_norm, "interpolates": res.interpolates,
            "jumps": [(jp.tau, jp.neuron, jp.fitted) for jp in res.jumps], "plateaus": res.plateaus,
            "track": (np.array(res.track.t).tobytes(), np.array(res.track.values).tobytes(),
                      np.array(res.track.slopes).tobytes()),
            "stats": repr({k: v for k, v in res.stats.items() if k not in UNCOMPARED})}


def pair(problem, **options):
    """(K steps per call, one step per call) records of the same run."""
    many = solve(problem, "gd", **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gd_engine, "MAX_SUBSTEPS", 1)
        one = solve(problem, "gd", **options)
    assert many.stats["gd_steps_per_call"] > 1 and one.stats["gd_steps_per_call"] == 1
    return many, one


def assert_same(many, one):
    a, b = record(many), record(one)
    for key in a:
        assert a[key] == b[key], key


@st.composite
def runs(draw):
    n, d, m = draw(st.integers(3, 7)), draw(st.integers(2, 4)), draw(st.integers(2, 5))
    inst = random_general_instance(n, d, m, draw(st.integers(0, 10_000)))
    lam = draw(st.sampled_from(["1e-2", "1e-10", "1e-1000"]))
    mode = draw(st.sampled_from(["samples", "every", "settle", "static_after"]))
    step = draw(st.sampled_from([0.02, 0.05, 0.13]))
    options = {"step": step, "save_params": draw(st.booleans())}
    if draw(st.integers(0, 3)) == 0:
        options["max_steps"] = draw(st.integers(1, 400))
    if mode in ("samples", "every"):
        horizon = draw(st.sampled_from([0.7, 3.3, 7.0])) if lam != "1e-1000" else 0.05
        save = tuple(np.linspace(0.0, horizon, draw(st.integers(2, 40)))) if mode == "samples" else None
        problem = FlowProblem.from_instance(inst, lam, horizon=horizon, save_at=save)
    else:  # no horizon: the settling rule ends the run (at λ = 1e-10 drawn runs settle within 40 in τ, most of them)
        save = tuple(np.linspace(0.0, 40.0, draw(st.integers(2, 60)))) if draw(st.booleans()) else None
        problem = FlowProblem.from_instance(inst, draw(st.sampled_from(["1e-2", "1e-10"])), max_horizon=40.0, save_at=save)
        if mode == "static_after":
            options["static_after"] = draw(st.sampled_from([1.0, 8.0]))
    return problem, options


@given(runs())
def test_many_steps_per_call_record_what_one_step_per_call_records(case):
    problem, options = case
    many, one = pair(problem, **options)
    event(f"{many.status.name}{', static_after' if 'static_after' in options else ''}")
    assert_same(many, one)


def _settling():
    inst = random_general_instance(5, 3, 4, 1)  # settles at τ = 15.04 after 6927 GD steps of 0.05
    return FlowProblem.from_instance(inst, "1e-10", max_horizon=40.0)


def test_the_run_settles_inside_a_call_where_the_one_step_path_settles():
    many, one = pair(_settling(), step=0.05)
    assert many.status is Status.SETTLED and many.end < 40.0
    assert many.stats["gd_steps"] % many.stats["gd_steps_per_call"] != 0  # stopped inside a call (`keep`)
    assert_same(many, one)


def test_a_filter_that_rejects_every_step_end_is_seen():
    """Mutant: the settling filter rejects every step end (SLACK = 0), so the batched run never settles."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(step_ends, "SLACK", 0.0)
        many, one = pair(_settling(), step=0.05)
    assert one.status is Status.SETTLED and many.status is not Status.SETTLED
    with pytest.raises(AssertionError):
        assert_same(many, one)


def test_a_stepper_reporting_only_its_last_step_end_is_seen():
    """Mutant: each call reports its last step end only (a loop that sees one step per call, as before)."""
    real = gd_engine.GDStepper.ends

    def last_only(self, params):
        times, loss, values, rates, a, W = real(self, params)
        return times[-1:], loss[-1:], values[-1:], rates[-1:], None if a is None else a[-1:], None if W is None else W[-1:]

    problem = FlowProblem.from_instance(random_general_instance(6, 3, 5, 1), "1e-10", horizon=6.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gd_engine.GDStepper, "ends", last_only)
        many, one = pair(problem, step=0.03)
    with pytest.raises(AssertionError):
        assert_same(many, one)
