"""Agreement of the float64 and the mpmath flow engines (`numerics.flows`): on orthonormal data (paper C's jump times,
spec C §5 C27) and on general correlated data with sliding at λ = 1e-40, 1e-300, 1e-1000 (issue 11).

Tolerances are derived from the float64 engine's settings and the mpmath digits:

* a float64 time (event or jump) carries DOP853's global error, ≤ 10·steps·rtol relative to max(1, τ); a jump time
  also the error of the cubic Hermite interpolant of ln‖θ_j‖ on the float64 step [t_a, t_b] that contains it (when the
  engine has no exact interpolant): |f − p| ≤ h⁴ max|f⁽⁴⁾|/384, a time error of that over |f'|, with f⁽⁴⁾ and f'
  from the mpmath run's Taylor polynomials at five points of the step (an estimate of the max, not a bound);
* an event time is a root: its error is the state's over the crossing speed, which a slow (near-tangential) crossing
  makes large; it is estimated a posteriori as 2·|τ(rtol) − τ(rtol/100)| from a float64 rerun 100× tighter (whose
  error is at most half the first one's once DOP853's error falls at least like rtol^0.15);
* the mpmath run is accurate to 10^-(digits − log10 ln(1/λ) − 5) (`numerics.mp_arrays.required_digits`);
* a loss carries the float64 residuals' relative error: |ΔL| ≤ 2·L(0)·10·steps·rtol.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import warnings

import mpmath
import numpy as np
from relucheck.numerics import datasets
from relucheck.numerics.flows import FlowProblem, Init, get_engine, solve
from relucheck.numerics.flows import Status as FlowStatus
from relucheck.numerics.flows.engines.taylor_guard import guard_tolerance
from relucheck.numerics.flows.loop import integrate
from relucheck.numerics.precision_guard import Guarded
from relucheck.theory.limit_process import limit_process_of

from ..registry import Context, check
from ..result import Outcome, Status, agree, apply_guard
from .high_precision import mixed_sign_instance
from .paper_c_flow import golden_instance


def hermite_error(f64, mp, jump) -> float:
    """The float64 jump time's interpolation error (module docstring); 0 if its step has an exact interpolant."""
    t = f64.track.t
    k = max(1, bisect.bisect_left(t, jump.tau))
    if k in f64.track.exact or k >= len(t):
        return 0.0
    ta, tb = t[k - 1], t[k]
    with mpmath.workdps(mp.stats["digits"]):
        def derivative(order, s):
            q = min(max(1, bisect.bisect_left(mp.track.t, s)), len(mp.track.t) - 1)
            return abs(mpmath.diff(lambda u: mp.track.value_at(q, jump.neuron, u), mpmath.mpf(s), order))

        d4 = max(derivative(4, ta + (tb - ta) * u) for u in (0, 0.25, 0.5, 0.75, 1))
        return float((tb - ta) ** 4 * d4 / 384 / derivative(1, jump.tau))


def time_tolerance(f64, tau) -> float:
    return 10 * f64.stats["steps"] * f64.tolerances["rtol"] * max(1.0, abs(tau))


# ---------------------------------------------------------------------------------------------------------------
# orthonormal data, λ = 1e-10 (spec C §5 C27)

LAM_CROSS, DIGITS_CROSS = "1e-10", 18


@check("C.thm2.mpmath_vs_float64_jump_times", statement="C.thm2", precision=f"mpmath {DIGITS_CROSS} digits + float64",
       mutant="predicts Algorithm 1's λ → 0 jump times τ_k (drops the finite-λ delay C_k/ln(1/λ)) for the flow at λ = 1e-10")
def cross_engine(ctx: Context) -> Outcome:
    """Jump times of engine "mpmath" (18 digits, guard at 36) vs engine "float64" in the data basis and in the inputs'
    basis, golden + a mixed-sign instance, λ = 1e-10, to Algorithm 1's τ_K + 0.5."""
    preds, meas, tols, rows = [], [], [], []
    worst = None
    for name, inst in (("golden", golden_instance()), ("mixed", mixed_sign_instance(ctx.seed))):
        lp = limit_process_of(inst)
        problem = FlowProblem.from_instance(inst, LAM_CROSS, horizon=lp.jumps[-1].tau + 0.5)
        mp = ctx.cached(("mp", name), lambda p=problem: solve(p, "mpmath", digits=DIGITS_CROSS, guard=True))
        if worst is None or mp.stats["guard_discrepancy"] > worst.stats["guard_discrepancy"]:
            worst = mp
        for basis in ("data", "inputs"):
            # only its jumps, steps, rtol and step track are read, which the engine's review never changes (`_unreviewed`)
            fl = ctx.cached((basis, name), lambda p=problem, b=basis: _unreviewed(p, basis=b))
            if [jp.neuron for jp in fl.jumps] != [jp.neuron for jp in mp.jumps]:
                return Outcome(Status.REFUTED, [jp.neuron for jp in mp.jumps], [jp.neuron for jp in fl.jumps], 0,
                               "the engines must find the same jumping neurons in the same order",
                               f"{name}: float64 ({basis} basis) finds a different jump order")
            pred = [jp.tau for jp in lp.jumps] if ctx.mutate else [jp.tau for jp in mp.jumps]
            preds += pred
            meas += [jp.tau for jp in fl.jumps]
            tols += [time_tolerance(fl, jp.tau) + hermite_error(fl, mp, jp) + guard_tolerance(problem, DIGITS_CROSS)
                     for jp in mp.jumps]
            rows.append({"instance": name, "basis": basis, "steps": fl.stats["steps"]})
    errors = np.abs(np.array(preds) - np.array(meas))
    out = agree(preds, meas, max(tols),
                "float64: DOP853's global error 10·steps·rtol·max(1, τ) plus the cubic Hermite interpolation error of "
                "ln‖θ_j‖ on the step of the jump (h⁴ max|f⁽⁴⁾|/384/|f'| from the mpmath polynomials); mpmath: "
                "10^-(digits − log10 ln(1/λ) − 5), checked by its guard",
                message=f"λ = {LAM_CROSS}; float64 steps: " + "; ".join(
                    f"{'mixed-sign' if name == 'mixed' else name} instance "
                    f"{', '.join(str(r['steps']) for r in rows if r['instance'] == name)} (data, inputs basis)"
                    for name in dict.fromkeys(r["instance"] for r in rows)),
                precision=f"mpmath {DIGITS_CROSS} digits vs float64", per_entry_tolerances=tols)
    out.require(bool(np.all(errors <= np.array(tols))), "a jump time exceeds its own tolerance")
    s = worst.stats
    guard = Guarded(s["jump_taus_mp"], s["guard_jump_taus_mp"], s["digits"], s["guard_digits"], s["guard_discrepancy"],
                    min(tols))
    return apply_guard(out, guard)


# ---------------------------------------------------------------------------------------------------------------
# general correlated data with sliding, λ = 1e-40, 1e-300, 1e-1000 (issue 11)

LAMBDAS = ("1e-40", "1e-300", "1e-1000")
DIGITS_GENERAL = 20
PROBE_HORIZON = 8.0


@functools.lru_cache(maxsize=8)
def general_instance(seed) -> tuple:
    """Unit inputs x_i ∈ R^3 (n = 5 > d: correlated), labels of mixed signs |y_i| ∈ [0.5, 1.5], m = 3 neurons with
    C's balanced init: the first draw of default_rng([seed, 47, attempt]) whose float64 run at λ = 1e-40 to τ = 8
    succeeds without a floating-point overflow, slides, and has two jumps ≥ 0.5 apart in τ. (X, y, directions,
    signs, horizon = its last jump + 0.5, draw)."""
    for attempt in range(100):
        rng = np.random.default_rng([seed, 47, attempt])
        X = datasets.random_directions(5, 3, rng)
        y = rng.choice([-1.0, 1.0], 5) * rng.uniform(0.5, 1.5, 5)
        G, s = datasets.random_directions(3, 3, rng), datasets.random_signs(3, rng)
        with warnings.catch_warnings():  # a probe whose float64 arithmetic overflows does not qualify
            warnings.simplefilter("error", RuntimeWarning)
            try:
                probe = solve(FlowProblem(X, y, Init.balanced(G, s, "1e-40"), horizon=PROBE_HORIZON), "float64")
            except RuntimeWarning:
                continue
        taus = sorted(jp.tau for jp in probe.jumps)
        if (probe.status is FlowStatus.SUCCESS and len(taus) >= 2 and np.diff(taus).min() >= 0.5
                and any(e.kind.value == "slide" for e in probe.events)):
            return X, y, G, s, taus[-1] + 0.5, [seed, 47, attempt]
    raise RuntimeError(f"no general instance with sliding and separated jumps in 100 draws (seed {seed})")


def general_problem(seed, lam, save_at=None) -> FlowProblem:
    X, y, G, s, horizon, draw = general_instance(seed)
    return FlowProblem(X, y, Init.balanced(G, s, lam), horizon=horizon, save_at=save_at, meta={"draw": draw})


def _plateau_points(run) -> tuple:
    """Midpoints between consecutive distinct jump times (τ = 0 first; jumps closer than 1e-6 are one) and the end."""
    marks = [0.0]
    for tau in sorted(jp.tau for jp in run.jumps):
        if tau - marks[-1] > 1e-6:
            marks.append(tau)
    return tuple((u + v) / 2 for u, v in zip(marks, marks[1:])) + (run.end,)


def _first_tie(run) -> float:
    ties = run.stats.get("near_tie_list") or []
    return min((t["tau"] for t in ties), default=np.inf)


def _unreviewed(problem, **options):
    """``solve(problem, "float64", **options)`` without the engine's review, for a run of which only the events and
    jumps are read. The review (`numerics.flows.vouch.review_by_rerun`: a second run at rtol/100) attaches error
    bounds and may turn SUCCESS into TOLERANCE, but never changes a run's events or jumps, which the loop
    (`numerics.flows.loop.integrate`) computes alone: skipping it gives the same events and jumps, bit for bit, at
    half the cost (the review of the rtol/100 run below is itself a run at rtol/10⁴, the costliest float64 run)."""
    return integrate(get_engine("float64"), problem, **options)


def _with_check_run(problem):
    """``solve(problem, "float64")`` and the same problem's run at rtol/100, atol/100 (read for its events only).

    The engine's review (`numerics.flows.vouch.review_by_rerun`) makes exactly that run (its check run: the problem
    at the run's own horizon and saved times, rtol/100, atol/100, no parameters saved) to vouch for the answer; it is
    kept here instead of being made a second time. `solve`'s steps are repeated for that (the engine, the loop, then
    the engine's review with a rerun that keeps what it runs): the same computation, bit for bit. If the review made
    no such run (another engine's policy), the run is made apart."""
    eng = get_engine("float64")
    made = []

    def rerun(problem=problem, **changes):
        made.append((problem, changes, integrate(eng, problem, **changes)))
        return made[-1][2]

    f64 = eng.review(integrate(eng, problem), problem, {}, rerun)
    rtol, atol = f64.tolerances["rtol"] / 100, f64.tolerances["atol"] / 100
    for checked, changes, run in made:
        if (changes.get("rtol"), changes.get("atol"), changes.get("save_params", False)) == (rtol, atol, False) and \
                (checked.horizon, checked.save_at, checked.max_horizon) == \
                (problem.horizon, problem.save_at, problem.max_horizon):
            return f64, run
        if (changes.get("rtol"), changes.get("atol"), changes.get("static_after")) == (rtol, atol, f64.end):
            # the check run went on past the run's end (`numerics.flows.vouch.extends`): the same steps up to there,
            # so the same events (measured at λ = 1e-40, seed 0: all 18 identical, bit for bit, to a run stopped there)
            return f64, dataclasses.replace(run, events=[e for e in run.events if e.tau <= f64.end])
    return f64, _unreviewed(problem, rtol=rtol, atol=atol)


def _compare_at(seed, lam, mutate):
    """One λ: the entries compared (prediction mpmath, measurement float64, tolerance, what) and what was not.
    The plateau points come from a first float64 run (its jumps and end); the rtol/100 rerun gives the events'
    a-posteriori error (module docstring). Both are read for their events and jumps only (`_unreviewed`)."""
    probe = general_problem(seed, lam)
    f0 = _unreviewed(probe)
    points = _plateau_points(f0)
    problem = general_problem(seed, lam, save_at=points)
    f64, fine = _with_check_run(problem)
    mp_problem = general_problem(seed, f"{float(lam) * 10:g}", save_at=points) if mutate else problem  # mutant: 10λ
    mp = solve(mp_problem, "mpmath", digits=DIGITS_GENERAL)
    entries, undecided = [], []
    if not mp.success:
        return entries, [f"λ = {lam}: the mpmath run ended {mp.status.name}: {mp.message}"], f64, mp
    mp_tol = guard_tolerance(problem, DIGITS_GENERAL)
    limit = np.inf  # float64's decisions are trusted before this time
    if f64.status is FlowStatus.PRECISION:
        limit = f64.stats["ambiguous_decisions"][0]["tau"]
        undecided.append(f"λ = {lam}: float64 reports PRECISION ({f64.message}); compared before τ = {limit:.6g}")
    elif not f64.success:
        limit = f64.end
        undecided.append(f"λ = {lam}: float64 ended {f64.status.name} ({f64.message}); compared before τ = {limit:.6g}")
    ev_f = [e for e in f64.events if e.tau < limit]
    ev_m = [e for e in mp.events if e.tau < limit]
    tie = min(_first_tie(f64), _first_tie(mp))
    for k, (u, v) in enumerate(zip(ev_m + [None] * len(ev_f), ev_f + [None] * len(ev_m))):
        if u is None and v is None:
            break
        same = u is not None and v is not None and (u.neuron, u.datum, u.kind) == (v.neuron, v.datum, v.kind)
        if same:
            w = fine.events[k] if k < len(fine.events) else None
            matched = w is not None and (w.neuron, w.datum, w.kind) == (v.neuron, v.datum, v.kind)
            estimate = 2 * abs(v.tau - w.tau) if matched else 0.0
            entries.append((u.tau, v.tau, time_tolerance(f64, u.tau) + estimate + mp_tol,
                            f"event {k} ({_event_text(u)})"))
            continue
        when = min(e.tau for e in (u, v) if e is not None)
        shown = ["none" if e is None else f"{_event_text(e)} at τ = {e.tau:.6g}" for e in (u, v)]
        if when >= tie - time_tolerance(f64, when):
            undecided.append(f"λ = {lam}: events differ from event {k} at τ = {when:.6g} (mpmath {shown[0]}, float64 "
                             f"{shown[1]}), after a decision within rounding at τ = {tie:.6g}")
        else:
            entries.append((np.nan, np.nan, 0.0, f"event {k}: mpmath {shown[0]} vs float64 {shown[1]} (no tie before)"))
        break
    if np.isfinite(limit):
        undecided.append(f"λ = {lam}: jump times not compared (the half-final rule needs the final state)")
    else:
        jf = {jp.neuron: jp for jp in f64.jumps}
        for jp in mp.jumps:
            other = jf.get(jp.neuron)
            meas = other.tau if other else np.nan
            entries.append((jp.tau, meas, time_tolerance(f64, jp.tau) + (hermite_error(f64, mp, other) if other else 0)
                            + mp_tol, f"jump of neuron {jp.neuron}"))
        if set(jf) - {jp.neuron for jp in mp.jumps}:
            extra = sorted(set(jf) - {jp.neuron for jp in mp.jumps})
            entries.append((np.nan, np.nan, 0.0, f"float64 jumps of neurons {', '.join(str(j) for j in extra)}"))
    L0 = float(f64.trajectory.loss[0]) if f64.trajectory.tau[0] == 0 else float(np.sum(problem.labels ** 2)) / (2 * problem.n)
    loss_tol = 2 * L0 * 10 * f64.stats["steps"] * f64.tolerances["rtol"]
    for t, lm, lf in zip(mp.trajectory.tau, mp.trajectory.loss, f64.trajectory.loss):
        if t < limit:
            entries.append((float(lm), float(lf), loss_tol, f"plateau loss at τ = {t:.6g}"))
    return entries, undecided, f64, mp


@check("B.remC2.float64_vs_mpmath_general_data", statement="B.remC2", precision=f"mpmath {DIGITS_GENERAL} digits + float64",
       mutant="the mpmath run started at 10λ (an initialization scale one decade off)")
def general_data_engines(ctx: Context) -> Outcome:
    """Engines "float64" and "mpmath" on correlated data through Filippov sliding at λ = 1e-40, 1e-300, 1e-1000: the
    same events (neuron, datum, kind) at the same times, the same jump times and the same plateau losses (module
    docstring). Where a run's decision was within its rounding (a near tie) the event sequences may differ after it:
    not compared, inconclusive; likewise everything after a float64 PRECISION (or other failed) status."""
    entries, undecided, rows = [], [], []
    for k, lam in enumerate(LAMBDAS):
        mutate = ctx.mutate and k == 0
        got, unsure, f64, mp = ctx.cached(("general", lam, mutate), lambda lam=lam, m=mutate: _compare_at(ctx.seed, lam, m))
        entries += got
        undecided += unsure
        rows.append({"lambda": lam, "float64": f64.status.name.lower(), "mpmath": mp.status.name.lower(),
                     "events": [len(f64.events), len(mp.events)], "steps": [f64.stats["steps"], mp.stats["steps"]],
                     "near_ties": [f64.stats["near_ties"], mp.stats["near_ties"]]})
    pred = np.array([e[0] for e in entries], dtype=float)
    meas = np.array([e[1] for e in entries], dtype=float)
    tols = np.array([e[2] for e in entries], dtype=float)
    bad = [e[3] for e, p, q, t in zip(entries, pred, meas, tols, strict=True) if not abs(p - q) <= t]
    status = Status.REFUTED if bad else (Status.INCONCLUSIVE if undecided else Status.VERIFIED)
    worst = float(np.nanmax(np.abs(pred - meas) / np.where(tols > 0, tols, 1))) if len(entries) else np.nan
    message = (f"{len(entries)} entries compared (events, jumps, plateau losses), worst error/tolerance {worst:.3g}"
               + (f"; disagree: {'; '.join(bad[:4])}" if bad else "") + (f"; not compared: {'; '.join(undecided)}"
                                                                         if undecided else "")
               + "; " + "; ".join(_run_text(r) for r in rows))
    return Outcome(status, pred.tolist(), meas.tolist(), float(tols.max()) if len(tols) else None,
                   "times: 10·steps·rtol·max(1, τ) of float64 (+ its Hermite interpolation error for jumps, + 2·|τ(rtol) − "
                   "τ(rtol/100)| for events) + 10^-(digits − log10 ln(1/λ) − 5) of mpmath; losses: 2·L(0)·10·steps·rtol",
                   message,
                   f"mpmath {DIGITS_GENERAL} digits vs float64", {"per_entry_tolerances": tols.tolist(), "runs": rows,
                                                                   "what": [e[3] for e in entries]}
                   | ({"why_inconclusive": _why_undecided(undecided)} if undecided else {}))


def _event_text(e) -> str:
    """One event in words: 'deactivation of neuron 2 on datum 5'."""
    return f"{e.kind.words} of neuron {e.neuron} on datum {e.datum}"


def _run_text(row: dict) -> str:
    """The two runs at one λ in words: 'at λ = 1e-40: both runs succeeded with 18 events each, 240 and 72 steps, 6 and 0
    near ties (float64, mpmath)'."""
    def ended(status: str) -> str:
        return "succeeded" if status == "success" else f"ended with status {status.replace('_', ' ')}"

    f64, mp = row["float64"], row["mpmath"]
    ends = f"both runs {ended(f64)}" if f64 == mp else f"the float64 run {ended(f64)}, the mpmath run {ended(mp)}"
    ne = row["events"]
    events = f"{ne[0]} events each" if ne[0] == ne[1] else f"{ne[0]} and {ne[1]} events"
    return (f"at λ = {row['lambda']}: {ends} with {events}, {row['steps'][0]} and {row['steps'][1]} steps, "
            f"{row['near_ties'][0]} and {row['near_ties'][1]} near ties (float64, mpmath)")


def _why_undecided(undecided: list[str]) -> str:
    """A reader's sentence for the entries not compared (each "λ = …: what happened …"), by cause: a run that did not
    finish (its status), a decision within a run's rounding (a near tie) after which the event sequences differ, or a
    float64 status that limits the comparison."""
    def where(kind: str) -> str:
        found = sorted({u.split(":", 1)[0] for u in undecided if u.split(": ", 1)[1].startswith(kind)},
                       key=lambda w: float(w.split("=")[1]), reverse=True)
        return " and ".join(found)

    parts = []
    if where("the mpmath run ended"):
        parts.append(f"at {where('the mpmath run ended')} the mpmath run stopped before the end (an output weight "
                     "changed sign on a balanced start, which the flow forbids, C Prop. 1: the engine reports that "
                     "instead of another flow's answer), so nothing is compared there")
    if where("events differ"):
        parts.append(f"at {where('events differ')} a decision fell within a run's rounding (a near tie), and the two "
                     "engines' event sequences differ after it; what follows it is not compared")
    if where("float64"):  # "float64 reports PRECISION …" or "float64 ended …"
        parts.append(f"at {where('float64')} the float64 run did not vouch for its whole run; only the part before "
                     "that is compared")
    return "; ".join(parts) + "; everything compared agrees"
