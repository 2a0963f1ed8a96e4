"""The Filippov layer: which components on a kink are active, inactive or sliding, and the sliding velocity.

On a kink ⟨w_j, x_k⟩ = 0 the ReLU's derivative is the interval [0, 1] (Filippov 1988, ch. 2; Clarke's
subdifferential). The field of neuron j is *affine* in the activation weights η_k ∈ [0, 1] of its kink data K:

    dw_j/dt = c a_j/n (Σ_{i∈A} r_i x_i + Σ_{k∈K} η_k r_k x_k),   r independent of η (σ(0) = 0),

so the convex hull of the 2^|K| one-sided fields is exactly {f(η): η ∈ [0, 1]^K}, and a kink pre-activation
moves at rate dz_k/dt = (c|a_j|/n)·w_k(η) with

    w(η) = s_j (b + Q η),   b_k = Σ_{i∈A} G_ki r_i,   Q_kl = G_kl r_l,   s_j = sign(a_j),   G = X Xᵀ.

A Filippov solution takes, per neuron, η solving the box-constrained complementarity problem (a mixed LCP):
η_k = 0 ⇒ w_k ≤ 0 (inactive: stays at or leaves below the kink), η_k = 1 ⇒ w_k ≥ 0 (active), 0 < η_k < 1 ⇒
w_k = 0 (sliding: held on the kink, codimension |S| ≥ 1 allowed). Sliding data S carry effective residuals
η_S∘r_S = −G_SS⁻¹ G_SA' r_A' (A' = the active data), linear in r: the field stays polynomial in the state, and
the weights are watched for exits (η reaching 0: leave_down, reaching 1: leave_up).

Uniqueness: when every sliding residual opposes its neuron's sign (s_j r_k < 0), −s_j Q = G_KK·diag(−s_j r_K)
is a P-matrix (its principal minors are det G_II · Π(−s_j r_i) > 0) and the solution is unique. Otherwise several
solutions can exist (Guglielmi & Hairer, SIAM J. Appl. Dyn. Syst. 14 (2015), on the non-uniqueness of
codimension-2 sliding). The rule here, *hysteresis*: among all solutions take the one that changes the fewest
components from the side they came from (active stays active, inactive stays inactive, sliding stays
sliding; at the start every component counts as inactive, σ'(0) = 0), then one that needs no tie (a push within
the floor on the wrong side, below), then the one with the fewest sliding components, then the one with fewest
active ones. A sliding weight may overshoot [0, 1] by its floor (|η_k − clip(η_k)| ≤ floor_k / |G_kk r_k|): at the
edge of the sliding region (η → 0 or 1) the component stays sliding instead of chattering between sides, and the
loop's exit watch needs twice that to leave (a hysteresis band). Gradient descent with a small step follows the
side it is on, which is what this rule picks (tests compare with GD at shrinking steps).

Precision (the floor of a push; the engine may raise it to its integration error, see `decide`): w_k is a sum of
n + m rounded products; |w_k| ≤ 4(n + m)·ε·Σ_l |G_kl|·max(‖r‖_∞, ‖y‖_∞) (Higham's
γ_N bound, doubled for the residuals' own rounding) is a *tie*. An exact 0 (orthonormal data in their own
basis) is decided by the rule above without comment; a non-zero tie is decided the same way but reported in
`Pattern.ambiguous`, and the engine's status says the run depends on a quantity below its precision.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .complementarity import ACTIVE, INACTIVE, SLIDING, blocks, complementarity, nonzero, solve_many, sub


@dataclass
class Pattern:
    """Activation pattern of a segment: active (η = 1), sliding (0 < η < 1, weights from `effective_residuals`)."""

    act: np.ndarray  # (n, m) bool
    slide: np.ndarray  # (n, m) bool
    projections: dict = field(default_factory=dict)  # j -> (S, A', P) with η_S∘r_S = P r_A'
    ambiguous: list = field(default_factory=list)  # (neuron, datum, |w|, tie tolerance)

    @property
    def act_float(self) -> np.ndarray:
        """act as 0.0/1.0 (computed once: the float64 field multiplies by it at every evaluation)."""
        if getattr(self, "_act_float", None) is None or self._act_float.shape != self.act.shape:
            self._act_float = self.act.astype(float)
        return self._act_float

    @classmethod
    def of_signs(cls, Z) -> "Pattern":
        act = np.array(Z > 0, dtype=bool)
        return cls(act, np.zeros_like(act))

    def effective_residuals(self, r):
        """V (n, m): V_ij = r_i on active data, η_ij r_i on sliding data, 0 elsewhere."""
        V = (self.act_float if r.dtype != object else self.act) * r[:, None]
        if self.projections:
            if V.dtype != object and r.dtype != object:  # float64: one product and one scatter for all sliding neurons
                index, P = self._scatter()
                V.ravel()[index] = P @ r
                return V
            V = V.astype(np.result_type(V, r)) if V.dtype != object else V
            for j, (S, A, P) in self.projections.items():
                V[S, j] = P @ r[A]
        return V

    def _scatter(self):
        """(flat indices of the sliding components in V, the matrix mapping r to their η∘r): the projections stacked
        (zero columns outside each A'), built once per pattern."""
        key = (id(self.projections), len(self.projections))
        cached = getattr(self, "_scatter_cache", None)
        if cached is None or cached[0] != key:
            m = self.act.shape[1]
            rows = [(S * m + j, A, np.asarray(P, dtype=float)) for j, (S, A, P) in self.projections.items()]
            index = np.concatenate([q[0] for q in rows])
            P = np.zeros((len(index), self.act.shape[0]))
            at = 0
            for _, A, Pj in rows:
                P[at:at + Pj.shape[0], A] = Pj
                at += Pj.shape[0]
            cached = self._scatter_cache = (key, (index, P))
        return cached[1]

    def weights(self, r):
        """η (n, m) in [0, 1] (1 active, 0 inactive) — for reports; the field uses `effective_residuals`."""
        eta = self.act.astype(float)
        for j, (S, A, P) in self.projections.items():
            eta[S, j] = np.array([float(v) for v in (P @ r[A])]) / np.array([float(v) for v in r[S]])
        return eta


def decide(Z, kink, r, s, G, previous: Pattern | None, *, eps: float, label_scale: float, crossed=None,
           r_error=None, cache: dict | None = None) -> Pattern:
    """The pattern after an event (module docstring). Z (n, m) pre-activations with the kink components exactly 0;
    ``kink`` (n, m) bool; r (n,) residuals; s (m,) signs of a_j (0 if a_j = 0); G (n, n). ``crossed`` maps the
    component (i, j) whose crossing ended the step to the side it crossed into: the side it prefers (it did move
    there, even when its push is within rounding). ``r_error`` (n,): the integrator's error on r, which raises the
    tie floor of a push to Σ_l |G_kl| r_error_l where that is above rounding. ``cache``: a dict kept by the caller
    for one G (the sliding projections −G_SS⁻¹ G_SA' recur from event to event)."""
    n, m = Z.shape
    # components off the kink keep their state: a sign change without an event is numerical (an unwatched component of
    # an orthogonal datum, decaying below the integrator's tolerance, may flip), never a decision
    act = (np.array(Z > 0, dtype=bool) if previous is None else previous.act.copy()) & ~kink
    slide = np.zeros((n, m), dtype=bool)
    pattern = Pattern(act, slide)
    if not kink.any():
        return pattern
    G_abs, sums = cache.get("G_abs", (None, None)) if cache is not None else (None, None)
    if G_abs is None:  # (n² numbers: kept by the caller for its run's G)
        G_abs = np.abs(np.array(G, dtype=float))
        sums = G_abs.sum(axis=-1)
        if cache is not None:
            cache["G_abs"] = G_abs, sums
    # per datum once (the same numbers `tie_tolerance` and the error floor give row by row)
    rounding_all = tie_tolerance(None, r, eps=eps, label_scale=label_scale, n=n, m=m, sums=sums)
    error_all = None if r_error is None else G_abs @ (r_error if isinstance(r_error, np.ndarray) and r_error.dtype == float
                                                      else np.array([float(v) for v in r_error]))
    crossed = crossed or {}
    kept = _still_sliding(kink, act, r, s, G, rounding_all, previous, crossed, cache)
    slide[:, kept] = kink[:, kept]
    for j in nonzero(kink.any(axis=0) & ~kept):
        K = nonzero(kink[:, j])
        sign = int(np.sign(float(s[j])))
        if sign == 0:
            continue  # a_j = 0: w_j does not move; its kink data stay inactive
        A = nonzero(act[:, j])
        b = sub(G, K, A) @ r[A] if len(A) else np.zeros(len(K), dtype=G.dtype)
        rounding = rounding_all[K]
        floor = rounding if error_all is None else np.maximum(rounding, error_all[K])
        was_crossed = np.array([(int(k), int(j)) in crossed for k in K])
        slack = np.where(was_crossed, floor, rounding)  # the crossing component may keep the side it crossed into
        prefer = [(crossed or {}).get((int(k), int(j)), _preference(previous, k, j)) for k in K]
        for block in blocks(sub(G_abs, K, K)):  # data orthogonal to each other decide independently
            Kb = K[block]
            assignment, ties = complementarity(b[block], sub(G, Kb, Kb), r[Kb], sign, slack[block], floor[block],
                                                [prefer[q] for q in block], rounding[block])
            for q, state in zip(block, assignment, strict=True):
                act[K[q], j] = state == ACTIVE
                slide[K[q], j] = state == SLIDING
            for q, w in ties:
                pattern.ambiguous.append((int(j), int(K[block[q]]), float(abs(w)), float(floor[block[q]])))
    for j in nonzero(slide.any(axis=0)):  # (in the order of j: `Pattern._scatter` stacks them so)
        if kept[j]:  # the same sliding and active data as before: the same projection
            pattern.projections[int(j)] = previous.projections[int(j)]
            continue
        S, A = nonzero(slide[:, j]), nonzero(act[:, j])
        key = (S.tobytes(), A.tobytes()) if cache is not None and G.dtype != object else None
        P = cache.get(key) if key is not None else None
        if P is None:
            P = -solve_many(sub(G, S, S), sub(G, S, A)) if len(A) else np.zeros((len(S), 0), dtype=G.dtype)
            if key is not None:
                if len(cache) > 4096:
                    cache.clear()
                    cache["G_abs"] = G_abs, sums
                cache[key] = P
        pattern.projections[int(j)] = (S, A, P)
    return pattern


def _still_sliding(kink, act, r, s, G, rounding_all, previous, crossed, cache) -> np.ndarray:
    """(m,) bool: the neurons whose kink data K are exactly the data they slid on, with the same active data, none
    crossed, and that still slide on all of them beyond doubt — the case `kept` accepts with every datum sliding (no
    push to check, no tie): every s_j r_k < 0, G_KK positive definite (kept in the run's ``cache`` per K) and each
    η_k = (P r_A)_k / r_k inside its band, with the previous pattern's projections P = −G_KK⁻¹ G_KA (`decide`). The
    common event of general data is a neuron re-decided, as every sliding one is, where nothing changed: checked for
    all neurons at once (one product for every η, `Pattern.effective_residuals`), not solved again one by one."""
    keep = np.zeros(kink.shape[1], dtype=bool)
    if cache is None or previous is None or G.dtype == object or r.dtype == object or not previous.projections:
        return keep
    sign = np.sign(np.asarray(s, dtype=float))
    cand = kink.any(axis=0) & (kink == previous.slide).all(axis=0) & act.any(axis=0) & (sign != 0)
    cand &= ~(kink & (sign[None, :] * r[:, None] >= 0)).any(axis=0)  # attractive only (a repulsive datum never slides)
    for _, j in crossed:
        cand[j] = False
    if not cand.any():
        return keep
    with np.errstate(divide="ignore", invalid="ignore"):  # (r_k ≠ 0 on every candidate's K)
        eta = previous.effective_residuals(r) / r[:, None]
    diag = np.diagonal(G)
    band = np.maximum(rounding_all / np.maximum(np.abs(diag * r), 1e-300), 1e-11)[:, None]  # as `kept`
    cand &= ((band < eta) & (eta < 1 - band) | ~kink).all(axis=0)
    for j in nonzero(cand):
        K = nonzero(kink[:, j])
        pd = cache.get(("pd", K.tobytes()))
        if pd is None:
            ev = np.linalg.eigvalsh(sub(G, K, K)) if len(K) > 1 else np.array([diag[K[0]]])
            pd = bool(ev[0] > 1e-20 * max(ev[-1], 0.0))  # as `kept`
            if len(cache) <= 4096:
                cache[("pd", K.tobytes())] = pd
        keep[j] = pd
    return keep


def tie_tolerance(G_abs_rows, r, *, eps: float, label_scale: float, n: int, m: int, sums=None):
    """Rounding floor of the pushes w_k = Σ_l G_kl V_l (module docstring): 4(n + m) ε Σ_l |G_kl| max(‖r‖_∞, ‖y‖_∞).
    ``sums``: the row sums Σ_l |G_kl| when the caller has them (then G_abs_rows is not read)."""
    if isinstance(r, np.ndarray) and r.dtype != object:  # float64: the same maximum without a Python pass
        R = max(float(np.abs(r).max(initial=0.0)), label_scale)
    else:
        R = max(max((abs(float(v)) for v in r), default=0.0), label_scale)
    return 4 * (n + m) * eps * (G_abs_rows.sum(axis=-1) if sums is None else sums) * R


def crossing_push(G, V, s, i: int, j: int):
    """s_j Σ_l G_il V_lj: the push (up to c|a_j|/n) on ⟨w_j, x_i⟩ under the effective residuals V."""
    return float(s[j]) * float(G[i] @ V[:, j])


def _preference(previous: Pattern | None, k: int, j: int) -> int:
    if previous is None:
        return INACTIVE
    if previous.slide[k, j]:
        return SLIDING
    return ACTIVE if previous.act[k, j] else INACTIVE
