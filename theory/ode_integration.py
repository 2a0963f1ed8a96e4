"""The third piece of evidence of `theory.ode_checker`: the initial-value problem y' = f(t, y), y(0) = y_0 integrated
numerically with scipy's DOP853 (rtol 1e-13) for a few seeded parameter draws and compared with the candidate closed
form on a time grid, with a tolerance derived from a second run at a looser tolerance (`integration_discrepancy`).
The expressions are the parsed ones of `theory.ode_problem` (never evaluated text), printed to numpy functions.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from .ode_problem import OdeProblem

RTOL = 1e-13
INTEGRATION_DRAWS = 3
GRID = 41


def _real(values) -> np.ndarray:
    """``values`` as a float array; a value with a non-zero imaginary part (SymPy's I·√y0 for √(−y0)) raises
    ValueError instead of numpy's silent cast to the real part."""
    arr = np.asarray(values)
    if np.iscomplexobj(arr) or arr.dtype == object:
        arr = np.asarray(arr, dtype=complex)
        if np.any(arr.imag != 0):
            raise ValueError("a value is not real")
        arr = arr.real
    return np.asarray(arr, dtype=float)


def _numpy_function(args, exprs):
    """``exprs`` as a numpy function of ``args`` (symbols, or lists of symbols). For the functions
    `ode_problem.FUNCTIONS` admits, SymPy's default modules (scipy, numpy) print the same code with the same numpy
    functions, so the choice is not observable.

    Dummies for the symbols, as in `ode_points._mp_function`: lambdify prints the symbols' names into its code, where a declared
    name can hide a name the printer uses for the grammar's functions and constants (numpy prints E as ``e`` and asin
    as ``arcsin``): a parameter named ``e`` was read in place of Euler's number (red team, issue 20)."""
    mapping = {s: sp.Dummy() for a in args for s in (a if isinstance(a, (list, tuple)) else [a])}
    dummy_args = [[mapping[s] for s in a] if isinstance(a, (list, tuple)) else mapping[a] for a in args]
    return sp.lambdify(dummy_args, [sp.sympify(e).xreplace(mapping) for e in exprs],
                       modules="numpy")  # pragma: no mutate - same code as the default modules, see above


# A value that cannot be used in float64 for a drawn parameter: complex (_real), 1/0 or an overflow of Python floats
# (a value that does not depend on t, e.g. 1/(a − 1) at a = 1 or a**100 at a = 1e5, is a Python float, not numpy)
_UNUSABLE = (TypeError, ValueError, ArithmeticError)


def integration_discrepancy(problem: OdeProblem, seed) -> dict:
    """DOP853 (rtol 1e-13) integration vs the candidate for a few parameter draws.

    Tolerance: DOP853's global error is proportional to the requested tolerance, so the error of
    the rtol = 1e-13 run is about 1/99 of the difference between it and a run at rtol = 1e-11; the
    tolerance is that whole difference (a safety factor 99) plus 10·rtol·(1 + max|y|) for rounding.
    """
    t, states = problem.time, list(problem.state)
    params = list(problem.parameters)
    f = _numpy_function([t, states, params], [problem.equations[s] for s in states])
    y0_f = _numpy_function([params], [problem.initial[s] for s in states])
    sol_f = _numpy_function([t, params], [problem.solution[s] for s in states])
    rng = np.random.default_rng([int(seed), 6])
    T = problem.time_span[1]
    grid = np.linspace(0.0, T, GRID)
    worst, worst_tol, draws, skipped = None, None, 0, 0
    with np.errstate(all="ignore"):
        for _ in range(INTEGRATION_DRAWS):
            pv = [float(rng.uniform(lo, hi)) for lo, hi in problem.parameters.values()]
            try:  # a draw where the initial condition, the candidate or the field is not real is skipped (counted)
                y0 = _real(y0_f(pv))
                cand = np.array([np.broadcast_to(_real(v), grid.shape) for v in sol_f(grid, pv)])
            except _UNUSABLE:
                skipped += 1
                continue
            if not (np.all(np.isfinite(y0)) and np.all(np.isfinite(cand))):
                skipped += 1
                continue
            def rhs(tt, yy, pv=pv):
                value = _real(f(tt, yy, pv))
                if not np.all(np.isfinite(value)):  # numpy's nan for log(−1): DOP853 would shrink its step forever
                    raise ValueError("the field is not finite")
                return value

            try:
                sol = solve_ivp(rhs, (0.0, T), y0, method="DOP853", t_eval=grid, rtol=RTOL, atol=RTOL)
                loose = solve_ivp(rhs, (0.0, T), y0, method="DOP853", t_eval=grid, rtol=100 * RTOL, atol=100 * RTOL)
            except _UNUSABLE:
                skipped += 1
                continue
            if not (sol.success and loose.success):  # success: the end of the span, every grid point, was reached
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
