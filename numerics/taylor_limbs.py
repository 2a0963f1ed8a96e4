"""The Taylor recurrence of `numerics.taylor` for orthonormal inputs (G = X Xᵀ = I), on fixed-point limbs and BLAS.

Same series as `numerics.taylor.TaylorProblem.coefficients` (the cubic field within a pattern; C eqs. 2–4), rewritten
so that each order's three Cauchy sums are exact float64 matrix products (`numerics.limbs`), stacked over the
neurons and restricted to each neuron's active data (the pattern is fixed within a step; at tiny λ about a quarter
of the pairs are active):

    r_k     = y δ_k0 − scale Σ_l Σ_j act_ij Z_l,ij a_{k−l},j
    a_{k+1} = T c /(k+1) · Σ_l Σ_i act_ij Z_l,ij r_{k−l},i
    Z_{k+1} = T c /(k+1) · act ∘ Σ_l r_{k−l} a_lᵀ            (B'ᵀ = dZ, since G = I)

Scalings (all powers of two, so that they are exact):
* time: the series is in σ = s/H, coefficients c̃_k = c_k H^k; H is a power of two near the step, so the c̃_k
  decay with k (Jorba–Zou) and fit a fixed format;
* neuron j: a_j = s_j α_j, Z_:j = s_j ζ_:j with s_j = 2^b_j ≥ its size, so a neuron of size 1e-1000 keeps the
  same relative precision as one of size 1 (the property the mpf/arb kernel gets from floating exponents);
* residual: r = s_r ρ with s_r ≥ max(|y|, scale·s_j²).

The fixed format carries P = digits·log2(10) + GUARD_BITS fraction bits. Each product is exact; each order's
results are truncated once at 2^-P (relative to the neuron's scale), so the coefficients agree with the arb
kernel's to a few units of 2^-P (test). The work buffers are module-level and reused from step to step (not
thread-safe).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .limbs import FixedFormat, LimbOverflow, loose_carry

GUARD_BITS = 24  # truncations per step (~K) and their accumulation over the steps: ~2^7 · 2^10 ulps at most


def _exponent(x) -> int | None:
    """b with |x| < 2^b (mpf x), None for 0."""
    sign, man, exp, bc = mpmath.mpf(x)._mpf_
    if not man:
        return None
    return int(exp) + int(bc)


def _fixed(x, P: int, b: int) -> int:
    """x · 2^(P − b) truncated toward zero to an integer (x an mpf)."""
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    man, shift = int(man), int(exp) + P - b
    v = man << shift if shift >= 0 else man >> -shift
    return -v if sign else v


_CONSTANTS: dict = {}
_WORKSPACE: dict = {}


def _constants(fmt: FixedFormat, f_base: int, K: int) -> list:
    """Toeplitz matrices of f_k = f/(k+1), k < K (cached: f changes only with the time unit and the scales)."""
    key = (fmt.F, fmt.I, f_base, K)
    if key not in _CONSTANTS:
        if len(_CONSTANTS) > 64:
            _CONSTANTS.clear()
        _CONSTANTS[key] = [fmt.constant(f_base // (k + 1)) for k in range(K)]
    return _CONSTANTS[key]


def fixed_format(digits: int) -> FixedFormat:
    return FixedFormat.for_bits(math.ceil(digits * math.log2(10)) + GUARD_BITS, integer_limbs=2)


class LimbStep:
    """Taylor coefficients 0..K of one step from (a, Z) with pattern ``act``, in time unit H = 2^h_exp.

    Raises `LimbOverflow` if a coefficient outgrows the format's headroom (H too large for the local rates).
    """

    def __init__(self, prob, a, Z, act, K: int, fmt: FixedFormat, h_exp: int):
        n, m = Z.shape
        self.n, self.m, self.K, self.fmt, self.h_exp = n, m, K, fmt, int(h_exp)
        self.H = mpmath.ldexp(1, self.h_exp)
        L, P = fmt.L, fmt.P
        # ---- scales (powers of two)
        b = []
        for j in range(m):
            exps = [e for e in (_exponent(a[j]), *(_exponent(z) for z in Z[:, j])) if e is not None]
            b.append(max(exps) if exps else 0)
        self.b = np.array(b, dtype=np.int64)
        scale_exp = _exponent(prob.scale) - 1
        if mpmath.ldexp(1, scale_exp) != prob.scale:
            raise ValueError("the limb kernel needs a power-of-two output scale")
        y_exps = [e for e in (_exponent(v) for v in prob.y) if e is not None]
        self.b_r = int(max([*y_exps, *(2 * self.b + scale_exp).tolist(), 0]))
        # ---- order 0
        alpha0 = fmt.from_ints([_fixed(a[j], P, int(self.b[j])) for j in range(m)])
        zeta0 = fmt.from_ints([_fixed(Z[i, j], P, int(self.b[j])) for i in range(n) for j in range(m)]).reshape(n, m, L)
        y_rel = fmt.from_ints([_fixed(v, P, self.b_r) for v in prob.y])
        to_abs = fmt.right_shift(self.b_r - scale_exp - 2 * self.b)  # α_j·scale·s_j²/s_r, per neuron j
        # f_k = T c H s_r/(k+1) in the fixed format (c T = prob.cT)
        f_base = _fixed(prob.cT, P, -(self.h_exp + self.b_r))
        # ---- active pairs, grouped by neuron: slot s of neuron j is datum idx[j, s] (padding slots are masked)
        counts = act.sum(axis=0)
        S_max = max(int(counts.max()), 1)
        idx = np.zeros((m, S_max), dtype=np.int64)
        valid = np.zeros((m, S_max), dtype=bool)
        for j in range(m):
            rows = np.flatnonzero(act[:, j])
            idx[j, :len(rows)], valid[j, :len(rows)] = rows, True
        validL = valid.astype(np.float64)[:, :, None]
        scatter = np.zeros((n, m * S_max))  # ρ_i = Σ over the slots holding datum i
        for j in range(m):
            for s in np.flatnonzero(valid[j]):
                scatter[idx[j, s], j * S_max + s] = 1.0
        # ---- buffers: batched over neurons, so that each order's three sums are three stacked matrix products
        # (every entry read at order k was written at an order ≤ k, so the buffers are reused from step to step)
        key = (m, S_max, K, L)
        if key not in _WORKSPACE:
            _WORKSPACE.clear()
            _WORKSPACE[key] = (np.zeros((m, S_max, L, K + 1)), np.zeros((m, L, K + 1, S_max)),
                               np.zeros((m, K + 1, L)), np.zeros((m, K + 1, L)),
                               np.zeros((m, K + 1, S_max, L)), np.zeros((m, S_max, L, K + 1)))
        Zr, Zd, Ahat, Aout, Rd, Ro = _WORKSPACE[key]
        # Zr [j, s, p, l]: ζ_l on slot s (for r); Zd [j, p, l, s]: the same (for da); Ahat [j, K−l]: α_l,j·scale s_j²/s_r;
        # Aout [j, l]: α_l,j; Rd [j, K−l, s]: ρ_l at datum idx[j, s] (for da); Ro [j, s, p, K−l]: the same (for the
        # outer products ρ aᵀ)
        alpha = np.empty((K + 1, m, L))
        zeta = np.empty((K + 1, m, S_max, L))

        def store(k, al, ze):
            alpha[k], zeta[k] = al, ze
            Ahat[:, K - k] = to_abs(al)
            Aout[:, k] = al
            Zr[:, :, :, k] = ze
            Zd[:, :, k, :] = ze.transpose(0, 2, 1)

        store(0, alpha0, zeta0[idx, np.arange(m)[:, None]] * validL)
        LL = L * L
        S = np.empty((m + m * S_max, 2 * L - 1))
        toeplitz = _constants(fmt, f_base, K)
        block = max(1, fmt.max_terms // S_max)  # orders per exact piece of the da sums (w·S_max·L ≤ 2^15.8)
        for k in range(K):
            w = k + 1
            # r_k: per neuron Σ_l ζ_l α̂_{k−l} on its slots, then summed over the neurons active at each datum
            C = np.matmul(Zr[:, :, :, :w].reshape(m, S_max * L, w), Ahat[:, K - k:])
            h = fmt.reduce(scatter @ (C.reshape(m * S_max, LL) @ fmt.antidiagonal))
            rho = loose_carry(y_rel - h) if k == 0 else -h
            g = rho[idx] * validL  # (m, S_max, L): ρ_k on each neuron's slots
            Rd[:, K - k] = g
            Ro[:, :, :, K - k] = g
            # da_j = Σ_l Σ_s ζ_l,s ρ_{k−l},s and the outer products Σ_l ρ_{k−l} α_l on the slots, reduced and scaled
            # by f_k together
            C_out = np.matmul(Ro[:, :, :, K - k:].reshape(m, S_max * L, w), Aout[:, :w])
            S[m:] = C_out.reshape(m * S_max, LL) @ fmt.antidiagonal
            if w <= block:  # the da sums are exact in one product: reduce them with the outer products
                C_da = np.matmul(Zd[:, :, :w, :].reshape(m, L, w * S_max), Rd[:, K - k:].reshape(m, w * S_max, L))
                S[:m] = C_da.reshape(m, LL) @ fmt.antidiagonal
                new = fmt.times(fmt.reduce(S), toeplitz[k])
            else:  # longer than `FixedFormat.max_terms`: exact pieces over blocks of orders, each reduced, then added
                da = 0.0
                for l0 in range(0, w, block):
                    l1 = min(w, l0 + block)
                    C_da = np.matmul(Zd[:, :, l0:l1, :].reshape(m, L, (l1 - l0) * S_max),
                                     Rd[:, K - k + l0:K - k + l1].reshape(m, (l1 - l0) * S_max, L))
                    da = da + fmt.reduce(C_da.reshape(m, LL) @ fmt.antidiagonal)
                S[:m] = 0.0
                new = fmt.times(fmt.reduce(S), toeplitz[k])
                new[:m] = fmt.times(loose_carry(da), toeplitz[k])
            store(k + 1, new[:m], new[m:].reshape(m, S_max, L) * validL)
        self.alpha = alpha
        # the full (K+1, n, m, L) series of the pre-activations: ζ_0 everywhere, higher orders on the active pairs
        full = np.zeros((K + 1, n, m, L))
        full[0] = zeta0
        jj, ss = np.nonzero(valid)
        full[1:, idx[jj, ss], jj] = zeta[1:, jj, ss]
        self.zeta = full

    # ------------------------------------------------------------------ step size and evaluation
    def _log_norms(self, k: int) -> np.ndarray:
        """ln max(|α_k,j|, max_i |ζ_k,ij|) per neuron j (relative to s_j, σ units; −inf for 0)."""
        vals = np.abs(self.fmt.to_floats(np.concatenate([self.alpha[k][None], self.zeta[k]], axis=0)))
        with np.errstate(divide="ignore"):
            return np.log(vals.reshape(self.n + 1, self.m).max(axis=0))

    def step_sigma(self, log_tol: float, safety: float) -> float:
        """Jorba–Zou step in σ units: min_j min_{k∈{K−1,K}} (tol·size_j/‖c̃_k‖_j)^{1/k}, relative to neuron j's size
        (``log_tol`` = ln tol, so that tolerances below float64's range work)."""
        size = self._log_norms(0)
        best = math.inf
        for k in (self.K - 1, self.K):
            norm = self._log_norms(k)
            for j in range(self.m):
                if size[j] > -math.inf and norm[j] > -math.inf:
                    best = min(best, math.exp((log_tol + size[j] - norm[j]) / k))
        return safety * best

    def quantize(self, h) -> tuple[mpmath.mpf, int]:
        """The largest step ≤ h on the fixed σ grid: (h_eff, σ as an integer of the format)."""
        sigma = _fixed(mpmath.mpf(h) / self.H, self.fmt.P, 0)
        sigma = max(0, min(sigma, 1 << self.fmt.P))
        return self.H * mpmath.ldexp(sigma, -self.fmt.P), sigma

    def state_at(self, sigma_int: int):
        """(a, Z) at σ = sigma_int·2^-P as mpf arrays: Σ_k c̃_k σ^k as one exact dot product with the powers σ^k
        (each power truncated once at 2^-P: an error of a few units of 2^-P relative to the neuron's scale)."""
        fmt, n, m, K, P = self.fmt, self.n, self.m, self.K, self.fmt.P
        powers = [1 << P]
        for _ in range(K):
            powers.append((powers[-1] * sigma_int) >> P)
        sig = fmt.from_ints(powers)  # (K+1, L)
        stacked = np.concatenate([self.alpha[:, None], self.zeta], axis=1).reshape(K + 1, (n + 1) * m * fmt.L)
        U = stacked.reshape(K + 1, (n + 1) * m, fmt.L).transpose(1, 2, 0).reshape((n + 1) * m * fmt.L, K + 1)
        ints = fmt.to_ints(fmt.dot(U, sig, (n + 1) * m))
        vals = np.array([mpmath.mpf((v, int(self.b[idx % m]) - P)) for idx, v in enumerate(ints)], dtype=object)
        vals = vals.reshape(n + 1, m)
        return vals[0].copy(), vals[1:].copy()

    def z_coefficients(self, i: int, j: int) -> list:
        """Taylor coefficients of Z_ij(τ0 + s) in s (τ units) as mpf."""
        ints = self.fmt.to_ints(self.zeta[:, i, j])
        e = int(self.b[j]) - self.fmt.P
        return [mpmath.mpf((v, e - k * self.h_exp)) for k, v in enumerate(ints)]

    def a_coefficients(self) -> LazyCoefficients:
        """(K+1, m) Taylor coefficients of a(τ0 + s) in s (τ units), converted to mpf on first access per neuron."""
        return LazyCoefficients(self.alpha.astype(np.int32), self.b.copy(), self.fmt, self.h_exp)  # limbs < 2^19


class LazyCoefficients:
    """A[k, j]: Taylor coefficient k of a_j (τ units) as mpf, from the limbs α_k,j, scale 2^b_j and unit 2^h_exp.

    Kept per step for the jump times (`numerics.flows.engines.taylor`, the norm interpolant); a neuron's column is
    converted only when it is read."""

    def __init__(self, alpha, b, fmt: FixedFormat, h_exp: int):
        self.alpha, self.b, self.fmt, self.h_exp = alpha, b, fmt, h_exp
        self.shape = alpha.shape[:2]
        self._columns: dict = {}

    def column(self, j: int) -> list:
        if j not in self._columns:
            e = int(self.b[j]) - self.fmt.P
            ints = self.fmt.to_ints(self.alpha[:, j])
            self._columns[j] = [mpmath.mpf((v, e - k * self.h_exp)) for k, v in enumerate(ints)]
        return self._columns[j]

    def __getitem__(self, index):
        k, j = index
        return self.column(int(j))[k]


__all__ = ["LimbStep", "LimbOverflow", "fixed_format"]
