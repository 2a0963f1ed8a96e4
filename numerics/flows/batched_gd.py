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
rows of about ``BLOCK_BYTES``: the residual r_i depends on datum i only, and D_j = Σ_i V_ij x_i is
accumulated over the blocks; members of the batch are grouped into one block when their rows fit. Temporaries then
stay in cache and below glibc's mmap threshold (128 kB): a larger temporary is mapped and unmapped at every step,
and the page faults made the same evaluation 2–3× slower (d = 10, m = 100, n = 512: 0.125 ms with 128 kB blocks,
0.412 ms with 256 kB). A group of a stack is padded to its largest problem only: stack problems sorted by n.

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

BLOCK_BYTES = 120 << 10  # one (members × rows × neurons) block of the field's arithmetic (module docstring)
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
        self._plans: dict = {}  # blocks per state shape (`_plan`)

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
            if X.ndim != 2 or X.shape[1] != d or y.shape != (X.shape[0],) or not len(y):
                raise RelucheckInputError(f"problem {b}: X must be n×{d} with n ≥ 1 and y of length n, got {X.shape}, "
                                          f"{y.shape}")
            Xs[b, :len(y)], ys[b, :len(y)] = X, y
            n.append(len(y))
        return cls(Xs, ys, np.array(n), convention, dtype, False)

    @classmethod
    def shared(cls, X, y, *, convention: Convention = PAPER_A, dtype=np.float64) -> "GDBatch":
        """One data set for every member: X (n, d), or (n,) norms of inputs x_i = λ_i e_i; y (n,)."""
        _check_dtype(dtype)
        X, y = np.asarray(X, dtype=dtype), np.asarray(y, dtype=dtype)
        if X.ndim not in (1, 2) or y.ndim != 1 or X.shape[0] != y.shape[0] or not len(y):
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
        n = self.n[idx]
        rows = int(n.max()) if n.size else 0  # padding beyond the largest remaining problem is dropped
        return GDBatch(self.X[idx, :rows], self.y[idx, :rows], n, self.convention, self.dtype, False)

    # the field ------------------------------------------------------------------------------------------
    def evaluate(self, a, W, *, keep: bool = False, output_scale=None) -> Field:
        """The field at (a, W): a (…, m), W (…, m, d) with the batch axes of the stack (none for a shared batch
        used for one problem); computed in the batch's dtype by blocks (module docstring). With ``keep`` the
        pre-activations are kept in the result (then in one block).

        ``output_scale`` (…, m): a log-scale state θ_j = e^{ρ_j} φ_j passes (φ_a, φ_w) as (a, W) and e^{2ρ_j} here.
        The residuals then use the network's output weight e^{2ρ_j} φ_a,j on ⟨φ_w,j, x_i⟩ (h is quadratic in θ_j),
        and the rates are those of φ_j, dφ_j/dt = M_j φ_j (linear in θ_j given r: `neuron_rates`), so that
        θ_j + η F_j(θ) = e^{ρ_j} (φ_j + η M_j φ_j) exactly, at any ρ_j (the engine "gd" at any λ)."""
        a = np.asarray(a).astype(self.dtype, copy=False)
        W = np.asarray(W).astype(self.dtype, copy=False)
        out_a = a if output_scale is None else a * np.asarray(output_scale).astype(self.dtype, copy=False)
        plan = self._plan(a.shape, keep)
        if len(plan) == 1 and plan[0][0] is Ellipsis and plan[0][1] == slice(0, self.N):  # one block
            Z = self._pre(W, self.X)
            act = (Z > 0).astype(self.dtype)  # σ'(0) = 0, as numbers: D = actᵀ diag(r) X is one product
            r = pattern_residuals(self.y, out_a, Z, act, self.convention)
            D = self._combine(act, r, self.X)
        else:
            r = np.zeros(np.broadcast_shapes(a.shape[:-1] + (self.N,), self.y.shape), self.dtype)
            D = np.zeros(W.shape, self.dtype)
            for members, rows, X_k, y_k in plan:
                lead = () if members is Ellipsis else (members,)
                Z = self._pre(W[lead + (Ellipsis, rows)] if self.diagonal else W[lead], X_k)
                act = (Z > 0).astype(self.dtype)
                r_k = pattern_residuals(y_k, out_a[lead], Z, act, self.convention)
                r[lead + (Ellipsis, rows)] = r_k
                if self.diagonal:
                    D[lead + (Ellipsis, rows)] = self._combine(act, r_k, X_k)
                else:
                    D[lead] += self._combine(act, r_k, X_k)
        da, dW = neuron_rates(None, None, a, W, self.convention, D=D, n=self.n)
        return Field(r, da, dW, self.n, Z if keep else None)

    def _plan(self, shape: tuple, whole: bool) -> list:
        """Blocks [(members, rows, X_k, y_k)] for states of ``shape`` (…, m): about BLOCK_BYTES of (member, row,
        neuron) entries each. Members are grouped along the batch axis when each one's rows fit in a block (for a
        stack, the rows of the group's largest problem: sorted stacks pad little); a member too large for a block
        is split into blocks of rows, whose D_j add up. ``whole``: one block of every member and row."""
        key = (shape, whole)
        if key in self._plans:
            return self._plans[key]
        per_row = max(1, BLOCK_BYTES // (self.dtype.itemsize * shape[-1]))  # (member, row) pairs per block
        stacked, plan = self.X.ndim == 3, []

        def data(members, rows):
            return (self.X[members, rows], self.y[members, rows]) if stacked else (self.X[rows], self.y[rows])

        if whole or len(shape) != 2 or per_row // shape[0] >= self.N:  # one block, or row blocks over every member
            step = self.N if whole else max(8, per_row // max(1, math.prod(shape[:-1])))
            for start in range(0, self.N, step):
                rows = slice(start, min(self.N, start + step))
                plan.append((Ellipsis, rows, *data(slice(None), rows)))
        else:
            sizes = self.n if stacked else np.full(shape[0], self.N)
            b = 0
            while b < shape[0]:
                g = 1  # the group [b, b + g): as many members as fit with the rows of the largest of them
                while b + g < shape[0] and (g + 1) * max(sizes[b:b + g + 1]) <= per_row:
                    g += 1
                size, members = int(max(sizes[b:b + g])), slice(b, b + g)
                step = max(8, per_row // g)
                for start in range(0, size, step):
                    rows = slice(start, min(size, start + step))
                    plan.append((members, rows, *data(members, rows)))
                b += g
        self._plans[key] = plan
        return plan

    def _pre(self, W, X):
        """⟨w_j, x_i⟩ as (…, rows, m) for the rows of X (diagonal: W holds the rows' coordinates)."""
        if self.diagonal:  # x_i = λ_i e_i: ⟨w_j, x_i⟩ = λ_i w_ji
            return (W * X).swapaxes(-1, -2)
        return preactivations(X, W)

    def _combine(self, act, r, X):
        """Σ_i V_ij x_i over the rows of X with V_ij = act_ij r_i, as (…, m, d) = actᵀ diag(r) X (diagonal: the rows'
        coordinates act_ij r_i λ_i, (…, m, rows))."""
        if self.diagonal:
            return act.swapaxes(-1, -2) * (r * X)[..., None, :]
        return act.swapaxes(-1, -2) @ (r[..., None] * X)


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
