"""The candidate closed form of `theory.ode_checker` at numbers: its second piece of evidence.

A candidate is substituted into the problem with its exact numbers kept bounded (`substitute`: an exact power of
more than MAX_EXACT_DIGITS digits becomes a DPS-digit Float, a constant argument of exp, sin, … beyond
MAX_FUNCTION_ARGUMENT is refused), and the two sides of an equation are compared at seeded random points (t,
parameters) drawn uniformly in the time span and the parameter ranges, with mpmath at ``DPS`` digits
(`residual_at_points`). Relative to the size of the two sides |y_cand'| + |f(t, y_cand)|, an exact solution leaves
only rounding (≤ 10^-(DPS−20) = ZERO_RELATIVE, 20 digits being allowed to cancellation); a residual above
NONZERO_RELATIVE = 10^-8 at some point, the same at 2·DPS digits, is no rounding. How `theory.ode_checker` turns
these numbers into a verdict is its `_verdict_of`.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from .ode_problem import OdeProblem
from .safe_expression import MAX_EXACT_DIGITS, MAX_FUNCTION_ARGUMENT, magnitude

DPS = 50
ZERO_RELATIVE = 10.0 ** -(DPS - 20)  # an exact solution's residual: rounding at DPS digits, 20 lost to cancellation
NONZERO_RELATIVE = 1e-8  # a residual this large at a point is not rounding at any precision used here


# -- exact numbers kept printable and bounded --------------------------------------------------------

_NO_VALUE = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def _digits(r: sp.Rational) -> float:
    """log10 of the larger of |numerator|, denominator (math.log10 takes big ints; str() refuses more than 4300
    digits)."""
    return math.log10(max(abs(r.p), r.q, 1))


def _float(r: sp.Rational) -> sp.Float:
    """``r`` as a DPS-digit Float, through mpmath (SymPy's Float(r) converts a big numerator with str())."""
    with mpmath.workdps(DPS):
        return sp.Float(mpmath.mpf(r.p) / r.q, DPS)


def _floated(expr) -> sp.Expr:
    """``expr`` with every exact number of more than MAX_EXACT_DIGITS digits replaced by its DPS-digit Float."""
    big = {r: _float(r) for r in expr.atoms(sp.Rational) if _digits(r) > MAX_EXACT_DIGITS}
    return expr.xreplace(big) if big else expr


def _text(expr) -> str:
    """``sp.sstr(expr)``, with exact numbers beyond MAX_EXACT_DIGITS digits shown as DPS-digit Floats."""
    return sp.sstr(_floated(expr))


class BeyondRange(ArithmeticError):
    """A substitution made a constant argument of exp, sin, … beyond MAX_FUNCTION_ARGUMENT: SymPy would never finish
    evaluating it (argument reduction with log2|x| bits)."""


def _guarded(name: str):
    """mpmath's ``name`` refusing an argument beyond MAX_FUNCTION_ARGUMENT (OverflowError: the point is unusable)."""
    function = getattr(mpmath, name)

    def guarded(x):
        if abs(x) > MAX_FUNCTION_ARGUMENT:
            raise OverflowError(f"{name} of a number beyond {MAX_FUNCTION_ARGUMENT:g}")
        return function(x)
    return guarded


_REDUCING = {sp.exp: "exp", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.sinh: "sinh", sp.cosh: "cosh",
             sp.tanh: "tanh"}
_GUARDED_MPMATH = {name: _guarded(name) for name in _REDUCING.values()}


def substitute(expr, mapping: dict) -> tuple[sp.Expr, bool]:
    """``expr.subs(mapping)`` with the substitution made bottom-up, and whether a number was rounded.

    A substitution can turn a symbolic power tower into a numeric one (10**(10**(4 + t)) at t = 0 is 10^10000), which
    SymPy would compute exactly, however large. Here an exact power whose value would have more than
    MAX_EXACT_DIGITS digits is computed as a DPS-digit Float instead (mpmath keeps any exponent); the flag says so,
    because a difference of rounded numbers that is 0 is no proof of a zero. A constant argument of exp, sin, …
    beyond MAX_FUNCTION_ARGUMENT raises BeyondRange (exp(exp(exp(exp(5 + t)))) at t = 0).
    """
    rounded = False

    def walk(e):
        nonlocal rounded
        if e in mapping:
            return mapping[e]
        if not e.args or not e.has(*mapping):
            return e
        args = [walk(a) for a in e.args]
        if isinstance(e, sp.Pow) and args[0].is_Rational and args[1].is_Rational and args[0] not in (0, 1, -1):
            base, power = args
            if abs(power) * _digits(base) > MAX_EXACT_DIGITS:  # the digits of base**power
                rounded = True
                return _float(base) ** power
        if e.func in _REDUCING and args[0].is_number and not magnitude(args[0]) <= MAX_FUNCTION_ARGUMENT:
            raise BeyondRange(f"{_REDUCING[e.func]} of a constant beyond {MAX_FUNCTION_ARGUMENT:g}")
        return e.func(*args)

    return walk(expr), rounded


# -- evidence at the points --------------------------------------------------------------------------


def _defined_somewhere(problem: OdeProblem, points) -> bool:
    """Whether the candidate has a finite real value (every component) at one of ``points`` at least."""
    with mpmath.workdps(DPS):
        return any(all(_mp_value(problem.solution[s], pt) is not None for s in problem.state) for pt in points)


def _points(problem: OdeProblem, count: int, seed) -> list[dict]:
    rng = np.random.default_rng([int(seed), 5])
    out = []
    for _ in range(count):
        pt = {problem.time: mpmath.mpf(float(rng.uniform(*problem.time_span)))}
        for sym, (low, high) in problem.parameters.items():
            pt[sym] = mpmath.mpf(float(rng.uniform(low, high)))
        out.append(pt)
    return out


@functools.lru_cache(maxsize=256)
def _mp_function(expr, symbols: tuple):
    """``expr`` as an mpmath function of ``symbols`` (lambdify), made once per expression: `residual_at_points` evaluates
    the same two sides at every point (making it at each point was most of check-ode's time)."""
    # Dummies for the symbols: lambdify prints the arguments' names into its code and puts every symbol of a single
    # expression into the code's namespace by name, so a parameter named mpf would hide mpmath's mpf
    dummies = [sp.Dummy() for _ in symbols]
    return sp.lambdify(dummies, _floated(expr).xreplace(dict(zip(symbols, dummies))), modules=[_GUARDED_MPMATH, "mpmath"])


def _mp_value(expr, point):
    """``expr`` at ``point`` in mpmath, or None where it has no finite real value (SymPy's zoo for 1/0 included)."""
    if expr.has(*_NO_VALUE):
        return None
    try:
        val = _mp_function(expr, tuple(point))(*point.values())
        val = mpmath.mpmathify(val)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None
    if not isinstance(val, mpmath.mpf) or not mpmath.isfinite(val):
        return None  # complex or non-finite: the point is outside the candidate's real domain
    return val


STABLE_RESIDUAL = 1e-6  # a residual that refutes must be the same at DPS and 2·DPS digits to this (relative)


def residual_at_points(lhs, rhs, points) -> tuple[float | None, int]:
    """max over points of |lhs − rhs|/(|lhs| + |rhs|) at DPS digits, and the number of usable points.

    A point whose relative residual exceeds NONZERO_RELATIVE is evaluated again at 2·DPS digits: rounding is relative
    to the size of each side's *terms*, not of its value, so a side that cancels terms far larger than itself (e.g.
    (sin²t + cos²t − 1)·x²⁵⁶ at x ≈ 10, exactly 0) leaves garbage far above NONZERO_RELATIVE at any fixed precision.
    A true residual is the same number at both precisions (to STABLE_RESIDUAL); rounding garbage is not. A point whose
    residual changes counts as NONZERO_RELATIVE exactly: neither a refutation nor a near zero (inconclusive)."""
    worst, used = None, 0
    with mpmath.workdps(DPS):
        for pt in points:
            a, b = _mp_value(lhs, pt), _mp_value(rhs, pt)
            if a is None or b is None:
                continue
            used += 1
            scale = abs(a) + abs(b)
            rel = float(abs(a - b) / scale) if scale else 0.0
            if rel > NONZERO_RELATIVE:
                with mpmath.workdps(2 * DPS):
                    a2, b2 = _mp_value(lhs, pt), _mp_value(rhs, pt)
                    stable = (a2 is not None and b2 is not None
                              and abs((a - b) - (a2 - b2)) <= STABLE_RESIDUAL * abs(a2 - b2))
                rel = rel if stable else NONZERO_RELATIVE
            worst = rel if worst is None else max(worst, rel)
    return worst, used
