"""Benchmark: paper B's batched GD (numerics.paper_b_sim.batch_gd) against the naive way, one seed at a
time (the GD core `numerics.flows.batched_gd.descend` on one run, no batch axis), on the same runs in the same
process; and the stacked matmul of the core's products (one small gemm per run) against one big (B·p, d) gemm
and einsum. Prints times and ratios.

    python3 -m bench.bench_paper_b [--runs 32] [--steps 200]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from relucheck.numerics import paper_b_sim as sim
from relucheck.numerics.flows.batched_gd import descend


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=32)
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    n, d, p = 150, 30, 28
    X, y = sim.experiment_data(n, d, 0)
    A, W = sim.paper_b_init(args.runs, p, d, 1)

    t0 = time.perf_counter()
    run = sim.batch_gd(X, y, A, W, 1.0, args.steps)
    t_batch = time.perf_counter() - t0

    t0 = time.perf_counter()
    one_run = sim.runs_of(X, y, p)
    finals = [(A[b].copy(), W[b].copy()) for b in range(args.runs)]
    for a_b, W_b in finals:
        descend(one_run, a_b, W_b, 1.0, args.steps)
    t_naive = time.perf_counter() - t0
    err = max(float(np.max(np.abs(run.W[b] - finals[b][1]))) for b in range(args.runs))
    print(f"GD, {args.runs} seeds × {args.steps} steps (n = {n}, d = {d}, p = {p}): batched {t_batch:.3f} s, "
          f"per-seed loop {t_naive:.3f} s, ratio {t_naive / t_batch:.1f}× (max |ΔW| {err:.2g})")

    B = args.runs
    G = np.random.default_rng(2).standard_normal((B, p, n))
    XT = np.ascontiguousarray(X.T)
    for label, fast, others in [
        ("W Xᵀ", lambda: W @ XT, {"one (B·p, d) gemm": lambda: (W.reshape(B * p, d) @ X.T).reshape(B, p, n),
                                   "einsum": lambda: np.einsum("bpd,nd->bpn", W, X)}),
        ("G X", lambda: G @ X, {"one (B·p, n) gemm": lambda: (G.reshape(B * p, n) @ X).reshape(B, p, d),
                                "einsum": lambda: np.einsum("bpn,nd->bpd", G, X)}),
    ]:
        tf = _time(fast)
        parts = ", ".join(f"{name} {_time(f) * 1e3:.2f} ms (ratio {_time(f) / tf:.1f}×)" for name, f in others.items())
        print(f"{label}: stacked matmul {tf * 1e3:.2f} ms; {parts}")


def _time(f, reps: int = 100) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        f()
    return (time.perf_counter() - t0) / reps

if __name__ == "__main__":
    main()
