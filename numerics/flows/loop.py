"""The one loop: step, detect, locate, snap, decide, record, stop — shared by every engine.

1. Start: components already on a kink are snapped onto it and the Filippov layer decides the pattern
   (`numerics.flows.filippov.decide`; at t = 0 every kink component counts as coming from below, σ'(0) = 0).
2. Step: the engine's stepper takes one step; the loop evaluates the segment's watched functions
   (`numerics.flows.events.Watch`) at the step's end. Those that turned negative crossed inside the step: each
   crossing is located on the step's interpolant (`bracketed_root`), the earliest wins, the step is cut there.
3. Event: the crossing component, every sliding component and any component within rounding of its kink are
   snapped onto the kink, the Filippov layer decides anew with each component's previous side as its
   preference, and each component whose state changed is recorded as an event (activate, deactivate, slide,
   leave_down, leave_up). The engine restarts from there (diffrax's ``made_jump``).
4. Record: the trajectory at the requested times (``save_at``) or at every step end; ln‖θ_j‖ and its rate at
   every step end (`NormTrack`, for the jump rule of `numerics.flows.result`). A stepper that takes several fixed
   steps per call (engine gd) has each of their ends recorded, and the settling rule read at each, in one call of
   `numerics.flows.step_ends.record_batch`: the record of the same stepper taking one step per call.
5. Stop: at the horizon (SUCCESS); when the flow settled, if no horizon was given (SETTLED); after the step or
   event limits; after repeated events of zero length (CHATTER); on an integrator failure.

Precision. A push on a kink component smaller than what it cannot be told from — rounding, or the integrator's error
on the residuals it is made of (`View.r_error`) — is a *near tie*: the layer decides it by its rule (the side the
component crossed into, else the side it came from), records it in ``stats["near_ties"]`` and keeps watching it.
With w_act and w_inact the pushes it would feel active and inactive (they differ by its own term s_j G_ii r_i), the
tie is *resolved* as soon as both push it the same way beyond the floor (the loop then meets it as an ordinary
event). It *mattered* if instead the component is pushed up beyond the floor only when active — active it grows,
inactive it stays (an orthogonal datum's inactive component is never pushed again: C Assumption 2) — for long
enough that the active alternative would have left the kink (∫ T c|a_j|/(n‖θ_j‖) w_act ds > the kink threshold).
Then the status is PRECISION, naming it, and `solve(..., engine="auto")` escalates to more digits.
"""
from __future__ import annotations

import math
import time

import numpy as np

from .engine import BudgetSpent, deadline_of
from .events import Event, EventKind, Watch, first_crossing
from .complementarity import nonzero2d
from .filippov import ACTIVE, INACTIVE, SLIDING, Pattern, crossing_push, decide, tie_tolerance
from .norm_track import NormTrack
from .result import FlowResult, Status, Trajectory, jumps_of, plateau_losses, plateau_spreads
from .settle import SETTLE_RTOL, at_rest, settled
from .step_ends import record_batch, settle_rule, trajectory_arrays

KINK_ULPS = 64  # |z_ij| ≤ 64 ε ‖x_i‖ (z relative to ‖θ_j‖) at an event counts as on the kink


def _state_of(pattern: Pattern | None, i: int, j: int) -> int:
    if pattern is None:
        return INACTIVE
    if pattern.slide[i, j]:
        return SLIDING
    return ACTIVE if pattern.act[i, j] else INACTIVE


_TRANSITIONS = {(INACTIVE, ACTIVE): EventKind.ACTIVATE, (ACTIVE, INACTIVE): EventKind.DEACTIVATE,
                (INACTIVE, SLIDING): EventKind.SLIDE, (ACTIVE, SLIDING): EventKind.SLIDE,
                (SLIDING, INACTIVE): EventKind.LEAVE_DOWN, (SLIDING, ACTIVE): EventKind.LEAVE_UP}


class _Run:
    """Bookkeeping of one integration (kept out of `integrate` to keep the loop readable)."""

    def __init__(self, problem, stepper, params: bool):
        self.problem, self.stepper, self.params = problem, stepper, params
        self.X_norms = np.linalg.norm(problem.inputs, axis=1)
        self.label_scale = float(np.abs(problem.labels).max())
        self.track = NormTrack()
        self.step_t, self.step_loss = [], []
        self.samples = []  # (t, loss, log_norms, a, W)
        self.save_at = list(problem.save_at) if problem.save_at is not None else None
        self.events: list[Event] = []
        self.near_ties: list = []  # every decision within the floor
        self.tracked: dict = {}  # (i, j) -> near tie not yet resolved
        self.held: set = set()  # components whose pushes on both sides are within the floor: held on their side, unwatched
        self.released: list = []  # held components whose push got resolved: decided again at the step's end
        self.ambiguous: list = []  # near ties that mattered (module docstring)
        G = stepper.G
        off = np.asarray(G != 0, dtype=bool)  # (elementwise also for mpmath object arrays; no O(n²) Python loop)
        np.fill_diagonal(off, False)
        self.crosstalk = off.any(axis=1)
        self.any_crosstalk = bool(self.crosstalk.any())
        self.max_codimension = 0  # most data a neuron slid on at once
        self.projection_cache = {}  # sliding projections of `filippov.decide` for this run's G

    def kink_mask(self, Z):
        """Components within rounding of their kink at the start (64 ε ‖x_i‖; pre-activations relative to ‖θ_j‖)."""
        return np.array(abs(Z) <= KINK_ULPS * self.stepper.eps * self.X_norms[:, None], dtype=bool)

    def decide(self, kink, previous, crossed=None):
        st = self.stepper
        if kink.any():
            st.snap(kink)
        view = st.view()
        pattern = decide(view.Z, kink, view.r, view.s, st.G, previous, eps=st.eps, label_scale=self.label_scale,
                         crossed=crossed, r_error=view.r_error, cache=self.projection_cache)
        if pattern.slide.any():
            self.max_codimension = max(self.max_codimension, int(pattern.slide.sum(axis=0).max()))
        for i, j in [key for key in self.tracked if kink[key]]:  # decided again: tracked again only if still a near tie
            if (i, j) not in (crossed or {}):  # (a crossing within the floor stays tracked: `check_crossing`)
                del self.tracked[(i, j)]
        for j, i, w, tol in pattern.ambiguous:  # a near tie that kept a component on its side is continuity, not a choice
            if (i, j) in (crossed or {}) or _state_of(previous, i, j) != _state_of(pattern, i, j):
                self.near_tie(i, j, w, tol, "a Filippov decision between sides")
        if previous is not None:  # every change of side is an event
            changed = (previous.act != pattern.act) | (previous.slide != pattern.slide)
            for i, j in zip(*nonzero2d(changed), strict=True):
                kind = _TRANSITIONS.get((_state_of(previous, i, j), _state_of(pattern, i, j)))
                if kind is not None:
                    self.events.append(Event(float(st.t), int(j), int(i), kind, exact=st.t))
        elif pattern.slide.any():
            for i, j in zip(*nonzero2d(pattern.slide), strict=True):
                self.events.append(Event(float(st.t), int(j), int(i), EventKind.SLIDE, exact=st.t))
        st.restart(pattern)
        exit_floors = np.zeros(self.problem.n)  # sliding exits: twice the rounding band of `filippov` (hysteresis)
        rows = np.flatnonzero(pattern.slide.any(axis=1))
        for i in rows if st.G.dtype == object else ():
            exit_floors[i] = 2 * self.push_floor(view, i, rounding_only=True) / abs(float(st.G[i, i]))
        if len(rows) and st.G.dtype != object:  # float64: `push_floor` (rounding only) for all rows at once
            G_rows = np.abs(st.G[rows])
            exit_floors[rows] = 2 * tie_tolerance(G_rows, view.r, eps=st.eps, label_scale=self.label_scale,
                                                  n=self.problem.n, m=self.problem.m) / G_rows[np.arange(len(rows)), rows]
        for i, j in list(self.held):
            if kink[i, j] or pattern.slide[i, j]:
                self.held.discard((i, j))
        watch = Watch.of(pattern, view.Z, view.r, kink, self.crosstalk, KINK_ULPS * st.eps * self.X_norms, exit_floors)
        return pattern, self.unwatched_held(watch)

    def unwatched_held(self, watch):
        """Held components are not watched: their motion is noise until `check_tracked` releases them."""
        if not self.held:
            return watch
        return watch.subset([q for q in range(len(watch)) if (int(watch.data[q]), int(watch.neurons[q])) not in self.held])

    def near_tie(self, i, j, push, tol, what):
        tie = {"tau": float(self.stepper.t), "neuron": int(j), "datum": int(i), "push": float(abs(push)),
               "floor": float(tol), "what": what}
        self.near_ties.append(tie)
        self.tracked[(int(i), int(j))] = tie

    def push_floor(self, view, i, rounding_only: bool = False):
        """What a push on datum i cannot be told from: rounding (`tie_tolerance`) or the integrator's error on the
        residuals the push is made of (`View.r_error`), whichever is larger."""
        st, p = self.stepper, self.problem
        G_abs = np.abs(np.array(st.G[i], dtype=float))
        rounding = float(tie_tolerance(G_abs, view.r, eps=st.eps, label_scale=self.label_scale, n=p.n, m=p.m))
        return rounding if view.r_error is None or rounding_only else max(rounding, float(G_abs @ view.r_error))

    def check_crossing(self, view, pattern, i, j):
        """A crossing whose push is within rounding was driven by rounding noise, not by the flow."""
        push = crossing_push(self.stepper.G, pattern.effective_residuals(view.r), view.s, i, j)
        tol = self.push_floor(view, i)
        if abs(push) <= tol:
            self.near_tie(i, j, push, tol, "a crossing driven by a push within the floor")
        return abs(push) <= tol

    def pushes(self, view, pattern, i, j, V=None):
        """(w_act, w_inact): the push on ⟨w_j, x_i⟩ (up to c|a_j|/n) with the component active and inactive."""
        st = self.stepper
        V = pattern.effective_residuals(view.r) if V is None else V
        own = float(view.s[j]) * float(st.G[i, i] * view.r[i])
        w = float(view.s[j]) * float(st.G[i] @ V[:, j])
        return (w, w - own) if pattern.act[i, j] else (w + own, w)

    def hold_if_idle(self, view, pattern, i, j):
        """After a noise-driven crossing: hold the component where the layer put it if neither side pushes it beyond
        the floor (a residual at noise level, e.g. at an interpolating minimum): its events would be noise."""
        w_act, w_inact = self.pushes(view, pattern, i, j)
        floor = self.push_floor(view, i)
        if abs(w_act) <= floor and abs(w_inact) <= floor and not pattern.slide[i, j]:
            self.held.add((int(i), int(j)))
            return True
        return False

    def check_tracked(self, view, pattern, dt):
        """Resolve or flag the tracked near ties (module docstring), after adding the components that sit within the
        floor on the other side of their kink while their own push drives them there (a crossing too small for any
        watch: ⟨x_i, x_k⟩ at rounding level on data meant to be orthogonal, say)."""
        st, p = self.stepper, self.problem
        Z = np.asarray(view.Z, dtype=float) if view.Z.dtype != object else view.Z
        V = None
        # (an inactive component of a datum orthogonal to all others is never pushed: it cannot be driven across)
        if self.any_crosstalk:
            ii, jj = nonzero2d(~pattern.slide & np.where(pattern.act, Z < 0, (Z > 0) & self.crosstalk[:, None]))
        else:  # (orthonormal data: only an active component can be across its kink)
            ii, jj = nonzero2d(pattern.act & (Z < 0) & ~pattern.slide)
        if ii.size:
            V = pattern.effective_residuals(view.r)
            if view.Z.dtype == object:
                w = np.array([float(view.s[j]) * float(st.G[i] @ V[:, j]) for i, j in zip(ii, jj, strict=True)])
            else:
                w = view.s[jj] * np.einsum("kn,nk->k", st.G[ii], V[:, jj])
            across = (w != 0) & ((w > 0) != pattern.act[ii, jj])  # its state's own push points across the kink
            for i, j, wk in zip(ii[across], jj[across], w[across], strict=True):
                floor = self.push_floor(view, i)
                if (int(i), int(j)) not in self.tracked and abs(wk) <= floor:  # a resolved push: the watch meets it
                    self.near_tie(i, j, wk, floor, "a pre-activation within the floor on the other side of its kink")
        for i, j in list(self.held):
            w_act, w_inact = self.pushes(view, pattern, i, j)
            floor = self.push_floor(view, i)
            if abs(w_act) > floor or abs(w_inact) > floor:
                self.held.discard((i, j))
                self.released.append((i, j))
        if not self.tracked:
            return
        V = pattern.effective_residuals(view.r) if V is None else V
        rate = p.time_scale * p.convention.time_factor / (p.convention.width_divisor * p.n)
        for (i, j), tie in list(self.tracked.items()):
            if pattern.slide[i, j]:
                del self.tracked[(i, j)]
                continue
            w_act, w_inact = self.pushes(view, pattern, i, j, V)
            floor = self.push_floor(view, i)
            if w_inact > floor or w_act < -floor:
                del self.tracked[(i, j)]  # pushed the same way either side: the dynamics decide, not the tie
            elif w_act > floor:
                tie["moved"] = tie.get("moved", 0.0) + rate * abs(float(view.a_rel[j])) * w_act * dt
                if tie["moved"] > KINK_ULPS * st.eps * self.X_norms[i]:
                    self.ambiguous.append({**tie, "mattered_at": float(st.t), "push_then": w_act})
                    del self.tracked[(i, j)]

    def record_step(self):
        """Samples at the requested times inside the last step (they are popped in order), then the step end."""
        st = self.stepper
        t = st.t
        while self.save_at and self.save_at[0] <= float(t):  # (an mpmath t a hair below a float horizon counts as there)
            ts = self.save_at.pop(0)
            self.samples.append((ts, *st.sample(ts, self.params)))
        view = self.last_view = st.view()
        if st.detects_events and self.step_t:
            self.check_tracked(view, st.pattern, float(t) - self.step_t[-1])
        self.track.append(t, view.log_norms, view.log_rates, st.norm_interpolant())
        self.step_t.append(float(t))
        self.step_loss.append(float(view.loss))
        if self.save_at is None:
            a, W = st.final() if self.params else (None, None)
            self.samples.append((float(t), view.loss, view.log_norms, a, W))
        return view


PROGRESS_EVERY = 5.0  # seconds between two calls of the ``progress`` callback


def integrate(engine, problem, *, max_steps: int = 1_000_000, max_events: int = 100_000, save_params: bool = False,
              settle_rtol: float = SETTLE_RTOL, deadline: float | None = None, progress=None,
              static_after: float | None = None, **options) -> FlowResult:
    """Solve ``problem`` with ``engine`` (module docstring); options go to the engine. The loop runs inside the
    stepper's working precision (`Stepper.working_precision`). ``deadline`` (a `time.perf_counter` value): past it the
    run stops with status BUDGET; ``progress(t, end, events, steps)`` is called every PROGRESS_EVERY seconds.
    ``static_after`` (no horizon only): stop SETTLED at the first step end after that time where the run is at rest
    (`numerics.flows.settle.at_rest`), events or not — the check run that vouches for a run's jump times past its end
    (`numerics.flows.vouch.check_problem`)."""
    started = time.perf_counter()
    stepper = engine.start(problem, **options)
    limits = (max_steps, max_events, deadline, progress)
    with stepper.working_precision(), deadline_of(deadline):  # `poll` inside a step ends the run too (BudgetSpent)
        return _integrate(engine, problem, stepper, started, limits, save_params, settle_rtol, static_after, options)


def _integrate(engine, problem, stepper, started, limits, save_params, settle_rtol, static_after, options):
    max_steps, max_events, deadline, progress = limits
    reported = started
    run = _Run(problem, stepper, save_params)
    end = problem.end
    pattern, watch = run.decide(run.kink_mask(stepper.view().Z), None) if stepper.detects_events else (None, None)
    before = np.asarray(stepper.watched(watch, stepper.t), dtype=float) if watch is not None and len(watch) else np.zeros(0)
    stepper.t_old = stepper.t
    run.record_step()
    status, where = Status.SUCCESS, ""
    steps, zero_length, last_event_t = 0, 0, stepper.t  # times in the engine's arithmetic
    # a stepper taking several fixed steps per call (engine gd): each step end recorded (`step_ends`)
    batched = getattr(stepper, "batched", False) and not stepper.detects_events
    rule = None
    if batched and problem.horizon is None:
        rule = settle_rule(run, float(last_event_t), settle_rtol, static_after, lambda: (
            settled(run, float(last_event_t), settle_rtol) if static_after is None
            else run.step_t[-1] >= static_after and at_rest(run, settle_rtol)))
    try:
        while float(stepper.t) < end:
            if steps >= max_steps:
                status, where = Status.STEP_LIMIT, f"{max_steps} steps"
                break
            if deadline is not None or progress is not None:
                now = time.perf_counter()
                if deadline is not None and now > deadline:
                    status, where = Status.BUDGET, f"after {now - started:.3g} s of this run"
                    break
                if progress is not None and now - reported >= PROGRESS_EVERY:
                    reported = now
                    progress(float(stepper.t), end, len(run.events), steps)
            if batched:
                stepper.limit = max_steps - steps
            failure = stepper.advance(end)
            if not failure and not math.isfinite(float(stepper.view().loss)):
                failure = "the state is no longer finite (an unstable step)"
            if failure:
                steps += 1
                status, where = Status.SOLVER_FAILED, failure
                break
            if batched:
                kept, stop = record_batch(run, rule)
                steps += kept
                if stop:
                    status = Status.SETTLED
                    break
                continue
            steps += 1
            crossing = None
            if stepper.detects_events and len(watch):
                values = np.asarray(stepper.watched(watch, stepper.t), dtype=float)
                crossed = watch.crossed(values)
                if crossed.size:
                    t0, t1 = stepper.step_bounds()
                    crossing = first_crossing(stepper.evaluator, watch, crossed, t0, t1)
                    stepper.truncate(crossing[0])
                    values = np.asarray(stepper.watched(watch, stepper.t), dtype=float)
                arrived = (before > watch.floors) & (values <= watch.floors)  # at the kink now, clearly away before
                before = values
            run.record_step()
            if crossing is None and run.released:  # held components with a resolved push: decided again, here
                extra = pattern.slide.copy()
                for i, j in run.released:
                    extra[i, j] = True
                run.released = []
                pattern, watch = run.decide(extra, pattern, {})
                before = np.asarray(stepper.watched(watch, stepper.t), dtype=float) if len(watch) else np.zeros(0)
                continue
            if crossing is None:
                if problem.horizon is None and (settled(run, float(last_event_t), settle_rtol) if static_after is None
                                                else run.step_t[-1] >= static_after and at_rest(run, settle_rtol)):
                    status = Status.SETTLED
                    break
                continue
            t_ev, row = crossing
            i, j = int(watch.data[row]), int(watch.neurons[row])
            zero_length = zero_length + 1 if t_ev - last_event_t <= KINK_ULPS * stepper.eps * max(1.0, abs(float(t_ev))) else 0
            last_event_t = t_ev
            n_events = len(run.events)
            view = stepper.view()
            noise = watch.kind(row) in (EventKind.DEACTIVATE, EventKind.ACTIVATE) and run.check_crossing(view, pattern, i, j)
            extra = pattern.slide.copy()
            sides = {}
            for q in {row, *np.flatnonzero(arrived).tolist()}:  # the earliest crossing and those simultaneous with it
                kind = watch.kind(q)
                extra[watch.data[q], watch.neurons[q]] = True
                sides[(int(watch.data[q]), int(watch.neurons[q]))] = ACTIVE if kind in (EventKind.ACTIVATE, EventKind.LEAVE_UP) \
                    else INACTIVE
            pattern, watch = run.decide(extra, pattern, sides)
            if noise and run.hold_if_idle(stepper.view(), pattern, i, j):
                watch = run.unwatched_held(watch)
            before = np.asarray(stepper.watched(watch, stepper.t), dtype=float) if len(watch) else np.zeros(0)
            if len(run.events) == n_events:
                zero_length += 1  # a crossing that changed nothing: numerical noise at the kink
            if zero_length > 4 * (problem.n + problem.m) + 20:
                status, where = Status.CHATTER, f"neuron {j}, datum {i}"
                break
            if len(run.events) >= max_events:
                status, where = Status.EVENT_LIMIT, f"{max_events} events"
                break
    except BudgetSpent as exc:  # polled inside a step (event location, a Taylor step's recurrences)
        status, where = Status.BUDGET, f"after {time.perf_counter() - started:.3g} s of this run, {exc}"
    if status is Status.SUCCESS and problem.horizon is None:
        status = Status.UNSETTLED
    if status is Status.SUCCESS and run.ambiguous:
        first = run.ambiguous[0]
        status = Status.PRECISION
        where = (f"{first['what']} at τ = {first['tau']:.6g} (neuron {first['neuron']}, datum {first['datum']}: push "
                 f"{first['push']:.3g} within the floor {first['floor']:.3g}) chose a side, and by τ = "
                 f"{first['mattered_at']:.6g} "
                 f"the other side would have led elsewhere (push if active {first['push_then']:.3g}); "
                 f"{len(run.ambiguous)} such decision(s) — rerun with more digits (engine 'mpmath')")
    with deadline_of(None):  # the result of a run the budget ended is still built
        return _result(engine, problem, run, status, where, steps, started, options, settle_rtol)


def _result(engine, problem, run: _Run, status: Status, where: str, steps: int, started: float, options,
            settle_rtol: float) -> FlowResult:
    st = run.stepper
    a, W = st.final()
    X, y = problem.inputs, problem.labels
    jumps = jumps_of(run.track, X, y, a, W, per_tau=problem.units_per_tau)
    traj = Trajectory(*trajectory_arrays(run.samples, problem.m, run.params))
    end = run.step_t[-1]
    final_log_norms = np.array([float(v) for v in run.track.values[-1]])
    fitted = {i for jp in jumps for i in jp.fitted}
    residual = y - np.maximum(X @ W.T, 0.0) @ a / problem.convention.width_divisor
    interpolates = bool(np.all(np.abs(residual) <= np.abs(y) / 2)) and len(fitted) == len(y)
    stats = {"steps": steps, "events": len(run.events), "end": end, "final_loss": run.step_loss[-1],
             "wall_seconds": time.perf_counter() - started, "ambiguous_decisions": run.ambiguous[:20],
             "plateau_interpolation": plateau_spreads(run.step_t, run.step_loss, [jp.tau for jp in jumps]),
             "max_sliding_codimension": run.max_codimension, "near_ties": len(run.near_ties), "near_tie_list": run.near_ties[:20],
             "static_at_end": at_rest(run, settle_rtol),
             **st.stats()}
    unit = "τ" if problem.time_unit == "tau" else "t"
    message = status.value + (f" ({where})" if where else "") + f" at {unit} = {end:.6g}"
    return FlowResult(status=status, message=message, engine=engine.name, events=run.events, jumps=jumps,
                      plateaus=plateau_losses(run.step_t, run.step_loss, [jp.tau for jp in jumps]),
                      trajectory=traj, a=a, W=W, final_log_norms=final_log_norms, problem=problem.describe(),
                      interpolates=interpolates, squared_norm=float(np.exp(2 * final_log_norms).sum()),
                      precision=st.precision or engine.precision,
                      tolerances=engine.tolerances(problem, **options), stats=stats, track=run.track)
