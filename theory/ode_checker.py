"""Decide whether a candidate closed form solves an initial-value problem  y' = f(t, y), y(0) = y_0.

The problem is given as data (the JSON of `relucheck check-ode`): ``time`` (a name), ``state`` (names),
``parameters`` (name → [low, high]), ``equations`` (state → right-hand side), ``initial`` (state →
value at time 0), ``solution`` (state → candidate in terms of time and parameters), and optionally
``time_span`` ([0, T], default [0, 1]) for the numerical evidence. Three independent pieces of
evidence are gathered:

1. **Symbolic.** The initial defect y_cand(0) − y_0 and the residual y_cand' − f(t, y_cand) are
   simplified with SymPy (``cancel`` of the ``exp`` rewrite, then ``simplify`` for moderate sizes).
   A residual simplifying to 0 is a proof.
2. **Random high-precision points.** Where simplification leaves a non-zero expression, the residual
   is evaluated with mpmath at ``DPS`` digits at seeded random points (t, parameters) drawn uniformly
   in the time span and the parameter ranges. Relative to the size of the two sides
   |y_cand'| + |f(t, y_cand)|, an exact solution leaves only rounding (≤ 10^-(DPS−20), 20 digits
   being allowed to cancellation); a residual above 10^-8 at some point refutes it (`theory.ode_points`).
3. **Numerical integration.** The problem is integrated with scipy's DOP853 (rtol 1e-13) from the
   initial values for a few parameter draws and compared with the candidate on a time grid
   (`theory.ode_integration`).

Verdict: ``refuted`` if the initial condition or the residual is non-zero (symbolically non-zero
and numerically above 1e-8 relative); ``verified`` if both are zero (symbolically, or at every
random point to rounding) and the integration agrees within its tolerance; ``inconclusive``
otherwise (e.g. every sample point outside the candidate's domain, or the integration
disagreeing with a zero residual).

Verdicts are reached within a budget (`check_ode_within_budget`): a wall-clock time and a memory
allowance for the whole decision, after which the verdict is ``inconclusive`` ("budget exceeded"), never
a hang. The file format is in `theory.ode_problem`, the parsing of expressions and its limits in
`theory.safe_expression`.
"""
from __future__ import annotations

import sympy as sp

from relucheck.numerics.budget import BudgetExceeded, run_with_budget

from .ode_integration import GRID, INTEGRATION_DRAWS, RTOL, _real, integration_discrepancy  # noqa: F401 - public here too
from .ode_points import (  # noqa: F401 - the evidence at the points (DPS, thresholds, substitute, …): public here too
    _NO_VALUE, DPS, NONZERO_RELATIVE, STABLE_RESIDUAL, ZERO_RELATIVE, BeyondRange, _defined_somewhere, _mp_value,
    _points, _text, residual_at_points, substitute)
from .ode_problem import OdeProblem, parse_problem, safe_parse  # noqa: F401 - parse_problem, safe_parse: public here too
from .safe_expression import MAX_EXACT_DIGITS

POINTS = 24


# -- evidence --------------------------------------------------------------------------------------

SIMPLIFY_SECONDS = 20.0  # wall-clock budget of the expensive simplification of one expression


def _expensive_simplify(expr) -> sp.Expr:
    """exp rewrite (after expanding tanh/sinh/cosh of sums) then cancel; simplify for moderate sizes."""
    e = sp.expand_trig(expr).rewrite(sp.exp)
    out = sp.cancel(sp.powsimp(e))
    if sp.count_ops(out) > 400:  # simplify(0) is 0 at once: no separate test for a zero
        return out
    return sp.simplify(out)


# What the symbolic step established about one expression (`simplify_to_zero`).
ZERO = "zero"  # simplified to 0: a proof
NONZERO = "nonzero"  # exact, and proven not identically 0 (see `nonzero_evidence`): a refutation
NONZERO_FORM = "nonzero form"  # simplification finished with a non-zero form it cannot prove non-zero: no verification
UNFINISHED = "unfinished"  # no simplified form (time, memory, failure, rounded numbers): the points and integration decide


def _evaluation_points(points) -> list[dict]:
    """The sample points as exact rationals (the binary value of each draw), for SymPy's certified evaluation."""
    return [{sym: sp.Rational(float(v)) for sym, v in pt.items()} for pt in points]


def nonzero_evidence(expr, points) -> str | None:
    """Why the exact expression ``expr`` is not identically 0, or None if that is not established.

    Only for an expression free of decimal numbers (Floats): a decimal residual may be the rounding of a zero.
    Evidence, cheapest first: a non-zero constant; SymPy's ``is_zero is False`` under the declared assumptions (t ≥ 0,
    positive or real parameters: then it vanishes nowhere in the checked region); a value at one of the sample points
    that SymPy's ``evalf(strict=True)`` certifies to 30 significant digits (it raises rather than return a number
    whose digits it cannot guarantee) and that agrees with the 60-digit value.
    """
    if expr == 0 or expr.has(sp.Float, sp.I, *_NO_VALUE):
        return None  # decimals may be rounding; a non-real value is outside the real domain checked here: no verdict
    real = expr.is_real is True  # is_zero False would also hold for a non-real value
    if real and expr.is_number and expr.is_zero is False:
        return "a non-zero constant"
    if real and expr.is_zero is False:
        return "SymPy proves it never 0 under the declared assumptions"
    for pt in points:
        try:
            low, high = expr.evalf(30, subs=pt, strict=True), expr.evalf(60, subs=pt, strict=True)
        except Exception:  # noqa: BLE001 - PrecisionExhausted, domain errors, …: no certificate at this point
            continue
        if low.is_Float and high.is_Float and low != 0 and abs(high - low) <= abs(high) * sp.Float(10) ** -25:
            where = ", ".join(f"{k} = {float(v):.17g}" for k, v in pt.items())  # the exact binary values
            return f"certified value {sp.sstr(low.evalf(6))} ≠ 0 at {where} (SymPy evalf, 30 digits)"
    return None


def _expensive_status(expr, points) -> tuple[str, str]:  # pragma: no cover - runs in a forked process
    out = sp.cancel(expr)
    if out != 0:
        out = _expensive_simplify(expr)
    if out == 0:
        return ZERO, "0"
    why = nonzero_evidence(out, _evaluation_points(points[:4]))
    return (NONZERO, f"{_text(out)} (not 0: {why})") if why else (NONZERO_FORM, _text(out))


def simplify_to_zero(expr, seconds: float = SIMPLIFY_SECONDS, points=()) -> tuple[str, str]:
    """(`ZERO`, `NONZERO`, `NONZERO_FORM` or `UNFINISHED`; the simplest form found as text) within ``seconds``.

    SymPy's simplification (``cancel`` included: it factors 30-digit integers for ever) has no time limit of its own,
    so all of it runs in a forked process (`numerics.budget`) that is killed after ``seconds``; the residual is then
    judged at the random points. A failure of the simplification is no proof either way.
    """
    if expr == 0:  # SymPy built it as 0 already: no process to fork
        return ZERO, "0"
    try:
        return run_with_budget(_expensive_status, (expr, list(points)), seconds=seconds)
    except BudgetExceeded as exc:
        return UNFINISHED, f"(not simplified: {_budget_reason(exc)}) {_text(expr)}"
    except Exception as exc:  # noqa: BLE001 - SymPy's failures are many; the points decide instead
        return UNFINISHED, f"(simplification failed: {type(exc).__name__}) {_text(expr)}"


def _budget_reason(exc: BudgetExceeded) -> str:
    """What stopped the simplification, truthfully: its time limit, or the computation dying without a result
    (no memory limit is set for it: the likely cause is the machine's memory or SymPy's recursion)."""
    if exc.kind == "time":
        return str(exc)
    if exc.detail.startswith("the computation needed more"):  # a MemoryError under the decision's own allowance
        return "it ran out of memory (the memory allowance of the decision, --memory)"
    return "the computation ended without a result (out of memory or a crash)"


def _symbolic_status(expr, rounded: bool, points) -> tuple[str, str]:
    """`simplify_to_zero`, except that a form found after `substitute` rounded a number proves nothing either way."""
    status, text = simplify_to_zero(expr, points=points)
    if rounded and status != UNFINISHED:
        return UNFINISHED, f"(not a proof: exact powers beyond {MAX_EXACT_DIGITS} digits rounded to {DPS} digits) {text}"
    return status, text


def _verdict_of(symbolic: str, worst: float | None) -> str:
    """The verdict on one expression (an initial defect or a residual) from its symbolic status and the worst relative
    residual at the points.

    What the relative test at the points guarantees: mpmath evaluates each side at DPS digits, so for an exact solution
    |lhs − rhs| ≤ 10^-(DPS−20)·(|lhs| + |rhs|) (20 digits allowed to cancellation) = ZERO_RELATIVE·(|lhs| + |rhs|). That
    bound is *relative*: a defect d passes as long as |d| ≤ 1e-30·(|lhs| + |rhs|). For x' = 10000x + 1 with the candidate
    x0·e^{10000t} (ignoring the +1) the defect is −1 while |rhs| ≈ 10^4·e^{2·10^4} ≈ 10^8690, so the relative residual
    is 10^-8690 — "0" in float. A residual ≤ ZERO_RELATIVE at finitely many points is therefore never a proof: it is
    consistent with an exact solution, nothing more (a narrow bump between the points is missed altogether). Above
    NONZERO_RELATIVE (1e-8, 22 orders above rounding) it is no rounding: a refutation.

    So: `ZERO` verifies and `NONZERO` refutes (symbolic proofs); a residual above NONZERO_RELATIVE at a point refutes;
    a near-zero at every point is "verified numerically" only when the simplification did not finish (`UNFINISHED`),
    and `check_ode` then also requires the integration to agree; a finished simplification that left a non-zero form
    (`NONZERO_FORM`, e.g. −1e-320·r with a decimal number) is never verified: inconclusive.
    """
    if symbolic == ZERO:
        return "verified"
    if symbolic == NONZERO:
        return "refuted"
    if worst is None:
        return "inconclusive"
    if worst > NONZERO_RELATIVE:
        return "refuted"
    return "verified numerically" if symbolic == UNFINISHED and worst <= ZERO_RELATIVE else "inconclusive"


def _beyond_range_record(exc: BeyondRange, what: str) -> dict:
    return {"symbolic": f"(not evaluated: {what} has {exc})", "max_relative_at_points": None, "points": 0,
            "verdict": "inconclusive"}


def _initial_record(candidate, value, t, points) -> dict:
    """The initial defect candidate(0) − value: symbolic, then at the points (which name t in vain: both are free of t)."""
    try:
        at_zero, rounded = substitute(candidate, {t: sp.Integer(0)})
    except BeyondRange as exc:
        return _beyond_range_record(exc, f"the candidate at {t} = 0")
    status, text = _symbolic_status(at_zero - value, rounded, points)
    if at_zero.has(*_NO_VALUE):
        text = f"(the candidate has no value at {t} = 0) {text}"
    worst, used = residual_at_points(at_zero, value, points)
    return {"symbolic": text, "max_relative_at_points": worst, "points": used, "verdict": _verdict_of(status, worst)}


def check_ode(problem: OdeProblem, seed: int = 0) -> dict:
    """Verdict on a candidate closed form (see the module docstring); a JSON-able dict."""
    t = problem.time
    points = _points(problem, POINTS, seed)
    initial, residuals, verdicts = {}, {}, []
    subs_state = {s: problem.solution[s] for s in problem.state}
    for s in problem.state:
        initial[s.name] = _initial_record(problem.solution[s], problem.initial[s], t, points)
        lhs = sp.diff(problem.solution[s], t)
        try:
            rhs, rounded = substitute(problem.equations[s], subs_state)  # candidates name no state: one pass suffices
        except BeyondRange as exc:
            residuals[s.name] = _beyond_range_record(exc, "f(t, candidate)")
        else:
            status, text = _symbolic_status(lhs - rhs, rounded, points)
            worst, used = residual_at_points(lhs, rhs, points)
            residuals[s.name] = {"symbolic": text, "max_relative_at_points": worst, "points": used,
                                 "verdict": _verdict_of(status, worst)}
        verdicts += [initial[s.name]["verdict"], residuals[s.name]["verdict"]]
    integ = integration_discrepancy(problem, seed)
    if "refuted" in verdicts:
        status = "refuted"
        bad = [f"{k}: {v['verdict']}" for k, v in {**{f"initial {k}": v for k, v in initial.items()},
                                                   **{f"residual {k}": v for k, v in residuals.items()}}.items()
               if v["verdict"] == "refuted"]
        message = "the candidate does not solve the problem (" + "; ".join(bad) + ")"
    elif all(v == "verified" for v in verdicts):
        if not integ["draws"] and not _defined_somewhere(problem, points):
            status, message = "inconclusive", (f"the candidate has no finite real value at any of the {len(points)} "
                                               "sample points nor on any integration draw: nothing was checked")
        elif integ["draws"] and integ["max_discrepancy"] > integ["tolerance"]:
            status, message = "inconclusive", "zero residual but the numerical integration disagrees"
        else:
            status, message = "verified", "initial condition and ODE residual vanish symbolically"
    elif all(v in ("verified", "verified numerically") for v in verdicts):
        # no symbolic proof for some part: near-zeros at the points are evidence only with an agreeing integration
        if integ["draws"] and integ["max_discrepancy"] <= integ["tolerance"]:
            status, message = "verified", ("verified numerically, not proven: the simplification did not finish; the "
                                           "residual vanishes to rounding at random high-precision points and the "
                                           "numerical integration agrees")
        else:
            status, message = "inconclusive", ("no symbolic proof (the simplification did not finish) and the numerical "
                                               "integration " + ("disagrees" if integ["draws"] else "could not be run"))
    elif any(rec["verdict"] == "inconclusive" and rec["points"] and not rec["symbolic"].startswith("(")
             and rec["symbolic"] != "0" for rec in (*initial.values(), *residuals.values())):
        status, message = "inconclusive", ("the simplified residual is not 0 but not proven non-zero (it holds decimal "
                                           "numbers, whose rounding could explain it, or could not be evaluated): "
                                           "no proof either way")
    else:
        status, message = "inconclusive", "residual neither provably zero nor clearly non-zero at the sample points"
    return {"status": status, "message": message, "initial": initial, "residuals": residuals, "integration": integ,
            "precision": f"mpmath {DPS} digits at {POINTS} seeded random points (seed {seed})",
            "thresholds": {"zero_relative": ZERO_RELATIVE, "nonzero_relative": NONZERO_RELATIVE}}


CHEAP_SHARE = 0.25  # share of the budget (at most CHEAP_SECONDS) for the evidence at the points alone, taken first
CHEAP_SECONDS = 10.0


def evidence_at_points(problem: OdeProblem, seed: int = 0) -> tuple[dict, dict]:
    """The initial defects and residuals at the sample points only (no simplification): cheap, and a relative residual
    above NONZERO_RELATIVE at a point is a refutation on its own (`_verdict_of`)."""
    t, points = problem.time, _points(problem, POINTS, seed)
    subs_state = {s: problem.solution[s] for s in problem.state}
    records = ({}, {})
    for s in problem.state:
        pairs = ((problem.solution[s].subs(t, 0), problem.initial[s]),
                 (sp.diff(problem.solution[s], t), problem.equations[s].xreplace(subs_state)))
        for record, (lhs, rhs) in zip(records, pairs):
            worst, used = residual_at_points(lhs, rhs, points)
            record[s.name] = {"symbolic": "(not simplified: the full check ran out of its budget)",
                              "max_relative_at_points": worst, "points": used, "verdict": _verdict_of(UNFINISHED, worst)
                              if worst is not None and worst > NONZERO_RELATIVE else "inconclusive"}
    return records


def check_ode_within_budget(problem: OdeProblem, seed: int, *, seconds: float, memory_bytes: int | None) -> dict:
    """`check_ode` in a child process limited to ``seconds`` and ``memory_bytes`` (`numerics.budget`).

    The cheap evidence comes first (`evidence_at_points`, within CHEAP_SHARE of the budget): if the full check then
    exceeds the rest of the budget, a refutation found at the points is kept (verdict ``refuted``); otherwise the
    verdict is ``inconclusive`` with the message "budget exceeded: …".
    """
    cheap_seconds = min(CHEAP_SHARE * seconds, CHEAP_SECONDS)
    try:
        cheap = run_with_budget(evidence_at_points, (problem, seed), seconds=cheap_seconds, memory_bytes=memory_bytes)
    except BudgetExceeded:
        cheap = ({}, {})
    try:
        return run_with_budget(check_ode, (problem, seed), seconds=seconds - cheap_seconds,
                               memory_bytes=memory_bytes)
    except BudgetExceeded as exc:
        limits = {"seconds": seconds, "memory_bytes": memory_bytes, "exceeded": exc.kind}
        initial, residuals = cheap
        bad = [f"{kind} {name}: refuted at the sample points" for kind, records in (("initial", initial),
                                                                                   ("residual", residuals))
               for name, rec in records.items() if rec["verdict"] == "refuted"]
        if bad:
            status, message = "refuted", (f"the candidate does not solve the problem ({'; '.join(bad)}); the full "
                                          f"check exceeded the budget: {exc}")
        else:
            status, message, initial, residuals = "inconclusive", f"budget exceeded: {exc}", {}, {}
        return {"status": status, "message": message, "initial": initial, "residuals": residuals,
                "integration": {"max_discrepancy": None, "tolerance": None, "draws": 0, "skipped_draws": 0,
                                "method": "not run (budget exceeded)", "tolerance_reason": ""},
                "precision": f"mpmath {DPS} digits (seed {seed})", "budget": limits,
                "thresholds": {"zero_relative": ZERO_RELATIVE, "nonzero_relative": NONZERO_RELATIVE}}
