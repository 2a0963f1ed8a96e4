"""sup_w ‖D_n(w) − target‖ over the circle S¹ (d = 2): the quantity of paper A Theorem 3.1.

D_n(w) = (1/n) Σ_k 1{⟨w,x_k⟩ > 0} y_k x_k is constant on the open arcs between the boundary points
±x_k^⊥; by Lemma C.1 the Clarke segments at the boundaries do not raise the sup (a convex function on a
segment is maximal at an endpoint, and the endpoints are arc values), so the sup is the max over the arc
values. The arc values come from one sweep of the circle: input k becomes active at the point
v⁻_k = (x_k2, −x_k1) (angle φ_k − π/2) and inactive at v⁺_k = (−x_k2, x_k1) (angle φ_k + π/2).

Ties. Several events can fall on one point of the circle: two parallel inputs start together, and two
antiparallel inputs (x_a = −c x_b) exchange at one point (one ends where the other starts). Only the value
after *all* events of a point is an arc value; an intermediate partial sum is not a value of D_n anywhere
(the defect fixed here: on spec A's four points ±(1, ±1) it gave 0.610 instead of 0.177). The events are
sorted by their float angle, and every run of events whose float angles are closer than ``CLUSTER`` is
re-sorted and grouped exactly (signs of 2×2 determinants of the float inputs, in rational arithmetic), so
coincident events form one step and nearly coincident ones keep their true order.
"""
from __future__ import annotations

from fractions import Fraction
from functools import cmp_to_key

import numpy as np

from relucheck.numerics.errors import RelucheckInputError

# The float angle of an event is atan2 of an exactly represented vector (negation is exact), taken mod 2π:
# atan2 errs by ≤ 2 ulp of a value ≤ π (≤ 9e-16) and the mod adds ≤ ½ ulp of 2π (≤ 4.5e-16), so the float
# angles of two events are misordered, or differ while the true angles are equal, only if they are within
# 3e-15 of each other. CLUSTER = 1e-12 exceeds that 300-fold; a larger value only sends more events to the
# exact path. It must stay below the largest gap, which is ≥ π/n (events come in antipodal pairs).
CLUSTER = 1e-12


def _cross(u, v) -> Fraction:
    """u₁v₂ − u₂v₁ exactly (float inputs are dyadic rationals)."""
    return Fraction(u[0]) * Fraction(v[1]) - Fraction(u[1]) * Fraction(v[0])


def _exact_run(V, idx) -> tuple[list, list]:
    """Events ``idx`` of a short arc (< π) in exact counter-clockwise order, and whether each ends a group."""
    # a before b iff b is counter-clockwise of a: cross(b, a) < 0 (cmp_to_key only asks whether cmp < 0)
    ordered = sorted(idx, key=cmp_to_key(lambda a, b: _cross(V[b], V[a])))
    ends = [_cross(V[a], V[b]) != 0 for a, b in zip(ordered, ordered[1:])] + [True]
    return ordered, ends


def sup_deviation_2d(X, y, target) -> float:
    """sup_w ‖D_n(w) − target‖ over S¹ (float64 sums; the event order and ties are decided exactly)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise RelucheckInputError(f"sup_deviation_2d needs d = 2 inputs, got shape {X.shape}")
    n = len(y)
    target = np.asarray(target, float)
    keep = np.any(X != 0, axis=1)  # a zero input is never active and has no event
    Xk, yk = X[keep], y[keep]
    if not len(yk):
        return float(np.linalg.norm(target))  # D_n ≡ 0
    V = np.concatenate([np.stack([Xk[:, 1], -Xk[:, 0]], 1), np.stack([-Xk[:, 1], Xk[:, 0]], 1)])
    steps = np.concatenate([yk[:, None] * Xk, -yk[:, None] * Xk]) / n
    angle = np.mod(np.arctan2(V[:, 1], V[:, 0]), 2 * np.pi)
    order = np.argsort(angle)
    gaps = np.diff(np.r_[angle[order], angle[order[0]] + 2 * np.pi])  # gap after each event (the last wraps)
    start = int(np.argmax(gaps)) + 1  # sweep from the end of the largest gap (≥ π/n > CLUSTER)
    order, gaps = np.roll(order, -start), np.roll(gaps, -start)
    # any point inside the largest gap's arc serves (its middle is far from every boundary): / 3 would do as well
    mid = angle[order[-1]] + gaps[-1] / 2  # pragma: no mutate
    active0 = Xk @ [np.cos(mid), np.sin(mid)] > 0  # pragma: no mutate  (no ⟨mid, x_k⟩ is 0: > and ≥ agree)
    value0 = (active0 * yk) @ Xk / n
    ordered, group_end = order.copy(), np.ones(len(order), bool)  # the events in exact order; whether each ends
    # the events of its point. A run of float-close events (gap ≤ CLUSTER after each but its last) is put in exact
    # order, one step per point; an event alone is a run of one, already in place. The last gap (the largest,
    # ≥ π/n > CLUSTER) ends every run; a gap of exactly CLUSTER is a true gap (≫ the 3e-15 float error), exact or float
    # order alike, so < and ≤ agree
    close = np.flatnonzero(gaps <= CLUSTER)  # pragma: no mutate
    k = 0
    while k < len(close):
        i = j = int(close[k])
        while k < len(close) and close[k] == j:
            k += 1
            j += 1
        run, ends = _exact_run(V, order[i:j + 1])
        ordered[i:j + 1], group_end[i:j + 1] = run, ends
    values = value0 + np.cumsum(steps[ordered], axis=0)[group_end]  # D_n on the arc after each point
    return float(np.max(np.linalg.norm(np.vstack([value0, values]) - target, axis=1)))
