"""Benchmark: the cost of one step of engine "gd" (through `solve`, the loop included) against a bare numpy GD step.

Instance: general data, n = 64 inputs uniform on S^15 (d = 16), m = 16 neurons, y ~ N(0, 1)
(`random_general_instance`), balanced start at λ. Measured in one run, in interleaved rounds (a round times both
sides once each, so that load on the shared machine hits both alike):

* relucheck: ``solve(problem, "gd", step=η)`` over ``--steps`` GD steps (horizon = steps · η in t units) with the
  loss sampled at 101 times (as the checks and ``relucheck flow --times`` ask), wall (``--cpu``: CPU) time divided by
  the engine's own count of GD steps (``stats["gd_steps"]``). ``--every-step``: no sample times, so that the
  trajectory holds every step end (the engine takes K GD steps per call either way and the loop records every step
  end: `numerics.flows.step_ends`);
* bare numpy: the same number of steps of plain full-batch GD in raw coordinates on the same network (Z = X Wᵀ,
  σ'(0) = 0, r = y − σ(Z) a, D = (1{Z > 0} ⊙ r)ᵀ X / n, a += η ⟨w_j, D_j⟩, W += η a_j D_j) from θ(0) = λ θ̂ at
  λ = 1e-10 (raw float64 cannot hold 1e-1000: at that λ the numpy side runs from λ = 1e-10 too, the same
  arithmetic per step).

Prints the per-step times (median over rounds) and their ratio (issue 22, item 4: target ≤ 1.5). Run:
``OPENBLAS_NUM_THREADS=1 nice python -m bench.bench_gd_step [--lam 1e-10] [--steps 20000] [--rounds 5]``; the run of
issue 22, item 4 (τ = 40 at λ = 1e-10, the jump rule included): ``--tau 40 --eta 0.03125 --every-step``; without
horizon (the settling rule read at every step end): ``--tau 0``; ``--cpu`` for CPU time on a loaded machine.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.testing.strategies import random_general_instance


def bare_gd(X, y, a, W, eta: float, steps: int):
    """Plain numpy GD in raw coordinates (paper A/C convention: scale 1, time factor 1)."""
    n = len(y)
    c = eta / n
    for _ in range(steps):
        Z = X @ W.T
        act = Z > 0
        r = y - (Z * act) @ a
        D = (act * r[:, None]).T @ X
        da = np.einsum("jk,jk->j", W, D)
        W += (c * a)[:, None] * D
        a += c * da
    return a, W


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lam", default="1e-10")
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--eta", type=float, default=0.01, help="GD step in t units")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every-step", action="store_true", help="no sample times: the loop records every GD step")
    parser.add_argument("--tau", type=float, default=None,
                        help="horizon in τ instead of --steps (0: none, the run stops where it settles or at τ = 100)")
    parser.add_argument("--cpu", action="store_true", help="CPU time (time.process_time) instead of wall time")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    inst = random_general_instance(64, 16, 16, args.seed)
    if args.tau is None:
        horizon = args.steps * args.eta
        save_at = None if args.every_step else tuple(np.linspace(0.0, horizon, 101))
        problem = FlowProblem.from_instance(inst, args.lam, horizon=horizon, time_unit="t", save_at=save_at)
    else:  # (issue 22, item 4: τ = 40 at η = 0.03125, jumps and the jump rule included)
        horizon = args.tau or None
        save_at = None if args.every_step or not horizon else tuple(np.linspace(0.0, horizon, 101))
        problem = FlowProblem.from_instance(inst, args.lam, horizon=horizon, save_at=save_at)
        args.steps = 10 ** 7
    a0 = 1e-10 * inst.signs.astype(float)
    W0 = 1e-10 * np.asarray(inst.directions, dtype=float)
    ours, bare = [], []
    for _ in range(args.rounds):
        start = clock()
        res = solve(problem, "gd", step=args.eta, max_steps=args.steps + 10)
        ours.append((clock() - start) / res.stats["gd_steps"])
        start = clock()
        bare_gd(inst.inputs, inst.labels, a0.copy(), W0.copy(), args.eta, res.stats["gd_steps"])
        bare.append((clock() - start) / res.stats["gd_steps"])
    ours_t, bare_t = float(np.median(ours)), float(np.median(bare))
    ratios = [o / b for o, b in zip(ours, bare)]
    print(f"general n = 64, d = 16, m = 16, λ = {args.lam}, η = {args.eta:g} (t units), {res.stats['gd_steps']} steps"
          f"{'' if args.tau is None else f' (τ = {res.end:.4g}, {len(res.jumps)} jumps)'}, {'CPU' if args.cpu else 'wall'} time, "
          f"{'every step recorded' if args.every_step else '101 sample times'}, {args.rounds} interleaved rounds, "
          f"GD steps per call {res.stats.get('gd_steps_per_call', 1)}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
          f"status {res.status.name.lower()}, final loss {res.final_loss:.6g}")
    print(f"  engine gd (solve, loop included): {ours_t * 1e6:.1f} µs/step (rounds: "
          f"{', '.join(f'{v * 1e6:.1f}' for v in ours)})")
    print(f"  bare numpy GD step:               {bare_t * 1e6:.1f} µs/step (rounds: "
          f"{', '.join(f'{v * 1e6:.1f}' for v in bare)})")
    print(f"  ratio engine / bare: median {float(np.median(ratios)):.2f} (rounds: {', '.join(f'{r:.2f}' for r in ratios)}; "
          "target ≤ 1.5)")


if __name__ == "__main__":
    main()
