"""Validated enclosures of C's gradient flow with python-flint `arb` (interval Taylor method with a Picard
a-priori enclosure), for orthonormal instances without activation events.

What is certified (every statement is a mathematical guarantee, given correct arb arithmetic):

* **The state.** In the data basis (x_i = e_i after rotation, C Assumption 1) the state is
  (a_j, Z_ij = ⟨w_j, x_i⟩); the component of w_j orthogonal to span{x_i} is frozen. For each step
  [τ_0, τ_0 + h] the arb box B satisfies [z_0] + [0, h]·F(B) ⊆ B (F the field for the current activation
  pattern), so by Picard–Lindelöf every solution starting in [z_0] stays in B over the step. The state at
  τ_0 + s is enclosed by Σ_{k≤K} z_k([z_0]) s^k + z_{K+1}(B) s^{K+1} (Lagrange remainder: the (K+1)-th Taylor
  coefficient at some point of B). Coefficients come from the recurrence of `numerics.taylor` run in arb.
* **The activation pattern.** Certified constant over the run: every active component has inf Z_ij > 0 on
  every box B, and every inactive one is frozen (on orthonormal data dZ_ij ≡ 0 when inactive, σ'(0) = 0).
  If an active component's box touches 0 (an event), `enclose_flow` stops with `HypothesisViolation`: events
  are not handled by this validated integrator.
* **The loss** L(τ) and the **balancedness** q_j(τ) = a_j² − ‖w_j‖² at every step end, as intervals; the
  conservation law (C Prop. 1) then says q_j(0) ∈ q_j(τ)'s enclosure, which is checked.
* **A threshold-crossing time**: the first τ with a_j(τ)² ≥ c (e.g. c = ‖y_S‖/2, the half-fit rule of spec
  C §2.6 with the limit value) lies in a certified interval [τ_lo, τ_hi]: a_j² < c is proved on [0, τ_lo] by
  enclosures over sub-intervals, and a_j(τ_hi)² ≥ c is proved at τ_hi.

The initial data are enclosures too: λ given as a decimal string ("1e-3" is not a binary number) and
ln(1/λ) are arb balls. Not certified: anything after an event; the float64 inputs themselves are taken
as exact.
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
from .taylor import _Problem, check_precision, flint_precision, to_arb

EVENTS = "no activation event along the enclosed trajectory (arb_enclosure handles fixed patterns only)"


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

    def state_at(self, tau):
        """Enclosure (a, Z) at an exact τ (float, mpf or arb point) inside the run."""
        t = arb(tau) if not isinstance(tau, arb) else tau
        for st in self.steps:
            if st.tau0 <= t and t <= st.tau0 + st.h:
                return st.a_at(t - st.tau0), st.Z_at(t - st.tau0)
        raise RelucheckInputError(f"τ = {tau} is outside the enclosed run [0, {self.taus[-1]}]")


def _field(prob: _Problem, a, Z, act):
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
        prob = _Problem(np.eye(n), instance.labels, PAPER_C, 1)
        prob.cT_arb = arb(1) / n * (-lam_b.log())  # c·T with T = ln(1/λ) as a certified ball
        X, G = to_arb(_as_mpf(instance.inputs)), to_arb(_as_mpf(instance.directions))
        C = X @ G.T  # ⟨x_i, ḡ_j⟩
        perp2 = np.array([lam_b**2 * ((G[j] * G[j]).sum() - (C[:, j] * C[:, j]).sum()) for j in range(m)], dtype=object)
        a = np.array([lam_b * int(s) for s in instance.signs], dtype=object)
        Z = lam_b * C
        act = np.array([[bool(Z[i, j] > 0) for j in range(m)] for i in range(n)])
        undecided = [(i, j) for i in range(n) for j in range(m) if not act[i, j] and not Z[i, j] <= 0]
        if undecided:
            raise HypothesisViolation(EVENTS, f"pre-activations {undecided} are not certified non-zero at τ = 0")
        wrong = [(i, j) for i, j in zip(*np.nonzero(act), strict=False) if instance.signs[j] * instance.labels[i] < 0]
        if wrong:
            raise HypothesisViolation(EVENTS, f"wrong-sign active components {wrong} will be deactivated (events)")

        def summaries(a, Z):
            r = prob.y_arb - (Z * act) @ a
            loss = (r * r).sum() / (2 * n)
            bal = np.array([a[j] ** 2 - (Z[:, j] * Z[:, j]).sum() - perp2[j] for j in range(m)], dtype=object)
            return loss, bal

        tau = arb(0)
        loss, bal = summaries(a, Z)
        enc = Enclosure([], [tau], [a], [Z], [loss], [bal], digits, order)
        tol = 10.0 ** -digits
        end = arb(tau_end)
        while tau < end:
            if len(enc.steps) >= max_steps:
                raise RelucheckInputError(f"enclosure needs more than {max_steps} steps; raise max_steps")
            mid_a = np.array([x.mid() for x in a], dtype=object)
            mid_Z = np.array([[x.mid() for x in row] for row in Z], dtype=object)
            A, Zs, _ = prob.coefficients(mid_a, mid_Z, act, order)
            remaining = float((end - tau).mid())
            h = min(_step(A, Zs, order, tol), remaining)  # a float: exact in arb, so every τ stays exact
            for _ in range(60):
                box = _picard_box(prob, a, Z, act, h)
                if box is not None and _pattern_holds(box[1], act):
                    break
                if box is not None and h < 1e-12:
                    raise HypothesisViolation(EVENTS, f"an active pre-activation reaches 0 near τ = {float(tau.mid())}")
                h = h / 2
            else:
                raise RelucheckInputError(f"no a-priori enclosure found at τ = {float(tau.mid())} (radii too large)")
            Ba, BZ = box
            A, Zs, _ = prob.coefficients(a, Z, act, order)
            RA, RZ, _ = prob.coefficients(Ba, BZ, act, order + 1)
            A = np.concatenate([A, RA[order + 1:]])
            Zs = np.concatenate([Zs, RZ[order + 1:]])
            step = EnclosedStep(tau, arb(h), A, Zs, Ba, BZ)
            enc.steps.append(step)
            a, Z = step.a_at(arb(h)), step.Z_at(arb(h))
            tau = tau + arb(h)
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
