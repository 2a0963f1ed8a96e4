"""The engine contract: every registered engine on the same instances (issue 11, item 6).

Instances: orthonormal (paper C's golden example), general data with sliding on one kink and on two kinks at
once, one neuron, no neuron able to grow, λ = 0.5. Each engine is compared with the reference "float64" run
(rtol 1e-10) within tolerances derived from its own error law; bad input gives the same error whatever the
engine; no engine says `success` where it knows its answer cannot be trusted.
"""
from __future__ import annotations

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import FlowProblem, Init, Status, available_engines, solve
from relucheck.numerics.instances import Instance
from relucheck.proofs_checks.checks.paper_c_instances import golden_instance
from relucheck.testing.strategies import random_general_instance

# DOP853 at rtol 1e-10 takes ≤ 10^4 steps here; local errors add up to ≤ 10^4 · 1e-10 = 1e-6 relative (the flow is a
# gradient flow: errors are not amplified except through a jump's timing, which the same bound covers in τ).
FLOAT64_TOL = 1e-6
ENGINE_OPTIONS = {"float64": {}, "mpmath": {"digits": 20}, "gd": {"step": 2e-3}}


golden = golden_instance


def no_growth() -> Instance:
    """Positive labels, every output sign negative: each neuron turns away from the data, none can grow."""
    inst = random_general_instance(5, 3, 3, 11)
    return Instance(inst.inputs, np.abs(inst.labels) + 0.5, inst.directions, -np.ones(3))


CASES = {
    "orthonormal": (golden(), "1e-10", 3.0),
    "general": (random_general_instance(6, 3, 5, 1), "1e-10", 3.0),  # slides on one kink
    "two_kinks": (random_general_instance(6, 3, 5, 3), "1e-10", 3.0),  # slides on two kinks at once
    "one_neuron": (random_general_instance(4, 3, 1, 2), "1e-10", 3.0),
    "no_growth": (no_growth(), "1e-10", 3.0),
    "lambda_half": (random_general_instance(5, 3, 3, 4), "0.5", 20.0),
}
SAVE = 41


def problem(case: str) -> FlowProblem:
    inst, lam, horizon = CASES[case]
    return FlowProblem.from_instance(inst, lam, horizon=horizon, save_at=tuple(np.linspace(0, horizon, SAVE)))


_cache: dict = {}


def run(engine: str, case: str, **extra):
    key = (engine, case, tuple(sorted(extra.items())))
    if key not in _cache:
        _cache[key] = solve(problem(case), engine, **{**ENGINE_OPTIONS.get(engine, {}), **extra})
    return _cache[key]


def registered():
    return sorted(available_engines())


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("engine", registered())
def test_engine_agrees_with_the_reference(engine, case):
    ref = run("float64", case)
    res = run(engine, case)
    assert ref.status is Status.SUCCESS, ref.message
    assert res.status is Status.SUCCESS, res.message
    scale = max(1.0, float(np.abs(CASES[case][0].labels).max()) ** 2)
    if engine == "gd":
        # GD's error is first order in the step: the difference to GD at twice the step estimates it (Richardson);
        # twice that, plus the reference's own error, bounds |GD − flow|.
        coarse = run("gd", case, step=2 * ENGINE_OPTIONS["gd"]["step"])
        bound = 2 * np.abs(coarse.trajectory.loss - res.trajectory.loss).max() + FLOAT64_TOL * scale
        assert np.abs(res.trajectory.loss - ref.trajectory.loss).max() <= bound
        assert [j.neuron for j in res.jumps] == [j.neuron for j in ref.jumps]
        return
    assert [(e.neuron, e.datum, e.kind) for e in res.events] == [(e.neuron, e.datum, e.kind) for e in ref.events]
    assert np.allclose([e.tau for e in res.events], [e.tau for e in ref.events], rtol=0, atol=FLOAT64_TOL)
    assert [(j.neuron, j.fitted) for j in res.jumps] == [(j.neuron, j.fitted) for j in ref.jumps]
    assert np.allclose([j.tau for j in res.jumps], [j.tau for j in ref.jumps], rtol=0, atol=FLOAT64_TOL)
    assert np.allclose(res.trajectory.loss, ref.trajectory.loss, rtol=0, atol=FLOAT64_TOL * scale)


def test_the_cases_cover_sliding_on_one_and_on_two_kinks():
    assert run("float64", "general").stats["max_sliding_codimension"] == 1
    assert run("float64", "two_kinks").stats["max_sliding_codimension"] == 2


def test_the_input_basis_agrees_with_the_exact_data_basis_on_orthonormal_data():
    ref, res = run("float64", "orthonormal"), run("float64", "orthonormal", basis="inputs")
    assert ref.stats["basis"] == "data" and res.stats["basis"] == "inputs"
    assert [(j.neuron, j.fitted) for j in res.jumps] == [(j.neuron, j.fitted) for j in ref.jumps]
    assert np.allclose(res.trajectory.loss, ref.trajectory.loss, rtol=0, atol=FLOAT64_TOL * 16)


def test_a_run_where_no_neuron_grows_reports_no_jump():
    res = run("float64", "no_growth")
    assert res.status is Status.SUCCESS and res.jumps == []
    assert np.all(np.diff(res.trajectory.loss) <= 1e-12)


def test_jumps_of_paper_c_golden_example_follow_algorithm_1():
    from relucheck.theory.limit_process import limit_process_of

    lp = limit_process_of(golden())
    res = run("float64", "orthonormal")
    assert [j.neuron for j in res.jumps] == [j.neuron for j in lp.jumps]
    # C Theorem 2: |τ̂_k − τ_k| = O(1/ln(1/λ)); spec C11(b) bounds the constant by 25
    assert max(abs(a.tau - b.tau) for a, b in zip(res.jumps, lp.jumps)) * res.log_inv_lambda <= 25


@pytest.mark.parametrize("engine", registered())
def test_unknown_option_is_the_same_error_for_every_engine(engine):
    with pytest.raises(RelucheckInputError, match="no option"):
        solve(problem("one_neuron"), engine, **ENGINE_OPTIONS.get(engine, {}), rtoll=1e-3)
    with pytest.raises(RelucheckInputError, match="max_steps must be a positive integer"):
        solve(problem("one_neuron"), engine, **ENGINE_OPTIONS.get(engine, {}), max_steps=0)


def test_bad_problems_are_refused_before_any_engine_runs():
    inst = golden()
    with pytest.raises(RelucheckInputError, match="needs λ < 1"):
        FlowProblem.from_instance(inst, "2", horizon=1.0)
    with pytest.raises(RelucheckInputError, match="horizon must be a finite time > 0"):
        FlowProblem.from_instance(inst, "1e-5", horizon=-1.0)
    with pytest.raises(RelucheckInputError, match="save_at must be increasing"):
        FlowProblem.from_instance(inst, "1e-5", horizon=1.0, save_at=(0.5, 0.2))
    with pytest.raises(RelucheckInputError, match="unknown engine"):
        solve(problem("orthonormal"), "no-such-engine")
    with pytest.raises(RelucheckInputError, match="starts at θ_j = 0"):
        Init.explicit(np.zeros(2), np.zeros((2, 3)))


@pytest.mark.parametrize("engine", registered())
def test_a_limit_is_never_a_success(engine):
    res = solve(problem("general"), engine, **ENGINE_OPTIONS.get(engine, {}), max_steps=3)
    assert res.status is Status.STEP_LIMIT and not res.success
    assert "3 steps" in res.message


@pytest.mark.parametrize("engine", registered())
def test_a_spent_budget_is_never_a_success(engine):
    """A budget far below one step's cost (1 µs) ends every engine's run with status BUDGET, not a success."""
    res = solve(problem("general"), engine, **ENGINE_OPTIONS.get(engine, {}), budget=1e-6)
    assert res.status is Status.BUDGET and not res.success
    with pytest.raises(RelucheckInputError, match="budget must be a number of seconds > 0"):
        solve(problem("general"), engine, **ENGINE_OPTIONS.get(engine, {}), budget=0)


def rounding_crosstalk(delta: float) -> FlowProblem:
    """Two unit inputs with ⟨x_0, x_1⟩ = δ; the neuron starts active on x_0 only and both labels are positive. Its
    inactive pre-activation on x_1 decays towards δ r_0/g > 0: with δ = 1e-17 that crossing, which decides whether
    x_1 is ever fitted, is a quantity float64 does not resolve next to the neuron's norm (issue 11's example)."""
    X = np.array([[1.0, 0.0], [delta, 1.0]])
    X /= np.linalg.norm(X, axis=1)[:, None]
    g = np.array([[1.0, -0.5]]) / np.sqrt(1.25)
    return FlowProblem(X, np.array([1.0, 1.0]), Init.balanced(g, [1.0], "1e-30"), horizon=6.0)


def test_float64_says_so_when_a_decision_is_below_its_precision():
    res = solve(rounding_crosstalk(1e-17), "float64", basis="inputs")
    assert res.status is Status.PRECISION and not res.success
    assert "rerun with more digits" in res.message and res.stats["ambiguous_decisions"]


def test_resolved_crosstalk_is_decided_and_orthonormal_rounding_takes_the_exact_basis():
    # δ = 1e-6: the push δ r_0 is resolved, the crossing is an event and x_1 gets fitted
    res = solve(rounding_crosstalk(1e-6), "float64")
    assert res.status is Status.SUCCESS and [e.kind.value for e in res.events] == ["activate"]
    assert res.final_loss < 1e-6
    # δ = 1e-17 is within 64 ulps of orthonormal: "auto" takes the exact data basis (C Assumption 1 as written)
    res = solve(rounding_crosstalk(1e-17), "float64")
    assert res.stats["basis"] == "data" and res.status is Status.SUCCESS and res.events == []


@pytest.mark.parametrize("float64_status, escalates", [(Status.PRECISION, True), (Status.CHATTER, True),
                                                        (Status.SUCCESS, False), (Status.STEP_LIMIT, False)])
def test_auto_reruns_in_mpmath_exactly_when_float64_cannot_resolve(monkeypatch, float64_status, escalates):
    """"auto" escalates on PRECISION and CHATTER (float64 cannot resolve the sign decisions or the sliding mode; at
    λ = 1e-1000 on general data mpmath can, docs/engines.md) and on nothing else. The loop is stubbed: this tests
    the policy, the engines are tested above."""
    from types import SimpleNamespace

    from relucheck.numerics.flows import registry

    calls = []

    def fake_integrate(engine, problem, **options):
        calls.append(engine.name)
        status = float64_status if engine.name == "float64" else Status.SETTLED
        return SimpleNamespace(status=status, engine=engine.name, message=status.value, stats={})

    monkeypatch.setattr(registry, "integrate", fake_integrate)
    for engine in available_engines().values():  # no review of the stubbed runs (the mpmath guard reruns them)
        monkeypatch.setattr(engine, "review", lambda result, *args, **kwargs: result)
    problem = FlowProblem.from_instance(random_general_instance(4, 3, 2, 0), "1e-1000", horizon=1.0)
    result = solve(problem)
    assert calls == (["float64", "mpmath"] if escalates else ["float64"])
    assert (result.engine == "mpmath") == escalates
    if escalates:
        assert result.stats["escalated_from"]["status"] == float64_status.name.lower()
