"""Race (issue 22, item 2): ``solve(problem, "float64")`` on the race instance (`bench.race` part 1: orthonormal
n = 256, m = 64, λ = 1e-40, to Algorithm 1's last jump + 0.5) with scipy's DOP853 steps, with the numba kernels of
`bench.compiled_probe` on the compressed form (`ActiveSet`; a prototype `Stepper` with scipy's solver interface swapped
into `LogScaleStepper.advance`, scipy elsewhere), and heyoka at tol 1e-10 (`bench.race_heyoka`, its integration only,
as `bench.race`), interleaved in rounds with the order rotating; CPU (`time.process_time`) and wall seconds, ratios
within each round; jump times compared (`bench.race_checks.jump_agreement`, 1e-6).

Not used by relucheck: it measures. Run from the repository root (numba and heyoka needed):
``OPENBLAS_NUM_THREADS=1 nice python -m bench.compiled_race [--rounds R] [--seed S]``.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from .compiled_probe import N_STAGES, dense_F, params, rhs, step, warm


class Stepper:
    """A prototype of scipy's DOP853 interface on the kernels (step(), t, y, t_old, y_old, f, h_abs, status,
    dense_output()) for the compressed form; the field evaluations are added to the engine's count."""

    def __init__(self, active, t0, y0, t_bound, *, rtol, atol, max_step, first_step):
        from scipy.integrate._ivp.common import select_initial_step

        self.active, self.p = active, params(active)
        n = len(y0)
        self.n, self.K, self.tmp, self.acc, self.acc3 = n, np.empty((16, n)), np.empty(n), np.empty(n), np.empty(n)
        self.rtol, self.atol = max(rtol, 100 * np.finfo(float).eps), atol  # scipy's validate_tol
        self.max_step, self.t_bound = max_step, t_bound
        self.t, self.y, self.t_old, self.y_old, self.status = t0, y0, None, None, "running"
        self.f = self.fun(t0, y0)
        self.h_abs = first_step if first_step is not None else select_initial_step(
            self.fun, t0, y0, t_bound, max_step, self.f, 1, 7, self.rtol, self.atol)

    def fun(self, _t, y):
        out = np.empty(self.n)
        rhs(y, out, *self.p)
        self.active.st.nfev += 1
        return out

    def step(self):
        from relucheck.numerics.flows.engine import poll

        poll("a DOP853 step")
        t = self.t
        if t == self.t_bound:
            self.t_old, self.status = t, "finished"
            return None
        y_new = np.empty(self.n)
        ok, t_new, h_next, nfev, _ = step(t, self.y, self.f, self.h_abs, self.t_bound, self.max_step,
                                          10 * abs(math.nextafter(t, math.inf) - t), self.rtol, self.atol, self.K, y_new,
                                          *self.p, self.tmp, self.acc, self.acc3)
        self.active.st.nfev += nfev
        if not ok:
            self.status = "failed"
            return "Required step size is less than spacing between numbers."
        self.t_old, self.y_old, self.t, self.y, self.h_abs = t, self.y, t_new, y_new, h_next
        self.f = self.K[N_STAGES].copy()
        if t_new >= self.t_bound:
            self.status = "finished"
        return None

    def dense_output(self):
        from scipy.integrate._ivp.rk import Dop853DenseOutput

        F = np.empty((7, self.n))
        h = self.t - self.t_old
        dense_F(self.t_old, h, self.y_old, self.y, self.K, F, *self.p, self.tmp, self.acc)
        self.active.st.nfev += 3
        return Dop853DenseOutput(self.t_old, self.t, self.y_old, F)


def compiled_advance(self, t_stop):
    """`LogScaleStepper.advance` with the prototype `Stepper` on the compressed form (scipy's DOP853 elsewhere)."""
    from scipy.integrate import DOP853

    from relucheck.numerics.flows.engines.logscale import EXP_CAP
    from relucheck.numerics.flows.engines.active_set import ActiveSet, eligible

    if self.solver is None:
        first = min(self.last_h, t_stop - self.t) if self.last_h else None
        self.active = ActiveSet(self, self.pattern, EXP_CAP) if self.compress and eligible(self, self.pattern) else None
        if self.active:
            self.solver = Stepper(self.active, self.t, self.active.compress(self.y), t_stop, rtol=self.rtol,
                                  atol=self.atol, max_step=self.max_step, first_step=first)
        else:
            self.solver = DOP853(self._rhs, self.t, self.y, t_stop, rtol=self.rtol, atol=self.atol,
                                 max_step=self.max_step, first_step=first)
    message = self.solver.step()
    if self.solver.status == "failed":
        return message or "step size became too small"
    self.t_old, self.t = self.solver.t_old, self.solver.t
    self.last_h = self.t - self.t_old
    self.y = self.active.expand(self.solver.y) if self.active else self.solver.y
    self.dense = None
    return None


def race(seed: int, rounds: int):
    """solve(problem, "float64") with scipy's steps, with the prototype's, and heyoka (tol 1e-10, bench.race_heyoka),
    interleaved in rounds (order rotating); CPU and wall seconds; jump times against heyoka's."""
    from relucheck.numerics.flows import FlowProblem, solve
    from relucheck.numerics.flows.engines import logscale
    from relucheck.theory.limit_process import limit_process_of

    from . import race_heyoka
    from .bench_engines import orthonormal_instance
    from .race_checks import jump_agreement

    inst = orthonormal_instance(seed, 256, 64)
    problem = FlowProblem.from_instance(inst, "1e-40", horizon=limit_process_of(inst).jumps[-1].tau + 0.5)
    original = logscale.LogScaleStepper.advance
    times = {"scipy": [], "compiled": [], "heyoka": []}
    results = {}

    def run(name):
        a, b = time.process_time(), time.perf_counter()
        if name == "heyoka":
            model = race_heyoka.build(inst, problem.log_inv_lambda, 1e-10)
            a, b = time.process_time(), time.perf_counter()  # heyoka's integration only (as bench.race)
            steps, _, track = race_heyoka.integrate(model, problem.horizon)
            c, d = time.process_time(), time.perf_counter()
            results[name] = race_heyoka.finish(model, inst, problem.log_inv_lambda, steps, d - b, track)
            return c - a, d - b
        logscale.LogScaleStepper.advance = compiled_advance if name == "compiled" else original
        try:
            results[name] = solve(problem, "float64")
        finally:
            logscale.LogScaleStepper.advance = original
        return time.process_time() - a, time.perf_counter() - b

    names = list(times) if race_heyoka.available() else ["scipy", "compiled"]
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(run(name))
            extra = ""
            if name != "heyoka":
                res = results[name]
                extra = (f" {res.status.name}, {len(res.events)} events, {len(res.jumps)} jumps, nfev {res.stats['nfev']} "
                         f"+ {res.stats.get('check_nfev', 0)}, final loss {res.final_loss:.12g}")
            print(f"  round {r + 1} {name:>8}: CPU {times[name][-1][0]:.2f} s, wall {times[name][-1][1]:.2f} s;{extra}")
    jumps = {k: {jp.neuron: jp.tau for jp in results[k].jumps} for k in results}
    print("  jump times, compiled against scipy: " + jump_agreement(jumps["compiled"], jumps["scipy"],
                                                                   names=("compiled", "scipy")).line())
    if "heyoka" in results:
        print("  jump times, compiled against heyoka: " + jump_agreement(jumps["compiled"], jumps["heyoka"]).line())
        for k in ("scipy", "compiled"):
            print(f"  RATIO {k} / heyoka (within each round, CPU): "
                  + ", ".join(f"{a[0] / b[0]:.2f}" for a, b in zip(times[k], times["heyoka"]))
                  + "; wall: " + ", ".join(f"{a[1] / b[1]:.2f}" for a, b in zip(times[k], times["heyoka"])))
    print("  RATIO compiled / scipy (CPU): " + ", ".join(f"{a[0] / b[0]:.2f}" for a, b in zip(times["compiled"], times["scipy"])))



def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"kernels ready in {warm():.2f} s; {args.rounds} round(s), load average {os.getloadavg()}")
    race(args.seed, args.rounds)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
