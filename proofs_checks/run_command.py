"""`relucheck run`: the checks of a suite (or of ``--checks`` files), journaled as they finish, and the reports.

Called by `proofs_checks.cli` (which owns the parser and the one error boundary of every command).
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError


@contextlib.contextmanager
def _thread_exit_noted():
    """A thread of a plugin whose ``os._exit`` was refused (`cmd_run`) ends with one line on stderr, not Python's
    traceback of an uncaught exception in a thread; any other exception of a thread is Python's to report."""
    from .exit_guard import ProcessExitRefused

    previous = threading.excepthook

    def hook(info):
        if issubclass(info.exc_type, ProcessExitRefused):
            name = info.thread.name if info.thread is not None else "?"
            print(f"relucheck: note: thread {name!r} (a plugin's) called os._exit({info.exc_value.code!r}) during the "
                  "run; refused: the run goes on", file=sys.stderr, flush=True)
            return
        previous(info)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


def cmd_run(args) -> int:
    """Run checks, journaling each record as it finishes (`proofs_checks.journal`); reports from the journal.

    ``--out DIR`` is locked from before the journal is read until the reports are written
    (`proofs_checks.out_lock`: a second run on DIR exits 2 naming the holder). Without ``--resume`` a DIR that
    holds a journal is refused (exit 2), never overwritten; ``--resume`` validates every journal line first.
    With ``--checks``, only the checks of those files and modules run, unless ``--with-builtin``.
    """
    from .exit_guard import exit_refused
    from .journal import prepare_out_dir
    from .out_lock import OutDirLock
    from .plugins import load_checks

    out = Path(os.path.abspath(args.out))  # a check (or a plugin's import) may chdir: DIR stays where it was
    args.worker_checks = tuple(_absolute_file_specs(args.checks))  # the workers load them wherever they start
    # os._exit refused for the whole run, not only while a check runs or a plugin loads: a thread a plugin started
    # at import that called it while the main process waited for the pool ended the run with exit 0, one journal
    # record and no reports (red team, issue 20); now the call raises in that thread and the run goes on
    with exit_refused(), _thread_exit_noted():
        load_checks(args.checks)
        checks = _selected_checks(args)
        prepare_out_dir(out, shown=args.out)  # before anything is computed
        from .array_options import array_library

        with array_library(args), OutDirLock(out, shown=f"--out {args.out}", shown_dir=args.out):
            return _run_locked(args, checks, out)


def _absolute_file_specs(specs) -> list[str]:
    """The ``--checks`` specs with each file made absolute (a module name stays), as `plugins.load_checks` tells a
    file from a module: what the worker processes load, even if a plugin's import changed the directory."""
    return [os.path.abspath(s) if s.endswith(".py") or os.path.lexists(s) or "/" in s else s for s in specs or ()]


def _what_ran(args) -> str:
    """The checks of a run in words, for its reports' title: the suite, or the --checks files (and the suite)."""
    files = ", ".join(os.path.basename(spec) for spec in args.checks or ())
    if not files:
        return f"suite {args.suite}"
    return f"checks of {files}" + (f" and suite {args.suite}" if args.with_builtin else "")


def _selected_checks(args) -> list:
    """The checks of ``--suite`` matching ``--only``; with ``--checks`` only theirs, unless ``--with-builtin``."""
    from .plugins import checks_of_specs
    from .registry import select

    checks = select(args.suite, args.only)
    where = f"suite {args.suite!r}"
    if args.checks and not args.with_builtin:
        mine = checks_of_specs(args.checks)
        checks = [c for c in checks if c.id in mine]
        where = f"--checks {' '.join(args.checks)} in suite {args.suite!r} (built-in checks need --with-builtin)"
    if not checks and args.only:
        raise RelucheckInputError(f"--only {args.only!r}: no check of {where} matches; `relucheck list` shows the "
                                  "check ids")
    if not checks:
        raise RelucheckInputError(f"no check of {where}")
    return checks


def _run_locked(args, checks, out) -> int:
    """`cmd_run` once ``--out`` is locked: the journal, the run, the reports."""
    from .arguments import executor_of
    from .journal import Journal, run_parameters
    from .plugins import plugin_fingerprint
    from .report import summary_line, write_results
    from .runner import exit_code, record_ids, run_checks

    journal = Journal(out, shown=args.out)
    params = run_parameters(args.suite, args.only, args.seed, args.mutate, plugins=plugin_fingerprint(),
                            with_builtin=args.with_builtin or not args.checks)
    ids = record_ids(checks, args.mutate)
    if args.resume:
        done = journal.resume(params, ids)  # every line validated: an error names the line
        if journal.note:
            print(journal.note, file=sys.stderr)
    else:
        if journal.refuse_unfinished(f"--out {args.out}"):
            print(f"relucheck: note: replacing the finished run's journal in {args.out}", file=sys.stderr)
        done = {}
    if journal.run_id is None:
        journal.start(params)
    todo = [rid for rid in ids if rid not in done]
    journal.note_session(resume=args.resume, to_run=len(todo), already=len(ids) - len(todo))
    interrupted = False
    try:
        from relucheck.numerics.interrupts import ending_on_signals, exit_status

        with executor_of(args) as executor, ending_on_signals():  # SIGTERM, SIGHUP end the run as Ctrl-C does
            run_checks(checks, args.seed, mutate=args.mutate, progress=not args.quiet, skip=frozenset(done),
                       on_record=journal.append, executor=executor, plugins=args.worker_checks,
                       check_timeout=args.check_timeout)
    except KeyboardInterrupt as exc:  # the workers are stopped; the journal keeps every finished record
        interrupted = exit_status(exc)  # 130 SIGINT, 143 SIGTERM, 129 SIGHUP
    except OSError as exc:  # e.g. a full disk while appending to the journal: what is on disk stays
        print(f"relucheck: error: cannot write the journal {journal.shown}: {exc}; the records written so far are "
              "kept, `relucheck run --resume` with the same options continues", file=sys.stderr)
        return 2
    saved = journal.records(ids)
    records = [saved[rid] for rid in ids if rid in saved]
    paths = write_results(records, out, title=f"relucheck run ({_what_ran(args)}, seed {args.seed})", expected=len(ids))
    for rec in records:
        if rec.status.value != "verified" and not (rec.mutant and rec.caught):
            print(f"{rec.id}: {rec.status.value}: {rec.message}", file=sys.stderr)
    print(f"summary: {summary_line(records, expected=len(ids))}")
    print(f"ran {len(records) - (len(ids) - len(todo))} of {len(ids)} records"
          + (f" ({len(ids) - len(todo)} already in the journal)" if args.resume else ""))
    print(f"wrote {', '.join(str(Path(args.out) / Path(p).name) for p in paths)} (journal {journal.shown})")
    if interrupted:
        print(f"relucheck: interrupted: {len(records)} of {len(ids)} records kept in {journal.shown}; "
              "`relucheck run --resume` with the same options runs the rest", file=sys.stderr)
        return interrupted
    return exit_code(records)
