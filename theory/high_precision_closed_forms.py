"""Closed forms in mpmath, evaluated at any precision, for comparison with the Taylor engine.

1. One balanced neuron on its own group (spec B §2.13, corrected; spec C §5 row C25). Orthonormal
   data, the neuron supported on span{x_i : i ∈ G} with positive components and labels Y = y_G of one
   sign s, a = s‖u‖ (conditions E1–E6 of spec B §2.13). With p neurons, n data and B's convention
   (output /p, time ×p; C's convention is p = 1):

       ρ(t) = tanh(ct/2 + artanh ρ_0),            ρ = s⟨Y, u⟩/(‖Y‖‖u‖), c = 2‖Y‖/n,
       N(t) = P N_0 E(t) / (P + N_0 J(t)),          N = ‖u‖² = a², P = p‖Y‖,
       E(t) = (cosh(ct/2) + ρ_0 sinh(ct/2))²,   J(t) = c ∫_0^t E.

   With ρ_0 = 1 this is C's logistic fit phase ρ' = (2ρ/n)(‖y_S‖ − ρ) (C §2.6, p = 1, ρ ↦ N).
   `group_solution_as_published` is the paper's (67)/(69)/(80), which solves ρ' = c(1 − ρ²) instead
   (spec B key finding 1): exact only for ρ_0 = 1.

2. C's first-jump constant C_1 = ln(√‖y_{S_1}‖/κ)/γ (spec C §2.6) with κ = (1 + ⟨ḡ_{j_1}, ŷ_{S_1}⟩)/2
   when neuron j_1 has no wrong-sign active component (`theory.first_jump` computes κ in float64 in
   general; this is the same formula at any precision).
"""
from __future__ import annotations

import mpmath

from relucheck.numerics.errors import HypothesisViolation


def group_solution(t, N0, rho0, norm_y, n: int, p: int = 1):
    """(ρ(t), N(t)) of the corrected closed form (spec B §2.13), at the current mpmath precision."""
    c = 2 * mpmath.mpf(norm_y) / n
    half = c * t / 2
    rho = mpmath.tanh(half + mpmath.atanh(rho0))  # ρ_0 = 1: atanh(1) = +inf and tanh(+inf) = 1 in mpmath
    E = (mpmath.cosh(half) + rho0 * mpmath.sinh(half)) ** 2
    J = ((1 + rho0**2) / 2 * mpmath.sinh(c * t) + rho0 * (mpmath.cosh(c * t) - 1)
         + (1 - rho0**2) * c * t / 2)
    P = p * mpmath.mpf(norm_y)
    return rho, P * N0 * E / (P + N0 * J)


def group_solution_as_published(t, N0, rho0, norm_y, n: int, p: int = 1):
    """(ρ, N) of B's published (67) and (69)/(80): the alignment ODE's time runs twice too fast."""
    c = 2 * mpmath.mpf(norm_y) / n
    ch, sh = mpmath.cosh(c * t), mpmath.sinh(c * t)
    P = p * mpmath.mpf(norm_y)
    return (sh + rho0 * ch) / (ch + rho0 * sh), P * N0 * (ch + rho0 * sh) / (P + N0 * (sh + rho0 * (ch - 1)))


def first_jump_constant(g_data, labels, fitted, sign) -> mpmath.mpf:
    """C_1 = ln(√‖y_S‖/κ)/γ, κ = (1 + ⟨ḡ, ŷ_S⟩)/2, γ = ‖y_S‖/n, at the current precision.

    g_data: ⟨ḡ_{j_1}, x_i⟩ for all i (exact values of the instance's floats), labels y, fitted S_1,
    sign s_{j_1}. Raises `HypothesisViolation` if j_1 has a wrong-sign active component (then κ has
    no closed form; see `theory.first_jump.linear_phase`).
    """
    n = len(labels)
    wrong = [i for i in range(n) if g_data[i] > 0 and sign * labels[i] < 0]
    if wrong:
        raise HypothesisViolation("closed-form κ (no wrong-sign active component of j_1, spec C §2.6)",
                                  f"data {wrong} are active with the wrong sign")
    norm_y = mpmath.sqrt(sum(mpmath.mpf(labels[i]) ** 2 for i in fitted))
    cos = sum(mpmath.mpf(g_data[i]) * abs(mpmath.mpf(labels[i])) for i in fitted) / norm_y
    kappa = (1 + cos) / 2
    gamma = norm_y / n
    return mpmath.log(mpmath.sqrt(norm_y) / kappa) / gamma
