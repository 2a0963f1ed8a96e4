"""DOP853's dense output (Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.6, the 7th-order continuous extension of
DOP853; scipy's `DOP853._dense_output_impl` and `Dop853DenseOutput`), built for the loop's two uses only:

* the event search reads a few coordinates at many times: `Dense.restrict` (idx) gives them as y_old + Σ_k c_k(x) F_k
  on those coordinates only, 7 scalar weights per time (`Restricted`);
* `truncate` and `sample` read the whole state at one time: `Dense.__call__` folds the weights into one product with
  the stages, y_old + a Δy + b f + (h c₃₋₆ D) K, instead of forming F = h D K over the whole state first (4 × 16
  products per coordinate that scipy's dense output spends on every step with an event).

The three extra stages are those of scipy's `_dense_output_impl`, evaluated with the solver's own field; the weights
c_k(x) are the products of x and 1 − x of scipy's nested form (`Dop853DenseOutput._call_impl`), so both agree with
scipy's dense output to rounding. A solver without the attributes used here (another scipy version) falls back to
scipy's own dense output (`dense_of`).
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
    """The dense output on the coordinates ``idx`` (F restricted, owned: valid after the solver moves on)."""

    def __init__(self, t_old, h, F, y_old):
        self.t_old, self.h, self.F, self.y_old = t_old, h, F, y_old

    def __call__(self, t):
        return self.y_old + weights((t - self.t_old) / self.h, len(self.F)) @ self.F


class Dense:
    """The dense output of the solver's last step (module docstring). Valid until the solver takes its next step."""

    def __init__(self, solver):
        K = solver.K_extended
        h = self.h = solver.h_previous
        self.t_old, self.t, self.y_old, self.y, self.f = solver.t_old, solver.t, solver.y_old, solver.y, solver.f
        for s, (a, c) in enumerate(zip(solver.A_EXTRA, solver.C_EXTRA), start=solver.n_stages + 1):
            K[s] = solver.fun(self.t_old + c * h, self.y_old + np.dot(K[:s].T, a[:s]) * h)
        self.K, self.D = K, solver.D

    def _F(self, idx):
        """F (7, len(idx)) of scipy's dense output on the coordinates idx."""
        K, h = self.K[:, idx], self.h
        dy = self.y[idx] - self.y_old[idx]
        f_old = K[0]
        return np.vstack([dy, h * f_old - dy, 2 * dy - h * (self.f[idx] + f_old), h * (self.D @ K)])

    def restrict(self, idx) -> Restricted:
        idx = np.asarray(idx)
        return Restricted(self.t_old, self.h, self._F(idx), self.y_old[idx])

    def __call__(self, t):
        c = weights((t - self.t_old) / self.h, 3 + len(self.D))
        h = self.h
        on_K = h * (c[3:] @ self.D)  # F_3.. = h D K
        on_K[0] += h * (c[1] - c[2])  # f_old = K[0] in F_1 = h f_old − Δy and F_2 = 2Δy − h (f + f_old)
        return self.y_old + (c[0] - c[1] + 2 * c[2]) * (self.y - self.y_old) - (h * c[2]) * self.f + on_K @ self.K


class _Scipy:
    """scipy's own dense output behind the same interface (a solver without the attributes `Dense` reads)."""

    def __init__(self, dense):
        self.dense, self.t_old, self.h, self.y_old = dense, dense.t_old, dense.h, dense.y_old

    def restrict(self, idx) -> Restricted:
        return Restricted(self.t_old, self.h, self.dense.F[:, idx], self.y_old[idx])

    def __call__(self, t):
        return self.dense(t)


def dense_of(solver):
    """The dense output of a scipy DOP853 solver's last step (`Dense`, else scipy's own)."""
    needed = ("K_extended", "h_previous", "A_EXTRA", "C_EXTRA", "D", "n_stages", "y_old", "f")
    if all(hasattr(solver, name) for name in needed):
        return Dense(solver)
    return _Scipy(solver.dense_output())
