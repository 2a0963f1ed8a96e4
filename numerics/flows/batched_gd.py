"""Full-batch gradient descent for B problems at once: the explicit Euler scheme of the flow, batched.

    θ ← θ + η F(θ),   F = −time_factor ∇L,   σ'(0) = 0      (A eq. 4, B eqs. 1–3 and 13–14, C eqs. 2–4),

the naive scheme the papers ran and whose limit η → 0 is the flow of `numerics.flows`. The field is the one of
`numerics.network` (`preactivations`, `pattern_residuals`, `neuron_rates`) evaluated with leading batch axes;
a step costs one field evaluation. The paper A and B simulators step through `descend` (on numpy, or on another
array library through the Array API: `GDBatch.to`, `numerics.flows.batched_gd_xp`); the engine "gd"
(`numerics.flows.engines.gd`) repeats `GDBatch.evaluate`'s arithmetic on one problem, on arrays it preallocates.

`GDBatch` holds the data of the stack:

* `GDBatch.stack(datasets)`: B data sets of different sizes n_b, padded to N = max n_b with zero rows. A zero
  input has ⟨w_j, 0⟩ = 0, inactive for every neuron (σ'(0) = 0), and label 0, hence residual 0: padding changes
  neither the field nor the loss. The 1/n of each problem is its own n_b (`neuron_rates(n=...)`). In rounding too:
  no sum of a member runs over padding rows, and its row blocks are set by its own n_b (Cost), so a member's
  field and loss are bit for bit those it has alone, whatever else is stacked with it (in session 32 they were not:
  BLAS and numpy's pairwise sums group n + p terms otherwise than n; tests/test_batch_independence.py).
* `GDBatch.shared(X, y)`: one data set for every member of the batch (B initializations of one problem: paper
  B's seeds), or one problem without batch axes (the engine "gd"). X may be the 1-D norms λ_i of canonical
  orthogonal inputs x_i = λ_i e_i (paper B's span coordinates): products by X become products by λ.

Cost. The (N, m) work of an evaluation (pre-activations, pattern, effective residuals) is done in blocks of data
rows of about ``BLOCK_BYTES`` per (rows, m) array: the residual r_i depends on datum i only, and D_j = Σ_i V_ij x_i
is accumulated over the blocks; members of the batch are grouped into one block when their rows fit (in a stack,
members of the same n only), and a member too large for one is split into blocks of equal numbers of rows. Each
block's arrays (Z, the pattern, r ⊙ X) are allocated once per state shape (`Workspace`) and written with ``out=`` at
every evaluation, Z ⊙ pattern in place of Z: no (N, m) temporary is allocated per step (a temporary above glibc's
mmap threshold, 128 kB, is mapped and unmapped at every step, and those page faults once made the same evaluation
2–3× slower), so the block size is set by the cache alone: Z and the pattern of a 320 kB block stay in a core's 1 MB
L2. The blocks' (…, rows, m) arrays are views of (…, m, rows) ones and X is kept as Xᵀ (`Block`). Measured (shared
2-core machine, best of 5; d = 10, m = 100, float32, 3 problems, CPU µs per step of the stack): n = 256, 97 with 200
kB blocks (2 blocks), 87 with 320 kB (one block of the 3 members); n = 1024, 307–319 with 256–320 kB (6 blocks), 519
with 400 kB (3 blocks of 1024 rows). A stack's blocks hold members of one n each: stack problems sorted by n.

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

BLOCK_BYTES = 320 << 10  # one (members × rows × neurons) block of the field's arithmetic (module docstring)
DTYPES = (np.float64, np.float32)


@dataclass(frozen=True)
class Field:
    """One field evaluation: residuals r (…, N) and the field (da, dW) = −time_factor ∇L at the state."""

    r: np.ndarray
    da: np.ndarray
    dW: np.ndarray
    n: object  # data per problem (int, or an array over the batch axes)

    def take(self, idx) -> "Field":
        """The evaluation of the members ``idx`` of the batch (first axis)."""
        n = self.n[idx] if isinstance(self.n, np.ndarray) else self.n
        return Field(self.r[idx], self.da[idx], self.dW[idx], n)

    def loss(self) -> np.ndarray:
        """L = 1/(2n) Σ_i r_i² per problem, summed in float64 over the problem's own n rows (a stack's padding rows
        are zeros, but numpy's pairwise sum of n + p terms groups them otherwise than that of n)."""
        r = self.r.astype(np.float64, copy=False)
        n = self.n
        if not isinstance(n, np.ndarray):
            return (r * r).sum(-1) / (2 * float(n))
        sums = np.empty(n.shape)
        for size in np.unique(n):
            own = n == size
            rows = r[own, :size]
            sums[own] = (rows * rows).sum(-1)
        return sums / (2 * n.astype(np.float64))

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
        # n as `neuron_rates` takes it: one int when every problem has the same n (the sweep's stacks of seeds), which
        # spares the per-step array arithmetic of an n per problem (the same coefficient, rounded once to the dtype)
        same = isinstance(n, np.ndarray) and n.size > 0 and bool(np.all(n == n.flat[0]))
        self._n_rates = int(n.flat[0]) if same else n
        self._plans: dict = {}  # `Workspace` per state shape (`_workspace`)

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

    def to(self, backend=None, device=None):
        """The same problems on an array library (`numerics.array_backend.resolve`: numpy by default, or
        $RELUCHECK_ARRAY_BACKEND): this batch for numpy, else a `batched_gd_xp.XPBatch` with the data moved once."""
        from ..array_backend import resolve

        bk = resolve(backend, device)
        if bk.is_numpy:
            return self
        from .batched_gd_xp import XPBatch

        return XPBatch(self, bk, Field)

    def take(self, idx) -> "GDBatch":
        """The sub-batch of the problems ``idx`` (a stack; a shared batch is returned as is)."""
        if not isinstance(self.n, np.ndarray):
            return self
        n = self.n[idx]
        rows = int(n.max()) if n.size else 0  # padding beyond the largest remaining problem is dropped
        return GDBatch(self.X[idx, :rows], self.y[idx, :rows], n, self.convention, self.dtype, False)

    # the field ------------------------------------------------------------------------------------------
    def evaluate(self, a, W, *, output_scale=None) -> Field:
        """The field at (a, W): a (…, m), W (…, m, d) with the batch axes of the stack (none for a shared batch
        used for one problem); computed in the batch's dtype by blocks (module docstring).

        ``output_scale`` (…, m): a log-scale state θ_j = e^{ρ_j} φ_j passes (φ_a, φ_w) as (a, W) and e^{2ρ_j} here.
        The residuals then use the network's output weight e^{2ρ_j} φ_a,j on ⟨φ_w,j, x_i⟩ (h is quadratic in θ_j),
        and the rates are those of φ_j, dφ_j/dt = M_j φ_j (linear in θ_j given r: `neuron_rates`), so that
        θ_j + η F_j(θ) = e^{ρ_j} (φ_j + η M_j φ_j) exactly, at any ρ_j (the engine "gd" at any λ)."""
        ws = self._workspace(np.shape(a), np.shape(W))
        np.copyto(ws.a, a)  # the state in the field's dtype (float64 → float32 rounds once per component)
        np.copyto(ws.W, W)
        if output_scale is not None:
            np.multiply(ws.a, output_scale, out=ws.out_a)
        for block in ws.blocks:
            out_a = block.a if output_scale is None else block.out_a
            if self.diagonal:
                self._diagonal_block(block, ws, out_a)
                continue
            Z = preactivations(block.X, block.W, out=block.Z)
            # σ'(0) = 0, as numbers (D = actᵀ diag(r) X is one product): the comparison into booleans, then copied
            # to floats, costs 0.85 of the comparison written to floats directly (a cast per element)
            act = block.act
            np.copyto(act, np.greater(Z, 0, out=block.on))
            r_k = pattern_residuals(block.y, out_a, Z, act, self.convention, out=block.r, work=Z)
            if block.r_into is not None:  # the block's residuals are not a contiguous part of ws.r: copied there
                block.r_into[...] = r_k
            # D_j = Σ_i act_ij r_i x_i: a member's first block of rows writes it, the next ones add to it
            np.multiply(block.r_col, block.X, out=block.rX)  # r_k is block.r: block.r_col is its (…, rows, 1) view
            np.matmul(act.swapaxes(-1, -2), block.rX, out=block.D)
            if block.D_into is not None:
                block.D_into += block.D
        da, dW = neuron_rates(None, None, ws.a, ws.W, self.convention, D=ws.D, n=self._n_rates)
        return Field(ws.r.copy(), da, dW, self.n)

    def _diagonal_block(self, block, ws, out_a) -> None:
        """One block of inputs x_i = λ_i e_i: ⟨w_j, x_i⟩ = λ_i w_ji and D_j's coordinates act_ij r_i λ_i, (…, m, rows)."""
        own_rows = block.lead + (Ellipsis, block.rows)
        Z = np.multiply(ws.W[own_rows], block.X, out=block.Z.swapaxes(-1, -2)).swapaxes(-1, -2)
        act = np.greater(Z, 0, out=block.act)
        ws.r[own_rows] = pattern_residuals(block.y, out_a, Z, act, self.convention, out=block.r, work=Z)
        np.multiply(act.swapaxes(-1, -2), (block.r * block.X)[..., None, :], out=ws.D[own_rows])
        return Z

    def _workspace(self, a_shape: tuple, W_shape: tuple) -> "Workspace":
        """The blocks and reused arrays of evaluations at states of these shapes (`_plan`)."""
        key = (a_shape, W_shape)
        if key not in self._plans:
            self._plans[key] = Workspace(self, a_shape, W_shape, self._plan(a_shape))
        return self._plans[key]

    def _plan(self, shape: tuple) -> list:
        """Blocks [(members, rows)] for states of ``shape`` (…, m): about BLOCK_BYTES of (member, row, neuron)
        entries each. Members are grouped along the batch axis when each one's rows fit in a block (in a stack,
        members of the same n, over their own n rows: a member's sums are then the same products as alone); a member
        too large for a block is split into blocks of equal numbers of rows, set by its own n, whose D_j add up."""
        per_row = max(1, BLOCK_BYTES // (self.dtype.itemsize * shape[-1]))  # (member, row) pairs per block
        plan = []

        def blocks(members, size, most):  # rows [0, size) of ``members`` in blocks of at most ``most`` rows
            count = -(-size // max(8, most))
            step = -(-size // count)
            plan.extend((members, slice(start, min(size, start + step))) for start in range(0, size, step))

        if self.X.ndim == 3 and len(shape) == 2:  # a stack: each member's sums over its own rows
            b = 0
            while b < shape[0]:
                size, g = int(self.n[b]), 1  # the group [b, b + g): members of the same n that fit in one block
                while b + g < shape[0] and self.n[b + g] == size and (g + 1) * size <= per_row:
                    g += 1
                blocks(slice(b, b + g), size, per_row)
                b += g
        elif len(shape) != 2 or per_row // shape[0] >= self.N:  # one block, or row blocks over every member
            blocks(Ellipsis, self.N, per_row // max(1, math.prod(shape[:-1])))
        else:  # one data set shared by the members: as many members per block as fit
            g = max(1, min(shape[0], per_row // self.N))
            for b in range(0, shape[0], g):
                blocks(slice(b, min(shape[0], b + g)), self.N, per_row // g)
        return plan


class Workspace:
    """The arrays an evaluation of a `GDBatch` reuses at every step (module docstring, Cost): the state in the
    field's dtype, D and r over the whole batch, and per block its data, (…, rows, m) arrays and views. One
    evaluation at a time per batch (results are copied out)."""

    def __init__(self, batch: GDBatch, a_shape: tuple, W_shape: tuple, plan: list):
        dtype = batch.dtype
        self.a, self.out_a, self.W = np.empty(a_shape, dtype), np.empty(a_shape, dtype), np.empty(W_shape, dtype)
        self.D = np.empty(W_shape, dtype)
        self.r = np.zeros(np.broadcast_shapes(a_shape[:-1] + (batch.N,), batch.y.shape), dtype)  # rows of no block: 0
        self.blocks = [Block(batch, self, a_shape, members, rows) for members, rows in plan]


class Block:
    """One block of rows of some members (a slice of the batch axis, or every member): its data, the arrays its
    arithmetic writes, and the views of the workspace it reads and writes."""

    def __init__(self, batch: GDBatch, ws: Workspace, a_shape: tuple, members, rows: slice):
        self.lead, self.rows = () if members is Ellipsis else (members,), rows
        self.a, self.out_a = ws.a[self.lead], ws.out_a[self.lead]
        stacked, dtype, m = batch.X.ndim == 3, batch.dtype, a_shape[-1]
        data = (slice(None) if members is Ellipsis else members, rows) if stacked else (rows,)
        self.X, self.y = batch.X[data], batch.y[data]
        count = rows.stop - rows.start
        lead = a_shape[:-1] if members is Ellipsis else (members.stop - members.start,)
        lead = lead if batch.diagonal else np.broadcast_shapes(lead, self.X.shape[:-2])
        # (…, rows, m) arrays as views of (…, m, rows) ones, and X (…, rows, d) as the view of a copy (…, d, rows):
        # Z = (W Xᵀ)ᵀ and D = actᵀ (r ⊙ X) are then BLAS products on contiguous (…, m, rows) and (…, d, rows)
        # operands: 11–16 % less CPU per step than in the (rows, m) layout (d = 10, m = 100, n ≥ 256)
        self.Z, self.act, self.on = (np.empty(lead + (m, count), t).swapaxes(-1, -2) for t in (dtype, dtype, bool))
        own_r = ws.r[self.lead + (Ellipsis, rows)]
        self.r, self.r_into = (own_r, None) if own_r.flags.c_contiguous else (np.empty(own_r.shape, dtype), own_r)
        if batch.diagonal:
            return
        self.W, self.r_col = ws.W[self.lead], self.r[..., None]
        self.X = np.ascontiguousarray(self.X.swapaxes(-1, -2)).swapaxes(-1, -2)
        self.rX = np.empty(lead + (self.X.shape[-1], count), dtype).swapaxes(-1, -2)
        own_D = ws.D[self.lead]
        self.D, self.D_into = (own_D, None) if rows.start == 0 else (np.empty(own_D.shape, dtype), own_D)


def _check_dtype(dtype) -> None:
    if np.dtype(dtype) not in [np.dtype(t) for t in DTYPES]:
        raise RelucheckInputError(f"dtype must be float64 or float32, got {dtype!r}")


def _per_problem(eta, ndim_extra: int):
    """A step size (a number, or one per problem) shaped to broadcast against arrays with ``ndim_extra`` axes."""
    if isinstance(eta, float):
        return eta
    eta = np.asarray(eta, dtype=np.float64)
    return eta.reshape(eta.shape + (1,) * ndim_extra) if eta.ndim else float(eta)


def descend(batch: GDBatch, a, W, eta, steps: int, *, field: Field | None = None,
            observe=None) -> tuple[int, Field]:
    """Take ``steps`` GD steps θ ← θ + η F(θ) in place on (a, W).

    ``eta`` is a number or one step per problem (an array over the batch axes). ``field`` is the field at the
    current state if the caller has it. ``observe(k, field, a, W)`` is called before step k with the field at the
    state (its ``loss()`` is the loss there); returning True stops before that step. Returns (steps taken, the
    field at the final state): steps + 1 field evaluations in all, or
    ``steps`` with ``field`` given.
    """
    if not steps >= 0:
        raise RelucheckInputError(f"number of steps must be ≥ 0, got {steps}")
    if not (eta > 0 if isinstance(eta, float) else np.all(np.asarray(eta) > 0)):
        raise RelucheckInputError(f"learning rate must be > 0 (the step size η), got {eta}")
    if not isinstance(batch, GDBatch):  # another array library (`GDBatch.to`): its own loop, the same steps
        return batch.descend(a, W, eta, steps, field=field, observe=observe)
    eta_a, eta_W = _per_problem(eta, 1), _per_problem(eta, 2)
    F = batch.evaluate(a, W) if field is None else field
    for k in range(steps):
        if observe is not None and observe(k, F, a, W):
            return k, F
        a += eta_a * F.da
        W += eta_W * F.dW
        F = batch.evaluate(a, W)
    return steps, F
