"""Friction list, session 32: `relucheck flow`'s cost check counted integrator steps, not the work in them: a new
user's n = d = m = 600 instance at λ = 1e-10 was accepted without --budget (86 steps by the stiffness estimate) and
ran one event per step at 1.3 s of CPU a step. The check now counts work (`numerics.flows.cost.run_seconds`: field
evaluations of 2·n·d·m products per step, one step per event at least) and refuses above 10 minutes, naming the
instance file and its sizes."""
from __future__ import annotations

import argparse
import math

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import cost
from relucheck.proofs_checks.commands import flow as flow_command
from relucheck.testing.strategies import random_general_instance


def _args(**kw):
    base = dict(instance="big.json", lam="1e-10", horizon=None, max_horizon=None, budget=None, engine=None,
                precision=None, rtol=None, step=None, times=None)
    return argparse.Namespace(**{**base, **kw})


@pytest.fixture
def plenty_of_memory(monkeypatch):
    monkeypatch.setattr(cost, "available_memory", lambda: 64 * 2.0 ** 30)


def test_the_new_users_600_cube_is_refused_naming_the_file_and_sizes(plenty_of_memory):
    """The mutant, the check before (steps alone, 86 ≪ 10⁶), accepts it: check_cost returns without a word."""
    instance = random_general_instance(600, 600, 600, 0)
    with pytest.raises(RelucheckInputError) as info:
        flow_command.check_cost(instance, _args(), None)
    said = str(info.value)
    assert said.startswith("instance file big.json: n = 600 data, d = 600, m = 600 neurons to τ = 100 take at least "
                           "about "), said
    assert "hours with the check run" in said and "without --budget" in said and "4.3·10⁸ products" in said


def test_with_a_budget_or_when_small_it_runs(plenty_of_memory, capsys):
    flow_command.check_cost(random_general_instance(600, 600, 600, 0), _args(budget=30.0), None)
    flow_command.check_cost(random_general_instance(64, 16, 16, 0), _args(), None)  # the issue-20 case: ≈ 1 s


def test_the_work_counts_the_field_per_step_and_the_events():
    """Seconds = (steps + events)·(STEP_SECONDS + CHECK_RUNS·EVALS_PER_STEP·products·seconds per product); the
    products grow with d (a mutant counting steps alone does not), orthonormal data have no d-long products."""
    general = cost.estimate(random_general_instance(50, 20, 30, 0).inputs, np.ones(50), 30, 23.0, 5.0)
    assert general.field_products == 2 * 50 * 20 * 30 and general.events == cost.EVENTS_PER_COMPONENT * 50 * 30
    expected = (general.steps + general.events) * (cost.STEP_SECONDS + cost.CHECK_RUNS * cost.EVALS_PER_STEP
                                                   * general.field_products * 1e-10)
    assert cost.run_seconds(general, 1e-10) == pytest.approx(expected, rel=1e-12)
    wider = cost.estimate(random_general_instance(50, 40, 30, 0).inputs, np.ones(50), 30, 23.0, 5.0)
    assert wider.field_products == 2 * general.field_products
    orthonormal = cost.estimate(np.eye(8), np.ones(8), 5, 23.0, 5.0)
    assert orthonormal.field_products == 2 * 8 * 5


def test_a_product_is_timed_and_refusals_round_their_numbers():
    seconds = cost.matmul_seconds(600, 600, 600)
    assert math.isfinite(seconds) and 0 < seconds < 1e-7  # one thread: ~4e-11 s here, far below a microsecond
    assert [cost.about(v) for v in (13.4, 90000.0, 4.32e8, 2.5)] == ["13", "90000", "4.3·10⁸", "2.5"]


def test_with_a_budget_the_large_request_note_counts_the_events(plenty_of_memory, capsys):
    """The note printed 'about 86 steps' (the stiffness alone) and 9e+04-style numbers; each event ends a step."""
    flow_command.check_cost(random_general_instance(600, 600, 600, 0), _args(budget=30.0), None)
    err = capsys.readouterr().err
    assert "a large request (about 90000 steps, one per event at least, of n·m·d = 216000000 products each" in err
