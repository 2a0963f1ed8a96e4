"""Balanced neurons in engine "mpmath" (C Assumption 3): the invariant q_j = a_j² − ‖w_j‖², checked and held.

The flow conserves q_j (C Prop. 1, also while sliding: a slid datum has z_ij = 0), in absolute terms, while a neuron
shrinks: the relative defect |q_j|/‖θ_j‖² grows as ‖θ_j(0)‖²/‖θ_j‖². A balanced start given in float64 (â_j = s_j,
ŵ_j a unit vector to rounding) has |q_j(0)| ≈ 1e-16‖θ_j(0)‖², and where q_j < 0 the flow *from those rounded numbers*
takes a_j through 0. Measured on `random_general_instance(6, 3, 5, [1, 71, 0])` at λ = 1e-40 (tests/
test_small_lambda_branch.py): neuron 0 (‖ĝ_0‖² − 1 = 1.2e-18) slides on data 1 and 3 from τ ≈ 0.035 — w_0 on the line
of its two kinks, so (a_0, ‖w_0‖) is a saddle whose stable ray is the balanced one — and shrinks by e^{−8.4} per unit
of τ; a_0 changed sign at τ ≈ 2.5 at 30 and 60 digits alike, neuron 0 then left its kinks at τ = 3.714 instead of
3.835, while engine float64 (exactly balanced by construction, `logscale`) kept a_0 = s_0‖w_0‖.

After every change of the state the engine therefore (`hold`):

- checks the step (never a confident wrong answer): a_j keeps its sign s_j, and the step changed q_j by at most
  `defect_bound` of ‖θ_j‖²; otherwise the run fails naming the neuron;
- projects (Hairer, Lubich & Wanner, *Geometric Numerical Integration* §IV.4): |q_j|/‖θ_j‖² is held at most at its
  initial value δ_j, the input's own rounding of C Assumption 3, by moving a_j² (sign s_j kept) into
  [‖w_j‖²(1 − δ_j)/(1 + δ_j), ‖w_j‖²(1 + δ_j)/(1 − δ_j)]. A neuron whose relative defect does not grow is never
  moved: its run stays the flow from the given numbers (tests/test_high_precision.py compares it with arb
  enclosures of those numbers at 1e-35).
"""
from __future__ import annotations

import mpmath
import numpy as np

from .logscale import BALANCED_TOLERANCE


def balanced_signs(init):
    """s_j = sign(â_j) if |â_j| = ‖ŵ_j‖ for every neuron within the instance format's unit-vector tolerance (the test
    of engine float64, `logscale.BALANCED_TOLERANCE`), else None."""
    a_hat, W_hat = init.a_hat, init.W_hat
    w_norms = np.linalg.norm(W_hat, axis=1)
    if np.all(a_hat != 0) and np.all(np.abs(np.abs(a_hat) - w_norms) <= BALANCED_TOLERANCE * w_norms):
        return np.array([mpmath.mpf(int(v)) for v in np.sign(a_hat)], dtype=object)
    return None


def initial_defects(q0, a):
    """δ_j = |q_j(0)|/‖θ_j(0)‖² (‖θ_j‖² = 2a_j² − q_j)."""
    return np.array([abs(q) / (2 * v * v - q) for q, v in zip(q0, a, strict=True)], dtype=object)


def defect_bound(digits: int) -> float:
    """10^-(digits/2): how much of ‖θ_j‖² (at its end) one step may change q_j by. A step is accurate to 10^-digits
    relative to each neuron's size at its start (Jorba–Zou), and within one step a neuron shrinks by a bounded factor
    (the Taylor series converges on the step; e^{2.2} per step on the draw above); half the digits leave 10^{digits/2}
    of room for that factor. Measured on the draw above at λ = 1e-40, τ ≤ 6: 1.4e-29 at 30 digits, 8.0e-58 at 60.
    The mutants in tests/test_small_lambda_branch.py (a_0 → −a_0, a_0 → (1 + 1e-6) a_0 in a step) are refused."""
    return 10.0 ** -(digits / 2)


def hold(a, w2, signs, delta, q_ref, bound: float):
    """(a projected, largest step drift |q_j − q_ref,j|/‖θ_j‖², the first violation (j, a_j/‖θ_j‖, drift) or None,
    number of a_j moved) for the state (a, ‖w_j‖² = w2) against the step's start q_ref (module docstring)."""
    a_new, worst, bad, moved = a.copy(), 0.0, None, 0
    for j, (v, s, d) in enumerate(zip(a, signs, delta, strict=True)):
        size2 = v * v + w2[j]
        drift = float(abs(v * v - w2[j] - q_ref[j]) / size2) if size2 else 0.0
        worst = max(worst, drift)
        if bad is None and (mpmath.sign(v) != s or drift > bound):
            bad = (j, float(v / mpmath.sqrt(size2)) if size2 else 0.0, drift)
        a2 = min(max(v * v, w2[j] * (1 - d) / (1 + d)), w2[j] * (1 + d) / (1 - d))
        if a2 != v * v or mpmath.sign(v) != s:
            a_new[j], moved = s * mpmath.sqrt(a2), moved + 1
    return a_new, worst, bad, moved
