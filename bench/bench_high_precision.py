"""Benchmarks of issue 4, printed ratios from one run.

1. The flow engine "mpmath" (`numerics.flows`, limb kernel) against fixed-step classical RK4 in mpmath (the
   spec's cross-check recipe, spec C §2.6) on a random orthonormal instance, through Algorithm 1's last jump.
   "Same accuracy": both are judged by the final state's error against a reference Taylor run at ``digits + 10``
   digits. RK4 is probed on the start of the horizon (``--rk4-probe`` of τ_1) with steps doubled until its error
   falls (at tiny λ RK4 is unstable until h·ln(1/λ)·rate < 2.8); its error law C·h^p from the last two runs is
   extrapolated to the whole horizon at the Taylor run's accuracy, with p = 4 (RK4's nominal order, which it does
   not reach across the kinks: this favours RK4, so that ratio is a lower bound) and with the observed p. A floor
   without any accuracy extrapolation is printed too: RK4 at the probe's convergent step over the whole horizon.
   ``--kernel-compare F`` also times the limb and arb kernels on the first fraction F of τ_1 (same steps).
2. The network's field (`numerics.network.field`, n×m×d) with dtype=object arrays of mpmath `mpf` against
   python-flint `arb`, both at 50 digits.
3. ``--golden``: the golden instance of paper C (C §2.7) at ``--lam`` through Algorithm 1's last jump + 0.5 with
   engine "mpmath" (wall time, steps, jumps against Algorithm 1) and with engine "float64" (ratio of wall times).

    python3 -m bench.bench_high_precision                         # quick: n = 8, m = 4, λ = 1e-100, 30 digits
    python3 -m bench.bench_high_precision --n 16 --m 8 --lam 1e-1000 --digits 30   # the issue's target instance
    python3 -m bench.bench_high_precision --golden --lam 1e-1000 --digits 60 --skip-engine
"""
from __future__ import annotations

import argparse
import math
import os
import time

import mpmath
import numpy as np
from flint import arb

from relucheck.numerics import datasets
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import PAPER_C, field
from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.mp_arrays import flint_precision, to_mp
from relucheck.theory.limit_process import limit_process_of


def instance(n, m, seed):
    """Random orthonormal instance in its data basis (x_i = e_i), positive labels ≥ 0.3, random directions and signs,
    redrawn until Algorithm 1 jumps at least twice without ties."""
    for attempt in range(200):
        rng = np.random.default_rng([seed, attempt])
        y = rng.choice([-1.0, 1.0], n) * (0.3 + np.abs(rng.standard_normal(n)))
        G, s = datasets.random_directions(m, n, rng), datasets.random_signs(m, rng)
        inst = Instance(np.eye(n), y, G, s)
        lp = limit_process_of(inst)
        if len(lp.jumps) >= 2 and not lp.ties:
            return inst, lp
    raise RuntimeError("no instance")


def initial_state(inst, lam):
    lam = mpmath.mpf(lam)
    return inst.signs * lam, to_mp(inst.directions) * lam, -mpmath.log(lam)


def rk4(inst, lam, tau_end, steps, digits):
    """Classical RK4 with a fixed step in accelerated time, raw (a, W), mpmath, σ'(0) = 0 (no event handling:
    on x_i = e_i an inactive component has zero field, and the step is small enough that wrong-sign components
    reach 0 only within ~h of their event)."""
    with mpmath.workdps(digits):
        a, W, L = initial_state(inst, lam)
        X, y = to_mp(inst.inputs), to_mp(inst.labels)
        h = mpmath.mpf(tau_end) / steps

        def f(a, W):
            da, dW = field(X, y, a, W, PAPER_C)
            return da * L, dW * L

        for _ in range(steps):
            k1 = f(a, W)
            k2 = f(a + h / 2 * k1[0], W + h / 2 * k1[1])
            k3 = f(a + h / 2 * k2[0], W + h / 2 * k2[1])
            k4 = f(a + h * k3[0], W + h * k3[1])
            a = a + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            W = W + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        return a, W


def taylor(inst, lam, tau_end, digits, kernel="auto"):
    """Engine "mpmath" to ``tau_end``, the final (a, W) as mpmath numbers (the last sample)."""
    problem = FlowProblem.from_instance(inst, lam, horizon=tau_end, save_at=(float(tau_end),))
    return solve(problem, "mpmath", digits=digits, kernel=kernel, exact_samples=True, save_params=True)


def final(run):
    return run.trajectory.a[-1], run.trajectory.W[-1]


def state_error(a, W, ref_a, ref_W):
    """max over neurons of (|Δa_j| + ‖Δw_j‖)/(|a_j| + ‖w_j‖) (relative per neuron: tiny neurons count)."""
    worst = mpmath.mpf(0)
    for j in range(len(ref_a)):
        size = abs(ref_a[j]) + mpmath.sqrt(sum(w * w for w in ref_W[j]))
        diff = abs(a[j] - ref_a[j]) + mpmath.sqrt(sum((u - v) ** 2 for u, v in zip(W[j], ref_W[j], strict=False)))
        worst = max(worst, diff / size)
    return worst


def bench_engine(args):
    inst, lp = instance(args.n, args.m, args.seed)
    tau_end = lp.jumps[-1].tau + 0.1
    print(f"instance n = {args.n}, m = {args.m}, λ = {args.lam}, {len(lp.jumps)} jumps, τ_K = {lp.jumps[-1].tau:.4f}; "
          f"horizon τ = {tau_end:.4f}; {args.digits} digits; BLAS threads: "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')} of {os.cpu_count()} cores")
    t0 = time.perf_counter()
    run = taylor(inst, args.lam, tau_end, args.digits)
    t_taylor = time.perf_counter() - t0
    print(f"Taylor ({run.stats['kernel']} kernel): {t_taylor:.2f} s, {run.stats['steps']} steps of order "
          f"{run.stats['order']}, {len(run.events)} events, status {run.status.name}")
    if args.kernel_compare:  # the same steps with the python-flint arb kernel, on the first part of the horizon
        part = args.kernel_compare * lp.jumps[0].tau
        times = {}
        for kernel in ("limbs", "arb"):
            t0 = time.perf_counter()
            short = taylor(inst, args.lam, part, args.digits, kernel=kernel)
            times[kernel] = (time.perf_counter() - t0, short.stats["steps"])
        print(f"kernels on τ ∈ [0, {part:.3f}]: limbs {times['limbs'][0]:.2f} s ({times['limbs'][1]} steps), arb "
              f"{times['arb'][0]:.2f} s ({times['arb'][1]} steps)")
        print(f"RATIO kernel: arb / limbs = {times['arb'][0] / times['limbs'][0]:.3g}")
    if args.no_reference:  # the step tolerance 10^-digits stands for the accuracy (the guard checks it elsewhere)
        err_taylor = mpmath.mpf(10) ** -args.digits
        print(f"Taylor accuracy taken as its step tolerance {mpmath.nstr(err_taylor, 3)} (--no-reference)")
    else:
        t0 = time.perf_counter()
        ref = taylor(inst, args.lam, tau_end, args.digits + 10)
        with mpmath.workdps(args.digits + 10):
            err_taylor = state_error(*final(run), *final(ref))
        print(f"Taylor final-state error vs a {args.digits + 10}-digit run ({time.perf_counter() - t0:.1f} s): "
              f"{mpmath.nstr(err_taylor, 3)}")

    if args.skip_rk4:
        return
    # RK4 probe on the start of the horizon: steps doubled until the error falls (RK4 is unstable while h·ln(1/λ)·rate
    # exceeds ~2.8), then its error law C·h^p is extrapolated to the whole horizon at the Taylor run's accuracy
    probe_end = args.rk4_probe * lp.jumps[0].tau
    probe_ref = taylor(inst, args.lam, probe_end, args.digits + 10)
    steps, errs, per_step = args.rk4_steps, [], []
    while True:
        t0 = time.perf_counter()
        a, W = rk4(inst, args.lam, probe_end, steps, args.digits)
        per_step.append((time.perf_counter() - t0) / steps)
        with mpmath.workdps(args.digits + 10):
            errs.append((steps, float(state_error(a, W, *final(probe_ref)))))
        print(f"RK4 probe τ ∈ [0, {probe_end:.4f}], {steps} steps: error {errs[-1][1]:.3g} "
              f"({per_step[-1] * 1e3:.2f} ms/step)")
        # convergent regime: the error falls faster than first order (RK4 across kinks reaches order ~2, not 4)
        converging = len(errs) >= 2 and errs[-1][1] < errs[-2][1] / 2 and errs[-1][1] < args.rk4_error
        if converging or steps >= args.rk4_max_steps:
            break
        steps *= 2
    if len(errs) < 2 or not errs[-1][1] < errs[-2][1] / 2:
        print("RK4 did not reach its convergent regime (order > 1) within --rk4-max-steps: no ratio extrapolated.")
        return
    (n1, e1), (n2, e2) = errs[-2:]
    order = math.log2(e1 / e2)
    h_probe = probe_end / n2
    ms = float(np.mean(per_step[-2:]))
    target = max(float(err_taylor), 10.0 ** -args.digits)
    # global error over the horizon ≥ the probe's error scaled by the horizon's length (accumulated local errors)
    for label, p in (("order 4 (RK4's nominal order: favours RK4)", 4.0), (f"observed order {order:.2f}", order)):
        C = e2 / h_probe**p
        h_star = (target / (C * tau_end / probe_end)) ** (1.0 / p)
        t_rk4 = math.ceil(tau_end / h_star) * ms
        print(f"RK4 to error {target:.1e} over the horizon with {label}: h* = {h_star:.3g}, "
              f"{math.ceil(tau_end / h_star):.3g} steps → {t_rk4:.3g} s (extrapolated)")
        print(f"RATIO engine ({label}): RK4 (same accuracy, extrapolated) / Taylor = {t_rk4 / t_taylor:.3g}")
    # a directly measured floor: RK4's cost just to stay stable over the horizon at the probe's convergent step size
    t_floor = math.ceil(tau_end / h_probe) * ms
    print(f"RATIO engine (floor, no extrapolation of accuracy): RK4 at the probe's step {h_probe:.3g} over the horizon "
          f"{t_floor:.3g} s (error ≥ {e2:.1e}) / Taylor {t_taylor:.3g} s (error {target:.1e}) = {t_floor / t_taylor:.3g}")


def bench_gradient(args):
    rng = np.random.default_rng(args.seed)
    n, m, d = 16, 8, 16
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    a, W = rng.standard_normal(m), rng.standard_normal((m, d))
    with mpmath.workdps(50):
        mp_args = [to_mp(v) for v in (X, y, a, W)]
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            da_mp, _ = field(*mp_args, PAPER_C)
        t_mp = (time.perf_counter() - t0) / args.repeat
    with flint_precision(50):
        to_arb = np.frompyfunc(lambda v: arb(float(v)), 1, 1)
        arb_args = [to_arb(np.asarray(v, dtype=object)) for v in (X, y, a, W)]
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            da_arb, _ = field(*arb_args, PAPER_C)
        t_arb = (time.perf_counter() - t0) / args.repeat
        agree = max(abs(float(u) - float(v.mid())) for u, v in zip(da_mp, da_arb, strict=False))
    print(f"gradient n = {n}, m = {m}, d = {d} at 50 digits: mpmath {t_mp * 1e3:.2f} ms, arb {t_arb * 1e3:.2f} ms, "
          f"max |Δ| {agree:.1e}")
    print(f"RATIO gradient: mpmath / arb = {t_mp / t_arb:.3g}")


def bench_golden(args):
    """Golden instance at --lam: engine "mpmath" (--digits) and engine "float64", jumps against Algorithm 1."""
    from relucheck.proofs_checks.checks.paper_c_flow import golden_instance

    inst = golden_instance()
    lp = limit_process_of(inst)
    problem = FlowProblem.from_instance(inst, args.lam, horizon=lp.jumps[-1].tau + 0.5)
    t0 = time.perf_counter()
    run = solve(problem, "mpmath", digits=args.digits)
    t_mp = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = solve(problem, "float64")
    t_64 = time.perf_counter() - t0
    print(f"golden, λ = {args.lam}, horizon τ = {problem.horizon:.4f}: mpmath {args.digits} digits {t_mp:.2f} s "
          f"({run.stats['steps']} steps, {run.stats['kernel']} kernel, status {run.status.name}); float64 {t_64:.2f} s "
          f"({ref.stats['steps']} steps)")
    print(f"jumps (neuron, τ at {args.digits} digits): {run.stats['jump_taus_mp']}")
    print(f"Algorithm 1: {[(jp.neuron, jp.tau) for jp in lp.jumps]}; float64: {[(jp.neuron, jp.tau) for jp in ref.jumps]}")
    print(f"RATIO golden: mpmath / float64 wall time = {t_mp / t_64:.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--m", type=int, default=4)
    parser.add_argument("--lam", default="1e-100")
    parser.add_argument("--digits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rk4-steps", type=int, default=100, help="RK4 steps of the probe's first run (then doubled)")
    parser.add_argument("--rk4-max-steps", type=int, default=3200, help="largest RK4 probe run")
    parser.add_argument("--rk4-error", type=float, default=1e-4, help="probe until RK4's error is below this")
    parser.add_argument("--rk4-probe", type=float, default=0.05, help="probe length as a fraction of τ_1")
    parser.add_argument("--kernel-compare", type=float, default=0.0,
                        help="also time the limb and arb kernels on this fraction of τ_1 (0: skip)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--golden", action="store_true", help="also time the golden instance at --lam (engines mpmath, float64)")
    parser.add_argument("--skip-engine", action="store_true")
    parser.add_argument("--skip-rk4", action="store_true", help="time the Taylor engine only (no RK4 reference)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the (digits+10)-digit reference run; take 10^-digits as the Taylor run's accuracy")
    args = parser.parse_args()
    bench_gradient(args)
    if args.golden:
        bench_golden(args)
    if not args.skip_engine:
        bench_engine(args)


if __name__ == "__main__":
    main()
