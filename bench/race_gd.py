"""Plain numpy gradient descent for `bench.race`: the bare loop a user would write, full batch, fixed step.

The network and loss are those of C eqs. 2–4 (PAPER_A convention: h(x) = Σ_j a_j σ(⟨w_j, x⟩), L = 1/(2n) Σ r_i²,
σ'(0) = 0), started balanced (C Assumption 3: w_j(0) = λ ḡ_j, a_j(0) = s_j λ, raw float64, so λ ≥ 1e-150). One step
is θ ← θ − η ∇L(θ) with η in real time t; after k steps t = kη and τ = kη / ln(1/λ). The loss is recorded at every
step, as a user's loop does, and read at the flow's comparison points by linear interpolation.

`choose_step` finds the coarsest step that agrees with the flow within `race_checks.LOSS_TOL` at the comparison points
(the plateaus and the end): halving from ``start`` until it agrees, then two bisections in log η between the last step
that failed and the first that agreed, so the chosen step is within a factor 2^{1/4} of the coarsest agreeing step
on that bracket.
"""
from __future__ import annotations

import math
import time

import numpy as np

from relucheck.numerics.initializations import balanced

from .race_checks import loss_agreement


def descend(X, y, a, W, eta: float, steps: int) -> np.ndarray:
    """``steps`` plain GD steps from (a, W) (copied); the loss before every step and after the last, (steps + 1,)."""
    n = len(y)
    a, W = np.array(a, dtype=float), np.array(W, dtype=float)
    losses = np.empty(steps + 1)
    c = eta / n
    for k in range(steps):
        Z = X @ W.T  # (n, m) pre-activations
        H = np.maximum(Z, 0.0)
        r = y - H @ a
        losses[k] = r @ r
        ga = H.T @ r
        gW = ((Z > 0) * r[:, None] * a).T @ X
        a += c * ga
        W += c * gW
    r = y - np.maximum(X @ W.T, 0.0) @ a
    losses[steps] = r @ r
    return losses / (2 * n)


def step_seconds(X, y, a, W, repeats: int = 2000) -> float:
    """Best of 5 of the time of one step of `descend` (one bare numpy evaluation of the field)."""
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        descend(X, y, a, W, 1e-3, repeats)
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def losses_at(losses: np.ndarray, eta: float, log_inv: float, taus) -> list[float]:
    """GD's loss at times τ (linear between iterates; t = τ ln(1/λ), iterate k at t = kη)."""
    k = np.arange(len(losses)) * eta / log_inv
    return [float(v) for v in np.interp(np.asarray(taus, dtype=float), k, losses)]


def run(instance, lam: str, log_inv: float, eta: float, horizon: float) -> tuple[np.ndarray, float]:
    """GD from the balanced start to τ ≥ horizon: (losses, seconds)."""
    a0, W0 = balanced(instance, lam)
    X, y = np.asarray(instance.inputs, dtype=float), np.asarray(instance.labels, dtype=float)
    steps = int(math.ceil(horizon * log_inv / eta))
    start = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):
        losses = descend(X, y, a0, W0, eta, steps)
    return losses, time.perf_counter() - start


def choose_step(instance, lam: str, log_inv: float, horizon: float, taus, flow_losses, start: float = 16.0,
                smallest: float = 1e-4):
    """(η, agreement, tried) for the coarsest agreeing step (module docstring); η None when even ``smallest`` fails.
    ``tried`` lists (η, worst |Δloss|) of every step run."""
    tried = []

    def attempt(eta):
        losses, _ = run(instance, lam, log_inv, eta, horizon)
        agreement = loss_agreement(flow_losses, losses_at(losses, eta, log_inv, taus))
        tried.append((eta, agreement.discrepancy))
        return agreement

    eta, failed = start, None
    agreement = attempt(eta)
    while not agreement.ok:
        failed = eta
        eta /= 2
        if eta < smallest:
            return None, agreement, tried
        agreement = attempt(eta)
    if failed is not None:
        for _ in range(2):
            mid = math.sqrt(eta * failed)
            trial = attempt(mid)
            if trial.ok:
                eta, agreement = mid, trial
            else:
                failed = mid
    return eta, agreement, tried
