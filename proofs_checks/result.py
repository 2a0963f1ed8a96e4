"""Outcomes of checks: a status enum, the outcome a check computes, and the result record.

A check's computation returns an `Outcome` (its verdict with the numbers behind it); the runner
adds identity, timing, seed and versions to make a `CheckResult`, the record written to
results.json / results.csv and the reports.
"""
from __future__ import annotations

import enum
import math
import platform
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from relucheck.numerics.jsonable import to_jsonable
from relucheck.numerics.precision_guard import Guarded


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

    def covers(self, condition: bool, missing: str) -> "Outcome":
        """Whether the evidence covers what the check claims to test: when not, a verified outcome becomes inconclusive
        and says what is missing (``details["why_inconclusive"]``); too little evidence is no evidence against the
        statement (`require` is for further conditions of the claim itself). A refutation stays one."""
        if not condition and self.status is Status.VERIFIED:
            self.status = Status.INCONCLUSIVE
            self.message = f"{self.message}; {missing}" if self.message else missing
            self.details = {**self.details, "why_inconclusive": missing}
        return self


def _max_abs(arr: np.ndarray) -> float:
    """max |arr| of a float array (0 for an empty one)."""
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def agree(prediction, measurement, tolerance: float, reason: str, *, relative: bool = False,
          message: str = "", **details) -> Outcome:
    """Verified when max |prediction − measurement| ≤ tolerance (× max |prediction| if ``relative``).

    The tolerance is a finite number ≥ 0: an infinite one would verify anything and a negative or NaN one refute
    everything, so either is a ValueError (the check's error record), never a verdict; so is a prediction and a
    measurement of different dimensions (a scalar against a list: a mistake of the check, which would otherwise be
    refuted and make its mutant "caught" without testing anything; new user, session 31). Shapes of the same
    dimension that differ (another number of jumps) are refuted."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.integer, np.floating)) \
            or not (0 <= tolerance < math.inf):
        raise ValueError(f"agree: the tolerance must be a finite number ≥ 0, got {tolerance!r}")
    p = np.asarray(prediction, dtype=float)
    q = np.asarray(measurement, dtype=float)
    if p.ndim != q.ndim:  # a scalar against a list, a list against a table: the check's own mistake, not evidence
        raise ValueError(f"agree: prediction and measurement must have the same number of dimensions, got shapes "
                         f"{p.shape} and {q.shape}")
    if p.shape != q.shape:  # as many values, another count (a jump more or less): evidence against the claim
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

    side "<=" checks measurement ≤ bound + slack; ">=" checks measurement ≥ bound − slack. The margin of a
    value is its distance to the allowed limit (bound + slack, or bound − slack), positive when the bound
    holds and negative when it is violated. The message shows the comparison at the tightest value, e.g.
    "measured 0.41 ≤ bound 0.5 (margin 0.09)" or "measured 0.62 > bound 0.5 (margin -0.12)". A NaN margin
    (NaN measurement or bound) or nothing to compare is inconclusive, never a silent pass.
    """
    if side not in ("<=", ">="):
        raise ValueError(f"side must be '<=' or '>=', got {side!r}")
    q, b = np.broadcast_arrays(np.asarray(measurement, dtype=float), np.asarray(bound, dtype=float))
    limit = b + slack if side == "<=" else b - slack
    margins = np.ravel(limit - q if side == "<=" else q - limit)
    q, b = np.ravel(q), np.ravel(b)
    if margins.size == 0:
        return Outcome(Status.INCONCLUSIVE, bound, measurement, slack, reason,
                       f"no measured value to compare with the bound. {message}".strip(), details=details)
    if np.isnan(margins).any():
        k = int(np.flatnonzero(np.isnan(margins))[0])
        return Outcome(Status.INCONCLUSIVE, bound, measurement, slack, reason,
                       f"measured {q[k]:.3g} vs bound {b[k]:.3g}: not comparable (NaN). {message}".strip(),
                       details={"margin": None, **details})
    k = int(np.argmin(margins))
    ok = bool(margins[k] >= 0)
    sign = {("<=", True): "≤", ("<=", False): ">", (">=", True): "≥", (">=", False): "<"}[(side, ok)]
    slack_text = f" {'+' if side == '<=' else '−'} slack {slack:.3g}" if slack else ""
    where = f"tightest of {margins.size}: " if margins.size > 1 else ""
    msg = f"{where}measured {q[k]:.3g} {sign} bound {b[k]:.3g}{slack_text} (margin {margins[k]:.3g})"
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, bound, measurement, slack, reason,
                   f"{msg}. {message}".strip(), details={"margin": float(margins[k]), **details})


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
    finding: str = ""  # for a finding check's own record: the paper's claim it refutes (see `finding_reproduced`)

    def to_json(self) -> dict:
        return to_jsonable(asdict(self))

    @classmethod
    def from_json(cls, row: dict) -> "CheckResult":
        """The record back from `to_json` (numbers stay plain JSON values)."""
        names = {f.name for f in fields(cls)}
        unknown = set(row) - names
        if unknown:
            raise ValueError(f"result record has unknown field(s) {sorted(unknown)}")
        return cls(**{**row, "status": Status(row["status"])})

    @property
    def finding_reproduced(self) -> bool:
        """A finding check's record that verified: the paper's claim is refuted."""
        return bool(self.finding) and not self.mutant and self.status is Status.VERIFIED


class Verdict(str, enum.Enum):
    """What a record means for a reader: the one classification every summary counts (`verdict_of`)."""

    VERIFIED = "verified"
    FINDING = "finding"  # a finding check reproduced: the paper's claim is refuted (docs/findings.md)
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"
    MUTANT_CAUGHT = "mutant refuted"  # a mutant (deliberately wrong claim) came out refuted, as it must
    MUTANT_MISSED = "mutant not refuted"


CHECK_VERDICTS = (Verdict.VERIFIED, Verdict.FINDING, Verdict.REFUTED, Verdict.INCONCLUSIVE, Verdict.ERROR)


def _field(record, name: str):
    return record.get(name) if isinstance(record, dict) else getattr(record, name, None)


def verdict_of(record) -> Verdict:
    """The verdict of a record (a `CheckResult` or its JSON dict) from its fields ``status``, ``finding``,
    ``mutant`` and ``caught`` only, never from its message: a mutant is caught or missed; a finding check's
    verified record is a finding (the paper's claim refuted); otherwise the status."""
    if _field(record, "mutant"):
        return Verdict.MUTANT_CAUGHT if _field(record, "caught") else Verdict.MUTANT_MISSED
    status = Status(_field(record, "status"))
    if status is Status.VERIFIED and _field(record, "finding"):
        return Verdict.FINDING
    return Verdict(status.value)


def count_verdicts(records) -> dict[Verdict, int]:
    """How many records have each verdict (every `Verdict` present, zeros included)."""
    counts = dict.fromkeys(Verdict, 0)
    for record in records:
        counts[verdict_of(record)] += 1
    return counts


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


def versions() -> dict:
    """Versions of Python, relucheck (and the hash of its code) and the numerical libraries, in every result."""
    from importlib import metadata

    from relucheck.numerics.code_version import code_hash

    out = {"python": platform.python_version(), "platform": platform.platform(), "relucheck_code_sha256": code_hash()}
    for dist in ("relucheck", "numpy", "scipy", "sympy", "mpmath", "python-flint", "matplotlib", "hypothesis"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out
