"""`relucheck flow INSTANCE.json --lam L [--engine NAME] [--times τ1,τ2,…] [--horizon T] [--max-horizon T] [--rtol R]
[--budget SECONDS] [--precision DIGITS] [--step ETA] [--json]`: the gradient flow of an instance, on any data, in
accelerated time τ = t / ln(1/λ).

The problem is C Assumption 3's balanced start w_j(0) = λ ḡ_j, a_j(0) = s_j λ on the instance's data
(`numerics.flows.FlowProblem.from_instance`), solved by `numerics.flows.solve` with the named engine ("auto" by
default: "float64", rerun with "mpmath" when float64 reports a sign decision below its precision and that engine is
registered; ``--precision DIGITS`` asks for "mpmath" at that many digits; ``--step ETA`` is the step of engine "gd",
plain gradient descent, in t units). `relucheck engines` lists the engines.

On orthonormal data (C Assumption 1) Algorithm 1 (`theory.limit_process`) is shown next to the flow, and the flow
runs to Algorithm 1's last jump + 0.5 unless ``--horizon`` says otherwise. On other data Algorithm 1 does not
apply: without ``--horizon`` the flow runs until it settles (at most ``--max-horizon``), and at least to the last
of ``--times``.

``--json``: status, message, engine, events, jumps, plateaus, final_loss, the trajectory {"tau", "loss"} at exactly
the requested ``--times`` (at the engine's own step ends without them), stats, tolerances, problem, and Algorithm 1
under ``limit_process`` on orthonormal data (else ``limit_process_note``: why Algorithm 1 does not apply — inputs not
orthonormal, or a zero label, C Assumption 4(ii): the flow runs all the same), ``errors``: the bound of every answer
(`numerics.flows.vouch`). Exit 0 when the engine succeeded (its status is success or settled; without ``--horizon``,
also a run that had not settled by the maximal horizon when every requested time is vouched for); 3 when its answer is
inconclusive (a precision, guard or tolerance status, a spent ``--budget``, a run stopped early: event or step
limit, chatter, integrator failure, or a success whose jump times and plateau losses the check could not vouch for,
``errors["jumps_reason"]``); 2 on bad input (an unknown engine or an option outside its domain included) and
on requests refused before computing (`check_cost`: more memory than available; without ``--budget``, more than 10⁶
estimated integrator steps, or a Taylor step of engine mpmath and its guard's estimated above 60 s). ``--budget``
counts from the command's start and is polled inside steps too. Long runs print a progress line on stderr every 5 s.
"""
from __future__ import annotations

import json
import math
import sys
import time

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError

from ..arguments import gd_step
from ..arguments import horizon as horizon_value

INCONCLUSIVE = 3  # the exit code of a command whose answer is inconclusive (README, exit codes)
PRECISION_ENGINE = "mpmath"


def algorithm1_horizon(args, limit) -> float:
    """The default horizon on orthonormal data: Algorithm 1's last jump + 0.5, or ``--max-horizon`` when that is
    earlier ("stop by this accelerated time at the latest"; a new user, session 31, saw it ignored there)."""
    horizon = limit.flow_horizon()
    return horizon if args.max_horizon is None else min(horizon, args.max_horizon)


def max_horizon_value(text: str) -> float:
    """``--max-horizon``: the rule of ``--horizon`` (`proofs_checks.arguments.horizon`), as a bad-input error naming
    the option, checked in `_run` (an argparse usage error would exit from inside `main`)."""
    import argparse

    try:
        return horizon_value(text)
    except argparse.ArgumentTypeError as exc:
        raise RelucheckInputError(f"--max-horizon: {exc}") from None


MAX_TIMES = 10**5  # each requested time is a sample kept in memory and printed: more is a typo, not a plan


def parse_times(text: str | None) -> tuple | None:
    """``--times τ1,τ2,…``: finite, increasing accelerated times in [0, MAX_HORIZON], at most MAX_TIMES of them (the
    message names ``--times`` as typed, not the engine's ``save_at``)."""
    from ..arguments import MAX_HORIZON

    if text is None:
        return None
    if not text.isascii() or "_" in text:  # float() reads any Unicode digit ('５') and '1_0' (10): a value must read
        raise RelucheckInputError(f"--times must be comma-separated numbers in ASCII digits without '_', e.g. 0.5,1,2; "
                                  f"got {text[:80]!r}")                 # as it looks
    parts = text.split(",")
    if len(parts) > MAX_TIMES:
        raise RelucheckInputError(f"--times: {len(parts)} times, at most {MAX_TIMES} (each is a sample kept and printed)")
    try:
        times = tuple(float(v) for v in parts)
    except ValueError as exc:
        raise RelucheckInputError(f"--times must be comma-separated numbers, e.g. 0.5,1,2; got {text[:80]!r}") from exc
    if not all(math.isfinite(t) and 0 <= t <= MAX_HORIZON for t in times):
        bad = next(t for t in times if not (math.isfinite(t) and 0 <= t <= MAX_HORIZON))
        raise RelucheckInputError(f"--times: every time must be an accelerated time in [0, {MAX_HORIZON:g}] "
                                  f"(the bound of --horizon), got {bad!r}")
    k = next((k for k in range(1, len(times)) if times[k] <= times[k - 1]), None)
    if k is not None:
        raise RelucheckInputError(f"--times must be increasing, got {times[k - 1]!r} then {times[k]!r} "
                                  f"(positions {k} and {k + 1})")
    return times


def rtol(text: str) -> float:
    """``--rtol``: engine float64's relative tolerance, in the range where its answers can be vouched for."""
    import argparse

    from relucheck.numerics.flows.engines.logscale import MAX_RTOL, MIN_RTOL, _MAX_RTOL_REASON

    try:
        if not text.isascii() or "_" in text:  # float() reads any Unicode digit ('１e-4') and '1e-1_0' (1e-10): a
            raise ValueError(text)            # value must read as it looks
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in ASCII digits without '_', got {text!r}") from None
    if not (math.isfinite(value) and MIN_RTOL <= value <= MAX_RTOL):
        raise argparse.ArgumentTypeError(
            f"must be in [{MIN_RTOL:g}, {MAX_RTOL:g}], got {text!r}: below {MIN_RTOL:g} the check rerun at rtol/100 "
            f"would be below DOP853's floor of 100 ε; {_MAX_RTOL_REASON}")
    return value


def engine_and_options(args) -> tuple[str, dict]:
    """The engine's name and its options from ``--engine`` and ``--precision`` (solve checks both)."""
    from relucheck.numerics.flows import available_engines

    name = args.engine or "auto"
    options = {}
    if args.precision is not None:
        if args.engine is None:
            if PRECISION_ENGINE not in available_engines():
                raise RelucheckInputError(f"--precision needs the {PRECISION_ENGINE!r} engine, which is not registered "
                                          f"(`relucheck engines` lists the engines)")
            name = PRECISION_ENGINE
        elif name not in (PRECISION_ENGINE, "auto"):
            raise RelucheckInputError(f"--precision is the number of digits of engine {PRECISION_ENGINE!r}; engine "
                                      f"{name!r} computes in float64 (leave out --engine, or give --engine "
                                      f"{PRECISION_ENGINE})")
        name = PRECISION_ENGINE if name == "auto" else name
        options["digits"] = args.precision
    if name == PRECISION_ENGINE:
        options["guard"] = True  # its answer is reported only with the rerun at twice the digits
    if getattr(args, "rtol", None) is not None:
        if name not in ("auto", "float64"):
            raise RelucheckInputError(f"--rtol is the relative tolerance of engine 'float64' (also the first run of "
                                      f"engine 'auto'); engine {name!r} has none")
        options["rtol"] = args.rtol
    if getattr(args, "step", None) is not None:  # callers of solve_instance may pass a Namespace of their own
        if name != "gd":
            raise RelucheckInputError(f"--step is the step of engine 'gd' (plain gradient descent); engine {name!r} "
                                      "chooses its own steps")
        options["step"] = args.step
    return name, options


MAX_GD_STEPS = 10**8  # about 1.5 h at 50 µs a step (n = 8, m = 4): more is a hang, not a run


def gd_steps(args, horizon) -> int:
    """The steps engine "gd" needs to reach the horizon (or --max-horizon) at --step: ⌈τ ln(1/λ) / η⌉, refused above
    MAX_GD_STEPS with the numbers."""
    from relucheck.numerics.flows import FlowProblem
    from relucheck.numerics.scale import InitScale

    tau = horizon if horizon is not None else (args.max_horizon or FlowProblem.__dataclass_fields__["max_horizon"].default)
    tau = max(tau, *(parse_times(args.times) or (0.0,)))
    steps = math.ceil(tau * InitScale.of(args.lam).log_inv / args.step) + 2
    if steps > MAX_GD_STEPS:
        raise RelucheckInputError(f"--step: η = {args.step:g} needs {steps:.3g} gradient-descent steps to reach τ = {tau:g} "
                                  f"at λ = {args.lam} (ln(1/λ)/η steps per unit of τ); at most {MAX_GD_STEPS:.0e}")
    return steps


def _limit_process(instance):
    """(Algorithm 1, None) on data that meet its assumptions, else (None, why it does not apply): not orthonormal
    (C Assumption 1), or a zero label (C Assumption 4(ii)) — the flow runs all the same."""
    try:
        instance.require_orthonormal()
    except HypothesisViolation as exc:
        return None, f"the inputs are not orthonormal ({exc.hypothesis if hasattr(exc, 'hypothesis') else exc})"
    from relucheck.theory.limit_process import limit_process_of

    try:
        return limit_process_of(instance), None
    except HypothesisViolation as exc:
        return None, str(exc)


MAX_STEPS_ESTIMATE = 1e6  # ≈ 10 minutes at 0.5 ms a step with the check rerun (numerics.flows.cost): more needs --budget


def check_cost(instance, args, times, limit=None, *, memory_only: bool = False) -> None:
    """Refuse before computing (exit 2 naming the option and the bound): more memory than the machine has available,
    and — without ``--budget`` — more than MAX_STEPS_ESTIMATE integrator steps to the run's end (``--horizon``, else
    Algorithm 1's, else ``--max-horizon``; at least the last of ``--times``) (`numerics.flows.cost`)."""
    from relucheck.numerics.flows.cost import about, available_memory, estimate, human_bytes, work_refusal
    from relucheck.numerics.scale import InitScale

    n, m = instance.inputs.shape[0], instance.directions.shape[0]
    log_inv = InitScale.of(args.lam).log_inv
    end = args.horizon or (algorithm1_horizon(args, limit) if limit is not None else args.max_horizon or DEFAULT_MAX_HORIZON)
    end = max(end, times[-1] if times else 0.0)
    cost = estimate(instance.inputs, instance.labels, m, log_inv, end)
    free = available_memory()
    if free is not None and cost.bytes > free:
        raise RelucheckInputError(f"{args.instance}: n = {n} data and m = {m} neurons need at least "
                                  f"{human_bytes(cost.bytes)} (the n × n Gram matrix and about a dozen n × m arrays), "
                                  f"more than the {human_bytes(free)} available")
    if not memory_only and getattr(args, "budget", None) is None and cost.steps > MAX_STEPS_ESTIMATE:
        culprit = ("--lam" if log_inv * DEFAULT_MAX_HORIZON > MAX_STEPS_ESTIMATE / 10 else
                   "--times" if times and times[-1] >= end else "--horizon" if args.horizon else
                   "--max-horizon" if args.max_horizon is not None else f"instance file {args.instance}")
        raise RelucheckInputError(
            f"{culprit}: reaching τ = {end:g} at λ = {args.lam} needs about {cost.steps:.2g} integrator steps, at most "
            f"{MAX_STEPS_ESTIMATE:.0e} without --budget (a fitted datum's residual decays at a rate ∝ ln(1/λ) = "
            f"{log_inv:.3g} times the data's scale {cost.sigma:.3g}, so the steps per unit of τ grow with it); give a "
            f"larger λ, a shorter horizon, or --budget SECONDS to run until then and stop inconclusive")
    if not memory_only and getattr(args, "budget", None) is None and engine_and_options(args)[0] in ("float64", "auto"):
        too_long = work_refusal(cost, f"instance file {args.instance}", end)  # its work, not its steps alone
        if too_long:
            raise RelucheckInputError(too_long)
    _check_taylor(instance, args, free, memory_only)
    d = instance.inputs.shape[1]
    steps = cost.steps + cost.events  # each event ends a step (`numerics.flows.cost`, Work)
    if not memory_only and steps * n * m * d > LARGE_WORK:
        print(f"relucheck flow: a large request (about {about(steps)} steps, one per event at least, of n·m·d = {n * m * d} "
              f"products each, the pre-activations X Wᵀ); progress every few seconds on stderr; --budget SECONDS "
              f"bounds it", file=sys.stderr, flush=True)


MAX_STEP_SECONDS = 60.0  # one Taylor step longer than this, without --budget, is refused: no progress line inside a step


def _check_taylor(instance, args, free, memory_only) -> None:
    """Engine mpmath (``--precision`` or ``--engine mpmath``): its step and its guard's rerun at twice the digits
    (`numerics.flows.cost.taylor_cost`) — memory above the available refused; without ``--budget`` a step estimated
    above MAX_STEP_SECONDS refused, with it a note on stderr (the budget is polled inside the step)."""
    from relucheck.numerics.flows.cost import human_bytes, taylor_cost

    name, options = engine_and_options(args)
    if name != PRECISION_ENGINE:
        return
    n, m = instance.inputs.shape[0], instance.directions.shape[0]
    digits = options.get("digits", 30)
    runs = [digits, 2 * digits] if options.get("guard") else [digits]
    costs = [taylor_cost(n, m, D, timed=not memory_only) for D in runs]
    big = max(costs, key=lambda c: c.bytes)
    if free is not None and big.bytes > free:
        raise RelucheckInputError(f"--precision: {digits} digits on n = {n} data and m = {m} neurons need at least "
                                  f"{human_bytes(big.bytes)} for one Taylor step (5 (K + 1) × n × m arb numbers, order "
                                  f"K = 2·digits, the guard's rerun at twice the digits included), more than the "
                                  f"{human_bytes(free)} available")
    if memory_only:
        return
    seconds = sum(c.seconds for c in costs)
    if getattr(args, "budget", None) is None and seconds > MAX_STEP_SECONDS:
        raise RelucheckInputError(
            f"--precision: one Taylor step at {digits} digits and its guard's rerun at {2 * digits} take about "
            f"{seconds:.3g} s (≈ 1.5 K² n m arb products at order K = 2·digits, timed here), at most "
            f"{MAX_STEP_SECONDS:g} s without --budget (no progress line can be printed inside a step); give fewer "
            f"digits, or --budget SECONDS to run until then and stop inconclusive")
    if seconds > PROGRESS_SECONDS:
        print(f"relucheck flow: engine {PRECISION_ENGINE} at {digits} digits: one Taylor step (and its guard's rerun) "
              f"takes about {seconds:.3g} s; --budget bounds the run", file=sys.stderr, flush=True)


PROGRESS_SECONDS = 5.0  # the progress line's period (numerics.flows.loop.PROGRESS_EVERY)
DEFAULT_MAX_HORIZON = 100.0  # FlowProblem's default maximal horizon
LARGE_WORK = 1e10  # steps × n·m·d above this take minutes (≈ 1 ns a product, a dozen field evaluations a step): say so


def _progress(t, end, events, steps) -> None:
    print(f"relucheck flow: τ = {t:.4g} of at most {end:.4g}, {events} events, {steps} steps so far", file=sys.stderr,
          flush=True)


def solve_instance(instance, args, limit, started=None):
    """The flow of the instance (module docstring): horizon from --horizon, else Algorithm 1's, else settling."""
    from relucheck.api import flow

    times = parse_times(args.times)
    if times and args.horizon is not None and times[-1] > args.horizon:
        raise RelucheckInputError(f"--times: {times[-1]!r} is beyond --horizon {args.horizon:g} (the run ends there)")
    name, options = engine_and_options(args)
    horizon = args.horizon
    if horizon is None and limit is not None:
        horizon = algorithm1_horizon(args, limit)
        if times is not None:
            horizon = max(horizon, times[-1])
    if "step" in options:
        options["max_steps"] = gd_steps(args, horizon)
    if getattr(args, "budget", None) is not None:  # the whole command's: reading and checking the file count too
        spent = 0.0 if started is None else time.perf_counter() - started
        options["budget"] = max(args.budget - spent, 1e-9)
    if getattr(args, "progress", True):
        options["progress"] = _progress
    try:
        if name == "auto" and getattr(args, "budget", None) is None:
            return _auto_within_bounds(instance, args, horizon, times, options)
        return flow(instance, args.lam, engine=name, horizon=horizon, times=times, max_horizon=args.max_horizon,
                    **options)
    except RelucheckInputError as exc:  # a property of the data (a zero input …) names the file; an option names itself
        message = str(exc.args[0]) if exc.args else type(exc).__name__
        if message.startswith("unknown engine"):  # the option's value, not the data
            exc.args = (f"--engine {args.engine}: {message}",)
        elif not message.startswith(("--", "instance file")):
            exc.args = (f"instance file {args.instance}: {message}",)
        raise


MAX_ESCALATION_SECONDS = 600.0  # the rerun in mpmath of engine auto, estimated, without --budget: the 10 minutes of
# MAX_STEPS_ESTIMATE. Measured (red team, issue 20): --rtol 1e-4 on general n = 64, d = 16, m = 16 data at λ = 1e-10
# escalated after 2 minutes of float64 and its check run, then stepped mpmath at about one step per 4 s with ~2000
# float64 steps to redo, with no bound and no word of it beyond "τ = 0.07 of at most 100" after 13 minutes.
ESCALATION_DIGITS = 30  # numerics.flows.solve's escalation_digits, engine mpmath's default digits


def _auto_within_bounds(instance, args, horizon, times, options):
    """Engine auto (`numerics.flows.solve`) with its rerun in mpmath bounded as every other request of this command
    (`check_cost`): float64 first; when its status asks for the rerun, the rerun's cost is estimated as the float64
    run's steps times one Taylor step at ESCALATION_DIGITS (`numerics.flows.cost.taylor_cost`, timed here; a Taylor
    step is longer than a DOP853 step, but every event ends one), and beyond MAX_ESCALATION_SECONDS the float64
    answer is kept (not a success: exit 3) with a message naming the estimate and --budget."""
    from relucheck.api import flow
    from relucheck.numerics.flows.cost import taylor_cost
    from relucheck.numerics.flows.registry import ESCALATE_ON, LOOP_OPTIONS, available_engines

    first = flow(instance, args.lam, engine="float64", horizon=horizon, times=times, max_horizon=args.max_horizon,
                 **options)
    if first.status not in ESCALATE_ON or PRECISION_ENGINE not in available_engines():
        return first
    n, m = instance.inputs.shape[0], instance.directions.shape[0]
    steps = int(first.stats.get("steps") or 0) + len(first.events)
    seconds = steps * taylor_cost(n, m, ESCALATION_DIGITS).seconds
    if seconds > MAX_ESCALATION_SECONDS:
        first.message += (f"; not rerun in engine {PRECISION_ENGINE}: about {steps} steps (the float64 run's steps and "
                          f"events) of {seconds / max(steps, 1):.2g} s each at {ESCALATION_DIGITS} digits ≈ "
                          f"{seconds:.2g} s, beyond {MAX_ESCALATION_SECONDS:g} s without --budget; --budget SECONDS "
                          f"runs it and stops inconclusive when spent")
        return first
    result = flow(instance, args.lam, engine=PRECISION_ENGINE, horizon=horizon, times=times,
                  max_horizon=args.max_horizon, **{k: v for k, v in options.items() if k in LOOP_OPTIONS})
    result.stats["escalated_from"] = {"engine": first.engine, "status": first.status.name.lower(),
                                      "message": first.message}
    return result


def _run(args) -> int:
    from relucheck.numerics.instances import load_instance
    from relucheck.numerics.jsonable import to_jsonable

    started = time.perf_counter()
    if args.max_horizon is not None:
        args.max_horizon = max_horizon_value(args.max_horizon)
    instance = load_instance(args.instance)
    times = parse_times(args.times)
    check_cost(instance, args, times, memory_only=True)  # before anything of size n² is allocated
    limit, note = _limit_process(instance)
    check_cost(instance, args, times, limit)
    result = solve_instance(instance, args, limit, started)
    if args.json:
        out = result.to_json()
        if limit is not None:
            out["limit_process"] = limit.to_json()
        else:
            out["limit_process_note"] = f"Algorithm 1 does not apply: {note}"
        print(json.dumps(to_jsonable(out), indent=1))
    else:
        from ..flow_text import print_human

        print_human(result, limit, note)
    withdrawn = result.errors.get("jumps_reason")  # a success whose jump times and plateaus have no bound
    if result.success and not withdrawn:
        return 0
    print(f"relucheck: inconclusive: engine {result.engine} ended with status {result.status.name.lower()}: "
          f"{withdrawn if result.success else result.message}", file=sys.stderr)
    return INCONCLUSIVE


def register(sub) -> None:
    p = sub.add_parser("flow", help="the gradient flow of an instance at scale λ (any data; Algorithm 1 next to it on "
                                    "orthonormal data)")
    p.add_argument("instance", help="instance JSON file (inputs, labels, directions, signs)")
    p.add_argument("--lam", required=True, help="initialization scale λ ∈ (0, 1) as a decimal, e.g. 1e-40 or 1e-1000")
    p.add_argument("--engine", help="flow engine (default auto: float64, escalating to mpmath when needed; "
                                    "`relucheck engines` lists them)")
    p.add_argument("--times", help="comma-separated accelerated times τ at which the trajectory is reported, e.g. 0.5,1,2")
    p.add_argument("--horizon", type=float, help="final accelerated time (default: Algorithm 1's last jump + 0.5 on "
                                                 "orthonormal data, else until the flow settles)")
    p.add_argument("--max-horizon",
                   help="without a horizon, stop by this accelerated time at the latest (default 100; at most the bound "
                        "of --horizon)")
    p.add_argument("--rtol", type=rtol, help="engine float64's relative tolerance (default 1e-10; every answer is "
                                             "vouched for by a rerun at rtol/100, docs/engines.md)")
    p.add_argument("--budget", help="seconds the whole run may take (default: none; past it the answer is "
                                    "inconclusive, exit 3); with it, requests estimated above 1e6 steps run")
    p.add_argument("--precision", type=int, help=f"digits for a high-precision engine (selects {PRECISION_ENGINE!r})")
    p.add_argument("--step", type=gd_step, help="engine gd only: the gradient-descent step η in t units (default 0.01)")
    p.add_argument("--json", action="store_true", help="machine-readable output (FlowResult.to_json())")
    p.set_defaults(func=_run)
