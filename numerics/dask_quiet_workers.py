"""The worker processes of relucheck's own LocalCluster log nothing below CRITICAL (`numerics.executor`).

A Dask worker whose scheduler goes away first logs "Failed to communicate with scheduler during heartbeat" with a
traceback, at ERROR. After Ctrl-C the run's main process stops the cluster (`DaskExecutor.close`) while its workers,
deaf to the terminal, may still be in a task; whichever of the scheduler and a worker ends first is a race, and on a
loaded 2-core machine the worker sometimes loses it (a clean-clone CI run, 2026-11-27, printed that traceback under
the interrupt message). Nothing a worker logs is the user's to read: a task's exception reaches the main process
through its future, and a worker that dies reaches it as ``KilledWorker``. `LocalCluster(silence_logs=...)` sets the
level of ``distributed.nanny`` alone in a worker process, so the quieting is a worker plugin, which also covers a
worker restarted after a crash. A cluster at ``--scheduler`` is someone else's and keeps its logging.

This module imports distributed; `numerics.executor` imports it only when it starts a LocalCluster.
"""
from __future__ import annotations

import logging

from distributed.diagnostics.plugin import WorkerPlugin

QUIET_PREFIXES = ("distributed", "tornado")


def quiet_loggers() -> None:
    """Set every ``distributed.*`` and ``tornado.*`` logger of this process to CRITICAL."""
    names = [name for name in logging.root.manager.loggerDict if name.startswith(QUIET_PREFIXES)]
    for name in {*QUIET_PREFIXES, *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL)


class QuietWorkerLogs(WorkerPlugin):
    """Run `quiet_loggers` in each worker process as it joins."""

    name = "relucheck-quiet-worker-logs"
    idempotent = True

    def setup(self, worker) -> None:
        quiet_loggers()
