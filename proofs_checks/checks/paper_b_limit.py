"""Paper B, Theorem 2 against the extrapolated n → ∞ limit (issue 24), in the way `relucheck limit` extrapolates λ → 0.

B Theorem 2 (spec B §2.10; orthonormal data, group initialization, p fixed, k_n = n/p): with
t_n = (√(np)/4) log(np), the time t_n^j(ε) at which group j's loss L^j reaches (ε/2)‖D_j^n‖² satisfies
t_n^j(ε)/t_n → 1/‖D_j^∞‖; the spec's corrected version adds "with error O(1/log n)". That is the kind of statement
`numerics.lambda_limit` extrapolates, with log(np) in the role of ln(1/λ): here the ratio is sampled on a ladder
log(np) = 10², 3·10², 10³, 3·10³, 10⁴ (the closed form in mpmath; n = e^L/p enters it only through c and P) and
extrapolated in x = 1/log(np) by the same routine (`lambda_limit.extrapolate`: order-2 Richardson on the finest three
rungs, its error bar, its "inconclusive" when the extrapolation does not settle).

The first-order coefficient is known in closed form (spec B §2.10 "Derivation", corrected): for large n, ρ → 1 before
the transition and N/P ≈ qN₀e^{ct}/(P + qN₀e^{ct}) with q = (1+ρ₀)²/4, so L^j = (ε/2)‖D‖² ⟺ N/P = 1 − √ε ⟺
e^{ct} = P(1−√ε)/(qN₀√ε); with c t_n = ‖D‖ log(np)/2 and log P = ½ log(np) + log‖D‖,

    t_n^j(ε)/t_n = 1/‖D‖ + C₁ x + O(e^{−1/(2x)}/x),    C₁ = (2/‖D‖) log(‖D‖(1−√ε)/(q N₀ √ε)),

the rest being the terms of the exact E, J (`theory.paper_b_closed_form`) and 1 − ρ, of relative size ct/P. The
paper's own closed form (67), (69) has q = (1+ρ₀)/2 (B's (80)): a different C₁ for ρ₀ < 1, the mutant of the second
check. The difference C₁(ε) − C₁(1−ε) is the corrected window constant (2/‖D‖) log C(ε) of `B.thm2.window_constant`.

The group crossing times are those of `paper_b_transitions` (`_crossing`, bisection on the exact closed form).
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
from numpy.polynomial import polynomial as P

from relucheck.numerics.lambda_limit import SPREAD_SAFETY, extrapolate

from ..registry import Context, check
from ..result import Outcome, Status
from .paper_b_transitions import _crossing, _group, window_constant_corrected, window_constant_paper

LADDER = (100.0, 300.0, 1000.0, 3000.0, 10000.0)  # log(np): the limit module's default ladder and its extension rung
EPS = "0.1"  # ε; the levels are (ε/2)‖D‖² and ((1−ε)/2)‖D‖², parsed at the working precision
LEVELS = (EPS, "0.9")
P_NEURONS, N0 = 2, mpmath.mpf(1)
NORMS = (1, 2)  # ‖D_j‖ of the two groups (B30's staircase setting)
RHO0S = ("1", "0.3")  # ρ₀ = 1 (q the same in both closed forms) and 0.3 (q = 0.4225 against the paper's 0.65)
DPS = 60
BISECTIONS = 400  # `_crossing`'s halvings of [0, 3 log P / c]


def first_order(norm, rho0, level, *, paper=False):
    """C₁ = (2/‖D‖) log(‖D‖(1−√ε)/(q N₀ √ε)) with q = (1+ρ₀)²/4, or the paper's (1+ρ₀)/2 (module docstring)."""
    norm, rho0, level = (mpmath.mpf(v) for v in (norm, rho0, level))
    q = (1 + rho0) / 2 if paper else (1 + rho0) ** 2 / 4
    return 2 / norm * mpmath.log(norm * (1 - mpmath.sqrt(level)) / (q * N0 * mpmath.sqrt(level)))


def _sample(L, norm, rho0, level):
    """(t_n^j/t_n, its error bound) at log(np) = L. The bound: the float64 rounding of the handed-over sample
    (|q|·2⁻⁵³), the bisection's bracket (3 log P/c)·2⁻⁴⁰⁰ over t_n, and 10^(5−DPS) for the 60-digit loss (the
    cancellation in ‖Y‖² − 2NYρ/p + N²/p² costs log₁₀(1/ε) ≈ 1 digit, and dL^j/d(t/t_n) ≈ L^j·log(np) ≥ L^j)."""
    n = mpmath.exp(L) / P_NEURONS
    c, Pj, _ = _group(n, P_NEURONS, norm)
    t = _crossing(level / 2 * norm**2, n, P_NEURONS, norm, rho0, N0)
    t_n = mpmath.sqrt(n * P_NEURONS) / 4 * mpmath.log(n * P_NEURONS)
    ratio = float(t / t_n)
    bracket = float(3 * mpmath.log(Pj) / c / t_n) * 2.0 ** -BISECTIONS
    return ratio, abs(ratio) * 2.0 ** -53 + bracket + 10.0 ** (5 - DPS)


@functools.cache
def ladders():
    """Each quantity (‖D‖, ρ₀, level) → (samples, errors) on `LADDER`; shared by both checks and their mutants in one process."""
    out = {}
    with mpmath.workdps(DPS):
        for norm in NORMS:
            for rho0 in RHO0S:
                for level in LEVELS:
                    rows = [_sample(mpmath.mpf(L), mpmath.mpf(norm), mpmath.mpf(rho0), mpmath.mpf(level)) for L in LADDER]
                    out[(norm, rho0, level)] = ([r[0] for r in rows], [r[1] for r in rows])
    return out


def _estimates():
    return {key: extrapolate(LADDER, samples, errors) for key, (samples, errors) in ladders().items()}


def _fmt(value):
    return "none concluded" if value is None else f"{value:.3g}"


def _label(key):
    return f"‖D‖={key[0]}, ρ₀={key[1]}, level {key[2]}"


@check("B.thm2.transition_time_limit", statement="B.thm2", precision="mpmath 60 digits, extrapolated in float64",
       mutant="the transition of group j at t_n^j/t_n → 1/(2‖D_j‖)")
def transition_time_limit(ctx: Context) -> Outcome:
    """t_n^j(ε)/t_n and t_n^j(1−ε)/t_n (ε = 0.1), sampled at log(np) = 10²…10⁴ on the exact group closed form and
    extrapolated in 1/log(np) (`lambda_limit.extrapolate`), contain 1/‖D_j‖ within their error bars: two groups
    ‖D_j‖ = 1, 2, ρ₀ = 1 and 0.3, N₀ = 1, p = 2 (B Theorem 2; spec B §2.10, corrected: error O(1/log n))."""
    estimates = _estimates()
    rows, preds, meas, bars, ok, concluded = [], [], [], [], True, 0
    for key, est in estimates.items():
        predicted = 1.0 / ((2.0 if ctx.mutate else 1.0) * key[0])
        if not est.ok:
            rows.append({"quantity": _label(key), "inconclusive": est.reason, "samples": est.samples})
            continue
        covered = abs(est.value - predicted) <= est.error
        ok &= covered
        concluded += 1
        preds.append(predicted)
        meas.append(est.value)
        bars.append(est.error)
        rows.append({"quantity": _label(key), "predicted": predicted, "limit": est.value, "error": est.error,
                     "covered": covered, "samples": est.samples, "coefficients": est.coefficients})
    return _verdict(ok, concluded == len(estimates), preds, meas, bars,
                   "each limit's own error bar from `lambda_limit.extrapolate` (as `relucheck limit`): twice the spread "
                   "of its extrapolants plus the samples' error bounds (float64 rounding of the 60-digit ratio, the "
                   "bisection's bracket) carried through the extrapolation (docs/limit.md)",
                   f"{concluded} of {len(estimates)} transition times extrapolated to n → ∞; largest |limit − "
                   "prediction|", details={"ladder_log_np": list(LADDER), "quantities": rows})


def _verdict(ok: bool, complete: bool, preds, meas, bars, reason: str, what: str, details: dict) -> Outcome:
    """Refuted if some value lies outside its bar, else verified when every quantity concluded, else inconclusive; the
    message ends with the largest deviation (``what`` names it)."""
    status = Status.REFUTED if not ok else Status.VERIFIED if complete else Status.INCONCLUSIVE
    worst = max((abs(m - p) for m, p in zip(meas, preds)), default=None)
    return Outcome(status, preds, meas, bars, reason,
                   f"{what} = {_fmt(worst)}" + ("" if ok else ": some outside their error bar"), details=details)


def _coefficient(est, errors):
    """The fitted C₁ (order 2 on the finest three rungs, `Estimate.coefficients`) and its bar: SPREAD_SAFETY × its
    distance from the same fit on the next coarser three rungs (under a law with an x³ term E the fits' C₁ are off by
    E·(x_a x_b + x_a x_c + x_b x_c), about 10× larger on the coarser rungs, so the distance bounds the finer one's
    error), plus the samples' error bounds through the fit's linear weights for C₁."""
    x = 1.0 / np.asarray(LADDER)
    coarse = extrapolate(LADDER[:-1], est.samples[:-1], errors[:-1])
    weights = np.linalg.pinv(P.polyvander(x[-3:], 2))[1]
    fitted = est.coefficients[1]
    return fitted, SPREAD_SAFETY * abs(fitted - coarse.coefficients[1]) + float(np.abs(weights) @ errors[-3:])


@check("B.thm2.transition_time_first_order", statement="B.thm2", precision="mpmath 60 digits, extrapolated in float64",
       mutant="the first-order coefficient with the paper's q = (1+ρ₀)/2 (its closed form (67), (69)/(80))")
def transition_time_first_order(ctx: Context) -> Outcome:
    """The fitted 1/log(np) coefficient of t_n^j(ε)/t_n (ε = 0.1 and 0.9) is the corrected derivation's
    C₁ = (2/‖D‖) log(‖D‖(1−√ε)/(qN₀√ε)), q = (1+ρ₀)²/4 (spec B §2.10 "Derivation"): the first-order correction of
    B Theorem 2's limit predicted in closed form. C₁(ε) − C₁(1−ε) is reported against the window constant."""
    estimates, data = _estimates(), ladders()
    rows, preds, meas, bars, ok = [], [], [], [], True
    for key, est in estimates.items():
        if not est.ok:
            rows.append({"quantity": _label(key), "inconclusive": est.reason})
            continue
        fitted, bar = _coefficient(est, data[key][1])
        predicted = float(first_order(*key, paper=ctx.mutate))
        covered = abs(fitted - predicted) <= bar
        ok &= covered
        preds.append(predicted)
        meas.append(fitted)
        bars.append(bar)
        rows.append({"quantity": _label(key), "predicted_C1": predicted, "fitted_C1": fitted, "error": bar,
                     "covered": covered, "fitted_x2_coefficient": est.coefficients[2]})
    windows = {}
    for norm in NORMS:
        for rho0 in RHO0S:
            a, b = (estimates[(norm, rho0, level)] for level in LEVELS)
            if a.ok and b.ok:
                windows[f"‖D‖={norm}, ρ₀={rho0}"] = {
                    "fitted_C1(ε) − C1(1−ε)": a.coefficients[1] - b.coefficients[1],
                    "corrected (2/‖D‖) log C(ε)": float(window_constant_corrected(mpmath.mpf(EPS), mpmath.mpf(norm))),
                    "paper's (87) (1/(2‖D‖)) log C^j(ε)": float(window_constant_paper(mpmath.mpf(EPS), mpmath.mpf(norm)))}
    return _verdict(ok, len(meas) == len(estimates), preds, meas, bars,
                   "each fitted C₁'s bar: twice its distance from the same order-2 fit on the next coarser three rungs "
                   "(the lambda_limit spread rule applied to the coefficient) plus the samples' error bounds through "
                   "the fit's weights for C₁",
                   f"{len(meas)} fitted first-order coefficients against the corrected derivation; largest |fitted − "
                   "predicted|", details={"ladder_log_np": list(LADDER), "coefficients": rows, "windows": windows})
