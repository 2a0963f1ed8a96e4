"""Where independent tasks run: in this process, on a pool of local processes, or on a Dask cluster.

One small interface (`Executor.map_unordered`) serves every sweep (`numerics.sweep.Sweep`) and `relucheck run`.
It yields ``(index, result)`` pairs as the tasks finish, in any order. The caller journals each result as it
arrives and sorts by index at the end, so the records are the same serial, parallel or distributed.

* ``serial``: in this process, in order.
* ``process`` (the default of the command line): a `multiprocessing` pool of local processes started with
  "spawn". Workers import what they need afresh and ignore SIGINT: Ctrl-C reaches the main process, which
  terminates them and keeps what was journaled.
* ``dask``: `distributed.Client` on ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``, from ``dask
  scheduler`` with ``dask worker`` processes on other machines), or on a `distributed.LocalCluster` of local
  worker processes bound to 127.0.0.1 when no address is given.

A task function must be importable by name (a module-level function) for ``process`` and ``dask``; it
receives one argument. Tasks are the caller's to make reproducible: every relucheck task carries its seed.
`current_executor` / `use_executor` let the command line choose the executor for every sweep below it
without threading it through each figure function.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import signal
from typing import Callable, Iterable, Iterator

from .errors import RelucheckInputError

KINDS = ("serial", "process", "dask")


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

    def map_unordered(self, fn: Callable, tasks: Iterable) -> Iterator[tuple[int, object]]:
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


def _worker_init() -> None:
    """A pool worker ignores SIGINT (Ctrl-C is the main process's to handle) and may start processes of its own:
    `numerics.budget` runs SymPy's simplifications in a forked child that it can kill, and multiprocessing forbids
    children to its (daemonic) pool workers. Without this, check-ode's symbolic proofs fail in a pool and the records
    differ from a serial run's."""
    import multiprocessing

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    multiprocessing.current_process().daemon = False


def _indexed(job):
    fn, k, task = job
    return k, fn(task)


class ProcessExecutor(Executor):
    """A pool of ``workers`` local processes (spawned on first use)."""

    kind = "process"

    def __init__(self, workers: int | None = None):
        self.workers = available_cores() if workers is None else workers
        self._pool = None

    def map_unordered(self, fn, tasks):
        tasks = list(tasks)
        if len(tasks) <= 1 or self.workers == 1:  # a pool for one task or one worker only adds start-up time
            yield from Executor.map_unordered(self, fn, tasks)
            return
        if self._pool is None:
            import multiprocessing

            self._pool = multiprocessing.get_context("spawn").Pool(min(self.workers, len(tasks)),
                                                                   initializer=_worker_init)
        pool = self._pool
        try:
            yield from pool.imap_unordered(_indexed, [(fn, k, t) for k, t in enumerate(tasks)])
        except BaseException:  # Ctrl-C, an error, or the consumer stopped early: stop the workers now
            pool.terminate()
            if self._pool is pool:
                self._pool = None
            raise

    def close(self, terminate: bool = False):
        """Let the workers finish (or stop them at once with ``terminate``, as after Ctrl-C or an error)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate() if terminate else pool.close()
            pool.join()

    def __exit__(self, exc_type, *exc):
        self.close(terminate=exc_type is not None)
        return False


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

            # worker processes that may start children (numerics.budget), as in _worker_init; a cluster started
            # elsewhere needs the same setting: `distributed.worker.daemon: false` (docs/executor.md)
            dask.config.set({"distributed.worker.daemon": False})
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                         host="127.0.0.1", dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise RelucheckInputError(f"--scheduler {self.scheduler}: cannot connect to a Dask scheduler there "
                                          f"({type(exc).__name__}: {exc})") from None
        return self._client

    def map_unordered(self, fn, tasks):
        from distributed import as_completed

        tasks = list(tasks)
        if not tasks:
            return
        client = self._connect()
        futures = client.map(_indexed, [(fn, k, t) for k, t in enumerate(tasks)], pure=False)
        try:
            for _, (k, result) in as_completed(futures, with_results=True):
                yield k, result
        except BaseException:
            client.cancel(futures)
            raise

    def close(self):
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


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
