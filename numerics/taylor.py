"""The Taylor kernel of the high-precision flow: coefficient recurrences of one step, Jorba–Zou step size, and the two
kernels (python-flint arb, fixed-point limbs on BLAS) behind one step interface. The engine that steps with it is
`numerics.flows.engines.taylor` (engine "mpmath"); the validated enclosures of `numerics.arb_enclosure` run the same
recurrence in arb balls.

The flow (C eqs. 2–4, B eqs. 1–3, A eq. 4; `numerics.network`) in raw coordinates (a, W) and the problem's time
s = t / T (T = ln(1/λ) gives C's accelerated time τ; T = 1 is real time): dθ/ds = −T · time_factor · ∇L(θ), σ'(0) = 0.
Within one segment of the Filippov layer (`numerics.flows.filippov.Pattern`: active data `act`, sliding data with
their weights) the field is a *cubic* polynomial of the parameters: with Z = X Wᵀ (n×m), G = X Xᵀ,
c = scale · time_factor / n and V = `Pattern.effective_residuals`(r), which is *linear* in r,

    r_i   = y_i − scale Σ_j act_ij a_j Z_ij                  (sliding components have Z_ij = 0: they drop out)
    da_j  = T c Σ_i act_ij r_i Z_ij
    dW_j  = T c a_j Σ_i V_ij x_i = Σ_i B'_ji x_i,   B'ᵀ = T c V ∘ (1 aᵀ),   dZ = G B'ᵀ.

Taylor coefficients follow by the recurrence of automatic differentiation: the coefficient k of a product is the
Cauchy sum Σ_l u_l v_{k−l}, and a_{k+1} = (coefficient k of da)/(k+1). The residual series r_k is formed first
(order k needs a_0..a_k, Z_0..Z_k), then V_k = effective_residuals(r_k) (linear: the same map on every order), then
the coefficient k+1 of a, B and Z.

Step size and order (Jorba & Zou 2005): order K = 2·digits and step h = 0.9 · min_j min_{k∈{K−1,K}}
(tol / ‖c_k‖_j)^{1/k}, with ‖c_k‖_j the largest coefficient of order k of neuron j (a_j and its pre-activations)
*relative to that neuron's size* |a_j| + ‖Z_:j‖: a neuron of size λ = 1e-1000 keeps the relative accuracy tol of a
neuron of size 1 (mpmath floats have an unbounded exponent). At tiny λ the solution is locally exponential with
rates ∝ ln(1/λ), where the cost per unit time K·10^{digits/K} is smallest near K ≈ 2.3·digits.

Kernels (the Cauchy sums, ~(3/2)K²nm products per step, are the whole cost): `ArbStep` (any inputs, sliding
included) computes them with python-flint arb numbers in object arrays; `LimbStepInTau` (`numerics.taylor_limbs`,
orthonormal inputs in their data basis, G = I exactly, and a power-of-two output scale) computes each order's sums
as exact float64 matrix products on 19-bit fixed-point limbs, 5–10× faster (docs/high_precision.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from flint import arb

from .limbs import LimbOverflow
from .mp_arrays import _mpf_to_arb, exact_mpf, to_arb, to_mp, to_mpf
from .network import Convention
from .taylor_limbs import LimbStep, fixed_format
from .taylor_sums import sparse_coefficients

SAFETY = mpmath.mpf("0.9")  # fraction of the Jorba–Zou step actually taken

__all__ = ["TaylorProblem", "TaylorSeries", "ArbStep", "LimbStepInTau", "LimbOverflow", "fixed_format", "horner",
           "limb_kernel_refusal", "limb_step", "initial_time_unit", "neuron_sizes"]


def horner(coeffs, s):
    """Σ_k coeffs[k] s^k."""
    acc = coeffs[-1]
    for c in coeffs[-2::-1]:
        acc = acc * s + c
    return acc


@dataclass
class TaylorSeries:
    """Coefficients 0..K of one step: a (K+1, m), Z (K+1, n, m), Bᵀ (K+1, n, m) with W(s) = W(0) + B(s) X, the
    residuals r (K+1, n) and the effective residuals V (K+1, n, m), as object arrays of python-flint arb."""

    A: np.ndarray
    Zs: np.ndarray
    BT: np.ndarray
    R: np.ndarray
    V: np.ndarray


class TaylorProblem:
    """Data and constants of one integration (X (n, d), y, G = X Xᵀ, c, scale, T) as mpf, and as arb for the kernel."""

    def __init__(self, X, y, convention: Convention, time_scale):
        self.X = to_mp(X)
        self.y = to_mp(y)
        self.n, self.d = self.X.shape
        self.G = self.X @ self.X.T
        self.identity = all(self.G[i, k] == (1 if i == k else 0) for i in range(self.n) for k in range(self.n))
        self.X_is_identity = self.d == self.n and all(self.X[i, k] == (1 if i == k else 0)
                                                      for i in range(self.n) for k in range(self.n))
        self.convention = convention
        self.scale = exact_mpf(convention.scale)
        self.c = self.scale * exact_mpf(convention.time_factor) / self.n
        self.T = mpmath.mpf(time_scale)
        self.cT = self.c * self.T
        self.y_arb, self.G_arb = to_arb(self.y), to_arb(self.G)
        self.scale_arb, self.cT_arb = _mpf_to_arb(self.scale), _mpf_to_arb(self.cT)

    def coefficients(self, a, Z, act, K: int, effective=None, sliding=()) -> TaylorSeries:
        """Taylor coefficients 0..K of one step from (a, Z) (object arrays of arb) with active data ``act``.

        ``effective`` maps a residual vector r_k (n,) to the effective residuals V_k (n, m) of the segment
        (`numerics.flows.filippov.Pattern.effective_residuals` with its projections in arb); None means V = act ∘ r
        (no sliding). V differs from act ∘ r only in the columns of the neurons in ``sliding``: the others' part of
        Σ_l V_{k−l} a_lᵀ is one tensor product. a, Z may be arb balls (`numerics.arb_enclosure`).
        """
        n, m = Z.shape
        zero = arb(0)
        actf = act.astype(object) * 1  # 0/1 integers: multiplying keeps arb exact
        A = np.empty((K + 1, m), dtype=object)
        Zs = np.empty((K + 1, n, m), dtype=object)
        AZ = np.empty((K + 1, n, m), dtype=object)  # act ∘ Z_k
        R = np.empty((K + 1, n), dtype=object)
        V = np.empty((K + 1, n, m), dtype=object)
        BT = np.empty((K + 1, n, m), dtype=object)
        A[0], Zs[0], AZ[0] = a, Z, Z * actf
        BT[0] = np.full((n, m), zero, dtype=object)
        for k in range(K + 1):
            h = np.tensordot(AZ[: k + 1], A[k::-1], axes=([0, 2], [0, 1]))  # Σ_l Σ_j (act∘Z)_l,ij a_{k−l},j
            R[k] = (self.y_arb if k == 0 else zero) - self.scale_arb * h
            V[k] = R[k][:, None] * actf if effective is None else effective(R[k])
            if k == K:
                break
            da = np.tensordot(AZ[: k + 1], R[k::-1], axes=([0, 1], [0, 1]))  # Σ_l Σ_i (act∘Z)_l,ij r_{k−l},i
            outer = np.tensordot(R[k::-1], A[: k + 1], axes=([0], [0])) * actf  # act ∘ Σ_l r_{k−l} a_lᵀ
            for j in sliding:  # Σ_l V_{k−l},ij a_l,j where V is not act ∘ r
                outer[:, j] = V[k::-1, :, j].T @ A[: k + 1, j]
            f = self.cT_arb / (k + 1)
            A[k + 1] = f * da
            BT[k + 1] = f * outer
            Zs[k + 1] = BT[k + 1] if self.identity else self.G_arb @ BT[k + 1]
            AZ[k + 1] = Zs[k + 1] * actf
        return TaylorSeries(A, Zs, BT, R, V)


def neuron_sizes(a, Z):
    """|a_j| + ‖Z_:j‖ per neuron (mpf): the scale the Jorba–Zou step is relative to."""
    return np.array([abs(a[j]) + mpmath.sqrt(sum(z * z for z in Z[:, j])) for j in range(len(a))], dtype=object)


def _step_size(A, Zs, sizes, tol, K):
    """Jorba–Zou step from the orders K−1 and K, relative to each neuron's size. A neuron whose two last orders
    vanish while lower ones do not is bounded by its last non-zero order instead (a safeguard: the rule would
    otherwise allow any step); a neuron with no non-zero order ≥ 1 does not move and bounds nothing."""
    best = mpmath.inf
    for j, s in enumerate(sizes):
        if s == 0:
            continue

        def norm(k, j=j, s=s):
            return max(abs(A[k, j]), max(abs(z) for z in Zs[k][:, j])) / s

        bounds = [(k, norm(k)) for k in (K - 1, K)]
        bounds = [(k, v) for k, v in bounds if v > 0]
        if not bounds:
            bounds = next(([(k, v)] for k in range(K - 2, 0, -1) if (v := norm(k)) > 0), [])
        for k, v in bounds:
            best = min(best, (tol / v) ** (mpmath.mpf(1) / k))
    return SAFETY * best


class ArbStep:
    """One step's series from the arb kernel: any inputs, sliding. The balls of `TaylorProblem.coefficients`, bit for
    bit, computed by `numerics.taylor_sums` (the inactive components' exact-zero terms left out, one array operation
    per batch of sums), about twice as fast."""

    kernel = "arb"

    def __init__(self, prob: TaylorProblem, a, Z, act, K: int, effective=None, sliding=()):
        self.prob, self.K = prob, K
        if effective is None:
            actf = act.astype(object) * 1
            effective = lambda r: r[:, None] * actf  # noqa: E731 - V = act ∘ r, as in `TaylorProblem.coefficients`
        self.series = TaylorSeries(*sparse_coefficients(prob.y_arb, prob.scale_arb, prob.cT_arb,
                                                         None if prob.identity else prob.G_arb, prob.identity,
                                                         to_arb(a), to_arb(Z), act, K, effective, sliding))
        self.A = to_mpf(self.series.A)
        self._last = None

    def jorba_zou(self, tol, sizes):
        return _step_size(self.A, _LazyOrders(self.series.Zs), sizes, tol, self.K)

    def quantize(self, h):
        return h, h

    def state_at(self, h):
        return horner(list(self.A), h), self._at(h)[0]

    def _at(self, h):
        """(Z(h), Bᵀ(h)) as mpf, both from one Horner pass over the stacked series (the same arb operations entry
        by entry as one pass each), kept for the last h: the engine asks for Bᵀ(h) right after Z(h)."""
        if self._last is None or not self._last[0] == h:
            n = self.series.Zs.shape[1]
            stacked = horner(list(np.concatenate((self.series.Zs, self.series.BT), axis=1)), _mpf_to_arb(h))
            self._last = (h, to_mpf(stacked[:n]), stacked[n:])
        return self._last[1], self._last[2]

    def z_coefficients(self, i, j):
        return list(to_mpf(self.series.Zs[:, i, j]))

    def r_coefficients(self, i):
        return list(to_mpf(self.series.R[:, i]))

    def v_coefficients(self, i, j):
        return list(to_mpf(self.series.V[:, i, j]))

    def a_coefficients(self):
        return _Columns(self.A)

    def new_weights(self, W, Z_old, Z_new, h):
        return W + to_mpf(self._at(h)[1]).T @ self.prob.X


class _Columns:
    """A[:, j] of a (K+1, m) array of mpf as a list (the interface of `numerics.taylor_limbs.LazyCoefficients`)."""

    def __init__(self, A):
        self.A = A

    def column(self, j: int) -> list:
        return list(self.A[:, j])


class _LazyOrders:
    """Zs[k] of an arb series as mpf, converted when first read (the step size reads two orders of K + 1)."""

    def __init__(self, Zs):
        self.Zs, self.cache = Zs, {}

    def __getitem__(self, k):
        if k not in self.cache:
            self.cache[k] = to_mpf(self.Zs[k])
        return self.cache[k]


class LimbStepInTau(LimbStep):
    """`numerics.taylor_limbs.LimbStep` behind the step interface (times in the problem's unit)."""

    kernel = "limbs"

    def jorba_zou(self, tol, sizes):
        """The Jorba–Zou step, at most the time unit H (σ ≤ 1: the fixed format holds the c̃_k to 2^-P absolutely)."""
        self.sigma_jz = self.step_sigma(float(mpmath.log(tol)), float(SAFETY))
        return self.H * mpmath.mpf(min(self.sigma_jz, 1.0))

    def new_weights(self, W, Z_old, Z_new, token):
        if self.prob_X_is_identity:  # Z = X Wᵀ = Wᵀ
            return Z_new.T.copy()
        return W + (Z_new - Z_old).T @ self.prob_X  # G = I: dW = B' X and dZ = G B'ᵀ = B'ᵀ

    def next_time_unit(self) -> int:
        """Time unit of the next step: the power of two just above this step's Jorba–Zou step, at most doubled."""
        if not math.isfinite(self.sigma_jz) or self.sigma_jz >= 1:
            return self.h_exp + 1
        return self.h_exp + math.ceil(math.log2(self.sigma_jz))


def limb_kernel_refusal(prob: TaylorProblem) -> str | None:
    """Why the limb kernel cannot run this problem (None if it can): it needs G = I exactly (orthonormal inputs in
    their data basis) and a power-of-two output scale."""
    if not prob.identity:
        return "the limb kernel needs orthonormal inputs (X Xᵀ = I, run in their data basis)"
    if not (prob.scale > 0 and mpmath.ldexp(1, int(mpmath.floor(mpmath.log(prob.scale, 2)))) == prob.scale):
        return f"the limb kernel needs a power-of-two output scale, the convention has {mpmath.nstr(prob.scale, 8)}"
    return None


def initial_time_unit(prob: TaylorProblem) -> int:
    """A power of two below 1/(rate bound T c (1 + Σ|y|)): the first step's time unit (it grows by doubling)."""
    rate = float(abs(prob.cT)) * (1.0 + float(sum(abs(v) for v in prob.y)))
    return -int(math.ceil(math.log2(max(rate, 1e-300))))


def limb_step(prob, a, Z, act, K, fmt, h_exp, retries: int = 40):
    """(`LimbStepInTau`, its time-unit exponent), the time unit divided by 8 at each overflow of the fixed format."""
    for _ in range(retries):
        try:
            step = LimbStepInTau(prob, a, Z, act, K, fmt, h_exp)
            step.prob_X, step.prob_X_is_identity = prob.X, prob.X_is_identity
            return step, h_exp
        except LimbOverflow:
            h_exp -= 3
    raise ArithmeticError(f"fixed-point Taylor coefficients overflow at every time unit down to 2^{h_exp}")
