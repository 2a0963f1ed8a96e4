"""Full-batch gradient descent for B problems at once: the explicit Euler scheme of the flow, batched.

    θ ← θ + η F(θ),   F = −time_factor ∇L,   σ'(0) = 0      (A eq. 4, B eqs. 1–3 and 13–14, C eqs. 2–4),

the naive scheme the papers ran and whose limit η → 0 is the flow of `numerics.flows`. The field is the one of
`numerics.network` (`preactivations`, `pattern_residuals`, `neuron_rates`) evaluated with leading batch axes;
a step costs one field evaluation. The paper A and B simulators and the engine "gd" step through `descend`.

`GDBatch` holds the data of the stack:

* `GDBatch.stack(datasets)`: B data sets of different sizes n_b, padded to N = max n_b with zero rows. A zero
  input has ⟨w_j, 0⟩ = 0, inactive for every neuron (σ'(0) = 0), and label 0, hence residual 0: padding changes
  neither the field nor the loss. The 1/n of each problem is its own n_b (`neuron_rates(n=...)`).
* `GDBatch.shared(X, y)`: one data set for every member of the batch (B initializations of one problem: paper
  B's seeds), or one problem without batch axes (the engine "gd"). X may be the 1-D norms λ_i of canonical
  orthogonal inputs x_i = λ_i e_i (paper B's span coordinates): products by X become products by λ.

Cost. The (N, m) work of an evaluation (pre-activations, pattern, effective residuals) is done in blocks of data
rows of about ``BLOCK_ELEMENTS`` entries: the residual r_i depends on datum i only, and D_j = Σ_i V_ij x_i is
accumulated over the blocks. Temporaries then stay in cache and below the allocator's mmap threshold; one large
temporary per operation costs page faults at every step (bench/bench_paper_a.py measures the difference). When
the problems of a stack are sorted by decreasing n, a block skips the problems for which it is all padding.

Precision. ``dtype`` is the arithmetic of the field: float64 by default, float32 halves the (N, m) work. The state
(a, W) keeps the caller's dtype: with a float64 state and a float32 field, float32 rounding (≤ 6e-8 relative)
enters each field evaluation but never the accumulation of small steps (no stagnation of slow phases).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import RelucheckInputError
from ..network import PAPER_A, Convention, neuron_rates, pattern_residuals, preactivations

BLOCK_ELEMENTS = 1 << 15  # entries of one (rows × neurons) block: 256 kB in float64, inside a 1 MB L2 cache
DTYPES = (np.float64, np.float32)


@dataclass(frozen=True)
class Field:
    """One field evaluation: residuals r (…, N) and the field (da, dW) = −time_factor ∇L at the state."""

    r: np.ndarray
    da: np.ndarray
    dW: np.ndarray
    n: object  # data per problem (int, or an array over the batch axes)
    Z: np.ndarray | None = None  # (…, N, m) pre-activations ⟨w_j, x_i⟩, kept on request (`GDBatch.evaluate`)

    def take(self, idx) -> "Field":
        """The evaluation of the members ``idx`` of the batch (first axis)."""
        n = self.n[idx] if isinstance(self.n, np.ndarray) else self.n
        return Field(self.r[idx], self.da[idx], self.dW[idx], n, None if self.Z is None else self.Z[idx])

    def loss(self) -> np.ndarray:
        """L = 1/(2n) Σ_i r_i² per problem, summed in float64."""
        r = self.r.astype(np.float64, copy=False)
        return (r * r).sum(-1) / (2 * np.asarray(self.n, dtype=np.float64))

    def grad_sq(self) -> np.ndarray:
        """‖(da, dW)‖² per problem (= time_factor² ‖∇L‖²), summed in float64."""
        da = self.da.astype(np.float64, copy=False)
        dW = self.dW.astype(np.float64, copy=False)
        return (da * da).sum(-1) + (dW * dW).sum((-1, -2))


class GDBatch:
    """The data of B stacked problems (module docstring). Build with `stack` or `shared`."""

    def __init__(self, X, y, n, convention: Convention, dtype, diagonal: bool):
        self.X, self.y, self.n = X, y, n
        self.convention, self.dtype, self.diagonal = convention, np.dtype(dtype), diagonal
        self.N = y.shape[-1]
        # problems sorted by decreasing n: a block of rows [s, s + c) concerns the first `active` of them only
        counts = np.atleast_1d(n)
        self._sorted = X.ndim == 3 and counts.size > 1 and bool(np.all(np.diff(counts) <= 0))

    # construction ---------------------------------------------------------------------------------------
    @classmethod
    def stack(cls, datasets, *, convention: Convention = PAPER_A, dtype=np.float64) -> "GDBatch":
        """B problems (X_b (n_b, d), y_b (n_b,)) padded with zero rows to N = max n_b."""
        _check_dtype(dtype)
        if not datasets:
            raise RelucheckInputError("need at least one problem to stack")
        d = np.shape(datasets[0][0])[1] if np.ndim(datasets[0][0]) == 2 else None
        N = max(len(y) for _, y in datasets)
        Xs, ys, n = np.zeros((len(datasets), N, d or 0), dtype), np.zeros((len(datasets), N), dtype), []
        for b, (X, y) in enumerate(datasets):
            X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
            if X.ndim != 2 or X.shape[1] != d or y.shape != (X.shape[0],):
                raise RelucheckInputError(f"problem {b}: X must be n×{d} and y of length n, got {X.shape}, {y.shape}")
            Xs[b, :len(y)], ys[b, :len(y)] = X, y
            n.append(len(y))
        return cls(Xs, ys, np.array(n), convention, dtype, False)

    @classmethod
    def shared(cls, X, y, *, convention: Convention = PAPER_A, dtype=np.float64) -> "GDBatch":
        """One data set for every member: X (n, d), or (n,) norms of inputs x_i = λ_i e_i; y (n,)."""
        _check_dtype(dtype)
        X, y = np.asarray(X, dtype=dtype), np.asarray(y, dtype=dtype)
        if X.ndim not in (1, 2) or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise RelucheckInputError(f"X must be (n, d) or (n,) norms and y (n,), got {X.shape}, {y.shape}")
        return cls(X, y, int(y.shape[0]), convention, dtype, X.ndim == 1)

    def with_dtype(self, dtype) -> "GDBatch":
        """The same problems with the field computed in ``dtype``."""
        _check_dtype(dtype)
        return GDBatch(self.X.astype(dtype), self.y.astype(dtype), self.n, self.convention, dtype, self.diagonal)

    def take(self, idx) -> "GDBatch":
        """The sub-batch of the problems ``idx`` (a stack; a shared batch is returned as is)."""
        if not isinstance(self.n, np.ndarray):
            return self
        return GDBatch(self.X[idx], self.y[idx], self.n[idx], self.convention, self.dtype, False)

    # the field ------------------------------------------------------------------------------------------
    def evaluate(self, a, W, *, keep: bool = False) -> Field:
        """The field at (a, W): a (…, m), W (…, m, d) with the batch axes of the stack (none for a shared batch
        used for one problem); computed in the batch's dtype by blocks of data rows (module docstring). With
        ``keep`` the pre-activations are kept in the result (then in one block)."""
        a = np.asarray(a).astype(self.dtype, copy=False)
        W = np.asarray(W).astype(self.dtype, copy=False)
        members = math.prod(a.shape[:-1])
        rows = max(8, BLOCK_ELEMENTS // max(1, a.shape[-1] * members))
        if rows >= self.N or keep:
            Z = self._pre(W, self.X)
            act = Z > 0
            r = pattern_residuals(self.y, a, Z, act, self.convention)
            D = self._combine(act * r[..., None], self.X)
            if keep:
                return Field(r, *neuron_rates(None, None, a, W, self.convention, D=D, n=self.n), self.n, Z)
        else:
            stacked = self.X.ndim == 3
            r = np.zeros(np.broadcast_shapes(a.shape[:-1] + (self.N,), self.y.shape), self.dtype)
            D = np.zeros(W.shape, self.dtype)
            for start in range(0, self.N, rows):
                block = slice(start, start + rows)
                if stacked:  # problems whose n ≤ start have only padding here (sorted stacks): skip them
                    k = int(np.count_nonzero(self.n > start)) if self._sorted else members
                    a_k, W_k, X_k, y_k, out = a[:k], W[:k], self.X[:k, block], self.y[:k, block], (slice(None, k),)
                else:
                    a_k, W_k, X_k, y_k, out = a, W, self.X[block], self.y[block], (Ellipsis,)
                Z = self._pre(W_k[..., block] if self.diagonal else W_k, X_k)
                act = Z > 0
                r_k = pattern_residuals(y_k, a_k, Z, act, self.convention)
                r[out + (block,)] = r_k
                if self.diagonal:
                    D[..., block] = self._combine(act * r_k[..., None], X_k)
                else:
                    D[out] += self._combine(act * r_k[..., None], X_k)
        da, dW = neuron_rates(None, None, a, W, self.convention, D=D, n=self.n)
        return Field(r, da, dW, self.n)

    def _pre(self, W, X):
        """⟨w_j, x_i⟩ as (…, rows, m) for the rows of X (diagonal: W holds the rows' coordinates)."""
        if self.diagonal:  # x_i = λ_i e_i: ⟨w_j, x_i⟩ = λ_i w_ji
            return (W * X).swapaxes(-1, -2)
        return preactivations(X, W)

    def _combine(self, V, X):
        """Σ_i V_ij x_i over the rows of X as (…, m, d) (diagonal: the rows' coordinates V_ij λ_i, (…, m, rows))."""
        if self.diagonal:
            return V.swapaxes(-1, -2) * X
        return V.swapaxes(-1, -2) @ X


def _check_dtype(dtype) -> None:
    if np.dtype(dtype) not in [np.dtype(t) for t in DTYPES]:
        raise RelucheckInputError(f"dtype must be float64 or float32, got {dtype!r}")


def _per_problem(eta, ndim_extra: int):
    """A step size (a number, or one per problem) shaped to broadcast against arrays with ``ndim_extra`` axes."""
    if isinstance(eta, float):
        return eta
    eta = np.asarray(eta, dtype=np.float64)
    return eta.reshape(eta.shape + (1,) * ndim_extra) if eta.ndim else float(eta)


def descend(batch: GDBatch, a, W, eta, steps: int, *, field: Field | None = None, observe=None,
            keep: bool = False) -> tuple[int, Field]:
    """Take ``steps`` GD steps θ ← θ + η F(θ) in place on (a, W).

    ``eta`` is a number or one step per problem (an array over the batch axes). ``field`` is the field at the
    current state if the caller has it. ``observe(k, field, a, W)`` is called before step k with the field at the
    state (its ``loss()`` is the loss there); returning True stops before that step. Returns (steps taken, the
    field at the final state, with its pre-activations if ``keep``): steps + 1 field evaluations in all, or
    ``steps`` with ``field`` given.
    """
    if not steps >= 0:
        raise RelucheckInputError(f"number of steps must be ≥ 0, got {steps}")
    if not (eta > 0 if isinstance(eta, float) else np.all(np.asarray(eta) > 0)):
        raise RelucheckInputError(f"learning rate must be > 0 (the step size η), got {eta}")
    eta_a, eta_W = _per_problem(eta, 1), _per_problem(eta, 2)
    F = batch.evaluate(a, W) if field is None else field
    for k in range(steps):
        if observe is not None and observe(k, F, a, W):
            return k, F
        a += eta_a * F.da
        W += eta_W * F.dW
        F = batch.evaluate(a, W, keep=keep)
    return steps, F
