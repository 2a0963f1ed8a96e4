"""High-order Taylor integration of the ReLU gradient flow in mpmath, with exact activation events and Filippov
sliding modes. (Conversions and the precision rule: `numerics.mp_arrays`; the registered engine "mpmath-taylor"
with jump times and the precision guard: `numerics.taylor_engine`.)

The flow (C eqs. 2–4, B eqs. 1–3, A eq. 4; `numerics.network.field`) in raw coordinates (a, W)
and a rescaled time τ = t / T (T = ln(1/λ) gives C's accelerated time; T = 1 is real time):

    dθ/dτ = −T · time_factor · ∇L(θ),   σ'(0) = 0.

Within a fixed activation pattern `act` (act_ij = 1{⟨w_j, x_i⟩ > 0}) the field is a *cubic*
polynomial of the parameters: with Z = X Wᵀ (pre-activations, n×m), G = X Xᵀ (Gram matrix) and
c = scale · time_factor / n,

    r_i   = y_i − scale Σ_j act_ij a_j Z_ij                       (residuals, quadratic)
    da_j  = T c Σ_i act_ij r_i Z_ij                               (cubic)
    dW_j  = T c a_j Σ_i act_ij r_i x_i = Σ_i B'_ji x_i,   B'ᵀ = T c act ∘ (r aᵀ)
    dZ    = G B'ᵀ.

The Taylor coefficients follow by the usual recurrence of automatic differentiation: with
a(s) = Σ_k a_k s^k, etc., the coefficient k of a product is the Cauchy sum Σ_l u_l v_{k−l}, and
a_{k+1} = (coefficient k of da)/(k+1). The residual series r_k is formed first (order k needs
a_0..a_k, Z_0..Z_k), then the coefficient k+1 of a, B and Z.

Step size and order (Jorba & Zou 2005): order K = 2·digits and step
h = 0.9 · min_j min_{k∈{K−1,K}} (tol / ‖c_k‖_j)^{1/k}, where ‖c_k‖_j is the largest coefficient of order
k of neuron j (a_j and its pre-activations) *relative to that neuron's size* |a_j| + ‖Z_:j‖. Each neuron
is thus integrated to relative accuracy tol even when its size is λ = 1e-1000 next to neurons of size 1
(mpmath floats have an unbounded exponent; only relative precision matters). At tiny λ the solution is
locally exponential with rates ∝ ln(1/λ) (growth of unfitted neurons, decay of residuals), an
entire-function regime where a step covers ~(K/e)·tol^{1/K} e-foldings for ~K² work: the cost per unit
time, K·10^{digits/K}, is smallest at K ≈ 2.3·digits. Measured (golden example to τ = 1.2): 30 digits,
λ = 1e-300, K = 35/60/90: 563/174/96 steps, 7.2/4.9/5.9 s; 60 digits, λ = 1e-1000, K = 120/160:
280/180 steps, 26.8/27.2 s (K = 69: 1063 steps, 65 s to τ = 1.6).

Kernels (the Cauchy sums, ~(3/2)K²nm products per step, are the whole cost): ``kernel="limbs"``
(`numerics.taylor_limbs`, orthonormal inputs and a power-of-two output scale, the default there) computes each
order's three sums as exact float64 matrix products on 19-bit fixed-point limbs, in a time unit H = 2^e near the
step and with per-neuron power-of-two scales; ``kernel="arb"`` (any inputs) uses python-flint arb numbers in
object arrays. Both implement one step interface (`_ArbStep`, `_LimbStepInTau`: Jorba–Zou step, state at a step,
coefficients of a pre-activation for events, coefficients of a for jump times). Measured on the n = 16, m = 8
instance of `bench.bench_high_precision` at λ = 1e-1000 through the last jump (τ = 13.38), one BLAS thread:
30 digits 21.6 s (780 steps), 40 digits 29.4 s (619 steps), 60 digits 60–63 s (461 steps; 46.4 s with two BLAS
threads); the arb kernel took 474 s at 60 digits in the previous version.

Events: an active pre-activation reaching 0 (or, for non-orthogonal data, a negative inactive one
reaching 0) is located as the root of its Taylor polynomial in the step (bracketed Illinois /
Newton to working precision); the integration stops there, the component is set exactly on the
kink, and the pattern is rebuilt with σ'(0) = 0 (a component on the kink is active only if the field
computed with it inactive pushes it to positive values, as in `numerics.flow`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath
import numpy as np
from flint import arb

from .errors import RelucheckInputError
from .mp_arrays import _mpf_to_arb, check_precision, exact_mpf, flint_precision, to_arb, to_mp, to_mpf
from .network import PAPER_A, Convention
from .taylor_limbs import LimbOverflow, LimbStep, fixed_format

SAFETY = mpmath.mpf("0.9")  # fraction of the Jorba–Zou step actually taken


@dataclass
class TaylorEvent:
    tau: mpmath.mpf
    neuron: int
    datum: int
    kind: str  # "deactivate", "activate", "slide" (enters a sliding mode), "leave_down", "leave_up" (leaves one)


@dataclass
class TaylorTrajectory:
    """What `taylor_flow` returns. Arrays of dtype=object hold mpmath numbers at ``digits``.

    taus, a, Z, losses, balance: step-end samples (τ_0 = 0 first) of a, the pre-activations Z = X Wᵀ,
    the loss and the balancedness a_j² − ‖w_j‖² of every neuron; polys: per step (τ_start, h, A) with A the
    (K+1, m) Taylor coefficients of a(τ_start + s) in s ∈ [0, h], used to locate crossings to working
    precision after the run.
    """

    taus: list
    a: list
    Z: list
    losses: list
    balance: list
    a_final: np.ndarray
    W_final: np.ndarray
    events: list[TaylorEvent]
    polys: list
    status: str
    message: str
    digits: int
    order: int
    steps: int
    seconds: float
    act_final: np.ndarray = field(default_factory=lambda: np.empty(0))
    kernel: str = "arb"  # "limbs" (fixed point on BLAS, orthonormal inputs) or "arb" (any inputs)


def _horner(coeffs, s):
    acc = coeffs[-1]
    for c in coeffs[-2::-1]:
        acc = acc * s + c
    return acc


class _Problem:
    """Data and constants of one integration (X (n,d), y, G = X Xᵀ, c, scale, T) as mpf, and as arb for the kernel."""

    def __init__(self, X, y, convention: Convention, time_scale):
        self.X = to_mp(X)
        self.y = to_mp(y)
        self.n, self.d = self.X.shape
        self.G = self.X @ self.X.T
        self.identity = all(self.G[i, k] == (1 if i == k else 0) for i in range(self.n) for k in range(self.n))
        self.X_is_identity = self.d == self.n and all(self.X[i, k] == (1 if i == k else 0)
                                                      for i in range(self.n) for k in range(self.n))
        self.scale = exact_mpf(convention.scale)
        self.c = self.scale * exact_mpf(convention.time_factor) / self.n
        self.T = mpmath.mpf(time_scale)
        self.cT = self.c * self.T
        self.y_arb, self.G_arb = to_arb(self.y), to_arb(self.G)
        self.scale_arb, self.cT_arb = _mpf_to_arb(self.scale), _mpf_to_arb(self.cT)

    def residuals(self, a, Z, act):
        """r_i = y_i − scale Σ_j act_ij a_j Z_ij (mpmath.fdot over the active pairs)."""
        aj = list(a)
        return np.array([self.y[i] - self.scale * mpmath.fdot([(aj[j], Z[i, j]) for j in np.flatnonzero(act[i])])
                         for i in range(Z.shape[0])], dtype=object)

    def loss(self, a, Z, act):
        r = self.residuals(a, Z, act)
        return mpmath.fdot(r, r) / (2 * self.n)

    def dZ(self, a, Z, act, slide=None):
        """dZ/dτ = G · B'ᵀ for a given pattern (used to decide components on the kink): B'ᵀ = T c act∘(r aᵀ), or
        with sliding components B'ᵀ_:j = T c a_j P_j r (`projections`)."""
        r = self.residuals(a, Z, act)
        P = self.projections(act, slide)
        if P is None:
            BT = self.cT * (act * np.outer(r, a))
        else:
            BT = np.array([[self.cT * a[j] * sum(P[j][i, q] * r[q] for q in range(len(r))) for j in range(len(a))]
                           for i in range(len(r))], dtype=object)
        return BT if self.identity else self.G @ BT

    def projections(self, act, slide):
        """Filippov sliding (A. F. Filippov 1988, ch. 2 §4): P_j with B'_j = T c a_j P_j r, or None without sliding.

        A component (i, j) held on the kink (slide) takes the activation weight η_ij ∈ (0, 1) for which
        dZ_ij = 0: with A = act[:, j], Σ = slide[:, j], the weighted residuals v = P_j r are v_A = r_A,
        v_Σ = −G_ΣΣ⁻¹ G_ΣA r_A (η_i = v_i / r_i), 0 elsewhere. Linear in r, so the field stays polynomial.
        """
        if slide is None or not slide.any():
            return None
        n, m = act.shape
        out = []
        for j in range(m):
            P = mpmath.zeros(n, n)
            A, S = np.flatnonzero(act[:, j]), np.flatnonzero(slide[:, j])
            for i in A:
                P[int(i), int(i)] = 1
            if len(S) and len(A):
                GSS = mpmath.matrix([[self.G[s, t] for t in S] for s in S])
                GSA = mpmath.matrix([[self.G[s, q] for q in A] for s in S])
                M = -(GSS ** -1) * GSA
                for u, s in enumerate(S):
                    for v, q in enumerate(A):
                        P[int(s), int(q)] = M[u, v]
            out.append(P)
        return out

    def coefficients(self, a, Z, act, K: int, projections=None, series: bool = False):
        """Taylor coefficients 0..K of a(s), Z(s), Bᵀ(s) (B(0) = 0) for the fixed pattern ``act``.

        a, Z are dtype=object arrays of python-flint ``arb`` (exact midpoints of the mpmath state):
        the Cauchy sums are ~(3/2)K²nm products, and arb's are ~18× cheaper than mpf's (bench). With sliding
        components, ``projections`` (`projections`) replace act∘r in B' by the weighted residuals P_j r. With
        ``series`` also the residual series R (K+1, n) and the weighted residuals V (K+1, n, m) are returned.
        """
        if projections is not None or series:
            return self._coefficients_projected(a, Z, act, K, projections)
        n, m = Z.shape
        zero = arb(0)
        A = np.empty((K + 1, m), dtype=object)
        Zs = np.empty((K + 1, n, m), dtype=object)
        AZ = np.empty((K + 1, n, m), dtype=object)  # act ∘ Z_k
        R = np.empty((K + 1, n), dtype=object)
        BT = np.empty((K + 1, n, m), dtype=object)
        A[0], Zs[0], AZ[0] = a, Z, Z * act
        BT[0] = np.full((n, m), zero, dtype=object)
        actf = act.astype(object) * 1  # 0/1 integers: multiplying keeps mpf exact
        for k in range(K):
            h = np.tensordot(AZ[: k + 1], A[k::-1], axes=([0, 2], [0, 1]))  # Σ_l Σ_j (act∘Z)_l,ij a_{k−l},j
            R[k] = (self.y_arb if k == 0 else zero) - self.scale_arb * h
            Rrev = R[k::-1]
            da = np.tensordot(AZ[: k + 1], Rrev, axes=([0, 1], [0, 1]))  # Σ_l Σ_i (act∘Z)_l,ij r_{k−l},i
            outer = np.tensordot(Rrev, A[: k + 1], axes=([0], [0]))  # Σ_l r_{k−l} a_lᵀ
            f = self.cT_arb / (k + 1)
            A[k + 1] = f * da
            BT[k + 1] = f * (outer * actf)
            Zs[k + 1] = BT[k + 1] if self.identity else self.G_arb @ BT[k + 1]
            AZ[k + 1] = Zs[k + 1] * actf
        return A, Zs, BT

    def _coefficients_projected(self, a, Z, act, K: int, projections):
        """`_Problem.coefficients` with B'_j = T c a_j P_j r (sliding components), returning also R and V."""
        n, m = Z.shape
        zero = arb(0)
        if projections is None:
            P = [np.diag([arb(1) if act[i, j] else zero for i in range(n)]) for j in range(m)]
        else:
            P = [np.array([[_mpf_to_arb(Pj[i, q]) for q in range(n)] for i in range(n)], dtype=object) for Pj in projections]
        A = np.empty((K + 1, m), dtype=object)
        Zs = np.empty((K + 1, n, m), dtype=object)
        AZ = np.empty((K + 1, n, m), dtype=object)
        R = np.empty((K + 1, n), dtype=object)
        V = np.empty((K + 1, n, m), dtype=object)
        BT = np.empty((K + 1, n, m), dtype=object)
        actf = act.astype(object) * 1
        A[0], Zs[0], AZ[0] = a, Z, Z * actf
        BT[0] = np.full((n, m), zero, dtype=object)
        for k in range(K + 1):
            h = np.tensordot(AZ[: k + 1], A[k::-1], axes=([0, 2], [0, 1]))
            R[k] = (self.y_arb if k == 0 else zero) - self.scale_arb * h
            V[k] = np.stack([P[j] @ R[k] for j in range(m)], axis=1)
            if k == K:
                break
            da = np.tensordot(AZ[: k + 1], R[k::-1], axes=([0, 1], [0, 1]))
            outer = (V[k::-1] * A[: k + 1, None, :]).sum(axis=0)  # Σ_l (P_j r_{k−l})_i a_{l,j}
            f = self.cT_arb / (k + 1)
            A[k + 1] = f * da
            BT[k + 1] = f * outer
            Zs[k + 1] = BT[k + 1] if self.identity else self.G_arb @ BT[k + 1]
            AZ[k + 1] = Zs[k + 1] * actf
        return A, Zs, BT, R, V


def _neuron_sizes(a, Z):
    return np.array([abs(a[j]) + mpmath.sqrt(sum(z * z for z in Z[:, j])) for j in range(len(a))], dtype=object)


def _step_size(A_last, Zs_last, sizes, tol, K):
    """Jorba–Zou step from the last two coefficients (orders K−1, K), relative to each neuron's size."""
    best = mpmath.inf
    for j, s in enumerate(sizes):
        if s == 0:
            continue
        for q, k in enumerate((K - 1, K)):
            norm = max(abs(A_last[q, j]), max(abs(z) for z in Zs_last[q, :, j])) / s
            if norm > 0:
                best = min(best, (tol / norm) ** (mpmath.mpf(1) / k))
    return SAFETY * best


def _crossing(coeffs, h, tol):
    """Root of the polynomial Σ c_k s^k in (0, h] where it changes sign (bracketed, to working precision)."""
    def f(s):
        return _horner(coeffs, s)

    lo, hi = mpmath.mpf(0), h
    flo, fhi = f(lo), f(hi)
    # Illinois (regula falsi with halving), safeguarded: converges superlinearly on a simple root
    side = 0
    for _ in range(400):
        s = (lo * fhi - hi * flo) / (fhi - flo)
        fs = f(s)
        if fs == 0 or hi - lo <= tol * h:
            return s
        if (fs > 0) == (flo > 0):
            lo, flo = s, fs
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = s, fs
            if side == 1:
                flo /= 2
            side = 1
    return hi


def _settle_pattern(prob: _Problem, a, Z, act, kink_tol, slide=None):
    """σ'(0) = 0 pattern with Filippov sliding, as (act, slide).

    Away from the kink, the sign of Z. A component on the kink (decided one at a time) is active if the field
    computed with it inactive pushes it up and, with it active, does not push it back down; *sliding* if the
    field pushes it up when inactive and down when active (both sides push it onto the kink: only on
    non-orthogonal data, since on orthonormal data an inactive component has zero field); inactive otherwise.
    """
    sizes = _neuron_sizes(a, Z)
    n, m = Z.shape
    thresh = np.array([[kink_tol * sizes[j] for j in range(m)] for _ in range(n)], dtype=object)
    new = np.array(Z > thresh, dtype=bool)
    kink = np.array(abs(Z) <= thresh, dtype=bool)
    slide_new = np.zeros(Z.shape, dtype=bool)
    for i, j in zip(*np.nonzero(kink), strict=False):
        off = prob.dZ(a, Z, new, slide_new)
        if not off[i, j] > kink_tol * _neuron_sizes(a, off)[j]:
            continue
        on_act = new.copy()
        on_act[i, j] = True
        on = prob.dZ(a, Z, on_act, slide_new)
        if on[i, j] < -kink_tol * _neuron_sizes(a, on)[j]:
            slide_new[i, j] = True
        else:
            new[i, j] = True
    return new, slide_new


class _ArbStep:
    """One step's series from the python-flint arb kernel (`_Problem.coefficients`): any inputs, sliding modes."""

    def __init__(self, prob: _Problem, a, Z, act, K: int, slide=None):
        self.prob, self.K = prob, K
        P = prob.projections(act, slide)
        if P is None:
            A, self.Zs, self.BT = prob.coefficients(to_arb(a), to_arb(Z), act, K)
        else:
            A, self.Zs, self.BT, self.R, self.V = prob.coefficients(to_arb(a), to_arb(Z), act, K, projections=P)
        self.A = to_mpf(A)

    def slide_exit_polys(self, i, j):
        """(kind, coefficients) of the two quantities whose zero ends the sliding of (i, j): sgn(r_i)·v_i (η → 0,
        the component leaves downwards) and sgn(r_i)·(r_i − v_i) (η → 1, it leaves upwards); both > 0 while
        η_ij = v_i / r_i ∈ (0, 1)."""
        sign = 1 if float(self.R[0, i].mid()) > 0 else -1
        v = [sign * x for x in to_mpf(self.V[:, i, j])]
        w = [sign * x for x in to_mpf(self.R[:, i] - self.V[:, i, j])]
        return [("leave_down", v), ("leave_up", w)]

    def jorba_zou(self, tol, sizes):
        return _step_size(self.A[self.K - 1:], to_mpf(self.Zs[self.K - 1:]), sizes, tol, self.K)

    def quantize(self, h):
        return h, h

    def state_at(self, h):
        return _horner(list(self.A), h), to_mpf(_horner(list(self.Zs), _mpf_to_arb(h)))

    def z_coefficients(self, i, j):
        return list(to_mpf(self.Zs[:, i, j]))

    def a_coefficients(self):
        return self.A

    def new_weights(self, W, Z_old, Z_new, h):
        return W + to_mpf(_horner(list(self.BT), _mpf_to_arb(h))).T @ self.prob.X


class _LimbStepInTau(LimbStep):
    """`numerics.taylor_limbs.LimbStep` seen through the step interface of `taylor_flow` (τ units)."""

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


def _limb_kernel_applies(prob: _Problem, kernel: str) -> bool:
    if kernel not in ("auto", "limbs", "arb"):
        raise RelucheckInputError(f"kernel must be 'auto', 'limbs' or 'arb', got {kernel!r}")
    power_of_two = bool(prob.scale > 0 and mpmath.ldexp(1, int(mpmath.floor(mpmath.log(prob.scale, 2)))) == prob.scale)
    if kernel == "limbs" and not prob.identity:
        raise RelucheckInputError("the limb kernel needs orthonormal inputs (X Xᵀ = I exactly); use kernel='arb'")
    if kernel == "limbs" and not power_of_two:
        raise RelucheckInputError(f"the limb kernel needs a power-of-two output scale, the convention has "
                                  f"{mpmath.nstr(prob.scale, 8)}; use kernel='arb'")
    return kernel != "arb" and prob.identity and power_of_two


def _initial_time_unit(prob: _Problem) -> int:
    """A power of two below 1/(rate bound T c (1 + Σ|y|)): the first step's time unit (it grows by doubling)."""
    rate = float(abs(prob.cT)) * (1.0 + float(sum(abs(v) for v in prob.y)))
    return -int(math.ceil(math.log2(max(rate, 1e-300))))


def _limb_step(prob, a, Z, act, K, fmt, h_exp, retries: int = 40):
    """A `_LimbStepInTau`, the time unit halved thrice at each overflow of the fixed format."""
    for _ in range(retries):
        try:
            step = _LimbStepInTau(prob, a, Z, act, K, fmt, h_exp)
            step.prob_X, step.prob_X_is_identity = prob.X, prob.X_is_identity
            return step, h_exp
        except LimbOverflow:
            h_exp -= 3
    raise ArithmeticError(f"fixed-point Taylor coefficients overflow at every time unit down to 2^{h_exp}")


def taylor_flow(X, y, a0, W0, tau_end, *, time_scale=1, convention: Convention = PAPER_A, digits: int = 40,
                max_steps: int = 200_000, max_events: int = 10_000, order: int | None = None,
                kernel: str = "auto") -> TaylorTrajectory:
    """Integrate dθ/dτ = −T·time_factor·∇L(θ) (σ'(0) = 0) from (a0, W0) to τ = ``tau_end`` at ``digits`` digits.

    X (n, d) any inputs, y (n,), a0 (m,), W0 (m, d) as floats or mpmath numbers; T = ``time_scale``
    (a number or a decimal string, e.g. ln(1/λ) for C's accelerated time). ``kernel``: "limbs" (fixed point on
    BLAS, `numerics.taylor_limbs`; orthonormal inputs and a power-of-two output scale), "arb" (python-flint, any
    inputs) or "auto" (limbs where they apply).
    """
    check_precision(digits)
    start_clock = time.perf_counter()
    with mpmath.workdps(digits), flint_precision(digits):
        prob = _Problem(X, y, convention, time_scale)
        a = to_mp(a0)
        W = to_mp(W0)
        if a.ndim != 1 or W.ndim != 2 or W.shape != (a.shape[0], prob.d):
            raise RelucheckInputError(f"a0 must be (m,) and W0 (m, d={prob.d}); got {a.shape} and {W.shape}")
        if prob.y.shape != (prob.n,):
            raise RelucheckInputError(f"labels must have n = {prob.n} entries, got shape {prob.y.shape}")
        tau_end = mpmath.mpf(tau_end)
        if not tau_end > 0:
            raise RelucheckInputError(f"final time tau_end must be > 0, got {tau_end}")
        K = order if order is not None else max(12, 2 * digits)
        tol = mpmath.mpf(10) ** (-digits)
        kink_tol = mpmath.mpf(10) ** (-(digits - 5))
        Z = prob.X @ W.T
        act, slide = _settle_pattern(prob, a, Z, np.zeros(Z.shape, dtype=bool), kink_tol)
        tau = mpmath.mpf(0)
        def balance(a, W):
            return np.array([a[j] ** 2 - mpmath.fdot(W[j], W[j]) for j in range(len(a))], dtype=object)

        taus, a_s, Z_s, losses, polys, events = [tau], [a.copy()], [Z.copy()], [prob.loss(a, Z, act)], [], []
        balances = [balance(a, W)]
        status, message = "success", "reached the final time"
        steps = 0
        stuck = 0  # consecutive events with a zero-length step: chattering that the sliding rule did not resolve
        use_limbs = _limb_kernel_applies(prob, kernel)
        fmt = fixed_format(digits) if use_limbs else None
        h_exp = _initial_time_unit(prob) if use_limbs else None
        while tau < tau_end:
            if steps >= max_steps:
                status, message = "step_limit", f"stopped after {max_steps} steps at τ = {mpmath.nstr(tau, 12)}"
                break
            if use_limbs:
                step, h_exp = _limb_step(prob, a, Z, act, K, fmt, h_exp)
            else:
                step = _ArbStep(prob, a, Z, act, K, slide)
            h_jz = step.jorba_zou(tol, None if use_limbs else _neuron_sizes(a, Z))
            last = h_jz >= tau_end - tau
            h, token = step.quantize(min(h_jz, tau_end - tau))
            try:
                a_new, Z_new = step.state_at(token)
            except LimbOverflow:  # the state grew past the fixed format's headroom within the step: smaller unit
                h_exp -= 3
                continue
            # events: active components reaching 0 from above, negative inactive ones reaching 0 from below
            hit, first = None, h
            candidates = list(zip(*np.nonzero(act & np.array(Z_new <= 0, dtype=bool)), strict=False))
            if use_limbs and len(candidates) > 1:  # locate only the earliest (float estimates; near-ties all kept)
                est = step.first_roots(candidates, h)
                cut = est.min() * (1 + 1e-6) + 1e-300
                candidates = [c for c, e in zip(candidates, est, strict=True) if e <= cut or not np.isfinite(e)]
            for i, j in candidates:
                coeffs = step.z_coefficients(i, j)
                if _horner(coeffs, first) <= 0:
                    hit, first = (int(i), int(j), "deactivate"), _crossing(coeffs, first, tol)
            if not prob.identity:
                for i, j in zip(*np.nonzero(~act & np.array(Z < 0, dtype=bool) & np.array(Z_new > 0, dtype=bool)),
                                strict=False):
                    coeffs = [-c for c in step.z_coefficients(i, j)]
                    if _horner(coeffs, first) <= 0:
                        hit, first = (int(i), int(j), "activate"), _crossing(coeffs, first, tol)
            for i, j in zip(*np.nonzero(slide), strict=False):  # sliding components leaving the kink
                for kind, coeffs in step.slide_exit_polys(i, j):
                    if _horner(coeffs, first) <= 0:
                        hit, first = (int(i), int(j), kind), _crossing(coeffs, first, tol)
            if hit is not None:
                last = False
                h, token = step.quantize(first)
                a_new, Z_new = step.state_at(token)
            polys.append((tau, h, step.a_coefficients()))
            W = step.new_weights(W, Z, Z_new, token)
            a, Z = a_new, (Z_new if prob.identity else prob.X @ W.T)
            tau = tau_end if last else tau + h
            if use_limbs:
                h_exp = step.next_time_unit()
            steps += 1
            stuck = stuck + 1 if hit is not None and h <= kink_tol * (1 + abs(tau)) else 0
            if stuck > 2 * Z.size:
                status, message = "sliding_mode", (f"pre-activations chatter on the kink at τ = {mpmath.nstr(tau, 12)} "
                                                   "(events of zero length repeat: a sliding mode that the one-at-a-"
                                                   "time rule of `_settle_pattern` does not resolve): stopped")
                break
            on_kink = [(int(i), int(j)) for i, j in zip(*np.nonzero(slide), strict=False)]
            if hit is not None:
                i, j, kind = hit
                events.append(TaylorEvent(tau, j, i, kind))
                on_kink.append((i, j))
                if kind in ("leave_down", "leave_up"):
                    slide[i, j] = False
            for i, j in on_kink:  # components on the kink (an event, a sliding mode) put exactly at 0
                W[j] = W[j] - Z[i, j] * prob.X[i] / prob.G[i, i]
                if prob.identity:
                    Z[i, j] = mpmath.mpf(0)
            if on_kink and not prob.identity:
                Z = prob.X @ W.T
                for i, j in on_kink:
                    Z[i, j] = mpmath.mpf(0)
            if hit is not None:
                was_sliding = slide.copy()
                act, slide = _settle_pattern(prob, a, Z, act, kink_tol, slide)
                for i, j in zip(*np.nonzero(slide & ~was_sliding), strict=False):
                    events.append(TaylorEvent(tau, int(j), int(i), "slide"))
                if len(events) >= max_events:
                    status, message = "event_limit", f"stopped after {max_events} events at τ = {mpmath.nstr(tau, 12)}"
                    break
            taus.append(tau)
            a_s.append(a.copy())
            Z_s.append(Z.copy())
            losses.append(prob.loss(a, Z, act))
            balances.append(balance(a, W))
        return TaylorTrajectory(taus, a_s, Z_s, losses, balances, a, W, events, polys, status, message, digits, K, steps,
                                time.perf_counter() - start_clock, act, "limbs" if use_limbs else "arb")
