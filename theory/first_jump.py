"""Paper C's first jump to next order: τ̂_1 = τ_1 + C_1 / ln(1/λ) + (exponentially small), spec C §2.6.

Before the first jump every neuron is of size O(λ) and the residual is r ≡ y up to O(λ²), so neuron
j_1 (the first jumping neuron of Algorithm 1, fitting S_1 with rate γ = ‖y_{S_1}‖/n) follows, in real
time t and with a_j = s λ α, w_j = λ z, the λ-free piecewise-linear system (C eq. 4 linearized at 0)

    dz_i/dt = (s y_i / n) α 1{z_i > 0},    dα/dt = (s/n) Σ_i y_i z_i 1{z_i > 0},    α(0) = 1, z(0) = ḡ_{j_1}.

On a segment with positive set P it is [α; z_P]' = [[0, bᵀ], [b, 0]] [α; z_P] with b_i = s y_i/n, whose
solution is, with β = ‖b‖, b̂ = b/β, v = ⟨b̂, z_P⟩ (`growth_phase_proof` checks it in SymPy):

    α(t) = α_0 cosh βt + v_0 sinh βt,   z_P(t) = z_P(0) + b̂ (α_0 sinh βt + v_0 (cosh βt − 1)).

Wrong-sign components (s y_i < 0) decrease and are removed when they reach 0 (C Assumption 2); the
event times are roots of a monotone function (`scipy.optimize.brentq`). Once only S_1 is left,
β = γ and α(t) e^{−γt} → κ = e^{−γ t_e} (α_e + v_e)/2. Without wrong-sign components this is the
closed form κ = (1 + ⟨ḡ_{j_1}, ŷ_{S_1}⟩)/2, ŷ_S = Σ_{i∈S} |y_i| x_i / ‖y_S‖.

Once aligned, ρ = a² obeys the logistic law ρ' = (2ρ/n)(‖y_S‖ − ρ) (`logistic_fit_phase_proof`), whose
solution matching ρ ≈ λ² κ² e^{2γt} reaches ‖y_S‖/2 at t = (ln(1/λ) + ln(√‖y_S‖/κ))/γ. In accelerated
time τ = t/ln(1/λ), with τ_1 = 1/γ:

    C_1 = ln(√‖y_{S_1}‖ / κ) / γ.

Neglected: the other neurons' output on S_1, of size ≤ λ^{2 u_j(τ_1)} (they shift C_1 by about
λ^{2u_j(τ_1)}/(n γ γ_j)), and, for a detection at half of the *final* a_j² (numerics.flows.result.jumps_of), the
deviation of that final value from ‖y_{S_1}‖ (of order λ^{c*}, spec C14).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy
from scipy.optimize import brentq


@dataclass
class FirstJump:
    neuron: int  # j_1 (0-based)
    fitted: list[int]  # S_1
    norm_y: float  # ‖y_{S_1}‖
    gamma: float  # γ = ‖y_{S_1}‖/n (rate of eq. 10 at k = 0)
    kappa: float  # lim e^{−γt} α(t)
    constant: float  # C_1 = ln(√‖y_{S_1}‖/κ)/γ
    wrong_sign: int  # number of wrong-sign active components of j_1 at initialization
    events: list[float]  # real times at which they reach zero


def kappa_closed_form(g_data, y, fitted) -> float:
    """κ = (1 + ⟨ḡ, ŷ_S⟩)/2 (no wrong-sign active component); g_data = (⟨ḡ, x_i⟩)_i."""
    S = np.asarray(fitted)
    norm = float(np.linalg.norm(y[S]))
    return (1.0 + float(np.abs(y[S]) @ g_data[S]) / norm) / 2.0


@dataclass
class LinearPhase:
    alpha: float  # α(t_end)
    z: np.ndarray  # z(t_end) in data coordinates
    events: list[float]  # real times at which wrong-sign components reached zero (before t_end)
    kappa: float  # lim e^{−γt} α(t) (nan unless t_end = ∞)


def linear_phase(g_data, y, s: float, t_end: float = math.inf) -> LinearPhase:
    """The piecewise-linear system of the module docstring from α(0) = 1, z(0) = g_data up to ``t_end``.

    Solved in closed form between events; with t_end = ∞ it returns κ. At least one component with
    ⟨ḡ, x_i⟩ > 0 must exist. Each event is a root of F(dt) = target found by brentq with xtol = 1e-15 and
    its default rtol = 4ε (the smallest it accepts): within 1e-15 + 4ε·dt of the root of the float F.
    """
    z = np.array(g_data, dtype=float)
    y = np.asarray(y)
    n = len(y)
    P = z > 0
    alpha, t = 1.0, 0.0
    events = []
    while True:
        b = np.where(P, s * y / n, 0.0)
        beta = float(np.linalg.norm(b))
        if beta == 0:
            raise ValueError("no active component: the neuron does not grow")
        bh = b / beta
        v = float(bh @ z)

        def F(dt, alpha=alpha, v=v, beta=beta):  # z_P(t + dt) = z_P(t) + b̂ F(dt), F' = β α > 0
            return alpha * math.sinh(beta * dt) + v * (math.cosh(beta * dt) - 1.0)

        wrong = np.flatnonzero(P & (b < 0))
        if wrong.size == 0 and math.isinf(t_end):
            return LinearPhase(alpha, z, events, math.exp(-beta * t) * (alpha + v) / 2.0)
        hits = {}  # component → the dt at which it reaches 0
        # F' = β(α cosh + v sinh): F increases without bound when α + v > 0, towards α when α + v = 0, and up to
        # its maximum at dt_max (then decreases) when α + v < 0; a component whose target is not below sup_F
        # never reaches 0 (only possible off orthonormal data)
        dt_max = math.inf if alpha + v >= 0 else math.atanh(-alpha / v) / beta
        sup_F = math.inf if alpha + v > 0 else alpha if dt_max == math.inf else F(dt_max)
        for i in wrong:  # z_i + b̂_i F(dt) = 0
            target = -z[i] / bh[i]
            if target >= sup_F:
                continue
            # F increases on [0, dt_max] and F(dt_max) = sup_F > target; without a maximum, any start of the
            # doubling brackets the one root: start and `<` are unobservable
            hi = 1.0 / beta if dt_max == math.inf else dt_max  # pragma: no mutate
            while F(hi) < target:  # pragma: no mutate
                hi *= 2.0
            hits[int(i)] = brentq(lambda dt, target=target: F(dt) - target, 0.0, hi, xtol=1e-15)
        dt = min(hits.values(), default=math.inf)
        if dt == math.inf and math.isinf(t_end):
            raise ValueError(f"the neuron stops growing: α + ⟨b̂, z⟩ = {alpha + v:.6g} ≤ 0 while the wrong-sign "
                             f"components {wrong.tolist()} never reach 0, so κ ≤ 0 (g_data not of an orthonormal instance?)")
        last = t + dt >= t_end
        if last:
            dt = t_end - t
        Fdt = F(dt)
        alpha, z = alpha * math.cosh(beta * dt) + v * math.sinh(beta * dt), np.where(P, z + bh * Fdt, z)
        t += dt
        if last:
            return LinearPhase(alpha, z, events, math.nan)
        i = min(hits, key=hits.get)
        z[i] = 0.0
        P[i] = False  # pragma: no mutate (None stored in a boolean array is False)
        events.append(t)


def kappa_linear_system(g_data, y, s: float) -> tuple[float, list[float]]:
    """(κ, event times) of the piecewise-linear system (module docstring)."""
    phase = linear_phase(g_data, y, s)
    return phase.kappa, phase.events


def first_jump(instance, limit=None) -> FirstJump:
    """C_1 and κ for an orthonormal instance (Algorithm 1 gives j_1 and S_1)."""
    from relucheck.theory.limit_process import limit_process_of

    lp = limit_process_of(instance) if limit is None else limit
    if not lp.jumps:
        raise ValueError("Algorithm 1 makes no jump on this instance: there is no first-jump constant")
    jump = lp.jumps[0]
    j = jump.neuron
    X, y = instance.inputs, instance.labels
    s = float(instance.signs[j])
    g_data = X @ instance.directions[j]
    wrong = int(np.sum((g_data > 0) & (s * y < 0)))  # pragma: no mutate (y ≠ 0, Assumption 4(ii): s/y, ≤ same)
    kappa, events = kappa_linear_system(g_data, y, s)
    gamma = jump.norm_y / instance.n
    constant = math.log(math.sqrt(jump.norm_y) / kappa) / gamma
    return FirstJump(j, list(jump.fitted), jump.norm_y, gamma, kappa, constant, wrong, events)


def logistic_fit_phase_proof() -> sympy.Expr:
    """SymPy: ρ(t) = K ρ₀ e^{2Kt/n} / (K + ρ₀(e^{2Kt/n} − 1)) solves ρ' = (2ρ/n)(K − ρ), ρ(0) = ρ₀.

    Returns |ρ' − (2ρ/n)(K − ρ)| + |ρ(0) − ρ₀| simplified; 0 is the proof. K = ‖y_S‖.
    The identity is algebraic in e^{2Kt/n}: it needs no sign assumption on the symbols.
    """
    t, n, K, rho0 = sympy.symbols("t n K rho_0")  # pragma: no mutate (names show only in a failed proof)
    E = sympy.exp(2 * K * t / n)
    rho = K * rho0 * E / (K + rho0 * (E - 1))
    ode = sympy.simplify(sympy.diff(rho, t) - (2 * rho / n) * (K - rho))
    initial = sympy.simplify(rho.subs(t, 0) - rho0)
    # |·| + |·|: two non-zero residuals cannot cancel into a false proof; both are 0 when it holds (+/− agree then)
    return sympy.Abs(ode) + sympy.Abs(initial)  # pragma: no mutate


def half_fit_time_proof() -> sympy.Expr:
    """SymPy: with ρ₀ = λ²κ² (so ρ ≈ λ²κ²e^{2γt} while small, γ = K/n), ρ(t) = K/2 exactly at
    t = (ln(1/λ) + ln(√K/κ))/γ + ln(1 − λ²κ²/K)/(2γ): the last term is the O(λ²) correction. Returns
    ρ(t_half) − K/2 simplified (0 is the proof). No sign assumption is needed: exp(log x) = x."""
    t, n, K, lam, kappa = sympy.symbols("t n K lambda kappa")  # pragma: no mutate (names show only in a failed proof)
    gamma = K / n
    rho0 = lam**2 * kappa**2
    E = sympy.exp(2 * K * t / n)
    rho = K * rho0 * E / (K + rho0 * (E - 1))
    t_half = (sympy.log(1 / lam) + sympy.log(sympy.sqrt(K) / kappa)) / gamma + sympy.log(1 - rho0 / K) / (2 * gamma)
    return sympy.simplify(rho.subs(t, t_half) - K / 2)


def growth_phase_proof() -> sympy.Expr:
    """SymPy: α = α₀ cosh βt + v₀ sinh βt, v = v₀ cosh βt + α₀ sinh βt solve α' = βv, v' = βα.

    (v = ⟨b̂, z_P⟩ obeys v' = ⟨b̂, b⟩α = βα.) Returns the sum of the simplified residuals' absolute values (0 is the proof).
    The identity holds for all values of the symbols (cosh' = sinh, sinh' = cosh): no assumption is needed.
    """
    t, beta, a0, v0 = sympy.symbols("t beta alpha_0 v_0")  # pragma: no mutate (names show only in a failed proof)
    alpha = a0 * sympy.cosh(beta * t) + v0 * sympy.sinh(beta * t)
    v = v0 * sympy.cosh(beta * t) + a0 * sympy.sinh(beta * t)
    d_alpha = sympy.simplify(sympy.diff(alpha, t) - beta * v)
    d_v = sympy.simplify(sympy.diff(v, t) - beta * alpha)
    # |·| + |·|: two non-zero residuals cannot cancel into a false proof; both are 0 when it holds (+/− agree then)
    return sympy.Abs(d_alpha) + sympy.Abs(d_v)  # pragma: no mutate
