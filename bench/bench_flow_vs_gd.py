"""Benchmark: event-aware flow engines against plain gradient descent (the papers' way) for paper C's jump times.

Instance: n = 64 orthonormal inputs x_i = e_i in ℝ^64 (the papers' setting), m = 16 neurons, y ~ N(0,1), random signs
(C Assumption 3), λ = 1e-40. Everything below is measured in this run:

1. reference: the "float64" flow engine of `numerics.flows` (data basis) at rtol 1e-12 gives the flow's own jump
   times τ̂_k at λ = 1e-40;
2. plain GD in raw coordinates (the batched GD core on one problem, `numerics.flows.batched_gd.descend`, one field
   evaluation per step) with
   learning rates η = 0.05, 0.02, 0.01, 0.005, 0.002: jump times by the same half-fit rule (`sampled_jump_times`) with
   τ = k η / ln(1/λ); its error is max_k |τ_k^GD − τ̂_k| (first order in η);
3. the event-aware flow ("float64" in the inputs basis and in the data basis) at rtol 1e-2 … 1e-10: the cheapest run whose
   error is at most GD's (at each η) is the one compared.

The printed ratios are GD field evaluations / flow field evaluations (and wall times) at equal jump-time
error. A last line shows plain GD on a randomly rotated basis, where float64 rounding in the activation
test breaks Assumption 2 at λ = 1e-40 (a finding, see docs/paper_c_flow.md). Run:
``nice python3 -m bench.bench_flow_vs_gd [--seed S] [--lrs 0.05,0.02,0.01,0.005,0.002]``.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from relucheck.numerics import datasets
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.initializations import balanced
from relucheck.numerics.instances import Instance
from relucheck.numerics.scale import InitScale
from relucheck.proofs_checks.checks.paper_c_runs import run_flow, sampled_jump_times
from relucheck.theory.limit_process import limit_process_of

LAM = "1e-40"
COMPARED_JUMPS = 4  # the run stops 0.5 after Algorithm 1's 4th jump
FLOW_RTOLS = (1e-2, 1e-3, 1e-4, 1e-6, 1e-8, 1e-10)


def bench_instance(seed: int, n: int = 64, m: int = 16, *, rotate: bool = False) -> Instance:
    """x_i = e_i (as in the paper's experiments) unless ``rotate``; y ~ N(0,1), random directions and signs."""
    for attempt in range(100):
        rng = np.random.default_rng([seed, 53, attempt])
        X = datasets.orthonormal_inputs(n, n, rng, rotate=rotate)
        y = rng.standard_normal(n)
        G, s = datasets.random_directions(m, n, rng), datasets.random_signs(m, rng)
        inst = Instance(X, y, G, s)
        lp = limit_process_of(inst)
        if len(lp.jumps) >= 3 and not lp.ties:
            return inst
    raise RuntimeError("no benchmark instance")


def jump_error(jumps: dict, reference: dict) -> float:
    """max_k |τ_k − τ̂_k| over the compared reference jumps (inf when one is missing)."""
    return max((abs(jumps[j] - t) if j in jumps else math.inf) for j, t in reference.items())


def run_gd(inst: Instance, lr: float, horizon: float, L: float):
    a0, W0 = balanced(inst, LAM)
    steps = int(math.ceil(horizon * L / lr))
    rho = np.empty((steps + 1, inst.m))

    def record(k, _field, a, _W):  # the state after k steps
        rho[k] = a * a

    start = time.perf_counter()
    a, W = np.array(a0, dtype=float), np.array(W0, dtype=float)
    descend(GDBatch.shared(inst.inputs, inst.labels), a, W, lr, steps, observe=record)
    rho[steps] = a * a
    seconds = time.perf_counter() - start
    taus = np.arange(steps + 1) * lr / L
    return sampled_jump_times(taus, rho), steps, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lrs", default="0.05,0.02,0.01,0.005,0.002")
    args = parser.parse_args()
    inst = bench_instance(args.seed)
    L = InitScale.of(LAM).log_inv
    lp = limit_process_of(inst)
    compared = min(COMPARED_JUMPS, len(lp.jumps))
    horizon = lp.jumps[compared - 1].tau + 0.5
    ref_run = run_flow(inst, LAM, horizon, basis="data", rtol=1e-12, atol=1e-14)
    # only jumps completed well before the horizon are compared (a jump in progress at the horizon is
    # counted or not depending on tiny differences of its final a_j²)
    reference = {jp.neuron: jp.tau for jp in ref_run.jumps if jp.tau <= horizon - 0.25}
    print(f"instance n = {inst.n}, m = {inst.m}, λ = {LAM} (ln(1/λ) = {L:.4g}); Algorithm 1: {len(lp.jumps)} jumps, "
          f"horizon τ = {horizon:.4g}; reference flow (data basis, rtol 1e-12): {len(reference)} jumps, "
          f"{ref_run.stats['nfev']} evaluations")
    flows = {}
    for name, basis in (("inputs basis", "inputs"), ("data basis", "data")):
        rows = []
        for rtol in FLOW_RTOLS:
            start = time.perf_counter()
            run = run_flow(inst, LAM, horizon, basis=basis, rtol=rtol)
            seconds = time.perf_counter() - start
            err = jump_error({jp.neuron: jp.tau for jp in run.jumps}, reference)
            rows.append((rtol, err, run.stats["nfev"], seconds))
            print(f"  flow {name:<12} rtol {rtol:.0e}: error {err:.3g}, {run.stats['nfev']} evaluations, {seconds:.3g} s, "
                  f"status {run.status.name.lower()}")
        flows[name] = rows
    print()
    gd_rows = []
    print(f"{'GD lr':>8} {'GD error':>10} {'GD evals':>10} {'GD s':>8} | {'engine':<12} {'rtol':>6} {'error':>10} "
          f"{'evals':>8} {'s':>7} | {'evals ratio':>11} {'time ratio':>10}")
    for lr in (float(v) for v in args.lrs.split(",")):
        gd_jumps, steps, gd_seconds = run_gd(inst, lr, horizon, L)
        gd_err = jump_error(gd_jumps, reference)
        gd_rows.append((lr, gd_err, steps))
        for name, rows in flows.items():
            good = [r for r in rows if r[1] <= gd_err]
            if not good:
                print(f"{lr:>8g} {gd_err:>10.3g} {steps:>10d} {gd_seconds:>8.3g} | {name:<12} no flow run reaches this error")
                continue
            rtol, err, nfev, seconds = min(good, key=lambda r: r[2])
            print(f"{lr:>8g} {gd_err:>10.3g} {steps:>10d} {gd_seconds:>8.3g} | {name:<12} {rtol:>6.0e} {err:>10.3g} "
                  f"{nfev:>8d} {seconds:>7.3g} | {steps / nfev:>11.1f} {gd_seconds / seconds:>10.1f}")
    _extrapolate(gd_rows, flows)
    _rotated_gd(args.seed, L)


def _rotated_gd(seed: int, L: float) -> None:
    """The same kind of instance in a random rotated basis: GD's fresh activation test ⟨w_j, x_i⟩ > 0 sees rounding
    errors eps·‖w_j‖ that exceed the frozen non-positive components (size λ) once ‖w_j‖ > λ/eps, and re-activates them."""
    inst = bench_instance(seed, rotate=True)
    lp = limit_process_of(inst)
    horizon = lp.jumps[min(COMPARED_JUMPS, len(lp.jumps)) - 1].tau + 0.5
    ref = run_flow(inst, LAM, horizon)
    reference = {jp.neuron: jp.tau for jp in ref.jumps if jp.tau <= horizon - 0.25}
    gd_jumps, steps, _ = run_gd(inst, 0.05, horizon, L)
    print(f"\nrotated basis (x_i = Q e_i), GD η = 0.05: jump-time error {jump_error(gd_jumps, reference):.3g} against the "
          f"flow (vs O(η) in the data basis): rounding in the activation test re-activates frozen components")


def _extrapolate(gd_rows, flows) -> None:
    """GD's error law err ≈ c·η^p fitted on the measured learning rates, solved for the flows' best error."""
    lrs = np.array([r[0] for r in gd_rows])
    errs = np.array([r[1] for r in gd_rows])
    if len(lrs) < 2 or not np.all(np.isfinite(errs)) or np.any(errs <= 0):
        return
    p, logc = np.polyfit(np.log(lrs), np.log(errs), 1)
    print(f"\nGD error law fitted on the measured runs: error ≈ {math.exp(logc):.3g}·η^{p:.3f} (first order: p = 1)")
    for name, rows in flows.items():
        rtol, err, nfev, _ = min(rows, key=lambda r: r[2])  # the cheapest flow run
        eta = math.exp((math.log(err) - logc) / p)
        steps = gd_rows[0][2] * gd_rows[0][0] / eta
        print(f"  EXTRAPOLATED: GD reaches {name}'s error {err:.3g} (rtol {rtol:.0e}, {nfev} evaluations) at η ≈ {eta:.3g}, "
              f"i.e. ≈ {steps:.3g} steps: ratio ≈ {steps / nfev:.3g}")


if __name__ == "__main__":
    main()
