"""Run checks (and their mutants) and turn outcomes into result records."""
from __future__ import annotations

import sys
import time
import traceback
from typing import Callable

from .registry import Check, Context
from .result import CheckResult, Outcome, Status, versions


def run_check(chk: Check, seed: int = 0, *, mutate: bool = False, context: Context | None = None) -> CheckResult:
    """Run one check (or its mutant when ``mutate``); exceptions become status ``error``."""
    ctx = Context(seed=seed, mutate=mutate) if context is None else Context(seed, mutate, context.cache)
    start = time.perf_counter()
    try:
        out = chk.fn(ctx)
        if not isinstance(out, Outcome):
            raise TypeError(f"check {chk.id} returned {type(out).__name__}, expected Outcome")
    except Exception as exc:  # a crash is an 'error' record, never a silent pass
        out = Outcome(Status.ERROR, None, None, None, "", f"{type(exc).__name__}: {exc}",
                      details={"traceback": traceback.format_exc(limit=6)})
    seconds = time.perf_counter() - start
    record = CheckResult(
        id=chk.id + (".mutant" if mutate else ""),
        statement=chk.statement,
        paper=chk.paper,
        status=out.status,
        prediction=out.prediction,
        measurement=out.measurement,
        tolerance=out.tolerance,
        tolerance_reason=out.tolerance_reason,
        precision=out.precision or chk.precision,
        seed=seed,
        seconds=seconds,
        versions=versions(),
        message=out.message,
        mutant=mutate,
        check=chk.id,
        caught=(out.status is Status.REFUTED) if mutate else None,
        mutation=chk.mutant if mutate else "",
        details=out.details,
        finding="" if mutate else chk.finding,
    )
    return record


class Progress:
    """A plain progress bar on stderr (one line per step when stderr is not a terminal)."""

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total, self.done, self.width = total, 0, width
        self.stream = sys.stderr if stream is None else stream
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def step(self, label: str, status: str = "") -> None:
        self.done += 1
        filled = int(self.width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {self.done}/{self.total} {label} {status}".rstrip()
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def record_ids(checks: list[Check], mutate: bool) -> list[str]:
    """The ids of the records a run produces, in run order: each check, then its mutant with ``mutate``."""
    return [rid for chk in checks for rid in ([chk.id, chk.id + ".mutant"] if mutate else [chk.id])]


def run_checks(checks: list[Check], seed: int = 0, *, mutate: bool = False, progress: bool = True,
               skip: frozenset[str] = frozenset(), on_record: Callable[[CheckResult], None] | None = None
               ) -> list[CheckResult]:
    """Run each check (and its mutant, sharing the check's cache) and return the new records.

    Records whose id is in ``skip`` (e.g. already in a journal) are not run. ``on_record`` receives each
    record as soon as it is computed (the run journal appends it to disk there).
    """
    todo = [rid for rid in record_ids(checks, mutate) if rid not in skip]
    bar = Progress(len(todo)) if progress else None
    records = []
    for chk in checks:
        ctx = Context(seed=seed)
        for is_mutant in ((False, True) if mutate else (False,)):
            rid = chk.id + (".mutant" if is_mutant else "")
            if rid in skip:
                continue
            rec = run_check(chk, seed, mutate=is_mutant, context=ctx)
            records.append(rec)
            if on_record is not None:
                on_record(rec)
            if bar:
                if is_mutant:
                    verdict = "caught" if rec.caught else f"NOT CAUGHT ({rec.status.value})"
                    bar.step(chk.id + " (mutant)", f"{verdict} ({rec.seconds:.1f} s)")
                else:
                    bar.step(chk.id, f"{rec.status.value} ({rec.seconds:.1f} s)")
    return records


def exit_code(records: list[CheckResult]) -> int:
    """0: nothing refuted or errored; 1: something refuted (or a mutant not caught); 2: an error."""
    real = [r for r in records if not r.mutant]
    if any(r.status is Status.ERROR for r in records):
        return 2
    if any(r.status is Status.REFUTED for r in real) or any(r.mutant and not r.caught for r in records):
        return 1
    return 0
