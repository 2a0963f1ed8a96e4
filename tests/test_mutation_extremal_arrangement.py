"""Tests written against the surviving mutants of docs/mutation.md (issue 12); each compares with an independent computation.

`theory.extremal_vectors` (paper A, Definition 2.1): the enumeration against an exact oracle that finds the faces in
another way (arcs of each circle sorted by angle, cells as the two sides of an arc, Clarke condition as a linear
program), the float filters against exact integer signs (sound on data that underflow, effective on generic data),
and the documented dtypes and input handling.
"""
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

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


def _clarke_vector(X, y, w):
    """(type, D) if w satisfies Definition 2.1 with D ≠ 0, else None.

    D ∈ 𝒟_n(w) ∩ ℝw ⟺ P_{w⊥} Σ_A y_k x_k + Σ_T η_k y_k x_k = 0 for some η ∈ [0, 1]^T (x_k ∈ w⊥ for k ∈ T),
    solved as a feasibility LP (HiGHS); the data are small integers, so an infeasible system misses by ≥ 1/|w|²
    (its right side has denominator ‖w‖²) while HiGHS's feasibility tolerance is 1e-7.
    """
    n = len(X)
    A = [k for k in range(n) if _dot(w, X[k]) > 0]
    T = [k for k in range(n) if _dot(w, X[k]) == 0 and any(X[k])]
    DA = [sum(Fraction(y[k]) * X[k][c] for k in A) for c in range(len(w))]
    ww, dw = _dot(w, w), _dot(DA, w)
    p = [a - dw * b / ww for a, b in zip(DA, w)]
    if T:
        G = np.array([[float(y[k] * X[k][c]) for k in T] for c in range(len(w))])
        res = linprog(np.zeros(len(T)), A_eq=G, b_eq=-np.array([float(c) for c in p]), bounds=[(0, 1)] * len(T),
                      method="highs")
        if res.status != 0:
            return None
    elif any(p):
        return None
    if dw == 0:
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
    """{(face, type, D)} and the set of cell patterns, found without the tangent-sum walk of the module."""
    X = [tuple(int(c) for c in row) for row in X]
    n, d = len(X), len(X[0])
    nz = [x for x in X if any(x)]
    found, cells = set(), set()

    def try_point(w, face):
        got = _clarke_vector(X, y, w)
        if got is not None:
            found.add((face, got[0], got[1]))

    def try_cell(pat):
        cells.add(pat)
        DA = tuple(sum(y[k] * X[k][c] for k in range(n) if pat[k] > 0) for c in range(d))
        for w in (DA, tuple(-c for c in DA)):
            if any(w) and _pattern(X, w) == pat:
                try_point(w, "cell")

    if not nz:
        return found, cells
    if d == 2:
        verts = {v for x in nz for v in ((-x[1], x[0]), (x[1], -x[0]))}
        for v in verts:
            try_point(v, "vertex")
        rays = _angle_sorted(list({tuple(c // math.gcd(*v) for c in v) for v in verts}), (1, 0), (0, 1))
        for m in _interior_points(rays, None):
            try_cell(_pattern(X, m))
        return found, cells
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
                    try_point(w, "edge")
            for side in (1, -1):  # m + ε·side·x_k: the inputs tied at m are parallel to x_k
                try_cell(tuple(s if s else side * _sgn(_dot(xk, x)) if any(x) else 0 for s, x in zip(pat, X)))
    return found, cells


def enumerated(X, y):
    return {(e.face, e.type, e.exact) for e in ev.extremal_vectors(np.array(X, float), np.array(y, float))}


MIXED_X = [[0, 0, 2], [3, -3, -2], [2, 3, -2], [-1, 3, -1], [-2, 2, -2], [-1, 1, 0]]
MIXED_Y = [1, -1, -3, 3, -3, -2]


def test_oracle_on_a_hand_example():
    # d = 2, x = e1, e2, labels 1, 1: the cell {w1 > 0, w2 > 0} has D_A = (1, 1), inside it: a max vector (1/2)(1, 1);
    # at the vertex w = e1 (x_2 tied) D = (1/2)(1, η) ∈ ℝe1 for η = 0: the max vector (1/2, 0); likewise e2
    found, cells = oracle([[1, 0], [0, 1]], [1, 1])
    half = Fraction(1, 2)
    assert found == {("cell", "max", (half, half)), ("vertex", "max", (half, 0)), ("vertex", "max", (0, half))}
    assert cells == {(1, 1), (1, -1), (-1, 1), (-1, -1)}


def test_enumeration_matches_the_oracle_on_mixed_d3_data():
    found, cells = oracle(MIXED_X, MIXED_Y)
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
    found, cells = oracle(X, y)
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
