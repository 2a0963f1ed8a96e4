"""Paper C's gradient flow in raw coordinates (a, W) and accelerated time: engine "raw-float64".

An independent cross-check of "uw-float64" (`numerics.orthogonal_flow`): the parameters themselves
are integrated, in the full input space ℝ^d and with the inputs as given (rotated bases included),

    dθ/dτ = L_λ · (da/dt, dW/dt)(θ),   τ = t / L_λ,   L_λ = ln(1/λ)        (C §1.9),

with the field of `numerics.network.field` (C eqs. 2–4, σ'(0) = 0) and the balanced initialization
w_j(0) = λ ḡ_j, a_j(0) = s_j λ (C Assumption 3). λ must be at least 1e-150 so that λ² (the size of
a_j w_j) is a normal float64 (`InitScale.as_float` refuses smaller λ).

Events, checkpoints, crossing refinement, sampling and the horizon rule are those of the uw engine
(the shared driver `numerics.orthogonal_flow.integrate`); the watched components are the
pre-activations ⟨w_j, x_i⟩, and an active one reaching zero is snapped onto the kink
(w_j ← w_j − ⟨w_j, x_i⟩ x_i) and frozen (C Assumption 2). The exponent ũ_j = −ln(a_j²)/(2 L_λ) is
read off a_j.
"""
from __future__ import annotations

import time

import numpy as np

from .engines import FlowRun, register_engine
from .initializations import balanced
from .instances import Instance
from .network import PAPER_C, field, loss
from .orthogonal_flow import (ATOL, RTOL, SETTLE_RTOL, System, check_arguments, finish, integrate,
                              refine_crossings, stable_step)


def raw_system(instance: Instance, lam_float: float, L: float):
    """The raw (a, W) system in accelerated time; returns (system, z0, act0)."""
    X, y = instance.inputs, instance.labels
    m, d = instance.m, instance.d
    a0, W0 = balanced(instance, lam_float)

    def unpack(z):
        return z[:m], z[m:].reshape(m, d)

    def rhs(z, act):
        a, W = unpack(z)
        da, dW = field(X, y, a, W, PAPER_C, active=act.T)
        return L * np.concatenate([da, dW.ravel()])

    def watched(z):
        return unpack(z)[1] @ X.T  # (m, n): ⟨w_j, x_i⟩

    def snap(z, j, i):
        a, W = unpack(z.copy())
        W[j] -= (W[j] @ X[i]) * X[i]
        return np.concatenate([a, W.ravel()])

    def rho(z):
        return z[:m] ** 2

    def exponents(z):
        with np.errstate(divide="ignore"):
            return -np.log(z[:m] ** 2) / (2 * L)

    def speed(z, act):
        a = z[:m]
        da = rhs(z, act)[:m]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a != 0, -da / (a * L), 0.0)  # dũ_j/dτ = −(da_j/dτ)/(a_j L_λ)

    def loss_of(z):
        a, W = unpack(z)
        return loss(X, y, a, W, PAPER_C)

    z0 = np.concatenate([a0, W0.ravel()])
    return System(rhs, watched, snap, rho, loss_of, exponents, speed), z0, watched(z0) > 0


@register_engine("raw-float64")
def raw_flow(instance: Instance, lam, *, horizon: float | None = None, rtol: float = RTOL, atol: float | None = None,
             max_step: float | None = None, settle_rtol: float = SETTLE_RTOL, refine: bool = True) -> FlowRun:
    """Flow of C eqs. (2)–(4) in raw coordinates and accelerated time, λ ≥ 1e-150 (module docstring).

    ``atol`` defaults to ATOL·λ²: the parameters start at size λ and must be resolved relatively.
    """
    started = time.perf_counter()
    scale, L, horizon = check_arguments(instance, lam, horizon)
    lam_float = scale.as_float()
    atol = ATOL * lam_float**2 if atol is None else atol
    system, z0, act0 = raw_system(instance, lam_float, L)
    max_step = stable_step(instance, L) if max_step is None else max_step
    traj = integrate(system, z0, act0, horizon, rtol=rtol, atol=atol, max_step=max_step, settle_rtol=settle_rtol)
    refined = refine_crossings(system, traj, rtol=rtol, atol=atol, max_step=max_step) if refine else 0
    m, d = instance.m, instance.d
    a, W = traj.z[:m].copy(), traj.z[m:].reshape(m, d).copy()
    tolerances = {"method": "DOP853", "rtol": rtol, "atol": atol, "max_step": max_step, "horizon": horizon,
                  "settle_rtol": settle_rtol, "detection": "first τ with a_j² ≥ a_j(end)²/2, root-refined"}
    return finish("raw-float64", instance, scale, L, traj, a, W, tolerances, started, refined)
