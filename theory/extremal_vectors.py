"""The extremal vectors of finite data (paper A Definition 2.1), exactly; D_n and G_n in float64 are in
`theory.early_alignment`.

Paper A eq. (5) and Definition 2.1 (v1 Definition 1), spec A §1.5–§1.6, §5.0:

    D_n(w) = (1/n) Σ_k 1{⟨w,x_k⟩ > 0} y_k x_k,          G_n(w) = (1/n) Σ_k y_k σ(⟨w,x_k⟩),
    𝒟_n(w) = {(1/n) Σ_k η_k y_k x_k : η_k ∈ ∂σ(⟨w,x_k⟩)}   (Clarke subdifferential of G_n at w).

D is *extremal* when D ∈ 𝒟_n(w) and D ∈ ℝw for some unit w: "max" type when w = D/‖D‖ (attracts
positive neurons), "min" type when w = −D/‖D‖.

Method (exact for d = 2 and d = 3). The tied inputs of a point w (⟨w,x_k⟩ = 0) lie in w^⊥, so every
D ∈ 𝒟_n(w) has the same component G_n(w) along w; the extremal vector of w, when it exists, is
G_n(w)·w. On the sphere the hyperplanes x_k^⊥ cut faces: vertices (d = 2: the points ±x_k^⊥; d = 3: the
points ±x_i × x_j), edges (d = 3: open arcs of a great circle x_k^⊥) and open cells. On a face with
strictly active set A and tied set T the condition is

    P_{w^⊥} Σ_{A} y_k x_k  ∈  −{Σ_{T} η_k y_k x_k : η ∈ [0,1]^T}      (a zonotope in w^⊥),

tested exactly with the zonotope's support function along every generator and every generator's
normal. In a cell (T = ∅) it says w = ±D̄_A; on an edge of x_k^⊥ the candidate is w = ±P_{x_k^⊥} D_A;
on a vertex w is fixed. Every face is reached from a vertex: the faces around a vertex v are found by
leaving v along the sums ±t_a ± t_b of the tangent directions t_a = v × x_a of its circles (rank-one data
in d = 3 has no vertex: its cells are the two half-spaces ±⟨x_1, w⟩ > 0).

Arithmetic (`theory.dyadic`): the inputs are float64, hence dyadic rationals; they are scaled by one power of two to
exact Python integers and every predicate (activation signs, ties, zonotope membership, parallelism)
is evaluated in exact integer arithmetic, so there is no tolerance and no misclassified tie. The
reported vectors are rounded to float64 only at the end. Cost: Θ(n^{d−1}) faces (Cover's count, eq. 12),
each with an O(n) pattern, by blocks of float work arrays; `theory.extremal_cost` estimates it. Larger d
would need the zonotope test on faces of every dimension 1 … d−2: this module raises for d ≥ 4.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory.early_alignment import D_n, G_n  # noqa: F401 (their former home: tests/test_theory_sup_deviation.py)

from .dyadic import (  # noqa: F401 (exact arithmetic on float64 data: public here too, as before the split)
    FLOAT64_TINY, U, _canonical, _cross, _decimal, _dot, _floats, _nearest_float, _sign, _to_int, _twos)


@dataclass(frozen=True)
class ExtremalVector:
    """One non-zero extremal vector: unit direction w, vector D ∈ 𝒟_n(w) ∩ ℝw, type 'max' or 'min'.

    ``face`` says where w lies: 'cell' (no tie), 'edge' or 'vertex' (Clarke set is a segment or a
    zonotope there); ``ties`` are the indices k with ⟨w,x_k⟩ = 0. ``exact`` is D as exact rationals;
    ``vector`` is D rounded to float64, which holds it faithfully unless the data's scale puts a component
    outside float64's normal range (``in_float64_range`` says; e.g. inputs and labels of size 1e-170 give
    |D| ≈ 1e-340).
    """

    direction: np.ndarray
    vector: np.ndarray
    type: str
    face: str
    ties: tuple[int, ...]
    exact: tuple = ()

    @property
    def in_float64_range(self) -> bool:
        return all(c == 0 or (math.isfinite(v) and abs(v) >= FLOAT64_TINY) for c, v in zip(self.exact, self.vector))

    def decimal(self, digits: int = 17) -> list[str]:
        """D's components as decimal strings, correct at any exponent."""
        return [_decimal(c, digits) for c in self.exact]

    def to_json(self) -> dict:
        """``vector`` holds floats, or decimal strings (17 digits) when a component is outside float64's range."""
        vector = [float(c) for c in self.vector] if self.in_float64_range else self.decimal()
        return {"direction": [float(c) for c in self.direction], "vector": vector,
                "type": self.type, "face": self.face, "ties": list(self.ties)}


class _Arrangement:
    """The data in exact integers with the face predicates (d = 2 or 3).

    Signs ⟨w, x_k⟩ go through a float64 filter: a sign whose float value exceeds a bound on its
    rounding error is certain; exact integers decide the rest (ties always go exact). The bounds are
    first-order rounding-error bounds (Higham, Accuracy and Stability, §3.1: a d-term dot product errs
    by ≤ γ_d Σ|a_c||b_c|, γ_d ≈ d·u) multiplied by a safety factor 4; a wrong filter can only send a
    sign to the exact path, and the final decision on every reported vector is exact.
    """

    SAFETY = 4.0
    BLOCK = 2**18  # float entries per block of candidate rows × data (2 MiB per work array)

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.n, self.d = X.shape
        Xi, self.sx = _to_int(X)
        yi, self.sy = _to_int(y)
        self.X = [tuple(row) for row in Xi]
        self.Xf = _floats(self.X, self.d, per_row=True)  # x_k · 2^sx / 2^E_k: exact, signs of ⟨c, x_k⟩ kept
        self.absXf = np.abs(self.Xf)
        self.yx = [tuple(yk * c for c in row) for yk, row in zip(yi, Xi)]  # y_k x_k · 2^{sx+sy}
        self.yx_obj = np.array(self.yx, dtype=object).reshape(self.n, self.d)
        self.YXf = _floats(self.yx, self.d)
        self.nonzero = np.array([any(x) for x in self.X])

    def pattern(self, w) -> np.ndarray:
        """sign⟨w, x_k⟩ (int8, length n) for an integer vector w, exactly (filtered)."""
        return self._filtered(_floats([w], self.d), [w])[0]

    def _dots(self, Cf, errC) -> tuple[np.ndarray, np.ndarray]:
        """Float values of Cf @ Xᵀ (rows Cf within errC of exact rows, scaled) and a bound on their error:
        SAFETY·(errC·|x| + (d+2)·u·|c|·|x|), plus 1e-300 for products below float64's range (underflow)."""
        val = Cf @ self.Xf.T
        return val, self.SAFETY * (errC @ self.absXf.T + (self.d + 2) * U * (np.abs(Cf) @ self.absXf.T)) + 1e-300

    def _blocks(self, rows: int):
        """Slices of at most BLOCK entries of a (rows × n) float array: the work arrays stay megabytes at any n."""
        step = max(1, self.BLOCK // self.n)
        return [slice(lo, lo + step) for lo in range(0, rows, step)]

    def _filtered(self, Wf, exact_rows) -> np.ndarray:
        """Signs of Wf @ Xfᵀ, Wf the exact float images of integer rows (``exact_rows`` gives them lazily)."""
        out = np.empty((len(Wf), self.n), dtype=np.int8)
        for b in self._blocks(len(Wf)):
            val, bound = self._dots(Wf[b], np.zeros_like(Wf[b]))
            out[b] = np.sign(val)
            # pragma below: at |val| = bound (> 4× the error) the float sign is right too, so < and ≤ agree
            for i, k in zip(*np.nonzero(np.abs(val) <= bound)):  # pragma: no mutate
                out[b.start + i, k] = _sign(_dot(exact_rows[b.start + i], self.X[k]))
        return out

    def sums(self, A, err_sum: float) -> tuple[np.ndarray, np.ndarray]:
        """Σ_{k active} y_k x_k as floats per row of the boolean A, and their error bound; by blocks (A @ YXf copies A)."""
        return tuple(np.vstack([A[b] @ F for b in self._blocks(len(A))]) for F in (self.YXf, err_sum * np.abs(self.YXf)))

    def D_of(self, active) -> tuple:
        """Σ_{k active} y_k x_k (scaled integers); ``active`` is a boolean mask of length n (none active: 0)."""
        return tuple(int(v) for v in self.yx_obj[active].sum(axis=0))

    def vertices(self) -> list[tuple]:
        """Canonical integer vectors of the vertices on the sphere: ±x_k^⊥ (d = 2), ±x_i × x_j ≠ 0 (d = 3)."""
        nz = [x for x in self.X if any(x)]
        normals = [(-x[1], x[0]) for x in nz] if self.d == 2 else [_cross(a, b) for a, b in itertools.combinations(nz, 2)]
        out = {}
        for v in normals:
            if any(v):
                out.update(dict.fromkeys((_canonical(v), _canonical(tuple(-c for c in v)))))
        return list(out)

    def tangents(self, v, ties) -> list[tuple]:
        """Directions ±t along the circles x_k^⊥ (k tied at v), tangent to the sphere at v: t = v × x_k (d = 3);
        in d = 2 the tied inputs are parallel and the circle is the point v, left along ±x_k."""
        if self.d == 2:
            x = self.X[ties[0]]
            return [x, tuple(-c for c in x)]
        ts = {}
        for k in ties:
            t = _cross(v, self.X[k])
            if any(t):
                ts.update(dict.fromkeys((_canonical(t), _canonical(tuple(-c for c in t)))))
        return list(ts)

    def in_zonotope(self, w, active, ties) -> bool:
        """Exact test of P_{w^⊥} Σ_A y_k x_k ∈ −{Σ_T η_k y_k x_k : η ∈ [0,1]^T} (all in w^⊥)."""
        DA = self.D_of(active)
        ww = _dot(w, w)
        dw = _dot(DA, w)
        p = tuple(ww * a - dw * b for a, b in zip(DA, w))  # ‖w‖² P_{w⊥} D_A
        gens = [tuple(ww * c for c in self.yx[k]) for k in ties]
        gens = [g for g in gens if any(g)]
        if not gens:
            return not any(p)
        # −p ∈ Z(g) ⟺ |⟨−2p − Σ g, u⟩| ≤ Σ_j |⟨g_j, u⟩| along every generator and (d = 3) its normal in w^⊥
        tests = list(gens) + ([_cross(w, g) for g in gens] if self.d == 3 else [])
        center = tuple(-2 * a - sum(g[c] for g in gens) for c, a in enumerate(p))
        return all(abs(_dot(center, u)) <= sum(abs(_dot(g, u)) for g in gens) for u in tests)

    def extremal_at(self, w, face, pat=None) -> ExtremalVector | None:
        """The extremal vector of the point w (integer vector), if w satisfies Definition 2.1."""
        pat = self.pattern(w) if pat is None else pat
        active = pat > 0
        ties = tuple(int(k) for k in np.flatnonzero((pat == 0) & self.nonzero))
        if not self.in_zonotope(w, active, ties):
            return None
        g = _dot(self.D_of(active), w)  # n‖w‖ G_n(w̄) · 2^{sx+sy}
        kind = {1: "max", -1: "min"}.get(_sign(g))
        if kind is None:
            return None  # the zero vector: extremal but not listed
        wf = _floats([w], self.d)[0]
        wf /= np.linalg.norm(wf)
        unit = Fraction(2) ** -(self.sx + self.sy) / (self.n * _dot(w, w))
        exact = tuple(g * c * unit for c in w)  # D = G_n(w̄) w̄ = ⟨D_A, w⟩ w/(n‖w‖²), in the data's units
        vec = np.array([_nearest_float(c) for c in exact])  # rounded once
        return ExtremalVector(wf, vec, kind, face, ties, exact)

    def faces(self):
        """(vertices, vertex patterns, cell patterns, edge patterns), patterns keyed by their bytes."""
        verts = self.vertices()
        Vf = _floats(verts, self.d, per_row=True)
        pats = self._filtered(Vf, verts)
        cells, edges = {}, {}
        if not verts and any(self.nonzero):  # rank-1 data (d = 3): no vertex, the two half-spaces ±⟨x, w⟩ > 0
            x = self.X[int(np.argmax(self.nonzero))]
            for s in (x, tuple(-c for c in x)):
                c = self.pattern(s)
                cells.setdefault(c.tobytes(), c)
        for v, pat in zip(verts, pats):
            ties = [int(k) for k in np.flatnonzero((pat == 0) & self.nonzero)]
            tans = self.tangents(v, ties)
            tie_dots = {t: [_dot(t, self.X[k]) for k in ties] for t in tans}  # ⟨t, x_k⟩ for tied k
            if self.d == 3:  # edges leaving v along each circle: ties off that circle take sign⟨t, x_k⟩
                for t in tans:
                    e = pat.copy()
                    e[ties] = [_sign(q) for q in tie_dots[t]]
                    edges.setdefault(e.tobytes(), e)
            for s_, t in itertools.product(tans, repeat=2):  # cells around v, left along u = s + t (±t_a ± t_b, ±2t_a)
                # tans is closed under negation, so {s + t} = {s − t}: the operator is not observable
                signs = [_sign(a + b) for a, b in zip(tie_dots[s_], tie_dots[t])]  # pragma: no mutate
                if 0 in signs:
                    continue
                c = pat.copy()
                c[ties] = signs
                cells.setdefault(c.tobytes(), c)
        return verts, pats, cells, edges

    def candidate_filter(self, Cf, errC, want) -> np.ndarray:
        """Rows whose candidate direction Cf (±) can have exactly the pattern ``want`` (float filter, conservative)."""
        keep = np.empty(len(Cf), dtype=bool)
        for b in self._blocks(len(Cf)):
            val, bound = self._dots(Cf[b], errC[b])
            # pragma below: at |val| = bound the exact value is not 0 (the error is < bound/4), so < for ≤ only
            # rejects a candidate whose exact check would reject it
            tie_ok = np.abs(val) <= bound  # pragma: no mutate
            agree = np.where(want[b] == 0, tie_ok, want[b] * val > -bound)
            keep[b] = np.all(agree | ~self.nonzero, axis=1)
        return keep


def _validate(X, y=None) -> tuple[np.ndarray, np.ndarray]:
    """X and y as float64 arrays, checked; y=None (count_cells: no labels) gives zero labels."""
    try:
        X = np.asarray(X, dtype=float)
        y = np.zeros(X.shape[:1]) if y is None else np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"inputs and labels must be arrays of numbers: {exc}") from exc
    if X.ndim != 2 or X.shape[0] == 0:
        raise RelucheckInputError(f"inputs must be a non-empty n×d array (rows x_k), got shape {X.shape}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise RelucheckInputError(f"labels must have n = {X.shape[0]} entries (one per input row), got shape {y.shape}")
    for name, arr in (("inputs", X), ("labels", y)):
        if not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0].tolist()
            raise RelucheckInputError(f"{name} must be finite; non-finite value at index {bad}")
    if X.shape[1] not in (2, 3):
        raise RelucheckInputError(f"exact extremal-vector enumeration is implemented for d = 2 and d = 3, got d = "
                                  f"{X.shape[1]} (the arrangement has Θ(n^(d−1)) faces; see theory.extremal_vectors)")
    return X, y


def extremal_vectors(X, y) -> list[ExtremalVector]:
    """All non-zero extremal vectors of the data (A Definition 2.1), exactly, for d ∈ {2, 3}.

    Sorted by type ('max' first) then by decreasing ‖D‖. A vector reached from several directions w
    is listed once per direction: Definition 2.1 pairs a vector with a direction.
    """
    X, y = _validate(X, y)
    arr = _Arrangement(X, y)
    verts, pats, cells, edges = arr.faces()
    found: dict[tuple, ExtremalVector] = {}
    for v, pat in zip(verts, pats):
        ev = arr.extremal_at(v, "vertex", pat)
        if ev is not None:
            found[v] = ev
    err_sum = (arr.n + 3) * U

    def record(w, kind, face_pattern):
        """Keep the exact candidate w if its own activation pattern is the face's and it is extremal there."""
        if any(w) and w not in found:  # w = 0 (D_A = 0 or D_A ∥ x_k) is no direction: no pattern to compute
            pat = arr.pattern(w)
            if np.array_equal(pat, face_pattern):
                ev = arr.extremal_at(w, kind, pat)
                if ev is not None:
                    found[w] = ev

    if cells:  # cells: w = ±D_A, valid when w's own pattern is the cell's
        M = np.array(list(cells.values()))
        A = M == 1
        Df, errD = arr.sums(A, err_sum)
        for neg in (False, True):
            for i in np.flatnonzero(arr.candidate_filter(-Df if neg else Df, errD, M)):
                D = arr.D_of(A[i])
                record(_canonical(tuple(-c for c in D) if neg else D), "cell", M[i])
    if edges:  # edges of a circle x_k^⊥: w = ±P_{x_k^⊥} D_A = ±(‖x_k‖² D_A − ⟨D_A, x_k⟩ x_k)
        M = np.array(list(edges.values()))
        circle = np.array([np.flatnonzero((e == 0) & arr.nonzero)[0] for e in M])
        A = M == 1
        Df, errD = arr.sums(A, err_sum)
        xk = arr.Xf[circle]
        kk = (xk * xk).sum(1, keepdims=True)
        dk = (Df * xk).sum(1, keepdims=True)
        # pragma on the next four lines: rounding bounds of P_{x_k⊥} D_A's float image (first order, then ×SAFETY in
        # candidate_filter); a looser one only sends more candidates to the exact check, and no data found by a
        # search (near-parallel 2^20…2^26 integers) gets a float error past a tightened one
        err_dk = (errD * np.abs(xk)).sum(1, keepdims=True)  # pragma: no mutate
        err_dk += (arr.d + 2) * U * (np.abs(Df) * np.abs(xk)).sum(1, keepdims=True)  # pragma: no mutate
        Pf = kk * Df - dk * xk
        errP = kk * errD + np.abs(xk) * err_dk  # pragma: no mutate
        errP += (arr.d + 4) * U * (kk * np.abs(Df) + np.abs(dk) * np.abs(xk))  # pragma: no mutate
        for neg in (False, True):
            for i in np.flatnonzero(arr.candidate_filter(-Pf if neg else Pf, errP, M)):
                x, DA = arr.X[circle[i]], arr.D_of(A[i])
                k2, d2 = _dot(x, x), _dot(DA, x)
                P = tuple(k2 * a - d2 * b for a, b in zip(DA, x))
                record(_canonical(tuple(-c for c in P) if neg else P), "edge", M[i])
    return sorted(found.values(), key=lambda e: (e.type != "max", -sum(c * c for c in e.exact)))


def cover_count(n: int, d: int) -> int:
    """Eq. (12) (Cover 1965): 2 Σ_{i<d} C(n−1, i), the number of cells of n generic hyperplanes through 0."""
    return 2 * sum(math.comb(n - 1, i) for i in range(d))


def count_cells(X) -> int:
    """Number of distinct strict activation patterns (cells) of the data's arrangement, exactly (d = 2, 3)."""
    X, y = _validate(X)
    return len(_Arrangement(X, y).faces()[2])
