"""The registered engine "mpmath-taylor": C's flow (eqs. 2–4, Assumption 3 init) on an orthonormal instance at any
λ ∈ (0, 1) with `numerics.taylor.taylor_flow` in the data basis, jump times solved to working precision on the
steps' Taylor polynomials, and the precision guard (a rerun at twice the digits)."""
from __future__ import annotations

import math
import time

import mpmath
import numpy as np

from .engines import FlowRun, Jump, fitted_points, plateau_losses, register_engine
from .instances import Instance
from .mp_arrays import check_precision, required_digits, to_mp
from .precision_guard import guarded
from .taylor import TaylorTrajectory, _crossing, taylor_flow


def level_crossing(traj: TaylorTrajectory, neuron: int, level):
    """First τ with a_j(τ)² ≥ ``level`` (mpf, root of the step's Taylor polynomial of a_j² − level), or None."""
    with mpmath.workdps(traj.digits):
        level = mpmath.mpf(level)
        if traj.a[0][neuron] ** 2 >= level:
            return traj.taus[0]
        tol = mpmath.mpf(10) ** (-traj.digits)
        for k, (tau0, h, A) in enumerate(traj.polys):
            if traj.a[k + 1][neuron] ** 2 >= level:
                coeffs = [A[q, neuron] for q in range(A.shape[0])]
                sq = [sum(coeffs[p] * coeffs[q - p] for p in range(q + 1)) for q in range(len(coeffs))]
                sq[0] -= level
                return tau0 + _crossing(sq, h, tol)
        return None


def half_final_times(traj: TaylorTrajectory, *, active_fraction: float = 1e-3) -> list[tuple]:
    """The jump rule of `numerics.engines.activation_times`, solved to working precision.

    For each neuron with a_j(end)² ≥ active_fraction · max_k a_k(end)², the first τ with
    a_j(τ)² ≥ a_j(end)²/2 (`level_crossing`). Returns (τ_j as mpf, j) sorted by τ.
    """
    with mpmath.workdps(traj.digits):
        final = [x * x for x in traj.a_final]
        top = max(final) if final else 0
        if not top > 0:
            return []
        out = [(level_crossing(traj, j, fj / 2), j) for j, fj in enumerate(final) if fj >= active_fraction * top]
        return sorted(out, key=lambda t: t[0])


def _jump_distance(run_a, run_b) -> float:
    """Largest difference of jump times (same neurons in the same order) and of final a (relative)."""
    ja, jb = run_a.stats["jump_taus_mp"], run_b.stats["jump_taus_mp"]
    if [j for _, j in ja] != [j for _, j in jb]:
        return math.inf
    with mpmath.workdps(max(run_a.stats["digits"], run_b.stats["digits"])):
        dt = max((abs(mpmath.mpf(x) - mpmath.mpf(y)) for (x, _), (y, _) in zip(ja, jb, strict=False)), default=mpmath.mpf(0))
        fa, fb = run_a.stats["a_final_mp"], run_b.stats["a_final_mp"]
        top = max(abs(mpmath.mpf(v)) for v in fb) or mpmath.mpf(1)
        da = max(abs(mpmath.mpf(u) - mpmath.mpf(v)) for u, v in zip(fa, fb, strict=False)) / top
        return float(max(dt, da))


def orthonormal_taylor_run(instance: Instance, lam, *, digits: int = 40, horizon: float | None = None,
                           active_fraction: float = 1e-3) -> FlowRun:
    """One Taylor run of C's flow (C eqs. 2–4, Assumption 3 init) in the data basis, without the guard.

    On orthonormal data w_j = Σ_i Z_ij x_i + w_j^⊥ with w_j^⊥ = λ(ḡ_j − Σ_i ⟨ḡ_j, x_i⟩ x_i) frozen, so the
    flow runs in the exact basis X = I_n (G = I exactly, inactive components exactly frozen) and W
    is rebuilt at the end. Inner products ⟨x_i, ḡ_j⟩ are taken exactly from the instance's floats.
    """
    from .orthogonal_flow import check_arguments

    started = time.perf_counter()
    check_precision(digits)
    scale, L, horizon = check_arguments(instance, lam, horizon)
    check_precision(digits, L, accuracy_digits=digits - (required_digits(L, 0)))
    with mpmath.workdps(digits):
        lam_mp = scale.mpf()
        L_mp = -mpmath.log(lam_mp)
        X, G = to_mp(instance.inputs), to_mp(instance.directions)
        C = X @ G.T  # (n, m): ⟨x_i, ḡ_j⟩
        W_perp = lam_mp * (G - C.T @ X)
        a0 = np.array([lam_mp * int(s) for s in instance.signs], dtype=object)
        traj = taylor_flow(np.eye(instance.n), instance.labels, a0, lam_mp * C.T, horizon, time_scale=L_mp,
                           digits=digits)
        W_mp = W_perp + traj.W_final @ X
        jumps_mp = half_final_times(traj, active_fraction=active_fraction)
        a = np.array([float(v) for v in traj.a_final])
        W = np.array([[float(v) for v in row] for row in W_mp])
        taus = np.array([float(t) for t in traj.taus])
        losses = np.array([float(v) for v in traj.losses])
        rho = np.array([[float(v * v) for v in row] for row in traj.a])
        Xf, y = instance.inputs, instance.labels
        jumps = [Jump(float(t), j, fitted_points(Xf, y, a, W, j)) for t, j in jumps_mp]
        fitted = sorted({i for jp in jumps for i in jp.fitted})
        residual = y - np.maximum(Xf @ W.T, 0.0) @ a
        interpolates = bool(np.all(np.abs(residual) <= np.abs(y) / 2)) and len(fitted) == len(y)
        balance = max(abs(traj.a_final[j] ** 2 - sum(w * w for w in W_mp[j])) for j in range(instance.m))
        stats = {"digits": digits, "order": traj.order, "steps": traj.steps, "events": len(traj.events), "kernel": traj.kernel,
                 "event_list": [{"tau": float(e.tau), "neuron": e.neuron, "datum": e.datum, "kind": e.kind}
                                for e in traj.events[:50]],
                 "jump_taus_mp": [(mpmath.nstr(t, digits), j) for t, j in jumps_mp],
                 "a_final_mp": [mpmath.nstr(v, digits) for v in traj.a_final],
                 "final_loss_mp": mpmath.nstr(traj.losses[-1], 20),
                 "final_balancedness_defect": mpmath.nstr(balance, 5),
                 "wall_seconds": time.perf_counter() - started}
    return FlowRun(
        engine="mpmath-taylor", lam=str(scale), log_inv_lambda=L, taus=taus, losses=losses, rho=rho, a=a, W=W,
        jumps=jumps, loss_plateaus=plateau_losses(taus, losses, [jp.tau for jp in jumps]),
        interpolates=interpolates, squared_norm=float(a @ a + (W * W).sum()), status=traj.status,
        message=f"{traj.message} (τ = {taus[-1]:.6g}, {traj.steps} Taylor steps of order {traj.order})",
        precision=f"mpmath {digits} digits", stats=stats,
        tolerances={"method": f"Taylor order {traj.order}, Jorba–Zou step", "step_tolerance": f"1e-{digits}",
                    "horizon": horizon, "detection": "first τ with a_j² ≥ a_j(end)²/2, root of the Taylor polynomial"},
    )


@register_engine("mpmath-taylor")
def mpmath_taylor(instance: Instance, lam, *, digits: int = 40, horizon: float | None = None, guard: bool = True,
                  guard_tolerance: float | None = None, active_fraction: float = 1e-3) -> FlowRun:
    """C's flow at any λ ∈ (0, 1) (e.g. "1e-1000") at ``digits`` digits, with the precision guard.

    With ``guard`` the run is repeated at 2·digits; stats["guard_discrepancy"] is the largest
    difference of the jump times and of the final a (relative), and a discrepancy above
    ``guard_tolerance`` (default 10^-(digits − log10 ln(1/λ) − 5), the accuracy `required_digits`
    promises) turns the status into "guard_failed".
    """
    run = orthonormal_taylor_run(instance, lam, digits=digits, horizon=horizon, active_fraction=active_fraction)
    run.stats["guard_digits"] = None
    run.stats["guard_discrepancy"] = None
    if guard:
        tol = guard_tolerance if guard_tolerance is not None else 10.0 ** -(digits - required_digits(run.log_inv_lambda, 0))
        g = guarded(lambda dg: run if dg == digits else orthonormal_taylor_run(
            instance, lam, digits=dg, horizon=horizon, active_fraction=active_fraction), digits, _jump_distance, tol)
        run.stats.update(g.summary())
        run.stats["guard_jump_taus_mp"] = g.reference.stats["jump_taus_mp"]
        run.stats["guard_seconds"] = g.reference.stats["wall_seconds"]
        if not g.ok:
            run.status = "guard_failed"
            run.message += (f"; precision guard: {2 * digits}-digit rerun differs by {g.discrepancy:.3g} "
                            f"> {tol:.3g}")
    return run
