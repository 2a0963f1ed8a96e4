"""Event-aware float64 gradient flow in raw coordinates (a, W), for any inputs.

Within a fixed activation pattern the field of `numerics.network.field` is a polynomial, so the
integrator (scipy's DOP853) runs on segments of constant pattern; a pre-activation ⟨w_j, x_i⟩
reaching zero is an *event* located by root finding, not noise. At an event the pattern is
rebuilt with σ'(0) = 0: a component at zero is inactive unless the field (computed with it
inactive) pushes it to positive values. On orthonormal data an inactive component then stays at
zero forever (C Assumption 2).

The result mimics `scipy.integrate.solve_ivp`: a `FlowResult` with a status, a message, the
events, the number of field evaluations and the trajectory at the requested times.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field as dc_field

import numpy as np
from scipy.integrate import solve_ivp

from .errors import RelucheckInputError
from .network import PAPER_A, Convention
from .network import field as network_field
from .network import loss as network_loss

ZERO = 1e-14  # |⟨w_j,x_i⟩| at or below this, right after an event, counts as the kink itself


class FlowStatus(enum.Enum):
    """Numerical outcome of an integration (a results enum, not exceptions)."""

    SUCCESS = "reached the final time"
    EVENT_LIMIT = "stopped after the maximum number of activation events"
    FAILED = "the integrator failed"


@dataclass
class ActivationEvent:
    t: float
    neuron: int
    datum: int
    kind: str  # "deactivate" or "activate"


@dataclass
class FlowResult:
    t: np.ndarray
    a: np.ndarray  # (T, m)
    W: np.ndarray  # (T, m, d)
    loss: np.ndarray  # (T,)
    status: FlowStatus
    message: str
    events: list[ActivationEvent] = dc_field(default_factory=list)
    nfev: int = 0
    segments: int = 0

    @property
    def success(self) -> bool:
        return self.status is FlowStatus.SUCCESS


def _pattern(X, y, a, W, convention) -> np.ndarray:
    """Activation pattern with σ'(0) = 0, deciding components sitting at the kink by the field's sign."""
    Z = X @ W.T
    act = Z > ZERO
    at_kink = np.abs(Z) <= ZERO
    if at_kink.any():
        _, dW = network_field(X, y, a, W, convention, active=act)
        dZ = X @ dW.T
        act |= at_kink & (dZ > ZERO)
    return act


def gradient_flow(
    X,
    y,
    a0,
    W0,
    t_end: float,
    *,
    convention: Convention = PAPER_A,
    t_eval=None,
    rtol: float = 1e-10,
    atol: float = 1e-14,
    max_events: int = 10_000,
    max_step: float = np.inf,
) -> FlowResult:
    """Integrate dθ/dt = −time_factor ∇L(θ) with σ'(0) = 0 from (a0, W0) up to ``t_end``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    a = np.array(a0, dtype=float)
    W = np.array(W0, dtype=float)
    if t_end <= 0 or not np.isfinite(t_end):
        raise RelucheckInputError(f"final time must be finite and > 0, got {t_end}")
    m, d = W.shape
    t_eval = np.linspace(0.0, t_end, 201) if t_eval is None else np.asarray(t_eval, dtype=float)

    def pack(a_, W_):
        return np.concatenate([a_, W_.ravel()])

    def unpack(z):
        return z[:m], z[m:].reshape(m, d)

    out_t, out_z, events = [], [], []
    nfev = 0
    segments = 0
    t = 0.0
    status, message = FlowStatus.SUCCESS, "reached the final time"
    while True:
        act = _pattern(X, y, a, W, convention)
        Z0 = X @ W.T
        watch_down = act  # active components: watch them reach zero
        watch_up = (~act) & (Z0 < -ZERO)  # negative components: watch them reach zero (non-orthogonal data)

        def rhs(_t, z, act=act):
            a_, W_ = unpack(z)
            da, dW = network_field(X, y, a_, W_, convention, active=act)
            return pack(da, dW)

        def crossing(_t, z, wd=watch_down, wu=watch_up):
            _, W_ = unpack(z)
            Z = X @ W_.T
            vals = np.concatenate([Z[wd], -Z[wu]])
            return float(vals.min()) if vals.size else 1.0

        crossing.terminal = True
        crossing.direction = -1
        seg_eval = t_eval[(t_eval >= t) & (t_eval <= t_end)]
        sol = solve_ivp(rhs, (t, t_end), pack(a, W), method="DOP853", t_eval=seg_eval, events=crossing,
                        rtol=rtol, atol=atol, max_step=max_step)
        nfev += sol.nfev
        segments += 1
        if np.size(sol.t):
            out_t.append(np.asarray(sol.t))
            out_z.append(np.asarray(sol.y).T)
        if sol.status == -1:
            status, message = FlowStatus.FAILED, f"integrator failed at t = {t:.6g}: {sol.message}"
            break
        if sol.status == 0:
            break
        t = float(sol.t_events[0][0])
        a, W = unpack(sol.y_events[0][0].copy())
        Z = X @ W.T
        hit = np.unravel_index(np.argmin(np.abs(np.where(watch_down | watch_up, Z, np.inf))), Z.shape)
        i, j = int(hit[0]), int(hit[1])
        events.append(ActivationEvent(t, j, i, "deactivate" if act[i, j] else "activate"))
        W[j] -= Z[i, j] * X[i] / (X[i] @ X[i])  # snap the crossing component onto the kink
        if len(events) >= max_events:
            status, message = FlowStatus.EVENT_LIMIT, f"stopped after {max_events} activation events at t = {t:.6g}"
            break

    ts = np.concatenate(out_t) if out_t else np.empty(0)
    zs = np.concatenate(out_z) if out_z else np.empty((0, m + m * d))
    A = zs[:, :m]
    Ws = zs[:, m:].reshape(-1, m, d)
    losses = np.array([network_loss(X, y, A[k], Ws[k], convention) for k in range(len(ts))])
    return FlowResult(ts, A, Ws, losses, status, message, events, nfev, segments)
