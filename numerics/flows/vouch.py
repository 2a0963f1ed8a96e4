"""The error a result reports, from a check rerun at a tighter tolerance (issue 20: a tolerance is a promise).

Every answer of a run — a jump time, a plateau loss, the loss at a saved time, an event time, the final loss — comes
with an error bound in ``FlowResult.errors``, derived by running the same problem again at a tolerance R times
tighter (engine "float64": rtol/R and atol/R with R = ``CHECK_FACTOR``; engine "mpmath": its precision guard at twice
the digits) and comparing:

* Where the integrator's global error is proportional to its tolerance (DOP853 is tolerance proportional:
  Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.4; the flow is a gradient flow, so errors are not amplified
  except through the timing of events, which the same proportionality covers), A(r) − A* ≈ C·r, hence
  |A(r) − A*| ≈ |A(r) − A(r/R)| · R/(R − 1). The reported error is ``SAFETY``·|A(r) − A(r/R)| + floor with
  SAFETY = 2 ≥ R/(R − 1) (R ≥ 10), the factor 2 covering a proportionality that holds only roughly (event
  location cuts steps, the dense output's own error), and the floor what the two runs cannot be told apart by:
  rounding, ``FLOOR_ULPS`` ulps of the quantity's scale (τ: max(1, |τ|); losses: the initial loss, which a
  gradient flow never exceeds), and never less than the run's own relative tolerance rtol of that scale: two runs
  can share an error that does not shrink with the tolerance (measured on drawn n = 3 data: an event at τ = 0.021 the
  same to 1e-14 at rtol 1e-4 and 1e-6 and 8e-12 away at rtol 1e-12 — a pre-activation crossing its kink at a
  shallow angle, where rounding of the state moves the crossing by δz/|ż|). Plateau losses are interpolated between
  step ends, an error no tolerance controls: their bound adds the loss's change over that step (the loss of a
  gradient flow never increases, so the value at the midpoint lies between the step ends'). A jump time also
  inherits the largest event-time bound before it: the flow is autonomous, so an event found late by δ delays what
  follows by about δ (measured: jump times that agree to 1e-12 between rtol 1e-4 and 1e-6 and differ by 5e-12 from
  rtol 1e-12, whose events moved by 1e-7).
* A run that recorded near ties (decisions within the floor, `numerics.flows.loop`) is fragile: its check runs at the
  tightest tolerance (engine "float64": rtol 1e-12) instead of 100× tighter. Measured on drawn n = 4 data: a neuron
  sliding on two kinks leaves both at τ = 2.27 at rtol 1e-6 and at 2.44 at 1e-8, by a decision within the floor (a
  push of 2e-15), and stays to τ = 3 at 1e-10 and 1e-12; the 1e-8 check confirmed the 1e-6 event list, 1e-12 does not.
* Where it is not — a sign decision taken differently, so the two runs follow different branches — the runs differ
  in *structure*: not the same jumps (neurons, fitted data; two jumps close in time may swap places), or the check
  run itself not successful. Then nothing is vouched for and the status is not a success (`Status.TOLERANCE`,
  message naming the difference); engine "auto" reruns in mpmath.
* Events are matched component by component (for each neuron and datum the same kinds in the same order; events of
  different components may swap places). Where the lists differ while jumps, plateaus and the saved losses agree —
  measured at λ = 1e-1000 on a drawn n = 6 instance: a grown neuron sliding on a kink leaves and rejoins it four
  times at rtol 1e-10 and once at 1e-12, the losses equal to 5e-13 — the event times get no bound
  (``errors["events"]`` None, ``errors["events_reason"]`` says why, and the message too): the list is not vouched
  for, the losses and jump times are.

The bound is a promise about the run against a tighter run, not a proof: a branch taken identically at r and r/R but
differently below r/R is not seen. `tests/test_engine_tolerance.py` tests the promise on drawn general data against
runs at rtol 1e-12 for rtol 1e-2 … 1e-12.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from .norm_track import cut
from .result import Status, jump_times
from .settle import jump_drift, rest_horizon, rest_window
from .vouch_text import jump_differences

CHECK_FACTOR = 100.0  # R: the check run's tolerance is R times tighter
SAFETY = 2.0  # ≥ R/(R − 1), with a margin (module docstring)
FLOOR_ULPS = 64  # what two runs cannot be told apart by, in ulps of the quantity's scale


def _by_component(events) -> dict:
    """(neuron, datum) -> [(kind, index in the list)]: events of different components may swap places when their
    times are within the error (simultaneous crossings), those of one component may not."""
    out: dict = {}
    for q, e in enumerate(events):
        out.setdefault((e.neuron, e.datum), []).append((e.kind, q))
    return out


def _structure(run, check, unit: str = "τ") -> str | None:
    """Why the two runs cannot be compared answer by answer, or None. Jumps are matched by neuron (two jumps close
    in time may swap places)."""
    if not check.status.success:
        return f"the check run ended with status {check.status.name.lower()} ({check.message})"
    ours = sorted((jp.neuron, tuple(jp.fitted)) for jp in run.jumps)
    theirs = sorted((jp.neuron, tuple(jp.fitted)) for jp in check.jumps)
    if ours != theirs:
        return jump_differences(run.jumps, check.jumps, unit)
    return None


def _event_structure(run, check) -> str | None:
    """Why the two event lists cannot be matched component by component, or None."""
    mine, other = _by_component(run.events), _by_component(check.events)
    for key in sorted(set(mine) | set(other)):
        u, v = [k for k, _ in mine.get(key, [])], [k for k, _ in other.get(key, [])]
        if u != v:  # shown from the first difference (the first four alone may be the same: red team, issue 20)
            q = next((q for q, (a, b) in enumerate(zip(u, v)) if a != b), min(len(u), len(v)))
            where = f"from its event {q + 1} on" if q else "from the first"
            return (f"the events of neuron {key[0]} on datum {key[1]} differ {where}: "
                    f"{', '.join(k.words for k in u[q:q + 4]) or 'none'} ({len(u)} in all) against "
                    f"{', '.join(k.words for k in v[q:q + 4]) or 'none'} ({len(v)}) in the check run ({len(run.events)} and "
                    f"{len(check.events)} events in all)")
    return None


def _matched_events(run, check) -> list:
    """Pairs (event, the check run's event) component by component (`_structure` has checked they match)."""
    other = _by_component(check.events)
    seen: dict = {}
    pairs = []
    for e in run.events:
        k = seen.get((e.neuron, e.datum), 0)
        seen[(e.neuron, e.datum)] = k + 1
        pairs.append((e, check.events[other[(e.neuron, e.datum)][k][1]]))
    return pairs


def _bounds(values, reference, floor) -> list[float]:
    values, reference = np.asarray(values, dtype=float), np.asarray(reference, dtype=float)
    return (SAFETY * np.abs(values - reference) + floor).tolist()


def errors_against(run, check, problem, *, eps: float, method: str, tolerances: dict,
                   rtol: float = 0.0) -> tuple[dict, str | None]:
    """(``FlowResult.errors``, None) from a run and its check run at the same saved times, or (a dict without
    bounds, the reason) when they differ in structure (module docstring)."""
    out = {"method": method, "check": {**tolerances, "status": check.status.name.lower()}}
    reason = _structure(run, check, "τ" if problem.time_unit == "tau" else "t")
    if reason is not None:
        out["vouched"] = False
        out["reason"] = reason
        return out, reason
    y = problem.labels
    loss_scale = max(float(np.max(run.trajectory.loss)), float(np.max(check.trajectory.loss)), float(y @ y) / (2 * y.size))
    unit = max(FLOOR_ULPS * eps, rtol)  # relative floor: rounding, and never less than the run's own tolerance
    loss_floor = unit * loss_scale
    events_differ = _event_structure(run, check)
    event_bounds = [] if events_differ else [SAFETY * abs(u.tau - v.tau) + unit * max(1.0, abs(u.tau))
                                             for u, v in _matched_events(run, check)]
    event_taus = [e.tau for e in run.events]
    theirs = {jp.neuron: jp.tau for jp in check.jumps}

    def inherited(tau):  # the largest event-time bound before tau: the dynamics after an event is shifted with it
        k = int(np.searchsorted(event_taus, tau, side="right"))
        return max(event_bounds[:k], default=0.0)

    out.update({
        "vouched": True,
        "jumps": [SAFETY * abs(u.tau - theirs[u.neuron]) + unit * max(1.0, abs(u.tau)) + inherited(u.tau)
                  for u in run.jumps],
        # + the loss's spread over the step around each plateau's midpoint (`result.plateau_spreads`): the plateau
        # loss is interpolated between step ends, an error that no tolerance controls
        "plateaus": (np.asarray(_bounds(run.plateaus, check.plateaus, loss_floor))
                     + run.stats.get("plateau_interpolation", 0.0)).tolist(),
        "trajectory": _bounds(run.trajectory.loss, check.trajectory.loss, loss_floor),
        "final_loss": SAFETY * abs(run.final_loss - check.final_loss) + loss_floor,
        # Σ_j ‖θ_j(end)‖² against the check's at the same end and, for a check continued to rest, at rest: like the
        # last plateau, a settled run's is read as the flow's at rest (a new user, session 31: printed to 8 digits
        # without a bound, 1.9152255 at rtol 1e-6, settled at τ = 3.23, against 1.9178464 at rest)
        "squared_norm": SAFETY * max(abs(run.squared_norm - check.squared_norm),
                                     abs(run.squared_norm - check.stats.get("squared_norm_at_end", check.squared_norm)))
                        + unit * max(run.squared_norm, 1e-300),
        "events": None if events_differ else max(event_bounds, default=0.0),
    })
    if events_differ:
        out["events_reason"] = f"event times not vouched for: {events_differ}"
    return out, None


def extends(problem, run) -> bool:
    """Whether the check run goes on past the run's end: the run stopped at its horizon, or settled, while not at rest
    (``stats["static_at_end"]`` False, `numerics.flows.settle.at_rest`: the loss or a grown norm still moving, or a small
    neuron able to grow before twice the end). A jump time is read against half the *final* ‖θ_j‖², and the last
    plateau is the final loss: both then depend on where the run stopped, by more than any tolerance (measured on
    orthonormal n = 3 data at λ = 1e-10: the default horizon, Algorithm 1's last jump + 0.5, ended 0.5 before the flow
    settled, and the jump moved by 1.4e-3 against a check-run error of 8e-10 when the same flow ran to τ = 30). The
    check run then goes on until it is at rest (``static_after``), at most to ``extended_end``, and the bounds cover
    where the run stopped, up to there."""
    ends_here = (run.status is Status.SUCCESS and problem.horizon is not None) or \
        (run.status is Status.SETTLED and problem.horizon is None)  # (the loop's settling is at the run's own noise)
    return ends_here and not run.stats.get("static_at_end", True)


def extended_end(problem, run) -> float:
    """How far an extended check run may go (`numerics.flows.settle.rest_horizon`: twice the run's end)."""
    return rest_horizon(run.end, rest_window(problem))


def check_problem(problem, run, *, extend: bool = False):
    """The problem the check run solves: the run's own end as the horizon (a settled run is compared where it
    stopped) and the times the run saved (its step ends when no times were requested; of the requested times those
    before a settled run's end). With ``extend`` (the float64 engine's review), a run that `extends`: no horizon, at
    most `extended_end`, the run's end saved too; run it with `check_options`. (The mpmath engine's precision guard
    compares its rerun's jump times to decide the digits, so it keeps the run's end: its bounds cover its precision,
    and ``stats["static_at_end"]`` says whether the run stopped while its norms still moved.)"""
    times = tuple(np.unique(run.trajectory.tau).tolist())  # a run that settled early has only the times before its end
    if extend and extends(problem, run):
        return dataclasses.replace(problem, horizon=None, max_horizon=extended_end(problem, run),
                                   save_at=tuple(sorted(set(times) | {run.end})))
    return dataclasses.replace(problem, horizon=run.end if problem.horizon is None else problem.horizon, save_at=times)


def check_options(problem, run) -> dict:
    """The loop options of the check run (`check_problem`): an extended one stops once at rest after the run's end."""
    return {"static_after": run.end} if extends(problem, run) else {}


def moved_at_rest(run, check, problem) -> str | None:
    """For an extended check run (`extends`): why the jumps at rest are other neurons than the run's, when the check
    read at the run's end has the run's own (the difference is then where the run stopped, not its tolerance), else
    None. Measured on paper C's n = 256, m = 64 orthonormal instance at λ = 1e-40 (`bench.race`), to Algorithm 1's
    last jump + 0.5: neuron 26 reaches half its size at rest before the run's end, and its size at the end is below
    the jump rule's floor, so the run cannot list it; the run and its check read at the end agree."""
    if run.end >= check.end or check.track is None:
        return None
    tau = np.asarray(check.trajectory.tau, dtype=float)
    k = min(int(np.searchsorted(tau, run.end)), len(tau) - 1)
    if tau[k] != run.end:
        return None
    at_end = sorted(j for _, j in jump_times(cut(check.track, run.end, list(check.trajectory.log_norms[k])),
                                          problem.labels, per_tau=problem.units_per_tau))
    ours = sorted(jp.neuron for jp in run.jumps)
    rest = {jp.neuron: jp.tau for jp in check.jumps}
    early = sorted(j for j, t in rest.items() if t <= run.end and j not in ours)
    if at_end != ours or not (early or set(ours) - set(rest)):
        return None
    parts = [f"neuron {j} jumps at τ = {rest[j]:.6g}" for j in early[:4]]
    parts += [f"neuron {j} does not jump" for j in sorted(set(ours) - set(rest))[:4]]
    return "read at rest, " + ", ".join(parts) + ", which the run's end cannot show"


def settled_early(run, check, problem) -> str | None:
    """For a run that settled (no horizon, status SETTLED) and an extended check run (`extends`): why the run did not
    settle where it says, when the check run has a neuron jump after the run's end that the run does not list, or is
    not at rest itself by the end of its extension (`extended_end`), else None. The settling rule reads small
    neurons' rates at the run's own tolerance; a neuron that grows after the end makes the run's last plateau a loss
    the flow still leaves (new user, session 31: drawn n = 4, d = 3, m = 4 data at
    λ = 1e-10 and rtol 1e-5 settled at τ = 25.99 with last plateau 0.17825 ± 1.5e-4, while neurons 2 and 3 jump at
    τ = 28.137 and the flow rests at 0.17731, at rtol 1e-7 … 1e-12 and in mpmath alike; its check run, extended to
    41.0, had both jumps and left them out as after the run's end)."""
    if run.status is not Status.SETTLED or problem.horizon is not None or run.end >= check.end:
        return None
    unit = "τ" if problem.time_unit == "tau" else "t"
    ours = {jp.neuron for jp in run.jumps}
    late = sorted((jp.tau, jp.neuron) for jp in check.jumps if jp.tau > run.end and jp.neuron not in ours)
    if not late:
        if check.status is Status.SETTLED:
            return None
        return (f"the run settled at {unit} = {run.end:.6g}, but its check run, continued to {unit} = {check.end:.6g}, "
                f"was not at rest there ({check.status.name.lower()}): the flow had not settled")
    who = ", ".join(f"neuron {j} at {unit} = {tau:.6g}" for tau, j in late[:4])
    return (f"the run settled at {unit} = {run.end:.6g}, but its check run, continued to rest, has later jumps ({who}"
            f"{' and more' if len(late) > 4 else ''}): the flow had not settled")


def as_seen_at_the_end(run, check, *, run_neurons_only: bool = False):
    """An extended check run (`extends`) read as the run is: its events, its loss at the saved times and its final loss
    up to the run's end; its jumps (read against its own, later, final norms) of the run's neurons and of any neuron
    that jumped before the run's end, with the data the run's jumps fit (what a neuron fits is read at the run's end:
    the check run has no parameters there, so the fitted sets of an extended check are the run's own); its plateau
    after as many jumps as the run had as the last. A check run that did not extend is returned as it is. Call before
    `at_saved_times`."""
    if run.end >= check.end:
        return check
    tau = np.asarray(check.trajectory.tau, dtype=float)
    at_end = min(int(np.searchsorted(tau, run.end)), len(tau) - 1)
    fitted = {jp.neuron: jp.fitted for jp in run.jumps}  # what a jump fits is read at the run's end, not later
    jumps = [dataclasses.replace(jp, fitted=fitted.get(jp.neuron, jp.fitted)) for jp in check.jumps
             if jp.neuron in fitted or (jp.tau <= run.end and not run_neurons_only)]
    if run_neurons_only:  # (`moved_at_rest`: its jump times get no bound) the run's jumps that the rest has not
        seen = {jp.neuron for jp in jumps}
        jumps = sorted(jumps + [jp for jp in run.jumps if jp.neuron not in seen], key=lambda jp: jp.tau)
    keep = tau <= run.end
    trajectory = dataclasses.replace(check.trajectory, tau=tau[keep], loss=np.asarray(check.trajectory.loss)[keep],
                                     log_norms=np.asarray(check.trajectory.log_norms)[keep])
    plateaus = list(check.plateaus[:len(jumps)]) + [check.plateaus[min(len(jumps), len(check.plateaus) - 1)]]
    status = Status.SUCCESS if check.status in (Status.SETTLED, Status.UNSETTLED) else check.status
    stats = {**check.stats, "final_loss": float(np.asarray(check.trajectory.loss)[at_end]), "end": run.end,
             "extended_to": check.end, "extended_status": check.status.name.lower()}
    stats["squared_norm_at_end"] = float(np.exp(2.0 * np.asarray(check.trajectory.log_norms, dtype=float)[at_end]).sum())
    return dataclasses.replace(check, status=status, events=[e for e in check.events if e.tau <= run.end], jumps=jumps,
                               plateaus=plateaus, trajectory=trajectory, stats=stats)


def at_saved_times(run, check):
    """The check run's trajectory at the run's saved times (step ends repeat where an event has zero length)."""
    idx = np.searchsorted(check.trajectory.tau, run.trajectory.tau)
    check.trajectory.loss = np.asarray(check.trajectory.loss)[np.minimum(idx, len(check.trajectory.tau) - 1)]
    return check


def add_end_drift(result, reading, problem) -> None:
    """Add to each vouched jump time's bound how far it can still move after the end it was read at (``reading``: the
    run itself, its check run, or its continuation to rest; `settle.jump_drift`, times SAFETY); where that motion has
    no bound, withdraw the jump and plateau bounds (`not_at_rest`)."""
    if result.errors.get("jumps") is None or not result.jumps or reading.track is None:
        return
    at = {jp.neuron: jp for jp in reading.jumps}
    drift = jump_drift(reading.track, [at.get(jp.neuron, jp) for jp in result.jumps], rest_window(problem))
    if not np.all(np.isfinite(drift)):
        not_at_rest(result, float(reading.track.t[-1]), "the final norms it reads its jumps against were still moving "
                                                         "there without slowing down")
        return
    result.errors["jumps"] = (np.asarray(result.errors["jumps"]) + SAFETY * np.asarray(drift)).tolist()
    result.errors["jump_drift"] = [float(v) for v in drift]


def not_at_rest(result, checked_to: float, why: str | None = None) -> None:
    """The jump times and plateau losses of a run whose check run was not at rest either by ``checked_to`` (or, with
    ``why``, whose jumps at rest are other neurons, `moved_at_rest`): no bound
    (``errors["jumps"]``, ``errors["plateaus"]`` None, ``errors["jumps_reason"]`` and the message say why). They are
    read against the final norms and the final loss, which the flow was still changing: measured by the red team
    (session 28), jump times 3.3e-3 to 16 in τ away from the flow's at rest, with bounds of 1e-10 to 0.1. The saved
    losses, the final loss at the run's end and the event times keep their bounds."""
    result.errors["jumps"] = result.errors["plateaus"] = None
    unit = "t" if (result.problem or {}).get("time_unit") == "t" else "τ"  # the problem's time, as its answers
    why = why or f"it was not at rest by {unit} = {checked_to:.6g} either"
    result.errors["jumps_reason"] = (f"jump times and plateau losses not vouched for: the run stopped at {unit} = "
                                     f"{result.end:.6g} before the flow was at rest, and {why} (they are read against "
                                     "the final norms and loss, which the flow was still changing); run longer, or "
                                     "without a horizon")
    result.message += f" ({result.errors['jumps_reason']})"


def widen_to_rest(result, problem, rerun, changes: dict, *, eps: float) -> None:
    """For an engine whose check keeps the run's end (engine "mpmath": its precision guard compares its rerun's jump
    times to decide the digits): when the run `extends` (it stopped not at rest), rerun it with ``changes`` past its end
    until at rest, as the float64 engine's check run does, and add to each jump time's and plateau's bound the
    difference between reading them at the run's end and at rest (`errors_against`, SAFETY included). Measured by the
    red team (session 28) on orthonormal n = 3 data at λ = 1e-10: at the default horizon the mpmath run gave τ₁ =
    4.600640876 ± 8.0e-14, the flow at rest 4.602037541. An extension not at rest by `extended_end` leaves them
    without a bound (`not_at_rest`); one that differs in structure (a neuron that jumps before the run's end only when
    read at rest) makes the status TOLERANCE."""
    if not result.errors.get("vouched"):
        return
    if not extends(problem, result):  # read at an end counted as at rest: what still moves after it
        add_end_drift(result, result, problem)
        return
    started = time.perf_counter()
    rest = rerun(problem=check_problem(problem, result, extend=True), save_params=False,
                 **check_options(problem, result), **changes)
    early = settled_early(result, rest, problem)
    moved = moved_at_rest(result, rest, problem)
    rest = at_saved_times(result, as_seen_at_the_end(result, rest, run_neurons_only=moved is not None))
    result.stats["rest_seconds"] = time.perf_counter() - started
    if rest.status is Status.BUDGET:
        result.status, result.message = Status.BUDGET, f"{Status.BUDGET.value} in the run to rest ({rest.message})"
        return
    at_end, reason = errors_against(result, rest, problem, eps=eps, method="", tolerances=changes)
    reason = reason or early
    result.errors["rest"] = {"extended_to": rest.stats.get("extended_to", rest.end),
                             "extended_status": rest.stats.get("extended_status", rest.status.name.lower())}
    if reason is not None:
        result.errors.update(vouched=False, reason=f"read at rest: {reason}")
        result.message = f"{Status.TOLERANCE.value}: read at rest, {reason} ({result.message})"
        result.status = Status.TOLERANCE
        return
    result.errors["method"] += "; jump times and plateaus also against the same run continued until at rest"
    for key in ("jumps", "plateaus"):
        result.errors[key] = (np.asarray(result.errors[key]) + np.asarray(at_end[key])).tolist()
    result.errors["squared_norm"] += at_end["squared_norm"]
    add_end_drift(result, rest, problem)
    if result.errors["rest"]["extended_status"] != "settled":
        not_at_rest(result, result.errors["rest"]["extended_to"])
    elif moved is not None:
        not_at_rest(result, result.errors["rest"]["extended_to"], moved)


def review_by_rerun(result, problem, rerun, changes: dict, *, eps: float, method: str, rtol: float = 0.0):
    """Run the check (``rerun(problem=…, **changes)``), attach ``result.errors`` and, when the two runs differ in
    structure, turn a successful status into `Status.TOLERANCE` naming the difference (module docstring).
    Runs that did not succeed are not checked (an unsettled run is: its saved times may all be vouched for)."""
    if not (result.status.success or result.status is Status.UNSETTLED):
        result.errors = {"method": method, "vouched": False, "reason": f"the run ended with status "
                                                                      f"{result.status.name.lower()}"}
        return result
    started = time.perf_counter()
    check = rerun(problem=check_problem(problem, result, extend=True), save_params=False,
                  **check_options(problem, result), **changes)
    early = settled_early(result, check, problem)
    moved = moved_at_rest(result, check, problem)
    check = at_saved_times(result, as_seen_at_the_end(result, check, run_neurons_only=moved is not None))
    if check.status is Status.BUDGET:  # the budget ran out in the check: nothing is vouched for
        result.errors = {"method": method, "vouched": False, "reason": f"the check run stopped: {check.message}"}
        result.status, result.message = Status.BUDGET, f"{Status.BUDGET.value} in the check run ({check.message})"
        return result
    result.errors, reason = errors_against(result, check, problem, eps=eps, method=method, tolerances=changes, rtol=rtol)
    if reason is None and early is not None:
        reason = early
        result.errors = {"method": method, "check": result.errors["check"], "vouched": False, "reason": reason}
    if reason is None:
        add_end_drift(result, check, problem)
    if "extended_to" in check.stats:
        result.errors["check"]["extended_to"] = check.stats["extended_to"]
        result.errors["check"]["extended_status"] = check.stats["extended_status"]
        if reason is None and check.stats["extended_status"] != "settled":
            not_at_rest(result, check.stats["extended_to"])
        elif reason is None and moved is not None:
            not_at_rest(result, check.stats["extended_to"], moved)
    result.stats["check_seconds"] = time.perf_counter() - started
    result.stats["check_nfev"] = check.stats.get("nfev")
    if reason is not None and (result.status.success or result.status is Status.UNSETTLED):
        result.message = f"{Status.TOLERANCE.value}: {reason} ({result.message})"
        result.status = Status.TOLERANCE
    elif "events_reason" in result.errors:
        result.message += f" ({result.errors['events_reason']})"
    return result
