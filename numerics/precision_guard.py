"""Precision guard: recompute a high-precision result at twice the digits and compare.

A result computed at D digits is trusted only if recomputing it at 2D digits changes it by at most
a tolerance; otherwise the comparison it feeds is *inconclusive* (numerical evidence too weak to
verify or refute), and both values are reported. The doubled run is the reference: its own error is
smaller by ~10^-D, so the discrepancy measures the error of the D-digit result.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from relucheck.proofs_checks.result import Outcome, Status


@dataclass
class Guarded:
    """A D-digit result, its 2D-digit recomputation, their discrepancy and the verdict of the guard."""

    value: Any
    reference: Any
    digits: int
    guard_digits: int
    discrepancy: float
    tolerance: float

    @property
    def ok(self) -> bool:
        return self.discrepancy <= self.tolerance

    def summary(self) -> dict:
        return {"digits": self.digits, "guard_digits": self.guard_digits,
                "guard_discrepancy": self.discrepancy, "guard_tolerance": self.tolerance, "guard_ok": self.ok}


def guarded(compute: Callable[[int], Any], digits: int, distance: Callable[[Any, Any], float],
            tolerance: float) -> Guarded:
    """Run ``compute(digits)`` and ``compute(2·digits)``; ``distance`` measures how far apart they are."""
    value = compute(digits)
    reference = compute(2 * digits)
    return Guarded(value, reference, digits, 2 * digits, float(distance(value, reference)), float(tolerance))


def apply_guard(outcome: Outcome, guard: Guarded, show=lambda v: v) -> Outcome:
    """``outcome`` with the guard's numbers added; inconclusive (both values shown) when the guard fails."""
    outcome.details.update(guard.summary())
    if guard.ok:
        return outcome
    return Outcome(Status.INCONCLUSIVE, outcome.prediction, {"at_digits": show(guard.value),
                                                             "at_double_digits": show(guard.reference)},
                   outcome.tolerance, outcome.tolerance_reason,
                   f"precision guard: results at {guard.digits} and {guard.guard_digits} digits differ by "
                   f"{guard.discrepancy:.3g} > {guard.tolerance:.3g}; the verdict would have been "
                   f"{outcome.status.value}. {outcome.message}", outcome.precision, outcome.details)
