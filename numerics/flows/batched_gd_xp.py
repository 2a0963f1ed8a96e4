"""The batched GD core (`numerics.flows.batched_gd`) on any Array API library: torch, cupy, JAX, array-api-strict.

    θ ← θ + η F(θ),   F = −time_factor ∇L,   σ'(0) = 0      (A eq. 4, B eqs. 1–3 and 13–14),

with the field of `numerics.network` written in Array API operations only (`array-api-compat`'s namespaces): per
evaluation

    Z = X Wᵀ (…, N, m),  act = 1{Z > 0},  r = y − (1/width_divisor) (Z ⊙ act) a,
    D_j = Σ_i act_ij r_i x_i,  da_j = c ⟨w_j, D_j⟩,  dw_j = c a_j D_j,  c = time_factor / (width_divisor n),

the same operations as numpy's `GDBatch.evaluate`, in one block per group of stacked problems of the same n, over
their own n rows (no ``out=`` buffers: the Array API has none; on a GPU the (N, m) temporaries are the library's
cached allocations). As in `GDBatch`, no sum of a problem runs over another's padding rows, so a problem's field is
the one it has alone on the same library, whatever is stacked with it (tests/test_batch_independence.py). The
canonical-orthogonal form (X the norms λ_i) is that of `GDBatch`. `XPBatch` is made by `GDBatch.to`; the data are
moved to the device once and stay there (`take` selects problems on the device). `descend` keeps the state on the
device for all its steps and copies it back into the caller's numpy arrays at the end: one transfer of (a, W) per
call, against ``steps`` evaluations of N·m·d products.

Agreement with numpy. Both compute the same float64 (or float32) operations; only the order of the sums inside the
products (BLAS blocking, numpy's row blocks of D) may differ, so one evaluation differs by a few ulps
(tests/test_array_api_backends.py derives and checks the tolerance over a run).
"""
from __future__ import annotations

import numpy as np

from ..array_backend import Backend, to_numpy
from ..errors import RelucheckInputError


class XPBatch:
    """A `GDBatch` whose data live on an Array API backend (`GDBatch.to`). Evaluations and `descend` take and give
    numpy arrays; the steps in between run on the backend."""

    def __init__(self, host, backend: Backend, field_type, X=None, y=None, n=None):
        self.backend, self.xp, self.field_type = backend, backend.xp, field_type  # field_type: `batched_gd.Field`
        self.convention, self.dtype, self.diagonal = host.convention, host.dtype, host.diagonal
        self.n = host.n if n is None else n
        self.N = host.N if y is None else y.shape[-1]
        self.X = backend.asarray(host.X, self.dtype) if X is None else X
        self.y = backend.asarray(host.y, self.dtype) if y is None else y
        same = isinstance(self.n, np.ndarray) and self.n.size > 0 and bool(np.all(self.n == self.n.flat[0]))
        n_rates = int(self.n.flat[0]) if same else self.n
        num, den = self.convention.time_factor, self.convention.width_divisor * n_rates
        if isinstance(n_rates, np.ndarray):  # one coefficient per problem, rounded once to the dtype (as numpy's)
            self._coef = backend.asarray(np.asarray(num / den, dtype=self.dtype)[..., None], self.dtype)
        else:
            self._coef = num / den
        # a stack of several n: runs of consecutive problems of one n, each evaluated over its own rows
        self._groups = None
        if isinstance(self.n, np.ndarray) and self.n.ndim == 1 and self.n.size and not same:
            starts = [0] + [b for b in range(1, self.n.size) if self.n[b] != self.n[b - 1]] + [self.n.size]
            self._groups = [(b, e, int(self.n[b])) for b, e in zip(starts[:-1], starts[1:])]

    def with_dtype(self, dtype) -> "XPBatch":
        """The same problems with the field computed in ``dtype`` (float64 or float32)."""
        if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
            raise RelucheckInputError(f"dtype must be float64 or float32, got {dtype!r}")
        dt = getattr(self.xp, np.dtype(dtype).name)
        host = _Host(self.convention, np.dtype(dtype), self.diagonal, self.n, self.N)
        return XPBatch(host, self.backend, self.field_type, self.xp.astype(self.X, dt), self.xp.astype(self.y, dt),
                       self.n)

    def take(self, idx) -> "XPBatch":
        """The sub-batch of the problems ``idx`` (a stack; a shared batch is returned as is), selected on the device."""
        if not isinstance(self.n, np.ndarray):
            return self
        idx = np.arange(self.n.shape[0])[idx]
        n = self.n[idx]
        rows = int(n.max()) if n.size else 0
        where = self.backend.asarray(idx.astype(np.int64))
        X = self.xp.take(self.X, where, axis=0)[:, :rows, ...]
        y = self.xp.take(self.y, where, axis=0)[:, :rows]
        return XPBatch(_Host(self.convention, self.dtype, False, n, rows), self.backend, self.field_type, X, y, n)

    # the field ------------------------------------------------------------------------------------------
    def field(self, a, W):
        """The field at the backend state (a, W): (r, da, dW) as backend arrays (module docstring)."""
        xp = self.xp
        dt = self.X.dtype
        a, W = xp.astype(a, dt), xp.astype(W, dt)
        if self._groups is None:
            return self._block(self.X, self.y, a, W, self._coef)
        parts = [self._block(self.X[b:e, :n, ...], self.y[b:e, :n], a[b:e, ...], W[b:e, ...], self._coef[b:e, ...])
                 for b, e, n in self._groups]
        r = xp.concat([xp.concat([p[0], xp.zeros((e - b, self.N - n), dtype=dt)], axis=1) if n < self.N else p[0]
                       for (b, e, n), p in zip(self._groups, parts)], axis=0)  # residuals padded back to N rows
        return r, xp.concat([p[1] for p in parts], axis=0), xp.concat([p[2] for p in parts], axis=0)

    def _block(self, X, y, a, W, coef):
        """The field of the problems of one block (its data X, y over their own rows)."""
        xp, dt = self.xp, X.dtype
        T = xp.matrix_transpose
        if self.diagonal:  # x_i = λ_i e_i: ⟨w_j, x_i⟩ = λ_i w_ji
            Z = T(W * X)
        else:
            Z = xp.matmul(X, T(W))
        act = xp.astype(Z > 0, dt)
        h = xp.matmul(Z * act, a[..., None])[..., 0]
        if self.convention.width_divisor != 1:
            h = h / self.convention.width_divisor
        r = y - h
        if self.diagonal:
            D = T(act) * (r * X)[..., None, :]
        else:
            D = xp.matmul(T(act), r[..., None] * X)
        return r, xp.vecdot(W, D) * coef, (coef * a)[..., None] * D

    def to_field(self, F):
        """A backend field as numpy's `Field` (the records' arrays)."""
        r, da, dW = F
        return self.field_type(to_numpy(r).copy(), to_numpy(da).copy(), to_numpy(dW).copy(), self.n)

    def evaluate(self, a, W, *, output_scale=None):
        """`GDBatch.evaluate` on the backend: numpy (a, W) in, numpy `Field` out."""
        if output_scale is not None:
            raise RelucheckInputError("output_scale (the log-scale engine) runs on numpy only")
        bk = self.backend
        return self.to_field(self.field(bk.asarray(a), bk.asarray(W)))

    def descend(self, a, W, eta, steps: int, *, field=None, observe=None):
        """`batched_gd.descend` with the state on the backend (checked there); the final state is copied back into
        the numpy (a, W). ``observe`` receives numpy copies (a transfer per step: for checks, not for speed)."""
        bk = self.backend
        ax, Wx = bk.asarray(a), bk.asarray(W)
        eta = eta if isinstance(eta, float) else np.asarray(eta, dtype=np.float64)
        if isinstance(eta, float) or eta.ndim == 0:
            eta_a = eta_W = float(eta)
        else:  # one step per problem, float64 as in numpy's `_per_problem`
            eta_a, eta_W = bk.asarray(eta[..., None]), bk.asarray(eta[..., None, None])
        if field is None:
            F = self.field(ax, Wx)
        else:
            F = (bk.asarray(field.r), bk.asarray(field.da), bk.asarray(field.dW))
        taken = steps
        for k in range(steps):
            if observe is not None:
                a[...], W[...] = to_numpy(ax), to_numpy(Wx)
                if observe(k, self.to_field(F), a, W):
                    taken = k
                    break
            ax = ax + eta_a * F[1]
            Wx = Wx + eta_W * F[2]
            F = self.field(ax, Wx)
        a[...], W[...] = to_numpy(ax), to_numpy(Wx)
        return taken, self.to_field(F)


class _Host:
    """What `XPBatch` reads of a host batch when it is built from device arrays."""

    def __init__(self, convention, dtype, diagonal, n, N):
        self.convention, self.dtype, self.diagonal, self.n, self.N = convention, dtype, diagonal, n, N
