"""A pool of local worker processes that outlives its tasks: a task that kills its worker (``os._exit``, a
segmentation fault, the kernel's OOM killer) or overruns its time limit without returning to Python loses that
task, not the run, and nothing waits forever.

`multiprocessing.Pool` waits forever for the result of a task whose worker died, and
`concurrent.futures.ProcessPoolExecutor` fails every task in flight when one worker dies (BrokenProcessPool,
without saying which task killed it) and cannot stop a task that runs too long. Here each worker has its own
pipe and the main process knows which task each worker runs and since when, so it can

* see a worker die (its process sentinel) and hand that task to ``on_lost``, then start a replacement;
* kill a worker whose task is still running `GRACE` seconds past its limit (``limit(task)`` seconds), and hand
  that task to ``on_lost`` too. A task is expected to stop itself at its limit when it runs Python code
  (`numerics.time_limit`); the kill is for a task stuck in C code, which no signal handler can interrupt;
* stop every worker at once (`WorkerPool.terminate`): SIGKILL, then a bounded wait.

Workers are forked from the main process where that is safe (`start_method`: Linux, the main process running one
Python thread), so that they start with the modules it has imported; otherwise, and on request, they are started
with "spawn" (each imports what it needs afresh). Spawning costs each worker the import of relucheck's check
modules, ~1.3 s of CPU before its first task, which on 2 cores is ~1.3 s of `relucheck run`'s wall time (issue 22,
item 5). A task's result depends only on the task (check id, seed): the records are the same either way
(tests/test_executor.py compares them with a serial run). Workers run ``prepare()`` once per `map_unordered` call
before their first task (loading plugins and the check modules, at once where they are inherited, so that this
start-up does not count against a task's time limit), and then one task at a time. A worker ignores
SIGINT, SIGTERM and SIGHUP (Ctrl-C in a terminal reaches the whole process group; ending the run is the main
process's to decide, `numerics.interrupts`; a worker killed by a signal meant for the run would be reported as a
lost task), asks the kernel to kill it when the main process dies (PR_SET_PDEATHSIG), and may start processes of
its own: `numerics.budget` runs SymPy's simplifications in a forked child that it can kill, which multiprocessing
forbids to daemonic processes. Without that, check-ode's symbolic proofs fail in a pool and the records differ
from a serial run's.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from collections import deque
from multiprocessing.connection import wait

from .interrupts import deferred

GRACE = 5.0  # s past a task's limit before its worker is killed: the task's own alarm fires at the limit and its
# result (a few kB) is back within milliseconds, unless the task is stuck outside Python; 5 s also covers a
# loaded machine's scheduling delay, so a task that stopped itself is never killed
_ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_WAIT = 5.0  # s: a worker asked to stop (or killed) is waited for this long, then killed (or given up on)


class TaskLost(Exception):
    """A task's worker died or was killed; ``kind`` is "died" or "time limit", ``limit`` the task's limit and
    ``seconds`` how long it ran (s)."""

    def __init__(self, kind: str, message: str, limit: float | None = None, seconds: float = 0.0):
        super().__init__(message)
        self.kind, self.limit, self.seconds = kind, limit, seconds


def _worker_init(parent: int) -> None:  # pragma: no cover - runs in the worker process
    """Signals are the main process's to handle; die with it; may start children (module docstring)."""
    from .budget import _die_with_parent

    for sig in _ENDING:
        signal.signal(sig, signal.SIG_IGN)
    multiprocessing.current_process().daemon = False
    _die_with_parent(parent)


def _worker_main(conn, parent: int) -> None:  # pragma: no cover - runs in the worker process
    """Receive ``(kind, index, fn, argument)``, reply ``("done", index, value)`` or ``("raised", index, exc)``."""
    _worker_init(parent)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the main process closed the pipe or died
            return
        if job is None:
            return
        kind, index, fn, argument = job
        try:
            reply = ("done", index, fn(argument) if kind == "task" else fn())
        except BaseException as exc:  # noqa: B036 - a task never ends its worker: the main process decides
            if not isinstance(exc, Exception):  # SystemExit, KeyboardInterrupt raised by the task itself
                exc = RuntimeError(f"the task raised {type(exc).__name__}: {exc}")
            exc.add_note("in a worker process:\n" + "".join(traceback.format_exception(exc)))
            reply = ("raised", index, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - a value or exception that does not pickle
            conn.send(("raised", index, RuntimeError(f"the result of task {index} cannot be sent back from its worker "
                                                     f"process: {type(exc).__name__}: {exc}")))


def start_method(requested: str | None = None) -> str:
    """How a new worker starts: ``requested`` if given, else "fork" on Linux while this process runs a single Python
    thread, else "spawn". Forking a process with other Python threads can copy a lock one of them holds (a deadlock
    in the child); threads of native libraries are theirs to handle (OpenBLAS, numpy's BLAS, stops its thread pool
    around a fork). Elsewhere fork is unavailable or unsafe (macOS system frameworks)."""
    if requested is not None:
        return requested
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


@contextlib.contextmanager
def _frozen_heap(method: str):
    """Around a fork: the objects this process holds (the imported modules, ~125,000 tracked by the collector once the
    check modules are loaded) are moved out of the garbage collector's reach (`gc.freeze`) while the worker is forked,
    so that the worker's collections never scan them (nor write to their pages, copying them): over the default suite
    the collector's time fell from 1.02 to 0.56 s of CPU in one process (`gc.callbacks`; Python's documented pattern
    for forked workers). This process gets them back at once (`gc.unfreeze`); a worker's results do not depend on it."""
    if method != "fork":
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Worker:
    def __init__(self, method: str):
        context = multiprocessing.get_context(method)
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, os.getpid()), name="relucheck-worker")
        with warnings.catch_warnings(), _frozen_heap(method):  # Python ≥ 3.12 warns of any fork with native threads
            warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks", category=DeprecationWarning)
            self.process.start()
        child.close()
        self.state = "idle"  # idle, preparing, busy
        self.job = None  # (index, task, limit) while busy
        self.started = self.deadline = None

    def send(self, message) -> None:
        self.conn.send(message)

    def how_it_ended(self) -> str:
        self.process.join(STOP_WAIT)
        code = self.process.exitcode
        if code is None:
            return "its pipe closed while the process still ran"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit status {code}"


def _next_task(pending: deque, w, owners: dict, affinity) -> tuple | None:
    """Take the task worker ``w`` starts next from ``pending``: the first whose affinity key is None, unowned or
    owned by ``w`` (``w`` then owns the key), or None if every pending task belongs to another live worker: ``w``
    waits rather than compute again what that worker holds (the tasks of a key after its first are the cheap ones,
    once the first computed what they share). A worker that died leaves its keys to the next worker that takes one
    (`WorkerPool._replace` starts a new worker object)."""
    if affinity is None:
        return pending.popleft()
    for q, (index, task) in enumerate(pending):
        key = affinity(task)
        owner = owners.get(key)
        if key is None or owner is None or owner is w or owner.process.exitcode is not None:
            if key is not None:
                owners[key] = w
            del pending[q]
            return index, task
    return None


def _kill(workers: list) -> None:
    """SIGKILL every worker, then wait for them (bounded; not cut by an interrupt); also registered with atexit while
    workers run."""
    with deferred():
        for w in workers:
            if w.process.exitcode is None:
                with contextlib.suppress(OSError, ValueError):  # gone already
                    w.process.kill()
        end = time.monotonic() + STOP_WAIT
        for w in workers:
            w.process.join(max(end - time.monotonic(), 0))
            w.conn.close()
        workers.clear()


class WorkerPool:
    """``size`` worker processes (started on first use, replaced when one is lost)."""

    def __init__(self, size: int, start: str | None = None):
        self.size, self._start = size, start  # start: "fork" | "spawn" | None (`start_method` for each new worker)
        self._workers: list[_Worker] = []
        self._at_exit = functools.partial(_kill, self._workers)  # multiprocessing's own exit hook would wait forever
        atexit.register(self._at_exit)  # for workers that ignore SIGTERM: kill them first (atexit runs in LIFO order)

    def map_unordered(self, fn, tasks, *, prepare=None, limit=None, on_lost=None, affinity=None):
        """Yield ``(index, fn(task))`` as tasks finish. A lost task yields ``(index, on_lost(task, TaskLost))``, or
        raises the `TaskLost` without ``on_lost``; an exception raised by ``fn`` in a worker is raised here.

        Tasks start in the given order, each on the first free worker, except that with ``affinity`` (task → a
        hashable key or None) the tasks of one key run on the worker that started the first of them, while it lives
        (`_next_task`), so that what they share in memory (memoized runs) is computed once."""
        pending = deque(enumerate(tasks))
        owners = {}  # affinity key → the worker that started its first task
        atexit.unregister(self._at_exit)
        atexit.register(self._at_exit)
        while len(self._workers) < min(self.size, len(pending)):
            self._start_worker()
        if prepare is not None:
            for w in self._workers:
                self._prepare(w, prepare)
        while pending or any(w.state != "idle" for w in self._workers):
            for w in list(self._workers):
                if w.state == "idle" and pending:
                    if w.process.exitcode is not None:  # ended while idle (killed from outside): no task lost
                        self._replace(w, prepare)
                        continue
                    taken = _next_task(pending, w, owners, affinity)
                    if taken is None:  # every pending task waits for another worker (affinity)
                        continue
                    index, task = taken
                    seconds = None if limit is None else limit(task)
                    w.state, w.job, w.started = "busy", (index, task, seconds), time.monotonic()
                    w.deadline = None if seconds is None else w.started + seconds + GRACE
                    try:
                        w.send(("task", index, fn, task))
                    except OSError:  # died just now: its sentinel says so below
                        pass
            active = [w for w in self._workers if w.state != "idle"]
            deadlines = [w.deadline for w in active if w.deadline is not None]
            timeout = None if not deadlines else max(min(deadlines) - time.monotonic(), 0)
            ready = set(wait([w.conn for w in active] + [w.process.sentinel for w in active], timeout))
            for w in active:
                if w.conn in ready or w.process.sentinel in ready:
                    yield from self._receive(w, pending, prepare, on_lost)
                elif w.deadline is not None and time.monotonic() >= w.deadline:
                    index, task, seconds = w.job
                    _kill([w])
                    lost = TaskLost("time limit", f"its worker process was still running it {GRACE:g} s past its time "
                                    f"limit of {seconds:g} s (stuck outside Python, where the limit cannot interrupt "
                                    "it) and was killed", seconds, time.monotonic() - w.started)
                    yield self._lose(w, index, task, lost, pending, prepare, on_lost)

    def _start_worker(self) -> _Worker:
        """A new worker, in the list before an interrupt can arrive (one raised while it starts would leave it
        unknown to `terminate`, and half started)."""
        with deferred():
            w = _Worker(start_method(self._start))
            self._workers.append(w)
        return w

    def _prepare(self, w: _Worker, prepare) -> None:
        w.send(("prepare", None, prepare, None))
        w.state = "preparing"

    def _replace(self, w: _Worker, prepare) -> None:
        _kill([w])
        self._workers.remove(w)
        fresh = self._start_worker()
        if prepare is not None:
            self._prepare(fresh, prepare)

    def _receive(self, w: _Worker, pending, prepare, on_lost):
        try:
            kind, index, value = w.conn.recv()
        except (EOFError, OSError):  # the worker died
            if w.state == "preparing":
                raise RuntimeError(f"a worker process died while preparing ({w.how_it_ended()})") from None
            index, task, seconds = w.job
            lost = TaskLost("died", f"its worker process died ({w.how_it_ended()}): a crash, os._exit or the "
                            "out-of-memory killer", seconds, time.monotonic() - w.started)
            yield self._lose(w, index, task, lost, pending, prepare, on_lost)
            return
        if kind == "raised":
            raise value
        if w.state == "busy":
            w.state, w.job, w.deadline = "idle", None, None
            yield index, value
        w.state = "idle"

    def _lose(self, w: _Worker, index, task, lost: TaskLost, pending, prepare, on_lost):
        """Replace the lost worker (if tasks remain) and give the lost task's stand-in result."""
        if pending:
            self._replace(w, prepare)
        else:
            _kill([w])
            self._workers.remove(w)
        if on_lost is None:
            raise lost
        return index, on_lost(task, lost)

    def close(self) -> None:
        """Ask idle workers to stop; kill any still running `STOP_WAIT` seconds later."""
        for w in self._workers:
            with contextlib.suppress(OSError, ValueError):  # gone already
                w.send(None)
        end = time.monotonic() + STOP_WAIT
        for w in self._workers:
            w.process.join(max(end - time.monotonic(), 0))
        self.terminate()

    def terminate(self) -> None:
        """Kill every worker now (SIGKILL: they ignore SIGTERM) and wait for them (bounded)."""
        _kill(self._workers)
        atexit.unregister(self._at_exit)
