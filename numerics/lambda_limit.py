"""The λ → 0 limit of a flow's jump times and plateau losses on any data, with error bars (issue 24).

Paper C (Theorem 2) states its results in the limit of vanishing initialization: in accelerated time
τ = t / ln(1/λ) the flow from C Assumption 3's balanced start converges to a saddle-to-saddle process whose jump
times τ_k* and plateau losses are, on orthonormal data, those of Algorithm 1. On other data nothing computes the
limit; this module estimates it from flows at finite λ.

Method (docs/limit.md):

1. *Ladder.* The flow (`numerics.flows.solve`) runs at λ = e^{−L} for each L = ln(1/λ) of the ladder (default
   `DEFAULT_LADDER` = 10², 3·10², 10³, 3·10³); λ is passed as a decimal string (`lam_of`), so L ≫ 709 is fine.
   While a jump time's bar is above `TARGET` or a quantity has not settled, a rung 10·L_{−2} is added (10⁴ after
   3·10³), up to `EXTEND_TO`.
2. *Matching.* Jumps are matched across the ladder by position (simultaneous jumps, equal times within their
   engine errors, in one order for the whole ladder: their median time over it, then the neuron; `_ordered`):
   jump k must be the same neuron with the same fitted data at every L. From the first position where they
   differ (the order or the set of events changes with λ) the
   jumps, and the plateaus after them, are inconclusive. Two jumps whose limits agree within their error bars
   coincide in the limit (a tie, which C Assumption 4(ii) excludes): the plateau between them is inconclusive.
3. *Error law.* In x = 1/L, τ_k(λ) = τ_k* + C_k x + D_k x² + O(x³) (C's first-order correction: spec C §2.6,
   `theory.first_jump` for C_1, measured C_k/ln(1/λ) on orthonormal data in docs/paper_c_flow.md); plateau losses
   likewise (on orthonormal data they differ from the limit by powers λ^c, exponentially small in L).
4. *Extrapolants*, 5. *error bar*, 6. *settling*: `numerics.extrapolation` on each quantity (order 2 on the
   finest three rungs; its bar `SPREAD_SAFETY` (2) times the largest distance of the extrapolants from it, plus
   the engines' own error bounds carried through its weights; inconclusive unless the order-1/order-2
   disagreement shrinks from the coarser rungs to the finest by `SETTLE_FACTOR`). A rung whose engine bound on
   some jump time or plateau is above target/4 is rerun at other tolerances, keeping per quantity the smallest
   bound of runs that agree within their bounds, else inconclusive (`numerics.limit_reruns`).

`limit_of(problem_of, ladder, ...)` runs the ladder; `extrapolate(L, values, errors)` is step 4–6 on one quantity.
A quantity's ``value`` and ``error`` are None when it is inconclusive (never a bare number).
"""
from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass, field

import mpmath
import numpy as np

from .errors import RelucheckInputError
from .extrapolation import (  # noqa: F401 - steps 4-6 on one quantity: public here too, as before the split
    ENGINE_NOISE, MIN_RUNGS, SETTLE_FACTOR, SPREAD_SAFETY, Estimate, _log_weights, _weights, extrapolate)

DEFAULT_LADDER = (100.0, 300.0, 1000.0, 3000.0)  # ln(1/λ); ratio ≈ 3 between rungs
TARGET = 1e-3  # a jump time's bar above this asks for one more rung (issue 24 asks for bars under 1e-3)
EXTEND_TO = 10000.0  # the largest ln(1/λ) added by extension (a flow there costs about 3× one at 3000)
SIMULTANEOUS_RTOL = 1e-9  # jumps closer than this (relative, beyond their engine errors) are simultaneous: 10 × rtol


class LimitStatus(enum.Enum):
    """How an extrapolation ended; the value is the message (diffrax-style `RESULTS`)."""

    SUCCESS = "every jump time and plateau loss extrapolated, each with an error bar"
    PARTIAL = "some jump times or plateau losses are inconclusive (see each one's reason)"
    INCONCLUSIVE = "no jump time could be extrapolated"
    FLOW_FAILED = "a flow of the ladder did not succeed"
    BUDGET = "stopped: the time budget was spent before the ladder's last flow"

    @property
    def success(self) -> bool:
        return self is LimitStatus.SUCCESS


def lam_of(log_inv: float) -> str:
    """λ = e^{−L} as a decimal string with 20 significant digits (below float64's range for L > 745)."""
    with mpmath.workdps(30):
        return mpmath.nstr(mpmath.exp(-mpmath.mpf(log_inv)), 20, min_fixed=1, max_fixed=0)


def check_ladder(ladder) -> tuple:
    """At least MIN_RUNGS finite, distinct values L = ln(1/λ) ≥ 10 (below, x = 1/L is not small), sorted."""
    try:
        values = sorted(float(v) for v in ladder)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"ladder must be numbers ln(1/λ), e.g. 100,300,1000,3000: {exc}") from None
    if len(values) < MIN_RUNGS:
        raise RelucheckInputError(f"ladder: {len(values)} values of ln(1/λ), at least {MIN_RUNGS} (order-2 "
                                  "extrapolation on the finest three rungs and on the next coarser three)")
    if not all(math.isfinite(v) and v >= 10 for v in values) or len(set(values)) < len(values):
        raise RelucheckInputError("ladder: values of ln(1/λ) must be finite, distinct and ≥ 10, got "
                                  + ", ".join(f"{v:g}" for v in values))
    return tuple(values)


@dataclass
class LimitResult:
    """The outcome of `limit_of`: ``status`` and ``message``, the jumps (`Estimate` with neuron and fitted data),
    the plateau losses (`Estimate`), and the ladder (λ, L, each flow's status, jumps, plateaus, wall time)."""

    status: LimitStatus
    message: str
    jumps: list
    plateaus: list
    ladder: list
    stats: dict = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.status.success

    def to_json(self) -> dict:
        return {"status": self.status.name.lower(), "message": self.message,
                "error_law": "q(λ) = q* + C x + D x² + O(x³), x = 1/ln(1/λ)",
                "jumps": [j.to_json() for j in self.jumps], "plateaus": [p.to_json() for p in self.plateaus],
                "ladder": self.ladder, "stats": self.stats}


def _rung_json(L, lam, run, wall) -> dict:
    return {"log_inv_lambda": L, "lambda": lam, "engine": run.engine, "status": run.status.name.lower(),
            "message": run.message, "wall_seconds": wall,
            "jumps": [{"tau": j.tau, "neuron": j.neuron, "fitted": list(j.fitted)} for j in run.jumps],
            "plateaus": list(run.plateaus)}


def _ordered(run, rank=None) -> list:
    """The run's (jump, engine error) in time order, simultaneous jumps (times within their engine errors plus
    `SIMULTANEOUS_RTOL`) put in one order for the whole ladder: several neurons often jump together on general data
    (measured: groups of three at equal times to 1e-6 on an n = 8 instance), and their order in the list is then
    rounding, not the flow. That order is ``rank`` (a jump's median time over the ladder, `_rank`), then the
    neuron: sorting by neuron alone swapped two jumps 0.078 apart whose engine bound (0.1, inherited) grouped them
    at one rung only, so a ladder whose rungs all had the same jumps in the same order was "differs across the
    ladder" (new-user report, issue 24: an orthonormal n = 8, m = 6 instance)."""
    items = [(j, _err(run, "jumps", i)) for i, j in enumerate(run.jumps)]
    groups = []
    for item in items:
        j, e = item
        if groups:
            last, last_e = groups[-1][-1]
            tol = (e or 0.0) + (last_e or 0.0) + SIMULTANEOUS_RTOL * max(1.0, abs(j.tau))
            if abs(j.tau - last.tau) <= tol:
                groups[-1].append(item)
                continue
        groups.append([item])
    rank = rank or (lambda j: 0.0)
    return [item for g in groups for item in sorted(g, key=lambda it: (rank(it[0]), it[0].neuron))]


def _rank(runs):
    """A jump's (neuron, fitted data) → its median time over the ladder's flows: one order for jumps that some
    rung cannot tell apart (`_ordered`), the same at every rung."""
    times = {}
    for r in runs:
        for j in r.jumps:
            times.setdefault((j.neuron, tuple(j.fitted)), []).append(j.tau)
    return lambda j: float(np.median(times[(j.neuron, tuple(j.fitted))]))


def _matched(ordered) -> tuple[int, str]:
    """How many leading jumps agree (neuron and fitted data) at every rung, and why the next one does not."""
    keys = [[(j.neuron, tuple(j.fitted)) for j, _ in r] for r in ordered]
    k = 0
    while all(len(s) > k for s in keys) and len({s[k] for s in keys}) == 1:
        k += 1
    if all(len(s) == k for s in keys):
        return k, ""
    seen = sorted({s[k] if len(s) > k else None for s in keys}, key=str)
    return k, (f"jump {k + 1} differs across the ladder: (neuron, fitted data) "
               f"{['none' if v is None else v for v in seen]} at different λ")


def limit_of(problem_of, ladder=DEFAULT_LADDER, *, engine: str = "float64", budget: float | None = None,
             progress=None, target: float = TARGET, extend_to: float = EXTEND_TO, **options) -> LimitResult:
    """Run the flow at λ = e^{−L} for each L of ``ladder`` and extrapolate (module docstring). While a jump time's
    bar exceeds ``target`` or a quantity is inconclusive for want of settling, one more rung L_next = 10·L_{−2}
    (3000 → 10⁴ → 3·10⁴) is added, up to ``extend_to``; a failed or unaffordable extension keeps the last answer
    and says so.

    ``problem_of(lam)`` builds the `numerics.flows.FlowProblem` at λ (a decimal string); ``engine`` and
    ``options`` go to `numerics.flows.solve`; ``budget`` seconds bound the whole ladder (the remaining time is each
    flow's budget); ``progress(L, seconds, result)`` is called after each flow."""
    ladder = list(check_ladder(ladder))
    first = len(ladder)
    started = time.perf_counter()
    runs, rungs = [], []
    for L in ladder:
        failed = _rung(problem_of, L, engine, budget, started, progress, options, runs, rungs, target)
        if failed is not None:
            return LimitResult(failed[0], failed[1], [], [], rungs, {"wall_seconds": time.perf_counter() - started})
    result = _extrapolated(runs, rungs, time.perf_counter() - started)
    while _wants_more(result, target) and 10 * ladder[-2] <= extend_to:
        ladder.append(10 * ladder[-2])
        failed = _rung(problem_of, ladder[-1], engine, budget, started, progress, options, runs, rungs, target)
        if failed is not None:
            result.message += f" (the extension to ln(1/λ) = {ladder[-1]:g} did not help: {failed[1]})"
            result.ladder = rungs
            break
        result = _extrapolated(runs, rungs, time.perf_counter() - started)
    result.stats["extended_with"] = ladder[first:]
    return result


def _wants_more(result, target) -> bool:
    """A jump time's bar above ``target``, or a quantity not settled."""
    return any((q.ok and q in result.jumps and q.error > target) or (not q.ok and "not settled" in q.reason)
               for q in result.jumps + result.plateaus)


def _rung(problem_of, L, engine, budget, started, progress, options, runs, rungs, target=TARGET):
    """One flow of the ladder, appended to ``runs`` and ``rungs``; (status, message) when it did not succeed. A
    float64 run whose engine bound on some jump time or plateau is above target/ENGINE_SHARE is rerun at other
    tolerances (`numerics.limit_reruns`); ``rungs[-1]`` then says which rtol each quantity comes from."""
    from .flows import Status, solve
    from .flows.engines.logscale import RTOL
    from .limit_reruns import ENGINE_SHARE, rerun, too_large

    lam = lam_of(L)
    opts = dict(options)
    if budget is not None:
        left = budget - (time.perf_counter() - started)
        if left <= 0:
            return LimitStatus.BUDGET, f"{LimitStatus.BUDGET.value} (at ln(1/λ) = {L:g})"
        opts["budget"] = left
    t0, c0 = time.perf_counter(), time.process_time()
    problem = problem_of(lam)
    run = solve(problem, engine, **opts)
    wall = time.perf_counter() - t0
    rungs.append(_rung_json(L, lam, run, wall))
    rungs[-1]["cpu_seconds"] = time.process_time() - c0
    rungs[-1]["rtol"] = opts.get("rtol", RTOL) if run.engine == "float64" else None
    threshold = target / ENGINE_SHARE
    if run.success and run.engine == "float64" and too_large(run, threshold):
        base = {k: v for k, v in opts.items() if k not in ("rtol", "budget")}
        deadline = None if budget is None else started + budget
        run, note = rerun(run, problem, lambda pr, **o: solve(pr, "float64", **o, **base), rungs[-1]["rtol"],
                          threshold, {}, deadline)
        rungs[-1]["engine_reruns"] = note
        rungs[-1]["jumps"] = [{"tau": j.tau, "neuron": j.neuron, "fitted": list(j.fitted)} for j in run.jumps]
        rungs[-1]["plateaus"] = list(run.plateaus)
        rungs[-1]["wall_seconds"] = time.perf_counter() - t0
        rungs[-1]["cpu_seconds"] = time.process_time() - c0
    if progress is not None:
        progress(L, rungs[-1]["wall_seconds"], run)
    if not run.success:
        status = LimitStatus.BUDGET if run.status is Status.BUDGET else LimitStatus.FLOW_FAILED
        return status, (f"{status.value}: at ln(1/λ) = {L:g} engine {run.engine} ended with status "
                        f"{run.status.name.lower()}: {run.message}")
    runs.append(run)
    return None


def _extrapolated(runs, rungs, wall) -> LimitResult:
    """Steps 2–6 on the ladder's flows (at each flow's own ln(1/λ), of its 20-digit λ)."""
    ladder = [r.log_inv_lambda for r in runs]
    rank = _rank(runs)
    ordered = [_ordered(r, rank) for r in runs]
    k, why = _matched(ordered)
    jumps = []
    for i in range(k):
        est = extrapolate(ladder, [o[i][0].tau for o in ordered], [o[i][1] for o in ordered])
        est.neuron, est.fitted = ordered[-1][i][0].neuron, tuple(ordered[-1][i][0].fitted)
        jumps.append(_disagreed(runs, ("jump", (est.neuron, est.fitted)), est))
    if why:
        longest = max(ordered, key=len)
        for i in range(k, len(longest)):
            jumps.append(Estimate("inconclusive", why, neuron=longest[i][0].neuron, fitted=tuple(longest[i][0].fitted),
                                  samples=[o[i][0].tau if len(o) > i else None for o in ordered]))
    plateaus = []
    for i in range(k + 1):  # plateau i lies between jumps i and i + 1: defined at every rung up to the k-th
        if i == k and why:
            plateaus.append(Estimate("inconclusive", f"the plateau after jump {k} ends where the ladder's jumps differ: {why}"))
            continue
        if 0 < i < k and jumps[i - 1].ok and jumps[i].ok and \
                abs(jumps[i].value - jumps[i - 1].value) <= jumps[i].error + jumps[i - 1].error:
            a, b = jumps[i - 1], jumps[i]  # "coincide" only when the bars are small: wide (engine) bars merely overlap
            plateaus.append(Estimate("inconclusive", f"jumps {i} and {i + 1} are not separated by their error bars "
                                     f"({a.value:.10g} ± {a.error:.2g}, {b.value:.10g} ± {b.error:.2g}): they may "
                                     "coincide in the limit (a tie, as C Assumption 4(ii) excludes), so no plateau "
                                     "between them is extrapolated"))
            continue
        plateaus.append(_disagreed(runs, ("plateau", i), extrapolate(ladder, [r.plateaus[i] for r in runs],
                                                                      [_err(r, "plateaus", i) for r in runs])))
    bad = [q for q in jumps + plateaus if not q.ok]
    if not any(j.ok for j in jumps) and jumps:
        status = LimitStatus.INCONCLUSIVE
    else:
        status = LimitStatus.PARTIAL if bad else LimitStatus.SUCCESS
    message = status.value if not bad else f"{status.value}; first: {bad[0].reason}"
    return LimitResult(status, message, jumps, plateaus, rungs, {"wall_seconds": wall, "matched_jumps": k})


def _disagreed(runs, key, est) -> Estimate:
    """``est``, or inconclusive when on some rung the runs at different tolerances disagree on the quantity beyond
    their stated bounds (`numerics.limit_reruns`: evidence that a bound is wrong)."""
    for r in runs:
        why = getattr(r, "disagreements", {}).get(key)
        if why:
            est.status, est.reason, est.value, est.error = "inconclusive", f"at ln(1/λ) = {r.log_inv_lambda:g}: {why}", None, None
            break
    return est


def _err(run, kind: str, i: int):
    values = run.errors.get(kind)
    if values is None or i >= len(values):
        return None
    return float(values[i])
