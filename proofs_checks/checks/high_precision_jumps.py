"""C's jump times at tiny λ with the flow engine "mpmath" (`numerics.flows.engines.taylor`), spec C §2.6 and §5 C11:

* C's first-jump constant C_1 = ln(√‖y_S1‖/κ)/γ at λ = 1e-60 (`theory.high_precision_closed_forms`);
* (full suite) the error law τ̂_k − τ_k = C_k/ln(1/λ) + O(λ^{c*}) at λ = 1e-100, 1e-300, 1e-1000 on the golden
  example, τ_k exact (`theory.limit_process_exact`).

(Balancedness across events and closed forms to 30 digits: `high_precision`.) Every engine run carries the
precision guard (a rerun at twice the digits, `numerics.precision_guard`): if the two disagree beyond the check's
tolerance the check is inconclusive, with both values reported (`proofs_checks.result.apply_guard`).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.instances import Instance
from relucheck.numerics.precision_guard import Guarded
from relucheck.theory.high_precision_closed_forms import first_jump_constant
from relucheck.theory.limit_process import limit_process_of
from relucheck.theory.limit_process_exact import limit_process_exact

from ..registry import Context, check
from ..result import Outcome, Status, agree, apply_guard
from .paper_c_flow import golden_instance, leftover_exponent


def two_neuron_instance() -> Instance:
    """n = 3, x_i = e_i, y = (2, 1, 1), s = (+, +): j_1 = 0 fits S_1 = {0, 1} at τ_1 = 3/√5 with no wrong-sign
    component; neuron 1 (active on {2} only) has u_1(τ_1) = 1 − 1/√5 ≈ 0.553, so its output on S_1 is ≤ λ^{1.1}."""
    G = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]]) / math.sqrt(3.0)
    return Instance(np.eye(3), np.array([2.0, 1.0, 1.0]), G, np.ones(2), {"name": "two neurons, disjoint supports"})


def guard_of(run, tolerance) -> Guarded:
    """The guard of an engine run made with ``guard=True``, judged at ``tolerance``."""
    s = run.stats
    return Guarded(s["jump_taus_mp"], s["guard_jump_taus_mp"], s["digits"], s["guard_digits"], s["guard_discrepancy"],
                   tolerance)


def _exact_taus(inst: Instance, digits: int) -> list:
    """Algorithm 1's τ_k in exact arithmetic (`theory.limit_process_exact`), as mpf at ``digits`` digits."""
    exact = limit_process_exact(inst.labels, inst.signs, inst.activation())
    with mpmath.workdps(digits):
        return [mpmath.mpf(str(sympy.N(jp.tau, digits + 5))) for jp in exact.jumps]


def _error_constants(run, taus, lam):
    """(τ̂_k − τ_k)·ln(1/λ) for every jump, at the run's precision."""
    with mpmath.workdps(run.stats["digits"]):
        L = -mpmath.log(mpmath.mpf(lam))
        return [(jp.exact - tau) * L for jp, tau in zip(run.jumps, taus, strict=False)]


def _guarded_flow(inst, lam, digits, horizon):
    return solve(FlowProblem.from_instance(inst, lam, horizon=horizon), "mpmath", digits=digits, guard=True)


LAM_C1, DIGITS_C1 = "1e-60", 30


@check("C.thm2.first_jump_constant_mpmath", statement="C.thm2", precision=f"mpmath {DIGITS_C1} digits",
       mutant="C_1 = ln(√‖y_S1‖)/γ, i.e. κ = 1 (ignores the initial misalignment of j_1)")
def first_jump_constant_check(ctx: Context) -> Outcome:
    """(τ̂_1 − τ_1)·ln(1/λ) = C_1 = ln(√‖y_S1‖/κ)/γ up to O(λ^{c*}) corrections, at λ = 1e-60 to ~25 digits."""
    from relucheck.theory.first_jump import first_jump

    inst = two_neuron_instance()
    lp = limit_process_of(inst)
    run = ctx.cached("c1", lambda: _guarded_flow(inst, LAM_C1, DIGITS_C1, lp.jumps[0].tau + 0.5))
    jp = lp.jumps[0]
    with mpmath.workdps(DIGITS_C1):
        g_data = [mpmath.mpf(float(v)) for v in inst.directions[jp.neuron]]  # x_i = e_i: ⟨ḡ, x_i⟩ = ḡ_i exactly
        S = jp.fitted
        n = inst.n
        norm_y = mpmath.sqrt(sum(mpmath.mpf(inst.labels[i]) ** 2 for i in S))
        tau1 = n / norm_y  # τ_1 = 1/γ exactly
        # The engines start balanced exactly, a_j(0) = s_j λ‖ḡ_j‖ (C Assumption 3; the float64 direction is a unit vector
        # only to rounding): the flow of scale λ‖ḡ_j‖ along u = ḡ_j/‖ḡ_j‖, so t̂_1 = ln(1/(λ‖ḡ_j‖))·τ_1 + C_1(u) and
        # (τ̂_1 − τ_1)·ln(1/λ) = C_1(u) − τ_1 ln‖ḡ_j‖ (a shift of ~1e-16, above the tolerance at λ = 1e-60)
        g_norm = mpmath.sqrt(mpmath.fsum(v * v for v in g_data))
        C1 = (mpmath.log(mpmath.sqrt(norm_y)) * n / norm_y if ctx.mutate
              else first_jump_constant([v / g_norm for v in g_data], inst.labels, S, float(inst.signs[jp.neuron])))
        C1 -= tau1 * mpmath.log(g_norm)
        L = -mpmath.log(mpmath.mpf(LAM_C1))
        measured = (run.jumps[0].exact - tau1) * L
        lam = mpmath.mpf(LAM_C1)
        gamma = norm_y / n
        c_star = leftover_exponent(inst, lp)
        tol = float(10 * (lam ** c_star + lam ** (gamma * 0.5)) / gamma + L * mpmath.mpf(10) ** -(DIGITS_C1 - 10))
    float_c1 = first_jump(inst, lp).constant
    out = agree(float(C1), float(measured), tol,
                f"neglected terms (first-jump analysis): other neurons' output λ^{{c*}} (c* = {c_star:.4f}) and the half-final "
                "value's deviation λ^{γ·0.5} after the 0.5 horizon margin, each shifting C_1 by ≤ 10·λ^{...}/γ; plus "
                "ln(1/λ)·10^-(digits−10) from the guarded jump time",
                message=f"C_1 = {mpmath.nstr(C1, 25)} (closed form), measured {mpmath.nstr(measured, 25)} (both to 25 "
                        f"digits: the tolerance is {tol:.2g}); the float64 formula gives {float_c1:.15g}; λ = {LAM_C1}",
                precision=f"mpmath {DIGITS_C1} digits", c_star=c_star)
    return apply_guard(out, guard_of(run, tol / float(L)))


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
    rows, runs = {}, []
    taus = _exact_taus(inst, DIGITS_LAW)
    for lam in ERROR_LAW_LAMBDAS:
        run = ctx.cached(("law", lam), lambda lam=lam: _guarded_flow(inst, lam, DIGITS_LAW, lp.jumps[-1].tau + 0.5))
        if [jp.neuron for jp in run.jumps] != [jp.neuron for jp in lp.jumps]:
            return Outcome(Status.REFUTED, [jp.neuron for jp in lp.jumps], run.stats["jump_taus_mp"], 0,
                           "the flow must make Algorithm 1's jumps", f"λ = {lam}: different jumps")
        consts = _error_constants(run, taus, lam)
        if ctx.mutate:
            consts = [c * -mpmath.log(mpmath.mpf(lam)) for c in consts]
        rows[lam] = consts
        runs.append(run)
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
    errors = [abs(p - q) for p, q in zip(preds, meas, strict=False)]
    table = {lam: [mpmath.nstr(c, 20) for c in rows[lam]] for lam in ERROR_LAW_LAMBDAS}
    out = agree(preds, meas, max(tols),
                f"corrections O(λ^{{c*}}) with c* = {c_star:.4f} (the smallest leftover exponent): 10·λ^{{c*}}/min γ_k per λ; "
                "the last entry is C_1 in closed form vs the λ = 1e-1000 run (+10^-(digits−10) for the guarded jump time; "
                "τ_k exact)",
                message="(τ̂_k − τ_k)·ln(1/λ) per jump k, to 20 digits: " + "; ".join(
                    f"{', '.join(v)} at λ = {lam}" for lam, v in table.items()) + f"; C_1 = {mpmath.nstr(C1, 20)} (closed form)",
                precision=f"mpmath {DIGITS_LAW} digits", per_entry_tolerances=tols)
    out.require(all(e <= t for e, t in zip(errors, tols, strict=False)), "an entry exceeds its own per-λ tolerance")
    worst = max(runs, key=lambda r: r.stats["guard_discrepancy"])
    return apply_guard(out, guard_of(worst, min(tols) / worst.log_inv_lambda))
