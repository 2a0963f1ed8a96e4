"""Balanced neurons in engine "mpmath" (C Assumption 3): the start made exact and the invariant held.

From a balanced start a_j(0) = s_j‖w_j(0)‖ the flow conserves q_j = a_j² − ‖w_j‖² = 0 (C Prop. 1, also while sliding: a
slid datum has z_ij = 0), so a_j = s_j‖w_j‖ never changes sign. The given numbers are balanced only to float64 rounding
(â_j = s_j, ŵ_j a unit vector to 1e-16), and a neuron shrinking on a saddle amplifies that defect, and the steps' own
rounding, until a_j may cross 0: on seed 1, draw 0 of `C.def1.gd_limit_general_data_small_lambda` at λ = 1e-40 a_0
crossed 0 at τ ≈ 2.5 at 30 and 60 digits alike, and on B.remC2's data a_2 at τ ≈ 1.0 (λ = 1e-300) and 0.3 (1e-1000),
each run reporting SUCCESS with another flow's answer (docs/findings.md). The engine therefore

* starts at a_j = s_j‖w_j‖ at working precision and puts a_j back on it after every change of the state (`balanced`:
  the projection of Hairer, Lubich & Wanner, *Geometric Numerical Integration* §IV.4, which moves a_j by
  |q_j|/(2|a_j|), within the step's own error), and puts sliding components back on their kinks after every step
  (their rounding offsets stay absolute while the neuron shrinks and feed d‖w_j‖²/dt only);
* checks every step first: a step that took a_j through 0 was not accurate for that neuron, and the run fails naming
  it (`sign_change`) — never a confident wrong answer.
"""
from __future__ import annotations

import numpy as np

from .logscale import BALANCED_TOLERANCE

# mpmath is imported in the functions: the registry imports every engine module, and `relucheck engines` loads no
# mpmath (tests/test_cold_start_engines.py); these run only inside engine mpmath, which has loaded it already


def balanced_signs(init):
    """s_j = sign(â_j) (mpmath numbers) if |â_j| = ‖ŵ_j‖ for every neuron to the instance format's unit-vector
    tolerance (engine float64's test, `logscale.BALANCED_TOLERANCE`), else None."""
    import mpmath

    w_norms = np.linalg.norm(init.W_hat, axis=1)
    if np.all(init.a_hat != 0) and np.all(np.abs(np.abs(init.a_hat) - w_norms) <= BALANCED_TOLERANCE * w_norms):
        return np.array([mpmath.mpf(int(v)) for v in np.sign(init.a_hat)], dtype=object)
    return None


def balanced(signs, squared_w):
    """a_j = s_j‖w_j‖ at the working precision, from ‖w_j‖² (``squared_w``)."""
    import mpmath

    return np.array([s * mpmath.sqrt(v) for s, v in zip(signs, squared_w, strict=True)], dtype=object)


def sign_change(a, signs, t, unit: str) -> str | None:
    """A failure message if some a_j has the sign opposite to s_j after the step that ended at ``t``, else None."""
    import mpmath

    for j, (v, s) in enumerate(zip(a, signs, strict=True)):
        if v != 0 and (v > 0) != (s > 0):
            return (f"a_{j} changed sign in the step to {unit} = {mpmath.nstr(t, 6)} on a balanced start: the flow keeps "
                    f"a_j = s_j‖w_j‖ (C Prop. 1), so this step was not accurate for neuron {j} (the answer would be "
                    "another flow's); engine float64 holds the balance exactly")
    return None
