"""Balancedness a_j² − ‖w_j‖², proved conserved symbolically (A Lemma F.1/Lemma 2, B Lemma 1, C Prop. 1).

Per neuron, for any residual vector r and any activation pattern (any selection η_i ∈ ∂σ, which
covers σ'(0) = 0), the flow reads (A eq. 4, B eqs. 13–14, C §1.4)

    da/dt = c ⟨w, D⟩,   dw/dt = c a D,   D = (scale/n) Σ_i η_i r_i x_i,   η_i ⟨w, x_i⟩ = σ(⟨w, x_i⟩),

so d/dt (a² − ‖w‖²) = 2ac⟨w,D⟩ − 2c a⟨w,D⟩ = 0. Gradient descent with step ε (A §1.7 discrete
analogue, B key finding 8) changes it by exactly ε²(g_a² − ‖g_w‖²) per step.

The functions below build these expressions with free symbols for every residual, every input
coordinate, every activation indicator and the parameters, and return what SymPy simplifies the
claimed identity to (zero when it holds).
"""
from __future__ import annotations

import sympy as sp


def neuron_symbols(n: int, d: int):
    """Symbols of one neuron (a, w), data x_i, residuals r_i, indicators η_i, factors c and scale."""
    a = sp.Symbol("a", real=True)
    w = sp.Matrix(sp.symbols(f"w0:{d}", real=True))
    X = [sp.Matrix(sp.symbols(f"x{i}_0:{d}", real=True)) for i in range(n)]
    r = sp.symbols(f"r0:{n}", real=True)
    eta = sp.symbols(f"eta0:{n}", nonnegative=True)
    c, scale = sp.symbols("c scale", positive=True)
    return a, w, X, r, eta, c, scale


def dynamical_vector(X, r, eta, scale):
    """D = (scale/n) Σ_i η_i r_i x_i (A's D_j, B's (1/n) X P_j R, C's D_j(θ))."""
    n = len(X)
    return (scale / n) * sum((eta[i] * r[i] * X[i] for i in range(n)), sp.zeros(X[0].shape[0], 1))


def flow_field(a, w, X, r, eta, c, scale):
    """(da/dt, dw/dt) of one neuron: da/dt = c⟨w, D⟩, dw/dt = c a D."""
    D = dynamical_vector(X, r, eta, scale)
    return c * (w.T * D)[0, 0], c * a * D


def invariant_derivative(n: int = 3, d: int = 3, *, weight_on_w: int = 1) -> sp.Expr:
    """d/dt (a² − k‖w‖²) along the flow, simplified; k = ``weight_on_w``.

    k = 1 is the balancedness invariant: the result is identically 0 for every residual vector,
    every activation selection, every c and every output scale. k ≠ 1 (a mutant) does not vanish.
    """
    a, w, X, r, eta, c, scale = neuron_symbols(n, d)
    da, dw = flow_field(a, w, X, r, eta, c, scale)
    q_dot = 2 * a * da - weight_on_w * 2 * (w.T * dw)[0, 0]
    return sp.simplify(sp.expand(q_dot))


def gd_step_identity_residual(n: int = 2, d: int = 2, *, with_second_order_term: bool = True) -> sp.Expr:
    """One GD step θ⁺ = θ − ε g: residual of the exact identity, expanded (0 when it holds).

    Identity (spec A §1.7, spec B key finding 8):
        (a − ε g_a)² − ‖w − ε g_w‖² = a² − ‖w‖² + ε² (g_a² − ‖g_w‖²),
    with g_a = −⟨w, D⟩, g_w = −a D (the gradient of L for a fixed residual and pattern).
    ``with_second_order_term=False`` claims exact conservation under GD (a mutant).
    """
    a, w, X, r, eta, _, scale = neuron_symbols(n, d)
    eps = sp.Symbol("epsilon", positive=True)
    D = dynamical_vector(X, r, eta, scale)
    g_a = -(w.T * D)[0, 0]
    g_w = -a * D
    a_new = a - eps * g_a
    w_new = w - eps * g_w
    lhs = a_new**2 - (w_new.T * w_new)[0, 0]
    rhs = a**2 - (w.T * w)[0, 0]
    if with_second_order_term:
        rhs += eps**2 * (g_a**2 - (g_w.T * g_w)[0, 0])
    return sp.expand(lhs - rhs)
