"""The float64 runs that `proofs_checks.checks.engines_agreement` makes without the engine's review (issue 22, item 5):
the review (a rerun at rtol/100) never changes what those checks read of a run — its jumps, events, step count,
tolerances and step track — so skipping it leaves their records unchanged."""
import pytest

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.proofs_checks.checks.engines_agreement import LAM_CROSS, _unreviewed
from relucheck.proofs_checks.checks.paper_c_flow import golden_instance
from relucheck.theory.limit_process import limit_process_of


@pytest.mark.parametrize("basis", ["data", "inputs"])
def test_an_unreviewed_run_has_the_reviewed_runs_jumps_steps_and_track(basis):
    inst = golden_instance()
    problem = FlowProblem.from_instance(inst, LAM_CROSS, horizon=limit_process_of(inst).jumps[-1].tau + 0.5)
    reviewed, bare = solve(problem, "float64", basis=basis), _unreviewed(problem, basis=basis)
    assert reviewed.errors and not bare.errors  # the review ran on one of them only
    assert [(j.neuron, j.tau) for j in bare.jumps] == [(j.neuron, j.tau) for j in reviewed.jumps]
    assert [(e.tau, e.neuron, e.datum, e.kind) for e in bare.events] == [(e.tau, e.neuron, e.datum, e.kind)
                                                                         for e in reviewed.events]
    assert bare.stats["steps"] == reviewed.stats["steps"] and bare.tolerances == reviewed.tolerances
    assert list(bare.track.t) == list(reviewed.track.t) and set(bare.track.exact) == set(reviewed.track.exact)
