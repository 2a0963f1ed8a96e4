"""Precision guard: recompute a high-precision result at twice the digits and compare.

A result computed at D digits is trusted only if recomputing it at 2D digits changes it by at most
a tolerance; otherwise the comparison it feeds is *inconclusive* (numerical evidence too weak to
verify or refute), and both values are reported (`relucheck.proofs_checks.result.apply_guard`). The doubled run is
the reference: its own error is smaller by ~10^-D, so the discrepancy measures the error of the D-digit result.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


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
