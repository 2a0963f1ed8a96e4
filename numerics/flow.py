"""Event-aware float64 gradient flow in raw coordinates (a, W), for any inputs.

Within a fixed activation pattern the field of `numerics.network.field` is a polynomial, so the
integrator (scipy's DOP853) runs on segments of constant pattern; a pre-activation ⟨w_j, x_i⟩
reaching zero is an *event* located by root finding, not noise. At an event the pattern is
rebuilt with σ'(0) = 0: a component at zero is inactive unless the field (computed with it
inactive) pushes it to positive values. On orthonormal data an inactive component then stays at
zero forever (C Assumption 2). On non-orthogonal data a component at zero can be pushed up when
inactive and down when active: it then *slides* on the kink (Filippov), held at zero with the
activation weight η ∈ (0, 1) that makes its derivative vanish (`numerics.taylor._Problem.projections`
has the formula), until η reaches 0 or 1 (events "leave_down", "leave_up"). Before sliding was
handled, such a component stayed "active" below zero without an event: a silently wrong trajectory
(1.42 off in a at t = 5 on the test's draw).

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
    kind: str  # "deactivate", "activate", "slide" (enters a sliding mode), "leave_down", "leave_up" (leaves one)


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


def _projections(X, act, slide):
    """(m, n, n) matrices P_j with dw_j ∝ a_j (P_j r)ᵀ X: P_j = diag(act_j) without sliding; with sliding data Σ
    of neuron j, rows Σ hold −G_ΣΣ⁻¹ G_ΣA (Filippov weights keeping ⟨w_j, x_i⟩ = 0 for i ∈ Σ)."""
    n, m = act.shape
    G = X @ X.T
    P = np.zeros((m, n, n))
    for j in range(m):
        A, S = np.flatnonzero(act[:, j]), np.flatnonzero(slide[:, j])
        P[j][A, A] = 1.0
        if len(S) and len(A):
            P[j][np.ix_(S, A)] = -np.linalg.solve(G[np.ix_(S, S)], G[np.ix_(S, A)])
    return P


def _field(X, y, a, W, convention, act, P):
    """`numerics.network.field` for a fixed pattern, with the sliding weights P (`_projections`); also r and
    the weighted residuals V[j] = P_j r."""
    R = (X @ W.T) * act
    h = R @ a
    r = y - (h if convention.width_divisor == 1 else h / convention.width_divisor)
    num, den = convention.time_factor, convention.width_divisor * len(y)
    V = P @ r  # (m, n)
    da = (R.T @ r) * num / den
    dW = (a[:, None] * (V @ X)) * num / den
    return da, dW, r, V


def _pattern(X, y, a, W, convention):
    """(act, slide) with σ'(0) = 0 and Filippov sliding, deciding components at the kink one at a time by the
    field's sign: pushed up when inactive → active, unless pushed down when active → sliding; else inactive."""
    Z = X @ W.T
    act = Z > ZERO
    slide = np.zeros_like(act)
    for i, j in zip(*np.nonzero(np.abs(Z) <= ZERO), strict=False):
        _, dW, _, _ = _field(X, y, a, W, convention, act, _projections(X, act, slide))
        if not (X[i] @ dW[j]) > ZERO:
            continue
        on = act.copy()
        on[i, j] = True
        _, dW, _, _ = _field(X, y, a, W, convention, on, _projections(X, on, slide))
        if (X[i] @ dW[j]) < -ZERO:
            slide[i, j] = True
        else:
            act[i, j] = True
    return act, slide


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
    stuck = 0
    slide = np.zeros((len(y), m), dtype=bool)
    while True:
        was_sliding = slide
        act, slide = _pattern(X, y, a, W, convention)
        for i, j in zip(*np.nonzero(slide & ~was_sliding), strict=False):
            events.append(ActivationEvent(t, int(j), int(i), "slide"))
        P = _projections(X, act, slide)
        Z0 = X @ W.T
        watch_down = act  # active components: watch them reach zero
        watch_up = (~act) & (~slide) & (Z0 < -ZERO)  # negative components: watch them reach zero (non-orthogonal data)
        _, _, r0, _ = _field(X, y, a, W, convention, act, P)
        sliding = np.nonzero(slide)
        sign = np.where(r0[sliding[0]] > 0, 1.0, -1.0)

        def rhs(_t, z, act=act, P=P):
            a_, W_ = unpack(z)
            da, dW, _, _ = _field(X, y, a_, W_, convention, act, P)
            return pack(da, dW)

        def watched(z, wd=watch_down, wu=watch_up, act=act, P=P, sliding=sliding, sign=sign):
            a_, W_ = unpack(z)
            Z = X @ W_.T
            parts = [Z[wd], -Z[wu]]
            if sliding[0].size:  # η = v/r must stay in (0, 1): sgn(r)·v > 0 and sgn(r)·(r − v) > 0
                _, _, r, V = _field(X, y, a_, W_, convention, act, P)
                v = V[sliding[1], sliding[0]]
                parts += [sign * v, sign * (r[sliding[0]] - v)]
            return parts

        def crossing(_t, z):
            vals = np.concatenate(watched(z))
            return float(vals.min()) if vals.size else 1.0

        crossing.terminal = True
        crossing.direction = -1
        seg_eval = t_eval[(t_eval >= t) & (t_eval <= t_end)]
        t_start = t
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
        z = sol.y_events[0][0].copy()
        a, W = unpack(z)
        Z = X @ W.T
        parts = watched(z)
        sizes = [p.size for p in parts]
        k = int(np.argmin(np.abs(np.concatenate(parts))))
        if k < sizes[0]:
            i, j = (int(v[k]) for v in np.nonzero(watch_down))
            kind = "deactivate"
        elif k < sizes[0] + sizes[1]:
            i, j = (int(v[k - sizes[0]]) for v in np.nonzero(watch_up))
            kind = "activate"
        else:
            q = k - sizes[0] - sizes[1]
            s = q % max(len(sliding[0]), 1)
            i, j = int(sliding[0][s]), int(sliding[1][s])
            kind = "leave_down" if q < len(sliding[0]) else "leave_up"
        events.append(ActivationEvent(t, j, i, kind))
        for p, q in [(i, j), *zip(*sliding, strict=False)]:  # snap the event's and the sliding components onto the kink
            W[q] -= (X[p] @ W[q]) * X[p] / (X[p] @ X[p])
        stuck = stuck + 1 if t - t_start <= ZERO * (1 + abs(t)) else 0
        if stuck > 2 * Z.size:
            status, message = FlowStatus.FAILED, f"pre-activations chatter on the kink at t = {t:.6g}"
            break
        if len(events) >= max_events:
            status, message = FlowStatus.EVENT_LIMIT, f"stopped after {max_events} activation events at t = {t:.6g}"
            break

    ts = np.concatenate(out_t) if out_t else np.empty(0)
    zs = np.concatenate(out_z) if out_z else np.empty((0, m + m * d))
    A = zs[:, :m]
    Ws = zs[:, m:].reshape(-1, m, d)
    losses = np.array([network_loss(X, y, A[k], Ws[k], convention) for k in range(len(ts))])
    return FlowResult(ts, A, Ws, losses, status, message, events, nfev, segments)
