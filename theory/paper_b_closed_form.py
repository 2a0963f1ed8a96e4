"""Paper B's single-neuron group dynamics (seed 002, eqs. (66)–(69), (80)–(87); spec B §2.13).

Under group initialization on orthonormal data (conditions E1–E6 of spec B §2.13) neuron j only
sees its group G_j; with u = (⟨w_j, x_i⟩)_{i∈G_j} ∈ ℝ^k, labels Y = (y_i)_{i∈G_j} of sign s, p neurons
and n data, B's flow (output/p, time×p, eqs. 1–3) reads

    u' = (‖u‖/n) (sY − (‖u‖/p) u),      a = s‖u‖.

Paper symbols: N = ‖w_j‖_+² = ‖u‖², ρ = ⟨D̄_j^n, s_j w̄_j^+⟩ = s⟨Y,u⟩/(‖Y‖‖u‖), c = c_n^j = 2‖Y‖/n,
P = p_n √k_n ‖D_j^n‖ = p‖Y‖. The scalar system (66), derived here symbolically from the vector ODE:

    ρ' = (c/2)(1 − ρ²),      N' = c N (ρ − N/P).

`RHO_PAPER`, `N_PAPER` are (67) and (69)/(80) as written; `RHO_TRUE`, `N_TRUE` the exact solution
(spec §2.13: ρ = tanh(ct/2 + artanh ρ_0), N = P N_0 E/(P + N_0 J)). `frozen_rhs` is the system
when w_j(0) has a component F outside span(G_j) (E4 fails); `mu_closed_form` the local-PL
curvature μ(t) of the whole network (spec §2.13, from B's eq. (5)).
"""
from __future__ import annotations

import mpmath
import sympy as sp

t, c, P, rho0, N0 = sp.symbols("t c P rho0 N0", positive=True)

# (67) and (69)/(80) as written in the paper
RHO_PAPER = (sp.sinh(c * t) + rho0 * sp.cosh(c * t)) / (sp.cosh(c * t) + rho0 * sp.sinh(c * t))
N_PAPER = P * N0 * (sp.cosh(c * t) + rho0 * sp.sinh(c * t)) / (
    P + N0 * (sp.sinh(c * t) + rho0 * (sp.cosh(c * t) - 1)))

# the exact solution of (66) (spec B §2.13): E = exp∫cρ, J = c∫E
E_TRUE = ((1 + rho0**2) * sp.cosh(c * t) + 2 * rho0 * sp.sinh(c * t) + (1 - rho0**2)) / 2
J_TRUE = (1 + rho0**2) / 2 * sp.sinh(c * t) + rho0 * (sp.cosh(c * t) - 1) + (1 - rho0**2) * c * t / 2
RHO_TRUE = sp.tanh(c * t / 2 + sp.atanh(rho0))
N_TRUE = P * N0 * E_TRUE / (P + N0 * J_TRUE)


HALF = sp.Rational(1, 2)


def group_rhs(rho, N, rate=HALF):
    """Right-hand sides of (66): (ρ', N') = (rate·c(1 − ρ²), cN(ρ − N/P)); the paper derives rate = 1/2."""
    return rate * c * (1 - rho**2), c * N * (rho - N / P)


def ode_problem_data(rho_solution, N_solution, *, rho0_range=(0.001, 0.999), rate=HALF,
                     time_span=10.0) -> dict:
    """The `relucheck check-ode` JSON object of the group system (66) with a candidate solution."""
    rho_s, N_s = sp.symbols("rho N")
    f_rho, f_N = group_rhs(rho_s, N_s, rate)
    params = {"c": [0.05, 2.0], "P": [1.5, 100.0], "N0": [0.01, 1.5]}
    if rho0_range is not None:
        params["rho0"] = list(rho0_range)
    return {"time": "t", "state": ["rho", "N"], "parameters": params,
            "equations": {"rho": sp.sstr(f_rho), "N": sp.sstr(f_N)},
            "initial": {"rho": "rho0" if rho0_range is not None else "1", "N": "N0"},
            "solution": {"rho": sp.sstr(rho_solution), "N": sp.sstr(N_solution)}, "time_span": [0, time_span]}


def derive_scalar_system(k: int = 3):  # pragma: no mutate (the identities hold for every k ≥ 2)
    """Residuals of ρ' − (c/2)(1 − ρ²) and N' − cN(ρ − N/P) along the vector ODE (exact, SymPy).

    u ∈ ℝ^k symbolic, Y ∈ ℝ^k the labels with s = +1 (s = −1 is the reflection u → u, Y → −Y which
    leaves sY invariant), c = 2‖Y‖/n, P = p‖Y‖. Both residuals simplify to 0. The identities are
    algebraic in u, Y, n, p and ‖u‖ = √⟨u,u⟩, ‖Y‖ = √⟨Y,Y⟩: SymPy needs no sign assumption on the symbols.
    Returns (residual_rho, residual_N, rate) where ``rate`` is the simplified ρ'/(c(1 − ρ²)).
    """
    u = sp.Matrix(sp.symbols(f"u1:{k + 1}"))
    Y = sp.Matrix(sp.symbols(f"y1:{k + 1}"))
    n_, p_ = sp.symbols("n p")  # pragma: no mutate (names show only in a failed proof)
    nu, nY = sp.sqrt((u.T * u)[0]), sp.sqrt((Y.T * Y)[0])
    du = nu / n_ * (Y - nu / p_ * u)  # the vector ODE, s = +1
    N_ = (u.T * u)[0]
    rho_ = (Y.T * u)[0] / (nY * nu)
    def grad(e):
        return sp.Matrix([sp.diff(e, ui) for ui in u])

    dN = (grad(N_).T * du)[0]
    drho = (grad(rho_).T * du)[0]
    c_, P_ = 2 * nY / n_, p_ * nY
    res_rho = sp.simplify(drho - c_ / 2 * (1 - rho_**2))
    res_N = sp.simplify(dN - c_ * N_ * (rho_ - N_ / P_))
    rate = sp.simplify(drho / (c_ * (1 - rho_**2)))
    return res_rho, res_N, rate


def paper_rho_residual():
    """(67) in the true ODE: ρ_pap' − (c/2)(1 − ρ_pap²), simplified (spec: c(1−ρ0²)/(2(cosh ct + ρ0 sinh ct)²))."""
    res = sp.diff(RHO_PAPER, t) - c / 2 * (1 - RHO_PAPER**2)
    return sp.simplify(res)


def frozen_rhs(Y_norm: float, n: int, p: int, F: float):
    """(ρ', N') when w_j(0) carries frozen mass F = ‖w(0)‖² − N_0 outside span(G_j) (spec B §2.13).

    a = s√(N + F) by Lemma 1, so ρ' = (‖Y‖/n)√(1 + F/N)(1 − ρ²), N' = (2/n)(‖Y‖ρ√(N(N+F)) − N(N+F)/p).
    """
    def rhs(_t, z):
        rho, N = z
        return [Y_norm / n * (1 + F / N) ** 0.5 * (1 - rho * rho),
                2 / n * (Y_norm * rho * (N * (N + F)) ** 0.5 - N * (N + F) / p)]
    return rhs


def group_loss_sq(Y_norm, N, rho, p):
    """‖R^j‖² = ‖Y‖² − (2/p) N ‖Y‖ ρ + N²/p² (spec B §2.13 from (81) line 3)."""
    return Y_norm**2 - 2 * N * Y_norm * rho / p + N**2 / p**2


def mu_closed_form(Y_norms, N, rho, n, p):
    """μ(t) = (2/(np)) Σ_j[(‖Y_j‖√N_j ρ_j − N_j^{3/2}/p)² + N_j‖R^j‖²] / Σ_j ‖R^j‖² (spec B §2.13).

    Works on floats and mpmath numbers (lists over groups j). The integers n and p only meet values of the
    input's type (``2 * num / (n * p * den)``, ``Nj**1.5 / p``), never each other: ``2 / (n * p)`` alone is a
    Python float and capped mpmath input at a double's 1e-16 relative accuracy. Lists of different
    lengths raise ``ValueError`` (zip's strict mode), not a μ of the groups they share.
    """
    num, den = 0, 0
    for Yn, Nj, rj in zip(Y_norms, N, rho, strict=True):  # one (‖Y_j‖, N_j, ρ_j) per group
        R2 = group_loss_sq(Yn, Nj, rj, p)
        num += (Yn * Nj**0.5 * rj - Nj**1.5 / p) ** 2 + Nj * R2
        den += R2
    return 2 * num / (n * p * den)


def true_state(c_, P_, rho0_, N0_, t_):
    """(ρ(t), N(t)) of the exact solution, in mpmath (any precision set by the caller)."""
    c_, P_, rho0_, N0_, t_ = (mpmath.mpf(v) for v in (c_, P_, rho0_, N0_, t_))
    ch, sh = mpmath.cosh(c_ * t_), mpmath.sinh(c_ * t_)
    E = ((1 + rho0_**2) * ch + 2 * rho0_ * sh + (1 - rho0_**2)) / 2
    J = (1 + rho0_**2) / 2 * sh + rho0_ * (ch - 1) + (1 - rho0_**2) * c_ * t_ / 2
    return mpmath.tanh(c_ * t_ / 2 + mpmath.atanh(rho0_)), P_ * N0_ * E / (P_ + N0_ * J)


def paper_state(c_, P_, rho0_, N0_, t_):
    """(ρ(t), N(t)) of the paper's (67), (69), in mpmath."""
    c_, P_, rho0_, N0_, t_ = (mpmath.mpf(v) for v in (c_, P_, rho0_, N0_, t_))
    ch, sh = mpmath.cosh(c_ * t_), mpmath.sinh(c_ * t_)
    return (sh + rho0_ * ch) / (ch + rho0_ * sh), P_ * N0_ * (ch + rho0_ * sh) / (P_ + N0_ * (sh + rho0_ * (ch - 1)))
