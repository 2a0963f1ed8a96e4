"""`theory.sup_deviation.sup_deviation_2d` on data with parallel and antiparallel inputs (coincident events on
the circle), against dense sampling of the unit circle."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.theory.extremal_vectors import D_n
from relucheck.theory.sup_deviation import sup_deviation_2d

U = 2.0**-53
M = 3  # integer input coordinates in [−M, M]
# Why dense sampling is exact here. w ↦ ‖D_n(w) − t‖ is piecewise *constant* (not Lipschitz: it jumps at
# the boundary points ±x_k^⊥), so the Lipschitz bound L·h/2 does not apply; what matters is the shortest arc.
# Two distinct boundary directions u, v of integer inputs with |coordinates| ≤ M have |u₁v₂ − u₂v₁| ≥ 1
# and ‖u‖‖v‖ ≤ 2M², so the arc between them is ≥ sin⁻¹(1/(2M²)) ≥ 1/(2M²) (or ≥ π/2 when sin is large).
# With spacing h ≤ 1/(6M²) every arc holds a grid point at least h from both of its ends, so the sampled
# maximum is the maximum over all arcs, and the two sides differ only by float64 rounding.
N_GRID = 6 * M * M * 8  # h = 2π/N_GRID ≈ 0.0145 < 1/(6M²) ≈ 0.0185
SHIFT = 0.1234567  # keeps grid points off the boundaries (angles of integer vectors ± π/2)


def dense(X, y, target):
    t = SHIFT + np.arange(N_GRID) * (2 * np.pi / N_GRID)
    W = np.stack([np.cos(t), np.sin(t)], 1)
    return float(np.max(np.linalg.norm(D_n(X, y, W) - np.asarray(target, float), axis=1)))


def rounding(X, y, target):
    """Both sides sum ≤ n terms y_k x_k/n and subtract t: each component errs by ≤ (n + 2)·u·S with
    S = Σ|y_k|‖x_k‖/n + ‖t‖ (Higham §4.2, first order); a norm adds ≤ 2u relative; twice for two sides, ×2 margin."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    S = np.sum(np.abs(y) * np.linalg.norm(X, axis=1)) / len(y) + np.linalg.norm(target)
    return 4 * (len(y) + 4) * U * S


def test_four_points_of_spec_A_regression():
    """Two antiparallel pairs: the old cumulative sum passed through 'both active' and returned 0.610."""
    X = [[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]
    y = [1.3, 0.7, -0.9, -1.4]
    got = sup_deviation_2d(X, y, [0.5, 0.0])
    assert got == pytest.approx(np.sqrt(2) / 8, abs=rounding(X, y, [0.5, 0.0]))  # arc w ≈ (0, −1): D = (1/8, −1/8)
    assert abs(got - dense(X, y, [0.5, 0.0])) <= rounding(X, y, [0.5, 0.0])


@pytest.mark.parametrize("X, y", [
    ([[1, 0], [2, 0], [-3, 0], [0, 1], [0, -1], [1, 1]], [1, -2, 0.5, 1, 2, -1]),  # parallel and antiparallel
    ([[1, 2], [-1, -2]], [1.0, 1.0]),  # one line: two events at each of two points
    ([[0, 0], [1, 0]], [5.0, 1.0]),  # a zero input never activates
    ([[0, 0]], [1.0]),  # D_n ≡ 0
])
def test_degenerate_data(X, y):
    X, y = np.array(X, float), np.array(y, float)
    assert abs(sup_deviation_2d(X, y, [0.5, 0.0]) - dense(X, y, [0.5, 0.0])) <= rounding(X, y, [0.5, 0.0])


coords = st.integers(-M, M)
floats = st.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 3))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(coords, coords, floats), min_size=1, max_size=8), st.tuples(floats, floats))
def test_against_dense_sampling(rows, target):
    X = np.array([r[:2] for r in rows], float)
    y = np.array([r[2] for r in rows], float)
    assert abs(sup_deviation_2d(X, y, target) - dense(X, y, target)) <= rounding(X, y, target)


def test_near_coincident_events_keep_their_order():
    """x_2 = (−1, 1e-14): its events are 1e-14 from x_1's (inside the cluster width), and on the arc of
    length 1e-14 between them both inputs are active: D = ((1, 0) + (1, −1e-14))/2, ‖D‖ = 1 (hand value;
    every other arc gives ‖D‖ ≤ ½, and dense sampling cannot see an arc that short)."""
    X = np.array([[1.0, 0.0], [-1.0, 1e-14]])
    y = np.array([1.0, -1.0])
    assert sup_deviation_2d(X, y, [0.0, 0.0]) == pytest.approx(1.0, abs=rounding(X, y, [0.0, 0.0]))
    assert sup_deviation_2d(-X, y, [0.0, 0.0]) == pytest.approx(1.0, abs=rounding(X, y, [0.0, 0.0]))
