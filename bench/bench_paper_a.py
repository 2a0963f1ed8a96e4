"""Benchmark: paper A's simulator against plain single-problem gradient descent, in one run.

Workload: the threshold experiment at one d (`threshold_problem`: S_G(d, 1) data, IG(1e-3, m), η₀ = 0.05), every
(n, seed) of ``--ns`` × ``--seeds``, flow-time budget η₀ · ``--steps``. Ways, on the same problems and initializations:

1. plain GD: θ ← θ + η₀ F(θ) with `numerics.network.field`, float64, one problem at a time for the whole budget
   (what the papers ran, and what numerics/gd.py was). Its loss is recorded every 100 steps with the time;
2. the GD core on one problem (`numerics.flows.batched_gd.descend`, float64, fixed η₀): the same arithmetic by
   blocks of data rows (the part of the gain that is memory traffic, not the algorithm);
3. the simulator as the threshold sweep runs it (`threshold_batch` per n: the seeds of one n in one stack, the
   stopping rules and the step-size control of `train_batch`), with the field in float64 and in float32 (the
   protocol's; state and decisions in float64).

Times are CPU seconds of this process (`time.process_time`, single-threaded BLAS: the wall time on an idle machine,
and insensitive to other jobs on a shared one). Printed: times and ratios to (1); "at equal final loss": the time
plain GD needs to reach each problem's final simulator loss (its whole run where it never does) against the
simulator's; the interpolation verdict L/L_OLS < 1e-3 per problem and the median L/L_OLS per n (the experiment's
output). GD near the threshold is chaotic (saddle escapes amplify rounding), so per-problem losses of any two
implementations differ there; the verdicts per n are what must agree.

    OPENBLAS_NUM_THREADS=1 python3 -m bench.bench_paper_a [--d 10] [--ns 64,256,1024] [--seeds 3] [--steps 20000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.network import field
from relucheck.numerics.paper_a_training import (INSTABILITY_RISE, INTERPOLATION_RATIO, THRESHOLD_PROTOCOL, threshold_batch,
                                                 threshold_problem)

RECORD_EVERY = 100


def plain_gd(X, y, a, W, lr: float, steps: int):
    """The naive loop; returns [(step, loss, CPU seconds)] every RECORD_EVERY steps and at the end."""
    start, out = time.process_time(), []
    for k in range(steps + 1):
        if k % RECORD_EVERY == 0 or k == steps:
            r = y - np.maximum(X @ W.T, 0) @ a
            out.append((k, float(r @ r) / (2 * len(y)), time.process_time() - start))
        if k < steps:
            da, dW = field(X, y, a, W)
            a, W = a + lr * da, W + lr * dW
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--ns", default="64,256,1024")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--m", type=int, default=THRESHOLD_PROTOCOL["m"])
    ap.add_argument("--steps", type=int, default=20000, help="budget in steps of η₀ (flow time η₀ · steps)")
    args = ap.parse_args(argv)
    proto = dict(THRESHOLD_PROTOCOL, m=args.m, max_steps=args.steps)
    d, lr, ns, seeds = args.d, proto["lr"], [int(v) for v in args.ns.split(",")], list(range(args.seeds))
    problems = [threshold_problem(d, n, s, m=args.m, lam=proto["lam"], sigma=proto["sigma"], n_test=proto["n_test"])
                for n in ns for s in seeds]
    ref = np.array([p["train_ols"] for p in problems])
    n_of = np.array([p["n"] for p in problems])
    print(f"{len(problems)} problems, d = {d}, n ∈ {ns}, seeds {seeds}, m = {args.m}, budget {args.steps} steps of "
          f"η₀ = {lr} (flow time {lr * args.steps:g}); simulator: η ≤ {proto['lr_factor']:g} η₀, checks every "
          f"{proto['check_every']} steps")

    wall = time.perf_counter()
    plain = [plain_gd(p["X"], p["y"], p["a0"].copy(), p["W0"].copy(), lr, args.steps) for p in problems]
    t_plain = np.array([rec[-1][2] for rec in plain])
    loss_plain = np.array([rec[-1][1] for rec in plain])

    t_core, loss_core = np.empty(len(problems)), np.empty(len(problems))
    for b, p in enumerate(problems):
        a, W = p["a0"].copy(), p["W0"].copy()
        t0 = time.process_time()
        loss_core[b] = float(descend(GDBatch.shared(p["X"], p["y"]), a, W, lr, args.steps)[1].loss())
        t_core[b] = time.process_time() - t0

    sims = {}
    for dtype in ("float64", "float32"):
        seconds, rows = {}, []
        for n in ns:  # as the sweep runs it: the seeds of one n in one stack
            t0 = time.process_time()
            rows += threshold_batch(d, [n], seeds, **dict(proto, dtype=dtype))
            seconds[n] = time.process_time() - t0
        sims[dtype] = (seconds, rows)

    def per_n(loss):
        return "  ".join(f"{n}: {np.median((loss / ref)[n_of == n]):.2g}" for n in ns)

    def times(t_by_n):
        return "  ".join(f"{n}: {t_by_n[n]:.1f} s (×{t_plain[n_of == n].sum() / t_by_n[n]:.2f})" for n in ns)

    # plain GD's stability: records (every 100 steps) whose loss rose by more than the simulator's INSTABILITY_RISE
    rises = sum(int(np.sum(np.diff([L for _, L, _ in rec]) > INSTABILITY_RISE * np.array([L for _, L, _ in rec[:-1]])))
                for rec in plain)
    print(f"\n{'way':<32} {'CPU s':>7} {'× plain':>8}   median L/L_OLS per n;   CPU s per n (× plain)")
    print(f"{'plain GD (network.field loop)':<32} {t_plain.sum():7.1f} {1.0:8.2f}   {per_n(loss_plain)};   "
          f"{times({n: t_plain[n_of == n].sum() for n in ns})}")
    print(f"{'':<32} {rises} of {sum(len(rec) - 1 for rec in plain)} records with a loss rise > {INSTABILITY_RISE:g}")
    print(f"{'GD core, one problem, float64':<32} {t_core.sum():7.1f} {t_plain.sum() / t_core.sum():8.2f}   "
          f"{per_n(loss_core)};   {times({n: t_core[n_of == n].sum() for n in ns})}")
    print(f"{'':<32} max |ΔL|/L against plain GD {np.max(np.abs(loss_core - loss_plain) / loss_plain):.1e}")
    for dtype, (seconds, rows) in sims.items():
        total = sum(seconds.values())
        loss = np.array([r["train"] for r in rows])
        status = [r["status"] for r in rows]
        # plain GD's time to reach this simulator's final loss on each problem (its whole run where it never does)
        equal = sum(next((s for _, L, s in rec if L <= loss[b]), rec[-1][2]) for b, rec in enumerate(plain))
        agree = int(np.sum((loss / ref < INTERPOLATION_RATIO) == (loss_plain / ref < INTERPOLATION_RATIO)))
        counts = {s: status.count(s) for s in sorted(set(status))}
        print(f"{'simulator, field ' + dtype:<32} {total:7.1f} {t_plain.sum() / total:8.2f}   {per_n(loss)};   "
              f"{times(seconds)}")
        print(f"{'':<32} at equal final loss: plain GD {equal:.1f} s, ratio {equal / total:.2f}; verdicts agree with "
              f"plain GD on {agree}/{len(rows)}; statuses {counts}; steps {sum(r['steps'] for r in rows)} "
              f"(plain {args.steps * len(rows)})")
    print(f"\nwall time of the benchmark: {time.perf_counter() - wall:.0f} s")


if __name__ == "__main__":
    main()
