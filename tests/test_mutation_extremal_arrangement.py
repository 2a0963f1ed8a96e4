"""Tests written against the surviving mutants of docs/mutation.md (issue 12); each compares with an independent computation.

`theory.extremal_vectors` (paper A, Definition 2.1): the enumeration against an exact oracle that finds the faces in
another way (arcs of each circle sorted by angle, cells as the two sides of an arc, Clarke condition by the
vertices of {η ∈ [0,1]^T : Σ η_k y_k x_k = b}), the float filters against exact integer signs (sound on data that
underflow or cancel, effective on generic data), and the documented dtypes and input handling.
"""
import itertools
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory import extremal_vectors as ev


# -- an exact oracle for Definition 2.1 (d = 2 and d = 3, integer data) ----------------------------------------------
def _sgn(v):
    return (v > 0) - (v < 0)


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def _cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _pattern(X, w):
    return tuple(_sgn(_dot(w, x)) for x in X)


def _in_zonotope(gens, b) -> bool:
    """Exactly: b = Σ η_k g_k for some η ∈ [0, 1]^T. A non-empty polytope {η : Gη = b, 0 ≤ η ≤ 1} has a vertex,
    where at most rank G ≤ 2 coordinates are strictly inside (0, 1) (all vectors here lie in the plane w⊥, or on
    the line w⊥ in d = 2): try every such free set with the others at 0 or 1, solving the free ones exactly."""
    T = len(gens)
    for r in (0, 1, 2):
        for free in itertools.combinations(range(T), r):
            fixed = [k for k in range(T) if k not in free]
            for bits in itertools.product((0, 1), repeat=len(fixed)):
                rhs = [bc - sum(bit * gens[k][c] for bit, k in zip(bits, fixed)) for c, bc in enumerate(b)]
                g = [gens[k] for k in free]
                gram = [[_dot(u, v) for v in g] for u in g]
                rside = [_dot(u, rhs) for u in g]
                if r == 0:
                    eta = []
                elif r == 1:
                    if gram[0][0] == 0:
                        continue
                    eta = [rside[0] / gram[0][0]]
                else:
                    det = gram[0][0] * gram[1][1] - gram[0][1] * gram[1][0]
                    if det == 0:
                        continue
                    eta = [(rside[0] * gram[1][1] - rside[1] * gram[0][1]) / det,
                           (rside[1] * gram[0][0] - rside[0] * gram[1][0]) / det]
                if all(0 <= e <= 1 for e in eta) and \
                        all(sum(e * u[c] for e, u in zip(eta, g)) == rc for c, rc in enumerate(rhs)):
                    return True
    return False


def _clarke_vector(X, y, w):
    """(type, D) if w satisfies Definition 2.1 with D ≠ 0, else None:
    D ∈ 𝒟_n(w) ∩ ℝw ⟺ P_{w⊥} Σ_A y_k x_k + Σ_T η_k y_k x_k = 0 for some η ∈ [0, 1]^T (x_k ∈ w⊥ for k ∈ T)."""
    n = len(X)
    A = [k for k in range(n) if _dot(w, X[k]) > 0]
    T = [k for k in range(n) if _dot(w, X[k]) == 0 and any(X[k])]
    DA = [sum(Fraction(y[k]) * X[k][c] for k in A) for c in range(len(w))]
    ww, dw = _dot(w, w), _dot(DA, w)
    p = [a - dw * b / ww for a, b in zip(DA, w)]
    if not _in_zonotope([[y[k] * c for c in X[k]] for k in T], [-c for c in p]) or dw == 0:
        return None
    return ("max" if dw > 0 else "min"), tuple(dw * c / (n * ww) for c in w)


def _angle_sorted(rays, e1, e2):
    return sorted(rays, key=lambda u: math.atan2(float(_dot(u, e2)), float(_dot(u, e1))))


def _interior_points(rays, normal):
    """A point strictly inside each open arc between consecutive rays (sorted): u_i + u_{i+1}, or the rotation of
    u_i by +90° about ``normal`` when the arc is a half circle."""
    out = []
    for a, b in zip(rays, rays[1:] + rays[:1]):
        s = tuple(p + q for p, q in zip(a, b))
        out.append(s if any(s) else (_cross(normal, a) if len(a) == 3 else (-a[1], a[0])))
    return out


def oracle(X, y):
    """{(face, type, D)}, the set of cell patterns, and the candidates ±D_A (cells), ±P_{x_k⊥} D_A (edges) whose
    exact pattern is their face's (as primitive integer vectors), found without the tangent-sum walk of the module."""
    X = [tuple(int(c) for c in row) for row in X]
    n, d = len(X), len(X[0])
    nz = [x for x in X if any(x)]
    found, cells, cands = set(), set(), set()

    def try_point(w, face):
        got = _clarke_vector(X, y, w)
        if got is not None:
            found.add((face, got[0], got[1]))

    def try_cell(pat):
        cells.add(pat)
        DA = tuple(sum(y[k] * X[k][c] for k in range(n) if pat[k] > 0) for c in range(d))
        for w in (DA, tuple(-c for c in DA)):
            if any(w) and _pattern(X, w) == pat:
                cands.add(tuple(c // math.gcd(*w) for c in w))
                try_point(w, "cell")

    if not nz:
        return found, cells, cands
    if d == 2:
        verts = {v for x in nz for v in ((-x[1], x[0]), (x[1], -x[0]))}
        for v in verts:
            try_point(v, "vertex")
        rays = _angle_sorted(list({tuple(c // math.gcd(*v) for c in v) for v in verts}), (1, 0), (0, 1))
        for m in _interior_points(rays, None):
            try_cell(_pattern(X, m))
        return found, cells, cands
    for a in nz:
        for b in nz:
            v = _cross(a, b)
            if any(v):
                try_point(v, "vertex")
    for xk in nz:  # the circle x_k^⊥: its vertices sorted by angle, one point in each arc, the cells on its two sides
        on = [_cross(xk, x) for x in nz if any(_cross(xk, x))]
        if not on:  # rank one: the circle has no vertex, the cells are the two half-spaces
            try_cell(_pattern(X, xk))
            try_cell(_pattern(X, tuple(-c for c in xk)))
            continue
        e1 = on[0]
        e2 = _cross(xk, e1)
        unit = {}
        for u in on + [tuple(-c for c in u) for u in on]:
            g = math.gcd(*u)
            unit[tuple(c // g for c in u)] = None
        for m in _interior_points(_angle_sorted(list(unit), e1, e2), xk):
            pat = _pattern(X, m)
            DA = tuple(sum(y[k] * X[k][c] for k in range(n) if pat[k] > 0) for c in range(3))
            kk, dk = _dot(xk, xk), _dot(DA, xk)
            P = tuple(kk * a - dk * b for a, b in zip(DA, xk))
            for w in (P, tuple(-c for c in P)):
                if any(w) and _pattern(X, w) == pat:
                    cands.add(tuple(c // math.gcd(*w) for c in w))
                    try_point(w, "edge")
            for side in (1, -1):  # m + ε·side·x_k: the inputs tied at m are parallel to x_k
                try_cell(tuple(s if s else side * _sgn(_dot(xk, x)) if any(x) else 0 for s, x in zip(pat, X)))
    return found, cells, cands


def enumerated(X, y):
    return {(e.face, e.type, e.exact) for e in ev.extremal_vectors(np.array(X, float), np.array(y, float))}


MIXED_X = [[0, 0, 2], [3, -3, -2], [2, 3, -2], [-1, 3, -1], [-2, 2, -2], [-1, 1, 0]]
MIXED_Y = [1, -1, -3, 3, -3, -2]


def test_oracle_on_a_hand_example():
    # d = 2, x = e1, e2, labels 1, 1: the cell {w1 > 0, w2 > 0} has D_A = (1, 1), inside it: a max vector (1/2)(1, 1);
    # at the vertex w = e1 (x_2 tied) D = (1/2)(1, η) ∈ ℝe1 for η = 0: the max vector (1/2, 0); likewise e2
    found, cells, _ = oracle([[1, 0], [0, 1]], [1, 1])
    half = Fraction(1, 2)
    assert found == {("cell", "max", (half, half)), ("vertex", "max", (half, 0)), ("vertex", "max", (0, half))}
    assert cells == {(1, 1), (1, -1), (-1, 1), (-1, -1)}


def test_enumeration_matches_the_oracle_on_mixed_d3_data():
    found, cells, _ = oracle(MIXED_X, MIXED_Y)
    assert {f for f, _, _ in found} == {"cell", "edge", "vertex"}
    assert {t for f, t, _ in found if f == "edge"} == {"max", "min"}  # both signs of ±P_{x_k⊥} D_A are needed
    assert enumerated(MIXED_X, MIXED_Y) == found
    assert ev.count_cells(np.array(MIXED_X, float)) == len(cells)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("d", [2, 3])
def test_enumeration_matches_the_oracle_on_degenerate_integer_data(seed, d):
    # entries in {−2, …, 2}: parallel inputs, several circles through one vertex, zero inputs, ties everywhere
    rng = np.random.default_rng(100 * d + seed)
    n = int(rng.integers(3, 7))
    X = rng.integers(-2, 3, size=(n, d)).tolist()
    y = [int(v) for v in rng.choice([-3, -2, -1, 1, 2, 3], n)]
    found, cells, _ = oracle(X, y)
    assert enumerated(X, y) == found
    assert ev.count_cells(np.array(X, float)) == len(cells)


# -- inputs and dtypes ------------------------------------------------------------------------------------------------
def test_exact_and_decimal_inputs_give_the_float_result():
    # "inputs and labels must be arrays of numbers": Fractions and Decimals are converted to float64 first
    frac = enumerated([[Fraction(v) for v in row] for row in MIXED_X], [Fraction(v) for v in MIXED_Y])
    assert frac == enumerated(MIXED_X, MIXED_Y)
    got = ev.extremal_vectors(np.array(MIXED_X, float), [Decimal(v) for v in MIXED_Y])
    assert {(e.face, e.type, e.exact) for e in got} == frac
    assert ev.count_cells([[Fraction(v) for v in row] for row in MIXED_X]) == ev.count_cells(MIXED_X)
    with pytest.raises(RelucheckInputError, match="inputs and labels must be arrays of numbers"):
        ev.count_cells([[1.0, 2.0], [1.0]])


@pytest.mark.parametrize("kind", [Fraction, Decimal])
def test_D_n_and_G_n_are_float64_for_any_number_type(kind):
    # "D_n, G_n (float64, any d)": entries of any numeric type are converted; a batch gives a float64 array
    X = [[1.0, 0.5], [-0.25, 1.0], [0.75, -1.5]]
    y = [1.5, -0.5, 0.25]
    W = [[0.6, -0.8], [-0.8, -0.6]]
    conv = {"X": [[kind(str(v)) for v in r] for r in X], "y": [kind(str(v)) for v in y],
            "w": [[kind(str(v)) for v in r] for r in W]}
    for which in ("X", "y", "w"):
        args = {"X": X, "y": y, "w": W, which: conv[which]}
        D, G = ev.D_n(args["X"], args["y"], args["w"]), ev.G_n(args["X"], args["y"], args["w"])
        assert D.dtype == np.float64 and G.dtype == np.float64 and G.shape == (2,)
        np.testing.assert_array_equal(D, ev.D_n(X, y, W))
        np.testing.assert_array_equal(G, ev.G_n(X, y, W))
        g = ev.G_n(args["X"], args["y"], args["w"][0])  # one direction: a float64 scalar, not a Python float
        assert g.dtype == np.float64 and g == G[0]
        # by hand: w = (0.6, −0.8): ⟨w, x⟩ = 0.2, −0.95, 1.65 → G = (1.5·0.2 + 0.25·1.65)/3
        assert g == pytest.approx((1.5 * 0.2 + 0.25 * 1.65) / 3, rel=1e-15)


def test_pattern_is_int8_and_exact():
    arr = ev._Arrangement(np.array(MIXED_X, float), np.array(MIXED_Y, float))
    for w in [(1, 0, 0), (0, 0, 1), (3, 1, -2), (1, 1, 0)]:
        pat = arr.pattern(w)
        assert pat.dtype == np.int8  # documented: "sign⟨w, x_k⟩ (int8, length n)"
        assert pat.tolist() == [_sgn(_dot(w, x)) for x in MIXED_X]


# -- the float filters: sound against exact integer signs, effective on generic data ---------------------------------
TINY = 2.0**-600  # products of two such entries (2^-1200) are below float64's smallest subnormal 2^-1074


def _tiny_data():
    # x_0 fixes the scale; x_1, x_2, x_3 have entries 2^-600 times it: ⟨w, x_k⟩ underflows to 0 in float64
    X = np.array([[1.0, 0.0, 0.0], [0.0, TINY, TINY], [0.0, TINY, -3 * TINY], [0.0, TINY, -TINY]])
    return ev._Arrangement(X, np.ones(4)), X


def test_pattern_is_exact_where_the_float_products_underflow():
    arr, X = _tiny_data()
    w = (2**600, 1, 1)  # as floats (2^-1, 2^-601, 2^-601) after the common power of two
    exact = [_sgn(_dot(w, [Fraction(c) for c in x])) for x in X]
    assert exact == [1, 1, -1, 0]
    assert arr.pattern(w).tolist() == exact


def test_candidate_filter_keeps_a_candidate_whose_dots_underflow():
    # the candidate C = w above has the exact pattern (1, 1, −1, 0): the filter must not reject it
    arr, _ = _tiny_data()
    Cf = ev._floats([(2**600, 1, 1)], 3)
    assert arr.candidate_filter(Cf, np.zeros_like(Cf), np.array([[1, 1, -1, 0]])).tolist() == [True]


def test_candidate_filter_keeps_a_near_orthogonal_candidate():
    # ⟨c, x⟩ = 2^52 − (2^52 − 1) = 1 exactly (and in float64), while |c|·|x| ≈ 2^53: the value is below the
    # rounding bound 4·(d+2)·u·|c|·|x| ≈ 20, but its sign is right, so the candidate with pattern (+1, +1) must
    # pass (and (−1, +1) must too: the filter cannot tell); a candidate whose second sign is clearly wrong is rejected
    X = np.array([[2.0**52, 1.0, 0.0], [0.0, 0.0, 1.0]])
    arr = ev._Arrangement(X, np.ones(2))
    c = (1, -(2**52) + 1, 1)
    assert _dot(c, (2**52, 1, 0)) == 1
    Cf = ev._floats([c, c, c], 3)
    got = arr.candidate_filter(Cf, np.zeros_like(Cf), np.array([[1, 1], [-1, 1], [1, -1]]))
    assert got.tolist() == [True, True, False]


def _generic(seed, n=9, d=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal(n)


@pytest.mark.parametrize("seed", range(3))
def test_candidate_filter_is_exact_on_generic_data(seed):
    # Gaussian data and candidates: every |⟨c, x_k⟩| exceeds 1e-6·|c|·|x_k| (checked), far above the rounding bound
    # 4·(d+2)·u ≈ 2.2e-15 of the filter, so the filter must accept exactly the candidates whose exact pattern
    # is `want`: flipping any one sign, or asking for a tie, rejects
    X, y = _generic(seed)
    arr = ev._Arrangement(X, y)
    rng = np.random.default_rng(seed + 10)
    C = [tuple(int(v) for v in rng.integers(-(2**40), 2**40, 3)) for _ in range(5)]
    Xi = [[Fraction(v) for v in row] for row in X]
    for c in C:
        dots = [_dot(c, x) for x in Xi]
        norms = [sum(abs(a * b) for a, b in zip(c, x)) for x in Xi]
        assert min(abs(v) / s for v, s in zip(dots, norms)) > 1e-6
        exact = np.array([_sgn(v) for v in dots])
        wants = [exact]
        for k in range(len(X)):
            for new in (-exact[k], 0):
                flipped = exact.copy()
                flipped[k] = new
                wants.append(flipped)
        Cf = ev._floats([c] * len(wants), 3)
        got = arr.candidate_filter(Cf, np.zeros_like(Cf), np.array(wants))
        assert got.tolist() == [True] + [False] * (len(wants) - 1)


class _Counting(list):
    """A list that counts reads by index: how many signs the exact path decided."""

    reads = 0

    def __getitem__(self, i):
        type(self).reads += 1
        return super().__getitem__(i)


@pytest.mark.parametrize("seed", range(3))
def test_filtered_signs_go_exact_only_at_ties(seed):
    # generic data: the float filter decides every sign except the exact ties, which it must send to the exact path
    X, y = _generic(seed, n=12)
    arr = ev._Arrangement(X, y)
    verts = arr.vertices()
    _Counting.reads = 0
    rows = _Counting(verts)
    pats = arr._filtered(ev._floats(verts, 3), rows)
    Xi = [[Fraction(v) for v in row] for row in X]
    exact = [[_sgn(_dot(v, x)) for x in Xi] for v in verts]
    assert pats.tolist() == exact
    assert _Counting.reads == sum(row.count(0) for row in exact) == 2 * len(verts)  # each x_i × x_j ties 2 inputs


@pytest.mark.parametrize("seed", range(4))
def test_extremal_vectors_evaluate_exactly_the_candidates_of_their_face(seed, monkeypatch):
    # cost contract of the float filters: on generic data (integers up to 2^20, no near-tie) the exact pattern is
    # computed for exactly the candidates whose exact pattern is their face's (the oracle's), once each, and never
    # for a vertex (the vertex patterns come from one batch)
    rng = np.random.default_rng(seed)
    X = rng.integers(-(2**20), 2**20, size=(8, 3))
    y = rng.integers(-(2**20), 2**20, size=8)
    found, _, cands = oracle(X.tolist(), y.tolist())
    calls = []
    real = ev._Arrangement.pattern
    monkeypatch.setattr(ev._Arrangement, "pattern", lambda self, w: calls.append(w) or real(self, w))
    assert enumerated(X, y) == found and found
    assert len(calls) == len(set(calls)) and set(calls) == cands
    assert not set(ev._Arrangement(X.astype(float), y.astype(float)).vertices()) & set(calls)


@pytest.mark.parametrize("d", [2, 3])
def test_sums_of_large_products_are_exact(d):
    # odd integer inputs and labels near 3·10^9 (exact in float64): each y_k x_k ≈ 9·10^18 fits in int64 (< 2^63 ≈
    # 9.22·10^18) but Σ_A y_k x_k does not; the scaled integers must stay Python integers (no wrap-around)
    rng = np.random.default_rng(7 + d)
    X = (3 * 10**9 + 2 * rng.integers(0, 1000, size=(5, d)) + 1) * rng.choice([-1, 1], size=(5, d))
    y = (3 * 10**9 + 2 * rng.integers(0, 1000, size=5) + 1) * rng.choice([-1, 1], size=5)
    assert np.all(np.abs(X.astype(float) * y[:, None]) < 2.0**63)
    found, cells, _ = oracle(X.tolist(), y.tolist())
    assert found and enumerated(X, y) == found


def test_rank_one_data_with_a_zero_input_first():
    # d = 3, x_k = c_k u or 0: no vertex; the two cells are ±⟨u, w⟩ > 0, whichever input comes first
    X = [[0, 0, 0], [1, 2, 0], [-2, -4, 0], [3, 6, 0]]
    y = [5, 1, 2, -1]
    found, cells, _ = oracle(X, y)
    assert cells == {(0, 1, -1, 1), (0, -1, 1, -1)} and found
    assert enumerated(X, y) == found
    assert ev.count_cells(np.array(X, float)) == 2


def test_cell_candidate_with_cancelling_sums_is_kept():
    # n = 2, y = (1, 1), x_1 = −x_0 + e: D_A = x_0 + x_1 = e is far shorter than |x_0| + |x_1| (≈ 2^27), and
    # ⟨e, x_0⟩ = 1, ⟨e, x_1⟩ = 10: w = e lies in the cell where both inputs are active, so D = e/2 is a max vector.
    # Its float value ⟨e, x_0⟩ = 1 is below the bound of the rounding error of the sum (~ n·u·(|x_0|+|x_1|)·|x_0| ≈
    # 4 for n = 2), which must be ≥ 0 however small n is
    e = (1, -1, 3)
    x0 = (2**26 + 1, 2**26, 0)
    x1 = tuple(-a + b for a, b in zip(x0, e))
    assert (_dot(e, x0), _dot(e, x1)) == (1, 10)
    found, _, _ = oracle([x0, x1], [1, 1])
    assert ("cell", "max", (Fraction(1, 2), Fraction(-1, 2), Fraction(3, 2))) in found
    assert enumerated([x0, x1], [1, 1]) == found


def test_decimal_is_correctly_rounded_next_to_half_way_points():
    # h = 1 + 5·10^-17 is half-way between the 17-digit decimals 1.0000000000000000 and 1.0000000000000001: a value
    # 10^-40 above it rounds up, one below rounds down (a binary approximation with 27 digits cannot tell them apart)
    h = 1 + Fraction(5, 10**17)
    tiny = Fraction(1, 10**40)
    assert ev._decimal(h + tiny, 17) == "1.0000000000000001"
    assert ev._decimal(h - tiny, 17) == "1.0"
    assert ev._decimal(-(h + tiny), 17) == "-1.0000000000000001"
    # exactly half-way: away from zero, as mpmath does for binary values (0.125 → 0.13); 9.9995 → 10.0 (4 digits)
    assert ev._decimal(Fraction(1, 8), 2) == "0.13" and ev._decimal(Fraction(-3, 8), 2) == "-0.38"
    assert ev._decimal(Fraction(99995, 10000), 4) == "10.0"
    assert ev._decimal(Fraction(99994999, 10**7), 4) == "9.999"
    # powers of ten and their neighbours, at any exponent
    assert ev._decimal(Fraction(10**5), 3) == "1.0e+5" and ev._decimal(Fraction(1, 10**5), 3) == "1.0e-5"
    assert ev._decimal(Fraction(10**5) - tiny, 3) == "1.0e+5" and ev._decimal(Fraction(10**5) - 600, 3) == "9.94e+4"
    assert ev._decimal(Fraction(999, 10**403), 2) == "1.0e-400" and ev._decimal(Fraction(0), 5) == "0.0"
    assert ev._decimal(Fraction(123456789, 10**5), 30) == "1234.56789"
    # 2/3 · 10^7 = 6666666.666…: the first digits, the last one rounded up (mpmath's notation: fixed up to `digits`)
    assert [ev._decimal(Fraction(2, 3) * 10**7, k) for k in (1, 2, 5, 17, 25)] == \
        ["7.0e+6", "6.7e+6", "6.6667e+6", "6666666.6666666667", "6666666.666666666666666667"]


def test_decimal_of_a_rational_beyond_python_s_int_to_str_limit():
    # exact vectors of extreme d = 3 data reach thousands of digits; str() of an int over 4300 digits raises
    # ValueError, so the exponent must not come from decimal strings (hand values: 10^5000/3, −2/(3·10^5000))
    from relucheck.theory.extremal_vectors import _decimal
    assert _decimal(Fraction(10**5000 + 1, 3), 5) == "3.3333e+4999"
    assert _decimal(Fraction(-2, 3 * 10**5000), 3) == "-6.67e-5001"
