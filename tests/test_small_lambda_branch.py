"""Balance through codimension-2 sliding at λ = 1e-40: the draw on which `C.def1.gd_limit_general_data_small_lambda`
leaves GD's first-order regime (seed 1, draw 0: `random_general_instance(6, 3, 5, [1, 71, 0])`).

From a balanced start (C Assumption 3, a_j(0) = s_j‖w_j(0)‖) the flow conserves q_j = a_j² − ‖w_j‖² = 0, also while
sliding (C Prop. 1: a_j ȧ_j and ⟨w_j, ẇ_j⟩ both equal (a_j/n) Σ_active r_i z_ij, a slid datum having z_ij = 0), so
a_j = s_j‖w_j‖ keeps its sign while θ_j ≠ 0. On this draw neuron 0 slides on data 1 and 3 from τ ≈ 0.035 and decays
(ln‖θ_0‖ from −91.8 to −123.9 by τ ≈ 4). Measured with `solve(..., save_params=True)` at τ ≤ 6:

* engine "float64" keeps a_0/‖θ_0‖ = +0.7071 (= s_0/√2) at every sample;
* engine "mpmath" let a_0 cross 0 at τ ≈ 2.5 (a_0/‖θ_0‖ = 0.6044 at τ = 2.4, −0.5129 at τ = 2.6, −0.7071 from
  τ ≈ 3.2), after which neuron 0 grew with the other sign to ln‖θ_0‖ = −101.4 (float64: −123.9) and left its kinks
  at τ = 3.714 instead of 3.835 — identically at 30 and 60 digits, while reporting SUCCESS. Cause: the given numbers
  are balanced only to float64 rounding (â_0 = 1, ‖ŵ_0‖² − 1 = 1.2e-18, so q_0 < 0); q_0 is conserved in absolute
  terms while the sliding neuron shrinks by e^{−8.4} per unit of τ (w_0 on the line of its two kinks: (a_0, ‖w_0‖)
  is a saddle, the balanced ray the stable one), so the flow from those numbers takes a_0 through 0. Fixed in
  `numerics.flows.engines.balance`: a balanced start keeps |q_j|/‖θ_j‖² at most at its initial value, every step is
  checked against q_j's conservation and a_j's sign (SOLVER_FAILED otherwise: the mutants below), and sliding
  components are put back on their kinks after every step (their rounding offsets, absolute while the neuron
  shrinks, had grown the steps' drift of q_0 to 1e-20 of ‖θ_0‖² at 30 digits by τ = 3.7; now 1.4e-29).
  Now max |a_0/‖θ_0‖ − 1/√2| = 5.0e-15 (30 digits), 5.1e-15 (60), events within 2e-11 of float64's.

GD (engine "gd") flips a_0 too, by its own O(η) imbalance (τ ≈ 0.43, 0.51 at η = 0.02, 0.005) and then jumps it:
that is gradient descent, not the flow, and the check leaves such a draw out (`gd_limit._unreachable`).
"""
import numpy as np
import pytest

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.testing.strategies import random_general_instance

SEED_DRAW = [1, 71, 0]


def _a0_over_norm(engine: str, **options) -> tuple[np.ndarray, float]:
    instance = random_general_instance(6, 3, 5, SEED_DRAW)
    problem = FlowProblem.from_instance(instance, "1e-40", horizon=6.0, save_at=tuple(np.linspace(0.0, 6.0, 61)))
    result = solve(problem, engine, save_params=True, **options)
    assert result.success, result.message
    ratio = result.trajectory.a[:, 0] / np.exp(result.trajectory.log_norms[:, 0])
    return ratio, float(instance.signs[0])


@pytest.mark.full
def test_float64_flow_keeps_neuron_0_balanced_through_its_slide():
    ratio, sign = _a0_over_norm("float64")
    assert np.all(np.abs(ratio - sign / np.sqrt(2)) < 1e-6), ratio


@pytest.mark.full
@pytest.mark.parametrize("digits", [30, 60])
def test_mpmath_flow_keeps_neuron_0_balanced_through_its_slide(digits):
    ratio, sign = _a0_over_norm("mpmath", digits=digits)
    tolerance = 1e-6  # q_0 = 0 exactly: |a_0|/‖θ_0‖ = 1/√2 up to the conversion of e^{ln‖θ_0‖} to float64 (1e-16 rel.)
    assert np.all(np.abs(ratio - sign / np.sqrt(2)) < tolerance), ratio


@pytest.mark.parametrize("mutant", ["flip", "scale"])
def test_mpmath_refuses_a_step_that_breaks_a_balanced_neuron(monkeypatch, mutant):
    """The invariant check's mutants: a step whose a_0 has the wrong sign (a_0 → −a_0: q_0 unchanged, the sign check
    sees it) or is off by 1e-6 (q_0 changes by 2e-6 of ‖θ_0‖² > 10^-10 at 20 digits, the conservation check sees it)
    ends the run SOLVER_FAILED, naming the neuron."""
    from relucheck.numerics.flows.engines import taylor

    state_at = taylor.TaylorStepper._state_at

    def broken(self, step, s):
        h, a, Z, W = state_at(self, step, s)
        if self.t_old + h > 0.5:
            a = a.copy()
            a[0] = -a[0] if mutant == "flip" else a[0] * (1 + taylor.mpmath.mpf("1e-6"))
        return h, a, Z, W

    monkeypatch.setattr(taylor.TaylorStepper, "_state_at", broken)
    instance = random_general_instance(6, 3, 5, SEED_DRAW)
    problem = FlowProblem.from_instance(instance, "1e-40", horizon=1.0)
    result = solve(problem, "mpmath", digits=20)
    assert result.status.name == "SOLVER_FAILED" and "balanced neuron 0" in result.message, result.message
