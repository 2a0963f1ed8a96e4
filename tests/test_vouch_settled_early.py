"""A run that settles early at its tolerance is not vouched for (`numerics.flows.vouch.settled_early`): when its check
run, continued to rest, has a jump after the run's end, or is not at rest itself by the end of its extension, the
status is TOLERANCE and engine auto escalates. Found by a new user (session 31) on drawn data at rtol 1e-5 and 1e-4:
status settled, a last plateau 6× its bound from the flow's, one neuron pair's jumps missing."""
from __future__ import annotations

import numpy as np
import pytest

from relucheck.numerics.flows import FlowProblem, Init, solve, vouch

# n = 4, d = 3, m = 4 (the user's draw): at rtol 1e-5 the run settles at τ = 25.99; neurons 2 and 3 jump at 28.137
LATE_PAIR = {"inputs": [[0.043, 0.867, 1.117], [-0.585, 1.219, -0.665], [-1.199, -0.556, -0.647], [-0.811, -1.834, 0.927]],
             "labels": [1.988, -0.09, 1.191, -0.763],
             "directions": [[0.3512372681274587, -0.8427220491928185, -0.40798520718601633],
                            [-0.5494296666016779, 0.18798904968012184, 0.8141174108556664],
                            [-0.31419151028536707, 0.3936316431454099, -0.8639084583329675],
                            [0.6040183073796986, 0.6520040357272956, -0.4583149809306731]],
             "signs": [-1, 1, -1, -1]}
# n = 3, d = 2, m = 3: at rtol 1e-4 the run settles at τ = 2.70, its check run is not at rest by twice that
NOT_AT_REST = {"inputs": [[1, 0.3], [0.2, 1], [-0.5, 0.7]], "labels": [1.0, 0.5, -0.7],
               "directions": [[0.6, 0.8], [1, 0], [-0.8, 0.6]], "signs": [1, -1, 1]}


def _problem(data) -> FlowProblem:
    directions = np.array(data["directions"], dtype=float)
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    init = Init.balanced(directions, np.array(data["signs"], dtype=float), "1e-10")
    return FlowProblem(np.array(data["inputs"], dtype=float), np.array(data["labels"], dtype=float), init)


@pytest.mark.parametrize("data, rtol, says", [(LATE_PAIR, 1e-5, "has later jumps (neuron 2 at τ = 28.137"),
                                              (NOT_AT_REST, 1e-4, "was not at rest there")])
def test_a_run_that_settled_early_is_not_vouched_for(data, rtol, says):
    run = solve(_problem(data), "float64", rtol=rtol)
    assert run.status.name == "TOLERANCE" and not run.success and not run.errors["vouched"]
    assert says in run.message


def test_mutant_without_the_test_vouches_for_a_wrong_last_plateau(monkeypatch):
    """Without it the run is settled and vouched, and its last plateau is further from the flow's than its bound."""
    reference = solve(_problem(LATE_PAIR), "float64", rtol=1e-12)
    assert reference.success and {2, 3} <= {jp.neuron for jp in reference.jumps}
    monkeypatch.setattr(vouch, "settled_early", lambda run, check, problem: None)
    run = solve(_problem(LATE_PAIR), "float64", rtol=1e-5)
    assert run.success and run.errors["vouched"]
    assert abs(run.plateaus[-1] - reference.plateaus[-1]) > run.errors["plateaus"][-1] + reference.errors["plateaus"][-1]


def test_engine_auto_escalates_and_finds_the_later_jumps():
    run = solve(_problem(LATE_PAIR), "auto", rtol=1e-5)
    assert run.engine == "mpmath" and run.success
    assert {2, 3} <= {jp.neuron for jp in run.jumps}
    assert run.stats["escalated_from"]["status"] == "tolerance"
