"""Outcomes of checks: a status enum, the outcome a check computes, and the result record.

A check's computation returns an `Outcome` (its verdict with the numbers behind it); the runner
adds identity, timing, seed and versions to make a `CheckResult`, the record written to
results.json / results.csv and the reports.
"""
from __future__ import annotations

import enum
import math
import platform
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


class Status(str, enum.Enum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


@dataclass
class Outcome:
    """What a check computed: its verdict, prediction, measurement and the tolerance with its reason."""

    status: Status
    prediction: Any
    measurement: Any
    tolerance: Any
    tolerance_reason: str
    message: str = ""
    precision: str | None = None
    details: dict = field(default_factory=dict)

    def require(self, condition: bool, failure: str) -> "Outcome":
        """A further condition of the same claim: when it fails the outcome is refuted and says why.

        Verified and inconclusive outcomes become refuted; an error stays an error.
        """
        if not condition and self.status is not Status.ERROR:
            self.status = Status.REFUTED
            self.message = f"{self.message}; {failure}" if self.message else failure
        return self


def _max_abs(x) -> float:
    arr = np.asarray(x, dtype=float)
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def agree(prediction, measurement, tolerance: float, reason: str, *, relative: bool = False,
          message: str = "", **details) -> Outcome:
    """Verified when max |prediction − measurement| ≤ tolerance (× max |prediction| if ``relative``)."""
    p = np.asarray(prediction, dtype=float)
    q = np.asarray(measurement, dtype=float)
    if p.shape != q.shape:
        return Outcome(Status.REFUTED, prediction, measurement, tolerance, reason,
                       f"shape mismatch: prediction {p.shape} vs measurement {q.shape}. {message}".strip(), details=details)
    err = _max_abs(p - q)
    allowed = tolerance * (_max_abs(p) if relative else 1.0)
    if not math.isfinite(err):
        status = Status.INCONCLUSIVE
    else:
        status = Status.VERIFIED if err <= allowed else Status.REFUTED
    kind = "relative " if relative else ""
    msg = f"max {kind}error {err / (_max_abs(p) if relative and _max_abs(p) else 1.0):.3g} vs tolerance {tolerance:.3g}"
    return Outcome(status, prediction, measurement, tolerance, reason, f"{msg}. {message}".strip(),
                   details={"max_abs_error": err, **details})


def within_bound(measurement, bound, reason: str, *, side: str = "<=", slack: float = 0.0,
                 message: str = "", **details) -> Outcome:
    """Verified when every measured value lies on the right side of the bound (up to ``slack``).

    side "<=" checks measurement ≤ bound + slack; ">=" checks measurement ≥ bound − slack.
    """
    q = np.asarray(measurement, dtype=float)
    b = np.asarray(bound, dtype=float)
    if side == "<=":
        ok = np.all(q <= b + slack)
        worst = _max_abs(np.max(q - b)) if q.size else 0.0
    elif side == ">=":
        ok = np.all(q >= b - slack)
        worst = _max_abs(np.max(b - q)) if q.size else 0.0
    else:
        raise ValueError(f"side must be '<=' or '>=', got {side!r}")
    status = Status.VERIFIED if ok else Status.REFUTED
    msg = f"measurement {side} bound: {'holds' if ok else 'violated'} (worst excess {worst:.3g}, slack {slack:.3g})"
    return Outcome(status, bound, measurement, slack, reason, f"{msg}. {message}".strip(), details=details)


def to_jsonable(value):
    """numpy, mpmath, sympy and enum values to plain JSON types (non-finite floats to strings)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.dtype != object else [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    mod = type(value).__module__
    if mod.startswith("mpmath") or mod.startswith("flint"):
        return str(value)
    if mod.startswith("sympy"):
        try:
            return float(value) if value.is_number and value.is_real else str(value)
        except TypeError:
            return str(value)
    return str(value)


@dataclass
class CheckResult:
    """The record of one run of one check (or of its mutant)."""

    id: str
    statement: str
    paper: str
    status: Status
    prediction: Any
    measurement: Any
    tolerance: Any
    tolerance_reason: str
    precision: str
    seed: int | None
    seconds: float
    versions: dict
    message: str
    mutant: bool = False
    check: str = ""  # the check this record belongs to (its own id for non-mutants)
    caught: bool | None = None  # for mutants: was it refuted?
    mutation: str = ""
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return to_jsonable(asdict(self))


def versions() -> dict:
    """Versions of Python, relucheck and the numerical libraries, recorded in every result."""
    from importlib import metadata

    out = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("relucheck", "numpy", "scipy", "sympy", "mpmath", "python-flint", "matplotlib"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out
