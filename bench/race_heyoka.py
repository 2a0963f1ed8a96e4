"""heyoka's anchor for `bench.race`: paper C's flow on orthonormal data in balanced log-scale form, Taylor with events.

On orthonormal data (C Assumption 1, X = I in the data basis) with a balanced start (C Assumption 3: w_j(0) = λ ḡ_j,
a_j(0) = s_j λ) the flow of C eqs. 2–4 keeps a_j = s_j ‖w_j‖ exactly (d a_j² / dt = d ‖w_j‖² / dt), so with
r_j = ln ‖w_j‖ and ψ_j = w_j / ‖w_j‖ (the residuals R_i = y_i − Σ_j s_j e^{2 r_j} ψ_ji^+, u_j = Σ_i ψ_ji^+ R_i / n):

    dr_j/dτ = L s_j u_j,        dψ_ji/dτ = L s_j (1{active} R_i / n − ψ_ji u_j),        L = ln(1/λ), τ = t / L.

The factor e^{r_j} cancels, so λ enters only through r_j(0) = −L. A component inactive at τ = 0 (ψ_ji ≤ 0) never
moves on orthonormal data (its gradient is 0 and no other neuron's motion reaches it), so it is left out of the state;
an active component that falls to 0 (a deactivation, `EventKind.DEACTIVATE`) is a terminal event whose callback sets
ψ_ji = 0 and its activity parameter to 0, after which it stays at 0 (σ'(0) = 0), and the integration continues.
A step callback records the Taylor coefficients of r_j on every step, so jump times are solved by relucheck's own rule
(`numerics.flows.result.jumps_of`) on heyoka's exact step polynomials.

heyoka is optional (`pip install 'relucheck[bench]'`); this module imports it only in `build`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from relucheck.numerics.flows.norm_track import NormTrack
from relucheck.numerics.flows.result import HALF, jumps_of


class HeyokaMissing(RuntimeError):
    """heyoka is not installed (the optional extra `relucheck[bench]`)."""


def available() -> str | None:
    """heyoka's version, or None when it cannot be imported."""
    try:
        import heyoka
    except ImportError:
        return None
    return str(heyoka.__version__)


@dataclass
class Model:
    """A built heyoka integrator and the bookkeeping that maps its state back to (neuron, datum)."""

    ta: object
    neurons: np.ndarray  # (k,) neuron of state variable m + c
    data: np.ndarray  # (k,) datum of state variable m + c
    fired: list  # (τ, component index c) of every deactivation, in order
    build_seconds: float
    n_states: int


@dataclass
class Run:
    events: list  # (τ, neuron, datum) of every deactivation
    jumps: list  # `Jump`s by relucheck's rule
    final_loss: float
    steps: int
    seconds: float


def build(instance, log_inv: float, tol: float) -> Model:
    """The system above for an `Instance` with orthonormal inputs (d = n, X Xᵀ = I), compiled in compact mode."""
    try:
        import heyoka as hy
    except ImportError as exc:
        raise HeyokaMissing("heyoka is not installed: pip install 'relucheck[bench]'") from exc
    X = np.asarray(instance.inputs, dtype=float)
    n, d = X.shape
    if d != n or np.abs(X @ X.T - np.eye(n)).max() > 1e-12:
        raise ValueError("the heyoka anchor needs orthonormal inputs with d = n")
    C = np.asarray(instance.directions, dtype=float) @ X.T  # ψ_j(0) in the data basis (unit rows)
    s = np.asarray(instance.signs, dtype=float)
    y = np.asarray(instance.labels, dtype=float)
    m = C.shape[0]
    start = time.perf_counter()
    neurons, data = np.nonzero(C > 0)
    r = hy.make_vars(*[f"r{j}" for j in range(m)])
    r = [r] if m == 1 else list(r)
    psi = list(hy.make_vars(*[f"p{j}_{i}" for j, i in zip(neurons, data)])) if len(neurons) > 1 else \
        [hy.make_vars(f"p{neurons[0]}_{data[0]}")]
    scale = [hy.exp(2.0 * r[j]) * float(s[j]) for j in range(m)]
    resid = []
    for i in range(n):
        terms = [scale[j] * psi[c] for c, j in zip(np.flatnonzero(data == i), neurons[data == i])]
        resid.append(float(y[i]) - hy.sum(terms) if terms else hy.expression(float(y[i])))
    u = []
    for j in range(m):
        comps = np.flatnonzero(neurons == j)
        u.append(hy.sum([psi[c] * resid[data[c]] for c in comps]) * (1.0 / n) if len(comps) else hy.expression(0.0))
    rate = [u[j] * (log_inv * float(s[j])) for j in range(m)]  # dr_j/dτ
    sys = [(r[j], rate[j]) for j in range(m)]
    sys += [(psi[c], hy.par[c] * resid[data[c]] * (log_inv * float(s[neurons[c]]) / n) - psi[c] * rate[neurons[c]])
            for c in range(len(neurons))]
    fired: list = []

    def deactivation(c: int):
        def callback(ta, _sign) -> bool:
            ta.state[m + c] = 0.0
            ta.pars[c] = 0.0
            fired.append((ta.time, c))
            return True
        return callback

    events = [hy.t_event(psi[c], callback=deactivation(c), direction=hy.event_direction.negative)
              for c in range(len(neurons))]
    state = np.concatenate([np.full(m, -log_inv), C[neurons, data]])
    ta = hy.taylor_adaptive(sys, state, tol=tol, t_events=events, pars=np.ones(len(neurons)), compact_mode=True)
    return Model(ta, neurons, data, fired, time.perf_counter() - start, m + len(neurons))


def integrate(model: Model, horizon: float) -> tuple[int, float, NormTrack]:
    """Propagate to τ = horizon; returns (steps, seconds, the ln‖θ_j‖ track with the step polynomials)."""
    ta = model.ta
    m = len(ta.state) - len(model.neurons)
    track = NormTrack()
    track.append(0.0, ta.state[:m] + HALF)  # ‖θ_j‖² = a_j² + ‖w_j‖² = 2 e^{2 r_j}

    def step(ta) -> bool:
        coeffs = np.array(ta.tc[:m, :], copy=True)
        t1 = ta.time
        t0 = t1 - ta.last_h

        def exact(t, j, coeffs=coeffs, t0=t0):
            return float(np.polynomial.polynomial.polyval(t - t0, coeffs[j])) + HALF

        track.append(t1, ta.state[:m] + HALF, exact=exact)
        return True

    start = time.perf_counter()
    outcome = ta.propagate_until(float(horizon), callback=step)
    seconds = time.perf_counter() - start
    if ta.time != float(horizon):
        raise RuntimeError(f"heyoka stopped at τ = {ta.time} before {horizon}: {outcome[0]}")
    track.values[-1] = ta.state[:m] + HALF
    return len(track.t) - 1, seconds, track


def finish(model: Model, instance, log_inv: float, steps: int, seconds: float, track: NormTrack) -> Run:
    """Events, jumps (relucheck's rule on the heyoka track) and the final loss, outside the timed part."""
    ta = model.ta
    n = len(instance.labels)
    m = len(ta.state) - len(model.neurons)
    rr = np.array(ta.state[:m])
    psi = np.zeros((m, n))
    psi[model.neurons, model.data] = ta.state[m:]
    C = np.asarray(instance.directions, dtype=float) @ np.asarray(instance.inputs, dtype=float).T
    s = np.asarray(instance.signs, dtype=float)
    y = np.asarray(instance.labels, dtype=float)
    W = np.where(C > 0, np.exp(rr)[:, None] * psi, math.exp(-log_inv) * C)  # inactive components never moved
    a = s * np.exp(rr)
    resid = y - (s[:, None] * np.exp(2 * rr)[:, None] * np.maximum(psi, 0)).sum(0)
    X = np.eye(n)
    jumps = jumps_of(track, X, y, a, W)
    events = [(t, int(model.neurons[c]), int(model.data[c])) for t, c in model.fired]
    return Run(events, jumps, float(resid @ resid / (2 * n)), steps, seconds)
