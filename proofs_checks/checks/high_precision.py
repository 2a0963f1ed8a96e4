"""High-precision checks with the flow engine "mpmath" (`numerics.flows.engines.taylor`), spec C §2.6 and §5 C07, C25,
spec B §2.13:

* balancedness conserved to 10^-(digits − 10) across every activation event and through Filippov sliding, C.prop1
  and B.lem1;
* closed forms to ≥ 30 digits: B's group solution (corrected, spec B §2.13) and C's logistic fit phase.

(C's first-jump constant at tiny λ and the error law of the jump times: `high_precision_jumps`; cross-engine
agreement: `engines_agreement`; validated arb enclosures: `high_precision_arb`.) Every engine run
carries the precision guard (a rerun at twice the digits, `numerics.precision_guard`): if the two disagree beyond
the check's tolerance the check is inconclusive, with both values reported (`proofs_checks.result.apply_guard`).
Closed forms need an exactly balanced, exactly aligned start: their initial weights are dyadic vectors of rational
norm (exact in float64), so that a_j² = ‖w_j‖² holds exactly.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from relucheck.numerics.flows import FlowProblem, Init, solve
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import paper_b
from relucheck.numerics.precision_guard import Guarded, guarded
from relucheck.theory.high_precision_closed_forms import group_solution, group_solution_as_published
from relucheck.theory.limit_process import limit_process_of

from ..registry import Context, check
from ..reader_text import event_sequence, plain
from ..result import Outcome, Status, agree, apply_guard
from .paper_c_flow import separated_instance


def mixed_sign_instance(seed) -> Instance:
    """Small random orthonormal instance (rotated basis, d > n, mixed signs), tie-free with separated jumps."""
    return separated_instance(seed, n=4, m=3, d=5, min_gap=0.3, min_leftover=0.2)



def mp_run(problem, digits, samples: int = 41, **options):
    """Engine "mpmath" on ``problem`` with a, W sampled at ``samples`` equally spaced times as mpmath numbers."""
    grid = tuple(np.linspace(0.0, problem.horizon, samples))
    problem = FlowProblem(problem.inputs, problem.labels, problem.init, problem.convention, problem.horizon,
                          problem.time_unit, grid)
    return solve(problem, "mpmath", digits=digits, exact_samples=True, save_params=True, **options)



# ---------------------------------------------------------------------------------------------------------------
# balancedness across events and through sliding (spec C §5 C07, B Lemma 1)

DIGITS_BAL = 20
LAM_BAL = "1e-10"
MIN_PROBE_DIGITS = 16


def balance_drift(run, weight_on_w: int = 1):
    """max over samples and neurons of |q_j(τ) − q_j(0)| / (a_j(τ)² + ‖w_j(τ)‖²), q = a² − k‖w‖² (k = 1: the
    invariant), on the run's exact samples."""
    worst = mpmath.mpf(0)
    a0, W0 = run.trajectory.a[0], run.trajectory.W[0]
    for a, W in zip(run.trajectory.a, run.trajectory.W, strict=True):
        for j in range(len(a)):
            w2, w02 = mpmath.fdot(W[j], W[j]), mpmath.fdot(W0[j], W0[j])
            q, q0 = a[j] ** 2 - weight_on_w * w2, a0[j] ** 2 - weight_on_w * w02
            worst = max(worst, abs(q - q0) / (a[j] ** 2 + w2))
    return worst


def _balance_outcome(ctx, key, run, digits, label):
    def compute(d):
        result = run(d)
        with mpmath.workdps(d):
            return result, balance_drift(result)

    g = ctx.cached(key, lambda: guarded(compute, digits, lambda u, v: abs(float(u[1] - v[1])), 10.0 ** -(digits - 10)))
    result, _ = g.value
    if not result.events:
        return Outcome(Status.INCONCLUSIVE, 0.0, None, None, "", f"{label}: no activation event occurred")
    with mpmath.workdps(digits):
        drift = float(balance_drift(result, 2 if ctx.mutate else 1))
    g = Guarded(g.value[1], g.reference[1], g.digits, g.guard_digits, g.discrepancy, g.tolerance)
    out = agree(0.0, drift, 10.0 ** -(digits - 10),
                f"10^-(digits − 10) relative to a_j² + ‖w_j‖²; the Taylor step keeps each neuron "
                f"to relative 10^-{digits} per step, and ≤ 10^4 steps with 10^6 of conditioning stay below 10^-(digits−10)",
                message=f"{label}: {len(result.events)} events ({event_sequence(e.kind.value for e in result.events)}), "
                        f"{result.stats['steps']} steps", precision=f"mpmath {digits} digits",
                events=len(result.events), steps=result.stats["steps"])
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v, 5))


def _orthonormal_events_run(seed):
    """C's flow of a mixed-sign instance in its data basis (x_i = e_i, w_j^⊥ dropped: it is frozen and only shifts q_j
    by a constant), λ = LAM_BAL, accelerated time, up to Algorithm 1's τ_K + 0.5."""
    inst = mixed_sign_instance(seed)
    horizon = limit_process_of(inst).jumps[-1].tau + 0.5
    C = inst.directions @ inst.inputs.T  # ⟨ḡ_j, x_i⟩ (rounded: the invariant holds for any start)
    problem = FlowProblem(np.eye(inst.n), inst.labels, Init(inst.signs, C, LAM_BAL), horizon=horizon)
    return lambda digits: mp_run(problem, digits)


@check("C.prop1.mpmath_across_events", statement="C.prop1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_orthonormal(ctx: Context) -> Outcome:
    """Engine "mpmath" on a rotated orthonormal mixed-sign instance in its data basis, λ = 1e-10, accelerated time."""
    return _balance_outcome(ctx, "orthonormal", _orthonormal_events_run(ctx.seed), DIGITS_BAL,
                            f"rotated orthonormal data, λ = {LAM_BAL}")


def _gaussian_run(seed, stream: int, t_end: float, max_events: int, accept, wanted: str, max_tries: int = 30):
    """B's convention (p = 3) on Gaussian data x_i ~ N(0, I_d/d), n = 4 < d = 8, balanced init a_j = s_j‖w_j‖ (to
    float64 rounding): ``run(digits)`` for the first draw of default_rng([seed, stream, attempt]) whose
    `MIN_PROBE_DIGITS` run to ``t_end`` succeeds and satisfies ``accept(event kinds)``."""
    n, d, p = 4, 8, 3
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, stream, attempt])
        X = rng.standard_normal((n, d)) / math.sqrt(d)
        y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
        W = rng.standard_normal((p, d)) / math.sqrt(d)
        a = rng.choice([-1.0, 1.0], p) * np.linalg.norm(W, axis=1)
        problem = FlowProblem(X, y, Init.explicit(a, W), convention=paper_b(p), horizon=t_end, time_unit="t")
        probe = solve(problem, "mpmath", digits=MIN_PROBE_DIGITS, max_events=max_events)
        if probe.success and accept([e.kind.value for e in probe.events]):
            return lambda digits, problem=problem: mp_run(problem, digits, max_events=max_events)
    raise RuntimeError(f"no Gaussian instance {wanted} in {max_tries} draws (seed {seed})")


@check("B.lem1.mpmath_through_sliding", statement="B.lem1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_sliding(ctx: Context) -> Outcome:
    """Engine "mpmath" through Filippov sliding modes (a component held on the kink with activation weight
    η ∈ (0, 1)), entered and left, Gaussian data n = 4, d = 8, B's 1/p convention (stream 43, t ≤ 10): a_j² − ‖w_j‖²
    stays conserved, because a sliding component has ⟨w_j, x_i⟩ = 0 and its weight drops out of d‖w_j‖²/dt. (That
    the sliding flow is the limit of GD with σ'(0) = 0 is `tests/test_engine_mpmath.py`.)"""
    run = _gaussian_run(ctx.seed, 43, 10.0, 60, lambda kinds: "slide" in kinds and bool({"leave_up", "leave_down"} & set(kinds)),
                        "entering and leaving a sliding mode")
    return _balance_outcome(ctx, "sliding", run, DIGITS_BAL,
                            "Gaussian data n = 4, d = 8, p = 3, balanced init, sliding modes entered and left")


@check("B.lem1.mpmath_across_events", statement="B.lem1", precision=f"mpmath {DIGITS_BAL} digits",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def balancedness_gaussian(ctx: Context) -> Outcome:
    """Engine "mpmath" on correlated Gaussian data (n = 4, d = 8, stream 41, t ≤ 30: at least two events, no
    sliding), B's 1/p convention."""
    run = _gaussian_run(ctx.seed, 41, 30.0, 40, lambda kinds: len(kinds) >= 2 and "slide" not in kinds,
                        "with two events and no sliding mode")
    return _balance_outcome(ctx, "gaussian", run, DIGITS_BAL, "Gaussian data n = 4, d = 8, p = 3, balanced init")


# ---------------------------------------------------------------------------------------------------------------
# closed forms (spec B §2.13, spec C §2.6 and C25)

DIGITS_CF = 40
DIGITS_GROUP = 36
CLOSED_FORM_DIGITS = 30  # issue 4: agreement to at least 30 digits
QUADRUPLES = ((1, 2, 2, 3), (2, 3, 6, 7), (1, 4, 8, 9), (4, 4, 7, 9), (2, 6, 9, 11), (6, 6, 7, 11))  # u²+v²+w² = z²


def final_state_distance(u, v) -> float:
    """Guard distance of two runs' last samples: max |Δa_j|, ‖Δw_j‖_∞ relative to |a_j| + ‖w_j‖."""
    worst = mpmath.mpf(0)
    a, b, Wu, Wv = u.trajectory.a[-1], v.trajectory.a[-1], u.trajectory.W[-1], v.trajectory.W[-1]
    for j in range(len(b)):
        size = abs(b[j]) + mpmath.sqrt(mpmath.fdot(Wv[j], Wv[j]))
        if size:
            worst = max(worst, max([abs(a[j] - b[j])] + [abs(x - z) for x, z in zip(Wu[j], Wv[j], strict=True)]) / size)
    return float(worst)


def _closed_form_tolerance(run, rate_time):
    """10 · steps · (1 + c·t_end) · 10^-digits: per-step relative error 10^-digits on every neuron, accumulated over
    the steps, plus the time variable's rounding amplified by the fastest rate c over the horizon."""
    return 10.0 * run.stats["steps"] * (1 + rate_time) * 10.0 ** -run.stats["digits"]


def _group_problem(seed):
    """B's group initialization (eq. 9, spec B §2.13 E1–E6) with ρ_0 < 1: n = 6, p = 2, k = 3, d = 8, x_i = e_i; each
    neuron starts on its own group with positive components (u, v, w)/16 of a random Pythagorean quadruple (exact
    norm z/16 = |a_j|: balanced exactly), in random order."""
    rng = np.random.default_rng([seed, 43])
    n, p, d = 6, 2, 8
    y = np.array([1.0, 0.5, 0.75, -1.0, -0.5, -1.25])
    groups = [[0, 1, 2], [3, 4, 5]]
    W, a = np.zeros((p, d)), np.zeros(p)
    for j, G in enumerate(groups):
        u, v, w, z = QUADRUPLES[rng.integers(len(QUADRUPLES))]
        W[j, G] = np.array([u, v, w], dtype=float)[rng.permutation(3)] / 16
        a[j] = np.sign(y[G[0]]) * z / 16
    problem = FlowProblem(np.eye(n, d), y, Init.explicit(a, W), convention=paper_b(p), horizon=25.0, time_unit="t")
    return problem, groups, y, n, p


def _group_error(run, groups, labels, n, p, formula):
    """(max over samples and neurons of |Δρ| and |ΔN|/N between the flow and ``formula``, [ρ_0 per group]);
    x_i = e_i, so Z_ij = W_ji."""
    worst, rho0s = mpmath.mpf(0), []
    for j, G in enumerate(groups):
        Y = [mpmath.mpf(labels[i]) for i in G]
        s = 1 if Y[0] > 0 else -1
        norm_y = mpmath.sqrt(mpmath.fdot(Y, Y))

        def rho_N(a, W, j=j, G=G, s=s, Y=Y, norm_y=norm_y):
            u = [W[j][i] for i in G]
            return s * mpmath.fdot(Y, u) / (norm_y * mpmath.sqrt(mpmath.fdot(u, u))), a[j] ** 2

        rho0, N0 = rho_N(run.trajectory.a[0], run.trajectory.W[0])
        rho0s.append(rho0)
        for t, a, W in zip(run.trajectory.tau, run.trajectory.a, run.trajectory.W, strict=True):
            rho, N = rho_N(a, W)
            rho_c, N_c = formula(mpmath.mpf(t), N0, rho0, norm_y, n, p)
            worst = max(worst, abs(rho - rho_c), abs(N - N_c) / N_c)
    return worst, rho0s


@check("B.prop2.group_closed_form_30_digits", statement="B.prop2", precision=f"mpmath {DIGITS_GROUP} digits",
       mutant="the paper's published (67)/(69) (alignment ODE solved with rate c instead of c/2; the first key finding on "
              "paper B)",
       finding="at 30 digits the flow follows the corrected tanh(ct/2 + artanh ρ_0) form, not the paper's published "
               "(67)/(69), when ρ_0 < 1.")
def group_closed_form(ctx: Context) -> Outcome:
    """Spec B §2.13: ρ(t) = tanh(ct/2 + artanh ρ_0) and N(t) = P N_0 E/(P + N_0 J) vs the flow, ρ_0 < 1."""
    problem, groups, y, n, p = _group_problem(ctx.seed)
    g = ctx.cached("group", lambda: guarded(lambda d: mp_run(problem, d, samples=51), DIGITS_GROUP,
                                            final_state_distance, 10.0 ** -CLOSED_FORM_DIGITS))
    run = g.value
    formula = group_solution_as_published if ctx.mutate else group_solution
    with mpmath.workdps(DIGITS_GROUP):
        err, rho0s = _group_error(run, groups, y, n, p, formula)
        err, rho0 = float(err), [mpmath.nstr(r, 8) for r in rho0s]
    c_max = 2 * max(np.linalg.norm(y[G]) for G in groups) / n
    tol = _closed_form_tolerance(run, c_max * problem.horizon)
    out = agree(0.0, err, tol,
                "10·steps·(1 + c·t_end)·10^-digits: the Taylor step's relative error per neuron, accumulated, plus the "
                f"rounding of t amplified by the rate c; it must be ≤ 10^-{CLOSED_FORM_DIGITS} (30 digits)",
                message=f"max |Δρ|, |ΔN|/N over {len(run.trajectory.tau)} samples; p = {p}, n = {n}, groups "
                        + " and ".join("{" + ", ".join(str(i) for i in G) + "}" for G in groups)
                        + f", t ∈ [0, {plain(float(problem.horizon))}], ρ_0 = {', '.join(rho0)} (8 digits)",
                precision=f"mpmath {DIGITS_GROUP} digits",
                steps=run.stats["steps"])
    if tol > 10.0 ** -CLOSED_FORM_DIGITS and out.status is Status.VERIFIED:
        out.status = Status.INCONCLUSIVE
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v.trajectory.a[-1][0], 35))


LAM_LOGISTIC = "1e-20"


def _logistic_problem():
    """C, one neuron exactly aligned with ŷ_S (ρ_0 = 1): S = {0, 1, 2, 3} with y_S = (1, 1, 1, 1), ŵ = ŷ_S = (½, ½, ½, ½,
    0) exactly unit, â = 1; datum 4 (label −1/2) frozen at 0; λ = LAM_LOGISTIC, τ up to τ_1 + 1/2 = n/‖y_S‖ + 1/2."""
    y = np.array([1.0, 1.0, 1.0, 1.0, -0.5])
    n = 5
    init = Init(np.ones(1), np.array([[0.5, 0.5, 0.5, 0.5, 0.0]]), LAM_LOGISTIC)
    return FlowProblem(np.eye(n), y, init, horizon=n / 2.0 + 0.5), n


@check("C.lem6.logistic_fit_phase_30_digits", statement="C.lem6", precision=f"mpmath {DIGITS_CF} digits",
       mutant="the logistic law with rate ρ/n instead of 2ρ/n: ρ' = (ρ/n)(‖y_S‖ − ρ)")
def logistic_fit_phase(ctx: Context) -> Outcome:
    """Spec C §2.6: once aligned, ρ = a² obeys ρ' = (2ρ/n)(‖y_S‖ − ρ) exactly; λ = 1e-20, ρ from 1e-40 to ‖y_S‖."""
    problem, n = _logistic_problem()
    g = ctx.cached("logistic", lambda: guarded(lambda d: mp_run(problem, d), DIGITS_CF, final_state_distance,
                                               10.0 ** -CLOSED_FORM_DIGITS))
    run = g.value
    with mpmath.workdps(DIGITS_CF):
        L = -mpmath.log(mpmath.mpf(LAM_LOGISTIC))
        norm_y = mpmath.mpf(2)
        rate = norm_y / 2 if ctx.mutate else norm_y  # c = 2‖y_S‖/n in N' = cN(1 − N/‖y_S‖); the mutant halves it
        N0 = run.trajectory.a[0][0] ** 2
        worst = mpmath.mpf(0)
        for tau, a in zip(run.trajectory.tau, run.trajectory.a, strict=True):
            E = mpmath.exp(2 * rate / n * mpmath.mpf(tau) * L)
            N_c = norm_y * N0 * E / (norm_y + N0 * (E - 1))
            worst = max(worst, abs(a[0] ** 2 - N_c) / N_c)
    tol = _closed_form_tolerance(run, float(2 * norm_y / n * L * problem.horizon))
    out = agree(0.0, float(worst), tol,
                "10·steps·(1 + c·ln(1/λ)·τ_end)·10^-digits (per-step relative error per neuron, accumulated, and the "
                f"rounding of τ amplified by the rate); it must be ≤ 10^-{CLOSED_FORM_DIGITS}",
                message=f"max relative error of a² over {len(run.trajectory.tau)} samples, τ ∈ [0, {plain(problem.horizon)}], "
                        f"λ = {LAM_LOGISTIC}", precision=f"mpmath {DIGITS_CF} digits", steps=run.stats["steps"])
    if tol > 10.0 ** -CLOSED_FORM_DIGITS and out.status is Status.VERIFIED:
        out.status = Status.INCONCLUSIVE
    return apply_guard(out, g, show=lambda v: mpmath.nstr(v.trajectory.a[-1][0], 35))
