"""Benchmark: the CPU time of one step of paper A's simulator at d = 10, and its fit against n·m·d (issue 23 item 4).

What is timed: `numerics.flows.batched_gd.descend` (through `GDBatch.to(backend)`: numpy's blocked core, or
`batched_gd_xp.XPBatch` on JAX) on the stack that `paper_a_training.threshold_batch` trains for one (d, n): the
protocol's seeds (3) of `threshold_problem` data, IG(λ = 1e-3) initialization, the field in the protocol's float32,
the state in float64. A step is one field evaluation (Z = X Wᵀ, the pattern, r, D = patternᵀ(r ⊙ X)) and one update:
the dense work is the same at every state, so the step time of the first steps is the step time of a run (the
stopping-rule checks of `train_batch`, one float64 evaluation per ``check_every`` = 200 steps, add ≤ 1/200 of it).

How: CPU time (`time.process_time`: every thread of this process), BLAS limited to one thread (threadpoolctl), JAX's
CPU client to one thread (XLA_FLAGS, set before JAX is imported), so that the figures are per core and do not
depend on other jobs sharing the machine (wall time would: it is printed too, for reference only). Rounds are
interleaved (each round times every (backend, size) once) and the median over rounds is reported; each timing runs
enough steps for ``--min-cpu`` seconds.

The fit: t_step = c · B·n·m·d per backend, c read over the sizes with B·n·m·d ≥ ``--fit-from`` (smaller ones sit in
the caches and cost less per unit; `fit`); the smallest, median and largest c are printed. The estimate of the
threshold protocol's cost at paper scale (`--estimate`) applies it to the paper grid (geometric, ratio 1.5,
n = 10³ … 10⁵) and widths m, for a number of steps per problem between the flow-time budget at the largest step
(T / (lr_factor · lr)) and the step budget (max_steps) of `THRESHOLD_PROTOCOL`, at the largest c. Run (from the repository root):

    nice -n 2 python -m bench.a_step_cost --backends numpy,jax --rounds 3 --estimate
    nice -n 2 python -m bench.a_step_cost --protocol-run 1536x400     # the steps one protocol batch takes
    python -m bench.a_step_cost --gpu-bandwidth 1555                  # a GPU's roofline: an ESTIMATE, not measured
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

from relucheck.numerics import paper_a_training as pa  # noqa: E402
from relucheck.numerics.flows.batched_gd import GDBatch, descend  # noqa: E402

DEFAULT_SIZES = "1000x100,4000x100,1000x1000,4000x1000,16000x1000,4000x4000"
PAPER_NS = [1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304]


def stack(d: int, n: int, m: int, seeds, backend: str):
    """The threshold protocol's stack for one (d, n) (as `threshold_batch` builds it) on ``backend``, and its start."""
    proto = pa.THRESHOLD_PROTOCOL
    probs = [pa.threshold_problem(d, n, s, m=m, lam=proto["lam"], sigma=proto["sigma"], n_test=1) for s in seeds]
    P = GDBatch.stack([(p["X"], p["y"]) for p in probs], dtype=np.dtype(proto["dtype"])).to(backend)
    return P, np.array([p["a0"] for p in probs]), np.array([p["W0"] for p in probs])


def time_steps(P, a0, W0, steps: int) -> tuple[float, float]:
    """CPU and wall seconds of ``steps`` GD steps from (a0, W0) (copies: every timing starts from the same state)."""
    a, W = a0.copy(), W0.copy()
    eta = np.full(a.shape[0], pa.THRESHOLD_PROTOCOL["lr"])
    c0, w0 = time.process_time(), time.perf_counter()
    descend(P, a, W, eta, steps)
    return time.process_time() - c0, time.perf_counter() - w0


def measure(backends, sizes, d: int, seeds, rounds: int, min_cpu: float) -> dict:
    """Median CPU (and wall) seconds per step of each (backend, n, m), over interleaved rounds."""
    cases = {(b, n, m): stack(d, n, m, seeds, b) for b in backends for n, m in sizes}
    steps = {}
    for key, (P, a0, W0) in cases.items():  # warm-up (workspaces, JAX's dispatch caches) and calibration
        time_steps(P, a0, W0, 2)
        cpu, _ = time_steps(P, a0, W0, 3)
        steps[key] = max(3, int(np.ceil(min_cpu / max(cpu / 3, 1e-6))))
    cpu_runs = {key: [] for key in cases}
    wall_runs = {key: [] for key in cases}
    for r in range(rounds):
        for key, (P, a0, W0) in cases.items():
            cpu, wall = time_steps(P, a0, W0, steps[key])
            cpu_runs[key].append(cpu / steps[key])
            wall_runs[key].append(wall / steps[key])
        print(f"round {r + 1}/{rounds} done", flush=True)
    return {key: dict(cpu=statistics.median(cpu_runs[key]), cpu_all=cpu_runs[key],
                      wall=statistics.median(wall_runs[key]), steps=steps[key]) for key in cases}


def fit(rows, d: int, B: int, x_from: float) -> tuple[float, float, float, int]:
    """The cost per unit of B·n·m·d, t_step / (B·n·m·d), over the sizes with B·n·m·d ≥ ``x_from``: (smallest, median,
    largest, how many sizes). Below ``x_from`` the arrays of a step fit the caches and a unit costs less (measured
    0.086–0.105 ns against 0.106–0.130 ns, numpy): paper scale is far above, so only the large sizes are fitted, and the
    estimate takes the largest (the rise with size is not extrapolated: a stated assumption)."""
    c = [t / (B * n * m * d) for n, m, t in rows if B * n * m * d >= x_from]
    if not c:
        raise SystemExit(f"no size with B·n·m·d ≥ {x_from:g} to fit")
    return min(c), statistics.median(c), max(c), len(c)


def estimate(c: float, d: int, B: int, widths, cores: int) -> list[str]:
    """Markdown rows: the protocol's CPU hours (and wall hours on ``cores`` cores) over the paper grid per width, at
    ``c`` seconds per unit of B·n·m·d."""
    proto = pa.THRESHOLD_PROTOCOL
    budget_t = proto["lr"] * proto["max_steps"]
    s_lo, s_hi = budget_t / (proto["lr_factor"] * proto["lr"]), proto["max_steps"]
    out = [f"| m | one step, n = 10⁵ (B = {B}) | all n = {PAPER_NS[0]} … {PAPER_NS[-1]}, {s_lo:.0f} steps each | "
           f"same, {s_hi} steps each | wall on {cores} cores |", "|---|---|---|---|---|"]
    for m in widths:
        total = sum(c * B * n * m * d for n in PAPER_NS)  # one step of every (d, n) stack of the grid
        lo, hi = s_lo * total / 3600, s_hi * total / 3600
        out.append(f"| {m} | {c * B * 100_000 * m * d:.2f} s | {lo:,.1f} CPU h | {hi:,.0f} CPU h | "
                   f"{lo / cores:,.1f} … {hi / cores:,.0f} h |")
    return out


# Bytes moved per entry of the (B, n, m) arrays in one step of `batched_gd_xp.XPBatch.field` in float32, op by op:
# Z = X Wᵀ written (4); Z > 0 read 4, write 1; astype read 1, write 4; Z ⊙ act read 8, write 4; (Z ⊙ act) a read 4;
# actᵀ (r ⊙ X) read 4. The (n, d), (m, d) operands are ≤ d/m of that. Peak memory: Z, the mask, act, Z ⊙ act live.
XP_BYTES_PER_ENTRY, XP_LIVE_BYTES_PER_ENTRY = 34, 13


def gpu_roofline(bandwidth_gbs: float, d: int, B: int, widths, steps) -> list[str]:
    """Markdown rows of an ESTIMATE, not a measurement: the step of the Array API simulator bound by memory traffic
    at the GPU's peak bandwidth (XP_BYTES_PER_ENTRY per entry; kernel launches and achieved bandwidth below peak make
    a real step slower: this is a lower bound on its time)."""
    out = [f"| m | one step, n = 10⁵ (B = {B}) | device memory at n = 10⁵ | all n = {PAPER_NS[0]} … {PAPER_NS[-1]}, "
           + " | ".join(f"{s} steps" for s in steps) + " |", "|---|---|---|" + "---|" * len(steps)]
    for m in widths:
        one = XP_BYTES_PER_ENTRY * B * 100_000 * m / (bandwidth_gbs * 1e9)
        total = sum(XP_BYTES_PER_ENTRY * B * n * m / (bandwidth_gbs * 1e9) for n in PAPER_NS)
        out.append(f"| {m} | ≥ {1e3 * one:.1f} ms | ≈ {XP_LIVE_BYTES_PER_ENTRY * B * 100_000 * m / 1e9:.0f} GB | "
                   + " | ".join(f"≥ {s * total / 3600:.2f} h" for s in steps) + " |")
    return out


def protocol_run(d: int, n: int, m: int, seeds, backend: str) -> None:
    """One (d, n) stack trained by the threshold protocol at width m: per seed the status, the steps taken and the
    flow time reached (how many steps a run takes, for the estimate), and the CPU time of the whole batch."""
    c0 = time.process_time()
    rows = pa.threshold_batch(d, [n], seeds, **{**pa.THRESHOLD_PROTOCOL, "m": m}, backend=backend)
    cpu = time.process_time() - c0
    for r in rows:
        print(f"protocol d = {d}, n = {n}, m = {m}, seed {r['seed']}: {r['status']}, {r['steps']} steps, flow time "
              f"{r['time']:.1f}, L/L_OLS = {r['ratio']:.3g}")
    print(f"protocol batch: {cpu:.1f} CPU s, {cpu / max(r['steps'] for r in rows) * 1e3:.2f} CPU ms per step of the "
          f"stack (the largest step count)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="numpy", help="comma-separated: numpy, jax, array_api_strict, torch, …")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated NxM (data, neurons)")
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=3, help="problems per stack (the protocol's seeds: 3)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-cpu", type=float, default=1.0, help="CPU seconds per timing")
    parser.add_argument("--estimate", action="store_true", help="print the paper-scale estimate from the fit")
    parser.add_argument("--widths", default="1000,2000,4000")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--protocol-run", metavar="NxM", help="instead: train one (d, n) stack at width M by the "
                        "protocol and print the steps it took")
    parser.add_argument("--gpu-bandwidth", type=float, metavar="GB/s",
                        help="instead: print the roofline ESTIMATE (not a measurement) of a GPU of this peak memory "
                             "bandwidth")
    parser.add_argument("--fit-from", type=float, default=1e8, help="fit the sizes with B·n·m·d at least this")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",")]
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    seeds = list(range(args.seeds))
    widths = [int(w) for w in args.widths.split(",")]
    if args.gpu_bandwidth:
        proto = pa.THRESHOLD_PROTOCOL
        steps = [int(proto["lr"] * proto["max_steps"] / (proto["lr_factor"] * proto["lr"])), proto["max_steps"]]
        print(f"ESTIMATE, not measured: memory-bound step at {args.gpu_bandwidth:g} GB/s peak, "
              f"{XP_BYTES_PER_ENTRY} B per entry of the (B, n, m) arrays")
        print("\n".join(gpu_roofline(args.gpu_bandwidth, args.d, args.seeds, widths, steps)))
        return
    if args.protocol_run:
        n, m = (int(v) for v in args.protocol_run.split("x"))
        with threadpool_limits(1):
            protocol_run(args.d, n, m, seeds, backends[0])
        return
    with threadpool_limits(1):
        blas = ", ".join(f"{i['internal_api']} {i.get('version')} ({i['num_threads']} thread)" for i in threadpool_info())
        print(f"a_step_cost: {platform.node()} {os.cpu_count()} CPUs, load {os.getloadavg()}, BLAS {blas}, "
              f"XLA_FLAGS={os.environ.get('XLA_FLAGS')!r}, d = {args.d}, B = {args.seeds}, "
              f"dtype {pa.THRESHOLD_PROTOCOL['dtype']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        result = measure(backends, sizes, args.d, seeds, args.rounds, args.min_cpu)
    print("\n| backend | n | m | B·n·m·d | CPU s/step (median) | CPU ns per n·m·d | rounds (CPU s/step) | wall s/step |")
    print("|---|---|---|---|---|---|---|---|")
    for (b, n, m), r in result.items():
        x = args.seeds * n * m * args.d
        print(f"| {b} | {n} | {m} | {x:.3g} | {r['cpu']:.4g} | {1e9 * r['cpu'] / x:.3f} | "
              f"{', '.join(f'{v:.4g}' for v in r['cpu_all'])} | {r['wall']:.4g} |")
    for b in backends:
        rows = [(n, m, r["cpu"]) for (bb, n, m), r in result.items() if bb == b]
        lo, med, hi, k = fit(rows, args.d, args.seeds, args.fit_from)
        print(f"\n{b}: t_step = c · B·n·m·d with c = {1e9 * lo:.3f} … {1e9 * hi:.3f} ns (median {1e9 * med:.3f}) over "
              f"the {k} sizes with B·n·m·d ≥ {args.fit_from:g}")
        if args.estimate:
            print(f"estimate at c = {1e9 * hi:.3f} ns (the largest):")
            print("\n".join(estimate(hi, args.d, args.seeds, widths, args.cores)))

if __name__ == "__main__":
    main()
