"""Run checks (and their mutants) and turn outcomes into result records.

Each check runs isolated from the run (issue 20):

* **It cannot end the process.** Any exception, `SystemExit` (``sys.exit`` in a check) included, becomes that
  check's ERROR record, and so does ``os._exit`` (refused while a check runs: `exit_guard`); only KeyboardInterrupt
  (Ctrl-C, and SIGTERM/SIGHUP through `numerics.interrupts`) passes, to end the run. On the process pool, a check
  that ends its worker anyway (a crash, ``posix._exit``) becomes an ERROR record too, and the run goes on
  (`numerics.process_pool`). Serially, a check runs in this process, which a crash ends: the process pool (the
  command line's default) is the isolated way.
* **It runs under a time limit** (`time_limit_of`, ``--check-timeout``): past it, the check's record is an ERROR,
  "exceeded the time limit of N s". The limit is an alarm in the thread that runs the check
  (`numerics.time_limit`), serially and in pool and Dask workers alike; it interrupts Python code only. A check
  stuck in C code is stopped on the process pool only, whose main process kills the worker `numerics.process_pool.GRACE` s past
  the limit; serially and on Dask nothing can stop it short of ending the run. A check that returns after its
  limit (it caught the `TimeLimitExceeded`, or switched the alarm off) is an ERROR too, whatever it returned.
* **Only the process pool can stop a check that ignores signals.** Serially the check runs in the process that
  handles Ctrl-C, SIGTERM and SIGHUP: a check that swallows the interrupt (``except BaseException``) or switches
  its alarm off (``signal.setitimer``) runs on until it returns; then its record is an ERROR (past its limit) and,
  if an interrupt arrived meanwhile, the run ends as that signal asked (130, 143, 129;
  `numerics.interrupts.raise_if_swallowed`). On the pool the worker ignores the signals and the main process kills
  it, at its deadline or on an interrupt.
* **KeyboardInterrupt**: serially, a KeyboardInterrupt raised by a check cannot be told apart from Ctrl-C and ends
  the run. In a pool or Dask worker (`check_task`; a pool worker ignores SIGINT) it can only come from the check
  itself, and is that check's ERROR record.
* **Its values are JSON**: the Outcome's fields pass through `numerics.jsonable.to_jsonable` (what the journal
  and reports write) inside the check's guard, so a value that cannot be written (a self-referential dict) is that
  check's ERROR record, not the run's crash.
* **Its BLAS runs on one thread** (threadpoolctl): OpenBLAS' threaded reductions sum in an order that depends
  on the thread count, so a check's last digits differed between this process (all cores) and pool or Dask
  workers (one thread each, e.g. ``C.thm3.min_norm_formula``). Pinned, the records are byte-identical serial,
  on the pool and on Dask, whatever the environment (OPENBLAS_NUM_THREADS) says. Likewise mpmath's global precision
  is its default while a check runs (`_default_mpmath_precision`).
"""
from __future__ import annotations

import functools
import sys
import time
import traceback
from typing import Callable

from relucheck.numerics.interrupts import raise_if_swallowed
from relucheck.numerics.jsonable import to_jsonable
from relucheck.numerics.time_limit import TimeLimitExceeded, time_limit

from .exit_guard import ProcessExitRefused, exit_refused
from .registry import Check, Context
from .result import CheckResult, Outcome, Status, versions

# The default time limit of one record (a check, or its mutant), in seconds; a limit catches a hang, and one too
# tight would be a false error. The slowest record of the default suite took 13.6 s (B.remC2.float64_vs_mpmath_
# general_data; `relucheck run --quiet` on a pool of 2 workers on the 2-core machine, 2026-11-26, load ≈ 1.3) and at
# most 93 s in four runs on the same machine shared with 7 other jobs (load 5–8: B.lem3.concentration 93 s,
# B.remC2 65 s): 600 s leaves a factor 44 over the first and 6 over the worst. A check of the full suite only may
# be much longer: C.def1.gd_limit_general_data_tiny_lambda took 91–1416 s per seed over seeds 0–20 (the check alone,
# its runs partly cached across restarts of the sweep, both cores loaded; docs/findings.md); 3600 s leaves a factor
# 2.5 over the slowest. A plugin's check counts as a
# default-suite check unless it is registered for the full suite only.
DEFAULT_TIME_LIMIT = 600.0
FULL_SUITE_TIME_LIMIT = 3600.0

# Where a run's tasks start on a pool (issue 22, item 5): the longest first, so that the longest check is not the last
# to start (longest-processing-time-first). The costs are CPU seconds of the default suite's longest checks, each in its
# own process forked from one that loaded every check module, as a pool worker is (`python -m bench.suite_schedule`,
# 2-core machine shared with other jobs, load 3, 2026-11-27); the other checks (each ≤ 0.9 s there) and plugins' checks
# count as 0 and keep their id order after these. A stale cost only changes which check starts when: the records, and
# their order in the results, do not depend on it.
EXPECTED_SECONDS = {
    "B.remC2.float64_vs_mpmath_general_data": 12.0,
    "C.def1.gd_limit_general_data": 1.9,
    "C.hyp1.exponent_tracking": 1.5,
    "B.prop2.paper_closed_form": 1.25,
    "C.thm2.mpmath_vs_float64_jump_times": 1.2,
    "C.thm2.first_jump_constant_mpmath": 1.2,
    "B.prop2.corrected_closed_form": 1.2,
    "C.thm2.first_jump_constant": 1.1,
    "C.prop2.interpolation_probability": 1.0,
}

# Checks that share memoized runs (a module-level functools cache): on a pool, the checks of a group run in the worker
# that started the first of them (`numerics.process_pool`, affinity), which computes the shared runs once, as a serial
# run does. The groups and the CPU seconds of their members, alone → after the earlier members of the group (each
# alone in a forked process, then in id order in one process; `python -m bench.suite_schedule --sharing` names the
# memoized functions each check computes and reuses):
# * paper C's flows of the named instances (`paper_c_runs.flow_of`): C.thm2.jump_times 1.5 → 0.1, C.lem9 1.1 → 0.01,
#   C.hyp1.state_after_each_jump, C.lem1, C.thm2.fitted_sets, C.thm1.one_neuron_per_saddle 0.5–0.6 → 0.01 each,
#   C.lem3.sign_decoupling 0.75 → 0.4; C.hyp1.exponent_tracking and C.thm2.first_jump_constant compute them;
# * paper A's GD runs (`paper_a_dynamics.early_runs`, `limit_runs`): A.lemF.4.escape_time 0.37 → 0.01 after
#   A.lemF.2.alignment; A.thm4.1.two_piece_limit 0.38 → 0.01 and A.thm4.1.spurious 0.55 → 0.18 after
#   A.lemF.3.cone_invariance;
# * paper B's transition-time ladders (`paper_b_limit.ladders`): B.thm2.transition_time_limit 0.8 → 0.01 after
#   B.thm2.transition_time_first_order;
# * paper B's transition windows (`paper_b_transitions._windows`, 0.35 s) of B.thm2.transition_times and
#   B.thm2.window_constant, and the golden example's arb enclosure and mpmath run (`high_precision_arb.
#   _enclosure_and_reference`, 0.7 s) of C.prop1.arb_certified_trajectory and C.thm2.arb_certified_jump_time: each
#   check computed them for itself before they were memoized;
# * paper B's group flows at rtol 1e-12 and 1e-10 (`paper_b_closed_form._group_flows`) of B.prop2.closed_form_vs_flow
#   and B.prop2.mu_closed_form: the same two runs, made by each check before.
# A stale group costs time, never a record: a check computes what it does not find.
SHARED_RUNS = (
    ("C.hyp1.exponent_tracking", "C.thm2.first_jump_constant", "C.thm2.jump_times", "C.lem9.final_parameters",
     "C.hyp1.state_after_each_jump", "C.lem1.saddle_losses", "C.thm2.fitted_sets", "C.thm1.one_neuron_per_saddle",
     "C.lem3.sign_decoupling"),
    ("A.lemF.2.alignment", "A.lemF.4.escape_time"),
    ("A.lemF.3.cone_invariance", "A.thm4.1.two_piece_limit", "A.thm4.1.spurious"),
    ("B.thm2.transition_time_first_order", "B.thm2.transition_time_limit"),
    ("B.thm2.transition_times", "B.thm2.window_constant"),
    ("C.prop1.arb_certified_trajectory", "C.thm2.arb_certified_jump_time"),
    ("B.prop2.closed_form_vs_flow", "B.prop2.mu_closed_form"),
)
_GROUP_OF = {cid: group[0] for group in SHARED_RUNS for cid in group}


def time_limit_of(chk: Check, check_timeout: float | None = None) -> float:
    """The time limit (s) of each of the check's records: ``check_timeout`` (``--check-timeout``) if given, else
    the default of its suite (`DEFAULT_TIME_LIMIT`, `FULL_SUITE_TIME_LIMIT`)."""
    if check_timeout is not None:
        return float(check_timeout)
    return DEFAULT_TIME_LIMIT if "default" in chk.suites else FULL_SUITE_TIME_LIMIT


@functools.cache
def _blas_libraries() -> None:
    """Load SciPy's own OpenBLAS now (numpy's is loaded with numpy): threadpoolctl limits the libraries loaded when
    the limit is set, and a check that imported scipy.linalg first would otherwise run it on every core."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401


_blas_controller: tuple = (None, None)  # (len(sys.modules) when found, threadpoolctl.ThreadpoolController)


def _one_blas_thread():
    """BLAS (and OpenMP) limited to one thread while a check runs, restored after (`threadpoolctl`).

    The libraries to limit are found once per process, and again whenever modules were imported since (a new
    extension module is how a new BLAS or OpenMP library gets loaded): finding them walks every loaded shared object
    in Python (`ThreadpoolController`), ~5 ms with the check modules loaded, ~0.4 s of CPU over the default suite's
    88 checks when it was done for each check. A library loaded during a check is limited from the next check on,
    as before; one loaded without an import (a bare ``ctypes.CDLL``) would be missed until the next import."""
    from threadpoolctl import ThreadpoolController

    global _blas_controller
    _blas_libraries()
    if _blas_controller[0] != len(sys.modules):
        _blas_controller = (len(sys.modules), ThreadpoolController())
    return _blas_controller[1].limit(limits=1)


def _default_mpmath_precision():
    """mpmath's global precision at its default (53 bits) while a check runs, restored after: a check's numbers must
    not depend on what the process did before it (CI, session 29: a test left mp.dps at 30, and a paper B check's
    last digits then differed between this process and pool workers forked earlier)."""
    import mpmath

    return mpmath.workprec(53)


@functools.cache
def _process_versions() -> tuple:
    """`result.versions` of this process, computed once: reading the libraries' metadata took 5 ms per record (≈ 0.45 s
    of CPU over the default suite's 88 records). `run_checks` reads it before the pool forks its workers, which inherit
    it: the records of one run name the code as it was when the run started, even if its files are edited meanwhile
    (each worker hashed the files itself before, and a file edited during a run gave its records two code hashes)."""
    return tuple(versions().items())


def _error(message: str, details: dict | None = None) -> Outcome:
    return Outcome(Status.ERROR, None, None, None, "", message, details=details or {})


def _record(chk: Check, seed: int, mutate: bool, out: Outcome, seconds: float) -> CheckResult:
    return CheckResult(
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
        versions=dict(_process_versions()),
        message=out.message,
        mutant=mutate,
        check=chk.id,
        caught=(out.status is Status.REFUTED) if mutate else None,
        mutation=chk.mutant if mutate else "",
        details=out.details,
        finding="" if mutate else chk.finding,
    )


class _SwallowedTimeLimit(Exception):
    """The check returned after its time limit: it caught the limit's exception or switched its alarm off."""


def _check_jsonable(out: Outcome) -> None:
    """Raise if a field of ``out`` cannot be written as JSON by `to_jsonable` (e.g. RecursionError for a value that
    contains itself); the record keeps the values as returned."""
    for value in (out.prediction, out.measurement, out.tolerance, out.tolerance_reason, out.precision, out.message,
                  out.details):
        to_jsonable(value)


def run_check(chk: Check, seed: int = 0, *, mutate: bool = False, context: Context | None = None,
              check_timeout: float | None = None, in_worker: bool = False) -> CheckResult:
    """Run one check (or its mutant when ``mutate``) under its time limit with BLAS on one thread; an exception,
    SystemExit included, becomes status ``error`` (module docstring). KeyboardInterrupt passes, unless
    ``in_worker`` (a pool or Dask worker, where only the check can have raised it)."""
    ctx = Context(seed=seed, mutate=mutate) if context is None else Context(seed, mutate, context.cache)
    limit = time_limit_of(chk, check_timeout)
    raise_if_swallowed()
    start = time.perf_counter()
    try:
        with _one_blas_thread(), _default_mpmath_precision(), exit_refused(), time_limit(limit):
            out = chk.fn(ctx)
        if time.perf_counter() - start > limit:
            raise _SwallowedTimeLimit()
        if not isinstance(out, Outcome):
            raise TypeError(f"check {chk.id} returned {type(out).__name__}, expected Outcome")
        _check_jsonable(out)
    except KeyboardInterrupt as exc:
        if not in_worker:
            raise
        out = _error(f"{type(exc).__name__}: the check raised it in its worker process (where Ctrl-C is ignored)",
                     {"traceback": traceback.format_exc(limit=6)})
    except BaseException as exc:  # noqa: B036 - a crash is an 'error' record, never a silent pass nor the run's end
        if isinstance(exc, TimeLimitExceeded):
            message = f"exceeded the time limit of {limit:g} s (--check-timeout) and was stopped"
        elif isinstance(exc, _SwallowedTimeLimit):
            message = (f"exceeded the time limit of {limit:g} s (--check-timeout) and swallowed the stop (caught "
                       "the exception or switched the alarm off); its result is not used")
        elif isinstance(exc, (SystemExit, ProcessExitRefused)):
            call = "sys.exit" if isinstance(exc, SystemExit) else "os._exit"
            message = (f"{type(exc).__name__}: the check called {call}({exc.code!r}); a check returns an Outcome and "
                       "never ends the run")
        else:
            message = f"{type(exc).__name__}: {exc}"
        out = _error(message, {"traceback": traceback.format_exc(limit=6)})
    raise_if_swallowed()  # an interrupt that arrived during the check and was caught there still ends the run
    return _record(chk, seed, mutate, out, time.perf_counter() - start)


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


def start_order(checks: list[Check]) -> list[int]:
    """The order in which a pool starts the checks' tasks: by `EXPECTED_SECONDS`, longest first, ties (every check
    without a cost) in the given order."""
    return sorted(range(len(checks)), key=lambda k: -EXPECTED_SECONDS.get(checks[k].id, 0.0))


def shared_runs_of(task) -> str | None:
    """The affinity key of a pool task (`check_task`'s argument): its check's group in `SHARED_RUNS`, else None."""
    return _GROUP_OF.get(task[0])


def record_ids(checks: list[Check], mutate: bool) -> list[str]:
    """The ids of the records a run produces, in run order: each check, then its mutant with ``mutate``."""
    return [rid for chk in checks for rid in ([chk.id, chk.id + ".mutant"] if mutate else [chk.id])]


def _records_of_check(chk: Check, seed: int, which: tuple[bool, ...], check_timeout: float | None = None,
                      in_worker: bool = False) -> list[CheckResult]:
    """The check's records (``which``: False for the check, True for its mutant), sharing one `Context` cache."""
    ctx = Context(seed=seed)
    return [run_check(chk, seed, mutate=is_mutant, context=ctx, check_timeout=check_timeout, in_worker=in_worker)
            for is_mutant in which]


def prepare_worker(plugins: tuple) -> None:
    """Before a worker's first task: load the users' check files (as the main process did) and every check module,
    so that this start-up does not count against the first task's time limit."""
    from .plugins import load_checks
    from .registry import all_checks

    load_checks(plugins)
    all_checks()
    _blas_libraries()


def check_task(task) -> list[CheckResult]:
    """One task of a parallel run (module-level, for worker processes): ``(check id, seed, which, plugin specs,
    --check-timeout)``. The worker loads the users' check files first, as the main process did."""
    from .registry import get_check

    check_id, seed, which, plugins, check_timeout = task
    prepare_worker(plugins)
    return _records_of_check(get_check(check_id), seed, which, check_timeout, in_worker=True)


def _lost_task(checks: dict, task, lost) -> list[CheckResult]:
    """ERROR records for a task whose worker died or was killed (`numerics.process_pool.TaskLost`)."""
    check_id, seed, which, _, check_timeout = task
    chk = checks[check_id]
    if lost.kind == "time limit":
        message = f"exceeded the time limit of {time_limit_of(chk, check_timeout):g} s (--check-timeout): {lost}"
    else:
        message = f"the check ended the process that ran it: {lost}"
    return [_record(chk, seed, is_mutant, _error(message), lost.seconds) for is_mutant in which]


def run_checks(checks: list[Check], seed: int = 0, *, mutate: bool = False, progress: bool = True,
               skip: frozenset[str] = frozenset(), on_record: Callable[[CheckResult], None] | None = None,
               executor=None, plugins: tuple = (), check_timeout: float | None = None) -> list[CheckResult]:
    """Run each check (and its mutant, sharing the check's cache) and return the new records in run order.

    Records whose id is in ``skip`` (e.g. already in a journal) are not run. ``on_record`` receives each
    record as soon as it is computed (the run journal appends it to disk there), in the order they finish.
    ``executor`` (`numerics.executor`; serial by default) runs one task per check: a check and its mutant run
    in the same task; a pool starts them longest first (`start_order`), the checks of a group of `SHARED_RUNS` in one
    worker. Other executors than serial look checks up by id in their workers, which first load ``plugins`` (the
    ``--checks`` specs). ``check_timeout`` replaces every
    record's default time limit (`time_limit_of`); on the process pool, a task (a check and its mutant) whose
    worker is still running past the sum of its records' limits plus `numerics.process_pool.GRACE` is killed and
    its records are ERRORs.
    """
    from relucheck.numerics.executor import SerialExecutor

    executor = SerialExecutor() if executor is None else executor
    _process_versions()  # read here, before any worker is forked: every record of the run names the same code
    work = []
    for chk in checks:
        which = tuple(m for m in ((False, True) if mutate else (False,))
                      if chk.id + (".mutant" if m else "") not in skip)
        if which:
            work.append((chk, which))
    bar = Progress(sum(len(which) for _, which in work)) if progress else None
    if executor.kind == "serial":
        finished = ((k, _records_of_check(chk, seed, which, check_timeout)) for k, (chk, which) in enumerate(work))
    else:
        by_id = {chk.id: chk for chk, _ in work}
        order = start_order([chk for chk, _ in work])  # longest first; results by k, the check order, as serially
        started = executor.map_unordered(
            check_task, [(work[k][0].id, seed, work[k][1], tuple(plugins), check_timeout) for k in order],
            prepare=functools.partial(prepare_worker, tuple(plugins)),
            limit=lambda task: len(task[2]) * time_limit_of(by_id[task[0]], check_timeout),
            on_lost=functools.partial(_lost_task, by_id),
            **({"affinity": shared_runs_of} if getattr(executor, "places_by_affinity", False) else {}))
        finished = ((order[q], records) for q, records in started)
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
