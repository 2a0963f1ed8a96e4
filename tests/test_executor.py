"""Executors (numerics.executor): a sweep and `relucheck run` give the same records serial, on a process pool and on
a Dask LocalCluster bound to the loopback interface; a partial store resumes; bad options exit 2."""
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relucheck.numerics.executor import DaskExecutor, ProcessExecutor, SerialExecutor, make_executor, use_executor
from relucheck.numerics.paper_a_training import threshold_sweep
from relucheck.numerics.process_pool import TaskLost
from relucheck.numerics.durable_files import read_json_lines
from relucheck.numerics.errors import RelucheckInputError

TINY = dict(m=5, max_steps=2000, n_test=50, check_every=100)  # a small A threshold sweep: 6 batches of 2 seeds
TIMING = ("seconds", "wall_seconds")  # the only fields that differ between two runs of the same computation


def _sweep(path: Path, executor) -> list[dict]:
    with use_executor(executor):
        return threshold_sweep(path, [2], (0, 1), scale="reduced", progress=False, **TINY)


def _untimed(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


@pytest.fixture(scope="module")
def serial_rows(tmp_path_factory) -> list[dict]:
    return _untimed(_sweep(tmp_path_factory.mktemp("serial") / "a.jsonl", SerialExecutor()))


@pytest.mark.parametrize("executor", [
    pytest.param(lambda: ProcessExecutor(2), id="process-pool"),
    pytest.param(lambda: DaskExecutor(workers=2), id="dask-localcluster-127.0.0.1"),
])
def test_a_sweep_gives_the_serial_records_on_every_executor(tmp_path, serial_rows, executor):
    rows = _sweep(tmp_path / "a.jsonl", executor())
    assert len(rows) == len(serial_rows) == 12
    assert _untimed(rows) == serial_rows  # record by record, bit for bit (same batches, same arithmetic)


def test_the_dask_cluster_listens_on_the_loopback_interface_only():
    with DaskExecutor(workers=1) as ex:
        client = ex._connect()
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
        assert all(addr.startswith("tcp://127.0.0.1:") for addr in client.scheduler_info()["workers"])


def test_the_local_clusters_workers_print_no_log_line(capfd):
    """A worker whose scheduler went first logged its heartbeat failure with a traceback at ERROR, under the interrupt
    message of a clean-clone CI run (tests/test_red_team_issue20.py). Here a task logs an ERROR line through
    ``distributed.worker`` in the worker process, as that heartbeat does; nothing of it reaches stderr."""
    import logging

    with DaskExecutor(workers=1) as ex:
        done = list(ex.map_unordered(logging.getLogger("distributed.worker").error, ["relucheck-test-line"]))
    assert done == [(0, None)]
    assert "relucheck-test-line" not in capfd.readouterr().err


def test_a_partial_store_resumes_with_the_missing_points_only(tmp_path, serial_rows):
    path = tmp_path / "a.jsonl"
    _sweep(path, SerialExecutor())
    rows, _ = read_json_lines(path)
    kept = rows[:5]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    resumed = _sweep(path, ProcessExecutor(2))
    assert _untimed(resumed) == serial_rows
    after, _ = read_json_lines(path)
    assert len(after) == 12 and after[:5] == kept  # the 5 finished rows were not recomputed


def _run(out: Path, *extra: str, only: str = "B.lem1.*", env: dict | None = None) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--only", only, "--mutate", "--quiet",
                           "--out", str(out), *extra], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    records = json.loads((out / "results.json").read_text())
    for rec in records:
        rec.pop("seconds")
    return records


def test_run_records_are_the_same_serial_parallel_and_on_dask(tmp_path):
    serial = _run(tmp_path / "serial", "--executor", "serial")
    assert len(serial) == 8
    assert _run(tmp_path / "process", "--executor", "process", "--workers", "2") == serial
    assert _run(tmp_path / "dask", "--executor", "dask", "--workers", "2") == serial


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def test_run_records_do_not_depend_on_the_blas_thread_count(tmp_path):
    """C.thm3.min_norm_formula's last digits depended on OpenBLAS' thread count: a serial run used every core, Dask
    workers one thread (Dask sets OPENBLAS_NUM_THREADS=1 in them). Every check now runs with BLAS on one thread
    (`proofs_checks.runner`), so the environment's thread count changes nothing."""
    unset = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    serial = _run(tmp_path / "serial", "--executor", "serial", only="C.thm3.min_norm_formula", env=unset)
    assert len(serial) == 2
    one = _run(tmp_path / "one", "--executor", "serial", only="C.thm3.min_norm_formula",
               env={**unset, "OPENBLAS_NUM_THREADS": "1"})
    assert one == serial
    dask = _run(tmp_path / "dask", "--executor", "dask", "--workers", "2", only="C.thm3.min_norm_formula", env=unset)
    assert dask == serial


@pytest.mark.parametrize("args, message", [
    (["--executor", "threads"], "argument --executor: invalid choice"),
    (["--workers", "0"], "argument --workers: must be in [1, 4096] worker processes"),
    (["--workers", "two"], "argument --workers: must be an integer number of worker processes"),
    (["--executor", "serial", "--scheduler", "tcp://127.0.0.1:9"], "--scheduler needs --executor dask"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler tcp://127.0.0.1:9: cannot connect to a Dask scheduler"),
])
def test_bad_executor_options_exit_2(tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--only", "B.lem1.*", "--out", str(tmp_path / "o"),
                           *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_tasks_exception_in_a_pool_worker_is_raised_here():
    with ProcessExecutor(2) as ex, pytest.raises(ValueError, match="math domain error"):
        list(ex.map_unordered(math.sqrt, [4.0, -1.0]))


def test_a_task_that_ends_its_worker_is_lost_not_waited_for():
    """multiprocessing.Pool waited forever for it; the pool hands it to ``on_lost`` (or raises `TaskLost`)."""
    with ProcessExecutor(2) as ex:
        out = dict(ex.map_unordered(os._exit, [3, 4], on_lost=lambda task, lost: (task, lost.kind, str(lost))))
    assert out == {k: (code, "died", f"its worker process died (exit status {code}): a crash, os._exit or the "
                                     "out-of-memory killer") for k, code in enumerate([3, 4])}
    with ProcessExecutor(1) as ex, pytest.raises(TaskLost, match="exit status 5"):
        list(ex.map_unordered(os._exit, [5]))


def test_a_task_stuck_past_its_limit_is_killed_and_the_next_one_runs():
    with ProcessExecutor(1) as ex:
        out = dict(ex.map_unordered(time.sleep, [600, 0], limit=lambda seconds: 0.1,
                                    on_lost=lambda task, lost: (lost.kind, lost.limit)))
    assert out == {0: ("time limit", 0.1), 1: None}


def test_make_executor_refuses_bad_values():
    with pytest.raises(RelucheckInputError, match="--executor must be one of"):
        make_executor("gpu")
    with pytest.raises(RelucheckInputError, match="--workers must be an integer ≥ 1"):
        make_executor("process", workers=0)
    assert make_executor("process", scheduler="tcp://x:1").kind == "dask"


def test_the_default_suite_gives_the_same_records_on_a_process_pool(default_suite_run, tmp_path):
    """Every record of `relucheck run --mutate` on a pool of 2 processes equals the serial in-process run of the
    same checks, apart from the wall time: the checks' randomness is seeded, hypothesis' targeted searches ignore
    which modules are loaded (`proofs_checks.tightest`), and pool workers may fork SymPy's budgeted simplifications
    (`numerics.executor._worker_init`)."""
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--mutate", "--quiet", "--executor", "process",
                           "--workers", "2", "--out", str(tmp_path / "o")], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pooled = {rec["id"]: rec for rec in json.loads((tmp_path / "o" / "results.json").read_text())}
    serial = {rec.id: rec.to_json() for rec in default_suite_run.records()}
    assert sorted(pooled) == sorted(serial)
    for rid, rec in serial.items():
        rec.pop("seconds"), pooled[rid].pop("seconds")
        assert pooled[rid] == rec, rid
