"""Vectorized simulations for paper B: many seeds at once (B's convention: output/p, time×p).

Gradient descent with step η on p·L is the explicit Euler scheme of B's flow (3) (the authors'
protocol, lr = 1). `batch_gd` advances B independent initializations of the same data together through the
batched GD core (`numerics.flows.batched_gd`: one shared data set, the field of `numerics.network` with a
leading batch axis, σ'(0) = 0); finished runs are dropped from the batch, so a batch costs about as much as
its slowest member:

    h = (1/p) Σ_j a_j σ(⟨w_j, x⟩),  r = y − h,
    da_j = (1/n) Σ_i r_i σ(⟨w_j, x_i⟩),  dw_j = (a_j/n) Σ_i r_i 1{⟨w_j, x_i⟩ > 0} x_i      (= −p∇L, B eqs. 13–14).

`span_coordinates` reduces data in ℝ^d to the n-dimensional span of the inputs: components of w_j
orthogonal to every x_i never move (dw_j ∈ span{x_i}), so they only enter through ‖w_j(0)‖ in the
initialization of a_j (spec B16's trick), which makes d = 10^5 as cheap as d = n. Canonical orthogonal
inputs x_i = λ_i e_i may be given as the vector of their norms λ (products by X become products by λ).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .datasets import rng_of
from .errors import RelucheckInputError
from .flows.batched_gd import GDBatch, descend
from .network import paper_b


@dataclass
class BatchRun:
    A: np.ndarray  # (B, p) final output weights
    W: np.ndarray  # (B, p, n_or_d) final hidden weights
    loss0: np.ndarray  # (B,)
    loss: np.ndarray  # (B,) final loss
    steps: np.ndarray  # (B,) steps taken (early stop included)
    mu_end: np.ndarray  # (B,) μ = p‖∇L‖²/L at the final state
    history: np.ndarray | None = None  # (B, steps + 1) losses when requested


def runs_of(X, y, p: int) -> GDBatch:
    """B's runs on one data set: X (n, d), or the (n,) norms λ_i of canonical orthogonal inputs x_i = λ_i e_i."""
    return GDBatch.shared(X, y, convention=paper_b(p))


def pl_of(field, p: int) -> np.ndarray:
    """μ = p‖∇L‖²/L = ‖(da, dW)‖²/(pL) of every run from its field (B eq. 5); NaN where L = 0 (μ undefined)."""
    L, grad2 = field.loss(), field.grad_sq()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(L > 0, grad2 / (p * L), np.nan)


def losses(X, y, A, W) -> np.ndarray:
    """L(θ) of every run of the batch (1/(2n) Σ r_i², B's 1/p output)."""
    return runs_of(X, y, A.shape[-1]).evaluate(A, W).loss()


def local_pl(X, y, A, W) -> np.ndarray:
    """μ = p‖∇L‖²/L for every run (B eq. 5); NaN where L = 0."""
    return pl_of(runs_of(X, y, A.shape[-1]).evaluate(A, W), A.shape[-1])


def good_event(X, y, A, W) -> np.ndarray:
    """B's event 𝓘 per run: ∀i ∃j ⟨w_j, x_i⟩ > 0 and a_j y_i > 0 (Lemma 5)."""
    Z = W * X if np.ndim(X) == 1 else W @ X.T
    ok = (Z > 0) & (A[..., None] * y[None, None, :] > 0)
    return ok.any(1).all(1)


def batch_gd(X, y, A0, W0, lr: float, steps: int, *, stop_loss: float | None = None, chunk: int = 50,
             history: bool = False, backend=None, device=None) -> BatchRun:
    """``steps`` GD steps of B's flow for every run; a run stops early once L < ``stop_loss``.

    X is (n, d), or the (n,) norms of canonical orthogonal inputs (`runs_of`). With ``history`` the loss of
    every run before each step is kept in ``BatchRun.history`` (B, steps + 1), NaN after a run stopped (then
    ``chunk`` is 1 so that the stopping step is exact). ``backend``/``device``: the array library the steps run on
    (`numerics.array_backend.resolve`: numpy by default, or $RELUCHECK_ARRAY_BACKEND); the data stay there, the state
    comes back to numpy every ``chunk`` steps (the stopping rule) and at the end.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A = np.array(A0, dtype=float)
    W = np.array(W0, dtype=float)
    if not lr > 0 or steps < 0:
        raise RelucheckInputError(f"need lr > 0 and steps ≥ 0, got lr = {lr}, steps = {steps}")
    d = X.shape[0] if X.ndim == 1 else X.shape[1]
    if A.ndim != 2 or W.ndim != 3 or W.shape[:2] != A.shape or W.shape[2] != d:
        raise RelucheckInputError(f"shapes: A (B, p), W (B, p, d) with d = {d}; got {A.shape}, {W.shape}")
    B, p = A.shape
    runs = runs_of(X, y, p).to(backend, device)
    F = runs.evaluate(A, W)
    loss0 = F.loss()
    hist = np.full((B, steps + 1), np.nan) if history else None
    if history:
        chunk = 1
        hist[:, 0] = loss0
    done_steps = np.full(B, steps)
    live = np.arange(B)
    k = 0
    while k < steps and live.size:
        la, lW = A[live], W[live]
        taken, F = descend(runs, la, lW, float(lr), min(chunk, steps - k), field=F)
        A[live], W[live] = la, lW
        k += taken
        now = F.loss()
        if history:
            hist[live, k] = now
        if stop_loss is not None:
            fin = now < stop_loss
            done_steps[live[fin]] = k
            live, F = live[~fin], F.take(~fin)
    F = runs.evaluate(A, W)
    return BatchRun(A, W, loss0, F.loss(), done_steps, pl_of(F, p), hist)


def paper_b_init(B: int, p: int, d: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """B's Appendix B init for B runs in ℝ^d (any n): w ~ N(0, I_d/d), sign(a) fair, |a| − ‖w‖ ~ Exp(1)."""
    rng = rng_of(seed)
    W = rng.standard_normal((B, p, d)) / math.sqrt(d)
    A = rng.choice([-1.0, 1.0], (B, p)) * (np.linalg.norm(W, axis=2) + rng.exponential(1.0, (B, p)))
    return A, W


def span_coordinates(X) -> tuple[np.ndarray, np.ndarray]:
    """(X_c, Q): Xᵀ = Q X_cᵀ with Q (d, n) orthonormal columns, X_c (n, n) the inputs in that basis."""
    X = np.asarray(X, dtype=float)
    Q, R = np.linalg.qr(X.T)
    return R.T, Q


def paper_b_init_in_span(B: int, p: int, n: int, d: int, seed, *, frozen: bool = False):
    """B's Appendix B init (w ~ N(0, I_d/d), sign(a) fair, |a| − ‖w‖ ~ Exp(1)) for B runs, in span coordinates.

    By rotation invariance the coordinates of w in any orthonormal basis (q_1..q_n) of span{x_i} are
    N(0, I_n/d) and the orthogonal part has ‖w^⟂‖² ~ χ²_{d−n}/d independently; only ‖w‖ enters a.
    Returns (A (B, p), W (B, p, n)), and with ``frozen`` also ‖w^⟂‖² (B, p), constant along the flow.
    """
    if d < n:
        raise RelucheckInputError(f"span coordinates need d ≥ n, got d = {d} < n = {n}")
    rng = rng_of(seed)
    W = rng.standard_normal((B, p, n)) / math.sqrt(d)
    perp2 = rng.chisquare(d - n, (B, p)) / d if d > n else np.zeros((B, p))
    norms = np.sqrt((W * W).sum(2) + perp2)
    A = rng.choice([-1.0, 1.0], (B, p)) * (norms + rng.exponential(1.0, (B, p)))
    return (A, W, perp2) if frozen else (A, W)


def experiment_width(n: int, eps: float = 0.05) -> int:
    """The experiments' p = ⌊log(n/ε)/log(4/3)⌋ + 1 (spec B §3, from Lemma 5's union bound)."""
    return int(math.floor(math.log(n / eps) / math.log(4 / 3))) + 1


def experiment_epochs(n: int, p: int) -> int:
    """⌊1.5 √(np) log(np)/4⌋ + 1: 1.5 × the phase-transition time t_n (spec B §3)."""
    return int(math.floor(1.5 * math.sqrt(n * p) * math.log(n * p) / 4)) + 1


def experiment_data(n: int, d: int, seed, *, orthogonal: bool = False):
    """Appendix B data: ‖x_i‖ ~ U[1, 2], |y_i| ~ U[1, 2] with fair signs; directions uniform on the
    sphere (Exp. 1) or the canonical basis e_1..e_n (Exp. 2, needs d ≥ n)."""
    rng = rng_of(seed)
    if orthogonal:
        if d < n:
            raise RelucheckInputError(f"orthogonal data need d ≥ n, got d = {d} < n = {n}")
        U = np.eye(n, d)
    else:
        G = rng.standard_normal((n, d))
        U = G / np.linalg.norm(G, axis=1, keepdims=True)
    X = U * rng.uniform(1, 2, n)[:, None]
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    return X, y
