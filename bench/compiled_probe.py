"""Probe (issue 22, item 2): is a compiled DOP853 step of the compressed orthonormal field worth it?

A numba kernel of one DOP853 step (scipy's coefficients, `scipy.integrate._ivp.dop853_coefficients`; Hairer, Nørsett &
Wanner, *Solving ODEs I*, §II.5–II.6) of `ActiveSet.rhs` (`numerics.flows.engines.active_set`: the field on
y_c = (ρ, μ, ψ on the active components), C eq. 7 in the data basis), with scipy's step-size control and error norm
(`RungeKutta._step_impl`, `DOP853._estimate_error_norm`) and the three extra stages of the dense output
(`DOP853._dense_output_impl`). Compared with scipy's own step on states taken from the race instance (`bench.race`
part 1: orthonormal n = 256, m = 64, λ = 1e-40): the same accepted t, h and y_new (to rounding: the kernel sums in
another order than BLAS), the same error norm, the same dense-output F; timed per step (CPU, median). The loop's
own time is split from the stepping's in the same run. `bench.compiled_race` puts the kernels behind scipy's solver
interface and times the whole ``solve`` against scipy's steps and heyoka.

Not used by relucheck: it measures. Run from the repository root (numba needed: ``pip install numba``):
``OPENBLAS_NUM_THREADS=1 nice python -m bench.compiled_probe [--every K] [--reps R] [--seed S]``.
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as dop

N_STAGES = dop.N_STAGES  # 12
A = np.ascontiguousarray(dop.A[:N_STAGES, :N_STAGES])
B, E3, E5, D = dop.B, dop.E3, dop.E5, dop.D  # (no C: the field does not depend on t)
A_EXTRA = np.ascontiguousarray(dop.A[N_STAGES + 1:])
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0  # scipy.integrate._ivp.rk
ERROR_EXPONENT = -1.0 / 8.0  # −1/(error_estimator_order + 1), DOP853's estimator is of order 7
INV_SQRT2 = 1.0 / math.sqrt(2.0)
# reassociation only (sums vectorized; the serial sums were latency-bound: 20 µs per evaluation at 6 000 components);
# no "nnan"/"ninf": a rejected trial stage may overflow to inf (EXP_CAP), and scipy rejects it by its error norm
FAST = {"reassoc", "contract"}


@njit(cache=True, error_model="numpy", fastmath=FAST)
def rhs(yc, out, starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap, inv, r):
    """`ActiveSet.rhs` on y_c, component by component: neuron j's active components are starts[j]:starts[j+1]."""
    m = len(starts) - 1
    psi0 = 2 * m
    for i in range(len(y_data)):
        r[i] = y_data[i]
    for j in range(m):
        s = 0.0
        for k in range(starts[j], starts[j + 1]):
            s += yc[psi0 + k] * yc[psi0 + k]
        mu = yc[m + j]
        inv[j] = 1.0 / math.sqrt(s + mu * mu * frozen_sq[j])
        size = math.exp(min(2.0 * yc[j], exp_cap)) * half_signs[j] * inv[j] * INV_SQRT2 / width_divisor
        for k in range(starts[j], starts[j + 1]):
            r[i_idx[k]] -= size * yc[psi0 + k]
    for k in range(len(i_idx)):  # r on the active components, gathered once (contiguous reads below)
        out[psi0 + k] = r[i_idx[k]]
    for j in range(m):
        zj = inv[j] * INV_SQRT2
        s = 0.0
        for k in range(starts[j], starts[j + 1]):
            s += yc[psi0 + k] * out[psi0 + k]
        g = g_factor[j] * s * zj
        out[j] = g * T
        tg = T * g * inv[j]
        out[m + j] = -tg * yc[m + j]
        for k in range(starts[j], starts[j + 1]):
            out[psi0 + k] = push[k] * out[psi0 + k] - tg * yc[psi0 + k]


@njit(cache=True, error_model="numpy", fastmath=FAST)
def combine(K, c, s, acc):
    """acc = Σ_{p<s} c_p K[p] (each component summed over p in order, as a dot product of K[:s].T and c[:s])."""
    n = K.shape[1]
    for q in range(n):
        acc[q] = 0.0
    for p in range(s):
        cp = c[p]
        if cp != 0.0:
            for q in range(n):
                acc[q] += K[p, q] * cp


@njit(cache=True, error_model="numpy", fastmath=FAST)
def step(t, y, f, h_abs, t_bound, max_step, min_step, rtol, atol, K, y_new,
         starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap, inv, r, tmp, acc, acc3):
    """scipy's `RungeKutta._step_impl` for DOP853 (direction +1): returns (ok, t_new, h_abs_next, nfev, err_first);
    K[0..12] holds the accepted step's stages (K[12] = f at t_new), y_new its end."""
    n = len(y)
    h_abs = min(h_abs, max_step) if h_abs > min_step else min_step
    rejected = False
    nfev = 0
    err_first = -1.0
    while True:
        if h_abs < min_step:
            return False, t, h_abs, nfev, err_first
        t_new = t + h_abs
        if t_new - t_bound > 0:
            t_new = t_bound
        h = t_new - t
        h_abs = abs(h)
        for q in range(n):
            K[0, q] = f[q]
        for s in range(1, N_STAGES):
            combine(K, A[s], s, acc)
            for q in range(n):
                tmp[q] = y[q] + acc[q] * h
            rhs(tmp, K[s], starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap, inv, r)
            nfev += 1
        combine(K, B, N_STAGES, acc)
        for q in range(n):
            y_new[q] = y[q] + h * acc[q]
        rhs(y_new, K[N_STAGES], starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap,
            inv, r)
        nfev += 1
        combine(K, E5, N_STAGES + 1, acc)
        combine(K, E3, N_STAGES + 1, acc3)
        e5 = 0.0
        e3 = 0.0
        for q in range(n):
            scale = atol + max(abs(y[q]), abs(y_new[q])) * rtol
            a5 = acc[q] / scale
            a3 = acc3[q] / scale
            e5 += a5 * a5
            e3 += a3 * a3
        if e5 == 0.0 and e3 == 0.0:
            error_norm = 0.0
        else:
            error_norm = h_abs * e5 / math.sqrt((e5 + 0.01 * e3) * n)
        if err_first < 0:
            err_first = error_norm
        if error_norm < 1:
            if error_norm == 0:
                factor = MAX_FACTOR
            else:
                factor = min(MAX_FACTOR, SAFETY * error_norm ** ERROR_EXPONENT)
            if rejected:
                factor = min(1.0, factor)
            return True, t_new, h_abs * factor, nfev, err_first
        h_abs *= max(MIN_FACTOR, SAFETY * error_norm ** ERROR_EXPONENT)
        rejected = True


@njit(cache=True, error_model="numpy", fastmath=FAST)
def dense_F(t_old, h, y_old, y, K, F,
            starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap, inv, r, tmp, acc):
    """`DOP853._dense_output_impl`: the three extra stages into K[13..15], then F (7, n)."""
    n = len(y)
    for e in range(3):
        s = N_STAGES + 1 + e
        combine(K, A_EXTRA[e], s, acc)
        for q in range(n):
            tmp[q] = y_old[q] + acc[q] * h
        rhs(tmp, K[s], starts, i_idx, frozen_sq, half_signs, y_data, width_divisor, g_factor, push, T, exp_cap, inv, r)
    for q in range(n):
        dy = y[q] - y_old[q]
        F[0, q] = dy
        F[1, q] = h * K[0, q] - dy
        F[2, q] = 2 * dy - h * (K[N_STAGES, q] + K[0, q])  # K[12]: f at the step's end
    for a in range(D.shape[0]):
        combine(K, D[a], K.shape[0], acc)
        for q in range(n):
            F[3 + a, q] = h * acc[q]


def params(active):
    """The kernel's arguments of an `ActiveSet` (its neuron-by-neuron order gives the CSR starts)."""
    st = active.st
    starts = np.searchsorted(active.j_idx, np.arange(active.m + 1)).astype(np.int64)
    return (starts, active.i_idx.astype(np.int64), active.frozen_sq, np.asarray(st.half_signs, dtype=float),
            np.asarray(st.y_data, dtype=float), float(st.conv.width_divisor), active.g_factor, active.push,
            float(st.T), float(active.exp_cap), np.empty(active.m), np.empty(active.n))


def capture(seed: int, every: int):
    """(problem, samples): every K-th compressed step of the race instance's run (no check run) as
    (active, t, y, f, h_abs, t_bound, max_step, rtol, atol)."""
    from relucheck.numerics.flows import FlowProblem
    from relucheck.numerics.flows.engines import logscale
    from relucheck.numerics.flows.loop import integrate
    from relucheck.numerics.flows.registry import get_engine
    from relucheck.theory.limit_process import limit_process_of

    from .bench_engines import orthonormal_instance

    inst = orthonormal_instance(seed, 256, 64)
    problem = FlowProblem.from_instance(inst, "1e-40", horizon=limit_process_of(inst).jumps[-1].tau + 0.5)
    from relucheck.numerics.flows.engines import logscale_step

    samples, count = [], [0]
    # CPU seconds and calls: steps (scipy's DOP853 constructed at a restart, then step()), dense outputs
    spent = {"advance": 0.0, "advance_calls": 0, "restarts": 0, "dense": 0.0, "dense_calls": 0}
    original, original_dense = logscale.LogScaleStepper.advance, logscale_step.dense_of

    from scipy.integrate import DOP853

    original_step = DOP853.step
    current = [None]

    def step_hook(s):
        if current[0] is not None and current[0].active is not None and s.status == "running":
            count[0] += 1
            if count[0] % every == 0:
                samples.append((current[0].active, s.t, s.y.copy(), s.f.copy(), s.h_abs, s.t_bound, s.max_step, s.rtol,
                                s.atol))
        return original_step(s)

    def advance(self, t_stop):
        current[0] = self
        spent["restarts"] += self.solver is None
        a = time.process_time()
        out = original(self, t_stop)
        spent["advance"] += time.process_time() - a
        spent["advance_calls"] += 1
        return out

    def dense_of(solver):
        a = time.process_time()
        out = original_dense(solver)
        spent["dense"] += time.process_time() - a
        spent["dense_calls"] += 1
        return out

    logscale.LogScaleStepper.advance, logscale_step.dense_of, DOP853.step = advance, dense_of, step_hook
    try:
        start = time.process_time()
        res = integrate(get_engine("float64"), problem)
        cpu = time.process_time() - start
    finally:
        logscale.LogScaleStepper.advance, logscale_step.dense_of, DOP853.step = original, original_dense, original_step
    return problem, res, cpu, count[0], samples, spent


def scipy_solver(sample):
    """scipy's DOP853 on `ActiveSet.rhs` at the sample's state (t, y, f, h_abs as the run had them)."""
    from scipy.integrate import DOP853

    active, t, y, f, h_abs, t_bound, max_step, rtol, atol = sample
    return DOP853(active.rhs, t, y, t_bound, rtol=rtol, atol=atol, max_step=max_step, first_step=h_abs)


def reset(s, sample):
    _, t, y, f, h_abs, *_ = sample
    s.t, s.y, s.f, s.h_abs, s.status, s.t_old = t, y, f, h_abs, "running", None


def cpu_median(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        a = time.process_time()
        fn()
        times.append(time.process_time() - a)
    return float(np.median(times))


def compare_one(sample, reps: int) -> dict:
    """The kernel's step, dense F and field against scipy's at one sample (relative differences), CPU medians of both."""
    from scipy.integrate._ivp.rk import DOP853, rk_step

    active, t, y, f, h_abs, t_bound, max_step, rtol, atol = sample
    p, n, m = params(active), len(y), active.m
    K, y_new, F, f_k = np.empty((16, n)), np.empty(n), np.empty((7, n)), np.empty(n)
    work = (np.empty(n), np.empty(n), np.empty(n))  # tmp, acc, acc3
    s = scipy_solver(sample)
    reset(s, sample)
    s.step()
    sc_F = s.dense_output().F
    min_step = 10 * abs(math.nextafter(t, math.inf) - t)

    def kernel_step():
        return step(t, y, f, h_abs, t_bound, max_step, min_step, rtol, atol, K, y_new, *p, *work)

    ok, t_new, h_next, nfev, err_first = kernel_step()

    def kernel_dense():
        dense_F(t, t_new - t, y, y_new, K, F, *p, *work[:2])

    kernel_dense()
    h_first = min(t + min(h_abs, max_step), t_bound) - t  # scipy's error norm of the first trial at the same h
    K_sc = np.empty((13, n))
    y1, _ = rk_step(active.rhs, t, y, f, h_first, DOP853.A, DOP853.B, DOP853.C, K_sc)
    err_sc = s._estimate_error_norm(K_sc, h_first, atol + np.maximum(np.abs(y), np.abs(y1)) * rtol)
    rhs(y, f_k, *p)
    f_np = active.rhs(t, y)
    rel_f = max(float(np.max(np.abs(f_k[b] - f_np[b])) / np.max(np.abs(f_np[b])))
                for b in (slice(0, m), slice(m, 2 * m), slice(2 * m, None)))

    def scipy_step():
        reset(s, sample)
        s.step()

    row = dict(n=n, ok=ok, nfev=nfev, same_t=(t_new == s.t), dt=abs(t_new - s.t) / abs(s.t - t),
               h_rel=abs(h_next / s.h_abs - 1), rel_f=rel_f, err=err_first, err_sc=err_sc,
               rel_y=float(np.max(np.abs(y_new - s.y) / np.maximum(np.abs(s.y), 1e-300))),
               rel_dy=float(np.max(np.abs((y_new - y) - (s.y - y))) / np.max(np.abs(s.y - y))),
               rel_F=float(np.max(np.abs(F - sc_F)) / np.max(np.abs(sc_F))),
               rhs_k=cpu_median(lambda: rhs(y, f_k, *p), reps), rhs_np=cpu_median(lambda: active.rhs(t, y), reps),
               scipy=cpu_median(scipy_step, reps), kernel=cpu_median(kernel_step, reps))
    scipy_step()
    row.update(scipy_dense=cpu_median(s.dense_output, reps), kernel_dense=cpu_median(kernel_dense, reps))
    return row


def compare(samples, reps: int) -> list[dict]:
    return [compare_one(sample, reps) for sample in samples]


def warm():
    """Compile (or load from numba's cache) the kernels on a tiny problem; returns seconds."""
    start = time.perf_counter()
    m, n = 2, 3
    starts = np.array([0, 2, 3], dtype=np.int64)
    i_idx = np.array([0, 1, 2], dtype=np.int64)
    y = np.array([0.0, 0.0, 1.0, 1.0, 0.5, 0.5, 0.5])
    p = (starts, i_idx, np.ones(m), np.ones(m), np.ones(n), 1.0, np.ones(m), np.ones(3), 1.0, 700.0, np.empty(m), np.empty(n))
    K, y_new, tmp, F, f = np.empty((16, 7)), np.empty(7), np.empty(7), np.empty((7, 7)), np.empty(7)
    acc, acc3 = np.empty(7), np.empty(7)
    rhs(y, f, *p)
    step(0.0, y, f, 0.1, 1.0, np.inf, 1e-15, 1e-10, 1e-12, K, y_new, *p, tmp, acc, acc3)
    dense_F(0.0, 0.1, y, y_new, K, F, *p, tmp, acc)
    return time.perf_counter() - start


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=40, help="compare every K-th compressed step")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warm-only", action="store_true", help="only load the kernels (numba's cache) and print the time")
    args = ap.parse_args(argv)
    if args.warm_only:
        print(f"kernels ready in {warm():.3f} s (import of this module excluded)")
        return
    print(f"kernels ready in this process (compile, or load from numba's cache): {warm():.2f} s")
    problem, res, cpu, steps, samples, spent = capture(args.seed, args.every)
    print(f"capture run: {cpu:.2f} s CPU, {res.stats['nfev']} evaluations, {steps} compressed steps, "
          f"{len(samples)} samples, {len(res.events)} events")
    print(f"  of which in advance (scipy's DOP853: construction at {spent['restarts']} restarts + "
          f"{spent['advance_calls']} steps): {spent['advance']:.2f} s; dense outputs ({spent['dense_calls']}): "
          f"{spent['dense']:.2f} s; the rest (the loop's Python work, events, views): "
          f"{cpu - spent['advance'] - spent['dense']:.2f} s")
    rows = compare(samples, args.reps)
    def col(k):
        return np.array([r[k] for r in rows], dtype=float)
    print(f"accepted with the same t_new: {int(col('same_t').sum())}/{len(rows)} (max |Δt|/h {col('dt').max():.2e}); "
          f"next h relative difference max {col('h_rel').max():.2e}")
    print(f"y_new relative difference max {col('rel_y').max():.2e}; of the increment y_new − y: max {col('rel_dy').max():.2e}")
    print(f"field (kernel against ActiveSet.rhs), per block (ρ, μ, ψ) relative to its max: max {col('rel_f').max():.2e}; "
          f"per evaluation: kernel {np.median(col('rhs_k')) * 1e6:.1f} µs, numpy {np.median(col('rhs_np')) * 1e6:.1f} µs "
          "(median)")
    print(f"dense F relative (to max |F|) max {col('rel_F').max():.2e}")
    rel_err = np.abs(col('err') / col('err_sc') - 1)
    print(f"first-trial error norm: relative difference max {rel_err.max():.2e} (median error norm "
          f"{np.median(col('err_sc')):.3g})")
    print(f"state size: {int(col('n').min())}–{int(col('n').max())}; evaluations per kernel step {int(col('nfev').min())}–"
          f"{int(col('nfev').max())}")
    for k in ("scipy", "kernel", "scipy_dense", "kernel_dense"):
        v = col(k) * 1e6
        print(f"  {k:>13}: median {np.median(v):8.1f} µs per call (over samples: p10 {np.percentile(v, 10):.1f}, "
              f"p90 {np.percentile(v, 90):.1f}), mean {v.mean():.1f}")
    print(f"  step ratio scipy/kernel: median {np.median(col('scipy') / col('kernel')):.1f}; dense: "
          f"{np.median(col('scipy_dense') / col('kernel_dense')):.1f}")
    with tempfile.TemporaryDirectory() as cache:  # numba's cache in a fresh directory: a compile, then a load
        for what in ("compile (empty cache)", "cache load"):
            out = subprocess.run([sys.executable, "-c", "import time; a = time.perf_counter(); import bench.compiled_probe "
                                  "as p; b = time.perf_counter(); w = p.warm(); print(f'import {b - a:.3f} s (numba, scipy "
                                  "included), kernels ready {w:.3f} s')"],
                                 capture_output=True, text=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
            print(f"fresh process, {what}: " + (out.stdout.strip() or out.stderr.strip()[-400:]))


if __name__ == "__main__":
    main()
