"""Engine "gd": plain fixed-step full-batch gradient descent, the explicit Euler scheme of the flow.

    θ_{k+1} = θ_k + η F(θ_k),   F = −time_factor ∇L,   σ'(0) = 0,

in float64 raw coordinates θ_j = (a_j, w_j), θ_j(0) = λ (â_j, ŵ_j). The papers define the flow as the limit
η → 0 of this scheme (A §2, B eq. 3, C §1.4); its loss curve converges to the flow's at first order in η
(tests/test_engine_gd.py). Each step is one field evaluation of `numerics.network` through the batched core
`numerics.flows.batched_gd` (one problem, no batch axes).

* ``step``: η in t units (default ``DEFAULT_STEP``); with the problem's time unit τ = t/ln(1/λ) a step is
  η/ln(1/λ) in τ. The last step is shortened to land exactly on the horizon. GD is stable while
  η < 2/sharpness; a state that overflows ends the run with status SOLVER_FAILED (the result keeps the last
  finite state), and ``stats["loss_rises"]`` counts the steps whose loss rose (a few come from components
  chattering across a kink; many mean η is near the stability limit).
* Domain: any data, λ ≥ 1e-150 (`numerics.scale.InitScale.as_float`: below, λ² is no longer a normal float64
  and raw coordinates lose the initialization); refused with that reason.
* Events: none. The activation pattern is re-read from the signs of ⟨w_j, x_i⟩ at every step (σ'(0) = 0);
  GD crosses kinks instead of locating them and has no Filippov sliding (a component on a kink chatters across
  it at the scale of one step). The result's events list is empty; ``stats`` counts the steps at which the pattern
  changed and the component flips. Jumps and plateaus come from the loop's one rule (`result.jumps_of`).
* Sampling: linear between the two steps around a requested time. ln‖θ_j‖ is tracked at every step with the
  flow's own rate d ln‖θ_j‖/d(time) at the step's state (so the loop's settling rule and cubic Hermite
  interpolation of the jump rule apply).
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import RelucheckInputError
from ..batched_gd import GDBatch, descend
from ..engine import Domain, Engine, Stepper, View
from ..registry import register

DEFAULT_STEP = 1e-2  # t units: the order of the papers' own runs (A: 0.05, C: 0.05 and 0.01)
LANDING = 1e-9  # a remaining time within this fraction of a step is covered by the (stretched) last step


class GDStepper(Stepper):
    detects_events = False

    def __init__(self, problem, eta: float):
        self.problem, self.eta = problem, float(eta)
        self.batch = GDBatch.shared(problem.inputs, problem.labels, convention=problem.convention)
        lam = problem.init.scale.as_float()
        self.a = lam * np.array(problem.init.a_hat, dtype=float)
        self.W = lam * np.array(problem.init.W_hat, dtype=float)
        self.T = problem.time_scale
        self.dt = self.eta / self.T  # one step in the problem's time unit
        self.G, self.eps = problem.gram(), float(np.finfo(float).eps)
        self.t = self.t_old = 0.0
        self.k = 0
        self.field = self.batch.evaluate(self.a, self.W, keep=True)
        self.nfev = 1
        self.pattern_changes = self.flips = self.loss_rises = 0
        self.now = self._summary()
        self.before = self.now

    def _summary(self) -> dict:
        """Loss, ln‖θ_j‖ and (a, W) at the current state (kept for the linear interpolation of `sample`)."""
        norms = np.sqrt(self.a * self.a + np.einsum("jk,jk->j", self.W, self.W))
        with np.errstate(divide="ignore"):
            log_norms = np.log(norms)
        return {"t": self.t, "loss": float(self.field.loss()), "log_norms": log_norms, "norms": norms,
                "a": self.a.copy(), "W": self.W.copy()}

    def view(self) -> View:
        F, now = self.field, self.now
        norms = now["norms"]
        safe = np.where(norms > 0, norms, 1.0)
        # d ln‖θ_j‖/dt = (a_j ȧ_j + ⟨w_j, ẇ_j⟩)/‖θ_j‖², times T per unit of the problem's time
        rates = self.T * (self.a * F.da + (self.W * F.dW).sum(1)) / (safe * safe)
        return View(F.Z / safe, F.r, np.sign(self.a), now["loss"], now["log_norms"], rates, self.a / safe)

    def advance(self, t_stop):
        remaining = t_stop - self.t
        if remaining <= 0:
            return None
        land = remaining <= self.dt * (1 + LANDING)
        h = remaining if land else self.dt
        act_before = self.field.Z > 0
        self.before, self.t_old = self.now, self.t
        with np.errstate(over="ignore", invalid="ignore"):  # an unstable step overflows: refused below
            _, field = descend(self.batch, self.a, self.W, h * self.T, 1, field=self.field, keep=True)
            self.field, field = field, self.field
            now = self._summary()  # non-finite a or W make the loss or a norm non-finite
        self.nfev += 1
        if not (math.isfinite(now["loss"]) and np.all(np.isfinite(now["norms"]))):
            self.a[...], self.W[...], self.field = self.now["a"], self.now["W"], field  # the last finite state
            return (f"the state overflowed at step {self.k + 1} (η = {self.eta:g} in t units): GD is unstable at this "
                    "step size (η must stay below 2/sharpness)")
        self.k += 1
        self.t = now["t"] = t_stop if land else self.k * self.dt
        changed = int(np.count_nonzero((self.field.Z > 0) != act_before))
        self.pattern_changes += changed > 0
        self.flips += changed
        self.now = now
        self.loss_rises += self.now["loss"] > self.before["loss"]
        return None

    def sample(self, t, params: bool):
        t0, t1 = self.before["t"], self.now["t"]
        x = 1.0 if t1 == t0 else (float(t) - t0) / (t1 - t0)

        def mix(key):
            return (1 - x) * self.before[key] + x * self.now[key] if x != 1.0 else self.now[key].copy()

        loss = (1 - x) * self.before["loss"] + x * self.now["loss"]
        return loss, mix("log_norms"), (mix("a") if params else None), (mix("W") if params else None)

    def final(self):
        return self.a.copy(), self.W.copy()

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
    try:
        problem.init.scale.as_float()
    except RelucheckInputError as exc:
        return str(exc)
    return None


class GDEngine(Engine):
    name = "gd"
    precision = "float64"
    domain = Domain("any data, λ ≥ 1e-150 (raw float64 coordinates); fixed step η (option step, t units, default "
                    f"{DEFAULT_STEP:g}); no events", _refuse)
    options = ("step",)

    def start(self, problem, *, step: float = DEFAULT_STEP) -> GDStepper:
        return GDStepper(problem, step)

    def tolerances(self, problem, *, step: float = DEFAULT_STEP) -> dict:
        return {"method": "explicit Euler (fixed-step full-batch gradient descent), σ'(0) = 0",
                "step_t": step, "step": step / problem.time_scale,
                "error": "first order in η: the loss curve is within O(η) of the flow's on a fixed horizon"}


register(GDEngine())
