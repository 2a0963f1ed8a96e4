"""Direct tests of `theory.extremal_vectors` beyond the enumeration: D_n and G_n at ties and on exact (Fraction)
input, `sup_deviation_2d` against its own definition, the decimal rendering of out-of-range vectors, and the JSON
record pinned key by key."""
import math
from fractions import Fraction

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory import early_alignment as ea
from relucheck.theory import extremal_vectors as ev
from relucheck.theory.sup_deviation import sup_deviation_2d

X4 = [[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]
Y4 = [1.3, 0.7, -0.9, -1.4]


def exact(rows):
    return [[Fraction(v) for v in row] for row in rows] if isinstance(rows[0], list) else [Fraction(v) for v in rows]


def test_D_n_and_G_n_by_hand_with_a_tie():
    w = [1.0, 0.0]  # ⟨w, x_k⟩ = ±1: rows 0 and 1 active
    np.testing.assert_allclose(ea.D_n(X4, Y4, w), [(1.3 + 0.7) / 4, (1.3 - 0.7) / 4], rtol=1e-15)
    assert ea.G_n(X4, Y4, w) == pytest.approx((1.3 + 0.7) / 4, rel=1e-15)
    tie = [1.0, 1.0]  # ⟨w, x_1⟩ = ⟨w, x_2⟩ = 0: 1{· > 0} leaves them out
    np.testing.assert_allclose(ea.D_n(X4, Y4, tie), [1.3 / 4, 1.3 / 4], rtol=1e-15)
    assert ea.G_n(X4, Y4, tie) == pytest.approx(2 * 1.3 / 4, rel=1e-15)
    # a batch of directions
    W = np.array([w, tie, [-1.0, 0.0]])
    np.testing.assert_allclose(ea.D_n(X4, Y4, W)[2], [(0.9 + 1.4) / 4, (-0.9 + 1.4) / 4], rtol=1e-15)
    np.testing.assert_allclose(ea.G_n(X4, Y4, W), [0.5, 0.65, (-0.9 - 1.4) / 4], rtol=1e-14)


@pytest.mark.parametrize("which", ["X", "y", "w"])
def test_D_n_and_G_n_return_float64_for_exact_input(which):
    X, y, w = X4, Y4, [0.6, -0.8]
    args = {"X": (exact(X), y, w), "y": (X, exact(y), w), "w": (X, y, exact(w))}[which]
    D, G = ea.D_n(*args), ea.G_n(*args)
    assert D.dtype == np.float64 and np.asarray(G).dtype == np.float64
    np.testing.assert_allclose(D, ea.D_n(X, y, w), rtol=1e-15)
    assert G == pytest.approx(ea.G_n(X, y, w), rel=1e-15)


def sup_by_definition(X, y, target):
    """max over the arcs between consecutive boundary angles of ‖D_n(midpoint) − target‖."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    phi = np.arctan2(X[:, 1], X[:, 0])
    cuts = np.sort(np.mod(np.concatenate([phi - np.pi / 2, phi + np.pi / 2]), 2 * np.pi))
    mids = (cuts + np.roll(cuts, -1) + np.r_[np.zeros(len(cuts) - 1), 2 * np.pi]) / 2
    W = np.stack([np.cos(mids), np.sin(mids)], 1)
    return float(np.max(np.linalg.norm(ea.D_n(X, y, W) - np.asarray(target, float), axis=1)))


@pytest.mark.parametrize("seed", range(4))
def test_sup_deviation_2d_against_the_arc_midpoints(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((9, 2))
    y = rng.standard_normal(9)
    target = rng.standard_normal(2)
    assert sup_deviation_2d(X, y, target) == pytest.approx(sup_by_definition(X, y, target), rel=1e-13)


def test_sup_deviation_2d_exact_input_and_types():
    X = [[1.0, 0.5], [-0.25, 1.0], [0.75, -1.5], [-2.0, -0.5], [0.5, 0.375]]  # no two inputs (anti)parallel
    y = [1.5, -0.5, 0.25, 1.0, -2.0]
    got = sup_deviation_2d(exact(X), exact(y), exact([0.5, 0.0]))
    assert isinstance(got, float)
    assert got == pytest.approx(sup_by_definition(X, y, [0.5, 0.0]), rel=1e-14)
    assert got == pytest.approx(sup_deviation_2d(X, y, [0.5, 0.0]), rel=1e-15)


@pytest.mark.parametrize("X", [np.ones((3, 3)), np.ones(3), np.ones((3, 1))])
def test_sup_deviation_2d_needs_d_2(X):
    with pytest.raises(RelucheckInputError) as info:
        sup_deviation_2d(X, np.ones(3), [0.0, 0.0])
    assert str(info.value) == f"sup_deviation_2d needs d = 2 inputs, got shape {X.shape}"


def test_decimal_rendering():
    assert ev._decimal(Fraction(1, 3), 17) == "0.33333333333333333"
    assert ev._decimal(Fraction(-2, 7) / 10**400, 17) == "-2.8571428571428571e-401"
    assert ev._decimal(Fraction(10**400, 3), 5) == "3.3333e+399"
    assert ev._decimal(Fraction(123456789, 10**5), 30) == "1234.56789"
    # 40 correct digits of 1/7: the working precision follows the digits
    assert ev._decimal(Fraction(1, 7), 40) == "0.1428571428571428571428571428571428571429"


def test_out_of_range_vector_is_reported_in_decimal():
    tiny = Fraction(1, 3) / 10**400
    vec = ev.ExtremalVector(np.array([0.6, 0.8]), np.array([0.0, -2 / 7]), "min", "edge", (3, 1),
                            (tiny, Fraction(-2, 7)))
    assert not vec.in_float64_range
    assert vec.decimal() == ["3.3333333333333333e-401", "-0.28571428571428571"]
    assert vec.decimal(4) == ["3.333e-401", "-0.2857"]
    out = vec.to_json()
    assert out == {"direction": [0.6, 0.8], "vector": ["3.3333333333333333e-401", "-0.28571428571428571"],
                   "type": "min", "face": "edge", "ties": [3, 1]}
    assert list(out) == ["direction", "vector", "type", "face", "ties"]


def test_in_range_vector_json():
    vec = ev.ExtremalVector(np.array([1.0, 0.0]), np.array([0.25, 0.0]), "max", "vertex", (2,),
                            (Fraction(1, 4), Fraction(0)))
    assert vec.in_float64_range
    out = vec.to_json()
    assert out == {"direction": [1.0, 0.0], "vector": [0.25, 0.0], "type": "max", "face": "vertex", "ties": [2]}
    assert all(type(v) is float for v in out["vector"] + out["direction"])
    huge = ev.ExtremalVector(np.array([1.0, 0.0]), np.array([math.inf, 0.0]), "max", "cell", (),
                             (Fraction(10**400), Fraction(0)))
    assert not huge.in_float64_range and huge.to_json()["vector"] == ["1.0e+400", "0.0"]


def test_extremal_vectors_json_of_the_spec_example():
    found = ev.extremal_vectors(np.array(X4), np.array(Y4))
    cells = [e.to_json() for e in found if e.face == "cell"]
    assert len(cells) == 2
    for rec in cells:
        assert list(rec) == ["direction", "vector", "type", "face", "ties"] and rec["ties"] == [] and rec["face"] == "cell"
        d = np.array(rec["vector"])
        np.testing.assert_allclose(rec["direction"], (1 if rec["type"] == "max" else -1) * d / np.linalg.norm(d),
                                   rtol=1e-15)


def test_count_cells_input_checks_and_generic_counts():
    for bad in (1.0, np.ones(3), np.ones((2, 4))):
        with pytest.raises(RelucheckInputError):
            ev.count_cells(bad)
    rng = np.random.default_rng(1)
    for n, d in ((5, 2), (6, 3)):
        X = rng.standard_normal((n, d))
        assert ev.count_cells(X) == ev.cover_count(n, d)
        assert ev.count_cells(X.tolist()) == ev.cover_count(n, d)
        assert ev.count_cells(exact(X.tolist())) == ev.cover_count(n, d)
    assert ev.cover_count(5, 2) == 10 and ev.cover_count(6, 3) == 2 * (1 + 5 + 10)


def test_nearest_float_saturates_outside_the_float64_range():
    assert ev._nearest_float(Fraction(10**400)) == math.inf
    assert ev._nearest_float(Fraction(-(10**400))) == -math.inf
    assert ev._nearest_float(Fraction(10**400, 3)) == math.inf
    assert ev._nearest_float(Fraction(1, 3)) == 1 / 3 and ev._nearest_float(Fraction(-1, 10**400)) == -0.0


def test_extremal_vectors_carry_their_exact_value():
    X = np.array([[1.0, 0.5], [-0.25, 1.0], [0.75, -1.5], [-2.0, -0.5], [0.5, 0.375]])
    y = np.array([1.5, -0.5, 0.25, 1.0, -2.0])
    found = ev.extremal_vectors(X, y)
    assert found
    arr = ev._Arrangement(X, y)
    for e in found:
        assert len(e.exact) == 2 and all(isinstance(c, Fraction) for c in e.exact)
        assert [float(c) for c in e.exact] == e.vector.tolist()
        # D = G_n(w̄) w̄ exactly: parallel to the direction, of the type's sign
        assert e.exact[0] * Fraction(e.direction[1]) - e.exact[1] * Fraction(e.direction[0]) == pytest.approx(0, abs=1e-15)
        assert (e.type == "max") == (float(e.exact[0]) * e.direction[0] + float(e.exact[1]) * e.direction[1] > 0)
        # extremal_at computes the activation pattern itself when it is not given
        w = ev._canonical(tuple(int(c) for c in np.round(e.direction * 2**40)))
        a, b = arr.extremal_at(w, e.face), arr.extremal_at(w, e.face, arr.pattern(w))
        assert (a is None) == (b is None) and (a is None or a.exact == b.exact)


def test_canonical_is_the_primitive_integer_vector():
    assert ev._canonical((4, -6, 2)) == (2, -3, 1)
    assert ev._canonical((0, 0, 5)) == (0, 0, 1) and ev._canonical((0, -7)) == (0, -1)
    assert ev._canonical((0, 0, 0)) == (0, 0, 0)
    assert ev._canonical((3, 5)) == (3, 5)


def test_rank_one_data_in_d3():
    # x_k = c_k u with u = (1, 2, 0): no vertex; the two cells ±⟨u, w⟩ > 0 each give one extremal vector
    # w = ±u/‖u‖ with D_± = (1/n) Σ_{±c_k > 0} y_k c_k u (types by the sign of ⟨D_±, w⟩)
    u = np.array([1.0, 2.0, 0.0])
    c = np.array([1.0, -2.0, 0.5])
    y = np.array([1.0, 2.0, -1.0])
    X = c[:, None] * u
    found = ev.extremal_vectors(X, y)
    assert [(e.type, e.face, e.ties) for e in found] == [("max", "cell", ()), ("max", "cell", ())]
    np.testing.assert_allclose(found[0].vector, -4 / 3 * u, rtol=1e-15)  # the larger ‖D‖ first
    np.testing.assert_allclose(found[0].direction, -u / np.linalg.norm(u), rtol=1e-15)
    np.testing.assert_allclose(found[1].vector, 0.5 / 3 * u, rtol=1e-15)
    np.testing.assert_allclose(found[1].direction, u / np.linalg.norm(u), rtol=1e-15)
    assert found[1].exact == (Fraction(1, 6), Fraction(1, 3), Fraction(0))
    assert ev.count_cells(X) == 2


def test_extremal_vectors_input_messages():
    cases = [
        ((np.zeros((0, 2)), np.zeros(0)), "inputs must be a non-empty n×d array (rows x_k), got shape (0, 2)"),
        ((np.ones((2, 2)), np.array([1.0, np.inf])), "labels must be finite; non-finite value at index [1]"),
        ((np.array([[1.0, 2.0], [np.nan, 1.0]]), np.ones(2)), "inputs must be finite; non-finite value at index [1, 0]"),
        ((np.ones((2, 2)), np.ones((2, 1))), "labels must have n = 2 entries (one per input row), got shape (2, 1)"),
        ((np.ones((2, 1)), np.ones(2)), "exact extremal-vector enumeration is implemented for d = 2 and d = 3, got d = 1 "
                                        "(the arrangement has Θ(n^(d−1)) faces; see theory.extremal_vectors)"),
    ]
    for args, text in cases:
        with pytest.raises(RelucheckInputError) as info:
            ev.extremal_vectors(*args)
        assert str(info.value) == text
    with pytest.raises(RelucheckInputError) as info:
        ev.extremal_vectors([[1.0, 2.0], [1.0]], [1.0, 2.0])
    assert str(info.value).startswith("inputs and labels must be arrays of numbers: ")


# -- the exact-integer helpers, pinned by their docstrings' contracts (issue 12) ------------------------------------


def _valuation_by_division(p: int) -> int:
    k = 0
    while p % 2 == 0:
        p //= 2
        k += 1
    return k


def test_twos_is_the_two_adic_valuation():
    for p in (1, -1, 2, 3, 12, -8, 40, 2**100, 3 * 2**70, -(5 * 2**33)):
        assert ev._twos(p) == _valuation_by_division(p)


def test_to_int_gives_odd_free_integers_and_the_shift():
    # values = N · 2^(−s) with no common factor 2 in N (zeros ignored); s of either sign
    cases = [([0.75, -1.5, 0.0], [3, -6, 0], 2),
             ([12.0, 40.0], [3, 10], -2),
             ([0.0, 0.0], [0, 0], 0),
             ([1.0], [1], 0),
             ([2.0**-600, -3 * 2.0**-601], [2, -3], 601),
             ([2.0**600, 6 * 2.0**600], [1, 6], -600)]
    for values, ints, shift in cases:
        got, s = ev._to_int(np.array(values))
        assert [int(v) for v in got] == ints and s == shift
        assert all(Fraction(v) == Fraction(n) / Fraction(2) ** s for v, n in zip(values, ints, strict=True))
    got, s = ev._to_int(np.array([[0.5, 0.25], [1.0, -2.0]]))
    assert got.shape == (2, 2) and got.tolist() == [[2, 1], [4, -8]] and s == 2


def test_floats_divide_by_the_power_of_two_of_the_largest_bit_length():
    # E = the largest bit length: 6 has 3 bits, so everything is divided by 2³ = 8
    got = ev._floats([[3, -6], [0, 1]], 2)
    assert got.dtype == np.float64 and got.tolist() == [[0.375, -0.75], [0.0, 0.125]]
    big = 3 * 2**2000 + 1  # 2002 bits: 2^2002 divides it to just below 0.75
    assert ev._floats([[big, 1]], 2).tolist() == [[0.75, 0.0]]
    assert ev._floats([[0, 0, 0]], 3).tolist() == [[0.0, 0.0, 0.0]]
    assert ev._floats([], 2).shape == (0, 2)


def test_sign_of_exact_values():
    assert [ev._sign(v) for v in (Fraction(1, 2), Fraction(1, 10**30), 1, 7, 0, Fraction(0), -1, Fraction(-1, 3))] \
        == [1, 1, 1, 1, 0, 0, -1, -1]


# d = 3 integer data with cells, edges and vertices, and min vectors longer than some max vectors
MIXED_X = [[0, 0, 2], [3, -3, -2], [2, 3, -2], [-1, 3, -1], [-2, 2, -2], [-1, 1, 0]]
MIXED_Y = [1, -1, -3, 3, -3, -2]


def test_extremal_vectors_order_max_first_then_by_decreasing_norm():
    res = ev.extremal_vectors(np.array(MIXED_X, float), np.array(MIXED_Y, float))
    types = [e.type for e in res]
    assert types == sorted(types, key=lambda t: t != "max") and {"max", "min"} <= set(types)
    norms = [sum(c * c for c in e.exact) for e in res]
    n_max = types.count("max")
    assert norms[:n_max] == sorted(norms[:n_max], reverse=True)
    assert norms[n_max:] == sorted(norms[n_max:], reverse=True)
    assert max(norms[n_max:]) > min(norms[:n_max])  # the order is by type first, not by norm alone


def test_extremal_vector_face_matches_the_rank_of_the_tied_inputs():
    # 'cell': no tie; 'edge': the tied x_k span a line; 'vertex': they span a plane (d = 3) or any tie (d = 2)
    X = np.array(MIXED_X, float)
    res = ev.extremal_vectors(X, np.array(MIXED_Y, float))
    for e in res:
        assert e.ties == tuple(k for k in range(len(X)) if abs(float(X[k] @ e.direction)) < 1e-12)
        rank = np.linalg.matrix_rank(X[list(e.ties)]) if e.ties else 0
        assert e.face == {0: "cell", 1: "edge", 2: "vertex"}[rank]
    assert {e.face for e in res} == {"cell", "edge", "vertex"}
    X2 = np.array([[1, 0], [0, 1], [-1, 1], [1, 1], [2, -1]], float)
    res2 = ev.extremal_vectors(X2, np.array([1, -2, 1, -1, 2], float))
    assert res2 and all(e.face == ("vertex" if e.ties else "cell") for e in res2)


def test_floats_per_row_divide_each_row_by_its_own_power_of_two():
    got = ev._floats([[3, -6], [0, 1], [2**1500, 1]], 2, per_row=True)
    assert got.tolist() == [[0.375, -0.75], [0.0, 0.5], [0.5, 0.0]]
    # without per_row the row (0, 1) is divided by 2^1501 too and underflows to 0
    assert ev._floats([[0, 1], [2**1500, 1]], 2).tolist() == [[0.0, 0.0], [0.5, 0.0]]


class _CountingRows(list):
    reads = 0

    def __getitem__(self, i):
        type(self).reads += 1
        return super().__getitem__(i)


def test_mixed_exponent_rows_are_decided_by_the_float_filter():
    """Rows at scales 1e-200 … 1e200 (issue 20: one common scale made the small rows underflow, and their signs went
    to the exact path): with each row scaled by its own power of two only the exact ties go exact."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((12, 3)) * 10.0 ** rng.integers(-200, 201, size=(12, 1))
    arr = ev._Arrangement(X, rng.standard_normal(12))
    verts = arr.vertices()
    _CountingRows.reads = 0
    pats = arr._filtered(ev._floats(verts, 3, per_row=True), _CountingRows(verts))
    exact = [[ev._sign(ev._dot(v, x)) for x in arr.X] for v in verts]
    assert pats.tolist() == exact
    assert _CountingRows.reads == sum(row.count(0) for row in exact) == 2 * len(verts)


@pytest.mark.parametrize("n, d, spread", [(40, 3, 0), (30, 3, 150), (300, 2, 150)])
def test_blocks_of_any_size_give_the_same_vectors(monkeypatch, n, d, spread):
    """The float work arrays go by blocks of BLOCK entries (memory: 2.3 GB at n = 300, d = 3 without them); blocks of
    one row each, or of a few rows that do not divide the count, give exactly the same vectors."""
    rng = np.random.default_rng(n + d)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-spread, spread + 1, size=(n, d))
    y = rng.standard_normal(n) * 10.0 ** rng.integers(-spread, spread + 1, size=n)
    reference = [(e.exact, e.type, e.face, e.ties) for e in ev.extremal_vectors(X, y)]
    for block in (1, 7 * n + 3):
        monkeypatch.setattr(ev._Arrangement, "BLOCK", block)
        assert [(e.exact, e.type, e.face, e.ties) for e in ev.extremal_vectors(X, y)] == reference


def test_cost_estimate_follows_the_vertices_and_the_data_exponents():
    from relucheck.theory.extremal_cost import estimate

    rng = np.random.default_rng(0)
    X3, y3 = rng.standard_normal((100, 3)), rng.standard_normal(100)
    base = estimate(X3, y3)
    assert base.vertices == 100 * 99 and base.words < 3
    assert estimate(X3 * 2.0**300, y3 * 2.0**-200) == base  # one power of two per array: the same integers
    assert estimate(np.vstack([X3, X3]), np.concatenate([y3, y3])).seconds > 4 * base.seconds  # n(n − 1) vertices × n data
    mixed = estimate(X3 * 10.0 ** rng.integers(-150, 151, size=(100, 3)), y3)
    assert mixed.words > 17 and mixed.seconds > 2 * base.seconds and mixed.bytes > base.bytes
    assert estimate(X3[:, :2], y3).vertices == 200  # d = 2: the points ±x_k^⊥
    assert estimate(np.zeros((5, 3)), np.zeros(5)).seconds == 0  # no direction, no vertex
