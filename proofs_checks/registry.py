"""Checks, their registry and the two suites.

A check binds one statement to a computation::

    @check("C.prop1.balancedness", statement="C.prop1",
           mutant="the quantity a_j² − 2‖w_j‖² in place of a_j² − ‖w_j‖²")
    def balancedness(ctx: Context) -> Outcome:
        ...                       # compute; if ctx.mutate, use the deliberately wrong prediction
        return agree(prediction, measurement, tol, "reason for tol")

The same function runs the mutant with ``ctx.mutate = True``: the same computation against a
deliberately wrong prediction, which must come out refuted. ``ctx.cached(key, fn)`` shares an
expensive computation between a check and its mutant.

Findings (docs/findings.md): a check whose outcome is "the paper's claim is refuted" states the finding
as its prediction and the paper's claim as its mutant, and is registered with ``finding="…"`` (one
sentence: what computation shows against the paper). Its VERIFIED records then count as "paper's claim
refuted (finding)", not as "verified", in the summaries and are listed first in the reports.

Check modules live in `proofs_checks.checks` and are discovered automatically (`all_checks` loads them first).
Users' checks come from files, modules and installed plugins and use this same decorator (`relucheck.check`);
`proofs_checks.plugins` loads them, and imports this module, never the reverse: this registry knows the built-in
checks and whatever was registered so far.
"""
from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Callable

from .result import Outcome

SUITES = ("default", "full")


@dataclass
class Context:
    """What a check's computation receives: the seed, whether to run the mutant, a shared cache."""

    seed: int = 0
    mutate: bool = False
    cache: dict = field(default_factory=dict)

    def cached(self, key, compute: Callable):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


@dataclass(frozen=True)
class Check:
    id: str
    statement: str
    fn: Callable[[Context], Outcome]
    mutant: str
    suites: tuple[str, ...] = SUITES
    precision: str = "float64"
    description: str = ""
    finding: str = ""  # non-empty: a verified outcome means "the paper's claim is refuted" (this finding)

    @property
    def paper(self) -> str:
        return self.statement.split(".", 1)[0]


_CHECKS: dict[str, Check] = {}
_loaded = False


_CHECK_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,199}\Z")


def check(check_id: str, *, statement: str, mutant: str, suites=SUITES, precision: str = "float64",
          finding: str = ""):
    """Register the decorated function as a check (see the module docstring).

    ``finding``: for a check whose prediction is a refutation of the paper (its mutant being the paper's
    claim), the finding in one sentence.
    """
    if not isinstance(check_id, str) or not _CHECK_ID.match(check_id):
        raise ValueError(f"check id must be a letter followed by ASCII letters, digits, '.', '_' or '-' (at most 200 "
                         f"characters: it names files, table rows and terminal lines), got {check_id!r}")
    suites = tuple(suites)
    unknown = set(suites) - set(SUITES)
    if unknown:
        raise ValueError(f"check {check_id}: unknown suite(s) {sorted(unknown)}; suites are {SUITES}")
    if not mutant:
        raise ValueError(f"check {check_id}: every check needs a mutant (a check must be able to fail)")

    def decorate(fn):
        if not fn.__module__.startswith(__package__ + ".checks."):
            _load()  # a user's check: the built-in ones first, so that an id colliding with one of them is caught
        if check_id in _CHECKS:
            raise ValueError(f"check id {check_id!r} is already registered (by {_CHECKS[check_id].fn.__module__}); "
                             "check ids must be unique")
        _CHECKS[check_id] = Check(check_id, statement, fn, mutant, suites, precision, (fn.__doc__ or "").strip(),
                                  finding)
        return fn

    return decorate


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import checks

    for info in pkgutil.iter_modules(checks.__path__):
        importlib.import_module(f"{checks.__name__}.{info.name}")


def all_checks() -> dict[str, Check]:
    """The built-in checks and every check registered so far (installed plugins and users' files once
    `proofs_checks.plugins.load_checks` has loaded them)."""
    _load()
    return dict(_CHECKS)


def get_check(check_id: str) -> Check:
    _load()
    try:
        return _CHECKS[check_id]
    except KeyError:
        raise KeyError(f"unknown check id {check_id!r}; `relucheck list` shows the checks") from None


def select(suite: str = "default", only: str | None = None) -> list[Check]:
    """Checks of a suite, optionally filtered by a glob or substring pattern on the id."""
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; choose one of {SUITES}")
    chosen = [c for c in all_checks().values() if suite in c.suites]
    if only:
        pattern = only if any(ch in only for ch in "*?[") else f"*{only}*"
        chosen = [c for c in chosen if fnmatch.fnmatchcase(c.id, pattern)]
    return sorted(chosen, key=lambda c: c.id)


def checks_of_statement(statement_id: str) -> list[str]:
    return sorted(c.id for c in all_checks().values() if c.statement == statement_id)
