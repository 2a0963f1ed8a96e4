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
   being allowed to cancellation); a residual above 10^-8 at some point refutes it.
3. **Numerical integration.** The problem is integrated with scipy's DOP853 (rtol 1e-13) from the
   initial values for a few parameter draws and compared with the candidate on a time grid.

Verdict: ``refuted`` if the initial condition or the residual is non-zero (symbolically non-zero
and numerically above 1e-8 relative); ``verified`` if both are zero (symbolically, or at every
random point to rounding) and the integration agrees within its tolerance; ``inconclusive``
otherwise (e.g. every sample point outside the candidate's domain, or the integration
disagreeing with a zero residual).

Safety: strings are never passed to ``sympify`` (which evaluates Python). Each string is
tokenized first and only numbers, the operators ``+ - * / ^ ** ( ) ,`` and the declared names
(time, states, parameters) plus a fixed list of mathematical functions are accepted; then
``parse_expr`` runs with those names as its only namespace. Anything else (attributes, dunder
names, strings, brackets, keywords) is a `RelucheckInputError` naming the field.
"""
from __future__ import annotations

import io
import keyword
import math
import multiprocessing
import tokenize
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr

from relucheck.numerics.errors import RelucheckInputError

DPS = 50
ZERO_RELATIVE = 10.0 ** -(DPS - 20)  # an exact solution's residual: rounding at DPS digits, 20 lost to cancellation
NONZERO_RELATIVE = 1e-8  # a residual this large at a point is not rounding at any precision used here
POINTS = 24
RTOL = 1e-13
INTEGRATION_DRAWS = 3
GRID = 41

FUNCTIONS = {
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh, "Abs": sp.Abs, "abs": sp.Abs,
}
CONSTANTS = {"pi": sp.pi, "E": sp.E}
_NUMBER_CLASSES = {"Integer": sp.Integer, "Float": sp.Float, "Rational": sp.Rational}
_OPERATORS = {"+", "-", "*", "/", "^", "**", "(", ")", ","}
_RESERVED = set(FUNCTIONS) | set(CONSTANTS) | set(_NUMBER_CLASSES) | {"Symbol"}


@dataclass
class OdeProblem:
    time: sp.Symbol
    state: tuple
    parameters: dict  # Symbol -> (low, high)
    equations: dict  # state Symbol -> rhs
    initial: dict  # state Symbol -> value
    solution: dict  # state Symbol -> candidate
    time_span: tuple = (0.0, 1.0)


def _name(value, field: str) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value) or value.startswith("_"):
        raise RelucheckInputError(f"field '{field}': {value!r} is not a valid name (an identifier not starting with '_')")
    if value in _RESERVED:
        raise RelucheckInputError(f"field '{field}': the name {value!r} is reserved for a function or constant")
    return value


def safe_parse(text, field: str, names: dict) -> sp.Expr:
    """Parse one expression string using only ``names`` (plus numbers, operators, FUNCTIONS, CONSTANTS)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool) and math.isfinite(text):
        text = repr(text)
    if not isinstance(text, str) or not text.strip():
        raise RelucheckInputError(f"field '{field}': expected an expression string, got {text!r}")
    allowed = {**names, **FUNCTIONS, **CONSTANTS}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise RelucheckInputError(f"field '{field}': cannot tokenize {text!r} ({exc})") from None
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NUMBER:
            if tok.string.lower().endswith("j"):
                raise RelucheckInputError(f"field '{field}': complex literal {tok.string!r} not allowed")
            continue
        if tok.type == tokenize.NAME:
            if tok.string not in allowed:
                raise RelucheckInputError(f"field '{field}': unknown name {tok.string!r} in {text!r}; allowed are the "
                                          f"declared time, states and parameters and {sorted(FUNCTIONS) + sorted(CONSTANTS)}")
            continue
        if tok.type == tokenize.OP and tok.string in _OPERATORS:
            continue
        raise RelucheckInputError(f"field '{field}': token {tok.string!r} not allowed in {text!r}")
    try:
        expr = parse_expr(text, local_dict=dict(allowed), global_dict=dict(_NUMBER_CLASSES),
                          transformations=(auto_number, convert_xor), evaluate=True)
    except Exception as exc:  # any parser failure is bad input in this field
        raise RelucheckInputError(f"field '{field}': cannot parse {text!r} ({type(exc).__name__}: {exc})") from None
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.Tuple):
        raise RelucheckInputError(f"field '{field}': {text!r} is not a single expression")
    return expr


def _interval(value, field: str) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise RelucheckInputError(f"field '{field}': expected [low, high] numbers, got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise RelucheckInputError(f"field '{field}': need finite low ≤ high, got [{low}, {high}]")
    return low, high


def parse_problem(data) -> OdeProblem:
    """An `OdeProblem` from the JSON object of `relucheck check-ode` (errors name the offending field)."""
    if not isinstance(data, dict):
        raise RelucheckInputError("the ODE file must hold a JSON object")
    for key in ("time", "state", "equations", "initial", "solution"):
        if key not in data:
            raise RelucheckInputError(f"field '{key}' is missing")
    unknown = set(data) - {"time", "state", "parameters", "equations", "initial", "solution", "time_span", "meta"}
    if unknown:
        raise RelucheckInputError(f"unknown field(s) {sorted(unknown)}")
    span = _interval(data.get("time_span", [0, 1]), "time_span")
    if span[0] != 0 or span[1] <= 0:
        raise RelucheckInputError(f"field 'time_span': must be [0, T] with T > 0, got {list(span)}")
    t = sp.Symbol(_name(data["time"], "time"), real=True, nonnegative=True)
    if not isinstance(data["state"], list) or not data["state"]:
        raise RelucheckInputError("field 'state': expected a non-empty list of names")
    state_names = [_name(s, "state") for s in data["state"]]
    params_in = data.get("parameters", {})
    if not isinstance(params_in, dict):
        raise RelucheckInputError("field 'parameters': expected an object name → [low, high]")
    params = {}
    for name, rng in params_in.items():
        low, high = _interval(rng, f"parameters.{name}")
        assumptions = {"positive": True} if low > 0 else {"real": True}
        params[sp.Symbol(_name(name, "parameters"), **assumptions)] = (low, high)
    all_names = [t.name, *state_names, *(s.name for s in params)]
    if len(set(all_names)) != len(all_names):
        raise RelucheckInputError(f"time, state and parameter names must be distinct, got {all_names}")
    states = tuple(sp.Symbol(s, real=True) for s in state_names)
    base = {t.name: t, **{s.name: s for s in params}}
    with_state = {**base, **{s.name: s for s in states}}

    def per_state(key, names):
        block = data[key]
        if not isinstance(block, dict) or set(block) != set(state_names):
            raise RelucheckInputError(f"field '{key}': expected one entry per state {state_names}, got "
                                      f"{sorted(block) if isinstance(block, dict) else block!r}")
        return {s: safe_parse(block[s.name], f"{key}.{s.name}", names) for s in states}

    equations = per_state("equations", with_state)
    initial = per_state("initial", {s.name: s for s in params})
    solution = per_state("solution", base)
    return OdeProblem(t, states, params, equations, initial, solution, span)


# -- evidence --------------------------------------------------------------------------------------

SIMPLIFY_SECONDS = 20.0  # wall-clock budget of the expensive simplification of one expression


def _expensive_simplify(expr) -> sp.Expr:
    """exp rewrite (after expanding tanh/sinh/cosh of sums) then cancel; simplify for moderate sizes."""
    e = sp.expand_trig(expr).rewrite(sp.exp)
    out = sp.cancel(sp.powsimp(e))
    if out == 0 or sp.count_ops(out) > 400:
        return out
    return sp.simplify(out)


def _child(conn, expr):  # pragma: no cover - runs in a forked process
    try:
        out = _expensive_simplify(expr)
        conn.send((out == 0, sp.sstr(out)))
    except Exception:  # no proof, the parent falls back to the points
        conn.send(None)


def simplify_to_zero(expr, seconds: float = SIMPLIFY_SECONDS) -> tuple[bool, str]:
    """(proven zero, the simplest form found as text) within ``seconds``; ``cancel`` first, in process.

    SymPy's simplification has no time limit of its own, so the expensive part runs in a forked
    process that is terminated after ``seconds``; the residual is then judged at the random points.
    """
    out = sp.cancel(expr)
    if out == 0:
        return True, "0"
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, expr), daemon=True)
    proc.start()
    found = parent.recv() if parent.poll(seconds) else None
    proc.terminate()
    proc.join()
    if found is None:
        return False, f"(not simplified within {seconds:g} s) {sp.sstr(out)}"
    return found[0], "0" if found[0] else found[1]


def _points(problem: OdeProblem, count: int, seed) -> list[dict]:
    rng = np.random.default_rng([int(seed), 5])
    out = []
    for _ in range(count):
        pt = {problem.time: mpmath.mpf(float(rng.uniform(*problem.time_span)))}
        for sym, (low, high) in problem.parameters.items():
            pt[sym] = mpmath.mpf(float(rng.uniform(low, high)))
        out.append(pt)
    return out


def _mp_value(expr, point):
    try:
        val = sp.lambdify(list(point), expr, modules="mpmath")(*point.values())
        val = mpmath.mpmathify(val)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None
    if not isinstance(val, mpmath.mpf) or not mpmath.isfinite(val):
        return None  # complex or non-finite: the point is outside the candidate's real domain
    return val


def residual_at_points(lhs, rhs, points) -> tuple[float | None, int]:
    """max over points of |lhs − rhs|/(|lhs| + |rhs|) at DPS digits, and the number of usable points."""
    worst, used = None, 0
    with mpmath.workdps(DPS):
        for pt in points:
            a, b = _mp_value(lhs, pt), _mp_value(rhs, pt)
            if a is None or b is None:
                continue
            used += 1
            scale = abs(a) + abs(b)
            rel = float(abs(a - b) / scale) if scale else 0.0
            worst = rel if worst is None else max(worst, rel)
    return worst, used


def _verdict_of(symbolic_zero: bool, worst: float | None) -> str:
    if symbolic_zero:
        return "verified"
    if worst is None:
        return "inconclusive"
    if worst > NONZERO_RELATIVE:
        return "refuted"
    return "verified" if worst <= ZERO_RELATIVE else "inconclusive"


def integration_discrepancy(problem: OdeProblem, seed) -> dict:
    """DOP853 (rtol 1e-13) integration vs the candidate for a few parameter draws.

    Tolerance: DOP853's global error is proportional to the requested tolerance, so the error of
    the rtol = 1e-13 run is about 1/99 of the difference between it and a run at rtol = 1e-11; the
    tolerance is that whole difference (a safety factor 99) plus 10·rtol·(1 + max|y|) for rounding.
    """
    t, states = problem.time, list(problem.state)
    params = list(problem.parameters)
    f = sp.lambdify([t, states, params], [problem.equations[s] for s in states], modules="numpy")
    y0_f = sp.lambdify([params], [problem.initial[s] for s in states], modules="numpy")
    sol_f = sp.lambdify([t, params], [problem.solution[s] for s in states], modules="numpy")
    rng = np.random.default_rng([int(seed), 6])
    T = problem.time_span[1]
    grid = np.linspace(0.0, T, GRID)
    worst, worst_tol, draws, skipped = None, None, 0, 0
    with np.errstate(all="ignore"):
        for _ in range(INTEGRATION_DRAWS):
            pv = [float(rng.uniform(lo, hi)) for lo, hi in problem.parameters.values()]
            y0 = np.asarray(y0_f(pv), dtype=float)
            try:
                cand = np.array([np.broadcast_to(np.asarray(v, dtype=float), grid.shape) for v in sol_f(grid, pv)])
            except (TypeError, ValueError):
                skipped += 1
                continue
            if not (np.all(np.isfinite(y0)) and np.all(np.isfinite(cand))):
                skipped += 1
                continue
            def rhs(tt, yy, pv=pv):
                return np.asarray(f(tt, yy, pv), dtype=float)

            sol = solve_ivp(rhs, (0.0, T), y0, method="DOP853", t_eval=grid, rtol=RTOL, atol=RTOL)
            loose = solve_ivp(rhs, (0.0, T), y0, method="DOP853", t_eval=grid, rtol=100 * RTOL, atol=100 * RTOL)
            if not (sol.success and loose.success) or sol.y.shape[1] != GRID or loose.y.shape[1] != GRID:
                skipped += 1
                continue
            tol = float(np.max(np.abs(loose.y - sol.y))) + 10 * RTOL * (1 + float(np.max(np.abs(sol.y))))
            err = float(np.max(np.abs(sol.y - cand)))
            if worst is None or err - tol > worst - worst_tol:  # keep the draw closest to failing
                worst, worst_tol = err, tol
            draws += 1
    return {"max_discrepancy": worst, "tolerance": worst_tol, "draws": draws, "skipped_draws": skipped,
            "method": f"scipy DOP853 rtol {RTOL:g}, atol {RTOL:g}, {GRID} grid points on [0, {T:g}]",
            "tolerance_reason": "global error ∝ requested tolerance: |y(rtol 1e-11) − y(rtol 1e-13)| (≈ 99× the "
                                "error at 1e-13) + 10·rtol·(1 + max|y|)"}


def check_ode(problem: OdeProblem, seed: int = 0) -> dict:
    """Verdict on a candidate closed form (see the module docstring); a JSON-able dict."""
    t = problem.time
    points = _points(problem, POINTS, seed)
    zero_pts = [{**{s: v for s, v in pt.items() if s != t}, t: mpmath.mpf(0)} for pt in points]
    initial, residuals, verdicts = {}, {}, []
    subs_state = {s: problem.solution[s] for s in problem.state}
    for s in problem.state:
        zero, text = simplify_to_zero(problem.solution[s].subs(t, 0) - problem.initial[s])
        worst, used = residual_at_points(problem.solution[s].subs(t, 0), problem.initial[s], zero_pts)
        v = _verdict_of(zero, worst)
        initial[s.name] = {"symbolic": text, "max_relative_at_points": worst, "points": used, "verdict": v}
        verdicts.append(v)
        lhs = sp.diff(problem.solution[s], t)
        rhs = problem.equations[s].subs(subs_state, simultaneous=True)
        zero, text = simplify_to_zero(lhs - rhs)
        worst, used = residual_at_points(lhs, rhs, points)
        v = _verdict_of(zero, worst)
        residuals[s.name] = {"symbolic": text, "max_relative_at_points": worst, "points": used, "verdict": v}
        verdicts.append(v)
    integ = integration_discrepancy(problem, seed)
    if "refuted" in verdicts:
        status = "refuted"
        bad = [f"{k}: {v['verdict']}" for k, v in {**{f"initial {k}": v for k, v in initial.items()},
                                                   **{f"residual {k}": v for k, v in residuals.items()}}.items()
               if v["verdict"] == "refuted"]
        message = "the candidate does not solve the problem (" + "; ".join(bad) + ")"
    elif all(v == "verified" for v in verdicts):
        if integ["draws"] and integ["max_discrepancy"] > integ["tolerance"]:
            status, message = "inconclusive", "zero residual but the numerical integration disagrees"
        else:
            status = "verified"
            how = "symbolically" if all(e["symbolic"] == "0" for e in (*initial.values(), *residuals.values())) \
                else "to rounding at random high-precision points"
            message = f"initial condition and ODE residual vanish {how}"
    else:
        status, message = "inconclusive", "residual neither provably zero nor clearly non-zero at the sample points"
    return {"status": status, "message": message, "initial": initial, "residuals": residuals, "integration": integ,
            "precision": f"mpmath {DPS} digits at {POINTS} seeded random points (seed {seed})",
            "thresholds": {"zero_relative": ZERO_RELATIVE, "nonzero_relative": NONZERO_RELATIVE}}
