"""Engine "float64" on orthonormal data: integrate only the components that can move (issue 22, item 1).

In the data basis (`numerics.flows.basis`, G = I) with a balanced start the state of neuron j is (ρ_j, ψ_j),
ψ_j = √2 φ_j,w ∈ R^{n+1}, and on a segment with pattern η (`numerics.flows.engines.logscale`, C eq. 7)

    dρ_j/ds = T g_j,    dψ_ij/ds = √2 T c φ_a,j η_ij r_i − T g_j ψ_ij/‖ψ_j‖,

since on orthonormal data D_j = (η_ij r_i)_i. A component with η_ij = 0 — an inactive datum, and the coordinate
orthogonal to the data — therefore only scales: ψ_ij(s) = μ_j(s) ψ_ij(s₀) with dμ_j/ds = −T g_j μ_j/‖ψ_j‖ and
μ_j(s₀) = 1, one number per neuron for all of them, whatever their count. It keeps its sign, so it never reaches its
kink (on orthonormal data nothing else pushes it), and it enters ‖ψ_j‖² only through μ_j² Σ ψ_ij(s₀)². So a segment
integrates (ρ, μ, ψ on the active components), m·2 + (active components) numbers instead of m(n + 2): on paper C's
n = 256, m = 64 instance about half the state at the start and a quarter at the end (each deactivation freezes one
more). heyoka's version of the same flow leaves out the components inactive at τ = 0 likewise (`bench.race_heyoka`).

Only segments without sliding components use this form (on orthonormal data a sliding component has η = 0 and sits
at 0, so it would only scale too; it is left to the full form, which holds it on its kink). The stepper keeps its
full state at every step end (`ActiveSet.expand`), so events, views, samples and the check run read the same
quantities as without it; the watch reads the compressed dense output on the components it watches.
"""
from __future__ import annotations

import numpy as np

from ..complementarity import nonzero2d
from ..engine import poll


INV_SQRT2 = 1.0 / np.sqrt(2.0)  # (a constant, not a ufunc call per evaluation)


class ActiveSet:
    """One segment's compressed form: y_c = (ρ (m), μ (m), ψ on the active components, neuron by neuron)."""

    def __init__(self, stepper, pattern, exp_cap: float):
        self.st, self.exp_cap = stepper, exp_cap
        m, n = stepper.m, stepper.n
        self.m, self.n, self.width = m, n, n + 1
        active = pattern.act.T  # (m, n): component (j, i)
        self.j_idx, self.i_idx = nonzero2d(active)  # row-major: neuron by neuron
        self.full_idx = m + self.j_idx * self.width + self.i_idx  # position in the full state (ρ first)
        self.pos = np.full(m + m * self.width, -1, dtype=np.intp)  # full state index -> compressed index
        self.pos[:m] = np.arange(m)
        self.pos[self.full_idx] = 2 * m + np.arange(len(self.j_idx))
        self.flat = self.j_idx * n + self.i_idx  # position in an (m, n) array
        self.buf = np.zeros((m, n))
        coef = stepper.conv.time_factor / (stepper.conv.width_divisor * n)
        self.g_factor = 2.0 * stepper.half_signs * coef
        self.push = (np.sqrt(2.0) * stepper.T * coef * stepper.half_signs)[self.j_idx]  # per active component

    def compress(self, y):
        m = self.m
        Psi = y[m:].reshape(m, self.width)
        self.base = Psi.copy()  # the frozen components at the segment's start (active ones zeroed)
        self.base[self.j_idx, self.i_idx] = 0.0
        self.frozen_sq = np.einsum("ij,ij->i", self.base, self.base)
        return np.concatenate([y[:m], np.ones(m), y[self.full_idx]])

    def expand(self, yc):
        m = self.m
        out = np.empty(m + m * self.width)
        out[:m] = yc[:m]
        np.multiply(self.base, yc[m:2 * m, None], out=out[m:].reshape(m, self.width))
        out[self.full_idx] = yc[2 * m:]
        return out

    def index(self, idx):
        """Compressed positions of full-state indices, or None if one of them is frozen."""
        c = self.pos[idx]
        return None if np.any(c < 0) else c

    def rhs(self, _t, yc):
        """The field on y_c: ψ written into an (m, n) array that is 0 on the frozen components, so that dense products
        give the residuals and rates (the frozen components contribute to ‖ψ_j‖ only, through μ_j)."""
        poll("a DOP853 step")
        st = self.st
        st.nfev += 1
        m = self.m
        rho, mu, psi = yc[:m], yc[m:2 * m], yc[2 * m:]
        buf = self.buf
        buf.ravel()[self.flat] = psi
        with np.errstate(over="ignore", invalid="ignore"):  # only a rejected trial stage overflows (EXP_CAP)
            inv = 1.0 / np.sqrt(np.einsum("ji,ji->j", buf, buf) + mu * mu * self.frozen_sq)
            Z = buf * (inv * INV_SQRT2)[:, None]  # z_ij = φ_j,w,i relative to ‖θ_j‖ (0 when frozen)
            size = np.exp(np.minimum(2.0 * rho, self.exp_cap)) * st.half_signs  # e^{2ρ_j} φ_j,a
            r = st.y_data - (size @ Z) / st.conv.width_divisor
            g = self.g_factor * (Z @ r)  # φᵀMφ = 2 φ_a u_a, u_a = c Σ_i z_ij r_i on the active components
        T = st.T
        out = np.empty_like(yc)
        np.multiply(g, T, out=out[:m])
        Tg = T * g * inv
        out[m:2 * m] = -Tg * mu
        # on the active components only (the frozen ones are μ_j): √2 T c φ_a,j r_i − T g_j ψ_ij/‖ψ_j‖, the same
        # products as on the whole (m, n) array
        np.subtract(self.push * r[self.i_idx], Tg[self.j_idx] * psi, out=out[2 * m:])
        return out


class CompressedDense:
    """The dense output of a compressed step, read as the full state (`ActiveSet.expand`); `restrict` on active
    components reads the compressed one directly."""

    def __init__(self, inner, active: ActiveSet):
        self.inner, self.active = inner, active
        self.t_old, self.h, self.y_old = inner.t_old, inner.h, inner.y_old  # (ρ first in both forms)

    def __call__(self, t):
        return self.active.expand(self.inner(t))

    def restrict(self, idx):
        c = self.active.index(np.asarray(idx))
        if c is None:
            return lambda t: self(t)[idx]
        return self.inner.restrict(c)


def eligible(stepper, pattern) -> bool:
    """The compressed form applies: data basis, balanced start, a decided pattern without sliding components."""
    return (stepper.balanced and stepper.basis.identity and pattern is not None and not pattern.slide.any()
            and stepper.y.dtype == float)
