"""The float64 flow engine of `numerics.flows` on data of any kind, in real time t (papers A and B), and plain GD
(numerics/flows/batched_gd.py)."""
import numpy as np
import pytest

from relucheck.numerics import datasets, initializations
from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import EventKind, FlowProblem, Init, Status, solve
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import PAPER_A, field, loss


def _orthonormal_problem(seed=3):
    rng = np.random.default_rng(seed)
    X = datasets.orthonormal_inputs(6, 8, rng)
    y = rng.standard_normal(6)
    G, s = initializations.random_instance_directions(4, 8, rng)
    return X, y, Instance(X, y, G, s)


def flow(X, y, a0, W0, t_end, convention=PAPER_A, save_at=None, **options):
    problem = FlowProblem(X, y, Init.explicit(a0, W0), convention=convention, horizon=t_end, time_unit="t",
                          save_at=save_at)
    return solve(problem, "float64", save_params=True, **options)


def test_wrong_sign_components_deactivate_as_events_and_stay_frozen():
    X, y, inst = _orthonormal_problem()
    a0, W0 = initializations.balanced(inst, 0.3)
    res = flow(X, y, a0, W0, 40.0)
    assert res.status is Status.SUCCESS and res.events
    tr = res.trajectory
    Z = np.einsum("tmd,nd->tnm", tr.W, X)
    for ev in res.events:
        assert ev.kind is EventKind.DEACTIVATE
        later = tr.tau > ev.tau + 1e-9
        # C Assumption 2 on orthonormal data: once at zero, the component is frozen at zero
        assert np.all(np.abs(Z[later, ev.datum, ev.neuron]) <= 1e-12)


def test_loss_decreases_along_the_flow():
    """Correlated Gaussian data (n = 10 > d = 6): a gradient flow's loss never increases (to rounding)."""
    X = datasets.gaussian_inputs(10, 6, 0)
    y = datasets.linear_teacher(X, 1, noise=0.1)
    a0, W0 = initializations.dominated(5, 6, 0.5, 2)
    res = flow(X, y, a0, W0, 100.0)
    assert res.success, res.message
    assert np.all(np.diff(res.trajectory.loss) <= 1e-12)
    assert res.trajectory.loss[-1] < res.trajectory.loss[0]


def test_gd_small_steps_track_the_flow():
    X = datasets.gaussian_inputs(8, 5, 0)
    y = datasets.linear_teacher(X, 1)
    a0, W0 = initializations.dominated(4, 5, 0.8, 1)
    res = flow(X, y, a0, W0, 5.0, save_at=(0.0, 5.0))
    a, W = a0.copy(), W0.copy()
    descend(GDBatch.shared(X, y), a, W, 1e-3, 5000)
    # Euler's global error is O(step · t) = O(5e-3) relative to the motion; much tighter in practice
    assert np.allclose(a, res.trajectory.a[-1], atol=5e-3) and np.allclose(W, res.trajectory.W[-1], atol=5e-3)
    assert loss(X, y, a, W) == pytest.approx(res.trajectory.loss[-1], rel=1e-2)


def test_bad_arguments():
    X, y, inst = _orthonormal_problem()
    a0, W0 = initializations.balanced(inst, 0.1)
    with pytest.raises(RelucheckInputError, match="horizon must be a finite time > 0"):
        flow(X, y, a0, W0, -1.0)
    with pytest.raises(RelucheckInputError, match="learning rate must be > 0"):
        descend(GDBatch.shared(X, y), a0.copy(), W0.copy(), 0.0, 10)


def test_field_pattern_argument_freezes_inactive_components():
    X, y, inst = _orthonormal_problem()
    a0, W0 = initializations.balanced(inst, 0.3)
    active = np.zeros((6, 4), dtype=bool)
    da, dW = field(X, y, a0, W0, active=active)
    assert np.all(da == 0) and np.all(dW == 0)


def test_sliding_modes_follow_the_filippov_flow_of_the_mpmath_engine():
    """n = 5 > d = 4, B's convention: components slide on the kink (two of one neuron at once) and leave it both ways.
    The float64 engine and the mpmath engine (20 digits) find the same events and the same state."""
    from relucheck.numerics.network import paper_b

    rng = np.random.default_rng([0, 41])
    X = rng.standard_normal((5, 4)) / 2
    y = rng.choice([-1.0, 1.0], 5) * rng.uniform(1, 2, 5)
    W = rng.standard_normal((3, 4)) / 2
    a = rng.choice([-1.0, 1.0], 3) * np.linalg.norm(W, axis=1)
    res = flow(X, y, a, W, 5.0, convention=paper_b(3), rtol=1e-12, atol=1e-14)
    ref = solve(FlowProblem(X, y, Init.explicit(a, W), convention=paper_b(3), horizon=5.0, time_unit="t"), "mpmath",
                digits=20)
    assert res.status is Status.SUCCESS and ref.status is Status.SUCCESS
    assert [(e.kind, e.neuron, e.datum) for e in res.events] == [(e.kind, e.neuron, e.datum) for e in ref.events]
    assert {EventKind.SLIDE, EventKind.LEAVE_UP, EventKind.LEAVE_DOWN} <= {e.kind for e in res.events}
    assert np.allclose([e.tau for e in res.events], [e.tau for e in ref.events], atol=1e-9)
    assert np.abs(res.a - ref.a).max() < 1e-9
