"""Fast direct tests of `theory.ode_checker`: the verdict rule at its thresholds, the residual at points against
hand values, the integration record, and the whole JSON record of `check_ode` on problems SymPy settles at once."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from relucheck.theory import ode_checker as oc
from relucheck.theory.ode_problem import parse_problem

DECAY = {"time": "t", "state": ["y"], "parameters": {"k": [0.5, 1.5], "y0": [1, 2]},
         "equations": {"y": "-k*y"}, "initial": {"y": "y0"}, "solution": {"y": "y0*exp(-k*t)"}, "time_span": [0, 2]}


def decay(solution="y0*exp(-k*t)", **extra):
    return parse_problem({**DECAY, "solution": {"y": solution}, **extra})


def test_constants():
    assert oc.DPS == 50 and oc.ZERO_RELATIVE == 1e-30 and oc.NONZERO_RELATIVE == 1e-8
    assert (oc.POINTS, oc.RTOL, oc.INTEGRATION_DRAWS, oc.GRID) == (24, 1e-13, 3, 41)


def test_verdict_rule_at_its_thresholds():
    assert oc._verdict_of(oc.ZERO, None) == "verified" and oc._verdict_of(oc.ZERO, 1.0) == "verified"
    assert oc._verdict_of(oc.NONZERO, 0.0) == "refuted" and oc._verdict_of(oc.NONZERO, None) == "refuted"
    for undecided in (oc.UNFINISHED, oc.NONZERO_FORM):
        assert oc._verdict_of(undecided, None) == "inconclusive"
        assert oc._verdict_of(undecided, 1e-8) == "inconclusive"  # not above NONZERO_RELATIVE
        assert oc._verdict_of(undecided, 1.0000001e-8) == "refuted"
        assert oc._verdict_of(undecided, 1.01e-30) == "inconclusive"
    assert oc._verdict_of(oc.UNFINISHED, 1e-30) == "verified numerically"  # at ZERO_RELATIVE
    assert oc._verdict_of(oc.UNFINISHED, 0.0) == "verified numerically"
    # a finished simplification that left a non-zero form is never verified, however small the points' residual
    assert oc._verdict_of(oc.NONZERO_FORM, 0.0) == "inconclusive"


def test_points_are_seeded_and_inside_the_ranges():
    p = decay()
    pts = oc._points(p, 50, 3)
    assert len(pts) == 50 and pts == oc._points(p, 50, 3) and pts != oc._points(p, 50, 4)
    k, y0 = list(p.parameters)
    for pt in pts:
        assert list(pt) == [p.time, k, y0] and all(isinstance(v, mpmath.mpf) for v in pt.values())
        assert 0 <= pt[p.time] <= 2 and 0.5 <= pt[k] <= 1.5 and 1 <= pt[y0] <= 2
    rng = np.random.default_rng([3, 5])
    assert float(pts[0][p.time]) == rng.uniform(0, 2) and float(pts[0][k]) == rng.uniform(0.5, 1.5)


def test_mp_value_and_residual_at_points():
    t = sp.Symbol("t")
    assert oc._mp_value(1 / t, {t: mpmath.mpf(0)}) is None  # division by zero
    assert oc._mp_value(sp.sqrt(t), {t: mpmath.mpf(-1)}) is None  # complex
    assert oc._mp_value(sp.log(t), {t: mpmath.mpf(0)}) is None  # −inf
    with mpmath.workdps(30):
        assert oc._mp_value(t**2, {t: mpmath.mpf(3)}) == 9
    pts = [{t: mpmath.mpf(v)} for v in (1, 2, 0)]
    worst, used = oc.residual_at_points(t + 1, t, pts)
    assert used == 3 and worst == 1.0  # |1|/(|t + 1| + |t|): 1/3, 1/5 and, at t = 0, 1
    worst, used = oc.residual_at_points(t + 1, t, pts[:2])
    assert used == 2 and worst == pytest.approx(1 / 3, rel=1e-15)  # t = 1: 1/3, t = 2: 1/5
    worst, used = oc.residual_at_points(1 / t, 1 / t, pts)
    assert used == 2 and worst == 0.0
    assert oc.residual_at_points(0 * t, 0 * t, pts) == (0.0, 3)
    assert oc.residual_at_points(1 / t, t, [{t: mpmath.mpf(0)}]) == (None, 0)
    worst, _ = oc.residual_at_points(sp.exp(t), sp.exp(t) * (1 + sp.Rational(1, 10**40)), pts[:1])
    assert 1e-41 < worst < 1e-40  # resolved at DPS = 50 digits


def test_simplify_to_zero():
    t = sp.Symbol("t")
    assert oc.simplify_to_zero(t - t) == (oc.ZERO, "0")
    assert oc.simplify_to_zero(sp.tanh(t) - (sp.exp(2 * t) - 1) / (sp.exp(2 * t) + 1)) == (oc.ZERO, "0")
    # t + 1 is 0 at t = −1: no sign assumption proves it non-zero, a certified value at a point does
    status, text = oc.simplify_to_zero(t + 1, points=[{t: mpmath.mpf(2)}])
    assert status == oc.NONZERO and text == "t + 1 (not 0: certified value 3.00000 ≠ 0 at t = 2 (SymPy evalf, 30 digits))"
    assert oc.simplify_to_zero(t + 1) == (oc.NONZERO_FORM, "t + 1")  # no point to evaluate at


def test_integration_record_of_an_exact_solution():
    out = oc.integration_discrepancy(decay(), 0)
    assert list(out) == ["max_discrepancy", "tolerance", "draws", "skipped_draws", "method", "tolerance_reason"]
    assert out["draws"] == 3 and out["skipped_draws"] == 0
    assert out["max_discrepancy"] < 1e-12 and out["max_discrepancy"] <= out["tolerance"] < 1e-10
    assert out["method"] == "scipy DOP853 rtol 1e-13, atol 1e-13, 41 grid points on [0, 2]"
    assert out["tolerance_reason"] == ("global error ∝ requested tolerance: |y(rtol 1e-11) − y(rtol 1e-13)| (≈ 99× the "
                                       "error at 1e-13) + 10·rtol·(1 + max|y|)")


def test_integration_record_of_a_wrong_solution_and_of_skipped_draws():
    wrong = oc.integration_discrepancy(decay("y0*exp(-k*t) + t/100"), 0)
    assert wrong["draws"] == 3 and wrong["max_discrepancy"] == pytest.approx(0.02, rel=1e-6)
    # the candidate is complex on the whole grid for every draw: all three draws are skipped
    skipped = oc.integration_discrepancy(decay("sqrt(-y0 - t)"), 0)
    assert skipped["draws"] == 0 and skipped["skipped_draws"] == 3
    assert skipped["max_discrepancy"] is None and skipped["tolerance"] is None


def test_check_ode_verified_record():
    out = oc.check_ode(decay(), seed=2)
    assert list(out) == ["status", "message", "initial", "residuals", "integration", "precision", "thresholds"]
    assert out["status"] == "verified"
    assert out["message"] == "initial condition and ODE residual vanish symbolically"
    assert out["initial"] == {"y": {"symbolic": "0", "max_relative_at_points": 0.0, "points": 24, "verdict": "verified"}}
    res = out["residuals"]["y"]
    assert list(res) == ["symbolic", "max_relative_at_points", "points", "verdict"]
    assert res["symbolic"] == "0" and res["points"] == 24 and res["verdict"] == "verified"
    assert res["max_relative_at_points"] <= 1e-45
    assert out["precision"] == "mpmath 50 digits at 24 seeded random points (seed 2)"
    assert out["thresholds"] == {"zero_relative": 1e-30, "nonzero_relative": 1e-8}


def test_check_ode_refuted_record():
    out = oc.check_ode(decay("y0*exp(-k*t) + 1/10"), seed=0)
    assert out["status"] == "refuted"
    assert out["message"] == "the candidate does not solve the problem (initial y: refuted; residual y: refuted)"
    assert out["initial"]["y"]["verdict"] == "refuted"
    assert out["initial"]["y"]["symbolic"] == "1/10 (not 0: a non-zero constant)"
    # y' + k y = k/10
    assert out["residuals"]["y"]["symbolic"] == "k/10 (not 0: SymPy proves it never 0 under the declared assumptions)"
    only_residual = oc.check_ode(decay("y0*exp(-k*t) + t/10"), seed=0)
    assert only_residual["message"] == "the candidate does not solve the problem (residual y: refuted)"
    assert only_residual["initial"]["y"]["verdict"] == "verified"
    only_initial = oc.check_ode(decay("(y0 + 1)*exp(-k*t)"), seed=0)
    assert only_initial["message"] == "the candidate does not solve the problem (initial y: refuted)"


def test_check_ode_inconclusive_when_no_point_is_usable():
    # sqrt(−y0 − t) is complex at every point: nothing decides, nothing is proved
    out = oc.check_ode(decay("sqrt(-y0 - t)"), seed=0)
    assert out["status"] == "inconclusive"
    assert out["message"] == "residual neither provably zero nor clearly non-zero at the sample points"
    assert out["residuals"]["y"]["points"] == 0 and out["residuals"]["y"]["max_relative_at_points"] is None


def test_check_ode_within_budget_passes_through_and_reports_an_exceeded_budget():
    ok = oc.check_ode_within_budget(decay(), 1, seconds=60.0, memory_bytes=None)
    assert ok == oc.check_ode(decay(), 1)
    out = oc.check_ode_within_budget(decay(), 7, seconds=1e-3, memory_bytes=None)
    assert out["status"] == "inconclusive" and out["message"].startswith("budget exceeded: ")
    assert out["initial"] == {} and out["residuals"] == {}
    assert out["integration"] == {"max_discrepancy": None, "tolerance": None, "draws": 0, "skipped_draws": 0,
                                  "method": "not run (budget exceeded)", "tolerance_reason": ""}
    assert out["precision"] == "mpmath 50 digits (seed 7)"
    assert out["budget"] == {"seconds": 1e-3, "memory_bytes": None, "exceeded": "time"}
    assert out["thresholds"] == {"zero_relative": 1e-30, "nonzero_relative": 1e-8}
    assert math.isfinite(out["thresholds"]["zero_relative"])


def test_expensive_simplification_in_process():
    t = sp.Symbol("t", real=True)
    # tanh of a sum is expanded before the exp rewrite; cancel alone does not see this zero
    expr = sp.tanh(t + 1) - (sp.tanh(t) + sp.tanh(1)) / (1 + sp.tanh(t) * sp.tanh(1))
    assert sp.cancel(expr) != 0
    assert oc._expensive_simplify(expr) == 0
    assert oc._expensive_status(expr, []) == (oc.ZERO, "0")
    # simplify (not only cancel) is needed for sin² + cos² − 1
    trig = sp.sin(t) ** 2 + sp.cos(t) ** 2 - 1
    assert oc._expensive_simplify(trig) == 0
    assert oc._expensive_status(sp.exp(t) - 1, []) == (oc.NONZERO_FORM, "exp(t) - 1")  # 0 at t = 0: no sign proof
    status, text = oc._expensive_status(sp.exp(t) - 1, [{t: mpmath.mpf(1)}])
    assert status == oc.NONZERO and text.startswith("exp(t) - 1 (not 0: certified value 1.71828 ≠ 0 at t = 1 ")



def test_expensive_simplification_simplifies_what_cancel_leaves():
    t = sp.Symbol("t", positive=True)
    expr = sp.gamma(t + 1) - t * sp.gamma(t)  # cancel keeps it; simplify proves it zero
    assert sp.cancel(expr) != 0
    assert oc._expensive_simplify(expr) == 0 and oc._expensive_status(expr, []) == (oc.ZERO, "0")


def test_zero_residual_but_a_disagreeing_integration_is_inconclusive():
    # y' = 3 y^(2/3), y(0) = 0 has two solutions: t³ (the candidate, residual 0) and 0 (what the integration follows)
    p = parse_problem({"time": "t", "state": ["y"], "equations": {"y": "3*y**(2/3)"}, "initial": {"y": "0"},
                       "solution": {"y": "t**3"}})
    out = oc.check_ode(p)
    assert out["status"] == "inconclusive"
    assert out["message"] == "zero residual but the numerical integration disagrees"
    assert out["residuals"]["y"]["symbolic"] == "0" and out["residuals"]["y"]["verdict"] == "verified"
    assert out["integration"]["draws"] == 3 and out["integration"]["max_discrepancy"] == pytest.approx(1.0, rel=1e-12)
    assert out["integration"]["max_discrepancy"] > out["integration"]["tolerance"]


# -- the simplification budget's failure texts, the "to rounding" verdict, the integration's counters ---------------

T = sp.Symbol("t")
TRIG_ONE = sp.sin(T) ** 2 + sp.cos(T) ** 2 - 1  # zero, but not to cancel (sin and cos are independent generators)


def _budget_spy(calls, raised):
    def fake_run_with_budget(fn, args=(), *, seconds, memory_bytes=None):
        calls.append((fn, args, seconds))
        raise raised
    return fake_run_with_budget


def test_simplify_to_zero_forks_even_cancel(monkeypatch):
    # cancel factors 30-digit integers for ever ((a/b)**(1/97), p_root.json): only a literal 0 is decided in process
    calls = []
    monkeypatch.setattr(oc, "run_with_budget", _budget_spy(calls, AssertionError("forked")))
    assert oc.simplify_to_zero(T - T) == (oc.ZERO, "0") and calls == []
    assert oc.simplify_to_zero((T**2 - 1) / (T - 1) - (T + 1))[0] == oc.UNFINISHED  # the spy's failure
    assert calls[0][0] is oc._expensive_status


def test_simplify_to_zero_reports_an_exceeded_time_budget(monkeypatch):
    calls = []
    monkeypatch.setattr(oc, "run_with_budget",
                        _budget_spy(calls, oc.BudgetExceeded("time", "no result within the time budget of 7 s")))
    status, text = oc.simplify_to_zero(TRIG_ONE, seconds=7.0)
    assert status == oc.UNFINISHED
    assert text == "(not simplified: no result within the time budget of 7 s) sin(t)**2 + cos(t)**2 - 1"
    assert len(calls) == 1 and calls[0][1] == (TRIG_ONE, []) and calls[0][2] == 7.0
    calls.clear()
    oc.simplify_to_zero(TRIG_ONE)
    assert calls[0][2] == 20.0 == oc.SIMPLIFY_SECONDS


def test_simplify_to_zero_reports_a_failed_simplification(monkeypatch):
    monkeypatch.setattr(oc, "run_with_budget", _budget_spy([], NotImplementedError("no rule")))
    assert oc.simplify_to_zero(TRIG_ONE) == (
        oc.UNFINISHED, "(simplification failed: NotImplementedError) sin(t)**2 + cos(t)**2 - 1")


@pytest.mark.parametrize("detail, reason", [
    ("the computation needed more than the memory budget of (none)",
     "it ran out of memory (the memory allowance of the decision, --memory)"),
    ("the computation ended without a result (exit code -9); the memory budget of (none) is the likely cause",
     "the computation ended without a result (out of memory or a crash)")])
def test_simplify_to_zero_says_truthfully_why_it_stopped(monkeypatch, detail, reason):
    # h_exp_pow_sym.json: a MemoryError under the decision's --memory was reported as "the memory budget of (none)"
    monkeypatch.setattr(oc, "run_with_budget", _budget_spy([], oc.BudgetExceeded("memory", detail)))
    assert oc.simplify_to_zero(TRIG_ONE) == (oc.UNFINISHED, f"(not simplified: {reason}) sin(t)**2 + cos(t)**2 - 1")


def test_simplify_to_zero_with_a_real_budget_of_zero_seconds():
    # the forked simplification cannot answer before a poll of 0 s; with the budget, sin² + cos² − 1 is proven zero
    assert oc.simplify_to_zero(TRIG_ONE, seconds=0) == (
        oc.UNFINISHED, "(not simplified: no result within the time budget of 0 s) sin(t)**2 + cos(t)**2 - 1")
    assert oc.simplify_to_zero(TRIG_ONE, seconds=60) == (oc.ZERO, "0")
    assert oc.simplify_to_zero(sp.exp(T) - 1, seconds=60) == (oc.NONZERO_FORM, "exp(t) - 1")


def _unit_rate(solution):
    return parse_problem({"time": "t", "state": ["y"], "equations": {"y": "1"}, "initial": {"y": "0"},
                          "solution": {"y": solution}})


def test_check_ode_verified_to_rounding_when_the_simplification_gives_up(monkeypatch):
    # y' = 1, y(0) = 0, y = t·(sin² t + cos² t): the residual sin² + cos² − 1 vanishes at the points to rounding only
    monkeypatch.setattr(oc, "run_with_budget",
                        _budget_spy([], oc.BudgetExceeded("time", "no result within the time budget of 20 s")))
    out = oc.check_ode(_unit_rate("t*(sin(t)**2 + cos(t)**2)"), seed=0)
    assert out["status"] == "verified"
    assert out["message"] == ("verified numerically, not proven: the simplification did not finish; the residual "
                              "vanishes to rounding at random high-precision points and the numerical integration agrees")
    assert out["initial"]["y"]["symbolic"] == "0" and out["initial"]["y"]["verdict"] == "verified"
    res = out["residuals"]["y"]
    assert res["symbolic"] == "(not simplified: no result within the time budget of 20 s) sin(t)**2 + cos(t)**2 - 1"
    assert res["verdict"] == "verified numerically" and res["points"] == 24 and res["max_relative_at_points"] <= 1e-30
    assert out["integration"]["draws"] == 3 and out["integration"]["max_discrepancy"] <= out["integration"]["tolerance"]


def test_check_ode_symbolic_when_the_simplification_proves_it():
    out = oc.check_ode(_unit_rate("t*(sin(t)**2 + cos(t)**2)"), seed=0)
    assert out["status"] == "verified"
    assert out["message"] == "initial condition and ODE residual vanish symbolically"
    assert out["residuals"]["y"]["symbolic"] == "0"


def test_check_ode_integration_at_its_tolerance_is_agreement(monkeypatch):
    # "disagrees" means max_discrepancy > tolerance, strictly; one exactly at the tolerance still verifies
    record = {"max_discrepancy": 1e-12, "tolerance": 1e-12, "draws": 3, "skipped_draws": 0, "method": "m",
              "tolerance_reason": "r"}
    monkeypatch.setattr(oc, "integration_discrepancy", lambda problem, seed: dict(record))
    out = oc.check_ode(decay(), seed=0)
    assert out["status"] == "verified" and out["integration"] == record
    record["max_discrepancy"] = 1.0000001e-12
    out = oc.check_ode(decay(), seed=0)
    assert (out["status"], out["message"]) == ("inconclusive", "zero residual but the numerical integration disagrees")


def _constant(equation="0", solution="y0", span=(0, 2)):
    return parse_problem({"time": "t", "state": ["y"], "parameters": {"y0": [1, 2]}, "equations": {"y": equation},
                          "initial": {"y": "y0"}, "solution": {"y": solution}, "time_span": list(span)})


def test_integration_tolerance_of_an_exact_integration_and_the_seeded_draws():
    # y' = 0: both DOP853 runs keep y0 exactly, so the tolerance is its rounding term alone, 10·rtol·(1 + |y0|), and
    # the draw kept (closest to failing: err − tol largest, err = 0) is the one with the smallest y0
    for seed in (0, 1, 2):
        out = oc.integration_discrepancy(_constant(), seed)
        rng = np.random.default_rng([seed, 6])
        y0s = [rng.uniform(1, 2) for _ in range(3)]
        assert out["draws"] == 3 and out["skipped_draws"] == 0 and out["max_discrepancy"] == 0.0
        assert out["tolerance"] == pytest.approx(1e-12 * (1 + min(y0s)), rel=1e-14, abs=0)
    assert min(y0s) not in (y0s[0], y0s[-1])  # seed 2 keeps neither the first nor the last draw
    # a wrong candidate y0 + t/100·y0 misses by 0.02·y0 at t = 2: the draw kept is the one with the largest y0
    wrong = oc.integration_discrepancy(_constant(solution="y0*(1 + t/100)"), 2)
    assert wrong["max_discrepancy"] == pytest.approx(0.02 * max(y0s), rel=1e-12)


def test_integration_of_an_explicitly_time_dependent_equation():
    out = oc.integration_discrepancy(_constant("cos(t)", "y0 + sin(t)"), 0)
    assert out["draws"] == 3 and out["skipped_draws"] == 0 and out["max_discrepancy"] < 1e-12
    assert out["max_discrepancy"] <= out["tolerance"] < 1e-10


def test_integration_draws_skipped_when_the_integration_fails():
    # y' = y², y(0) = y0 ∈ [1, 2] blows up at t = 1/y0 < 2: the candidate is finite on the grid (it changes sign at
    # the pole, between grid points), but DOP853 cannot pass the pole: all three draws are skipped, none counted
    out = oc.integration_discrepancy(_constant("y**2", "y0/(1 - y0*t)"), 0)
    assert out["draws"] == 0 and out["skipped_draws"] == 3
    assert out["max_discrepancy"] is None and out["tolerance"] is None


def test_residual_at_points_skips_an_unusable_point_and_goes_on():
    t = sp.Symbol("t")
    pts = [{t: mpmath.mpf(v)} for v in (0, 1, 2)]  # 1/t is unusable at the first point only
    worst, used = oc.residual_at_points(1 / t, 1 / (t + 1), pts)
    assert used == 2  # t = 1: |1 − 1/2|/(1 + 1/2) = 1/3; t = 2: |1/2 − 1/3|/(1/2 + 1/3) = 1/5
    assert worst == pytest.approx(1 / 3, rel=1e-15, abs=0)


def test_check_ode_within_budget_forwards_both_limits(monkeypatch):
    calls = []

    def fake_run_with_budget(fn, args=(), *, seconds, memory_bytes=None):
        calls.append((fn, args, seconds, memory_bytes))
        return {"status": "from the child"}

    monkeypatch.setattr(oc, "run_with_budget", fake_run_with_budget)
    p = decay()
    assert oc.check_ode_within_budget(p, 3, seconds=12.5, memory_bytes=3 * 2**30) == {"status": "from the child"}
    # the cheap evidence at the points first, within a quarter of the budget (at most 10 s), then the full check
    assert calls == [(oc.evidence_at_points, (p, 3), 12.5 / 4, 3 * 2**30), (oc.check_ode, (p, 3), 12.5 - 12.5 / 4, 3 * 2**30)]


def test_check_ode_within_budget_reports_an_exceeded_memory_budget(monkeypatch):
    detail = "the computation needed more than the memory budget of 512 MiB"
    monkeypatch.setattr(oc, "run_with_budget", _budget_spy([], oc.BudgetExceeded("memory", detail)))
    out = oc.check_ode_within_budget(decay(), 4, seconds=30.0, memory_bytes=2**29)
    assert (out["status"], out["message"]) == ("inconclusive", "budget exceeded: " + detail)
    assert out["budget"] == {"seconds": 30.0, "memory_bytes": 2**29, "exceeded": "memory"}
    assert out["precision"] == "mpmath 50 digits (seed 4)"


def test_check_ode_default_seed_is_zero():
    out = oc.check_ode(decay())
    assert out["precision"] == "mpmath 50 digits at 24 seeded random points (seed 0)"
    assert out == oc.check_ode(decay(), 0)


@pytest.mark.parametrize("initial, solution", [("sqrt(-y0)", "y0"), ("y0", "y0 + sqrt(-y0)*t")])
def test_a_value_that_is_not_real_skips_the_integration_draw(initial, solution):
    """An initial condition or a candidate that is not real for the drawn parameters (SymPy's I·√y0 for √(−y0)) is
    no real solution to integrate: each draw is skipped and counted, never cast to its real part nor a TypeError."""
    problem = parse_problem({"time": "t", "state": ["y"], "parameters": {"y0": [1, 2]}, "equations": {"y": "0"},
                             "initial": {"y": initial}, "solution": {"y": solution}, "time_span": [0, 1]})
    out = oc.integration_discrepancy(problem, 0)
    assert (out["draws"], out["skipped_draws"], out["max_discrepancy"]) == (0, oc.INTEGRATION_DRAWS, None)
    assert oc.check_ode(problem)["status"] == "inconclusive"


# -- names of the input never reach lambdify's code; exact numbers stay printable (issue 20) --------------------------

@pytest.mark.parametrize("rate, start", [("numpy", "mpf"), ("mpmath", "builtins"), ("Dummy", "mpc")])
def test_parameters_named_like_the_evaluation_modules(rate, start):
    """lambdify prints argument names into its code and puts the symbols of a single expression into its namespace
    by name: a parameter named mpf hid mpmath's mpf (every point unusable, inconclusive). Dummies stand in for them."""
    def problem(extra):
        return parse_problem({"time": "t", "state": ["y"], "parameters": {rate: [0.5, 1], start: [1, 2]},
                              "equations": {"y": f"-{rate}*y"}, "initial": {"y": start},
                              "solution": {"y": f"{start}*exp(-{rate}*t){extra}"}, "time_span": [0, 2]})

    good = oc.check_ode(problem(""))
    assert good["status"] == "verified" and good["integration"]["draws"] == 3
    bad = oc.check_ode(problem(" + 0.1*t"))
    assert bad["status"] == "refuted" and bad["residuals"]["y"]["points"] == 24


def test_a_time_named_numpy():
    # the integration's functions take lists of arguments (lambdify renames what would hide a module of its namespace)
    p = parse_problem({"time": "numpy", "state": ["y"], "parameters": {"k": [0.5, 1]}, "equations": {"y": "cos(numpy)"},
                       "initial": {"y": "k"}, "solution": {"y": "k + sin(numpy)"}, "time_span": [0, 2]})
    out = oc.check_ode(p, 0)
    assert out["status"] == "verified" and out["integration"]["draws"] == 3


def test_substitute_rounds_only_powers_beyond_the_exact_digits():
    t = sp.Symbol("t")
    zero = sp.Integer(0)
    assert oc.substitute(10 ** (10 ** (2 + t)), {t: zero}) == (sp.Integer(10) ** 100, False)  # 101 digits: exact
    at_zero, rounded = oc.substitute(10 ** (10 ** (4 + t)) - 1, {t: zero})
    assert rounded and at_zero.is_Float and at_zero == sp.Float(10, oc.DPS) ** 10000 - 1
    assert oc.substitute(2 ** (t + 3000), {t: sp.Integer(1)}) == (sp.Integer(2) ** 3001, False)  # 904 digits
    at_one, rounded = oc.substitute(2 ** (t + 3400), {t: sp.Integer(1)})  # 1024 digits: rounded
    assert rounded and at_one == sp.Float(2, oc.DPS) ** 3401
    assert oc.substitute(sp.exp(t) + 1 / t, {t: zero}) == (sp.zoo, False)  # no value: SymPy's zoo, kept
    assert oc.substitute(t * sp.Symbol("y"), {sp.Symbol("y"): t}) == (t**2, False)


def test_text_of_numbers_beyond_the_str_limit():
    huge = sp.Integer(10) ** 5000  # str() of an int of more than 4300 digits raises ValueError
    assert oc._text(huge + sp.Symbol("t")) == "t + 1.0e+5000"  # sstr shortens a Float inside a sum
    assert oc._text(huge) == "1.0000000000000000000000000000000000000000000000000e+5000"
    assert oc._text(sp.Rational(1, 3)) == "1/3"
    assert oc._mp_value(huge * sp.Symbol("t"), {sp.Symbol("t"): mpmath.mpf(2)}) == 2 * mpmath.mpf(10) ** 5000
    assert oc._mp_value(sp.zoo + sp.Symbol("t"), {sp.Symbol("t"): mpmath.mpf(2)}) is None


def test_a_symbolic_exp_tower_is_inconclusive_at_once():
    # exp(exp(exp(exp(t + 5)))) at t = 0: the argument of the outer exp is e^(e^148) ≈ 10^(10^63); SymPy's ordering of
    # the initial defect evaluated it (argument reduction with 10^64 bits) until the budget ended the whole decision
    p = parse_problem({"time": "t", "state": ["x"], "equations": {"x": "0"}, "initial": {"x": "1"},
                       "solution": {"x": "exp(exp(exp(exp(t + 5))))"}})
    out = oc.check_ode(p)
    # x' = 0 but the derivative is a product of exponentials: SymPy proves it never 0, without any point
    assert out["status"] == "refuted"
    assert out["residuals"]["x"]["symbolic"].endswith("(not 0: SymPy proves it never 0 under the declared assumptions)")
    assert out["initial"]["x"] == {"symbolic": "(not evaluated: the candidate at t = 0 has exp of a constant beyond "
                                   "1e+300)", "max_relative_at_points": None, "points": 0, "verdict": "inconclusive"}
    assert out["residuals"]["x"]["points"] == 0  # every point: exp of a number beyond 1e300 (guarded mpmath exp)


def test_guarded_mpmath_functions():
    t = sp.Symbol("t")
    assert oc._mp_value(sp.exp(t), {t: mpmath.mpf("1e300")}) is not None
    assert oc._mp_value(sp.exp(t), {t: mpmath.mpf("1.000001e300")}) is None
    assert oc._mp_value(sp.sin(t) + 1, {t: mpmath.mpf("-1e301")}) is None
    assert oc._mp_value(sp.log(t), {t: mpmath.mpf("1e400")}) is not None  # log reduces no argument
    with pytest.raises(oc.BeyondRange, match="^sinh of a constant beyond 1e"):
        oc.substitute(sp.sinh(sp.exp(sp.exp(sp.exp(t)))), {t: sp.Integer(5)})


def test_a_field_without_a_finite_value_skips_the_draw():
    # numpy gives nan for log of a negative number (and for acosh(asin(100))): DOP853 fed nan shrank its step for
    # minutes; a field that is not finite on a draw now skips that draw, counted. A 60 s alarm makes a hang a failure.
    import signal

    def hang(signum, frame):
        raise AssertionError("the integration did not end within 60 s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        out = oc.integration_discrepancy(_constant("log(-y0)", "y0"), 0)
        constant = oc.integration_discrepancy(_constant("acosh(asin(100))", "y0"), 0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert (out["draws"], out["skipped_draws"]) == (0, 3) and out["max_discrepancy"] is None
    assert (constant["draws"], constant["skipped_draws"]) == (0, 3)


def _one(equation: str, solution: str) -> dict:
    return oc.check_ode(parse_problem({"time": "t", "state": ["x"], "parameters": {"x0": [0.5, 1.5]},
                                       "equations": {"x": equation}, "initial": {"x": "x0"},
                                       "solution": {"x": solution}, "time_span": [0, 2]}))


@pytest.mark.parametrize("equation, solution, where", [
    # the defect −1 is 10^-8690 relative to the right-hand side at t = 2: "0" at every point, a constant symbolically
    ("10000*x + 1", "x0*exp(10000*t)", "residuals"),
    # a bump of height 1e-3 and width 1e-3 between the sample points: 0 at every point to 60 digits, but exact
    ("-x", "x0*exp(-t) + exp(-1000000*(t - 1/3)**2)/1000", "residuals"),
])
def test_a_defect_below_the_points_resolution_is_refuted_symbolically(equation, solution, where):
    out = _one(equation, solution)
    assert out["status"] == "refuted", out["message"]
    assert out[where]["x"]["verdict"] == "refuted" and "(not 0: " in out[where]["x"]["symbolic"]


def test_a_tiny_decimal_defect_is_never_verified():
    # 1e-320·(t + 1) may be the rounding of a zero or a true defect: no proof either way
    out = _one("-x", "x0*exp(-t) + 1e-320*t")
    assert out["status"] == "inconclusive" and out["residuals"]["x"]["verdict"] == "inconclusive", out["message"]
