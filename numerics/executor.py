"""Where independent tasks run: in this process, on a pool of local processes, or on a Dask cluster.

One small interface (`Executor.map_unordered`) serves every sweep (`numerics.sweep.Sweep`) and `relucheck run`.
It yields ``(index, result)`` pairs as the tasks finish, in any order. The caller journals each result as it
arrives and sorts by index at the end, so the records are the same serial, parallel or distributed.

* ``serial``: in this process, in order.
* ``process`` (the default of the command line): a pool of local processes, forked where that is safe, else
  started with "spawn" (`numerics.process_pool.start_method`), even for one task: a task that ends its worker
  (``os._exit``, a crash) or overruns its time limit in C code loses that task only. Workers ignore SIGINT, SIGTERM
  and SIGHUP: the signal reaches the main process (`numerics.interrupts`), which kills them and keeps what was
  journaled.
* ``dask``: `distributed.Client` on ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``, from ``dask
  scheduler`` with ``dask worker`` processes on other machines), or on a `distributed.LocalCluster` of local
  worker processes bound to 127.0.0.1 when no address is given.

A task function must be importable by name (a module-level function) for ``process`` and ``dask``; it
receives one argument. `Executor.map_unordered` also takes ``prepare`` (run once per worker before its tasks),
``limit`` (a task's time limit in seconds, from the task) and ``on_lost`` (the stand-in result of a task whose
worker died or was killed: the process pool calls it for a dead or overrunning worker, Dask for a task that
killed its workers, ``KilledWorker``; serially a task cannot be lost) and, where ``places_by_affinity`` is true (the
process pool), ``affinity`` (task → a key or None: the tasks of one key run in one worker process, which computes
what they share once, `numerics.process_pool.WorkerPool.map_unordered`; elsewhere it is not used). The limit only
backs up the task's own (`numerics.time_limit`): the pool kills a worker still running `process_pool.GRACE` seconds
past it; Dask cannot stop a running task. Tasks are the caller's to make reproducible: every relucheck task carries its seed.
`current_executor` / `use_executor` let the command line choose the executor for every sweep below it
without threading it through each figure function.
"""
from __future__ import annotations

import logging

import contextlib
import contextvars
import os
import signal
import threading
from typing import Callable, Iterable, Iterator

from .errors import RelucheckInputError

KINDS = ("serial", "process", "dask")
STOP_SECONDS = 5  # a Dask client or LocalCluster that does not close within this is left to end with the process


def available_cores() -> int:
    """The cores this process may use (the affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        return os.cpu_count() or 1


class Executor:
    """The interface: `map_unordered`, `close`, and use as a context manager."""

    kind = "serial"
    workers = 1
    places_by_affinity = False  # whether map_unordered takes ``affinity`` (module docstring)

    def map_unordered(self, fn: Callable, tasks: Iterable, *, prepare: Callable | None = None,
                      limit: Callable | None = None, on_lost: Callable | None = None,
                      affinity: Callable | None = None) -> Iterator[tuple[int, object]]:
        if prepare is not None:
            prepare()
        for k, task in enumerate(tasks):
            yield k, fn(task)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class SerialExecutor(Executor):
    """Every task in this process, in order."""


def _indexed(job):
    fn, k, task = job
    return k, fn(task)


class ProcessExecutor(Executor):
    """A pool of ``workers`` local processes (`numerics.process_pool`, started on first use)."""

    kind = "process"
    places_by_affinity = True

    def __init__(self, workers: int | None = None):
        self.workers = available_cores() if workers is None else workers
        self._pool = None

    def map_unordered(self, fn, tasks, *, prepare=None, limit=None, on_lost=None, affinity=None):
        from .process_pool import WorkerPool

        tasks = list(tasks)
        if not tasks:
            return
        if self._pool is None:
            self._pool = WorkerPool(self.workers)
        pool = self._pool
        try:
            yield from pool.map_unordered(fn, tasks, prepare=prepare, limit=limit, on_lost=on_lost, affinity=affinity)
        except BaseException:  # Ctrl-C, an error, or the consumer stopped early: stop the workers now
            pool.terminate()
            if self._pool is pool:
                self._pool = None
            raise

    def close(self, terminate: bool = False):
        """Let the workers finish (or kill them at once with ``terminate``, as after Ctrl-C or an error); bounded."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate() if terminate else pool.close()

    def __exit__(self, exc_type, *exc):
        self.close(terminate=exc_type is not None)
        return False


@contextlib.contextmanager
def _children_deaf_to_the_terminal():
    """A block whose child processes never see SIGINT or SIGHUP: a LocalCluster's worker processes, and
    multiprocessing's resource tracker, started inside it.

    Ctrl-C in a terminal, and closing it, send the signal to every process of the foreground group. The run's main
    process ends the run on it (`numerics.interrupts`) and stops the cluster; a Dask worker that took the signal
    too printed its own KeyboardInterrupt traceback, and the resource tracker (it ignores SIGINT and SIGTERM, not
    SIGHUP) died, was relaunched, and printed a KeyError traceback for each name it no longer knew (red team,
    issue 20). The signals are blocked in this thread while the children start: a child inherits the mask of the
    thread that starts it (and so does distributed's event-loop thread, started here, which starts replacement
    workers later); in this process a blocked signal is delivered to another thread or when the mask is restored,
    so the run's own handling is unchanged."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    deaf = {signal.SIGINT, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, deaf)
    try:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, deaf)  # ensure_running unblocks SIGINT (and SIGTERM) when it is done
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class DaskExecutor(Executor):
    """Tasks on a Dask distributed cluster: the one at ``scheduler``, or a LocalCluster on 127.0.0.1."""

    kind = "dask"

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        self.scheduler = scheduler
        self.workers = available_cores() if workers is None else workers
        self._client = self._cluster = None

    def _connect(self):
        if self._client is not None:
            return self._client
        from distributed import Client, LocalCluster

        if self.scheduler is None:
            import dask

            # worker processes that may start children (numerics.budget), as in process_pool; a cluster started
            # elsewhere needs the same setting: `distributed.worker.daemon: false` (docs/executor.md)
            dask.config.set({"distributed.worker.daemon": False})
            # silence_logs: distributed's own WARNING lines (a worker or nanny closing on an interrupt) are not the
            # user's business; its errors still print in this process. The worker processes log nothing below
            # CRITICAL (numerics.dask_quiet_workers says why)
            from .dask_quiet_workers import QuietWorkerLogs

            with _children_deaf_to_the_terminal():
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                             host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
                self._client = Client(self._cluster)
            self._client.register_plugin(QuietWorkerLogs())
        else:
            try:
                self._client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise RelucheckInputError(f"--scheduler {self.scheduler}: cannot connect to a Dask scheduler there "
                                          f"({type(exc).__name__}: {exc})") from None
        return self._client

    def map_unordered(self, fn, tasks, *, prepare=None, limit=None, on_lost=None, affinity=None):
        """As `Executor.map_unordered`; ``prepare``, ``limit`` and ``affinity`` are not used (each task loads what it
        needs, a running Dask task cannot be stopped, and Dask places tasks itself); a task that killed its workers
        (``KilledWorker``, after the scheduler's retries) is handed to ``on_lost``."""
        from distributed import KilledWorker, as_completed

        from .process_pool import TaskLost

        tasks = list(tasks)
        if not tasks:
            return
        client = self._connect()
        futures = client.map(_indexed, [(fn, k, t) for k, t in enumerate(tasks)], pure=False)
        index = {future.key: k for k, future in enumerate(futures)}
        try:
            for future in as_completed(futures):
                try:
                    k, result = future.result()
                except KilledWorker as exc:
                    if on_lost is None:
                        raise
                    k = index[future.key]
                    result = on_lost(tasks[k], TaskLost("died", f"it ended every Dask worker process that ran it "
                                                                f"(KilledWorker: {exc})"))
                yield k, result
        except BaseException:
            if self._client is client:  # not closed already (this generator may be closed after the executor)
                client.cancel(futures)
            raise

    def close(self):
        """Disconnect, and stop the LocalCluster (bounded: its worker processes also end with this process). What
        distributed logs while it tears down a cluster we are stopping (after an interrupt: a nanny's cancelled RPC,
        with its traceback) is not the user's business: its loggers are muted for the teardown."""
        loggers = [logging.getLogger(name) for name in logging.root.manager.loggerDict if name.startswith("distributed")]
        levels = [logger.level for logger in loggers]
        for logger in loggers:
            logger.setLevel(logging.CRITICAL)
        try:
            if self._client is not None:
                self._client.close(timeout=STOP_SECONDS)
            if self._cluster is not None:
                self._cluster.close(timeout=STOP_SECONDS)
        except TimeoutError:  # its worker processes watch this process and end with it
            pass
        finally:
            self._client = self._cluster = None
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)


def make_executor(kind: str = "process", *, workers: int | None = None, scheduler: str | None = None) -> Executor:
    """The executor named ``kind``; ``scheduler`` implies dask. Bad values are `RelucheckInputError`s naming the
    option."""
    if scheduler is not None:
        if kind not in ("dask", "process"):
            raise RelucheckInputError(f"--scheduler needs --executor dask, got --executor {kind}")
        kind = "dask"
    if kind not in KINDS:
        raise RelucheckInputError(f"--executor must be one of {', '.join(KINDS)}, got {kind!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise RelucheckInputError(f"--workers must be an integer ≥ 1, got {workers!r}")
    if kind == "serial":
        return SerialExecutor()
    if kind == "process":
        return ProcessExecutor(workers)
    return DaskExecutor(scheduler, workers)


_CURRENT: contextvars.ContextVar[Executor | None] = contextvars.ContextVar("relucheck_executor", default=None)


def current_executor() -> Executor:
    """The executor chosen by an enclosing `use_executor`, else serial."""
    return _CURRENT.get() or SerialExecutor()


@contextlib.contextmanager
def use_executor(executor: Executor):
    """Run sweeps below this point on ``executor`` (closed on exit)."""
    token = _CURRENT.set(executor)
    try:
        with executor:
            yield executor
    finally:
        _CURRENT.reset(token)
