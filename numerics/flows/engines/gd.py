"""Engine "gd": plain fixed-step full-batch gradient descent, the explicit Euler scheme of the flow.

    θ_{k+1} = θ_k + η F(θ_k),   F = −time_factor ∇L,   σ'(0) = 0,

θ_j(0) = λ (â_j, ŵ_j). The papers define the flow as the limit η → 0 of this scheme (A §2, B eq. 3, C §1.4); its
loss curve converges to the flow's at first order in η (tests/test_engine_gd.py). Each step is one field evaluation of
`numerics.network`, the arithmetic of the batched core `numerics.flows.batched_gd` (`GDBatch.evaluate` on one problem,
no batch axes) repeated operation by operation on preallocated arrays (Cost, below).

* State: θ_j = e^{ρ_j} φ_j with ‖φ_j‖ = 1, as in engine "float64". Given the residuals the field is linear in θ_j,
  F_j(θ) = M_j θ_j, so the step is φ̃_j = φ_j + η M_j φ_j, ρ_j ← ρ_j + ln‖φ̃_j‖, φ_j ← φ̃_j/‖φ̃_j‖: the same GD
  iterates as in raw coordinates (up to float64 rounding, relative ε per step either way), but λ enters only
  through ρ_j(0) = ln(λ‖θ̂_j‖). GD therefore runs at λ = 1e-1000 as at 1e-10; in raw coordinates λ² underflows
  below λ ≈ 1e-150. The residuals use e^{2ρ_j} φ_a,j ⟨φ_w,j, x_i⟩, which underflows to an exact 0 for neurons far
  below the labels' scale (their contribution is below every rounding of r).
* ``step``: η in t units (default ``DEFAULT_STEP``); with the problem's time unit τ = t/ln(1/λ) a step is
  η/ln(1/λ) in τ. The last step is shortened to land exactly on the horizon. GD is stable while
  η < 2/sharpness; a state that overflows ends the run with status SOLVER_FAILED (the result keeps the last
  finite state), and ``stats["loss_rises"]`` counts the steps whose loss rose (a few come from components
  chattering across a kink; many mean η is near the stability limit).
* Domain: any data, any λ > 0; ``step`` a finite number > 0.
* Events: none. The activation pattern is re-read from the signs of ⟨w_j, x_i⟩ at every step (σ'(0) = 0);
  GD crosses kinks instead of locating them and has no Filippov sliding (a component on a kink chatters across
  it at the scale of one step); the sign is read from ⟨φ_w,j, x_i⟩, the pre-activation relative to ‖θ_j‖. The
  result's events list is empty; ``stats`` counts the steps at which the pattern changed and the component flips.
  Jumps and plateaus come from the loop's one rule (`result.jumps_of`).
* Sampling: linear between the two steps around a requested time (the loss, ln‖θ_j‖ = ρ_j, and (a, W) in raw
  coordinates). ln‖θ_j‖ is tracked at every step with the flow's own rate d ln‖θ_j‖/d(time) = T φ_jᵀ M_j φ_j at
  the step's state (so the loop's settling rule and cubic Hermite interpolation of the jump rule apply).
* Cost (issue 22, item 4). A call of ``advance`` takes up to K GD steps (K ≤ MAX_SUBSTEPS, about HISTORY_BYTES of
  history: 78 for n = 64, d = 16, m = 16), whatever the options, and the loop records the end of each of them as a step
  end (`numerics.flows.step_ends`: trajectory rows, ln‖θ_j‖ and rates, the settling rule at each, `keep` where it
  stops the run inside a call; the loop's ``max_steps`` caps a call through ``limit``). The steps write into
  preallocated rows (state, field, residuals, pattern per step: no allocation, no check, no Python object per step);
  the bookkeeping of a call is vectorized over its steps: losses, rates, failures (the first θ_j = 0 or non-finite
  loss ends the call there and is reported by the next one, after the steps before it are recorded), pattern changes,
  loss rises. Each step repeats the one-step form's operations on the same operands in the same layouts, so a run's
  record (samples, track, jumps, plateaus, statistics, status) is that of the loop seeing one GD step per call
  (MAX_SUBSTEPS = 1, the loop's generic path) to the last bit: tests/test_step_ends.py on drawn instances at λ = 1e-2,
  1e-10 and 1e-1000, with and without horizon and sample times. Measured by ``python -m bench.bench_gd_step`` (ratio
  to a bare numpy GD step on the same network; ``--every-step`` without sample times).
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from ..engine import Domain, Engine, Stepper, View
from ..registry import register

DEFAULT_STEP = 1e-2  # t units: the order of the papers' own runs (A: 0.05, C: 0.05 and 0.01)
LANDING = 1e-9  # a remaining time within this fraction of a step is covered by the (stretched) last step
MAX_SUBSTEPS = 128  # GD steps per call of `advance` at most (module docstring, Cost) …
HISTORY_BYTES = 1 << 20  # … and about this many bytes of history kept per call (states, fields, patterns)
try:  # np.einsum without its Python layer (np.einsum calls it with the same arguments when optimize is off)
    from numpy._core._multiarray_umath import c_einsum as _einsum
except ImportError:  # numpy < 2
    _einsum = np.einsum
_vecdot = np.vecdot if hasattr(np, "vecdot") else (lambda W, D, out: np.einsum("...k,...k->...", W, D, out=out))


class GDStepper(Stepper):
    detects_events = False

    def __init__(self, problem, eta: float):
        self.problem, self.eta = problem, float(eta)
        X, y = np.asarray(problem.inputs, dtype=float), np.asarray(problem.labels, dtype=float)
        theta = np.concatenate([np.asarray(problem.init.a_hat, dtype=float)[:, None],
                                np.asarray(problem.init.W_hat, dtype=float)], axis=1)
        norms = np.linalg.norm(theta, axis=1)
        (n, d), m = X.shape, theta.shape[0]
        self.n, self.m = n, m
        self.T = problem.time_scale
        self.dt = self.eta / self.T  # one step in the problem's time unit
        self.G, self.eps = problem.gram(), float(np.finfo(float).eps)
        conv = problem.convention
        self.divisor = conv.width_divisor
        num, den = conv.time_factor, conv.width_divisor * n
        self.coef = num / den  # `network.neuron_rates`' coefficient, rounded as there
        # substeps per call of `advance` (module docstring, Cost); the loop records each of their ends (`batched`)
        per_step = 8 * (n * m + 2 * m * (1 + d) + n + 2 * m)  # bytes kept per substep: pattern, φ, field, r, ρ, sizes
        self.K = max(1, min(MAX_SUBSTEPS, HISTORY_BYTES // per_step))
        K = self.K
        self.batched = K > 1  # (K = 1: the loop's one-step path, as for any stepper: the reference of the batched one)
        self.limit = None  # set by the loop before a call: at most this many substeps (its max_steps)
        self._per = (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=bool))  # per substep of the call: flips, loss rises
        self._extra_nfev = 0  # the overflowed evaluation of a pending failure
        # data as in `batched_gd` (one block, kept pre-activations): Xᵀ contiguous, X its (n, d) view
        self.Xt = np.ascontiguousarray(X.T)
        self.X, self.y = self.Xt.T, y
        # per substep i = 0 … count of the current call (row 0: the state the call started from)
        self.P = np.empty((K + 1, m, 1 + d))  # φ_i = (φ_a, φ_w), unit rows
        self.R = np.empty((K + 1, m))  # ρ_i
        self.F = np.empty((K + 1, m, 1 + d))  # (da, dW) at state i (the rates of φ: dφ_j/dt = M_j φ_j)
        self.Res = np.empty((K + 1, n))  # residuals at state i
        self.on = np.empty((K + 1, n, m))  # pattern 1{⟨φ_w,j, x_i⟩ > 0} at state i, as numbers
        self.A = np.empty((m, n))  # the pattern of the last evaluation as numbers, (m, n) rows
        self.size = np.empty((K + 1, m))  # ‖φ_i + h M φ_i‖ of step i
        self.Z = np.empty((n, m))  # pre-activations of the last evaluation
        self._book = (np.empty((K + 1, m, d)), np.empty((K + 1, m)), np.empty((K, n * m), dtype=bool))  # (`_bookkeeping`)
        self.zeros = np.zeros((n, m))  # (an array operand: a ufunc call with a scalar costs a conversion per call)
        # scalars as arrays of the operands' shape: the same products, without a scalar conversion per call
        self.coef_m = np.full(m, self.coef)
        self._ramp = np.arange(K + 1, dtype=float)
        self.hT = np.full((m, 1 + d), self.dt * self.T)  # h·T of a full step (η/T·T, as the one-step form rounded it)
        rXt = np.empty((d, n))
        self._work = (np.empty((n, m)), np.empty(m), np.empty(m), rXt, rXt.T, np.empty((m, d)), np.empty(m), np.empty(m),
                      np.empty((m, 1 + d)), np.empty(m))
        # the views substep i reads and writes; step i − 1 → i reads row i − 1 (row 0 is never stepped into)
        self._slots = [(self.P[i, :, 0], self.P[i, :, 1:], self.R[i], self.F[i, :, 0], self.F[i, :, 1:], self.Res[i],
                        self.Res[i][:, None], self.on[i], self.P[i], self.F[i - 1] if i else None, self.P[i - 1] if i
                        else None, self.R[i - 1] if i else None, self.size[i - 1] if i else None,
                        self.size[i - 1][:, None] if i else None) for i in range(K + 1)]
        self.P[0] = theta / norms[:, None]
        self.R[0] = np.log(norms) - problem.log_inv_lambda  # ρ_j(0) = ln(λ ‖θ̂_j‖), any λ
        with np.errstate(all="ignore"):
            self._steps(0, 1, step=False)
        self.times = [0.0]
        self.count = 0  # substeps of the last call
        self.t = self.t_old = 0.0
        self.k = 0
        self.nfev = 1
        self.pattern_changes = self.flips = self.loss_rises = 0
        self.rates = None
        self.pending = None  # a failure met inside the last call, reported by the next one
        with np.errstate(all="ignore"):
            self._bookkeeping(0, np.add.reduce(self.Res[:1] * self.Res[:1], -1) / (2.0 * n))
        self._view = None

    def _steps(self, first: int, count: int, last_h: float | None = None, step: bool = True) -> None:
        """States first … first + count − 1, each reached by one GD step from the row before it (unless not ``step``:
        the field at state ``first`` only), and the field there into F, Res, on, A and Z.

        Step (h = η/T, or last_h for the last state): θ_j + h F_j(θ) = e^{ρ_j} (φ_j + h M_j φ_j), then
        ρ_j ← ρ_j + ln‖·‖, φ_j ← ·/‖·‖ (module docstring). Field: the arithmetic of `GDBatch.evaluate` (one problem,
        kept pre-activations) and of `network.neuron_rates`, operation by operation on reused arrays: the same numbers
        to the last bit (each product and sum formed from the same operands, in the same order and layout)."""
        Zp, e2, out_a, rXt, rX, D, dot, ca, S, tmp = self._work
        Z, A, X, Xt, y, coef, hT, divisor = self.Z, self.A, self.X, self.Xt, self.y, self.coef_m, self.hT, self.divisor
        act, zeros, divisor_n = A.T, self.zeros, np.full(len(y), float(divisor))
        mul, add, matmul, sqrt, log, div, exp = np.multiply, np.add, np.matmul, np.sqrt, np.log, np.divide, np.exp
        greater, copyto, subtract = np.greater, np.copyto, np.subtract
        out_a_col, ca_col = out_a[:, None], ca[:, None]
        last = first + count - 1
        for i in range(first, first + count):
            a, W, rho, da, dW, r, r_col, on, P, F_prev, P_prev, R_prev, size, size_col = self._slots[i]
            if step:
                if last_h is not None and i == last:
                    hT = np.full(hT.shape, last_h * self.T)
                mul(F_prev, hT, S)
                add(P_prev, S, S)
                _einsum("jk,jk->j", S, S, out=size)
                sqrt(size, size)
                log(size, tmp)
                add(R_prev, tmp, rho)
                div(S, size_col, P)
            add(rho, rho, e2)  # 2ρ_j (exact)
            exp(e2, e2)  # e^{2ρ_j} (inf where GD diverged: then a non-finite loss)
            mul(a, e2, out_a)
            matmul(X, W.T, Z)
            greater(Z, zeros, on)  # σ'(0) = 0, as numbers (1.0 / 0.0)
            copyto(act, on)  # … and in the (m, n) layout of D's product
            mul(Z, on, Zp)
            matmul(Zp, out_a_col, r_col)
            if divisor != 1:
                div(r, divisor_n, r)
            subtract(y, r, r)
            mul(Xt, r, rXt)  # r_i x_i, written as (d, n): rX is its (n, d) view
            matmul(A, rX, D)
            _vecdot(W, D, dot)
            mul(dot, coef, da)
            mul(a, coef, ca)
            mul(ca_col, D, dW)

    def advance(self, t_stop):
        if self.pending is not None:  # a failure met after the substeps the last call returned
            failure, self.pending = self.pending, None
            return failure
        if t_stop - self.t <= 0:
            return None
        c = self.count
        if c:  # the state the last call ended at becomes row 0
            for buf in (self.P, self.R, self.F, self.Res, self.on):
                buf[0] = buf[c]
        # GD's own times k η/T (as the one-step form computed them), the last step shortened to land on t_stop
        k0 = self.k
        K = self.K if self.limit is None else max(1, min(self.K, self.limit))
        times = ((k0 + self._ramp[:K + 1]) * self.dt).tolist()
        times[0] = self.t
        last_h, limit = None, self.dt * (1 + LANDING)
        if t_stop - times[-2] <= limit:  # the first i with t_stop − t_i ≤ limit takes the landing step (times increase)
            i = next(i for i, t in enumerate(times) if t_stop - t <= limit)
            last_h = t_stop - times[i]
            times = times[:i + 1] + [t_stop]
        count = len(times) - 1
        with np.errstate(all="ignore"):  # failures are read from the results below, as the one-step form read them
            self._steps(1, count, last_h)
            Res = self.Res[:count + 1]
            loss = np.add.reduce(Res * Res, -1) / (2.0 * self.n)
            ok = np.isfinite(loss[1:]) & (np.minimum.reduce(self.size[:count], 1) > 0)
            failure, taken = (None, count) if ok.all() else self._failure(ok, k0)
            if taken < count:
                loss = loss[:taken + 1]
            self._bookkeeping(taken, loss)
        self.nfev += taken
        self.count, self.k = taken, k0 + taken
        self.times = times[:taken + 1]
        self.t_old, self.t = self.times[0], self.times[-1]
        self._view = None
        if failure is not None and taken:
            self.pending = failure  # the steps before it are recorded first
            return None
        self._extra_nfev = 0
        return failure

    def _failure(self, ok, k0: int) -> tuple:
        """(message, steps kept) for the first failing step s of the last substeps: the state stays at s, the last
        finite one, as the one-step form left it."""
        s = int(np.flatnonzero(~ok)[0])
        if not self.size[s].min() > 0:  # θ_j + η F_j = 0 exactly: a neuron at 0 never moves again (GD's fixed point)
            j = int(np.flatnonzero(~(self.size[s] > 0))[0])
            failure = f"neuron {j} reached θ_j = 0 at step {k0 + s + 1} (η = {self.eta:g})"
        else:
            self.nfev += 1  # the evaluation that overflowed
            self._extra_nfev = 1
            failure = (f"the state overflowed at step {k0 + s + 1} (η = {self.eta:g} in t units): GD is unstable at "
                       "this step size (η must stay below 2/sharpness)")
        self._steps(s, 1, step=False)  # the pre-activations of the kept state (the same numbers again)
        return failure, s

    def _bookkeeping(self, c: int, loss: np.ndarray) -> None:
        """Loss, ln‖θ_j‖ rates and the statistics of substeps 0 … c, vectorized over the substeps (into preallocated
        arrays: a temporary above glibc's mmap threshold would be mapped and unmapped at every call)."""
        P, F, on = self.P[:c + 1], self.F[:c + 1], self.on
        self.loss = loss
        # d ln‖θ_j‖/dt = φ_jᵀ M_j φ_j (θ_j = e^{ρ_j} φ_j, ‖φ_j‖ = 1), times T per unit of the problem's time
        wdot, adot, changed = self._book[0][:c + 1], self._book[1][:c + 1], self._book[2][:c]
        np.multiply(P[:, :, 1:], F[:, :, 1:], wdot)
        np.multiply(P[:, :, 0], F[:, :, 0], adot)
        self.rates = self.T * (adot + np.add.reduce(wdot, -1))
        if c:
            np.not_equal(on[1:c + 1].reshape(c, -1), on[:c].reshape(c, -1), changed)
            flips, rises = np.count_nonzero(changed, 1), loss[1:] > loss[:-1]
            self._per = (flips, rises)  # (per substep: `keep` takes back those of the substeps it drops)
            self.pattern_changes += int(np.count_nonzero(flips))
            self.flips += int(flips.sum())
            self.loss_rises += int(np.count_nonzero(rises))

    def ends(self, params: bool) -> tuple:
        """The ends of the last call's substeps 1 … count, each a step end for the loop to record (`step_ends`): times
        (list), losses (array), ln‖θ_j‖ and their rates (count, m), and (a, W) in raw coordinates if ``params``
        (else None): the values `view`, `final` and `sample` give at each of them in the one-step form."""
        c = self.count
        a = W = None
        if params:
            theta = np.exp(self.R[1:c + 1])[:, :, None] * self.P[1:c + 1]  # `_raw`, all substeps at once
            a, W = theta[:, :, 0].copy(), theta[:, :, 1:].copy()
        return self.times[1:], self.loss[1:c + 1], self.R[1:c + 1].copy(), self.rates[1:c + 1], a, W

    def view_at(self, i: int) -> View:
        """The state at substep i (1 … count) of the last call, for the settling rule (`step_ends`): residuals, loss,
        ln‖θ_j‖ and rates as `view` gives them there; no pre-activations (Z None: only the last state's are kept)."""
        a = self.P[i, :, 0]
        return View(None, self.Res[i].copy(), np.sign(a), float(self.loss[i]), self.R[i].copy(), self.rates[i].copy(),
                    a.copy())

    def keep(self, i: int) -> None:
        """End the last call after its substep i (1 ≤ i ≤ count): the loop's settling rule stopped the run at that step
        end. State, time and statistics become those of the one-step form stopped there (a failure pending after the
        call is dropped with the steps it came after)."""
        c = self.count
        if i == c:
            return
        flips, rises = self._per
        self.pattern_changes -= int(np.count_nonzero(flips[i:c]))
        self.flips -= int(flips[i:c].sum())
        self.loss_rises -= int(np.count_nonzero(rises[i:c]))
        self.nfev -= c - i + (self._extra_nfev if self.pending is not None else 0)
        self.pending, self._extra_nfev = None, 0
        self.k -= c - i
        self.count, self.times = i, self.times[:i + 1]
        self.t_old, self.t = self.times[-2], self.times[-1]
        self.loss, self.rates = self.loss[:i + 1], self.rates[:i + 1]
        with np.errstate(all="ignore"):
            self._steps(i, 1, step=False)  # the pre-activations of the kept state (the same numbers again)
        self._view = None

    def view(self) -> View:
        if self._view is None:
            c = self.count
            a = self.P[c, :, 0]
            self._view = View(self.Z.copy(), self.Res[c].copy(), np.sign(a), float(self.loss[c]), self.R[c].copy(),
                              self.rates[c].copy(), a.copy())
        return self._view

    def _raw(self, i: int) -> np.ndarray:
        """θ = e^{ρ} φ at substep i in raw coordinates (m, 1 + d); neurons below float64's range underflow to 0."""
        return np.exp(self.R[i])[:, None] * self.P[i]

    def sample(self, t, params: bool):
        """Linear between the two GD steps around t (of the last call's substeps)."""
        c, times = self.count, self.times
        i1 = bisect.bisect_left(times, float(t), 1, c) if c else 0
        i0 = max(i1 - 1, 0)
        t0, t1 = times[i0], times[i1]
        x = 1.0 if t1 == t0 else (float(t) - t0) / (t1 - t0)
        loss = float((1 - x) * self.loss[i0] + x * self.loss[i1])
        log_norms = (1 - x) * self.R[i0] + x * self.R[i1]
        if not params:
            return loss, log_norms, None, None
        theta = self._raw(i1) if x == 1.0 else (1 - x) * self._raw(i0) + x * self._raw(i1)
        return loss, log_norms, theta[:, 0].copy(), theta[:, 1:].copy()

    def final(self):
        theta = self._raw(self.count)
        return theta[:, 0].copy(), theta[:, 1:].copy()

    def stats(self) -> dict:
        return {"nfev": self.nfev, "gd_steps": self.k, "pattern_changes": self.pattern_changes,
                "component_flips": self.flips, "loss_rises": self.loss_rises, "step_t": self.eta,
                "step": self.dt, "gd_steps_per_call": self.K}

    # a fixed-step scheme detects no events: the loop never calls these (detects_events = False)
    def snap(self, kink):
        raise NotImplementedError("engine 'gd' detects no events: the pattern is re-read from signs at each step")

    restart = watched = truncate = snap


def _refuse(problem, options):
    step = options.get("step", DEFAULT_STEP)
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step) or not step > 0:
        return f"step (η, in t units) must be a finite number > 0, got {step!r}"
    return None


class GDEngine(Engine):
    name = "gd"
    precision = "float64"
    domain = Domain("any data, any λ > 0 (θ_j = e^{ρ_j} φ_j); fixed step η (option step, t units, default "
                    f"{DEFAULT_STEP:g}); no events", _refuse)
    options = ("step",)

    def start(self, problem, *, step: float = DEFAULT_STEP) -> GDStepper:
        return GDStepper(problem, step)

    def tolerances(self, problem, *, step: float = DEFAULT_STEP) -> dict:
        return {"method": "explicit Euler (fixed-step full-batch gradient descent), σ'(0) = 0",
                "step_t": step, "step": step / problem.time_scale,
                "error": "first order in η: the loss curve is within O(η) of the flow's on a fixed horizon"}


    def review(self, result, problem, options, rerun):
        """No error bound: engine gd's answer is gradient descent at step η itself (to rounding), not the flow; its
        distance to the flow is first order in η (docs/engines.md: compare with GD at η/4)."""
        result.errors = {"method": "none: the answer is gradient descent at step η, not the flow (first order in η)",
                         "vouched": False, "reason": "engine gd computes gradient descent, whose distance to the flow "
                                                     "is first order in the step η and not bounded here"}
        return result


register(GDEngine())
