"""Engine "mpmath"'s review of a run: its exact jump times, and its error bounds.

With ``guard=True`` the run is rerun at twice the digits (`numerics.precision_guard.guarded`): status GUARD_FAILED
when the jump times or the final a differ beyond 10^-(digits − log10 ln(1/λ) − 5), the accuracy
`numerics.mp_arrays.required_digits` promises at ``digits``; otherwise every answer gets its error bound from that
rerun (`numerics.flows.vouch.errors_against`), widened to the flow at rest when the run ended in motion
(`vouch.widen_to_rest`). Without the guard the bounds are that a priori accuracy, marked not vouched for.
mpmath, python-flint and the precision guard are imported when a review runs: registering the engine loads none of
them (issue 22, item 6).
"""
from __future__ import annotations

import time

import numpy as np

from ..result import Status
from ..vouch import at_saved_times, check_problem, errors_against, widen_to_rest


def guard_tolerance(problem, digits: int) -> float:
    """10^-(digits − log10 ln(1/λ) − 5): the accuracy `numerics.mp_arrays.required_digits` promises at ``digits``."""
    from ...mp_arrays import required_digits

    return 10.0 ** -(digits - required_digits(problem.log_inv_lambda, 0))


def exact_jumps(result, digits: int):
    """stats["jump_taus_mp"]: (jump time at ``digits`` digits, neuron) for every jump."""
    import mpmath

    with mpmath.workdps(digits):
        result.stats["jump_taus_mp"] = [(mpmath.nstr(jp.exact, digits), jp.neuron) for jp in result.jumps]
    return result


def guard_distance(run, reference) -> float:
    """Largest difference of the jump times (same neurons in the same order, else ∞) and of the final a relative to
    the largest |a_j|, at the reference's precision."""
    import mpmath

    if [jp.neuron for jp in run.jumps] != [jp.neuron for jp in reference.jumps]:
        return float("inf")
    with mpmath.workdps(reference.stats["digits"]):
        dt = max((abs(mpmath.mpf(u.exact) - mpmath.mpf(v.exact)) for u, v in zip(run.jumps, reference.jumps, strict=True)),
                 default=mpmath.mpf(0))
        fa = [mpmath.mpf(v) for v in run.stats["a_final_mp"]]
        fb = [mpmath.mpf(v) for v in reference.stats["a_final_mp"]]
        top = max(abs(v) for v in fb) or mpmath.mpf(1)
        da = max(abs(u - v) for u, v in zip(fa, fb, strict=True)) / top
        return float(max(dt, da))


def review(result, problem, options, rerun, digits: int):
    """Exact jump times into the stats; with ``guard`` the rerun at twice the digits (module docstring), which also
    gives every answer its error bound (`numerics.flows.vouch`). Without it the bounds are the accuracy the digits
    promise (``guard_tolerance``), not checked by a rerun (``errors["vouched"]`` False)."""
    from ...precision_guard import guarded

    exact_jumps(result, digits)
    tol = guard_tolerance(problem, digits)
    if not options.get("guard"):
        result.errors = {"method": f"a priori: 10^-(digits − log10 ln(1/λ) − 5) = {tol:.3g} (no check run; "
                                   "option guard=True reruns at twice the digits)", "vouched": False,
                         "jumps": [tol] * len(result.jumps), "events": tol,
                         "plateaus": [tol * max(1.0, abs(v)) for v in result.plateaus],
                         "trajectory": [tol * max(1.0, abs(float(v))) for v in result.trajectory.loss],
                         "final_loss": tol * max(1.0, abs(result.final_loss)),
                         "squared_norm": tol * max(1.0, result.squared_norm)}
        return result
    if not (result.status.success or result.status is Status.UNSETTLED):
        return result
    started = time.perf_counter()
    check = check_problem(problem, result)
    g = guarded(lambda d: result if d == digits else exact_jumps(rerun(problem=check, digits=d, guard=False), d),
                digits, guard_distance, tol)
    result.stats.update(g.summary())
    result.stats["guard_jump_taus_mp"] = g.reference.stats["jump_taus_mp"]
    result.stats["guard_seconds"] = time.perf_counter() - started
    reference = at_saved_times(result, g.reference)
    if reference.status is Status.BUDGET:
        result.status, result.message = Status.BUDGET, f"{Status.BUDGET.value} in the guard's rerun"
        return result
    eps = max(10.0 ** -digits, float(np.finfo(float).eps))  # the answers are reported as float64
    result.errors, reason = errors_against(result, reference, problem, eps=eps, tolerances={"digits": 2 * digits},
                                           method=f"mpmath at {digits} digits against the guard's rerun at {2 * digits}")
    if not g.ok and result.status.success:
        result.status = Status.GUARD_FAILED
        result.message = (f"{Status.GUARD_FAILED.value}: the {2 * digits}-digit rerun differs by {g.discrepancy:.3g} > "
                          f"{tol:.3g} in the jump times or the final a ({result.message})")
        # nothing is vouched for (red team, session 29: guard-failed runs kept bounds 7400 times below their error)
        result.errors = {"method": result.errors["method"], "vouched": False, "reason": result.message}
    elif reason is not None and result.status.success:
        result.status, result.message = Status.TOLERANCE, f"{Status.TOLERANCE.value}: {reason} ({result.message})"
    else:
        if "events_reason" in result.errors:
            result.message += f" ({result.errors['events_reason']})"
        widen_to_rest(result, problem, rerun, {"digits": digits, "guard": False}, eps=eps)
    return result
