"""The cost of `theory.extremal_vectors.extremal_vectors` before it runs: seconds and bytes from n, d and the exponents.

The enumeration visits every vertex of the arrangement, V = 2n (d = 2: the points ±x_k^⊥) or n(n − 1) (d = 3: the
points ±x_i × x_j), and at each computes its activation pattern over the n data (a float filter, by blocks) and the
exact sums Σ y_k x_k of the faces around it; in d = 3 also the zonotope test, the tangents and canonical forms of
integer vectors. Those integers are the data scaled by one power of two (`extremal_vectors._to_int`): an input
spreading over binary exponents e_min … e_max becomes an integer of B_x = e_max − e_min + 53 bits, likewise B_y for
the labels, and y_k x_k has B_x + B_y bits, i.e. L = (B_x + B_y)/64 machine words. Each integer operation costs
O(L), so

    seconds ≈ V·(A + B·L) + V·n·(C + E·L),          bytes ≈ V·n·M_d + V·L·W

(the float work arrays are blocks of 2 MiB; the patterns, cells and edges kept per vertex take M_d bytes per datum,
its integer vectors W bytes per word).
The constants are CPU seconds and peak resident bytes of the enumeration measured on the project's 2-core machine
(BLAS on one thread; `python -m bench.bench_extremal_cost` prints measurement against estimate) on Gaussian data
(plain: L ≈ 2; inputs and labels scaled by 10^U(−s, s): s = 30 gives L ≈ 8, s = 150 gives L ≈ 33):
d = 3 at n = 100, 200, 300 (0.8, 3.6, 8.8 s; 37, 144, 412 MB) and n = 160 with s = 30, 150 (2.8, 7.3 s);
d = 2 at n = 2000, 5000 (0.6, 3.6 s; 55, 260 MB) and with s = 150 (1.1, 6.5 s). The estimated time is 0.9–1.8 times
the measured one, the memory 0.9–1.1 times beyond 100 MB; the estimate decides whether a request is refused before it
starts, and the budgets of the command (`relucheck extremal-vectors --budget --memory`) bound whatever it misses.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PER_VERTEX, PER_VERTEX_WORD = 64e-6, 6e-6  # A, B: seconds per vertex (exact integer work around it)
PER_ENTRY, PER_ENTRY_WORD = 0.068e-6, 0.0018e-6  # C, E: seconds per (vertex, datum): float filter and exact sums
BYTES_PER_ENTRY, BYTES_PER_WORD = {2: 6, 3: 16}, 48  # M_d: bytes kept per (vertex, datum); W: per vertex and word
FLOAT_BITS = 53  # a float64 significand


@dataclass(frozen=True)
class Cost:
    """An estimate of one enumeration: ``seconds`` (CPU), ``bytes`` (beyond the interpreter) and what they come from."""

    seconds: float
    bytes: float
    vertices: int
    words: float

    def describe(self, n: int, d: int) -> str:
        return (f"n = {n} points in d = {d}: {self.vertices} vertices of the arrangement, each with an O(n) pattern, "
                f"in exact integers of {self.words:.0f} machine words (the data's binary exponents)")


def _bits(values: np.ndarray) -> int:
    """Bit length of the integers that hold ``values`` scaled by one power of two: exponent spread + 53."""
    nonzero = values[values != 0]
    if nonzero.size == 0:
        return 1
    exponents = np.frexp(nonzero)[1]
    return int(exponents.max() - exponents.min()) + FLOAT_BITS


def estimate(X, y) -> Cost:
    """The cost of ``extremal_vectors(X, y)`` for finite float64 data with d ∈ {2, 3} (module docstring)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n, d = X.shape
    rows = int(np.count_nonzero(np.any(X != 0, axis=1)))
    vertices = 2 * rows if d == 2 else rows * (rows - 1)
    words = (_bits(X) + _bits(y)) / 64
    seconds = vertices * (PER_VERTEX + PER_VERTEX_WORD * words) + vertices * n * (PER_ENTRY + PER_ENTRY_WORD * words)
    return Cost(seconds, vertices * (n * BYTES_PER_ENTRY[d] + words * BYTES_PER_WORD), vertices, words)
