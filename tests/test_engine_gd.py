"""Engine "gd" (numerics/flows/engines/gd.py): the result through `solve`, linear sampling between steps, settling,
an unstable step, its domain. Its first-order convergence to the flow on drawn non-orthogonal instances with mixed
signs (and through sliding on one and two kinks) is tests/test_flow_vs_gd.py."""
import math

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import FlowProblem, Init, Status, solve
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.network import paper_b
from relucheck.testing.strategies import random_general_instance


def test_result_through_solve():
    inst = random_general_instance(6, 3, 5, 1)  # (its first jump is at τ = 5.10: the run goes past it)
    save = tuple(np.linspace(0, 5.6, 13))
    res = solve(FlowProblem.from_instance(inst, "1e-10", horizon=5.6, save_at=save), "gd", step=0.02)
    assert res.status is Status.SUCCESS and res.success and res.engine == "gd" and res.precision == "float64"
    assert res.events == []  # GD locates no events: it crosses kinks step by step
    assert res.jumps and res.plateaus[-1] == pytest.approx(res.final_loss)  # from the loop's one jump rule
    assert np.array_equal(res.trajectory.tau, np.array(save)) and res.end == 5.6
    steps = math.ceil(5.6 / (0.02 / res.log_inv_lambda) - 1e-9)
    assert res.stats["gd_steps"] == steps and res.stats["nfev"] == steps + 1  # one field evaluation per step
    assert res.stats["pattern_changes"] > 0 and res.tolerances["step_t"] == 0.02
    json = res.to_json()
    assert json["status"] == "success" and json["events"] == [] and len(json["trajectory"]["loss"]) == len(save)


def test_samples_interpolate_linearly_between_the_two_steps_around_a_time():
    """A requested time between steps k and k+1 gets (1 − x) θ_k + x θ_{k+1}, θ_k from the core's own steps."""
    inst = random_general_instance(5, 3, 2, 7)
    eta, T = 0.05, 2.0  # time unit t: a step is η
    problem = FlowProblem(inst.inputs, inst.labels, Init.balanced(inst.directions, inst.signs, "0.01"), horizon=T,
                          time_unit="t", save_at=(0.0, 0.512, 1.3333))
    res = solve(problem, "gd", step=eta, save_params=True)
    for t, a_t, W_t in zip(res.trajectory.tau, res.trajectory.a, res.trajectory.W):
        k, x = int(t // eta), (t - eta * int(t // eta)) / eta
        a, W = 0.01 * inst.signs.astype(float), 0.01 * inst.directions.astype(float)
        P = GDBatch.shared(inst.inputs, inst.labels)
        descend(P, a, W, eta, k)
        a1, W1 = a.copy(), W.copy()
        descend(P, a1, W1, eta, 1)
        assert np.allclose(a_t, (1 - x) * a + x * a1, rtol=1e-12, atol=1e-15)
        assert np.allclose(W_t, (1 - x) * W + x * W1, rtol=1e-12, atol=1e-15)


def test_settles_without_a_horizon_and_paper_b_convention():
    inst = random_general_instance(4, 3, 3, 2)
    res = solve(FlowProblem.from_instance(inst, "1e-6"), "gd", step=0.05)
    assert res.status is Status.SETTLED, res.message
    b = FlowProblem(inst.inputs, inst.labels, Init.explicit(inst.signs, inst.directions), convention=paper_b(3),
                    horizon=4.0, time_unit="t")
    ref, gd = solve(b, "float64"), solve(b, "gd", step=1e-3)
    assert gd.status is Status.SUCCESS and abs(gd.final_loss - ref.final_loss) <= 1e-2 * max(ref.final_loss, 1e-3)


def test_an_unstable_step_fails_and_keeps_the_last_finite_state():
    inst = random_general_instance(6, 3, 5, 1)
    problem = FlowProblem(inst.inputs, 100 * inst.labels, Init.explicit(inst.signs, inst.directions), horizon=50.0,
                          time_unit="t")
    res = solve(problem, "gd", step=0.5)
    assert res.status is Status.SOLVER_FAILED and not res.success
    assert "GD is unstable at this step size" in res.message
    assert np.all(np.isfinite(res.a)) and np.all(np.isfinite(res.W)) and math.isfinite(res.final_loss)


def test_domain_any_lambda_and_refusals():
    """λ below float64's range is an ordinary run (log-scale state); the same GD iterates as raw coordinates above it."""
    inst = random_general_instance(4, 3, 2, 3)
    for bad in (0.0, -1.0, float("nan"), float("inf"), "0.1", True):
        with pytest.raises(RelucheckInputError, match="step .* must be a finite number > 0"):
            solve(FlowProblem.from_instance(inst, "1e-5", horizon=1.0), "gd", step=bad)
    res = solve(FlowProblem.from_instance(inst, "1e-1000", horizon=0.5), "gd", step=0.5)
    assert res.status is Status.SUCCESS and np.all(np.isfinite(res.final_log_norms))
    # ρ_j(0) = ln λ exactly for the unit (â_j, ŵ_j)/√2 of a balanced start: ln(√2 λ)
    assert res.trajectory.log_norms[0] == pytest.approx(np.full(2, math.log(math.sqrt(2)) - 1000 * math.log(10)), rel=1e-15)
    # raw GD (the batched core on (a, W)) and the log-scale stepper: the same iterates at λ = 1e-3, to rounding
    eta, steps = 0.05, 40
    problem = FlowProblem(inst.inputs, inst.labels, Init.balanced(inst.directions, inst.signs, "1e-3"), horizon=eta * steps,
                          time_unit="t")
    res = solve(problem, "gd", step=eta)
    a, W = 1e-3 * inst.signs.astype(float), 1e-3 * inst.directions.astype(float)
    descend(GDBatch.shared(inst.inputs, inst.labels), a, W, eta, steps)
    assert np.allclose(res.a, a, rtol=1e-11, atol=0) and np.allclose(res.W, W, rtol=1e-11, atol=1e-300)
