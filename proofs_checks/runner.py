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


def _records_of_check(chk: Check, seed: int, which: tuple[bool, ...]) -> list[CheckResult]:
    """The check's records (``which``: False for the check, True for its mutant), sharing one `Context` cache."""
    ctx = Context(seed=seed)
    return [run_check(chk, seed, mutate=is_mutant, context=ctx) for is_mutant in which]


def check_task(task) -> list[CheckResult]:
    """One task of a parallel run (module-level, for worker processes): ``(check id, seed, which, plugin specs)``.
    The worker loads the users' check files first, as the main process did."""
    from .plugins import load_checks
    from .registry import get_check

    check_id, seed, which, plugins = task
    load_checks(plugins)
    return _records_of_check(get_check(check_id), seed, which)


def run_checks(checks: list[Check], seed: int = 0, *, mutate: bool = False, progress: bool = True,
               skip: frozenset[str] = frozenset(), on_record: Callable[[CheckResult], None] | None = None,
               executor=None, plugins: tuple = ()) -> list[CheckResult]:
    """Run each check (and its mutant, sharing the check's cache) and return the new records in run order.

    Records whose id is in ``skip`` (e.g. already in a journal) are not run. ``on_record`` receives each
    record as soon as it is computed (the run journal appends it to disk there), in the order they finish.
    ``executor`` (`numerics.executor`; serial by default) runs one task per check: a check and its mutant run
    in the same task. Other executors than serial look checks up by id in their workers, which first load
    ``plugins`` (the ``--checks`` specs).
    """
    from relucheck.numerics.executor import SerialExecutor

    executor = SerialExecutor() if executor is None else executor
    work = []
    for chk in checks:
        which = tuple(m for m in ((False, True) if mutate else (False,))
                      if chk.id + (".mutant" if m else "") not in skip)
        if which:
            work.append((chk, which))
    bar = Progress(sum(len(which) for _, which in work)) if progress else None
    if executor.kind == "serial":
        finished = ((k, _records_of_check(chk, seed, which)) for k, (chk, which) in enumerate(work))
    else:
        finished = executor.map_unordered(check_task, [(chk.id, seed, which, tuple(plugins)) for chk, which in work])
    by_task = {}
    for k, records in finished:
        by_task[k] = records
        for rec in records:
            if on_record is not None:
                on_record(rec)
            if bar:
                if rec.mutant:
                    verdict = "caught" if rec.caught else f"NOT CAUGHT ({rec.status.value})"
                    bar.step(rec.check + " (mutant)", f"{verdict} ({rec.seconds:.1f} s)")
                else:
                    bar.step(rec.id, f"{rec.status.value} ({rec.seconds:.1f} s)")
    return [rec for k in sorted(by_task) for rec in by_task[k]]


def exit_code(records: list[CheckResult]) -> int:
    """0: nothing refuted or errored; 1: something refuted (or a mutant not caught); 2: an error."""
    real = [r for r in records if not r.mutant]
    if any(r.status is Status.ERROR for r in records):
        return 2
    if any(r.status is Status.REFUTED for r in real) or any(r.mutant and not r.caught for r in records):
        return 1
    return 0
