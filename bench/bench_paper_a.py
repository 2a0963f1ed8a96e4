"""Benchmark: paper A's batched GD simulator against plain per-run GD, as the papers ran it.

Workload: the threshold experiment at one d (S_G(d, 1) data, IG(1e-3, m), η = 0.05), every (n, seed)
of the reduced grid. Three ways, same problems, same initializations:

1. naive: plain GD (the core `descend` on one problem, float64, fixed η) on each problem in turn for the whole budget;
2. batched, same budget: `train_batch` on one stack per n (all seeds, as `threshold_sweep` does), no
   early stop: the final losses must agree with (1) to rounding (same arithmetic, other summation order);
3. batched with the stationarity rule: the interpolation / non-interpolation classification (ratio
   L/L_OLS against 1e-3) must agree with (1);
4. as 3 plus step-size control (η grows ×1.5 per accepted window up to ``--lr-factor`` · η₀, halves on a
   rise), the same flow-time budget: what `threshold_batch` uses.

    python3 -m bench.bench_paper_a [--d 3] [--steps 20000] [--m 100]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.initializations import gaussian
from relucheck.numerics.paper_a_training import INTERPOLATION_RATIO, threshold_grid, train_batch


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--m", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lr-factor", type=float, default=16.0)
    args = ap.parse_args(argv)
    d, lr = args.d, 0.05
    probs, inits, ref = [], [], []
    for n in threshold_grid(d, "reduced"):
        for seed in range(args.seeds):
            rng = np.random.default_rng([seed, n, d, 61])
            X = rng.standard_normal((n, d))
            y = X[:, 0] + rng.standard_normal(n)
            r = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
            probs.append((X, y))
            inits.append(gaussian(args.m, d, 1e-3, rng))
            ref.append(r @ r / (2 * n))
    ref = np.array(ref)
    print(f"{len(probs)} problems, d = {d}, n ∈ {threshold_grid(d, 'reduced')}, m = {args.m}, {args.steps} steps")

    t0 = time.perf_counter()
    naive = []
    for (X, y), (a0, W0) in zip(probs, inits):
        a, W = a0.copy(), W0.copy()
        descend(GDBatch.shared(X, y), a, W, lr, args.steps)
        Z = X @ W.T
        r = y - np.maximum(Z, 0) @ a
        naive.append(r @ r / (2 * len(y)))
    t_naive = time.perf_counter() - t0
    naive = np.array(naive)

    ns = np.array([len(y) for _, y in probs])

    def batched(**kw):
        loss, status, seconds = np.empty(len(probs)), [""] * len(probs), 0.0
        for n in np.unique(ns):
            idx = np.flatnonzero(ns == n)
            P = GDBatch.stack([probs[i] for i in idx])
            res = train_batch(P, np.array([inits[i][0] for i in idx]), np.array([inits[i][1] for i in idx]), lr,
                              args.steps, **({"loss_ref": ref[idx]} if "loss_ref" in kw else {}),
                              **{k: v for k, v in kw.items() if k != "loss_ref"})
            loss[idx], seconds = res.loss, seconds + res.seconds
            for j, i in enumerate(idx):
                status[i] = res.status[j]
        return loss, status, seconds

    same_loss, _, same_s = batched(check_every=args.steps)
    stop_loss, stop_status, stop_s = batched(loss_ref=True, interp_ratio=0.1 * INTERPOLATION_RATIO, check_every=1000)
    ada_loss, ada_status, ada_s = batched(loss_ref=True, interp_ratio=0.1 * INTERPOLATION_RATIO, check_every=1000,
                                          max_lr_factor=args.lr_factor)
    rel = np.abs(same_loss - naive) / np.maximum(naive, 1e-300)
    cls_naive = naive / ref < INTERPOLATION_RATIO
    cls_stop = stop_loss / ref < INTERPOLATION_RATIO
    counts = {s: stop_status.count(s) for s in sorted(set(stop_status))}
    print(f"naive per-run GD:             {t_naive:8.2f} s")
    print(f"batched, same budget:         {same_s:8.2f} s   speed-up ×{t_naive / same_s:.2f}; "
          f"max relative difference of final losses {rel.max():.2e}")
    print(f"batched + stationarity rule:  {stop_s:8.2f} s   speed-up ×{t_naive / stop_s:.2f}; "
          f"classification agrees on {int((cls_naive == cls_stop).sum())}/{len(probs)} problems; statuses {counts}")
    cls_ada = ada_loss / ref < INTERPOLATION_RATIO
    counts = {s: ada_status.count(s) for s in sorted(set(ada_status))}
    print(f"+ step-size control (×{args.lr_factor:g}): {ada_s:8.2f} s   speed-up ×{t_naive / ada_s:.2f}; "
          f"classification agrees on {int((cls_naive == cls_ada).sum())}/{len(probs)} problems; statuses {counts}")


if __name__ == "__main__":
    main()
