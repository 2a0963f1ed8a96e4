"""Batched full-batch gradient descent for paper A: many (n, seed) problems trained at once.

Paper A §5 trains one network per sample size n and reads the train and test losses "at
convergence". Here B problems of one dimension d and width m are stacked into padded arrays
(X: (B, N, d) with N = max n, a mask for the padding) and stepped together with batched matmuls:

    r_bk = mask_bk (y_bk − Σ_j a_bj σ(⟨w_bj, x_bk⟩)),
    a_bj ← a_bj + η (1/n_b) Σ_k r_bk σ(⟨w_bj, x_bk⟩),      w_bj ← w_bj + η a_bj (1/n_b) Σ_k 1{⟨w_bj,x_bk⟩>0} r_bk x_bk,

the explicit Euler scheme of A eq. (4) with L = 1/(2n) Σ r² and σ'(0) = 0 (`numerics.network.field`,
stacked). Continuous time is steps × η.

Stopping (per problem; a stopped problem is frozen and drops out of the arithmetic):

* ``interpolating``: L ≤ ``interp_ratio`` · L_OLS. Full-batch GD with η below 2/smoothness decreases
  L monotonically, so once the ratio threshold is crossed the classification "interpolates" is final.
* ``stationary``: after the initial plateau (L ≤ ½ L(0)), the flow changes L at rate
  dL/dt = −‖∂L‖² (minimal-norm Clarke subgradient, Filippov sliding included). That rate is measured
  as the loss decrease over the last window of ``check_every`` steps divided by its flow time (the
  gradient of the σ'(0) = 0 selection is not used: at a kink where neurons slide along a data
  hyperplane it stays large while L does not move). With T_left the flow time left in the budget
  (η₀ · max_steps − t), if rate · T_left ≤ ``rel_tol`` · L holds at two consecutive checks, then even
  at the current rate the loss could not move by more than rel_tol relatively in the whole remaining
  budget. Near a limit with a local PL inequality (A Lemma F.6, eq. 45) the rate only decreases, so
  the rule is conservative there; a saddle escaped later is the failure mode, which the two-window
  rule and ``min_steps`` guard against.
* ``budget``: the step budget ran out (reported as such, never silently).

Step-size control: GD tracks the flow only while η is below 2/sharpness; interpolating networks grow
large weights (sharpness ≈ Σ_j a_j² ‖x‖²/n), and a fixed η then oscillates. When a problem's loss
at a check exceeds its value at the previous check by more than INSTABILITY_RISE (chattering of
neurons across a data hyperplane moves L by far less), its η is halved (per problem) and the
continuous time t = Σ η of each problem is recorded.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .errors import RelucheckInputError

INSTABILITY_RISE = 1e-3  # a rise of L by more than 0.1 % over a window is step-size instability, not kink chattering


@dataclass
class BatchProblems:
    """Padded stack of B problems: X (B, N, d), y (B, N), mask (B, N), n (B,)."""

    X: np.ndarray
    y: np.ndarray
    mask: np.ndarray
    n: np.ndarray

    @classmethod
    def stack(cls, datasets: list[tuple[np.ndarray, np.ndarray]]) -> "BatchProblems":
        if not datasets:
            raise RelucheckInputError("need at least one problem to train")
        d = datasets[0][0].shape[1]
        N = max(X.shape[0] for X, _ in datasets)
        B = len(datasets)
        Xs, ys, mask = np.zeros((B, N, d)), np.zeros((B, N)), np.zeros((B, N))
        for b, (X, y) in enumerate(datasets):
            if X.ndim != 2 or X.shape[1] != d or y.shape != (X.shape[0],):
                raise RelucheckInputError(f"problem {b}: X must be n×{d} and y of length n, got {X.shape}, {y.shape}")
            k = X.shape[0]
            Xs[b, :k], ys[b, :k], mask[b, :k] = X, y, 1.0
        return cls(Xs, ys, mask, mask.sum(1))


@dataclass
class BatchResult:
    a: np.ndarray  # (B, m)
    W: np.ndarray  # (B, m, d)
    loss: np.ndarray  # (B,) final training loss 1/(2n) Σ r²
    grad_sq: np.ndarray  # (B,) final ‖∇L‖² of the σ'(0) = 0 selection
    steps: np.ndarray  # (B,) steps taken
    time: np.ndarray  # (B,) continuous time Σ η reached
    lr: np.ndarray  # (B,) final step size
    status: list[str]  # per problem: interpolating / stationary / budget
    seconds: float
    history: list = field(default_factory=list)  # (step, loss (B,)) every check


def _forward(X, a, W):
    Z = X @ W.transpose(0, 2, 1)
    act = Z > 0
    return Z * act, act


def losses_and_grads(P: BatchProblems, a, W):
    """Training losses (B,), and the flow field (da, dW) = −∇L of every problem."""
    R, act = _forward(P.X, a, W)
    r = P.mask * (P.y - (R @ a[:, :, None])[:, :, 0])
    inv_n = 1.0 / P.n
    loss = 0.5 * inv_n * (r * r).sum(1)
    da = inv_n[:, None] * (r[:, None, :] @ R)[:, 0, :]
    D = inv_n[:, None, None] * ((act * r[:, :, None]).transpose(0, 2, 1) @ P.X)  # D_j of A eq. (4)
    dW = a[:, :, None] * D
    return loss, da, dW


def train_batch(P: BatchProblems, a0, W0, lr: float, max_steps: int, *, loss_ref=None, interp_ratio: float = 1e-4,
                rel_tol: float = 1e-3, check_every: int = 500, min_steps: int = 0) -> BatchResult:
    """Run batched GD with the stopping rules of the module docstring.

    ``loss_ref`` (B,) is the reference of the interpolation rule (the OLS training loss); without it
    only the stationarity and budget rules apply.
    """
    if not lr > 0 or max_steps < 1 or check_every < 1:
        raise RelucheckInputError(f"need lr > 0, max_steps ≥ 1, check_every ≥ 1; got {lr}, {max_steps}, {check_every}")
    t0 = time.perf_counter()
    a, W = np.array(a0, float), np.array(W0, float)
    B = a.shape[0]
    lrs = np.full(B, float(lr))
    t_flow = np.zeros(B)
    live = np.arange(B)
    steps = np.zeros(B, int)
    status = ["budget"] * B
    loss0 = losses_and_grads(P, a, W)[0]
    left_plateau = np.zeros(B, bool)
    slow_before = np.zeros(B, bool)
    history = [(0, loss0.copy())]
    loss_all, grad_all = loss0.copy(), np.zeros(B)
    sub = P
    step = 0
    while step < max_steps and live.size:
        block = min(check_every, max_steps - step)
        la, lW, eta = a[live], W[live], lrs[live]
        for _ in range(block):
            _, da, dW = losses_and_grads(sub, la, lW)
            la += eta[:, None] * da
            lW += eta[:, None, None] * dW
        step += block
        t_flow[live] += block * eta
        a[live], W[live] = la, lW
        previous = loss_all[live].copy()
        loss, da, dW = losses_and_grads(sub, la, lW)
        g2 = (da**2).sum(1) + (dW**2).sum((1, 2))
        loss_all[live], grad_all[live], steps[live] = loss, g2, step
        history.append((step, loss_all.copy()))
        left_plateau[live] |= loss <= 0.5 * loss0[live]
        lrs[live] = np.where(loss > previous * (1 + INSTABILITY_RISE), 0.5 * eta, eta)
        rate = np.maximum(previous - loss, 0.0) / (block * eta)
        t_left = lr * max_steps - t_flow[live]
        slow = left_plateau[live] & (rate * t_left <= rel_tol * loss) & (step >= min_steps)
        done = np.zeros(live.size, bool)
        if loss_ref is not None:
            interp = loss <= interp_ratio * np.asarray(loss_ref, float)[live]
            for i in np.flatnonzero(interp):
                status[live[i]] = "interpolating"
            done |= interp
        stat = slow & slow_before[live] & ~done
        for i in np.flatnonzero(stat):
            status[live[i]] = "stationary"
        done |= stat
        slow_before[live] = slow
        keep = ~done
        live = live[keep]
        sub = BatchProblems(P.X[live], P.y[live], P.mask[live], P.n[live])
    return BatchResult(a, W, loss_all, grad_all, steps, t_flow, lrs, status, time.perf_counter() - t0, history)
