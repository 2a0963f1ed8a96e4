"""The Taylor recurrence of `numerics.taylor.TaylorProblem.coefficients` with fewer Python-level operations: the same
arb operations on the same operands in the same order, so the same balls (midpoints and radii), bit for bit, in
about half the time. The engine's arb kernel (`numerics.taylor.ArbStep`) uses it; the ball kernel itself stays the
reference (`numerics.arb_enclosure` and tests/test_taylor_sums.py, which compares both).

Two changes, neither of which changes a number:

* **Inactive components are left out.** A Cauchy sum of the ball kernel, e.g. h_i = Σ_l Σ_j (act∘Z)_l,ij a_{k−l},j,
  also multiplies the inactive components, whose (act∘Z)_l,ij are exact zeros: the product is an exact zero ball,
  and adding it to a partial sum returns that partial sum (arb_add with an exact zero: the midpoint already has the
  working precision, the radius gains 0); a zero first term makes the first non-zero product the partial sum, also
  exactly. Likewise the outer products' inactive entries, which the ball kernel multiplies by 0 afterwards. So only
  the active terms are computed; the active entries of act∘Z and of the outer products are still multiplied by 1, as
  there (× 1 leaves an arb midpoint alone but rounds its radius up: keeping it keeps the radii identical too).
* **One gather, one product and one sum per batch.** The midpoints, orders and residuals of a step live in one flat
  object array; per order, the terms of all the sums of a batch are gathered from it by precomputed indices (per
  activation pattern and order K, cached), multiplied by one array operation and summed by `np.add.reduceat`, which
  adds each segment's terms sequentially from its first (``acc + term``), as numpy's object ``dot`` does. Each
  product keeps the ball kernel's operand order (arb's radius arithmetic rounds upward, so a · b is kept a · b) and
  each sum its order (that of `np.tensordot`'s flattening): h_i over (l, j), da_j over (l, i), the outer products
  over l, the sliding neurons' Σ_l V_{k−l},ij a_l,j over l.
"""
from __future__ import annotations

import functools

import numpy as np
from flint import arb

__all__ = ["sparse_coefficients"]


class _Layout:
    """Where A (K+1, m), the active components AZ (K+1, nnz), R (K+1, n) and the sliding neurons' V (K+1, n, s) sit
    in the flat buffer, and per order k the gather indices and segment starts of the two batches:
    h (before r_k; one segment per row with an active neuron) and da + outer + sliding (after V_k: one segment per
    column with an active datum, per active entry of a non-sliding neuron, per entry of a sliding neuron's column)."""

    def __init__(self, act: np.ndarray, sliding: tuple, K: int):
        n, m = act.shape
        rows, cols = np.nonzero(act)  # active pairs p, row-major
        nnz, s = len(rows), len(sliding)
        self.n, self.m, self.K, self.nnz, self.sliding = n, m, K, nnz, sliding
        self.rows, self.cols = rows, cols
        self.oA, self.oAZ = 0, (K + 1) * m
        self.oR = self.oAZ + (K + 1) * nnz
        self.oV = self.oR + (K + 1) * n
        self.size = self.oV + (K + 1) * n * s
        by_col = np.lexsort((rows, cols))
        plain = [p for p in range(nnz) if cols[p] not in sliding]
        self.h_rows = np.flatnonzero(act.any(axis=1))
        self.da_cols = np.flatnonzero(act.any(axis=0))
        self.outer_rows, self.outer_cols = rows[plain], cols[plain]
        self.h, self.rest = [], []
        for k in range(K + 1):
            ls = np.arange(k + 1)
            h = [(self.oAZ + ls[:, None] * nnz + p, self.oA + (k - ls)[:, None] * m + cols[p])  # Σ_l Σ_j AZ_l,ij a_{k−l},j
                 for p in (np.flatnonzero(rows == i) for i in self.h_rows)]
            rest = [(self.oAZ + ls[:, None] * nnz + p, self.oR + (k - ls)[:, None] * n + rows[p])  # Σ_l Σ_i AZ_l,ij r_{k−l},i
                    for p in (by_col[cols[by_col] == j] for j in self.da_cols)]
            rest += [(self.oR + (k - ls) * n + i, self.oA + ls * m + j)  # outer_ij = Σ_l r_{k−l},i a_l,j
                     for i, j in zip(self.outer_rows, self.outer_cols)]
            rest += [(self.oV + ((k - ls) * n + i) * s + q, self.oA + ls * m + j)  # Σ_l V_{k−l},ij a_l,j, j sliding
                     for q, j in enumerate(sliding) for i in range(n)]
            self.h.append(self._batch(h))
            self.rest.append(self._batch(rest))

    @staticmethod
    def _batch(segments):
        """(left indices, right indices, segment starts) of a batch of segments (lhs, rhs), each summed in order."""
        if not segments:
            empty = np.zeros(0, dtype=np.intp)
            return empty, empty, empty
        lengths = [np.size(lhs) for lhs, _ in segments]
        return (np.concatenate([np.ravel(lhs) for lhs, _ in segments]),
                np.concatenate([np.ravel(rhs) for _, rhs in segments]),
                np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.intp))


@functools.lru_cache(maxsize=64)
def _layout(act_bytes: bytes, shape: tuple, sliding: tuple, K: int) -> _Layout:
    return _Layout(np.frombuffer(act_bytes, dtype=bool).reshape(shape), sliding, K)


def _sums(buf, batch):
    """Each segment's Σ left · right in order (module docstring)."""
    left, right, starts = batch
    if not len(left):
        return np.empty(0, dtype=object)
    return np.add.reduceat(buf[left] * buf[right], starts)


def sparse_coefficients(y, scale, cT, G, identity: bool, a, Z, act, K: int, effective, sliding=()):
    """Taylor coefficients 0..K of one step exactly as `numerics.taylor.TaylorProblem.coefficients` computes them
    (its docstring gives the recurrence; module docstring here): y, scale, cT, G (None if ``identity``), a, Z as arb;
    ``effective`` maps r_k (n,) to V_k (n, m); ``sliding`` the neurons whose V is not act ∘ r.

    Returns (A, Zs, BT, R, V) as object arrays of arb, shaped like `numerics.taylor.TaylorSeries`."""
    n, m = Z.shape
    sliding = tuple(int(j) for j in sliding)
    act = np.ascontiguousarray(act, dtype=bool)
    lay = _layout(act.tobytes(), act.shape, sliding, K)
    rows, cols, s = lay.rows, lay.cols, len(sliding)
    zero = arb(0)
    buf = np.empty(lay.size, dtype=object)
    A = buf[lay.oA:lay.oAZ].reshape(K + 1, m)
    AZ = buf[lay.oAZ:lay.oR].reshape(K + 1, lay.nnz)
    R = buf[lay.oR:lay.oV].reshape(K + 1, n)
    VS = buf[lay.oV:].reshape(K + 1, n, s)
    Zs = np.empty((K + 1, n, m), dtype=object)
    V = np.empty((K + 1, n, m), dtype=object)
    BT = np.empty((K + 1, n, m), dtype=object)
    A[0], Zs[0], AZ[0] = a, Z, Z[rows, cols] * 1  # × 1 as act ∘ Z: the same radii (arb's × 1 rounds them up)
    BT[0] = np.full((n, m), zero, dtype=object)
    nda, nouter = len(lay.da_cols), len(lay.outer_rows)
    for k in range(K + 1):
        h = np.full(n, zero, dtype=object)
        h[lay.h_rows] = _sums(buf, lay.h[k])
        R[k] = (y if k == 0 else zero) - scale * h
        V[k] = effective(R[k])
        if k == K:
            break
        if s:
            VS[k] = V[k][:, list(sliding)]
        sums = _sums(buf, lay.rest[k])
        da = np.full(m, zero, dtype=object)
        da[lay.da_cols] = sums[:nda]
        outer = np.full((n, m), zero, dtype=object)
        outer[lay.outer_rows, lay.outer_cols] = sums[nda:nda + nouter] * 1  # act ∘ (…): × 1 on the active entries
        for q, j in enumerate(sliding):
            outer[:, j] = sums[nda + nouter + q * n: nda + nouter + (q + 1) * n]
        f = cT / (k + 1)
        A[k + 1] = f * da
        BT[k + 1] = f * outer
        Zs[k + 1] = BT[k + 1] if identity else G @ BT[k + 1]
        AZ[k + 1] = Zs[k + 1][rows, cols] * 1
    return A, Zs, BT, R, V
