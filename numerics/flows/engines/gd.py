"""Engine "gd": plain fixed-step full-batch gradient descent, the explicit Euler scheme of the flow.

    θ_{k+1} = θ_k + η F(θ_k),   F = −time_factor ∇L,   σ'(0) = 0,

θ_j(0) = λ (â_j, ŵ_j). The papers define the flow as the limit η → 0 of this scheme (A §2, B eq. 3, C §1.4); its
loss curve converges to the flow's at first order in η (tests/test_engine_gd.py). Each step is one field evaluation of
`numerics.network` through the batched core `numerics.flows.batched_gd` (one problem, no batch axes).

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
"""
from __future__ import annotations

import math

import numpy as np

from ..batched_gd import GDBatch
from ..engine import Domain, Engine, Stepper, View
from ..registry import register

DEFAULT_STEP = 1e-2  # t units: the order of the papers' own runs (A: 0.05, C: 0.05 and 0.01)
LANDING = 1e-9  # a remaining time within this fraction of a step is covered by the (stretched) last step


class GDStepper(Stepper):
    detects_events = False

    def __init__(self, problem, eta: float):
        self.problem, self.eta = problem, float(eta)
        self.batch = GDBatch.shared(problem.inputs, problem.labels, convention=problem.convention)
        theta = np.concatenate([np.asarray(problem.init.a_hat, dtype=float)[:, None],
                                np.asarray(problem.init.W_hat, dtype=float)], axis=1)
        norms = np.linalg.norm(theta, axis=1)
        self.phi = theta / norms[:, None]  # (m, 1 + d): φ_j = (φ_a, φ_w), unit
        self.rho = np.log(norms) - problem.log_inv_lambda  # ρ_j(0) = ln(λ ‖θ̂_j‖), any λ
        self.T = problem.time_scale
        self.dt = self.eta / self.T  # one step in the problem's time unit
        self.G, self.eps = problem.gram(), float(np.finfo(float).eps)
        self.t = self.t_old = 0.0
        self.k = 0
        self.field = self._evaluate(self.rho, self.phi)
        self.nfev = 1
        self.pattern_changes = self.flips = self.loss_rises = 0
        self.now = {"t": 0.0, "loss": float(self.field.loss()), "rho": self.rho, "phi": self.phi}
        self.before = self.now
        self._view = None

    def _evaluate(self, rho, phi):
        with np.errstate(over="ignore", invalid="ignore"):  # e^{2ρ} = inf where GD diverged: a non-finite loss
            return self.batch.evaluate(phi[:, 0], phi[:, 1:], keep=True, output_scale=np.exp(2.0 * rho))

    def view(self) -> View:
        if self._view is None:
            F, phi = self.field, self.phi
            # d ln‖θ_j‖/dt = φ_jᵀ M_j φ_j (θ_j = e^{ρ_j} φ_j, ‖φ_j‖ = 1), times T per unit of the problem's time
            rates = self.T * (phi[:, 0] * F.da + (phi[:, 1:] * F.dW).sum(1))
            self._view = View(F.Z, F.r, np.sign(phi[:, 0]), self.now["loss"], self.rho.copy(), rates, phi[:, 0].copy())
        return self._view

    def advance(self, t_stop):
        remaining = t_stop - self.t
        if remaining <= 0:
            return None
        land = remaining <= self.dt * (1 + LANDING)
        h = remaining if land else self.dt
        F = self.field
        # θ_j + η F_j(θ) = e^{ρ_j} (φ_j + η M_j φ_j): the GD step of `numerics.flows.batched_gd`, in log-scale form
        step = self.phi + (h * self.T) * np.concatenate([F.da[:, None], F.dW], axis=1)
        size = np.sqrt(np.einsum("jk,jk->j", step, step))
        if not size.min() > 0:  # θ_j + η F_j = 0 exactly: a neuron at 0 never moves again (GD's own fixed point)
            return f"neuron {int(np.flatnonzero(~(size > 0))[0])} reached θ_j = 0 at step {self.k + 1} (η = {self.eta:g})"
        rho, phi = self.rho + np.log(size), step / size[:, None]
        field = self._evaluate(rho, phi)
        self.nfev += 1
        with np.errstate(over="ignore", invalid="ignore"):
            loss = float(field.loss())
        if not math.isfinite(loss):  # the state was kept: the last finite one
            return (f"the state overflowed at step {self.k + 1} (η = {self.eta:g} in t units): GD is unstable at this "
                    "step size (η must stay below 2/sharpness)")
        self.before, self.t_old = self.now, self.t
        self.rho, self.phi, self.field, self._view = rho, phi, field, None
        self.k += 1
        self.t = t_stop if land else self.k * self.dt
        changed = int(np.count_nonzero((field.Z > 0) != (F.Z > 0)))
        self.pattern_changes += changed > 0
        self.flips += changed
        self.now = {"t": self.t, "loss": loss, "rho": rho, "phi": phi}  # fresh arrays: never modified in place
        self.loss_rises += loss > self.before["loss"]
        return None

    def _raw(self, state) -> np.ndarray:
        """θ = e^{ρ} φ in raw coordinates (m, 1 + d); neurons below float64's range underflow to 0."""
        return np.exp(state["rho"])[:, None] * state["phi"]

    def sample(self, t, params: bool):
        t0, t1 = self.before["t"], self.now["t"]
        x = 1.0 if t1 == t0 else (float(t) - t0) / (t1 - t0)
        loss = (1 - x) * self.before["loss"] + x * self.now["loss"]
        log_norms = (1 - x) * self.before["rho"] + x * self.now["rho"]
        if not params:
            return loss, log_norms, None, None
        theta = self._raw(self.now) if x == 1.0 else (1 - x) * self._raw(self.before) + x * self._raw(self.now)
        return loss, log_norms, theta[:, 0].copy(), theta[:, 1:].copy()

    def final(self):
        theta = self._raw(self.now)
        return theta[:, 0].copy(), theta[:, 1:].copy()

    def stats(self) -> dict:
        return {"nfev": self.nfev, "gd_steps": self.k, "pattern_changes": self.pattern_changes,
                "component_flips": self.flips, "loss_rises": self.loss_rises, "step_t": self.eta,
                "step": self.dt}

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
