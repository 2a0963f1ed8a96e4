"""Errors for bad input: each names the violated hypothesis or the bad argument."""
from __future__ import annotations


class RelucheckInputError(ValueError):
    """An argument is malformed (wrong shape, non-finite value, out-of-range parameter)."""


class HypothesisViolation(RelucheckInputError):
    """An instance violates a hypothesis that a statement requires (e.g. C's Assumption 1).

    ``hypothesis`` names it, e.g. ``"Assumption 1 (orthonormal inputs)"``.
    """

    def __init__(self, hypothesis: str, detail: str):
        self.hypothesis = hypothesis
        self.detail = detail
        super().__init__(f"{hypothesis} violated: {detail}")
