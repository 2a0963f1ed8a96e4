"""A stiff integrator of paper A's gradient flow for the regime runs that fit the noise (issue 23, item 1 of s29).

Why. The regime runs (`numerics.paper_a_regime`) step the flow θ' = F(θ) = −∇L(θ) (A eq. 4, L = 1/(2n) Σ r²) by GD,
whose step is bounded by its stability limit 2/λ_max(∇²L), not by accuracy: a network that fits noisy labels grows
large neurons, λ_max ≈ Σ_j a_j² ‖x‖²/n climbs to 10²–10³ (docs/scale_runs.md: d = 3, n = 32, seed 2, m = 128 at
t = 4000: λ_max = 124, GD step 0.0118), and 10⁶ steps end at t ≈ 10⁴ with L still falling ("budget": undecided).

What. Verwer's ROS2 (Verwer, Spee, Blom, Hundsdorfer, SIAM J. Sci. Comput. 20 (1999), eq. 2.3), a two-stage
Rosenbrock W-method, γ = 1 + 1/√2,

    (I − γhA) k₁ = F(θ),   (I − γhA) k₂ = F(θ + h k₁) − 2 k₁,   θ⁺ = θ + (3/2) h k₁ + (1/2) h k₂,

which is of order 2 for ANY matrix A (a W-method: the order conditions do not involve A), and L-stable with A the
exact Jacobian. Here A = −JᵀJ/n, the Gauss–Newton part of −∇²L (J = ∂h(x_i)/∂θ, n × m(d + 1)): it holds the stiff
directions (the a_j² ‖x‖² and ‖w_j‖² blocks); the rest of the Hessian (residual times the a_j–w_j cross term, of
size ≤ ‖r‖ ‖x‖) is treated explicitly. A is evaluated and factored once per call of `StiffBatch.descend` (one
window of the step-size control of `numerics.paper_a_training.train_batch`, at one step h), through the n × n
kernel K = JJᵀ = ΦΦᵀ + (XXᵀ) ⊙ (S diag(a²) Sᵀ) (Φ = relu(XWᵀ), S = 1{XWᵀ > 0}) and the push-through identity
(I + cJᵀJ)⁻¹ v = v − cJᵀ(I + cK)⁻¹ J v, c = γh/n: a solve costs O(n²), not O((m d)³).

Error control. ROS2's embedded first-order solution θ + h k₁ gives the local error estimate e = θ⁺ − (θ + h k₁)
= (h/2)(k₁ + k₂). A step is accepted when every component satisfies |e_i| ≤ ATOL + RTOL · max(|θ_i|, |θ⁺_i|)
(max norm, not the usual RMS norm: a small neuron, whose escape decides a plateau, is controlled relative to its own
size). A window with a rejected step is returned with a NaN state; `train_batch` then undoes the window and halves
the step, as for a GD window that made L rise. RTOL = 10⁻³: the decisions read L to rel_tol = 1 % per doubling of
the flow time (`numerics.paper_a_regime.REGIME_PROTOCOL`); a relative state error δ moves L by at most ≈ 2δ·L
(L is quadratic in the output, which is bilinear in (a, w)), so a step's error changes L by ≤ 0.2 % of its own
value; over the ~10² steps of a doubling these local errors add to the order of the rule's 1 % only if they all had
the same sign, which the test against GD (tests/test_paper_a_stiff.py: the same stationary or interpolating ratio
within the tolerance stated there) checks on runs in both phases. ATOL = 10⁻¹⁰ only guards exact zeros.
"""
from __future__ import annotations

import math

import numpy as np

from .flows.batched_gd import Field, GDBatch

GAMMA = 1.0 + 1.0 / math.sqrt(2.0)  # ROS2 (Verwer et al. 1999): L-stable with the exact Jacobian
RTOL = 1e-3  # per component, relative to its size (module docstring)
ATOL = 1e-10


def _parts(X, a, W):
    Z = X @ W.T
    S = (Z > 0).astype(float)
    return Z * S, S


def _field(X, y, a, W, n):
    """(F_a, F_W) = −∇L and the residual r = y − h (σ'(0) = 0), as `GDBatch.evaluate` (A eq. 4)."""
    Phi, S = _parts(X, a, W)
    r = y - Phi @ a
    return Phi.T @ r / n, a[:, None] * ((S * r[:, None]).T @ X) / n, r


class _Factored:
    """(I − γhA)⁻¹ at one state, A = −JᵀJ/n (module docstring): applied to any (v_a, v_W) in O(n m d + n²)."""

    def __init__(self, X, a, W, n, h):
        self.X, self.a = X, a
        self.Phi, self.S = _parts(X, a, W)
        self.c = GAMMA * h / n
        K = self.Phi @ self.Phi.T + (X @ X.T) * ((self.S * a**2) @ self.S.T)
        M = np.eye(len(K)) + self.c * K
        self.chol = np.linalg.cholesky(M)

    def solve(self, va, vW):
        X, a, Phi, S = self.X, self.a, self.Phi, self.S
        Jv = Phi @ va + (S * (X @ vW.T)) @ a
        z = np.linalg.solve(self.chol.T, np.linalg.solve(self.chol, Jv))
        return va - self.c * (Phi.T @ z), vW - self.c * a[:, None] * ((S * z[:, None]).T @ X)


def ros2_window(X, y, a, W, h: float, steps: int, n: int, *, rtol: float = RTOL, atol: float = ATOL):
    """``steps`` ROS2 steps of size h on one problem (real rows only), A factored at the window's start. Returns
    (a, W, worst): worst = the largest scaled local error max_i |e_i| / (atol + rtol·|θ_i|) over the steps (≤ 1:
    every step accepted); stops at the first step above 1."""
    a, W = a.copy(), W.copy()
    fac = _Factored(X, a, W, n, h)
    worst = 0.0
    for _ in range(steps):
        Fa, FW, _ = _field(X, y, a, W, n)
        k1a, k1W = fac.solve(Fa, FW)
        Ga, GW, _ = _field(X, y, a + h * k1a, W + h * k1W, n)
        k2a, k2W = fac.solve(Ga - 2 * k1a, GW - 2 * k1W)
        na, nW = a + 1.5 * h * k1a + 0.5 * h * k2a, W + 1.5 * h * k1W + 0.5 * h * k2W
        ea, eW = 0.5 * h * (k1a + k2a), 0.5 * h * (k1W + k2W)
        size = np.maximum(np.sqrt(np.maximum(a**2, (W**2).sum(1))), np.sqrt(np.maximum(na**2, (nW**2).sum(1))))
        err = float(np.max(np.sqrt(ea**2 + (eW**2).sum(1)) / (atol + rtol * size)))
        worst = max(worst, err)
        if not err <= 1.0:
            break
        a, W = na, nW
    return a, W, worst


class StiffBatch:
    """A `GDBatch` stack whose `descend` takes ROS2 steps (module docstring) instead of GD steps; everything else
    (the field, the losses, `take`) is the float64 GDBatch's. `train_batch` steps it through
    `numerics.flows.batched_gd.descend`, which hands a batch that is not a GDBatch to its own ``descend``."""

    def __init__(self, inner: GDBatch, *, rtol: float = RTOL):
        self.inner = inner if inner.dtype == np.float64 else inner.with_dtype(np.float64)
        self.rtol = rtol
        self.dtype, self.X, self.y, self.n = self.inner.dtype, self.inner.X, self.inner.y, self.inner.n
        self.rejected_windows = 0

    def with_dtype(self, dtype):
        return self

    def take(self, idx) -> "StiffBatch":
        return StiffBatch(self.inner.take(idx), rtol=self.rtol)

    def evaluate(self, a, W, **kw) -> Field:
        return self.inner.evaluate(a, W, **kw)

    def descend(self, a, W, eta, steps, *, field=None, observe=None):
        eta = np.broadcast_to(np.asarray(eta, float), a.shape[:1])
        for b in range(a.shape[0]):
            nb = int(self.n[b]) if np.ndim(self.n) else int(self.n)
            ab, Wb, worst = ros2_window(self.X[b, :nb], self.y[b, :nb], a[b], W[b], float(eta[b]), steps, nb,
                                        rtol=self.rtol)
            if worst <= 1.0:
                a[b], W[b] = ab, Wb
            else:  # a step's local error above the tolerance: the window is rejected (NaN state, see docstring)
                a[b], W[b] = np.nan, np.nan
        return steps, self.inner.evaluate(a, W)
