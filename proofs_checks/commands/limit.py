"""`relucheck limit INSTANCE.json [--ladder L1,L2,…] [--target E] [--extend-to L] [--engine NAME] [--rtol R]
[--budget SECONDS] [--max-horizon T] [--predict LAMBDA] [--json] [--plot FILE]`: the λ → 0 limit of the flow's jump
times and plateau losses, on any data, each with an error bar or "inconclusive" (issue 24; method and error law in docs/limit.md).

The flow (C Assumption 3's balanced start on the instance's data, as `relucheck flow` builds it) runs at
λ = e^{−L} for each L = ln(1/λ) of the ladder (default 100,300,1000,3000); jumps are matched across the ladder and
each jump time and plateau loss is extrapolated in x = 1/ln(1/λ) (`numerics.lambda_limit`); while a jump time's bar
is above ``--target`` or a quantity has not settled, one more rung is added, up to ``--extend-to``. On orthonormal data
(C Assumption 1) Algorithm 1's values (`theory.limit_process`) are shown next to the limits, with whether the error
bar covers them.

``--json``: status, message, the error law, jumps {neuron, fitted, status, value, error, reason, coefficients
[τ*, C, D], samples, engine_errors, extrapolants}, plateaus (the same without neuron), the ladder (λ, ln(1/λ), each
flow's status, jumps, plateaus, wall time), and ``algorithm_1`` on orthonormal data. ``--plot FILE``: τ_k against
1/ln(1/λ) with the fit and the limit (FILE's stem .pdf, .png and .csv). ``--predict LAMBDA``: each quantity's fitted
law q* + C·x + D·x² at that λ (x = 1/ln(1/λ), at or beyond the ladder's finest rung) with its bar (``prediction`` in
--json; `Estimate.predict`). A rung whose engine bound is above target/4 is rerun at other tolerances
(`numerics.limit_reruns`); the ladder's ``rtol`` and ``engine_reruns`` say which rtol each quantity comes from. Exit 0
when every quantity has an error bar, 3 when some is inconclusive (or a flow of the ladder failed, or ``--budget`` was
spent), 2 on bad input.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time

from relucheck.numerics.errors import RelucheckInputError

from .flow import INCONCLUSIVE, _limit_process, check_cost, max_horizon_value, rtol


def ladder_value(text: str) -> tuple:
    """``--ladder``: comma-separated values of ln(1/λ) (`numerics.lambda_limit.check_ladder`)."""
    from relucheck.numerics.lambda_limit import check_ladder

    if not text.isascii() or "_" in text:
        raise RelucheckInputError(f"--ladder must be comma-separated numbers in ASCII digits without '_', got "
                                  f"{text[:80]!r}")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise RelucheckInputError(f"--ladder must be comma-separated numbers ln(1/λ), e.g. 100,300,1000,3000; got "
                                  f"{text[:80]!r}") from None
    try:
        return check_ladder(values)
    except RelucheckInputError as exc:
        raise RelucheckInputError(f"--{exc}") from None


def _check(instance, args, ladder) -> None:
    """`relucheck flow`'s refusals (memory; without --budget, more than 10⁶ estimated steps) at the finest rung, and
    without --budget more than 10⁶ estimated steps for the whole ladder."""
    from relucheck.numerics.lambda_limit import lam_of

    ns = argparse.Namespace(instance=args.instance, lam=lam_of(ladder[-1]), horizon=None, times=None,
                            max_horizon=args.max_horizon, budget=args.budget, engine=args.engine, precision=None,
                            rtol=args.rtol, step=None)
    try:
        check_cost(instance, ns, None)
    except RelucheckInputError as exc:
        message = str(exc.args[0])
        raise RelucheckInputError(message.replace("--lam:", "--ladder:", 1)) from None
    if args.budget is None and len(ladder) > 1:  # the whole ladder, not its finest rung alone (red team, issue 20)
        from relucheck.numerics.flows.cost import estimate

        from .flow import DEFAULT_MAX_HORIZON, MAX_STEPS_ESTIMATE

        m, end = instance.directions.shape[0], args.max_horizon or DEFAULT_MAX_HORIZON
        steps = [estimate(instance.inputs, instance.labels, m, L, end).steps for L in ladder]
        if sum(steps) > MAX_STEPS_ESTIMATE:
            raise RelucheckInputError(
                f"--ladder: its {len(ladder)} rungs need about {sum(steps):.2g} integrator steps together (each up to "
                f"{max(steps):.2g}), at most {MAX_STEPS_ESTIMATE:.0e} without --budget (each rung is one flow, and its "
                "cost grows with ln(1/λ)); give fewer or smaller rungs, or --budget SECONDS to run until then and stop "
                "inconclusive")


def _affordable_extension(instance, args, ladder, extend_to) -> float:
    """The largest extra rung (10·L_{−2}, …) within ``extend_to`` that `relucheck flow`'s cost check accepts, with the
    ladder and the extra rungs before it counted together (`_check`); the ladder's own finest rung when none is (then
    no extension, said on stderr)."""
    top, prev = ladder[-1], ladder[-2]
    rungs = list(ladder)
    while 10 * prev <= extend_to:
        top, prev = 10 * prev, top
        rungs.append(top)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                _check(instance, args, tuple(rungs))  # the extra rungs and the ladder together (red team, session 28)
        except RelucheckInputError as exc:
            why = str(exc).removeprefix("--ladder: ")
            print(f"relucheck limit: note: should the bars ask for more rungs (--target), none at ln(1/λ) = {top:g} "
                  f"or beyond: {why}", file=sys.stderr)
            return prev if prev > ladder[-1] else ladder[-1]
    return extend_to


def _follow_algorithm_1(alg1, args) -> None:
    """On orthonormal data without ``--max-horizon``, the flows may run to 2·τ_K + 1 (τ_K Algorithm 1's last jump)
    when that is beyond the default 100. A flow *settles* when no neuron can grow before its maximal horizon
    (docs/engines.md), so with 100 a limit process whose jumps come later (labels of size 1e-6: jumps at τ ≈ 1.8e6
    and 9.5e6, found by a new user) was reported as "success" with no jump at all. Why 2·τ_K: τ scales as 1/‖y‖, and
    so does the time the flow needs after its last jump to be static (with τ_K + 0.5, `relucheck flow`'s horizon,
    labels of size 1e-3 ended unsettled); the horizon is only a cap, a flow stops when it settles."""
    from relucheck.numerics.flows import FlowProblem

    if alg1 is None or not alg1.jumps or args.max_horizon is not None:
        return
    end = 2.0 * alg1.jumps[-1].tau + 1.0
    if end > FlowProblem.max_horizon:
        args.max_horizon = end
        print(f"relucheck limit: the flows may run to τ = {end:g}, twice Algorithm 1's last jump + 1 (beyond the "
              f"default maximal horizon {FlowProblem.max_horizon:g})", file=sys.stderr)


def _progress(L, seconds, run) -> None:
    note = getattr(run, "rerun_note", None)
    extra = ""
    if note:  # `numerics.limit_reruns`: which tolerances ran, and what is left
        ran = ", ".join(f"{r['rtol']:g}" for r in note["reruns"])
        extra = f" (rtol {note['rtol']:g}: {note['reason']}; reran at rtol {ran}"
        extra += (f"; still above: {', '.join(note['still_above'])}" if note["still_above"] else "") + \
            (f"; runs disagree: {len(note['disagreements'])} quantities inconclusive" if note["disagreements"] else "") + ")"
    print(f"relucheck limit: ln(1/λ) = {L:g}: {run.status.name.lower()}, {len(run.jumps)} jumps, {seconds:.3g} s{extra}",
          file=sys.stderr, flush=True)


def _print_human(result, alg1) -> None:
    from relucheck.numerics.lambda_limit import LimitStatus

    from ..report import fmt_number

    if result.status in (LimitStatus.BUDGET, LimitStatus.FLOW_FAILED):
        print(f"status: {result.status.name.lower()} — {result.message}")
        for r in result.ladder:
            print(f"  ln(1/λ) = {fmt_number(r['log_inv_lambda'], 6)}: {r['status']}, {fmt_number(r['wall_seconds'], 3)} s")
        return
    print(f"λ → 0 limit by extrapolation in x = 1/ln(1/λ) over ln(1/λ) = "
          f"{', '.join(fmt_number(r['log_inv_lambda'], 6) for r in result.ladder)}; τ = t / ln(1/λ); 0-based data")
    print(f"status: {result.status.name.lower()} — {result.message}")
    exact = {j.neuron: j for j in alg1.jumps} if alg1 is not None else {}
    print(f"{'k':>3}  {'tau*':>16}  {'± error':>10}  {'C (1st order)':>13}  {'neuron':>6}  fitted"
          + ("   Algorithm 1 (covered)" if alg1 is not None else ""))
    for k, j in enumerate(result.jumps, start=1):
        value = fmt_number(j.value, 12) if j.ok else "inconclusive"
        err = (fmt_number(j.error, 3) + ("ᵉ" if j.engine_part > j.error / 2 else "")) if j.ok else "-"
        slope = fmt_number(j.coefficients[1], 6) if j.ok else "-"
        extra = ""
        if j.neuron in exact:
            tau = exact[j.neuron].tau
            extra = f"   {fmt_number(tau, 12)} ({'yes' if j.ok and abs(j.value - tau) <= j.error else 'no'})"
        print(f"{k:>3}  {value:>16}  {err:>10}  {slope:>13}  {j.neuron:>6}  {list(j.fitted)}{extra}")
        if not j.ok:
            print(f"       {j.reason}")
    for k, p in enumerate(result.plateaus):
        text = f"{fmt_number(p.value, 10)} ± {fmt_number(p.error, 3)}" if p.ok else f"inconclusive: {p.reason}"
        lim = f"  (Algorithm 1: {fmt_number(alg1.plateaus[k], 10)})" if alg1 is not None and k < len(alg1.plateaus) \
            else ""
        print(f"plateau {k}: {text}{lim}")
    if any(j.ok and j.engine_part > j.error / 2 for j in result.jumps + result.plateaus):
        print("ᵉ: most of this bar is the engines' own error bound (FlowResult.errors), not the extrapolation's spread")
    walls = ", ".join(fmt_number(r["wall_seconds"], 3) for r in result.ladder)
    print(f"flows: {walls} s; jumps are looked for up to τ = {fmt_number(result.stats.get('max_horizon', 100.0), 6)} "
          "(--max-horizon: a neuron that cannot grow by then counts as settled)")


def _run(args) -> int:
    from relucheck.api import limit
    from relucheck.numerics.instances import load_instance
    from relucheck.numerics.jsonable import to_jsonable

    started = time.perf_counter()
    if args.max_horizon is not None:
        args.max_horizon = max_horizon_value(args.max_horizon)
    if args.engine not in (None, "float64", "auto", "mpmath"):
        raise RelucheckInputError(f"--engine {args.engine}: relucheck limit runs engine 'float64', 'auto' or "
                                  "'mpmath' (`relucheck engines` lists them)")
    ladder = ladder_value(args.ladder or "100,300,1000,3000")
    predict_at = _predict_value(args.predict, ladder) if args.predict is not None else None
    if args.plot:
        _plot_target(args.plot)
    instance = load_instance(args.instance)
    alg1, note = _limit_process(instance)
    _follow_algorithm_1(alg1, args)
    _check(instance, args, ladder)
    options = {"rtol": args.rtol} if args.rtol is not None else {}
    if args.target is not None:
        options["target"] = _positive(args.target, "--target")
    if args.extend_to is not None:
        options["extend_to"] = _positive(args.extend_to, "--extend-to")
    from relucheck.numerics.lambda_limit import EXTEND_TO

    options["extend_to"] = _affordable_extension(instance, args, ladder, options.get("extend_to", EXTEND_TO))
    budget = None if args.budget is None else max(args.budget - (time.perf_counter() - started), 1e-9)
    result = limit(instance, ladder=ladder, engine=args.engine or "float64", max_horizon=args.max_horizon,
                   budget=budget, progress=_progress, **options)
    from relucheck.numerics.flows import FlowProblem

    result.stats["max_horizon"] = args.max_horizon or FlowProblem.max_horizon
    if args.plot and not any(r["status"] in ("success", "settled") for r in result.ladder):
        print(f"relucheck limit: --plot {args.plot}: no figure written: no flow of the ladder succeeded",
              file=sys.stderr)
    elif args.plot:
        from ..figures.limit_plot import write_limit_plot

        try:
            write_limit_plot(result, args.plot, alg1)
        except OSError as exc:
            raise RelucheckInputError(f"--plot {args.plot}: cannot write the figure: {exc}") from None
    prediction = _prediction(result, args.predict, predict_at) if predict_at is not None else None
    if args.json:
        out = result.to_json()
        if prediction is not None:
            out["prediction"] = prediction
        if alg1 is not None:
            out["algorithm_1"] = {"jumps": [{"tau": j.tau, "neuron": j.neuron, "fitted": list(j.fitted)}
                                            for j in alg1.jumps], "plateaus": list(alg1.plateaus)}
        else:
            out["algorithm_1_note"] = f"Algorithm 1 does not apply: {note}"
        print(json.dumps(to_jsonable(out), indent=1))
    else:
        _print_human(result, alg1)
        if prediction is not None:
            _print_prediction(prediction)
    if result.success:
        return 0
    print(f"relucheck: inconclusive: {result.message}", file=sys.stderr)
    return INCONCLUSIVE


def _predict_value(text: str, ladder) -> float:
    """``--predict LAMBDA``: ln(1/λ) of a decimal λ, at or beyond the ladder's finest rung (`Estimate.predict`'s bar
    holds only for 0 ≤ x ≤ x_finest: between rungs the interpolation error's factors are not bounded by their
    values at x = 0)."""
    from relucheck.numerics.scale import InitScale

    try:
        L = InitScale.of(text).log_inv
    except RelucheckInputError as exc:
        raise RelucheckInputError(f"--predict: {exc}") from None
    if not L >= ladder[-1]:
        raise RelucheckInputError(f"--predict {text}: ln(1/λ) = {L:.6g} is below the ladder's finest rung "
                                  f"{ladder[-1]:g}; the fitted law's bar holds only at or beyond it (run `relucheck "
                                  "flow` there instead)")
    return L


def _prediction(result, text, L) -> dict:
    """q* + C·x + D·x² at x = 1/L for every concluded quantity, with its bar (`Estimate.predict`); a quantity whose
    ladder was extended past L, or that is inconclusive, gets a reason instead."""
    finest = max(r["log_inv_lambda"] for r in result.ladder) if result.ladder else L

    def one(est):
        if not est.ok:
            return {"status": "inconclusive", "reason": est.reason}
        if L < finest:
            return {"status": "not predicted", "reason": f"ln(1/λ) = {L:.6g} is below the extended ladder's finest "
                                                         f"rung {finest:g}"}
        value, error = est.predict(L)
        return {"status": "ok", "value": value, "error": error}

    return {"lambda": text, "log_inv_lambda": L, "law": "q* + C·x + D·x², x = 1/ln(1/λ)",
            "jumps": [{"neuron": j.neuron, **one(j)} for j in result.jumps],
            "plateaus": [one(p) for p in result.plateaus]}


def _print_prediction(prediction) -> None:
    from ..report import fmt_number

    print(f"predicted at λ = {prediction['lambda']} (ln(1/λ) = {fmt_number(prediction['log_inv_lambda'], 8)}), "
          f"{prediction['law']}:")
    rows = [(f"jump {k} (neuron {j['neuron']})", j) for k, j in enumerate(prediction["jumps"], start=1)]
    rows += [(f"plateau {k}", p) for k, p in enumerate(prediction["plateaus"])]
    for name, q in rows:
        text = (f"{fmt_number(q['value'], 12)} ± {fmt_number(q['error'], 3)}" if q["status"] == "ok"
                else f"{q['status']}: {q['reason']}")
        print(f"  {name}: {text}")


def _plot_target(path: str) -> None:
    """``--plot FILE``, checked before any flow runs (a ladder costs minutes): FILE's stem .pdf, .png and .csv must
    not be directories, and their folder must be a writable directory (created now if missing, as `figures.style`
    would create it after the ladder). Found by a new user: an unwritable path failed only after the whole
    ladder, with a message that did not name --plot."""
    import os
    from pathlib import Path

    if Path(path).is_dir():
        raise RelucheckInputError(f"--plot {path}: is a directory (give a file name: its stem gets .pdf, .png, .csv)")
    stem = Path(path)
    stem = stem.with_suffix("") if stem.suffix.lower() in (".pdf", ".png", ".csv") else stem
    for suffix in (".pdf", ".png", ".csv"):
        target = stem.with_suffix(suffix)
        if target.is_dir():
            raise RelucheckInputError(f"--plot {path}: {target} is a directory")
        if target.exists() and not os.access(target, os.W_OK):
            raise RelucheckInputError(f"--plot {path}: {target} is not writable")
    folder = stem.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise RelucheckInputError(f"--plot {path}: {folder} is not a directory")
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RelucheckInputError(f"--plot {path}: cannot create the folder {stem.parent}: "
                                  f"{exc.strerror or exc}") from None
    if not os.access(stem.parent, os.W_OK | os.X_OK):
        raise RelucheckInputError(f"--plot {path}: folder {stem.parent} is not writable")


def _positive(text: str, option: str) -> float:
    import math

    try:
        value = float(text) if text.isascii() and "_" not in text else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise RelucheckInputError(f"{option} must be a number > 0, got {text!r}")
    return value


def budget_value(text: str) -> float:
    import math

    try:
        value = float(text) if text.isascii() and "_" not in text else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def register(sub) -> None:
    p = sub.add_parser("limit", help="the λ → 0 limit of jump times and plateau losses on any data, with error bars "
                                     "(extrapolation in 1/ln(1/λ) over a ladder of flows)")
    p.add_argument("instance", help="instance JSON file (inputs, labels, directions, signs)")
    p.add_argument("--ladder",
                   help="values of ln(1/λ), comma-separated, at least 4 (default 100,300,1000,3000)")
    p.add_argument("--engine", help="flow engine: float64 (default), auto or mpmath")
    p.add_argument("--rtol", type=rtol, help="engine float64's relative tolerance (default 1e-10; a rung whose bound "
                                             "is above --target/4 is rerun at 1e-8, 1e-6, 1e-12)")
    p.add_argument("--budget", type=budget_value, help="seconds the whole ladder may take (past it: exit 3)")
    p.add_argument("--max-horizon", help="each flow stops by this accelerated time at the latest (default 100; "
                                         "jumps after it are not looked for)")
    p.add_argument("--target", help="a jump time's error bar above this asks for one more rung, an engine bound above "
                                    "a quarter of it for reruns at other tolerances (default 1e-3)")
    p.add_argument("--extend-to", help="the largest ln(1/λ) such extra rungs may reach (default 10000; 10·L_{−2} "
                                       "each: 10000 after 3000)")
    p.add_argument("--predict", metavar="LAMBDA", help="also give each fitted law q* + C·x + D·x² at this λ "
                   "(decimal, e.g. 1e-10000; at or beyond the ladder's finest rung) with its bar")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", help="write the figure τ_k against 1/ln(1/λ) to FILE's stem (.pdf, .png, .csv)")
    p.set_defaults(func=_run)
