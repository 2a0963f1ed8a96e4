"""Paper C's gradient flow on orthonormal data in (norm exponent, direction) coordinates: engine "uw-float64".

Spec C §1.9 eq. (7) and §2.6. With accelerated time τ = t / L_λ, L_λ = ln(1/λ), and the balanced
parametrization of C Prop. 1 (a_j = s_j ‖w_j‖), neuron j is w̃_j = λ^{ũ_j} w̄_j with ‖w̄_j‖ = 1 and

    ρ_j = ‖w̃_j‖² = a_j² = exp(−2 ũ_j L_λ),
    h_i = Σ_j s_j ρ_j (w̄_ji)_+,  r = y − h,  D_j = (1/n) 1{w̄_ji > 0} r_i   (data coordinates),
    dũ_j/dτ = −s_j ⟨w̄_j, D_j⟩,   dw̄_j/dτ = L_λ s_j (D_j − ⟨w̄_j, D_j⟩ w̄_j)            (eq. 7).

Only L_λ enters, so λ may be any decimal string (1e-1000 included): λ itself is never formed.
The direction is stored as its data coordinates c_ji = ⟨w̄_j, x_i⟩ plus the norm q_j of its part
orthogonal to span{x_i}; that part keeps its direction (the raw component is frozen), so
dq_j/dτ = −L_λ s_j ⟨w̄_j, D_j⟩ q_j.

Events (C Assumption 2, σ'(0) = 0): a positive component c_ji reaching zero is located by root
finding on the step's dense output, snapped to exactly 0 and made inactive; it then stays 0 forever
(its derivative is 0). Integration restarts from the event with the new pattern.

Integrator: scipy's DOP853 stepped by hand (rtol 1e-10, atol 1e-12 by default). The tangential part
relaxes at rate ≈ L_λ ‖y_S‖/n, so the problem is stiff only in the mild sense that an explicit step is
limited to ≈ 6/(L_λ ‖D‖); the cost grows linearly in L_λ (λ = 1e-1000 on n = 4 takes well under a
second), and an implicit method is not needed.

Sampling and jump detection: every accepted step end is a sample (τ, ρ, loss). Jumps use
`numerics.engines.activation_times` (first τ with ρ_j ≥ ρ_j(end)/2). To make that crossing exact
rather than a linear interpolation between steps, each crossing is refined: the flow is re-integrated
with dense output from the last checkpoint before it (checkpoints every ``CHECKPOINT_EVERY`` steps and
at every event), the root of ρ_j(τ) = ρ_j(end)/2 is found by `scipy.optimize.brentq`, and that point
is inserted as a sample. The detection rule itself is untouched.

Horizon rule: the run stops at ``horizon``; by default τ_K + 0.5 with τ_K Algorithm 1's last jump
(`theory.limit_process.limit_process_of`). It stops earlier once *settled*: at a checkpoint at least
``SETTLE_DELAY`` after the last half-crossing of any grown neuron, when every grown neuron
(ũ_j < ``GROWN_EXPONENT``) changed ρ_j by less than ``settle_rtol`` relatively over the last
``SETTLE_DELAY`` and every other neuron, extrapolated at its current exponent speed (eq. 11), cannot reach ũ_j = 0 before
the horizon.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.integrate import DOP853, solve_ivp
from scipy.optimize import brentq

from .engines import FlowRun, Jump, activation_times, fitted_points, plateau_losses, register_engine
from .errors import RelucheckInputError
from .instances import Instance
from .scale import InitScale

RTOL, ATOL, MAX_STEP = 1e-10, 1e-12, 1.0
CHECKPOINT_EVERY = 25  # steps between stored states used to refine crossings
SETTLE_DELAY = 0.5  # accelerated time after the last crossing before the settle test may stop the run
SETTLE_RTOL = 1e-9
GROWN_EXPONENT = 0.05  # ũ_j below this counts as grown (ρ_j ≥ λ^0.1); the limit's fitted neurons have ũ_j → 0
MAX_STEPS = 2_000_000


@dataclass
class System:
    """An event-aware ODE in accelerated time: the pieces the shared driver needs.

    rhs(z, act) -> dz/dτ with the activation pattern fixed; watched(z) -> (m, n) components whose
    sign is the activation (positive = active); snap(z, j, i) -> z with component (j, i) set to 0;
    rho(z) -> (m,) a_j²; loss(z) -> L(θ); exponents(z) -> (m,) ũ_j = −ln ρ_j / (2 L_λ);
    speed(z, act) -> (m,) dũ_j/dτ.
    """

    rhs: Callable
    watched: Callable
    snap: Callable
    rho: Callable
    loss: Callable
    exponents: Callable
    speed: Callable


@dataclass
class Trajectory:
    taus: list = field(default_factory=list)
    rho: list = field(default_factory=list)
    losses: list = field(default_factory=list)
    checkpoints: list = field(default_factory=list)  # (τ, z, act)
    events: list = field(default_factory=list)  # {"tau", "neuron", "datum"}
    nfev: int = 0
    steps: int = 0
    z: np.ndarray | None = None
    act: np.ndarray | None = None
    stopped: str = ""

    def record(self, system, tau, z):
        self.taus.append(float(tau))
        self.rho.append(system.rho(z))
        self.losses.append(float(system.loss(z)))


def _first_crossing(dense, t0, t1, watched, act):
    """Earliest root in (t0, t1] of an active component that is negative at t1: (τ, j, i) or None."""
    W1 = watched(dense(t1))
    crossed = np.argwhere(act & (W1 < 0))
    if crossed.size == 0:
        return None
    best = None
    for j, i in crossed:
        def comp(t, j=j, i=i):
            return watched(dense(t))[j, i]
        lo = comp(t0)
        root = t0 if lo <= 0 else brentq(comp, t0, t1, xtol=1e-15, rtol=4 * np.finfo(float).eps)
        if best is None or root < best[0]:
            best = (root, int(j), int(i))
    return best


def integrate(system: System, z0, act0, horizon: float, *, rtol=RTOL, atol=ATOL, max_step=MAX_STEP,
              settle_rtol=SETTLE_RTOL, max_events: int = 100_000) -> Trajectory:
    """Step DOP853 from τ = 0 to ``horizon`` with events, checkpoints and the settle test (module docstring)."""
    traj = Trajectory()
    z = np.array(z0, dtype=float)
    act = np.array(act0, dtype=bool)
    tau = 0.0
    traj.record(system, tau, z)
    last_growth = 0.0
    running_max = np.array(system.rho(z), dtype=float)
    last_step = None
    while tau < horizon:
        traj.checkpoints.append((tau, z.copy(), act.copy()))
        # after an event, restart with the step size reached before it (the pattern change is not a singularity)
        first = min(last_step, horizon - tau) if last_step else None
        solver = DOP853(lambda _t, zz, act=act: system.rhs(zz, act), tau, z, horizon,
                        rtol=rtol, atol=atol, max_step=max_step, first_step=first)
        event = None
        while solver.status == "running":
            msg = solver.step()
            traj.steps += 1
            if solver.status == "failed":
                raise RuntimeError(f"integrator failed at τ = {solver.t:.6g}: {msg}")
            t0, t1 = solver.t_old, solver.t
            last_step = t1 - t0
            if np.any(act & (system.watched(solver.y) < 0)):
                event = _first_crossing(solver.dense_output(), t0, t1, system.watched, act)
                if event is not None:
                    break
            z = solver.y.copy()
            tau = t1
            traj.record(system, tau, z)
            rho_now = traj.rho[-1]
            growing = rho_now > running_max * (1 + 1e-12)
            running_max = np.maximum(running_max, rho_now)
            if np.any(growing & (rho_now >= 0.5 * running_max) & (system.exponents(z) < GROWN_EXPONENT)):
                last_growth = tau
            if traj.steps % CHECKPOINT_EVERY == 0:
                traj.checkpoints.append((tau, z.copy(), act.copy()))
                if _settled(system, traj, z, act, tau, last_growth, horizon, settle_rtol):
                    traj.stopped = "settled"
                    break
            if traj.steps >= MAX_STEPS:
                raise RuntimeError(f"more than {MAX_STEPS} steps before τ = {horizon}")
        traj.nfev += solver.nfev
        if traj.stopped:
            break
        if event is None:
            break
        t_ev, j, i = event
        z = system.snap(solver.dense_output()(t_ev), j, i)
        act = act.copy()
        act[j, i] = False
        tau = t_ev
        traj.events.append({"tau": float(t_ev), "neuron": j, "datum": i})
        traj.record(system, tau, z)
        if len(traj.events) > max_events:
            raise RuntimeError(f"more than {max_events} activation events")
    traj.z, traj.act = z, act
    traj.stopped = traj.stopped or "horizon"
    return traj


def _settled(system, traj, z, act, tau, last_growth, horizon, settle_rtol) -> bool:
    if tau < last_growth + SETTLE_DELAY:
        return False
    u = system.exponents(z)
    growth = -system.speed(z, act)  # −dũ_j/dτ
    taus = np.asarray(traj.taus)
    k = int(np.searchsorted(taus, tau - SETTLE_DELAY))
    before, now = traj.rho[k], traj.rho[-1]
    grown = u < GROWN_EXPONENT
    if np.any(np.abs(now[grown] - before[grown]) > settle_rtol * np.abs(now[grown])):
        return False
    small = ~grown
    reach = np.where(growth[small] > 0, u[small] / np.maximum(growth[small], 1e-300), np.inf)
    return bool(np.all(tau + reach > horizon))


def refine_crossings(system: System, traj: Trajectory, *, rtol=RTOL, atol=ATOL, max_step=MAX_STEP):
    """Insert the exact τ of ρ_j(τ) = ρ_j(end)/2 for each activated neuron (module docstring)."""
    taus = np.asarray(traj.taus)
    rho = np.asarray(traj.rho)
    extra_nfev = 0
    inserts = []
    for _, j in activation_times(taus, rho):
        half = rho[-1, j] / 2
        k = int(np.argmax(rho[:, j] >= half))
        if k == 0:
            continue
        t_lo, t_hi = taus[k - 1], taus[k]
        cps = [c for c in traj.checkpoints if c[0] <= t_lo]
        t_c, z_c, act_c = cps[-1]
        # every event is a checkpoint and a sample, so none lies strictly inside (t_c, t_hi); one at t_hi ends the
        # crossing step and the pattern act_c holds up to it
        if any(t_c < e["tau"] < t_hi for e in traj.events):
            continue
        sol = solve_ivp(lambda _t, zz, act_c=act_c: system.rhs(zz, act_c), (t_c, t_hi), z_c, method="DOP853",
                        rtol=rtol, atol=atol, max_step=max_step, dense_output=True)
        extra_nfev += sol.nfev

        def gap(t, sol=sol, j=j, half=half):
            return system.rho(sol.sol(t))[j] - half

        lo = max(t_lo, t_c)
        if gap(lo) > 0:  # the re-integration crosses marginally earlier: bracket from the checkpoint
            lo = t_c
        if gap(lo) > 0 or gap(t_hi) < 0:
            continue
        root = brentq(gap, lo, t_hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        z_root = sol.sol(root)
        inserts.append((root, system.rho(z_root), float(system.loss(z_root))))
    for root, rho_root, loss_root in inserts:
        k = int(np.searchsorted(traj.taus, root))
        traj.taus.insert(k, float(root))
        traj.rho.insert(k, rho_root)
        traj.losses.insert(k, loss_root)
    traj.nfev += extra_nfev
    return len(inserts)


def stable_step(instance: Instance, L: float) -> float:
    """Largest step offered to DOP853: ``MAX_STEP``, capped at 6/(L_λ ‖y‖/n).

    The fastest rate of the flow in accelerated time is L_λ times the largest exponent speed ‖y‖/n
    (eq. 10); DOP853's stability interval is ≈ 6, so larger trial steps are rejected anyway (and may
    overflow before being rejected).
    """
    rate = L * float(np.linalg.norm(instance.labels)) / instance.n
    return min(MAX_STEP, 6.0 / rate) if rate > 0 else MAX_STEP


def default_horizon(instance: Instance, margin: float = 0.5) -> float:
    """Algorithm 1's last jump time τ_K plus ``margin`` (τ = 1 + margin when Algorithm 1 has no jump)."""
    from relucheck.theory.limit_process import limit_process_of

    lp = limit_process_of(instance)
    return (lp.jumps[-1].tau if lp.jumps else 1.0) + margin


def check_arguments(instance: Instance, lam, horizon):
    """Validate the common engine arguments; return (InitScale, L_λ, horizon)."""
    if not isinstance(instance, Instance):
        raise RelucheckInputError(f"instance must be a numerics.instances.Instance, got {type(instance).__name__}")
    instance.require_orthonormal()
    scale = InitScale.of(lam)
    L = scale.log_inv
    if not L > 0:
        raise RelucheckInputError(f"the small-initialization flow needs λ < 1 (ln(1/λ) > 0), got λ = {scale}")
    if horizon is None:
        horizon = default_horizon(instance)
    if not (np.isfinite(horizon) and horizon > 0):
        raise RelucheckInputError(f"horizon must be a finite accelerated time > 0, got {horizon}")
    return scale, L, float(horizon)


def finish(engine, instance, scale, L, traj, a, W, tolerances, started, refined, precision="float64") -> FlowRun:
    """Common post-processing: activation times, fitted points, plateaus, the `FlowRun` record."""
    taus = np.asarray(traj.taus)
    rho = np.asarray(traj.rho)
    losses = np.asarray(traj.losses)
    X, y = instance.inputs, instance.labels
    jumps = [Jump(t, j, fitted_points(X, y, a, W, j)) for t, j in activation_times(taus, rho)]
    fitted = sorted({i for jp in jumps for i in jp.fitted})
    residual = y - np.maximum(X @ W.T, 0.0) @ a
    interpolates = bool(np.all(np.abs(residual) <= np.abs(y) / 2)) and len(fitted) == len(y)
    return FlowRun(
        engine=engine, lam=str(scale), log_inv_lambda=L, taus=taus, losses=losses, rho=rho, a=a, W=W,
        jumps=jumps, loss_plateaus=plateau_losses(taus, losses, [jp.tau for jp in jumps]),
        interpolates=interpolates, squared_norm=float(a @ a + (W * W).sum()),
        status="success", message=f"stopped: {traj.stopped} at τ = {taus[-1]:.6g}",
        precision=precision, tolerances=tolerances,
        stats={"nfev": traj.nfev, "steps": traj.steps, "events": len(traj.events), "samples": len(taus),
               "refined_crossings": refined, "wall_seconds": time.perf_counter() - started,
               "stopped": traj.stopped, "event_list": traj.events[:50]},
    )


def uw_system(instance: Instance, L: float) -> tuple[System, np.ndarray, np.ndarray, np.ndarray]:
    """The (ũ, c, q) system of eq. (7) in data coordinates; returns (system, z0, act0, complement directions)."""
    X, y, G, s = instance.inputs, instance.labels, instance.directions, instance.signs
    n, m = len(y), len(s)
    C0 = G @ X.T  # (m, n): c_ji = ⟨ḡ_j, x_i⟩
    P = G - C0 @ X  # parts orthogonal to span{x_i}
    q0 = np.linalg.norm(P, axis=1)
    P_hat = np.divide(P, q0[:, None], out=np.zeros_like(P), where=q0[:, None] > 0)

    def unpack(z):
        return z[:m], z[m:m + m * n].reshape(m, n), z[m + m * n:]

    def exponents(z):
        return z[:m]

    def rho(z):
        # capped at e^600: only rejected trial stages of the stepper go there (ρ_j ≤ ~‖y‖ on the flow)
        return np.exp(np.minimum(-2.0 * L * z[:m], 600.0))

    def residual(z, act):
        u, C, _ = unpack(z)
        return y - (s * rho(z)) @ (C * act)

    def rhs(z, act):
        u, C, q = unpack(z)
        # a rejected trial stage of an oversized step may overflow; the step controller discards it
        with np.errstate(over="ignore", invalid="ignore"):
            r = residual(z, act)
            D = act * (r / n)  # (m, n): D_j in data coordinates, σ'(0) = 0 on inactive components
            g = s * (C * D).sum(1)  # s_j ⟨w̄_j, D_j⟩
            dC = L * (s[:, None] * D - g[:, None] * C)
            return np.concatenate([-g, dC.ravel(), -L * g * q])

    def speed(z, act):
        u, C, _ = unpack(z)
        return -s * (C * act * (residual(z, act) / n)).sum(1)

    def watched(z):
        return unpack(z)[1]

    def snap(z, j, i):
        z = z.copy()
        z[m + j * n + i] = 0.0
        return z

    def loss(z):
        C = unpack(z)[1]
        r = residual(z, C > 0)
        return r @ r / (2 * n)

    z0 = np.concatenate([np.ones(m), C0.ravel(), q0])
    return System(rhs, watched, snap, rho, loss, exponents, speed), z0, C0 > 0, P_hat


@register_engine("uw-float64")
def uw_flow(instance: Instance, lam, *, horizon: float | None = None, rtol: float = RTOL, atol: float = ATOL,
            max_step: float | None = None, settle_rtol: float = SETTLE_RTOL, refine: bool = True) -> FlowRun:
    """Flow of C eq. (7) in (ũ, w̄) coordinates for any λ ∈ (0, 1) given as a decimal string (module docstring)."""
    started = time.perf_counter()
    scale, L, horizon = check_arguments(instance, lam, horizon)
    system, z0, act0, P_hat = uw_system(instance, L)
    max_step = stable_step(instance, L) if max_step is None else max_step
    traj = integrate(system, z0, act0, horizon, rtol=rtol, atol=atol, max_step=max_step, settle_rtol=settle_rtol)
    refined = refine_crossings(system, traj, rtol=rtol, atol=atol, max_step=max_step) if refine else 0
    m, n = instance.m, instance.n
    u, C, q = traj.z[:m], traj.z[m:m + m * n].reshape(m, n), traj.z[m + m * n:]
    norms = np.exp(-L * u)  # ‖w_j‖ = λ^{ũ_j} (underflows harmlessly to 0)
    W = norms[:, None] * (C @ instance.inputs + q[:, None] * P_hat)
    a = instance.signs * norms
    tolerances = {"method": "DOP853", "rtol": rtol, "atol": atol, "max_step": max_step, "horizon": horizon,
                  "settle_rtol": settle_rtol, "detection": "first τ with a_j² ≥ a_j(end)²/2, root-refined"}
    return finish("uw-float64", instance, scale, L, traj, a, W, tolerances, started, refined)
