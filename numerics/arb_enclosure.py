"""Validated enclosures of C's gradient flow with python-flint `arb` (interval Taylor method with a Picard
a-priori enclosure), for orthonormal instances, through deactivation events.

What is certified (every statement is a mathematical guarantee, given correct arb arithmetic):

* **The state.** In the data basis (x_i = e_i after rotation, C Assumption 1) the state is
  (a_j, Z_ij = ⟨w_j, x_i⟩); the component of w_j orthogonal to span{x_i} is frozen. For each step
  [τ_0, τ_0 + h] the arb box B satisfies [z_0] + [0, h]·F(B) ⊆ B (F the field for the current activation
  pattern), so by Picard–Lindelöf every solution starting in [z_0] stays in B over the step. The state at
  τ_0 + s is enclosed by Σ_{k≤K} z_k([z_0]) s^k + z_{K+1}(B) s^{K+1} (Lagrange remainder: the (K+1)-th Taylor
  coefficient at some point of B). Coefficients come from the recurrence of `numerics.taylor` (the Taylor kernel)
  run in arb.
* **The activation pattern.** Between events, every active component has inf Z_ij > 0 on every box B, and
  every inactive one is frozen (on orthonormal data dZ_ij ≡ 0 when inactive, σ'(0) = 0; so only
  deactivations occur). **Events**: when an active component's box touches 0, the step's enclosure (valid
  for the old pattern, which is the true dynamics until the event) certifies Z_ij > 0 on [τ_0, τ_lo] and
  Z_ij(τ_hi) < 0, refined by bisection to the working precision: the event time lies in [τ_lo, τ_hi]
  (`Enclosure.events`). The state at the event lies in the old enclosure over [τ_lo, τ_hi] with Z_ij = 0
  exactly; a Picard box of the new pattern over a time τ_hi − τ_lo from that set contains the state at τ_hi,
  and the integration restarts there. On [τ_lo, τ_hi] the enclosure is the hull of both. Two components
  whose event intervals overlap are not separated: `HypothesisViolation`.
* **The loss** L(τ) and the **balancedness** q_j(τ) = a_j² − ‖w_j‖² at every step end, as intervals; the
  conservation law (C Prop. 1) then says q_j(0) ∈ q_j(τ)'s enclosure, which is checked.
* **A threshold-crossing time**: the first τ with a_j(τ)² ≥ c (e.g. c = ‖y_S‖/2, the half-fit rule of spec
  C §2.6 with the limit value) lies in a certified interval [τ_lo, τ_hi]: a_j² < c is proved on [0, τ_lo] by
  enclosures over sub-intervals, and a_j(τ_hi)² ≥ c is proved at τ_hi.

The initial data are enclosures too: λ given as a decimal string ("1e-3" is not a binary number),
ln(1/λ) and the balanced a_j(0) = s_j λ‖ḡ_j‖ are arb balls. Not certified: the float64 inputs themselves are taken as exact; a pre-activation
that is exactly 0 at τ = 0 or two events that cannot be separated stop the enclosure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from flint import arb

from .errors import HypothesisViolation, RelucheckInputError
from .instances import Instance
from .network import PAPER_C
from .scale import InitScale
from .mp_arrays import check_precision, flint_precision, to_arb
from .taylor import TaylorProblem

LAST_STEP_MARGIN = 1e-9  # the last step's box covers [0, (1 + this)·(end − τ)]: more than the float rounding of end − τ
EVENTS = "separated activation events along the enclosed trajectory (arb_enclosure certifies one at a time)"


def _hull(x: arb, y: arb) -> arb:
    return x.union(y)


def _interval(lo, hi) -> arb:
    """The arb ball [lo, hi] (lo ≤ hi exact or arb)."""
    return arb(lo).union(arb(hi))


@dataclass
class EnclosedStep:
    tau0: arb  # exact
    h: arb  # exact
    A: np.ndarray  # (K+2, m) arb: coefficients of a, the last one the remainder bound z_{K+1}(B)
    Zs: np.ndarray  # (K+2, n, m)
    box_a: np.ndarray  # (m,) a priori enclosure over the step
    box_Z: np.ndarray  # (n, m)

    def a_at(self, s):
        """Enclosure of a(τ_0 + s) for s ∈ [0, h] (s an arb ball, possibly an interval)."""
        return _poly(self.A, s)

    def Z_at(self, s):
        return _poly(self.Zs, s)


def _poly(C, s):
    acc = C[-1]
    for c in C[-2::-1]:
        acc = acc * s + c
    return acc


@dataclass
class Enclosure:
    """Validated enclosure of one run; ``losses``/``balance`` are enclosures at the step ends ``taus``."""

    steps: list[EnclosedStep]
    taus: list
    a: list
    Z: list
    losses: list
    balance: list  # (m,) arb per step end: a_j² − ‖w_j‖²
    digits: int
    order: int
    events: list = None  # (τ_lo, τ_hi, neuron j, datum i): a deactivation certified inside [τ_lo, τ_hi]

    def state_at(self, tau):
        """Enclosure (a, Z) at an exact τ (float, mpf or arb point) inside the run."""
        t = arb(tau) if not isinstance(tau, arb) else tau
        for st in self.steps:
            if st.tau0 <= t and t <= st.tau0 + st.h:
                return st.a_at(t - st.tau0), st.Z_at(t - st.tau0)
        raise RelucheckInputError(f"τ = {tau} is outside the enclosed run [0, {self.taus[-1]}]")


def _field(prob: TaylorProblem, a, Z, act):
    r = prob.y_arb - prob.scale_arb * ((Z * act) @ a)
    da = prob.cT_arb * ((Z * act) * r[:, None]).sum(axis=0)
    dZ = prob.cT_arb * (act * np.outer(r, a))
    return da, dZ


def _inflate(x: arb) -> arb:
    """x widened by twice its radius plus 1e-3 of its midpoint (epsilon-inflation of the Picard iteration)."""
    return x + arb(0, 2 * float(x.rad()) + 1e-3 * abs(float(x.mid())))


def _picard_box(prob, a0, Z0, act, h, tries: int = 12):
    """A box B with [z_0] + [0, h]·F(B) ⊆ B (then every solution from [z_0] stays in B on [0, h]), or None."""
    span = _interval(0, h)
    da, dZ = _field(prob, a0, Z0, act)
    Ba, BZ = a0 + span * da, Z0 + span * dZ
    inflate = np.frompyfunc(_inflate, 1, 1)
    for _ in range(tries):
        Ba, BZ = inflate(Ba), inflate(BZ)
        da, dZ = _field(prob, Ba, BZ, act)
        Na, NZ = a0 + span * da, Z0 + span * dZ
        pairs = list(zip(Ba, Na, strict=True)) + list(zip(BZ.ravel(), NZ.ravel(), strict=True))
        if all(B.contains(N) for B, N in pairs):
            return Na, NZ
        Ba = np.array([_hull(x, y) for x, y in zip(Ba, Na, strict=False)], dtype=object)
        BZ = np.array([[_hull(x, y) for x, y in zip(r1, r2, strict=False)] for r1, r2 in zip(BZ, NZ, strict=False)], dtype=object)
    return None


def _pattern_holds(BZ, act) -> bool:
    return all(BZ[i, j] > 0 for i, j in zip(*np.nonzero(act), strict=False))


def _enclosed_step(prob, tau, h, a, Z, act, box, order) -> EnclosedStep:
    """The step's Taylor enclosure: coefficients 0..K at [z_0], the remainder coefficient K+1 over the box."""
    Ba, BZ = box
    series, remainder = prob.coefficients(a, Z, act, order), prob.coefficients(Ba, BZ, act, order + 1)
    return EnclosedStep(tau, arb(h), np.concatenate([series.A, remainder.A[order + 1:]]),
                        np.concatenate([series.Zs, remainder.Zs[order + 1:]]), Ba, BZ)


def _locate_event(step: EnclosedStep, act, pieces: int = 16, refinements: int = 400):
    """((i, j), s_lo, s_hi) with Z_ij > 0 certified on [0, s_lo] and Z_ij(s_hi) < 0 (times from the step start,
    exact arb points), for the first active component to cross 0 in the step; None if no crossing is certified
    or if another component may cross before s_hi."""
    touching = [(int(i), int(j)) for i, j in zip(*np.nonzero(act), strict=False) if not step.box_Z[i, j] > 0]
    found = []
    for i, j in touching:
        lo, hi = arb(0), None
        width = step.h / pieces
        for q in range(1, pieces + 1):  # coarse scan: the first piece end where Z_ij < 0 is certified
            point = width * q
            if step.Z_at(point)[i, j] < 0:
                hi = point
                break
            if step.Z_at(_interval(lo.mid(), point.mid()))[i, j] > 0:
                lo = point
        if hi is None:
            return None  # touching but not certified to cross within the step: the caller shortens the step
        for _ in range(refinements):  # bisection while the enclosures still decide
            mid = arb(((lo + hi) / 2).mid())
            if step.Z_at(mid)[i, j] < 0:
                hi = mid
            elif step.Z_at(_interval(lo.mid(), mid.mid()))[i, j] > 0:
                lo = mid
            else:
                break
        found.append(((i, j), lo, hi))
    if not found:
        return None
    found.sort(key=lambda f: float(f[2].mid()))
    first = found[0]
    if any(not other[1] > first[2] for other in found[1:]):
        raise HypothesisViolation(EVENTS, f"events of components {[f[0] for f in found]} overlap near τ = "
                                          f"{float((step.tau0 + first[1]).mid())}")
    return first


def enclose_instance(instance: Instance, lam, tau_end: float, *, digits: int = 40, order: int = 20,
                     max_steps: int = 20_000) -> Enclosure:
    """Validated enclosure of C's flow (Assumption 3 init, accelerated time) on [0, tau_end] (module docstring)."""
    instance.require_orthonormal()
    check_precision(digits)
    scale = InitScale.of(lam)
    if not tau_end > 0:
        raise RelucheckInputError(f"tau_end must be > 0, got {tau_end}")
    n, m = instance.n, instance.m
    with flint_precision(digits):
        lam_b = arb(scale.text)
        prob = TaylorProblem(np.eye(n), instance.labels, PAPER_C, 1)
        prob.cT_arb = arb(1) / n * (-lam_b.log())  # c·T with T = ln(1/λ) as a certified ball
        X, G = to_arb(_as_mpf(instance.inputs)), to_arb(_as_mpf(instance.directions))
        C = X @ G.T  # ⟨x_i, ḡ_j⟩
        perp2 = np.array([lam_b**2 * ((G[j] * G[j]).sum() - (C[:, j] * C[:, j]).sum()) for j in range(m)], dtype=object)
        # C Assumption 3 balanced exactly: a_j(0) = s_j λ‖ḡ_j‖ (the float64 directions are unit only to rounding; the
        # flow from a_j(0) = s_j λ is another, which a neuron shrinking on a saddle separates: engine mpmath holds
        # the same balance, `engines.taylor.TaylorStepper._hold_balance`)
        a = np.array([lam_b * int(s) * (G[j] * G[j]).sum().sqrt() for j, s in enumerate(instance.signs)], dtype=object)
        Z = lam_b * C
        act = np.array([[bool(Z[i, j] > 0) for j in range(m)] for i in range(n)])
        undecided = [(i, j) for i in range(n) for j in range(m) if not act[i, j] and not Z[i, j] <= 0]
        if undecided:
            raise HypothesisViolation(EVENTS, f"pre-activations {undecided} are not certified non-zero at τ = 0")

        def summaries(a, Z):
            r = prob.y_arb - (Z * act) @ a
            loss = (r * r).sum() / (2 * n)
            bal = np.array([a[j] ** 2 - (Z[:, j] * Z[:, j]).sum() - perp2[j] for j in range(m)], dtype=object)
            return loss, bal

        tau = arb(0)
        loss, bal = summaries(a, Z)
        enc = Enclosure([], [tau], [a], [Z], [loss], [bal], digits, order, [])
        tol = 10.0 ** -digits
        end = arb(tau_end)
        while tau < end:
            if len(enc.steps) >= max_steps:
                raise RelucheckInputError(f"enclosure needs more than {max_steps} steps; raise max_steps")
            mid_a = np.array([x.mid() for x in a], dtype=object)
            mid_Z = np.array([[x.mid() for x in row] for row in Z], dtype=object)
            series = prob.coefficients(mid_a, mid_Z, act, order)
            A, Zs = series.A, series.Zs
            remaining = float((end - tau).mid())
            # h a float: exact in arb. After an event τ is an arb ball (τ_lo + the event's bracket), so the float
            # remaining time is rounded: the step that reaches the end covers a little beyond it (LAST_STEP_MARGIN)
            # and is evaluated at end − τ itself, so the last state is enclosed at τ = tau_end exactly (it ended
            # 7e-19 past it before, and a_j there lay 2.5e-19 off the flow's)
            last = _step(A, Zs, order, tol) >= remaining
            h = remaining * (1 + LAST_STEP_MARGIN) if last else _step(A, Zs, order, tol)
            event = None
            for _ in range(60):
                box = _picard_box(prob, a, Z, act, h)
                if box is not None and _pattern_holds(box[1], act):
                    break
                if box is not None:
                    step = _enclosed_step(prob, tau, h, a, Z, act, box, order)
                    event = _locate_event(step, act)
                    if event is not None:
                        break
                h, last = h / 2, False
            else:
                raise RelucheckInputError(f"no a-priori enclosure found at τ = {float(tau.mid())} (radii too large)")
            if event is None:
                step = _enclosed_step(prob, tau, h, a, Z, act, box, order)
                enc.steps.append(step)
                s = end - tau if last else arb(h)
                a, Z = step.a_at(s), step.Z_at(s)
                tau = end if last else tau + arb(h)
            else:
                (i, j), lo, hi = event
                new_act = act.copy()
                new_act[i, j] = False
                span = _interval(lo, hi)
                a_e, Z_e = step.a_at(span), step.Z_at(span)  # the state at the event: old enclosure, Z_ij = 0
                Z_e = Z_e.copy()
                Z_e[i, j] = arb(0)
                after = _picard_box(prob, a_e, Z_e, new_act, float((hi - lo).mid()) * (1 + 1e-6))
                if after is None or not _pattern_holds(after[1], new_act):
                    raise HypothesisViolation(EVENTS, f"no enclosure of the new pattern across the event at τ ≈ "
                                                      f"{float((tau + lo).mid())}")
                if lo > 0:
                    enc.steps.append(EnclosedStep(tau, lo, step.A, step.Zs, step.box_a, step.box_Z))
                hull_a = np.array([_hull(x, y) for x, y in zip(a_e, after[0], strict=True)], dtype=object)
                hull_Z = np.array([[_hull(x, y) for x, y in zip(r1, r2, strict=True)]
                                   for r1, r2 in zip(step.Z_at(span), after[1], strict=True)], dtype=object)
                enc.steps.append(EnclosedStep(tau + lo, hi - lo, hull_a[None], hull_Z[None], hull_a, hull_Z))
                enc.events.append((tau + lo, tau + hi, j, i))
                a, Z, act = after[0], after[1], new_act
                tau = tau + hi
            loss, bal = summaries(a, Z)
            enc.taus.append(tau)
            enc.a.append(a)
            enc.Z.append(Z)
            enc.losses.append(loss)
            enc.balance.append(bal)
        return enc


def _as_mpf(M):
    import mpmath

    return np.array([[mpmath.mpf(float(v)) for v in row] for row in np.asarray(M, dtype=float)], dtype=object)


def _step(A, Zs, K, tol) -> float:
    """Jorba–Zou step on midpoints (as in `numerics.taylor`), relative to each neuron's size; a float."""
    best = math.inf
    m = A.shape[1]
    for j in range(m):
        size = float(abs(A[0, j]).mid()) + math.sqrt(sum(float(z.mid()) ** 2 for z in Zs[0, :, j]))
        if size == 0:
            continue
        for k in (K - 1, K):
            norm = max([abs(float(A[k, j].mid()))] + [abs(float(z.mid())) for z in Zs[k, :, j]]) / size
            if norm > 0:
                best = min(best, (tol / norm) ** (1.0 / k))
    return 0.5 * best


def _first_uncertain(st: EnclosedStep, neuron, level, lo, hi, pieces, depth):
    """Leftmost sub-interval of [lo, hi] (width (hi−lo)/pieces^depth) not certified below ``level``, or None."""
    width = (hi - lo) / pieces
    for q in range(pieces):
        left, right = (lo + q * width).mid(), (lo + (q + 1) * width).mid()
        if st.a_at(_interval(left, right))[neuron] ** 2 < level:
            continue
        if depth == 1:
            return arb(left), arb(right)
        inner = _first_uncertain(st, neuron, level, arb(left), arb(right), pieces, depth - 1)
        if inner is not None:
            return inner
    return None


def certified_crossing(enc: Enclosure, neuron: int, level, *, pieces: int = 32, depth: int = 4):
    """[τ_lo, τ_hi] (arb balls with exact ends) containing the first τ with a_j(τ)² ≥ ``level``, or None.

    a_j² < level is proved on [0, τ_lo] (step boxes, then enclosures over sub-intervals of width
    h/pieces^depth), and a_j(τ_hi)² ≥ level is proved at the point τ_hi ≤ τ_lo + 2h/pieces^depth when the
    crossing is transversal.
    """
    with flint_precision(enc.digits):
        level = arb(level)
        for st in enc.steps:
            if st.box_a[neuron] ** 2 < level:
                continue  # the whole step is certified below the level
            piece = _first_uncertain(st, neuron, level, arb(0), st.h, pieces, depth)
            if piece is None:
                continue
            lo, right = piece
            width = right - lo
            probe = right
            while probe <= st.h:
                if st.a_at(probe)[neuron] ** 2 >= level:
                    return st.tau0 + lo, st.tau0 + probe
                probe = probe + width
            return None
    return None
