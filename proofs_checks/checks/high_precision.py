"""High-precision checks with the mpmath Taylor engine (`numerics.taylor`), spec C §2.6 and §5 C07, C11, C25, C27,
spec B §2.13.

* cross-engine agreement of jump times (mpmath vs the float64 engines of paper C), C.thm2;
* balancedness conserved to 10^-(digits − 10) across every activation event, C.prop1 and B.lem1;
* closed forms to ≥ 30 digits: B's group solution (corrected, spec B §2.13) and C's logistic fit phase;
* C's first-jump constant C_1 at tiny λ, and (full suite) the error law τ̂_k − τ_k = C_k/ln(1/λ) + O(λ^{c*})
  at λ = 1e-100, 1e-300, 1e-1000.

Every engine run carries the precision guard (a rerun at twice the digits, `numerics.precision_guard`): if the
two disagree beyond the check's tolerance the check is inconclusive, with both values reported.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy

from relucheck.numerics.engines import get_engine
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import PAPER_C, paper_b
from relucheck.numerics.orthogonal_flow import RTOL, SETTLE_RTOL
from relucheck.numerics.precision_guard import Guarded, apply_guard, guarded
from relucheck.numerics.arb_enclosure import certified_crossing, enclose_instance
from relucheck.numerics.mp_arrays import _mpf_to_arb, flint_precision
from relucheck.numerics.taylor import taylor_flow
from relucheck.numerics.taylor_engine import level_crossing, mpmath_taylor
from relucheck.theory.first_jump import first_jump
from relucheck.theory.high_precision_closed_forms import first_jump_constant, group_solution, group_solution_as_published
from relucheck.theory.limit_process import limit_process_of
from relucheck.theory.limit_process_exact import limit_process_exact

from ..registry import Context, check
from ..result import Outcome, Status, agree
from .paper_c_flow import golden_instance, leftover_exponent, separated_instance


def mixed_sign_instance(seed) -> Instance:
    """Small random orthonormal instance (rotated basis, d > n, mixed signs), tie-free with separated jumps."""
    return separated_instance(seed, n=4, m=3, d=5, min_gap=0.3, min_leftover=0.2)


def two_neuron_instance() -> Instance:
    """n = 3, x_i = e_i, y = (2, 1, 1), s = (+, +): j_1 = 0 fits S_1 = {0, 1} at τ_1 = 3/√5 with no wrong-sign
    component; neuron 1 (active on {2} only) has u_1(τ_1) = 1 − 1/√5 ≈ 0.553, so its output on S_1 is ≤ λ^{1.1}."""
    G = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]]) / math.sqrt(3.0)
    return Instance(np.eye(3), np.array([2.0, 1.0, 1.0]), G, np.ones(2), {"name": "two neurons, disjoint supports"})


def _mp_digits(values, digits):
    return [mpmath.nstr(v, digits) for v in values]


# ---------------------------------------------------------------------------------------------------------------
# cross-engine agreement (spec C §5 C27)

LAM_CROSS, DIGITS_CROSS = "1e-10", 18


@check("C.thm2.mpmath_vs_float64_jump_times", statement="C.thm2", precision=f"mpmath {DIGITS_CROSS} digits + float64",
       mutant="predicts Algorithm 1's λ → 0 jump times τ_k (drops the finite-λ delay C_k/ln(1/λ)) for the flow at λ = 1e-20")
def cross_engine(ctx: Context) -> Outcome:
    """Jump times of the mpmath Taylor engine vs "uw-float64" and "raw-float64" (golden + a mixed-sign instance)."""
    preds, meas, tols, rows = [], [], [], []
    worst_guard = None
    for name, inst in (("golden", golden_instance()), ("mixed", mixed_sign_instance(ctx.seed))):
        mp_run = ctx.cached(("mp", name), lambda inst=inst: mpmath_taylor(inst, LAM_CROSS, digits=DIGITS_CROSS))
        if worst_guard is None or mp_run.stats["guard_discrepancy"] > worst_guard.discrepancy:
            worst_guard = Guarded(mp_run.stats["jump_taus_mp"], mp_run.stats["guard_jump_taus_mp"], DIGITS_CROSS,
                                  2 * DIGITS_CROSS, mp_run.stats["guard_discrepancy"], 0.0)
        lp = limit_process_of(inst)
        for engine in ("uw-float64", "raw-float64"):
            fl = ctx.cached((engine, name), lambda engine=engine, inst=inst: get_engine(engine)(inst, LAM_CROSS))
            if [jp.neuron for jp in fl.jumps] != [jp.neuron for jp in mp_run.jumps]:
                return Outcome(Status.REFUTED, [jp.neuron for jp in mp_run.jumps], [jp.neuron for jp in fl.jumps], 0,
                               "the engines must find the same jumping neurons in the same order",
                               f"{name}: {engine} finds a different jump order")
            pred = [jp.tau for jp in lp.jumps] if ctx.mutate else [jp.tau for jp in mp_run.jumps]
            if len(pred) != len(fl.jumps):
                return Outcome(Status.REFUTED, pred, [jp.tau for jp in fl.jumps], 0, "same number of jumps",
                               f"{name}: {len(pred)} predicted jumps, {len(fl.jumps)} measured by {engine}")
            preds += pred
            meas += [jp.tau for jp in fl.jumps]
            tols.append(10 * fl.stats["steps"] * RTOL * max(1.0, max(pred)) + SETTLE_RTOL)
            rows.append({"instance": name, "engine": engine, "steps": fl.stats["steps"]})
    tol = max(tols)
    worst_guard.tolerance = tol
    out = agree(preds, meas, tol,
                "float64 engines: DOP853 at rtol 1e-10, global error ≤ 10·steps·rtol on τ (relative to max τ) plus their "
                "settling rule (relative change 1e-9 of a_j² at the end moves the half-final crossing by less); the "
                f"mpmath run is exact to its guard discrepancy (≤ 1e-{DIGITS_CROSS - 5})",
                message=f"λ = {LAM_CROSS}; runs {rows}", precision=f"mpmath {DIGITS_CROSS} digits vs float64")
    return apply_guard(out, worst_guard)


# ---------------------------------------------------------------------------------------------------------------
# balancedness across events (spec C §5 C07)

DIGITS_BAL = 20
LAM_BAL = "1e-10"


def _balance_drift(traj, weight_on_w: int):
    """max_j,τ |q_j(τ) − q_j(0)| / (a_j(τ)² + ‖w_j(τ)‖²), q = a² − k‖w‖² (k = 1 is the invariant)."""
    worst = mpmath.mpf(0)
    for a, q in zip(traj.a, traj.balance, strict=False):
        for j in range(len(a)):
            w2 = a[j] ** 2 - q[j]
            qk = a[j] ** 2 - weight_on_w * w2
            q0 = traj.a[0][j] ** 2 - weight_on_w * (traj.a[0][j] ** 2 - traj.balance[0][j])
            worst = max(worst, abs(qk - q0) / (a[j] ** 2 + w2))
    return worst


def _balance_outcome(ctx, key, run, digits, label):
    g = ctx.cached(key, lambda: guarded(run, digits, lambda u, v: abs(float(u[1] - v[1])), 10.0 ** -(digits - 10)))
    traj, _ = g.value
    if not traj.events:
        return Outcome(Status.INCONCLUSIVE, 0.0, None, None, "", f"{label}: no activation event occurred")
    with mpmath.workdps(traj.digits):
        drift = float(_balance_drift(traj, 2 if ctx.mutate else 1))
    g = Guarded(g.value[1], g.reference[1], g.digits, g.guard_digits, g.discrepancy, g.tolerance)
    out = agree(0.0, drift, 10.0 ** -(digits - 10),
                f"spec C §5 C07 / issue 4: 10^-(digits − 10) relative to a_j² + ‖w_j‖²; the Taylor step keeps each neuron "
                f"to relative 10^-{digits} per step, and ≤ 10^4 steps with 10^6 of conditioning stay below 10^-(digits−10)",
                message=f"{label}: {len(traj.events)} events ({[e.kind for e in traj.events][:6]}), {traj.steps} steps",
                precision=f"mpmath {digits} digits", events=len(traj.events), steps=traj.steps)
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v, 5))


def _orthonormal_events_run(seed):
    """C's flow of a mixed-sign instance in its data basis (x_i = e_i exactly, w_j^⊥ dropped: it is frozen and
    only shifts q_j by a constant), λ = LAM_BAL, accelerated time, up to Algorithm 1's τ_K + 0.5."""
    inst = mixed_sign_instance(seed)
    lp = limit_process_of(inst)
    horizon = lp.jumps[-1].tau + 0.5

    def run(digits):
        with mpmath.workdps(digits):
            lam = mpmath.mpf(LAM_BAL)
            C = _mp_matrix(inst.inputs) @ _mp_matrix(inst.directions).T  # ⟨x_i, ḡ_j⟩ exactly
            traj = taylor_flow(np.eye(inst.n), inst.labels, inst.signs * lam, C.T * lam, horizon,
                               time_scale=-mpmath.log(lam), convention=PAPER_C, digits=digits)
            return traj, _balance_drift(traj, 1)

    return run


def _mp_matrix(M):
    return np.array([[mpmath.mpf(float(v)) for v in row] for row in M], dtype=object)


@check("C.prop1.mpmath_across_events", statement="C.prop1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_orthonormal(ctx: Context) -> Outcome:
    """Raw Taylor flow of a rotated orthonormal mixed-sign instance in its data basis, λ = 1e-10, accelerated time."""
    return _balance_outcome(ctx, "orthonormal", _orthonormal_events_run(ctx.seed), DIGITS_BAL,
                            f"rotated orthonormal data, λ = {LAM_BAL}")


def _gaussian_run(seed, stream: int, t_end: float, max_events: int, accept, wanted: str, max_tries: int = 30):
    """B's convention (p = 3) on Gaussian data x_i ~ N(0, I_d/d), n = 4 < d = 8, balanced init a_j = s_j‖w_j‖:
    ``run(digits) → (trajectory, drift)`` for the first draw of default_rng([seed, stream, attempt]) whose
    `MIN_PROBE_DIGITS` run to ``t_end`` ends normally and satisfies ``accept(event kinds)``."""
    n, d, p = 4, 8, 3
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, stream, attempt])
        X = rng.standard_normal((n, d)) / math.sqrt(d)
        y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
        W = rng.standard_normal((p, d)) / math.sqrt(d)
        signs = rng.choice([-1.0, 1.0], p)

        def run(digits, X=X, y=y, W=W, signs=signs):
            with mpmath.workdps(digits):
                Wm = _mp_matrix(W)
                a0 = np.array([s * mpmath.sqrt(sum(w * w for w in row)) for s, row in zip(signs, Wm, strict=False)], dtype=object)
                traj = taylor_flow(X, y, a0, Wm, t_end, convention=paper_b(p), digits=digits, max_events=max_events)
                return traj, _balance_drift(traj, 1)

        probe, _ = run(MIN_PROBE_DIGITS)
        if probe.status == "success" and accept([e.kind for e in probe.events]):
            return run
    raise RuntimeError(f"no Gaussian instance {wanted} in {max_tries} draws (seed {seed})")


def _gaussian_events_run(seed):
    """Non-orthogonal data make both deactivation and activation events, and often sliding modes (a component
    pushed back onto the kink from both sides; `taylor_flow` continues them as Filippov sliding, checked by
    `B.lem1.mpmath_through_sliding`): stream 41, t ≤ 30, at least two events and no sliding."""
    return _gaussian_run(seed, 41, 30.0, 40, lambda kinds: len(kinds) >= 2 and "slide" not in kinds,
                         "with two events and no sliding mode")


def _sliding_run(seed):
    """Stream 43, t ≤ 10: the run enters a sliding mode and leaves one (Filippov sliding,
    `numerics.taylor._Problem.projections`)."""
    return _gaussian_run(seed, 43, 10.0, 60, lambda kinds: "slide" in kinds and bool({"leave_up", "leave_down"} & set(kinds)),
                         "entering and leaving a sliding mode")


MIN_PROBE_DIGITS = 16


@check("B.lem1.mpmath_through_sliding", statement="B.lem1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_sliding(ctx: Context) -> Outcome:
    """Taylor flow through Filippov sliding modes (a component held on the kink with activation weight η ∈ (0, 1)),
    entered and left, Gaussian data n = 4, d = 8, B's 1/p convention: a_j² − ‖w_j‖² stays conserved, because a
    sliding component has ⟨w_j, x_i⟩ = 0 and its weight drops out of d‖w_j‖²/dt. (That the sliding flow is the
    limit of GD with σ'(0) = 0, at first order in the learning rate, is `tests/test_high_precision.py`.)"""
    return _balance_outcome(ctx, "sliding", _sliding_run(ctx.seed), DIGITS_BAL,
                            "Gaussian data n = 4, d = 8, p = 3, balanced init, sliding modes entered and left")


@check("B.lem1.mpmath_across_events", statement="B.lem1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_gaussian(ctx: Context) -> Outcome:
    """Taylor flow on correlated Gaussian data (n = 4, d = 8: activations and deactivations), B's 1/p convention."""
    return _balance_outcome(ctx, "gaussian", _gaussian_events_run(ctx.seed), DIGITS_BAL,
                            "Gaussian data n = 4, d = 8, p = 3, balanced init")


# ---------------------------------------------------------------------------------------------------------------
# closed forms (spec B §2.13, spec C §2.6 and C25)

DIGITS_CF = 40
DIGITS_GROUP = 36
CLOSED_FORM_DIGITS = 30  # issue 4: agreement to at least 30 digits


def _closed_form_error(traj, groups, labels, n, p, time_scale, formula):
    """max over samples and neurons of |Δρ| and |ΔN|/N between the flow and ``formula``."""
    worst = mpmath.mpf(0)
    a0, Z0 = traj.a[0], traj.Z[0]
    for j, G in enumerate(groups):
        Y = [mpmath.mpf(labels[i]) for i in G]
        s = 1 if Y[0] > 0 else -1
        norm_y = mpmath.sqrt(sum(v * v for v in Y))

        def rho_N(a, Z, j=j, G=G, s=s, Y=Y, norm_y=norm_y):
            u = [Z[i, j] for i in G]
            norm_u = mpmath.sqrt(sum(v * v for v in u))
            return s * sum(yi * ui for yi, ui in zip(Y, u, strict=True)) / (norm_y * norm_u), a[j] ** 2

        rho0, N0 = rho_N(a0, Z0)
        for tau, a, Z in zip(traj.taus, traj.a, traj.Z, strict=False):
            rho, N = rho_N(a, Z)
            rho_c, N_c = formula(tau * time_scale, N0, rho0, norm_y, n, p)
            worst = max(worst, abs(rho - rho_c), abs(N - N_c) / N_c)
    return worst


def _closed_form_tolerance(traj, rate_time):
    """10 · steps · (1 + c·t_end) · 10^-digits: per-step relative error 10^-digits on every neuron, accumulated over
    the steps, plus the time variable's rounding amplified by the fastest rate c over the horizon."""
    return 10.0 * traj.steps * (1 + rate_time) * 10.0 ** -traj.digits


def _group_run(seed):
    """B's group initialization (eq. 9, spec B §2.13 E1–E6) with ρ_0 < 1: n = 6, p = 2, k = 3, d = 8, x_i = e_i."""
    rng = np.random.default_rng([seed, 43])
    n, p, d = 6, 2, 8
    y = np.array([1.0, 0.5, 0.75, -1.0, -0.5, -1.25])
    coef = rng.uniform(0.1, 1.1, (p, 3))  # positive components on the own group: E4 with ρ_0 < 1
    groups = [[0, 1, 2], [3, 4, 5]]
    X = np.eye(n, d)
    t_end = 25.0

    def run(digits):
        with mpmath.workdps(digits):
            W = np.full((p, d), mpmath.mpf(0), dtype=object)
            for j, G in enumerate(groups):
                for q, i in enumerate(G):
                    W[j, i] = mpmath.mpf(float(coef[j, q])) / 2
            a0 = np.array([(1 if y[G[0]] > 0 else -1) * mpmath.sqrt(sum(w * w for w in W[j]))
                           for j, G in enumerate(groups)], dtype=object)
            traj = taylor_flow(X, y, a0, W, t_end, convention=paper_b(p), digits=digits)
            return traj

    return run, groups, y, n, p, t_end


def final_state_distance(u, v) -> float:
    """Guard distance of two `TaylorTrajectory` runs to the same end: max |Δa_j|, |ΔZ_ij| relative to neuron j's size."""
    worst = mpmath.mpf(0)
    for j in range(len(v.a_final)):
        size = abs(v.a_final[j]) + mpmath.sqrt(sum(z * z for z in v.Z[-1][:, j]))
        if size == 0:
            continue
        diffs = [abs(u.a_final[j] - v.a_final[j])] + [abs(x - z) for x, z in zip(u.Z[-1][:, j], v.Z[-1][:, j], strict=False)]
        worst = max(worst, max(diffs) / size)
    return float(worst)


@check("B.prop2.group_closed_form_30_digits", statement="B.prop2", precision=f"mpmath {DIGITS_GROUP} digits",
       mutant="the paper's published (67)/(69) (alignment ODE solved with rate c instead of c/2; spec B key finding 1)",
       finding="at 30 digits the flow follows the corrected tanh(ct/2 + artanh ρ_0) form, not the paper's published "
               "(67)/(69), when ρ_0 < 1.")
def group_closed_form(ctx: Context) -> Outcome:
    """Spec B §2.13: ρ(t) = tanh(ct/2 + artanh ρ_0) and N(t) = P N_0 E/(P + N_0 J) vs the Taylor flow, ρ_0 < 1."""
    run, groups, y, n, p, t_end = _group_run(ctx.seed)
    g = ctx.cached("group", lambda: guarded(run, DIGITS_GROUP, final_state_distance, 10.0 ** -CLOSED_FORM_DIGITS))
    traj = g.value
    formula = group_solution_as_published if ctx.mutate else group_solution
    with mpmath.workdps(DIGITS_GROUP):
        err = float(_closed_form_error(traj, groups, y, n, p, 1, formula))
        rho0 = [mpmath.nstr(_rho0(traj, G, y, j), 8) for j, G in enumerate(groups)]
    c_max = 2 * max(np.linalg.norm(y[G]) for G in groups) / n
    tol = _closed_form_tolerance(traj, c_max * t_end)
    out = agree(0.0, err, tol,
                "10·steps·(1 + c·t_end)·10^-digits: the Taylor step's relative error per neuron, accumulated, plus the "
                f"rounding of t amplified by the rate c; it must be ≤ 10^-{CLOSED_FORM_DIGITS} (30 digits)",
                message=f"max |Δρ|, |ΔN|/N over {len(traj.taus)} samples; p = {p}, n = {n}, groups {groups}, "
                        f"t ∈ [0, {t_end}], ρ_0 = {rho0}", precision=f"mpmath {DIGITS_GROUP} digits", steps=traj.steps)
    if tol > 10.0 ** -CLOSED_FORM_DIGITS and out.status is Status.VERIFIED:
        out.status = Status.INCONCLUSIVE
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v.a_final[0], 35))


def _rho0(traj, G, y, j):
    u = [traj.Z[0][i, j] for i in G]
    Y = [mpmath.mpf(y[i]) for i in G]
    norm = mpmath.sqrt(sum(v * v for v in Y)) * mpmath.sqrt(sum(v * v for v in u))
    return abs(sum(a * b for a, b in zip(Y, u, strict=True))) / norm


LAM_LOGISTIC = "1e-20"


def _logistic_run():
    """C, one neuron exactly aligned with ŷ_S (ρ_0 = 1), S = {0, 1}; datum 2 (label < 0) frozen at 0; λ = LAM_LOGISTIC."""
    y = np.array([1.5, 1.0, -0.5])
    n = 3
    tau_end = n / float(np.linalg.norm(y[:2])) + 0.5  # τ_1 = 1/γ = n/‖y_S‖, then half a unit of τ

    def run(digits):
        with mpmath.workdps(digits):
            lam = mpmath.mpf(LAM_LOGISTIC)
            Y = [mpmath.mpf(1.5), mpmath.mpf(1)]
            norm = mpmath.sqrt(Y[0] ** 2 + Y[1] ** 2)
            W = np.array([[lam * Y[0] / norm, lam * Y[1] / norm, mpmath.mpf(0)]], dtype=object)
            return taylor_flow(np.eye(n), y, np.array([lam], dtype=object), W, tau_end,
                               time_scale=-mpmath.log(lam), digits=digits)

    return run, y, n, tau_end


@check("C.lem6.logistic_fit_phase_30_digits", statement="C.lem6", precision=f"mpmath {DIGITS_CF} digits",
       mutant="the logistic law with rate ρ/n instead of 2ρ/n: ρ' = (ρ/n)(‖y_S‖ − ρ)")
def logistic_fit_phase(ctx: Context) -> Outcome:
    """Spec C §2.6: once aligned, ρ = a² obeys ρ' = (2ρ/n)(‖y_S‖ − ρ) exactly; λ = 1e-20, ρ from 1e-40 to ‖y_S‖."""
    run, y, n, tau_end = _logistic_run()
    g = ctx.cached("logistic", lambda: guarded(run, DIGITS_CF, final_state_distance, 10.0 ** -CLOSED_FORM_DIGITS))
    traj = g.value
    with mpmath.workdps(DIGITS_CF):
        L = -mpmath.log(mpmath.mpf(LAM_LOGISTIC))
        norm_y = mpmath.sqrt(mpmath.mpf(1.5) ** 2 + 1)
        rate = norm_y / 2 if ctx.mutate else norm_y  # c = 2‖y_S‖/n in N' = cN(1 − N/‖y_S‖); the mutant halves it
        N0 = traj.a[0][0] ** 2
        worst = mpmath.mpf(0)
        for tau, a in zip(traj.taus, traj.a, strict=False):
            E = mpmath.exp(2 * rate / n * tau * L)
            N_c = norm_y * N0 * E / (norm_y + N0 * (E - 1))
            worst = max(worst, abs(a[0] ** 2 - N_c) / N_c)
    tol = _closed_form_tolerance(traj, float(2 * norm_y / n * L * tau_end))
    out = agree(0.0, float(worst), tol,
                "10·steps·(1 + c·ln(1/λ)·τ_end)·10^-digits (per-step relative error per neuron, accumulated, and the "
                f"rounding of τ amplified by the rate); it must be ≤ 10^-{CLOSED_FORM_DIGITS}",
                message=f"max relative error of a² over {len(traj.taus)} samples, τ ∈ [0, {tau_end:.4f}], λ = {LAM_LOGISTIC}",
                precision=f"mpmath {DIGITS_CF} digits", steps=traj.steps)
    if tol > 10.0 ** -CLOSED_FORM_DIGITS and out.status is Status.VERIFIED:
        out.status = Status.INCONCLUSIVE
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v.a_final[0], 35))


# ---------------------------------------------------------------------------------------------------------------
# first-jump constant and the error law (spec C §2.6, §5 C11)

def _exact_taus(inst: Instance, digits: int) -> list:
    """Algorithm 1's τ_k in exact arithmetic (`theory.limit_process_exact`), as mpf at ``digits`` digits."""
    exact = limit_process_exact(inst.labels, inst.signs, inst.activation())
    with mpmath.workdps(digits):
        return [mpmath.mpf(str(sympy.N(jp.tau, digits + 5))) for jp in exact.jumps]


def _error_constants(run, taus, lam):
    """(τ̂_k − τ_k)·ln(1/λ) for every jump, at the run's precision."""
    with mpmath.workdps(run.stats["digits"]):
        L = -mpmath.log(mpmath.mpf(lam))
        return [(mpmath.mpf(t) - tau) * L for (t, _), tau in zip(run.stats["jump_taus_mp"], taus, strict=False)]


LAM_C1, DIGITS_C1 = "1e-60", 30


@check("C.thm2.first_jump_constant_mpmath", statement="C.thm2", precision=f"mpmath {DIGITS_C1} digits",
       mutant="C_1 = ln(√‖y_S1‖)/γ, i.e. κ = 1 (ignores the initial misalignment of j_1)")
def first_jump_constant_check(ctx: Context) -> Outcome:
    """(τ̂_1 − τ_1)·ln(1/λ) = C_1 = ln(√‖y_S1‖/κ)/γ up to O(λ^{c*}) corrections, at λ = 1e-60 to ~25 digits."""
    inst = two_neuron_instance()
    lp = limit_process_of(inst)
    run = ctx.cached("c1", lambda: mpmath_taylor(inst, LAM_C1, digits=DIGITS_C1, horizon=lp.jumps[0].tau + 0.5))
    jp = lp.jumps[0]
    with mpmath.workdps(DIGITS_C1):
        g_data = [mpmath.mpf(float(v)) for v in inst.directions[jp.neuron]]  # x_i = e_i: ⟨ḡ, x_i⟩ = ḡ_i exactly
        S = jp.fitted
        n = inst.n
        norm_y = mpmath.sqrt(sum(mpmath.mpf(inst.labels[i]) ** 2 for i in S))
        tau1 = n / norm_y  # τ_1 = 1/γ exactly
        C1 = (mpmath.log(mpmath.sqrt(norm_y)) * n / norm_y if ctx.mutate
              else first_jump_constant(g_data, inst.labels, S, float(inst.signs[jp.neuron])))
        L = -mpmath.log(mpmath.mpf(LAM_C1))
        measured = (mpmath.mpf(run.stats["jump_taus_mp"][0][0]) - tau1) * L
        lam = mpmath.mpf(LAM_C1)
        gamma = norm_y / n
        c_star = leftover_exponent(inst, lp)
        tol = float(10 * (lam ** c_star + lam ** (gamma * 0.5)) / gamma + L * mpmath.mpf(10) ** -(DIGITS_C1 - 10))
    float_c1 = first_jump(inst, lp).constant
    out = agree(float(C1), float(measured), tol,
                f"neglected terms (theory.first_jump): other neurons' output λ^{{c*}} (c* = {c_star:.4f}) and the half-final "
                "value's deviation λ^{γ·0.5} after the 0.5 horizon margin, each shifting C_1 by ≤ 10·λ^{...}/γ; plus "
                "ln(1/λ)·10^-(digits−10) from the guarded jump time",
                message=f"C_1 (mpmath) = {mpmath.nstr(C1, 25)}, measured {mpmath.nstr(measured, 25)}, theory.first_jump "
                        f"(float64) {float_c1:.15g}; λ = {LAM_C1}",
                precision=f"mpmath {DIGITS_C1} digits", c_star=c_star)
    guard = Guarded(run.stats["jump_taus_mp"], run.stats["guard_jump_taus_mp"], DIGITS_C1, 2 * DIGITS_C1,
                    run.stats["guard_discrepancy"], tol / float(L))
    return apply_guard(out, guard)


ERROR_LAW_LAMBDAS = ("1e-100", "1e-300", "1e-1000")
DIGITS_LAW = 40


@check("C.thm2.error_law_tiny_lambda", statement="C.thm2", precision=f"mpmath {DIGITS_LAW} digits", suites=("full",),
       mutant="errors shrinking like C/ln(1/λ)² (compares (τ̂_k − τ_k)·ln(1/λ)² across λ instead of ·ln(1/λ))")
def error_law(ctx: Context) -> Outcome:
    """Golden example at λ = 1e-100, 1e-300, 1e-1000: (τ̂_k − τ_k)·ln(1/λ) = C_k + O(λ^{c*}), C_1 in closed form."""
    inst = golden_instance()
    lp = limit_process_of(inst)
    c_star = leftover_exponent(inst, lp)
    gammas = [jp.norm_y / inst.n for jp in lp.jumps]
    rows, guards = {}, []
    taus = _exact_taus(inst, DIGITS_LAW)
    for lam in ERROR_LAW_LAMBDAS:
        run = ctx.cached(("law", lam), lambda lam=lam: mpmath_taylor(inst, lam, digits=DIGITS_LAW))
        if [j for _, j in run.stats["jump_taus_mp"]] != [jp.neuron for jp in lp.jumps]:
            return Outcome(Status.REFUTED, [jp.neuron for jp in lp.jumps], run.stats["jump_taus_mp"], 0,
                           "the flow must make Algorithm 1's jumps", f"λ = {lam}: different jumps")
        consts = _error_constants(run, taus, lam)
        if ctx.mutate:
            consts = [c * -mpmath.log(mpmath.mpf(lam)) for c in consts]
        rows[lam] = consts
        guards.append(run)
    last = ERROR_LAW_LAMBDAS[-1]
    preds, meas, tols = [], [], []
    for lam in ERROR_LAW_LAMBDAS[:-1]:
        for c, ref in zip(rows[lam], rows[last], strict=True):
            preds.append(float(ref))
            meas.append(float(c))
            tols.append(10 * float(mpmath.mpf(lam) ** c_star) / min(gammas))
    with mpmath.workdps(DIGITS_LAW):
        jp = lp.jumps[0]
        g_data = [mpmath.mpf(float(v)) for v in inst.inputs @ inst.directions[jp.neuron]]
        C1 = first_jump_constant(g_data, inst.labels, jp.fitted, float(inst.signs[jp.neuron]))
    preds.append(float(C1))
    meas.append(float(rows[last][0]))
    tols.append(10 * float(mpmath.mpf(last) ** c_star) / min(gammas) + 10.0 ** -(DIGITS_LAW - 10))
    tol = max(tols)
    errors = [abs(p - q) for p, q in zip(preds, meas, strict=False)]
    ok = all(e <= t for e, t in zip(errors, tols, strict=False))
    table = {lam: [mpmath.nstr(c, 20) for c in rows[lam]] for lam in ERROR_LAW_LAMBDAS}
    out = agree(preds, meas, tol,
                f"corrections O(λ^{{c*}}) with c* = {c_star:.4f} (leftover exponent, spec C14): 10·λ^{{c*}}/min γ_k per λ; the "
                "last entry is C_1 in closed form vs the λ = 1e-1000 run (+10^-(digits−10) for the guarded jump time; τ_k exact)",
                message=f"(τ̂_k − τ_k)·ln(1/λ) per λ: {table}; C_1 = {mpmath.nstr(C1, 20)}",
                precision=f"mpmath {DIGITS_LAW} digits", per_entry_tolerances=tols)
    out.require(ok, "an entry exceeds its own per-λ tolerance")
    worst = max(guards, key=lambda r: r.stats["guard_discrepancy"])
    guard = Guarded(worst.stats["jump_taus_mp"], worst.stats["guard_jump_taus_mp"], DIGITS_LAW, 2 * DIGITS_LAW,
                    worst.stats["guard_discrepancy"], min(tols) / worst.log_inv_lambda)
    return apply_guard(out, guard)



# ---------------------------------------------------------------------------------------------------------------
# validated enclosures (python-flint arb)

LAM_ARB, DIGITS_ARB, ORDER_ARB, TAU_ARB = "1e-3", 30, 35, 1.3


def _enclosed_with_reference(inst, lam_text, tau_end, digits, order):
    """Arb enclosure of C's flow on ``inst`` to ``tau_end`` and an mpmath Taylor run 10 digits finer in the same data
    basis (its initial λ then lies inside the arb ball of λ, and its own error is below the enclosure's)."""
    enc = enclose_instance(inst, lam_text, tau_end, digits=digits, order=order)
    with mpmath.workdps(digits + 10):
        lam = mpmath.mpf(lam_text)
        C = _mp_matrix(inst.inputs) @ _mp_matrix(inst.directions).T
        traj = taylor_flow(np.eye(inst.n), inst.labels, inst.signs * lam, C.T * lam, tau_end,
                           time_scale=-mpmath.log(lam), digits=digits + 10)
    return enc, traj


def _enclosure_and_reference():
    """The golden example at λ = 1e-3 on [0, 1.3] (`_enclosed_with_reference`)."""
    inst = golden_instance()
    return (inst, *_enclosed_with_reference(inst, LAM_ARB, TAU_ARB, DIGITS_ARB, ORDER_ARB))


def _outside(enc, traj, mutate: bool):
    """Samples of the mpmath run (a and Z at its step ends) not contained in the enclosure; the mutant moves the
    middle sample's a_0 by three enclosure widths."""
    bad, widest = [], 0.0
    mid = len(traj.taus) // 2
    with flint_precision(DIGITS_ARB + 10), mpmath.workdps(DIGITS_ARB + 10):
        for k, (tau, a, Z) in enumerate(zip(traj.taus, traj.a, traj.Z, strict=False)):
            box_a, box_Z = enc.state_at(_mpf_to_arb(tau))
            widest = max(widest, max(float(x.rad()) for x in box_a))
            values = list(a)
            if mutate and k == mid:
                values[0] = values[0] + 3 * 2 * mpmath.mpf(float(box_a[0].rad())) + mpmath.mpf(10) ** -DIGITS_ARB
            points = [(box_a[j], values[j]) for j in range(len(values))]
            points += [(box_Z[i, j], Z[i, j]) for i in range(Z.shape[0]) for j in range(Z.shape[1])]
            if not all(box.contains(_mpf_to_arb(v)) for box, v in points):
                bad.append(k)
    return bad, widest


@check("C.prop1.arb_certified_trajectory", statement="C.prop1", precision=f"arb {DIGITS_ARB} digits (validated)",
       mutant="one sample of the mpmath trajectory moved by three enclosure widths (outside the certified box)")
def arb_certified_trajectory(ctx: Context) -> Outcome:
    """Validated enclosure (golden, λ = 1e-3): the invariant's enclosure contains q_j(0) with width ≤ 10^-(digits−10)
    at every step end, the loss is enclosed, and every sample of an independent mpmath Taylor run lies inside."""
    inst, enc, traj = ctx.cached("arb", _enclosure_and_reference)
    bad, widest = _outside(enc, traj, ctx.mutate)
    inv_ok = all(b.contains(q0) for bal in enc.balance for b, q0 in zip(bal, enc.balance[0], strict=False))
    inv_width = max(float(b.rad()) for bal in enc.balance for b in bal)
    loss_width = max(float(v.rad()) for v in enc.losses)
    tol = 10.0 ** -(DIGITS_ARB - 10)
    status = Status.VERIFIED if not bad and inv_ok and inv_width <= tol else Status.REFUTED
    return Outcome(status, "all samples inside; q_j(0) ∈ enclosure of q_j(τ)", {"samples_outside": bad},
                   tol, f"containment is exact (interval arithmetic); the invariant's certified width must be ≤ "
                        f"10^-(digits−10) = {tol:g} to call the conservation certified at that accuracy",
                   f"{len(enc.steps)} validated steps of order {ORDER_ARB}; {len(traj.taus)} mpmath samples, "
                   f"{len(bad)} outside; widest a-enclosure radius {widest:.3g}; invariant width {inv_width:.3g}, "
                   f"loss width {loss_width:.3g}; final loss ∈ {enc.losses[-1].str(20, radius=True)}",
                   f"arb {DIGITS_ARB} digits", {"steps": len(enc.steps), "invariant_width": inv_width,
                                               "loss_width": loss_width, "widest_a_radius": widest})


@check("C.thm2.arb_certified_jump_time", statement="C.thm2", precision=f"arb {DIGITS_ARB} digits (validated)",
       mutant="the mpmath half-fit time shifted by twice the certified bracket's width")
def arb_certified_jump_time(ctx: Context) -> Outcome:
    """Golden, λ = 1e-3: the first τ with a_{j1}² ≥ ‖y_S1‖/2 lies in a certified bracket, which must contain the
    mpmath engine's root of the same equation (spec C §2.6's half-fit rule with the limit value)."""
    from flint import arb

    inst, enc, traj = ctx.cached("arb", _enclosure_and_reference)
    lp = limit_process_of(inst)
    jp = lp.jumps[0]
    level = arb(5) / 2  # ‖y_S1‖² = 3² + 4² exactly: half of ‖y_S1‖ = 5
    assert abs(jp.norm_y - 5.0) < 1e-12, "golden example: ‖y_S1‖ = 5"
    bracket = ctx.cached("bracket", lambda: certified_crossing(enc, jp.neuron, level))
    if bracket is None:
        return Outcome(Status.INCONCLUSIVE, None, None, None, "", "no certified bracket (crossing not transversal?)")
    lo, hi = bracket
    with mpmath.workdps(traj.digits):
        tau = level_crossing(traj, jp.neuron, mpmath.mpf(5) / 2)
        width = mpmath.mpf(float((hi - lo).mid()))
        if ctx.mutate:
            tau = tau + 2 * width + mpmath.mpf(10) ** -DIGITS_ARB
        with flint_precision(traj.digits):
            inside = bool(lo <= _mpf_to_arb(tau) and _mpf_to_arb(tau) <= hi)
    status = Status.VERIFIED if inside else Status.REFUTED
    return Outcome(status, [lo.str(20, radius=False), hi.str(20, radius=False)], mpmath.nstr(tau, 25), float(width),
                   "containment in a certified interval is exact; the bracket's width (h/32^4 pieces) is reported",
                   f"certified τ̂_1 ∈ [{lo.str(15, radius=False)}, {hi.str(15, radius=False)}] (width {float(width):.3g}); "
                   f"mpmath: {mpmath.nstr(tau, 20)}; λ = {LAM_ARB}", f"arb {DIGITS_ARB} digits",
                   {"bracket_width": float(width)})


# validated enclosure through deactivation events (mixed-sign instance)
LAM_EVENTS, DIGITS_EVENTS, ORDER_EVENTS = "1e-2", 30, 30


def _events_enclosure_and_reference(seed):
    """Arb enclosure of the mixed-sign instance through its deactivation events to τ_1 + 0.3 (λ = 1e-2), and an
    mpmath Taylor run 10 digits finer in the same data basis."""
    inst = mixed_sign_instance(seed)
    jp = limit_process_of(inst).jumps[0]
    return (inst, jp, *_enclosed_with_reference(inst, LAM_EVENTS, jp.tau + 0.3, DIGITS_EVENTS, ORDER_EVENTS))


@check("C.thm2.arb_certified_events", statement="C.thm2", precision=f"arb {DIGITS_EVENTS} digits (validated)",
       mutant="every mpmath event time shifted by twice its certified interval's width")
def arb_certified_events(ctx: Context) -> Outcome:
    """Validated enclosure across events (mixed-sign orthonormal instance, λ = 1e-2, to τ_1 + 0.3): each
    deactivation is certified inside an interval that must contain the mpmath engine's event (same neuron and
    datum, same order), the invariant q_j(0) lies in every enclosure of q_j(τ), and the first jump's half-fit time
    after the events lies in a certified bracket that must contain the mpmath root."""
    from flint import arb

    inst, jp, enc, traj = ctx.cached(("arb-events", ctx.seed), lambda: _events_enclosure_and_reference(ctx.seed))
    certified = [(j, i) for _, _, j, i in enc.events]
    computed = [(e.neuron, e.datum) for e in traj.events]
    if certified != computed:
        return Outcome(Status.REFUTED, certified, computed, 0, "the same events in the same order",
                       "the enclosure and the mpmath engine disagree on the events")
    level_mp = mpmath.mpf(jp.norm_y) / 2
    bracket = ctx.cached(("arb-events-bracket", ctx.seed),
                         lambda: certified_crossing(enc, jp.neuron, arb(mpmath.nstr(level_mp, 45))))
    if bracket is None:
        return Outcome(Status.INCONCLUSIVE, None, None, None, "", "no certified bracket of the half-fit time")
    inside, widths = [], []
    with mpmath.workdps(traj.digits), flint_precision(traj.digits):
        times = [e.tau for e in traj.events] + [level_crossing(traj, jp.neuron, level_mp)]
        intervals = [(lo, hi) for lo, hi, _, _ in enc.events] + [bracket]
        for t, (lo, hi) in zip(times, intervals, strict=True):
            width = mpmath.mpf(float((hi - lo).mid()))
            widths.append(float(width))
            if ctx.mutate:
                t = t + 2 * width + mpmath.mpf(10) ** -DIGITS_EVENTS
            inside.append(bool(lo <= _mpf_to_arb(t) and _mpf_to_arb(t) <= hi))
    inv_ok = all(b.contains(q0) for bal in enc.balance for b, q0 in zip(bal, enc.balance[0], strict=True))
    status = Status.VERIFIED if all(inside) and inv_ok else Status.REFUTED
    lo, hi = bracket
    return Outcome(status, [f"[{a.str(12, radius=False)}, {b.str(12, radius=False)}]" for a, b in intervals],
                   [mpmath.nstr(t, 15) for t in times], max(widths),
                   "containment in a certified interval is exact; the widths of the event intervals (bisection to the "
                   "working precision) and of the bracket (h/32^4 pieces) are reported",
                   f"{len(enc.events)} certified events of widths {', '.join(f'{w:.2g}' for w in widths[:-1])}; "
                   f"half-fit τ ∈ [{lo.str(15, radius=False)}, {hi.str(15, radius=False)}]; {len(enc.steps)} validated "
                   f"steps; all mpmath times inside: {all(inside)}; invariant contained: {inv_ok}; λ = {LAM_EVENTS}",
                   f"arb {DIGITS_EVENTS} digits", {"events": len(enc.events), "widths": widths})
