"""Engine "mpmath" (`numerics.flows.engines.taylor`) behind the flow contract: its domain, agreement with the float64
engine and with Algorithm 1, the limit of gradient descent through sliding on one and two kinks (property test),
times at working precision, the precision guard, and the escalation of `solve(..., "auto")`."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import FlowProblem, Init, Status, get_engine, solve
from relucheck.numerics.flows.engines import taylor_guard
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import field, loss, paper_b
from relucheck.proofs_checks.checks.paper_c_flow import golden_instance


def _golden(lam="1e-10", **kw):
    return FlowProblem.from_instance(golden_instance(), lam, horizon=1.45, **kw)


def _general(seed, n=5, d=3, m=3, lam="1e-6", **kw):
    """Unit inputs in R^d with n > d (correlated: sliding is common), mixed label and output signs, C's init."""
    rng = np.random.default_rng([seed, 7])
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 1.5, n)
    G = rng.standard_normal((m, d))
    G /= np.linalg.norm(G, axis=1, keepdims=True)
    return FlowProblem(X, y, Init.balanced(G, rng.choice([-1.0, 1.0], m), lam), **kw)


def _former_chatter_draw(**kw):
    """n = 5 > d = 4, B's convention: neuron 0 slides on two data at once (the old event-only engine chattered)."""
    rng = np.random.default_rng([0, 41])
    X = rng.standard_normal((5, 4)) / 2
    y = rng.choice([-1.0, 1.0], 5) * rng.uniform(1, 2, 5)
    W = rng.standard_normal((3, 4)) / 2
    a = rng.choice([-1.0, 1.0], 3) * np.linalg.norm(W, axis=1)
    return FlowProblem(X, y, Init.explicit(a, W), convention=paper_b(3), time_unit="t", **kw)


def most_sliding_at_once(events) -> int:
    """The largest number of data one neuron slides on at the same time, read from the event sequence."""
    sliding, most = {}, 0
    for e in events:
        held = sliding.setdefault(e.neuron, set())
        if e.kind.value == "slide":
            held.add(e.datum)
        elif e.datum in held:
            held.discard(e.datum)
        most = max(most, len(held))
    return most


# --- domain -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"digits": 10}, "precision of 10 digits is too low"),
    ({"digits": 20.5}, "integer number of decimal digits"),
    ({"order": 2}, "order must be an integer ≥ 4"),
    ({"kernel": "fast"}, "kernel must be one of"),
    ({"guard": "yes"}, "guard must be True or False"),
])
def test_bad_options_are_refused_with_their_name(options, message):
    with pytest.raises(RelucheckInputError, match=message):
        solve(_golden(), "mpmath", **options)


def test_limb_kernel_refuses_what_it_cannot_take():
    with pytest.raises(RelucheckInputError, match="orthonormal inputs"):
        solve(_general(0), "mpmath", kernel="limbs")
    inst = golden_instance()
    problem = FlowProblem(inst.inputs, inst.labels, Init.balanced(inst.directions, inst.signs, "1e-5"),
                          convention=paper_b(3), horizon=1.0)
    with pytest.raises(RelucheckInputError, match="power-of-two"):
        solve(problem, "mpmath", kernel="limbs")


def test_engine_is_listed_with_its_domain():
    eng = get_engine("mpmath")
    assert "any data" in eng.domain.description and {"digits", "kernel", "guard"} <= set(eng.options)


# --- agreement ----------------------------------------------------------------------------------------------------

def test_golden_agrees_with_float64_and_both_kernels_agree():
    limbs = solve(_golden(), "mpmath", digits=20)
    arb_run = solve(_golden(), "mpmath", digits=20, kernel="arb")
    ref = solve(_golden(), "float64")
    assert limbs.status is Status.SUCCESS and limbs.precision == "mpmath 20 digits"
    assert (limbs.stats["kernel"], arb_run.stats["kernel"]) == ("limbs", "arb")
    assert [(jp.neuron, jp.fitted) for jp in limbs.jumps] == [(0, (0, 1)), (1, (2, 3))]
    assert np.allclose([jp.tau for jp in limbs.jumps], [jp.tau for jp in ref.jumps], atol=1e-7)
    with mpmath.workdps(20):  # the kernels differ by their truncations only (a few units of 10^-20 per step)
        assert max(abs(u.exact - v.exact) for u, v in zip(limbs.jumps, arb_run.jumps, strict=True)) < 1e-15
    assert limbs.stats["balancedness_drift"] < 1e-17


def test_tiny_lambda_keeps_relative_precision():
    """λ = 1e-330 (below float64's range), one neuron: the jump at τ_1 = 1/γ + C_1/ln(1/λ) + O(λ^c)."""
    inst = Instance(np.eye(2), np.array([1.0, -1.0]), np.array([[1.0, 0.0]]), np.ones(1))
    run = solve(FlowProblem.from_instance(inst, "1e-330", horizon=2.3), "mpmath", digits=20)
    C1 = math.log(1 / ((1 + 1) / 2)) / 0.5  # κ = 1 (aligned), γ = ‖y_S‖/n = 1/2
    assert abs(run.jumps[0].tau - (2 + C1 / (330 * math.log(10)))) < 1e-6
    assert isinstance(run.jumps[0].exact, mpmath.mpf)


def test_general_data_through_sliding_agrees_with_float64():
    """The former chatter draw: the same events (two kinks of neuron 0 at once) and states equal to float64's rtol."""
    problem = _former_chatter_draw(horizon=5.0)
    run = solve(problem, "mpmath", digits=20)
    ref = solve(problem, "float64", rtol=1e-12, atol=1e-14)
    assert run.status is ref.status is Status.SUCCESS
    assert [(e.neuron, e.datum, e.kind) for e in run.events] == [(e.neuron, e.datum, e.kind) for e in ref.events]
    assert most_sliding_at_once(run.events) == 2 and {"leave_up", "leave_down"} <= {e.kind.value for e in run.events}
    assert np.allclose([float(e.exact) for e in run.events], [e.tau for e in ref.events], atol=1e-9)
    assert np.abs(run.a - ref.a).max() < 1e-9 and np.abs(run.W - ref.W).max() < 1e-9


def _sliding_draw(attempt, **kw):
    """B's convention (p = 3), Gaussian data n = 4 < d = 8: draws 2 and 4 of default_rng([0, 41, ·]) reach a sliding
    mode (a component pushed onto the kink from both sides); draw 2 also leaves one upwards."""
    n, d, p = 4, 8, 3
    rng = np.random.default_rng([0, 41, attempt])
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    W = rng.standard_normal((p, d)) / np.sqrt(d)
    a = rng.choice([-1.0, 1.0], p) * np.linalg.norm(W, axis=1)
    return FlowProblem(X, y, Init.explicit(a, W), convention=paper_b(p), time_unit="t", **kw)


@pytest.mark.parametrize("attempt, t_end", [(4, 1.0), (2, 5.0), ("chatter", 5.0)])
def test_sliding_flow_is_the_first_order_limit_of_gradient_descent_in_the_parameters(attempt, t_end):
    """Through sliding modes (and out of them: draw 2 upwards, the former chatter draw both ways, with two components
    of a neuron sliding at once) the flow is the limit of plain GD with σ'(0) = 0: GD's distance to the final (a, W)
    falls like the learning rate, and balancedness holds across the sliding."""
    from relucheck.proofs_checks.checks.high_precision import balance_drift

    kw = {"horizon": t_end, "save_at": tuple(np.linspace(0, t_end, 11))}
    problem = _former_chatter_draw(**kw) if attempt == "chatter" else _sliding_draw(attempt, **kw)
    run = solve(problem, "mpmath", digits=20, exact_samples=True, save_params=True)
    assert run.status is Status.SUCCESS
    kinds = {e.kind.value for e in run.events}
    assert "slide" in kinds and (attempt != 2 or "leave_up" in kinds)
    assert attempt != "chatter" or {"leave_up", "leave_down"} <= kinds
    X, y, conv = problem.inputs, problem.labels, problem.convention
    errors = []
    for lr in (1e-3, 1e-4):
        a, W = problem.init.a_hat.copy(), problem.init.W_hat.copy()
        for _ in range(int(round(t_end / lr))):
            da, dW = field(X, y, a, W, conv)
            a, W = a + lr * da, W + lr * dW
        errors.append(max(np.abs(a - run.a).max(), np.abs(W - run.W).max()))
    assert errors[0] / errors[1] > 5 and errors[1] < 1e-4  # first-order convergence of GD to the Filippov flow
    with mpmath.workdps(20):
        assert balance_drift(run) < 1e-15


def _gd_losses(problem, lr, times):
    """Plain gradient descent with σ'(0) = 0 from the problem's init, its loss at ``times`` (multiples of lr)."""
    X, y, conv = problem.inputs, problem.labels, problem.convention
    lam = float(problem.init.lam)
    a, W = lam * problem.init.a_hat, lam * problem.init.W_hat
    marks = [int(round(t / lr)) for t in times]
    out = [loss(X, y, a, W, conv)] if marks[0] == 0 else []
    for step in range(1, marks[-1] + 1):
        da, dW = field(X, y, a, W, conv)
        a, W = a + lr * da, W + lr * dW
        if step in marks:
            out.append(loss(X, y, a, W, conv))
    return np.array(out), marks[-1]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), exponent=st.integers(3, 10))
@example(seed=0, exponent=3)  # sliding on two kinks of neuron 1
@example(seed=9, exponent=4)  # eleven events, neuron 1 slides four times
def test_gradient_descent_converges_to_the_flow_on_general_data(seed, exponent):
    """GD with steps h and h/4 vs the engine's loss curve (n = 5 > d = 3, mixed signs, λ = 10^-exponent, time t up
    to τ = 2.5): at first order |GD(h/4) − flow| ≈ |GD(h) − GD(h/4)|/3; the property allows 1/2 (higher orders) plus
    the float64 rounding of GD's steps (steps · ε · ‖y‖²)."""
    lam = f"1e-{exponent}"
    t_end = 2.5 * exponent * math.log(10)
    times = tuple(np.linspace(0, t_end, 41))
    problem = _general(seed, lam=lam, horizon=t_end, time_unit="t", save_at=times)
    run = solve(problem, "mpmath", digits=20)
    assert run.status is Status.SUCCESS
    h = 0.02
    coarse, _ = _gd_losses(problem, h, times)
    fine, steps = _gd_losses(problem, h / 4, times)
    rounding = steps * np.finfo(float).eps * float(np.sum(problem.labels ** 2))
    assert np.abs(fine - run.trajectory.loss).max() <= 0.5 * np.abs(coarse - fine).max() + rounding


def test_examples_of_the_property_test_slide():
    """The explicit examples of the property test do slide: on two kinks at once (seed 0), repeatedly (seed 9)."""
    two = solve(_general(0, lam="1e-3", horizon=7.0, time_unit="t"), "mpmath", digits=20)
    many = solve(_general(9, lam="1e-4", horizon=23.0, time_unit="t"), "mpmath", digits=20)
    assert most_sliding_at_once(two.events) == 2
    assert sum(e.kind.value == "slide" for e in many.events) >= 4


# --- exact times, samples, guard, escalation ----------------------------------------------------------------------

def test_exact_samples_and_times_are_mpmath_numbers():
    run = solve(_golden(save_at=(0.0, 0.5, 1.45)), "mpmath", digits=25, exact_samples=True, save_params=True)
    assert run.trajectory.a.dtype == object and isinstance(run.trajectory.W[1][0, 0], mpmath.mpf)
    finer = solve(_golden(save_at=(0.0, 0.5, 1.45)), "mpmath", digits=40)
    with mpmath.workdps(40):  # beyond float64's 17 digits: the 25-digit jump time to ~10^-(25 − 5)
        assert abs(run.jumps[0].exact - finer.jumps[0].exact) < 1e-20 < abs(run.jumps[0].exact - run.jumps[0].tau)
    assert run.stats["jump_taus_mp"][0] == (mpmath.nstr(run.jumps[0].exact, 25), 0)


def test_guard_reports_the_rerun_and_fails_beyond_its_tolerance(monkeypatch):
    run = solve(_golden("1e-5"), "mpmath", digits=16, guard=True)
    assert run.status is Status.SUCCESS and run.stats["guard_digits"] == 32 and run.stats["guard_ok"]
    assert run.stats["guard_discrepancy"] < run.stats["guard_tolerance"] == run.tolerances["guard"]
    monkeypatch.setattr(taylor_guard, "guard_tolerance", lambda problem, digits: 0.0)
    failed = solve(_golden("1e-5"), "mpmath", digits=16, guard=True)
    assert failed.status is Status.GUARD_FAILED and not failed.success
    assert "32-digit rerun differs" in failed.message
    assert failed.errors["vouched"] is False and "jumps" not in failed.errors  # no bound survives a failed guard


def test_auto_escalates_a_precision_status_to_mpmath(monkeypatch):
    """No natural instance was found on which float64 ends with PRECISION (docs/high_precision.md): the float64
    engine's verdict is forced here, and `solve(..., "auto")` must rerun with engine "mpmath" and say why."""
    float64 = type(get_engine("float64"))

    def precision(self, result, problem, options, rerun):
        result.status, result.message = Status.PRECISION, "forced by the test"
        return result

    monkeypatch.setattr(float64, "review", precision, raising=False)
    run = solve(_golden(), "auto", rtol=1e-9, escalation_digits=20)
    assert run.engine == "mpmath" and run.status is Status.SUCCESS and run.precision == "mpmath 20 digits"
    assert run.stats["escalated_from"] == {"engine": "float64", "status": "precision", "message": "forced by the test"}
    assert [jp.neuron for jp in run.jumps] == [0, 1]


def test_a_sign_change_on_a_balanced_start_fails_the_run_instead_of_answering():
    """C Prop. 1: from a balanced start a_j = s_j‖w_j‖ never changes sign. The stepper reports a step after which one
    did (the float64-rounded start's defect amplified on a saddle, docs/findings.md) as a failure naming the neuron,
    and says nothing on an unbalanced start (where a sign change is the flow's own)."""
    instance = golden_instance()
    problem = FlowProblem.from_instance(instance, "1e-10", horizon=0.5)
    stepper = get_engine("mpmath").start(problem)
    assert stepper._balance_lost() is None
    stepper.a = stepper.a.copy()
    stepper.a[1] = -stepper.a[1]
    message = stepper._balance_lost()
    assert message.startswith("a_1 changed sign") and "C Prop. 1" in message
    unbalanced = FlowProblem(instance.inputs, instance.labels, Init(instance.signs * 0.5, instance.directions, "1e-10"),
                             horizon=0.5)
    stepper = get_engine("mpmath").start(unbalanced)
    stepper.a = -stepper.a
    assert stepper._balance_lost() is None


def test_a_failed_run_with_no_sample_still_has_its_final_loss():
    """A run that fails before the first requested sample has an empty trajectory: its final loss comes from the
    last step (the mpmath engine's review reads it), not from an empty array."""
    instance = golden_instance()
    problem = FlowProblem.from_instance(instance, "1e-10", horizon=1.0, save_at=(0.9, 1.0))
    result = solve(problem, "mpmath", max_steps=1)
    assert result.status is Status.STEP_LIMIT and result.trajectory.loss.size == 0
    assert np.isfinite(result.final_loss)
