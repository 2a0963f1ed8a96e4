"""Decision boundaries: each test sits just inside and just outside a threshold, so moving the threshold fails it.

Written against the hand-made mutants that no test caught (issue 12): `in_zonotope`'s ≤ turned into <, the
default tie tolerance of Algorithm 1, the threshold at which check-ode refutes, and the tolerance of the
unit-direction test of instance files.
"""
import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import Instance
from relucheck.theory.extremal_vectors import extremal_vectors
from relucheck.theory.limit_process import limit_process, limit_process_of
from relucheck.theory.ode_checker import check_ode, parse_problem


# -- extremal vectors: a Clarke point on the boundary of its zonotope ------------------------------------------
@pytest.mark.parametrize("X, y, eta", [
    ([[1, 0], [0, 1]], [1, 1], 0),    # at w = e_1: P_{w⊥} D_A = 0, the tied datum's coefficient η = 0
    ([[1, 1], [0, 1]], [1, -1], 1),   # at w = e_1: P_{w⊥} D_A = (0, 1) = −y_2 x_2, the coefficient η = 1
])
def test_extremal_vector_whose_clarke_coefficient_is_on_the_boundary(X, y, eta):
    """Definition 2.1 allows η ∈ [0, 1] (closed): D = G_n(e_1) e_1 = (1/2, 0) is extremal at the vertex e_1."""
    found = {tuple(np.round(ev.direction, 12)): ev for ev in extremal_vectors(X, y)}
    assert (1.0, 0.0) in found, f"the vertex e_1 (η = {eta}) is missing: {sorted(found)}"
    ev = found[(1.0, 0.0)]
    assert ev.face == "vertex" and ev.type == "max" and ev.ties == (1,)
    assert np.allclose(ev.vector, [0.5, 0.0])


# -- Algorithm 1: ties of hit times up to rounding, amplified by cancellation, and no more ------------------------
def _race_after_a_jump(gap: float, entry: str):
    """Neuron 0 fits {0} first, at τ_1 = 1/(c·1.01‖y_S‖); neurons 1 ({1, 2}, labels 0.1, 0.1) and 2 ({3}, label
    √0.02 (1 + gap)) then have u_j = 1 − τ_1‖D_j‖ ≈ 0.01 left. With gap = 0 their hit times are equal, but
    ‖y_S‖ of the two sets differ by one rounding (≈ 2e-16) and the cancellation in u_j amplifies it 100-fold:
    the computed hit times differ by ≈ 2e-14 relative, which the default tolerance (1e-12) must call a tie."""
    norm = np.sqrt(0.02)
    labels = [1.01 * norm, 0.1, 0.1, norm * (1 + gap)]
    activation = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    if entry == "limit_process":
        return limit_process(labels, [1, 1, 1], activation)
    directions = np.where(activation.T, 1.0, -1.0) / 2.0  # unit rows, ⟨g_j, e_i⟩ > 0 exactly where active
    return limit_process_of(Instance(np.eye(4), labels, directions, [1, 1, 1]))


ENTRIES = pytest.mark.parametrize("entry", ["limit_process", "limit_process_of"])  # each has a default tie_rtol


@ENTRIES
def test_algorithm_1_default_tie_tolerance_sees_a_tie_blurred_by_rounding(entry):
    lp = _race_after_a_jump(0.0, entry)
    assert [jp.neuron for jp in lp.jumps][0] == 0
    assert lp.ties == [{"iteration": 2, "neurons": [1, 2], "tau": lp.jumps[1].tau}]


@ENTRIES
def test_algorithm_1_default_tie_tolerance_separates_hit_times_1e_minus_10_apart(entry):
    lp = _race_after_a_jump(1e-12, entry)  # neuron 2 faster by 1e-12 in rate, 1e-10 in remaining time: a genuine order
    assert lp.ties == [] and [jp.neuron for jp in lp.jumps] == [0, 2, 1]


# -- check-ode: a residual just above / just below NONZERO_RELATIVE ------------------------------------------
def _constant_rate_problem(slope: str) -> dict:
    """y' = 1, y(0) = 0 against y = slope·t: relative residual |slope − 1|/(slope + 1) at every point."""
    return {"time": "t", "state": ["y"], "parameters": {}, "equations": {"y": "1"}, "initial": {"y": "0"},
            "solution": {"y": f"{slope}*t"}}


@pytest.mark.parametrize("delta, verdict", [(2.4e-8, "refuted"),        # relative residual 1.2e-8 > NONZERO_RELATIVE
                                            (1.6e-8, "inconclusive")])  # 0.8e-8: not clearly non-zero
def test_check_ode_refutes_from_its_nonzero_threshold_on(delta, verdict):
    """NONZERO_RELATIVE = 1e-8: a residual of 1.2e-8 refutes, one of 0.8e-8 is neither zero nor clearly non-zero."""
    slope = f"{1 + delta:.17g}"
    out = check_ode(parse_problem(_constant_rate_problem(slope)))
    worst = out["residuals"]["y"]["max_relative_at_points"]
    assert worst == pytest.approx(delta / (2 + delta), rel=1e-6)
    assert out["status"] == verdict, out["message"]


# -- instance files: the unit-direction tolerance -------------------------------------------------------------
@pytest.mark.parametrize("excess, accepted", [(0.9e-9, True), (-0.9e-9, True), (1.1e-9, False), (-1.1e-9, False)])
def test_unit_direction_tolerance_just_inside_and_just_outside(excess, accepted):
    """UNIT_TOLERANCE = 1e-9 on | ‖g_j‖ − 1 |: 0.9e-9 off is accepted, 1.1e-9 off is an error naming the row."""
    direction = [[1 + excess, 0.0]]
    kwargs = dict(inputs=[[1.0, 0.0], [0.0, 1.0]], labels=[1.0, -1.0], directions=direction, signs=[1])
    if accepted:
        Instance(**kwargs)
    else:
        with pytest.raises(RelucheckInputError, match="directions must be unit vectors to 1e-09 .*; row 0"):
            Instance(**kwargs)
