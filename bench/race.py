"""Race relucheck's default float64 engine against its anchors (issue 22, item 8), interleaved in rounds.

1. Orthonormal data (C Assumption 1), n = 256, m = 64, λ = 1e-40, to Algorithm 1's last jump + 0.5 (the instance of
   `bench.bench_engines`): ``solve(problem, "float64")`` against heyoka (`bench.race_heyoka`: the same ODE in balanced
   log-scale form, Taylor at tol 1e-10 with an event per active component, components inactive at τ = 0 left out) and
   against the bare numpy floor (the field evaluations the call made, each timed as `bench_engines.bare_field`).
   Agreement: jump times to 1e-6 and the deactivation events (`bench.race_checks`).
2. General data, n = 64, d = 16, m = 16 (`testing.strategies.random_general_instance`: x_i, ḡ_j normalized Gaussians,
   y ~ N(0, 1)), λ = 1e-40 and 1e-10, to where the flow settles: the flow against plain numpy gradient descent
   (`bench.race_gd`) at the coarsest step whose losses at the comparison points agree with the flow's within 1e-3.
   Comparison points: the loss on each plateau (the midpoint of every gap of at least ``PLATEAU_GAP``/ln(1/λ) between
   consecutive jump times, the first from τ = 0) and at the end (after the last drop).
3. The same general instance at λ = 1e-1000 against 1e-40, each until its flow settles (at most τ = 40, as in 2: the
   question a user asks at any λ): the flow's time ratio; agreement: the same neurons jump in the same order (jump
   times and plateaus move with λ at order 1/ln(1/λ), so their differences are printed). Not the same τ window: the
   flow at λ = 1e-1000 settles earlier in τ (measured: τ = 21.8 against 34.1 at 1e-40 on the default instance), and
   a settled flow is a stiff system for an explicit step (the fitted residuals decay at a rate ∝ ln(1/λ)), so
   integrating it on to 1e-40's end measures that stiffness, not the answer (docs/engines.md gives both figures).

Setup runs (the settling time, the comparison points, the GD step search) are not timed. Every timed contender runs
once per round, in an order that rotates from round to round; each ratio is taken within a round and printed as the
spread over rounds. Targets are issue 22's "done when" and are printed, not asserted. `--quick`: small instances and
one round (tests/test_bench_race.py). heyoka is optional (`pip install 'relucheck[bench]'`); without it part 1 says so.

Run from the repository root: ``OPENBLAS_NUM_THREADS=1 nice python -m bench.race [--quick] [--rounds R] [--seed S]``.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import subprocess
import sys
import time

import numpy as np

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.flows.loop import KINK_ULPS
from relucheck.testing.strategies import random_general_instance
from relucheck.theory.limit_process import limit_process_of

from . import race_gd, race_heyoka
from .bench_engines import floor_seconds, orthonormal_instance
from .race_checks import Agreement, event_agreement, jump_agreement, jump_order_agreement, loss_agreement, spread

PLATEAU_GAP = 10.0  # a drop lasts O(1) in real time t, i.e. O(1/ln(1/λ)) in τ: a midpoint ≥ 5 units of t from every jump
HEYOKA_TOL = 1e-10  # issue 22: heyoka at tol 1e-10 against the float64 engine at its default rtol 1e-10


@dataclasses.dataclass(frozen=True)
class Config:
    ortho: tuple  # (n, m)
    general: tuple  # (n, d, m)
    rounds: int
    max_horizon: float  # where a general run must have settled
    budget: float  # seconds for one timed flow run (a run that spends it prints its ratio as a bound)
    seed: int  # default seed


FULL = Config((256, 64), (64, 16, 16), 2, 40.0, 1200.0, 0)
QUICK = Config((16, 8), (10, 4, 4), 1, 40.0, 120.0, 1)
LAMBDAS = ("1e-40", "1e-10")
TINY = "1e-1000"
ACCEPTED = ("SUCCESS", "SETTLED", "UNSETTLED")  # a run that reached its end (UNSETTLED: at max_horizon, still moving)
TINY_BUDGET_FACTOR = 8.0  # the λ = 1e-1000 run may take 8× its λ = 1e-40 time, past the target 3 (beyond: a bound)
TINY_MIN_BUDGET = 30.0  # … and at least this many seconds


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def rotate(names: list, r: int) -> list:
    k = r % len(names)
    return names[k:] + names[:k]


def orthonormal_race(cfg: Config, seed: int, say) -> dict:
    n, m = cfg.ortho
    inst = orthonormal_instance(seed, n, m)
    lp = limit_process_of(inst)
    horizon = lp.jumps[-1].tau + 0.5
    problem = FlowProblem.from_instance(inst, "1e-40", horizon=horizon)
    L = problem.log_inv_lambda
    version = race_heyoka.available()
    say(f"[1] orthonormal n = {n}, m = {m}, λ = 1e-40, τ ∈ [0, {horizon:.4f}] (Algorithm 1: {len(lp.jumps)} jumps)")
    names = ["relucheck", "heyoka"] if version else ["relucheck"]
    times = {"relucheck": [], "run": [], "heyoka": [], "build": [], "floor": []}
    res = hey = model = None
    for r in range(cfg.rounds):
        for name in rotate(names, r):
            if name == "relucheck":
                res, sec = timed(lambda: solve(problem, "float64", budget=cfg.budget))
                times["relucheck"].append(sec)
                times["run"].append(res.stats["wall_seconds"])  # the run without its check run (vouch)
            else:
                model = race_heyoka.build(inst, L, HEYOKA_TOL)
                steps, sec, track = race_heyoka.integrate(model, horizon)
                hey = race_heyoka.finish(model, inst, L, steps, sec, track)
                times["build"].append(model.build_seconds)
                times["heyoka"].append(sec)
        times["floor"].append(floor_seconds(n, m, seed))
    nfev, check_nfev = res.stats["nfev"], res.stats.get("check_nfev", 0)
    say(f"    relucheck float64: {spread(times['relucheck'])} s; status {res.status.name}, {len(res.events)} events, "
        f"{len(res.jumps)} jumps, {nfev} field evaluations + {check_nfev} in its check run (vouch), final loss "
        f"{res.final_loss:.10g}")
    floors = [f * (nfev + check_nfev) for f in times["floor"]]
    out = {"relucheck_status": res.status.name}
    out["floor_ratio"] = [w / f for w, f in zip(times["relucheck"], floors)]
    say(f"    bare numpy field: {spread([f * 1e6 for f in times['floor']])} µs × {nfev + check_nfev} evaluations = "
        f"{spread(floors)} s")
    say(f"    RATIO relucheck / bare numpy floor: {spread(out['floor_ratio'])} (target ≤ 2); the run alone (without its "
        f"check run): {spread([w / (f * nfev) for w, f in zip(times['run'], times['floor'])])}")
    if not version:
        say("    heyoka: SKIPPED, heyoka is not installed (pip install 'relucheck[bench]'); no relucheck / heyoka ratio")
        return out
    say(f"    heyoka {version} (Taylor, tol {HEYOKA_TOL:g}, compact mode, {model.n_states} states, "
        f"{len(model.neurons)} event functions): build {spread(times['build'])} s, integration {spread(times['heyoka'])} s, "
        f"{hey.steps} steps, {len(hey.events)} deactivations, {len(hey.jumps)} jumps, final loss {hey.final_loss:.10g}")
    ours = {jp.neuron: jp.tau for jp in res.jumps}
    theirs = {jp.neuron: jp.tau for jp in hey.jumps}
    out["jumps"] = jump_agreement(ours, theirs)
    deact = {(e.neuron, e.datum): e.tau for e in res.events if e.kind.value == "deactivate"}
    others = len(res.events) - len(deact)
    ties = [t["tau"] for t in res.stats.get("near_tie_list", [])]
    kept = {(int(j), int(i)): float(v) for j, i, v in zip(model.neurons, model.data, model.ta.state[m:]) if v != 0}
    out["events"] = event_agreement(deact, {(j, i): t for t, j, i in hey.events}, ties, kept, KINK_ULPS * np.finfo(float).eps)
    say(f"    jump times: {out['jumps'].line()}")
    say(f"    events: {out['events'].line()}" + (f"; relucheck's {others} other events (not deactivations) have no "
                                                   "counterpart" if others else ""))
    out["heyoka_ratio"] = [a / b for a, b in zip(times["relucheck"], times["heyoka"])]
    with_build = [a / (b + c) for a, b, c in zip(times["relucheck"], times["heyoka"], times["build"])]
    say(f"    RATIO relucheck / heyoka: {spread(out['heyoka_ratio'])} against heyoka's integration, {spread(with_build)} "
        "against its build + integration (target ≤ 1); relucheck's run alone (without its check run) against heyoka's "
        f"integration: {spread([a / b for a, b in zip(times['run'], times['heyoka'])])}")
    return out


def comparison_points(jump_taus, end: float, log_inv: float) -> list[float]:
    """Plateau midpoints (gaps ≥ PLATEAU_GAP / ln(1/λ) between consecutive jumps, from τ = 0) and the end."""
    marks = [0.0] + sorted(jump_taus)
    gap = PLATEAU_GAP / log_inv
    points = [(a + b) / 2 for a, b in zip(marks, marks[1:]) if b - a >= gap]
    return points + [float(end)]


def _step_setup(inst, flow, lam: str, say):
    """Comparison points of a finished flow run and GD's step for them (untimed): (L, points, flow losses, η) or None."""
    if flow.status.name not in ACCEPTED:
        say(f"    λ = {lam}: the flow ended {flow.status.name}: {flow.message}; no GD comparison")
        return None
    L = flow.log_inv_lambda
    points = comparison_points([jp.tau for jp in flow.jumps], flow.end, L)
    ref = [float(v) for v in np.interp(points, flow.trajectory.tau, flow.trajectory.loss)]
    eta, _, tried = race_gd.choose_step(inst, lam, L, flow.end, points, ref)
    confirm = ""
    if eta:  # GD converges to the flow at first order: the chosen step's agreement is no accident if η/2 agrees too
        half, _ = race_gd.run(inst, lam, L, eta / 2, flow.end)
        confirm = f"; at η/2: {loss_agreement(ref, race_gd.losses_at(half, eta / 2, L, points)).line()}"
    say(f"    λ = {lam}: the flow ends {flow.status.name} at τ = {flow.end:.4g}, {len(flow.jumps)} jumps, "
        f"{len(points)} comparison points (τ = {', '.join(f'{p:.4g}' for p in points)}); GD steps tried (η, max |Δloss|): "
        + ", ".join(f"({e:.3g}, {v:.1e})" for e, v in tried) + (f"; chosen η = {eta:.4g}" if eta else "; NO step agrees")
        + confirm)
    return (L, points, ref, eta) if eta else None


def general_race(cfg: Config, seed: int, say) -> dict:
    n, d, m = cfg.general
    inst = random_general_instance(n, d, m, seed)
    say(f"[2] general n = {n}, d = {d}, m = {m} (random_general_instance seed {seed}), λ = {' and '.join(LAMBDAS)}, "
        f"until the flow settles (at most τ = {cfg.max_horizon:g}): the flow against plain numpy GD")
    problems = {lam: FlowProblem.from_instance(inst, lam, horizon=None, max_horizon=cfg.max_horizon) for lam in LAMBDAS}
    times: dict = {}
    results, setup, budgets = {}, {}, {lam: cfg.budget for lam in LAMBDAS}

    def race(name: str) -> None:
        kind, lam = name.split()
        if kind == "flow":
            results[name], sec = timed(lambda: solve(problems[lam], "float64", budget=budgets[lam]))
        else:
            L, points, _, eta = setup[lam]
            results[name], sec = race_gd.run(inst, lam, L, eta, results[f"flow {lam}"].end)
        times.setdefault(name, []).append(sec)

    names = [f"flow {lam}" for lam in LAMBDAS]
    for name in names:  # round 1 starts with the flows: they give the horizon, the points and GD's step
        race(name)
    for lam in LAMBDAS:
        found = _step_setup(inst, results[f"flow {lam}"], lam, say)
        if found:
            setup[lam] = found
            names.append(f"gd {lam}")
    if results["flow 1e-40"].status.name in ACCEPTED:
        problems[TINY] = FlowProblem.from_instance(inst, TINY, horizon=None, max_horizon=cfg.max_horizon)
        budgets[TINY] = max(TINY_MIN_BUDGET, TINY_BUDGET_FACTOR * times["flow 1e-40"][0])
        names.append(f"flow {TINY}")
    for name in names[len(LAMBDAS):]:
        race(name)
    for r in range(1, cfg.rounds):
        for name in rotate(names, r):
            race(name)
    out = {}
    for lam in LAMBDAS:
        flow = results[f"flow {lam}"]
        evals = flow.stats["nfev"] + flow.stats.get("check_nfev", 0)
        say(f"    flow λ = {lam}: {spread(times['flow ' + lam])} s; status {flow.status.name}, {flow.stats['nfev']} + "
            f"{flow.stats.get('check_nfev', 0)} (check run) field evaluations, "
            f"{spread([t / evals * 1e6 for t in times['flow ' + lam]])} µs each, {len(flow.events)} events, "
            f"{len(flow.jumps)} jumps")
        if lam not in setup:
            continue
        L, points, ref, eta = setup[lam]
        losses = results[f"gd {lam}"]
        mine = [float(v) for v in np.interp(points, flow.trajectory.tau, flow.trajectory.loss)]
        out[lam] = loss_agreement(mine, race_gd.losses_at(losses, eta, L, points))
        out[f"gd_ratio {lam}"] = [g / f for g, f in zip(times["gd " + lam], times["flow " + lam])]
        say(f"    GD λ = {lam}, η = {eta:.4g}: {spread(times['gd ' + lam])} s, {len(losses) - 1} steps, "
            f"{spread([t / (len(losses) - 1) * 1e6 for t in times['gd ' + lam]])} µs each; {out[lam].line()}; "
            "flow losses at the points " + ", ".join(f"{v:.5g}" for v in mine))
        say(f"    RATIO GD / flow at λ = {lam}: {spread(out['gd_ratio ' + lam])} (target ≥ 2)")
    if TINY in problems:
        tiny, base = results[f"flow {TINY}"], results["flow 1e-40"]
        say(f"[3] the same general instance, λ = {TINY} against 1e-40, each until its flow settles (at most τ = "
            f"{cfg.max_horizon:g}): τ ∈ [0, {tiny.end:.4g}] against [0, {base.end:.4g}]")
        # the run reached its end: it settled, or it spent its budget in its check run (whose method is then recorded)
        reached = tiny.status.name in ACCEPTED or (tiny.status.name == "BUDGET" and bool(tiny.errors))
        bound = "" if tiny.status.name != "BUDGET" else \
            (f" (its budget of {budgets[TINY]:.0f} s ran out at τ = {tiny.end:.4g}"
             + (", in its check run" if reached else "") + ", so the ratio is a lower bound)")
        if tiny.status.name in ACCEPTED or (tiny.status.name == "BUDGET" and reached):
            out["tiny"] = jump_order_agreement(base.jumps, tiny.jumps)
        else:
            out["tiny"] = Agreement(False, float("inf"), f"not compared: the run ended {tiny.status.name} at τ = {tiny.end:.4g}")
        out["tiny_ratio"] = [a / b for a, b in zip(times[f"flow {TINY}"], times["flow 1e-40"])]
        plate = float("nan")
        if "1e-40" in setup and reached:  # the losses at λ = 1e-40's comparison points
            pts = setup["1e-40"][1]
            plate = float(np.max(np.abs(np.interp(pts, tiny.trajectory.tau, tiny.trajectory.loss)
                                        - np.interp(pts, base.trajectory.tau, base.trajectory.loss))))
        say(f"    flow λ = {TINY}: {spread(times['flow ' + TINY])} s; status {tiny.status.name}{bound}, "
            f"{tiny.stats['nfev']} + {tiny.stats.get('check_nfev', 0)} field evaluations, {len(tiny.events)} events")
        say(f"    jumps (compared, not required to agree: the flow depends on λ at order 1/ln(1/λ), and λ = 1e-40 is "
            f"further from the λ → 0 limit, docs/engines.md): {out['tiny'].text}; losses at λ = 1e-40's comparison "
            f"points differ by at most {plate:.3g}")
        say(f"    RATIO flow time λ = {TINY} / λ = 1e-40: {spread(out['tiny_ratio'])} (target ≤ 3)")
    return out


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                              cwd=os.path.dirname(os.path.abspath(__file__))).stdout.rstrip()
    except (OSError, subprocess.SubprocessError):
        return ""


def header(rounds: int, quick: bool) -> str:
    """What was measured: the commit, and the tracked files of the working tree that differ from it (the bench
    measures the code it imports, committed or not)."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    changed = [line[3:] for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()
               if line[3:].endswith(".py") and not line[3:].startswith("tests/")]
    if changed:
        commit += f" with uncommitted changes to {', '.join(changed)}"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"bench.race{' --quick' if quick else ''}: commit {commit}, {now}, {rounds} round(s), OPENBLAS_NUM_THREADS="
            f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, {os.cpu_count()} CPUs, load average "
            f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.race", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small instances, one round (a smoke test)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of interleaved timed runs")
    parser.add_argument("--seed", type=int, default=None, help="instance seed (0; 1 with --quick)")
    parser.add_argument("--skip", choices=("orthonormal", "general"), help="leave one part out")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    if args.rounds is not None:
        if args.rounds < 1:
            parser.exit(2, f"{parser.prog}: error: --rounds must be ≥ 1, got {args.rounds}\n")
        cfg = dataclasses.replace(cfg, rounds=args.rounds)
    seed = cfg.seed if args.seed is None else args.seed

    def say(line: str) -> None:
        print(line, flush=True)

    say(header(cfg.rounds, args.quick))
    if args.skip != "orthonormal":
        orthonormal_race(cfg, seed, say)
    if args.skip != "general":
        general_race(cfg, seed, say)
    return 0


if __name__ == "__main__":
    sys.exit(main())
