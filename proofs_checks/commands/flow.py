"""`relucheck flow INSTANCE.json --lam 1e-40 [--engine NAME] [--horizon T] [--precision DIGITS] [--json]`.

Runs paper C's gradient flow at initialization scale λ (a decimal string: 1e-1000 works with the
"uw-float64" engine) on an instance with orthonormal inputs (Assumption 1; anything else exits with
status 2 and a message naming it), in accelerated time τ = t / ln(1/λ), and prints its jumps next to
Algorithm 1's prediction. ``--json`` prints `numerics.engines.FlowRun.to_json()` (jumps with tau,
neuron, fitted; interpolates, squared_norm, loss_plateaus, engine, tolerances, run statistics) with
Algorithm 1's output under ``"limit_process"``.

``--precision DIGITS`` asks for a high-precision engine: without ``--engine`` it selects engine "mpmath" of the
flow contract (`numerics.flows`, with its precision guard), passes ``digits=DIGITS`` to it and shows its result
as a `FlowRun` (`_mpmath_engine`, until this command moves to the flow contract).
"""
from __future__ import annotations

import json

import numpy as np

from relucheck.numerics.engines import FlowRun, Jump, get_engine
from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import load_instance
from relucheck.theory.limit_process import limit_process_of

from ..report import fmt_number
from ..result import to_jsonable

DEFAULT_ENGINE = "uw-float64"
PRECISION_ENGINE = "mpmath"


def _mpmath_engine(instance, lam, *, horizon=None, digits=30) -> FlowRun:
    """Engine "mpmath" (`numerics.flows`) with its guard, to Algorithm 1's last jump + 0.5 by default, as a FlowRun."""
    if horizon is None:
        jumps = limit_process_of(instance).jumps
        horizon = (jumps[-1].tau if jumps else 1.0) + 0.5
    r = solve(FlowProblem.from_instance(instance, lam, horizon=horizon), PRECISION_ENGINE, digits=digits, guard=True)
    traj = r.trajectory
    return FlowRun(engine=r.engine, lam=r.problem["lambda"], log_inv_lambda=r.log_inv_lambda, taus=traj.tau,
                   losses=traj.loss, rho=np.exp(2 * traj.log_norms) / 2, a=r.a, W=r.W,
                   jumps=[Jump(jp.tau, jp.neuron, list(jp.fitted)) for jp in r.jumps], loss_plateaus=r.plateaus,
                   interpolates=r.interpolates, squared_norm=r.squared_norm, status=r.status.name.lower(),
                   message=r.message, precision=r.precision, tolerances=r.tolerances, stats=r.stats)


def _engine_and_options(args):
    options = {}
    if args.horizon is not None:
        options["horizon"] = args.horizon
    name = args.engine
    if args.precision is not None:
        if args.precision < 1:
            raise RelucheckInputError(f"--precision must be a positive number of digits, got {args.precision}")
        name = name or PRECISION_ENGINE
        options["digits"] = args.precision
    name = name or DEFAULT_ENGINE
    return name, _mpmath_engine if name == PRECISION_ENGINE else get_engine(name), options


def _print_human(run, limit) -> None:
    print(f"paper C flow, engine {run.engine} ({run.precision}), λ = {run.lam}, ln(1/λ) = {fmt_number(run.log_inv_lambda, 8)}; "
          f"τ = t / ln(1/λ); data indices 0-based")
    print(f"status: {run.status} — {run.message}")
    predicted = {jp.neuron: jp for jp in limit.jumps}
    print(f"{'k':>3}  {'tau (flow)':>14}  {'tau (Alg. 1)':>14}  {'(diff)·ln(1/λ)':>15}  {'neuron':>6}  fitted (flow) / (Alg. 1)")
    for k, jp in enumerate(run.jumps, start=1):
        lim = predicted.get(jp.neuron)
        tau_lim = fmt_number(lim.tau, 10) if lim else "-"
        scaled = fmt_number((jp.tau - lim.tau) * run.log_inv_lambda, 6) if lim else "-"
        print(f"{k:>3}  {fmt_number(jp.tau, 10):>14}  {tau_lim:>14}  {scaled:>15}  {jp.neuron:>6}  "
              f"{jp.fitted} / {lim.fitted if lim else '-'}")
    missing = [jp for jp in limit.jumps if jp.neuron not in {j.neuron for j in run.jumps}]
    for jp in missing:
        print(f"  Algorithm 1 jump of neuron {jp.neuron} at tau = {fmt_number(jp.tau, 10)} not seen in the flow")
    print("saddle losses (flow):   " + ", ".join(fmt_number(v) for v in run.loss_plateaus))
    print("saddle losses (Alg. 1): " + ", ".join(fmt_number(v) for v in limit.plateaus))
    print(f"interpolates: flow {run.interpolates}, Alg. 1 {limit.interpolates}")
    print(f"squared norm: flow {fmt_number(run.squared_norm, 8)}, Alg. 1 {fmt_number(limit.squared_norm, 8)}")
    stats = run.stats
    work = (f"{stats['nfev']} field evaluations" if stats.get("nfev") is not None
            else f"{stats.get('steps')} Taylor steps of order {stats.get('order')}")
    print(f"run: {work}, {stats.get('events')} activation events, {fmt_number(stats.get('wall_seconds'), 3)} s")
    if stats.get("guard_digits"):
        print(f"precision: {stats['digits']} digits; the {stats['guard_digits']}-digit rerun differs by "
              f"{fmt_number(stats['guard_discrepancy'])} (tolerance {fmt_number(stats.get('guard_tolerance'))})")


def _run(args) -> int:
    instance = load_instance(args.instance, orthonormal=True)
    name, engine, options = _engine_and_options(args)
    limit = limit_process_of(instance)
    run = engine(instance, args.lam, **options)
    if args.json:
        out = run.to_json()
        out["limit_process"] = limit.to_json()
        print(json.dumps(to_jsonable(out), indent=1))
    else:
        _print_human(run, limit)
    return 0


def register(sub) -> None:
    p = sub.add_parser("flow", help="paper C's gradient flow at scale λ on an orthonormal instance, next to Algorithm 1")
    p.add_argument("instance", help="instance JSON file with orthonormal inputs (paper C, Assumption 1)")
    p.add_argument("--lam", required=True, help="initialization scale λ ∈ (0, 1) as a decimal, e.g. 1e-40 or 1e-1000")
    p.add_argument("--engine", help=f"flow engine (default {DEFAULT_ENGINE}; also raw-float64 for λ ≥ 1e-150)")
    p.add_argument("--horizon", type=float, help="final accelerated time (default: Algorithm 1's last jump + 0.5)")
    p.add_argument("--precision", type=int, help=f"digits for a high-precision engine (selects {PRECISION_ENGINE})")
    p.add_argument("--json", action="store_true", help="machine-readable output (FlowRun.to_json())")
    p.set_defaults(func=_run)
