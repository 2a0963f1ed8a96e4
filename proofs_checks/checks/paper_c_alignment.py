"""Paper C: Lemma 10 (the norm-growth bound's equality case), Assumption 3 (uniform activation signs), Proposition 7
and Corollary 2 (alignment with the saddle directions gives coordinate-wise control) (spec C §3, §5).
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
import sympy as sp

from relucheck.theory.statements.paper_c import LEM10_BOUND, alpha, beta, f, f0, t

from ..registry import Context, check
from ..tightest import tightest_case
from ..result import Outcome, Status, within_bound
from .paper_c_probability import _Z_REASON, wilson

# --------------------------------------------------------------------------------------------------
# Lemma 10 and Assumption 3
@check("C.lem10.bound_solves_equality_case", statement="C.lem10", precision="exact (SymPy)",
       mutant="the bound with β/(2α) in place of β/α")
def lemma10_equality_case(ctx: Context) -> Outcome:
    """Lemma 10: the bound √f = e^{αt/2}√f_0 + (β/α)(e^{αt/2} − 1) solves the equality case f' = αf + β√f with
    f(0) = f_0 (so the bound is attained), and tends to √f_0 + βt/2 as α → 0 (SymPy)."""
    g = LEM10_BOUND.rhs
    if ctx.mutate:
        g = g.subs(beta, beta / 2)
    fp = sp.symbols("f_0", positive=True)
    al = sp.symbols("alpha", positive=True)
    be = sp.symbols("beta", nonnegative=True)
    g = g.subs({f0: fp, alpha: al, beta: be})
    residual = sp.simplify(sp.diff(g**2, t) - al * g**2 - be * g)
    initial = sp.simplify(g.subs(t, 0) - sp.sqrt(fp))
    limit = sp.simplify(sp.limit(g, al, 0) - (sp.sqrt(fp) + be * t / 2))
    ok = residual == 0 and initial == 0 and limit == 0
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "0, 0, 0",
                   f"{residual}, {initial}, {limit}", 0, "exact symbolic identity",
                   "ODE residual, initial value and α → 0 limit all simplify to 0" if ok else "non-zero residual",
                   details={"bound": str(LEM10_BOUND), "f": str(f)})


ASM3_N, ASM3_D, ASM3_TRIALS = 3, 5, 40000


def _asm3_runs(seed):
    rng = np.random.default_rng([seed, 313])
    Q, _ = np.linalg.qr(rng.standard_normal((ASM3_D, ASM3_D)))
    X = Q[:ASM3_N]                                       # orthonormal, rotated (Assumption 1)
    G = rng.standard_normal((ASM3_TRIALS, ASM3_D))
    G /= np.linalg.norm(G, axis=1, keepdims=True)        # uniform directions (Assumption 3)
    patterns = (G @ X.T > 0) @ (1 << np.arange(ASM3_N))
    return np.bincount(patterns, minlength=2**ASM3_N)


@check("C.asm3.activation_signs_uniform", statement="C.asm3",
       mutant="P(⟨ḡ_j, x_i⟩ > 0) = 1/4 independently (the correct-sign mask probability instead of the activation's)")
def activation_signs_uniform(ctx: Context) -> Outcome:
    """Spec C §1.5: with orthonormal x_i and ḡ uniform on S^{d−1}, the activation pattern is uniform on {0,1}^n
    (n = 3 rotated inputs in d = 5, 40000 directions)."""
    counts = ctx.cached("runs", lambda: _asm3_runs(ctx.seed))
    ones = np.array([bin(k).count("1") for k in range(2**ASM3_N)])
    pred = (0.25**ones * 0.75**(ASM3_N - ones)) if ctx.mutate else np.full(2**ASM3_N, 2.0**-ASM3_N)
    intervals = [wilson(int(c), ASM3_TRIALS) for c in counts]
    inside = all(lo <= p <= hi for p, (lo, hi) in zip(pred, intervals, strict=True))
    return Outcome(Status.VERIFIED if inside else Status.REFUTED, pred.tolist(), (counts / ASM3_TRIALS).tolist(),
                   [list(iv) for iv in intervals], _Z_REASON,
                   f"pattern frequencies {'inside' if inside else 'outside'} their intervals")


# --------------------------------------------------------------------------------------------------
# Proposition 7 and Corollary 2: alignment with the saddle directions (eq. 9) gives coordinate-wise control
ALIGN_DIM, ALIGN_SAMPLES = 12, 2000


def _aligned_pairs(seed):
    """Pairs (u, v) of unit vectors with ⟨u, v⟩ = 1 − ε: v = w̄^{(k)} of eq. (9) for a random set S (the first
    |S| coordinates) and labels y, and u = cos θ v + sin θ z with z ⊥ v either random or a coordinate direction
    (the cases where Proposition 7 and the mass bound are tight)."""
    rng = np.random.default_rng([seed, 314])
    out = []
    for r in range(ALIGN_SAMPLES):
        size = int(rng.integers(1, ALIGN_DIM))
        y = rng.standard_normal(size)
        v = np.zeros(ALIGN_DIM)
        v[:size] = np.abs(y) / np.linalg.norm(y)                       # eq. (9) with x_i = e_i, S = {0..size−1}
        eps = 10 ** rng.uniform(-8, -0.5)
        if r % 2:
            z = np.zeros(ALIGN_DIM)
            z[int(rng.integers(size, ALIGN_DIM))] = 1.0                # off S: the tight case
        else:
            z = rng.standard_normal(ALIGN_DIM)
        out.append(_aligned_pair(v, z, size, eps))
    return out


def _aligned_pair(v, z, size: int, eps: float):
    """(u, v, |S|, ε) with u = (1 − ε) v + √(1 − (1 − ε)²) ẑ, ẑ the unit part of z orthogonal to v (None if z ∥ v)."""
    z = z - (z @ v) * v
    norm = np.linalg.norm(z)
    if not norm > 1e-6:
        return None
    z = z / norm
    c = 1 - eps
    u = c * v + np.sqrt(1 - c * c) * z
    return u, v, size, 1 - float(u @ v)


@st.composite
def _searched_pairs(draw):
    """`_aligned_pairs`' family with every entry chosen by the search: |S|, |y_S|, ε, z."""
    size = draw(st.integers(1, ALIGN_DIM - 1))
    v = np.zeros(ALIGN_DIM)
    v[:size] = draw(st.lists(st.floats(0.01, 3.0), min_size=size, max_size=size))
    v /= np.linalg.norm(v)
    z = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=ALIGN_DIM, max_size=ALIGN_DIM)))
    return _aligned_pair(v, z, size, 10 ** draw(st.floats(-8, -0.5)))


@check("C.prop7.alignment_gives_coordinates", statement="C.prop7",
       mutant="bound √ε instead of √(2ε)")
def alignment_gives_coordinates(ctx: Context) -> Outcome:
    """Proposition 7 (eq. 362): |⟨u, x_i⟩ − ⟨v, x_i⟩| ≤ √(2ε) for unit u, v with ⟨u, v⟩ = 1 − ε, orthonormal x_i = e_i;
    2000 pairs around saddle directions of eq. (9), half of them in the tight configuration u − v ∥ x_i."""
    pairs = ctx.cached("pairs", lambda: _aligned_pairs(ctx.seed))
    k = 1.0 if ctx.mutate else 2.0
    ratios = np.array([np.max(np.abs(u - v)) / math.sqrt(k * eps) for u, v, _, eps in pairs])
    found = tightest_case(lambda pair: None if pair is None else 1 - np.max(np.abs(pair[0] - pair[1])) /
                          math.sqrt(k * pair[3]), _searched_pairs(), seed=ctx.seed)
    ratios = np.append(ratios, 1 - found.margin)
    return within_bound(ratios, 1.0, "float64 rounding of ε = 1 − ⟨u,v⟩ ≥ 1e-8·(1 − 1e-8): relative error ≤ "
                        "4 eps/ε ≤ 1e-7, so the ratio may exceed 1 by ≤ 1e-7", slack=1e-7,
                        message=f"largest |u_i − v_i|/{'√ε' if k == 1 else '√(2ε)'} over {len(pairs)} pairs (half of them in the "
                                f"tight configuration u − v ∥ x_i) is {ratios[:-1].max():.6f}; "
                                f"{found.describe('1 − ratio')}", searched_max_ratio=1 - found.margin)


@check("C.cor2.aligned_neuron_active_on_its_set", statement="C.cor2",
       mutant="mass off the set bounded by ε instead of 2ε")
def aligned_neuron_active_on_its_set(ctx: Context) -> Outcome:
    """Corollary 2 (eq. 367) on the same pairs: ⟨u, x_i⟩ ≥ |y_i|/‖y_S‖ − √(2ε) on S and Σ_{i∉S}⟨u, x_i⟩² ≤ 2ε."""
    pairs = ctx.cached("pairs", lambda: _aligned_pairs(ctx.seed))
    k = 1.0 if ctx.mutate else 2.0
    worst = []
    for u, v, size, eps in pairs:
        on_set = np.max(v[:size] - math.sqrt(2 * eps) - u[:size])     # ≤ 0 claimed (v_i = |y_i|/‖y_S‖ on S)
        off_set = float(u[size:] @ u[size:]) / (k * eps) - 1            # ≤ 0 claimed
        worst.append(max(on_set, off_set))
    worst = np.array(worst)
    return within_bound(worst, 0.0, "float64 rounding: the normalized left − right side carries a relative error "
                        "≤ 1e-7 (ε ≥ 1e-8 computed from 1 − ⟨u,v⟩)", slack=1e-7,
                        message=f"largest normalized left − right side {worst.max():.3g} (≤ 0 claimed) over "
                                f"{len(pairs)} pairs")
