"""DOP853's dense output (Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.6; scipy's `Dop853DenseOutput`) for the
loop's event search, which reads a few coordinates at many times: `Dense.restrict` (idx) gives them as
y_old + Σ_k c_k(x) F_k on those coordinates only, with 7 scalar weights c_k(x) per time — the products of x and
1 − x of scipy's nested form (`Dop853DenseOutput._call_impl`) — instead of scipy's evaluation of the whole state.

The whole state at one time (`truncate`, `sample`) is scipy's own evaluation, to the last bit: a cheaper form
without F = h D K over the whole state (tried: 10 % of the orthonormal n = 256 run) moves the state by a few ulps,
and on an ill-conditioned sliding exit (tests/test_engine_tolerance.py, full, rtol 1e-11, sizes (6, 4, 5), seed
134217728: a leave_down at τ ≈ 5.7485 that the rtol 1e-12 run has after the horizon) that was enough for the run
and its check to agree on a branch the tight run does not take.
"""
from __future__ import annotations

import numpy as np


def weights(x: float, k: int) -> np.ndarray:
    """c (k,) with Σ_q c_q F_q = scipy's nested evaluation: for i, f in enumerate(reversed(F)): y += f; y *= x or 1 − x."""
    c = [0.0] * k
    p = 1.0
    for i in range(k - 1, -1, -1):
        p *= x if i % 2 == 0 else 1.0 - x
        c[k - 1 - i] = p
    return np.array(c)


class Restricted:
    """The dense output on some coordinates (F restricted, owned: valid after the solver moves on)."""

    def __init__(self, t_old, h, F, y_old):
        self.t_old, self.h, self.F, self.y_old = t_old, h, F, y_old

    def __call__(self, t):
        return self.y_old + weights((t - self.t_old) / self.h, len(self.F)) @ self.F


class Dense:
    """scipy's dense output of the solver's last step, with `restrict` for the event search."""

    def __init__(self, dense):
        self.dense, self.t_old, self.h, self.y_old = dense, dense.t_old, dense.h, dense.y_old

    def restrict(self, idx) -> Restricted:
        return Restricted(self.t_old, self.h, self.dense.F[:, idx], self.y_old[idx])

    def __call__(self, t):
        return self.dense(t)


def dense_of(solver) -> Dense:
    """The dense output of a scipy DOP853 solver's last step."""
    return Dense(solver.dense_output())
