"""Benchmark: vectorized Algorithm 1 (theory.limit_process) against two naive implementations of the same
algorithm, measured in the same run on the same instances (paper C, spec §2.3).

* naive loop: pure Python, recomputes every S_j^{(k)} = A_j ∩ U_k by looping over data and neurons;
* spec pseudocode: numpy, recomputes the full n×m masked sums at every iteration (O(nmK)).

The vectorized version re-sums only the still-unfitted rows (O(Σ_k |U_k| m) ≈ O(nm)).
Usage (from the repository root): python3 -m bench.bench_algorithm1 [--quick]
Jump times are compared at relative 1e-9: late τ_k come from exponents u_j = 1 − Σ dt·rate that have lost
most of their size by cancellation, so summation order alone moves them by ~1e-11 relative.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from relucheck.theory.limit_process import limit_process, rate_constant


def naive_loop(y, s, act):
    """Algorithm 1 with Python loops; returns the jump times and the fitted neurons."""
    n, m = act.shape
    c = rate_constant(n)
    A = [[bool(act[i, j]) and s[j] * y[i] > 0 for j in range(m)] for i in range(n)]
    unfitted, fitted = set(range(n)), set()
    u, tau, jumps = [1.0] * m, 0.0, []
    while True:
        S = {j: [i for i in range(n) if i in unfitted and A[i][j]] for j in range(m) if j not in fitted}
        rate = {j: c * math.sqrt(sum(y[i] ** 2 for i in S[j])) for j in S}
        cand = [j for j in S if S[j]]
        if not cand:
            return jumps
        j = min(cand, key=lambda k: (u[k] / rate[k], k))
        dt = u[j] / rate[j]
        tau += dt
        for k in S:
            u[k] = max(u[k] - dt * rate[k], 0.0)
        jumps.append((tau, j))
        fitted.add(j)
        unfitted -= set(S[j])


def spec_pseudocode(y, s, act):
    """The spec's §2.3 pseudocode: full masked sums at every iteration."""
    n, m = act.shape
    c = rate_constant(n)
    A = act & (np.outer(y, s) > 0)
    U, F, u, tau, jumps = np.ones(n, bool), np.zeros(m, bool), np.ones(m), 0.0, []
    while True:
        S = A & U[:, None]
        rate = c * np.sqrt((S * (y**2)[:, None]).sum(0))
        cand = ~F & (rate > 0)
        if not cand.any():
            return jumps
        hit = np.where(cand, u / np.where(cand, rate, 1.0), np.inf)
        j = int(np.argmin(hit))
        dt = hit[j]
        u[~F] -= dt * rate[~F]
        tau += dt
        jumps.append((tau, j))
        F[j] = True
        U &= ~S[:, j]


def best_of(fn, repeats, *args):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args(argv)
    sizes = [(1000, 20), (10000, 50)] if args.quick else [(1000, 20), (10000, 50), (100000, 100)]
    print(f"{'n':>7} {'m':>4} {'K':>4} {'vectorized s':>13} {'pseudocode s':>13} {'ratio':>7} {'naive loop s':>13} {'ratio':>8}")
    for n, m in sizes:
        rng = np.random.default_rng([2026, n, m])
        y, s, act = rng.standard_normal(n), rng.choice([-1.0, 1.0], m), rng.standard_normal((n, m)) > 0
        t_vec, lp = best_of(limit_process, 3, y, s, act)
        t_spec, spec = best_of(spec_pseudocode, 1, y, s, act)
        ref = [(jp.tau, jp.neuron) for jp in lp.jumps]
        assert [j for _, j in spec] == [j for _, j in ref]
        np.testing.assert_allclose([t for t, _ in spec], [t for t, _ in ref], rtol=1e-9)
        if n * m <= 10**6:
            t_naive, naive = best_of(naive_loop, 1, y, s, act)
            assert [j for _, j in naive] == [j for _, j in ref]
            naive_cols = f"{t_naive:13.4f} {t_naive / t_vec:8.1f}"
        else:
            naive_cols = f"{'(skipped)':>13} {'-':>8}"
        print(f"{n:>7} {m:>4} {len(ref):>4} {t_vec:13.4f} {t_spec:13.4f} {t_spec / t_vec:7.1f} {naive_cols}")


if __name__ == "__main__":
    main()
