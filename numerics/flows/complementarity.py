"""The per-neuron complementarity problem of the Filippov layer (`numerics.flows.filippov`, module docstring), on one
block of kink data K of neuron j: find η ∈ [0, 1]^K with η_k = 0 ⇒ w_k ≤ 0, η_k = 1 ⇒ w_k ≥ 0, 0 < η_k < 1 ⇒ w_k = 0,
where w = s_j (b + G_KK (η∘r_K)) (a box-constrained mixed LCP; Guglielmi & Hairer, SIAM J. Appl. Dyn. Syst. 14 (2015)
on its non-uniqueness), chosen by the hysteresis rule of `numerics.flows.filippov`. Split from that module along the
concept boundary "which side" (this module) / "which components, and the pattern they make" (filippov).
"""
from __future__ import annotations

import itertools

import numpy as np

INACTIVE, ACTIVE, SLIDING = 0, 1, 2
MAX_ENUMERATED = 5  # a block of up to 5 kink data whose box solution fails the exact check is enumerated (3^5)


def nonzero(x):
    """np.flatnonzero for the 1-D masks here, without its ravel."""
    return x.nonzero()[0]


def nonzero2d(mask):
    """np.nonzero of a 2-D mask, (rows, columns) in the same row-major order, through the flat indices: numpy's 2-D
    nonzero costs about 60 µs on a (256, 64) mask, the flat one and a division about 13 µs (called per event)."""
    q = np.flatnonzero(mask)
    cols = mask.shape[1]
    rows = q // cols
    return rows, q - rows * cols


def sub(M, rows, cols):
    """M[np.ix_(rows, cols)] without np.ix_'s overhead (called per neuron and per event)."""
    return M[rows][:, cols]


def solve(A, b):
    """A⁻¹ b for float64 or for object arrays of mpmath numbers."""
    if A.dtype != object:
        return np.linalg.solve(A, b)
    import mpmath

    x = mpmath.lu_solve(mpmath.matrix(A.tolist()), mpmath.matrix(list(b)))
    return np.array([x[i] for i in range(len(b))], dtype=object)


def blocks(G_abs_KK) -> list[list[int]]:
    """Connected components of the kink data under ⟨x_k, x_l⟩ ≠ 0: the complementarity problem splits into them
    (Q_kl = G_kl r_l vanishes between blocks). Orthonormal data: one datum per block."""
    k = G_abs_KK.shape[0]
    if k == 1 or np.all(G_abs_KK != 0):  # one block (general data): no union-find
        return [list(range(k))]
    label = list(range(k))

    def root(q):
        while label[q] != q:
            label[q] = label[label[q]]
            q = label[q]
        return q

    for q, p in zip(*np.nonzero(G_abs_KK), strict=True):
        label[root(q)] = root(p)
    groups: dict[int, list[int]] = {}
    for q in range(k):
        groups.setdefault(root(q), []).append(q)
    return list(groups.values())


def solve_many(A, B):
    if A.dtype != object:
        return np.linalg.solve(A, B)
    return np.stack([solve(A, B[:, q]) for q in range(B.shape[1])], axis=1)


def consistent(b, G, r, sign, slack, floor, assignment):
    """(η, w, ties) for one assignment of the kink data (w = s(b + G (η∘r)), exact in the arrays' arithmetic), or None
    if it violates the complementarity conditions by more than ``slack`` (rounding; the floor for a crossing
    component); ties are the pushes within the ``floor`` (reported, never decisive)."""
    k = len(b)
    S = [q for q in range(k) if assignment[q] == SLIDING]
    F = [q for q in range(k) if assignment[q] != SLIDING]
    eta = np.array([1 if assignment[q] == ACTIVE else 0 for q in range(k)], dtype=b.dtype if b.dtype == object else float)
    if S:
        rhs = -(b[S] + (sub(G, S, F) @ (eta[F] * r[F]) if F else 0))
        try:
            v_S = solve(sub(G, S, S), rhs)
        except (np.linalg.LinAlgError, ZeroDivisionError):
            return None
        eta_S = v_S / r[S]
        band = [min(float(slack[q]) / max(abs(float(G[q, q] * r[q])), 1e-300), 0.5) for q in S]  # η within its slack
        if any(not (-h < float(e) < 1 + h) for e, h in zip(eta_S, band, strict=True)):
            return None
        eta[S] = eta_S
    w = sign * (b + G @ (eta * r))
    ties = []
    for q in F:
        wq = float(w[q])
        wrong = wq > 0 if assignment[q] == INACTIVE else wq < 0
        if wrong and abs(wq) > slack[q]:
            return None
        if wq != 0 and abs(wq) <= floor[q]:
            ties.append((q, wq))
    return eta, w, ties


def complementarity(b, G, r, sign, slack, floor, prefer, rounding=None):
    """The assignment (per kink datum: INACTIVE, ACTIVE or SLIDING) and its ties, by the rule of `numerics.flows.filippov`.

    With v = η∘r the problem is a box problem in v with the symmetric G: w = s(b + G v), v_k between 0 and r_k. An
    *attractive* datum (s r_k < 0: activating it pushes it down) meets exactly the optimality conditions of the
    convex quadratic ½ vᵀGv + bᵀv on its box, so given the others its weights are the unique minimiser
    (scipy.optimize.lsq_linear, bounded-variable least squares on a square root of G). A *repulsive* datum (s r_k ≥ 0)
    cannot slide stably (gradient descent leaves a repelling kink): it is held at 0 or 1, starting from the side it
    prefers, and the most violated one flips until every condition holds. The assignment is then checked in the
    arrays' own arithmetic (`consistent`: mpmath numbers stay exact)."""
    k = len(b)
    found = kept(b, G, r, sign, slack, floor, prefer, rounding)
    if found is not None:
        return found
    bf, Gf, rf = (x if x.dtype == float else np.array([float(v) for v in x.ravel()]).reshape(x.shape) for x in (b, G, r))
    attractive = [q for q in range(k) if sign * rf[q] < 0]
    held = [q for q in range(k) if q not in attractive]
    eta = np.zeros(k)
    for q in held:
        eta[q] = 1.0 if prefer[q] == ACTIVE else 0.0
    assignment = None
    for _ in range(2 * len(held) + 2):
        if attractive:
            eta[attractive] = box_minimiser(Gf, bf, rf, eta, attractive)
            for q in attractive:  # a weight within rounding of 0 or 1 is that side (grazing the edge of sliding)
                band = float((slack if rounding is None else rounding)[q]) / max(abs(Gf[q, q] * rf[q]), 1e-300)
                eta[q] = 1.0 if eta[q] >= 1 - band else 0.0 if eta[q] <= band else eta[q]
        w = sign * (bf + Gf @ (eta * rf))
        wrong = [(abs(w[q]), q) for q in held if (w[q] < -slack[q] if eta[q] == 1 else w[q] > slack[q])]
        assignment = [ACTIVE if e >= 1 else INACTIVE if e <= 0 else SLIDING for e in eta]
        if not wrong:
            break
        _, q = max(wrong)
        eta[q] = 1.0 - eta[q]
    found = consistent(b, G, r, sign, slack, floor, assignment)
    if found is not None:
        return assignment, found[2]
    if k <= MAX_ENUMERATED:
        return enumerated(b, G, r, sign, slack, floor, prefer)
    return assignment, [(q, float(floor[q])) for q in range(k)]


def kept(b, G, r, sign, slack, floor, prefer, rounding):
    """The preferred assignment with no ties when it is, beyond doubt, what `complementarity` finds (else None): it
    changes no component, so the rule takes it whenever it is consistent; it is what the search would reach when the
    attractive data's box minimiser is unique (G over them positive definite) and lies at the preferred point with
    margin (sliding weights inside their band and the box minimiser's 1e-12 snapping, the others pushed to their side,
    not within slack of the other), and no repulsive datum is asked to slide (the search never slides those).
    float64 only (the common case after an event: the sliding neurons of the segment re-decided as they were)."""
    if G.dtype == object or b.dtype == object or r.dtype == object:
        return None
    attractive = sign * r < 0
    states = np.array(prefer)
    if np.any(~attractive & (states == SLIDING)):
        return None
    found = consistent(b, G, r, sign, slack, floor, list(prefer))
    if found is None or found[2]:
        return None
    eta, w, _ = found
    for q in nonzero(attractive):
        if states[q] == SLIDING:
            band = max(float((slack if rounding is None else rounding)[q]) / max(abs(G[q, q] * r[q]), 1e-300), 1e-11)
            if not band < eta[q] < 1 - band:
                return None
        elif (w[q] > 0) if states[q] == INACTIVE else (w[q] < 0):
            return None
    if attractive.sum() > 1:
        GA = sub(G, attractive, attractive)
        ev = np.linalg.eigvalsh(GA)
        if not ev[0] > 1e-20 * max(ev[-1], 0.0):  # (the box minimiser drops roots below 1e-12 of the largest)
            return None
    return list(prefer), []


def box_minimiser(G, b, r, eta, free):
    """η on ``free`` minimising ½ vᵀ G_FF v + (b_F + G_FH v_H)ᵀ v over v_F between 0 and r_F (the others held)."""
    from scipy.optimize import lsq_linear

    held = [q for q in range(len(b)) if q not in free]
    c = b[free] + (sub(G, free, held) @ (eta[held] * r[held]) if held else 0.0)
    GF = sub(G, free, free)
    if len(free) == 1:  # one datum: the minimiser of ½ G v² + c v on [lo, hi] is the clipped −c/G
        q = free[0]
        v = float(np.clip(-c[0] / GF[0, 0], min(0.0, r[q]), max(0.0, r[q]))) if GF[0, 0] > 0 else 0.0
        return np.array([v / r[q]])
    w, U = np.linalg.eigh(GF)  # G_FF = U diag(w) Uᵀ, positive semi-definite
    w = np.maximum(w, 0.0)
    root = np.sqrt(w)
    keep = root > root.max(initial=0.0) * 1e-12
    A = (U[:, keep] * root[keep]).T  # ½‖A v + e‖² = ½ vᵀ G_FF v + cᵀ v + const with Aᵀ e = c
    e = (U[:, keep].T @ c) / root[keep]
    lo, hi = np.minimum(0.0, r[free]), np.maximum(0.0, r[free])
    v = lsq_linear(A, -e, bounds=(lo, hi), method="bvls", tol=1e-14).x if keep.any() else np.where(c > 0, lo, hi)
    eta_F = v / r[free]
    eta_F[np.abs(v - lo) <= 1e-12 * np.abs(r[free])] = np.where(r[free] > 0, 0.0, 1.0)[np.abs(v - lo) <= 1e-12 * np.abs(r[free])]
    eta_F[np.abs(v - hi) <= 1e-12 * np.abs(r[free])] = np.where(r[free] > 0, 1.0, 0.0)[np.abs(v - hi) <= 1e-12 * np.abs(r[free])]
    return eta_F


def enumerated(b, G, r, sign, slack, floor, prefer):
    """All 3^k assignments (small blocks only), the hysteresis rule of `numerics.flows.filippov` among the consistent ones."""
    best = None
    for assignment in itertools.product((INACTIVE, ACTIVE, SLIDING), repeat=len(b)):
        found = consistent(b, G, r, sign, slack, floor, list(assignment))
        if found is None:
            continue
        key = (sum(a != p for a, p in zip(assignment, prefer, strict=True)), len(found[2]),
               assignment.count(SLIDING), assignment.count(ACTIVE))
        if best is None or key < best[0]:
            best = (key, list(assignment), found[2])
    if best is None:
        return [INACTIVE] * len(b), [(q, float(floor[q])) for q in range(len(b))]
    return best[1], best[2]
