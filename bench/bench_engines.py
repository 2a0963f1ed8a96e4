"""Benchmark of the flow engines (issue 11, item 7); every ratio is against a baseline measured in the same run.

1. Orthonormal data, n = 256, m = 64, λ = 1e-40, through all of Algorithm 1's jumps: the "float64" engine (exact
   data basis) against the *bare numpy floor*: the field evaluations it needed, each timed as a minimal numpy
   evaluation of the same field (`bare_field`, the data-basis form of C eq. 7). Prints wall / (nfev × floor).
2. General data, n = 64, d = 16, m = 16, λ = 1e-40: field evaluations of "float64" against plain gradient descent
   ("gd", one evaluation per step) at equal loss-curve error. The error of a run is the largest difference of its
   loss to a reference "float64" run at rtol 1e-13 on 201 points of [0, horizon]; for each GD step size, the
   cheapest float64 run (rtol 1e-4 … 1e-12) with at most GD's error is compared. Prints GD nfev / flow nfev.

Run from the repository root: ``OPENBLAS_NUM_THREADS=1 python3 -m bench.bench_engines [--skip-gd] [--seed S]``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from relucheck.numerics import datasets
from relucheck.numerics.flows import FlowProblem, available_engines, solve
from relucheck.numerics.instances import Instance
from relucheck.testing.strategies import random_general_instance
from relucheck.theory.limit_process import limit_process_of


def orthonormal_instance(seed: int, n: int = 256, m: int = 64) -> Instance:
    rng = np.random.default_rng(seed)
    return Instance(np.eye(n), rng.standard_normal(n), datasets.random_directions(m, n, rng),
                    datasets.random_signs(m, rng))


def bare_field(y, C, a, rho, act, L):
    """The data-basis field with numpy only: residuals, effective residuals, (u_a, u_w), g, dρ, dφ."""
    n = len(y)
    e = np.exp(2 * rho)
    r = y - (C.T * act) @ (e * a)
    V = act * r[:, None]
    ua = (V * C.T).sum(0) / n
    uw = a[None, :] * V / n
    g = 2 * a * ua
    return L * g, L * (ua - g * a), L * (uw - g[None, :] * C.T)


def floor_seconds(n: int, m: int, seed: int, repeats: int = 2000) -> float:
    rng = np.random.default_rng(seed)
    y, C, a, rho = rng.standard_normal(n), rng.standard_normal((m, n)), rng.standard_normal(m), rng.standard_normal(m)
    act = (rng.random((n, m)) > 0.5).astype(float)
    best = np.inf
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            bare_field(y, C, a, rho, act, 92.1)
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def orthonormal_benchmark(seed: int) -> None:
    inst = orthonormal_instance(seed)
    lp = limit_process_of(inst)
    horizon = lp.jumps[-1].tau + 0.5
    problem = FlowProblem.from_instance(inst, "1e-40", horizon=horizon)
    start = time.perf_counter()
    res = solve(problem, "float64")
    wall = time.perf_counter() - start
    floor = floor_seconds(inst.n, inst.m, seed)
    nfev = res.stats["nfev"]
    print(f"[1] orthonormal n = {inst.n}, m = {inst.m}, λ = 1e-40, τ ∈ [0, {horizon:.3f}] (Algorithm 1: "
          f"{len(lp.jumps)} jumps): status {res.status.name}, {len(res.events)} events, {len(res.jumps)} jumps, "
          f"{res.stats['steps']} steps, {nfev} field evaluations")
    print(f"    wall {wall:.2f} s; bare numpy field {floor * 1e6:.1f} µs × {nfev} = {floor * nfev:.2f} s; "
          f"ratio wall / floor = {wall / (floor * nfev):.2f} (target ≤ 3)")


def loss_error(res, ref) -> float:
    return float(np.abs(res.trajectory.loss - ref.trajectory.loss).max())


def general_benchmark(seed: int, steps=(0.1, 0.02, 0.004, 0.0004)) -> None:
    if "gd" not in available_engines():
        print("[2] skipped: no engine 'gd' is registered")
        return
    inst = random_general_instance(64, 16, 16, seed)
    probe = solve(FlowProblem.from_instance(inst, "1e-40", horizon=None, max_horizon=20.0), "float64")
    horizon = float(probe.end)
    times = tuple(np.linspace(0, horizon, 201))
    problem = FlowProblem.from_instance(inst, "1e-40", horizon=horizon, save_at=times)
    ref = solve(problem, "float64", rtol=1e-13, atol=1e-15)
    flows = {rtol: solve(problem, "float64", rtol=rtol, atol=rtol * 1e-2) for rtol in (1e-4, 1e-6, 1e-8, 1e-10, 1e-12)}
    print(f"[2] general n = 64, d = 16, m = 16, λ = 1e-40, τ ∈ [0, {horizon:.3f}] (where the flow settles): "
          f"{len(ref.events)} events, max sliding codimension {ref.stats['max_sliding_codimension']}")
    for rtol, res in flows.items():
        print(f"    float64 rtol {rtol:.0e}: {res.stats['nfev']} evaluations, loss-curve error {loss_error(res, ref):.2e}")
    for step in steps:
        start = time.perf_counter()
        gd = solve(problem, "gd", step=step, max_steps=10**9)
        seconds = time.perf_counter() - start
        err = loss_error(gd, ref)
        ok = [r for r in flows.values() if loss_error(r, ref) <= err]
        if not ok:
            print(f"    GD step {step}: error {err:.2e}; no float64 run is that coarse")
            continue
        best = min(ok, key=lambda r: r.stats["nfev"])
        gd_nfev = gd.stats.get("nfev", gd.stats["steps"])
        print(f"    GD step {step}: {gd_nfev} evaluations ({seconds:.1f} s), error {err:.2e}; cheapest float64 run "
              f"as accurate: {best.stats['nfev']} evaluations; ratio GD / flow = {gd_nfev / best.stats['nfev']:.0f} "
              "(target ≥ 100)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-gd", action="store_true", help="only the orthonormal benchmark")
    args = parser.parse_args()
    orthonormal_benchmark(args.seed)
    if not args.skip_gd:
        general_benchmark(args.seed)


if __name__ == "__main__":
    main()
