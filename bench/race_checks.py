"""The agreement checks of `bench.race`: every ratio it prints is printed with the agreement found between the racers.

Each check returns an `Agreement` (ok, the measured discrepancy, a one-line description); none raises, so the bench
prints a disagreement instead of hiding it. Tolerances:

* ``JUMP_TOL`` = 1e-6 on jump times τ (paper C's incremental learning, C Theorem 2; the jump rule of
  `numerics.flows.result`): issue 22's "jump times agreeing to 1e-6". Both racers integrate at a local relative
  tolerance of 1e-10 and a jump time is a transversal level crossing of ln‖θ_j‖ with slope of order 1, so their
  jump times differ by far less when both are right (3.4e-8 measured before this bench); 1e-6 fails any run in
  which one of them takes a wrong step.
* ``LOSS_TOL`` = 1e-3, absolute, on the loss 1/(2n) Σ r_i² at the plateaus and at the end (issue 22: "the step that
  reaches the same points within 1e-3"). The loss starts at ‖y‖²/(2n) ≈ 0.5 for y ~ N(0, 1).
* events on orthonormal data: a deactivation of component (j, i) found by one racer only is accepted only where the
  float64 engine reported a near tie (a push within its rounding floor) at that time and heyoka's component is within
  the float64 engine's kink band (``KINK_ULPS`` ε relative to ‖w_j‖, `numerics.flows.loop`): a decision at rounding
  level, where the two arithmetics may place a component that tends to 0 on either side of it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

JUMP_TOL = 1e-6
LOSS_TOL = 1e-3


@dataclass(frozen=True)
class Agreement:
    ok: bool
    discrepancy: float
    text: str

    def line(self) -> str:
        return f"{'AGREE' if self.ok else 'DISAGREE'}: {self.text}"


def jump_agreement(first: dict, second: dict, tol: float = JUMP_TOL, names=("relucheck", "heyoka")) -> Agreement:
    """Jump times {neuron: τ} of two runs: the same neurons jump, each at times within ``tol``."""
    if set(first) != set(second):
        only1, only2 = sorted(set(first) - set(second)), sorted(set(second) - set(first))
        return Agreement(False, float("inf"), f"jumping neurons differ: only {names[0]} {only1}, only {names[1]} {only2}")
    if not first:
        return Agreement(False, float("inf"), "no jump in either run (nothing to compare)")
    diff = max(abs(first[j] - second[j]) for j in first)
    return Agreement(diff <= tol, diff, f"{len(first)} jumps, the same neurons, max |Δτ| = {diff:.2e} "
                                        f"({'≤' if diff <= tol else '>'} {tol:g})")


def _tie_groups(jumps, tol: float) -> list[set]:
    """The jumping neurons in time order, jumps within ``tol`` (relative to max(1, τ)) of the previous one grouped as
    simultaneous: their order within a run is rounding (e.g. four neurons of a symmetric instance jumping within one
    ulp of τ = 12.35)."""
    groups: list[set] = []
    last = None
    for jp in sorted(jumps, key=lambda j: j.tau):
        if last is not None and jp.tau - last <= tol * max(1.0, abs(jp.tau)):
            groups[-1].add(jp.neuron)
        else:
            groups.append({jp.neuron})
        last = jp.tau
    return groups


def _shown(groups: list[set]) -> list:
    """Tie groups as printed: a neuron alone, neurons jumping together as a sorted list."""
    return [sorted(g) if len(g) > 1 else next(iter(g)) for g in groups]


def jump_order_agreement(first: list, second: list, tie: float = JUMP_TOL) -> Agreement:
    """Two runs' jumps (lists of `Jump`) name the same neurons in the same order, jumps within ``tie`` of each other
    taken as simultaneous (`_tie_groups`); Δτ is printed, not bounded (the flow's jump times depend on λ at order
    1/ln(1/λ))."""
    order1, order2 = _tie_groups(first, tie), _tie_groups(second, tie)
    if order1 != order2 or not order1:
        return Agreement(False, float("inf"), f"jump order differs: {_shown(order1)} against {_shown(order2)} "
                                              "(neurons jumping together in brackets)")
    by_neuron = {jp.neuron: jp.tau for jp in second}
    diff = max(abs(jp.tau - by_neuron[jp.neuron]) for jp in first)
    return Agreement(True, diff, f"the same {len(first)} neurons jump in the same order, max |Δτ| = {diff:.3g}")


def event_agreement(ours: dict, theirs: dict, near_tie_taus, residue: dict, band: float, tol: float = JUMP_TOL) -> Agreement:
    """Deactivations {(neuron, datum): τ} of the float64 engine (``ours``) and of heyoka (``theirs``); ``residue`` maps
    (neuron, datum) to heyoka's final ψ_ji (w_ji/‖w_j‖) for the components it kept; ``near_tie_taus`` are the times of
    the float64 engine's near ties (module docstring)."""
    common = set(ours) & set(theirs)
    diff = max((abs(ours[k] - theirs[k]) for k in common), default=0.0)
    ties = np.asarray(sorted(near_tie_taus), dtype=float)

    def rounding_level(k) -> bool:
        at_tie = ties.size > 0 and float(np.min(np.abs(ties - ours[k]))) <= tol
        return bool(at_tie and k in residue and abs(residue[k]) <= band)

    only_ours = set(ours) - set(theirs)
    explained = [k for k in only_ours if rounding_level(k)]
    unexplained = sorted(set(theirs) - set(ours)) + sorted(only_ours - set(explained))
    extra = len(explained)
    ok = not unexplained and diff <= tol
    text = (f"{len(common)} deactivations in both, max |Δτ| = {diff:.2e}; {extra} only in relucheck, at its near ties "
            f"with heyoka's component ≤ {band:.1e} (rounding level)")
    if unexplained:
        text += f"; UNEXPLAINED {len(unexplained)}: {sorted(unexplained)[:5]}"
    return Agreement(ok, diff, text)


def loss_agreement(flow_points: list, gd_losses: list, tol: float = LOSS_TOL) -> Agreement:
    """Losses at the comparison points (plateau midpoints, the end) of the flow and of gradient descent."""
    if len(flow_points) != len(gd_losses) or not flow_points:
        return Agreement(False, float("inf"), "no comparison points")
    diffs = np.abs(np.asarray(flow_points, dtype=float) - np.asarray(gd_losses, dtype=float))
    worst = float(np.max(diffs)) if np.all(np.isfinite(diffs)) else float("inf")
    where = int(np.argmax(np.where(np.isfinite(diffs), diffs, np.inf)))
    return Agreement(worst <= tol, worst, f"{len(flow_points)} points (plateaus and end), max |Δloss| = {worst:.2e} "
                                          f"({'≤' if worst <= tol else '>'} {tol:g}) at point {where + 1}")


def spread(values) -> str:
    """min–max (median) of per-round values."""
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return f"{v[0]:.3g}"
    return f"{v.min():.3g}–{v.max():.3g} (median {np.median(v):.3g}, {v.size} rounds)"
