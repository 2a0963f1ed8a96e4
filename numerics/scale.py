"""The initialization scale λ, given as a number or as a decimal string such as "1e-1000".

Flows at tiny scales work with L_λ = ln(1/λ), which is an ordinary float even when λ itself
underflows float64 (λ < 1e-308). `InitScale` keeps λ exactly as given and offers each form.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .errors import RelucheckInputError

# mpmath is imported where λ is first read, not with this module: `numerics.flows` imports it through `FlowProblem`, and
# commands that never read a λ (`relucheck engines`, `relucheck flow --help`) need not pay for mpmath (issue 22, item 6)

DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")  # digits, one point, an exponent: no "_", "/", names
FLOAT64_SMALLEST_SAFE = 1e-150  # λ² (the size of a_j w_j at init) stays a normal float64 above this


@dataclass(frozen=True)
class InitScale:
    """λ > 0, kept as its decimal text; `log_inv` is ln(1/λ)."""

    text: str

    def __post_init__(self):
        import mpmath

        if not isinstance(self.text, str) or not DECIMAL.fullmatch(self.text.strip()):  # a decimal literal and nothing
            # else: mpmath also reads "1/2" and Python "1e-10_0" (= 1e-100), which a user cannot mean (session 31)
            raise RelucheckInputError(f"initialization scale λ must be a decimal number such as 1e-40 or 0.001, got "
                                      f"{self.text!r}")
        try:
            value = mpmath.mpf(self.text.strip())
        except (ValueError, TypeError) as exc:
            raise RelucheckInputError(f"initialization scale λ must be a number, got {self.text!r}") from exc
        if not mpmath.isfinite(value) or value <= 0:
            raise RelucheckInputError(f"initialization scale λ must be finite and > 0, got λ = {self.text}")

    @classmethod
    def of(cls, lam) -> "InitScale":
        if isinstance(lam, InitScale):
            return lam
        if isinstance(lam, float) and (math.isnan(lam) or lam <= 0):
            raise RelucheckInputError(f"initialization scale λ must be finite and > 0, got λ = {lam!r}")
        return cls(repr(lam) if isinstance(lam, float) else str(lam))

    def mpf(self) -> "mpmath.mpf":  # noqa: F821 (mpmath is imported in the body)
        """λ at the current mpmath precision."""
        import mpmath

        return mpmath.mpf(self.text)

    @property
    def log_inv(self) -> float:
        """L_λ = ln(1/λ) as a float64 (finite for every representable decimal λ)."""
        import mpmath

        with mpmath.workdps(30):
            return float(-mpmath.log(mpmath.mpf(self.text)))

    def as_float(self, smallest: float = FLOAT64_SMALLEST_SAFE) -> float:
        """λ as a float64; refuses λ below `smallest` instead of returning a silently wrong 0."""
        import mpmath

        value = float(mpmath.mpf(self.text))
        if value < smallest:
            raise RelucheckInputError(
                f"λ = {self.text} is below {smallest:g}, the smallest scale a raw-coordinate float64 "
                "computation represents faithfully; use an engine that works with ln(1/λ) or a "
                "high-precision engine"
            )
        return value

    def __str__(self) -> str:
        return self.text
