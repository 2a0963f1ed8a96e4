"""Checks that share memoized runs run in one pool worker (issue 22, item 5): `numerics.process_pool`'s affinity
(`_next_task`) and the runner's groups (`proofs_checks.runner.SHARED_RUNS`). Placement changes only the cost of a run,
never its records: a pooled run of a group gives the serial run's records."""
from collections import deque
from types import SimpleNamespace

import pytest

from relucheck.numerics.executor import ProcessExecutor, SerialExecutor
from relucheck.numerics.process_pool import WorkerPool, _next_task
from relucheck.proofs_checks.registry import select
from relucheck.proofs_checks.runner import SHARED_RUNS, run_checks, shared_runs_of, start_order


def _worker(alive: bool = True):
    return SimpleNamespace(process=SimpleNamespace(exitcode=None if alive else -9))


def _key(task):
    return task[0]


def test_a_worker_takes_its_own_keys_and_free_ones_and_waits_rather_than_take_another_workers():
    one, two = _worker(), _worker()
    pending = deque(enumerate([("a", 1), ("a", 2), (None, 3), ("b", 4), ("a", 5)]))
    owners = {}
    assert _next_task(pending, one, owners, _key) == (0, ("a", 1)) and owners == {"a": one}
    assert _next_task(pending, two, owners, _key) == (2, (None, 3))  # "a" is one's: two skips it
    assert _next_task(pending, two, owners, _key) == (3, ("b", 4)) and owners["b"] is two
    assert _next_task(pending, two, owners, _key) is None  # only one's tasks are left: two waits
    assert [i for i, _ in pending] == [1, 4]
    assert _next_task(pending, one, owners, _key) == (1, ("a", 2))


def test_the_keys_of_a_dead_worker_go_to_the_next_worker_that_takes_one():
    dead, fresh = _worker(alive=False), _worker()
    owners = {"a": dead}
    assert _next_task(deque([(0, ("a", 1))]), fresh, owners, _key) == (0, ("a", 1)) and owners["a"] is fresh


def test_without_affinity_the_tasks_start_in_order():
    pending = deque(enumerate(["x", "y"]))
    assert _next_task(pending, _worker(), {}, None) == (0, "x")


def _pid(task):
    import os

    return os.getpid()


def test_a_pool_runs_the_tasks_of_a_key_in_one_process_and_every_task_once():
    tasks = [("a", 0), (None, 1), ("b", 2), ("a", 3), (None, 4), ("b", 5), ("a", 6), (None, 7)]
    pool = WorkerPool(2)
    try:
        pids = dict(pool.map_unordered(_pid, tasks, affinity=_key))
    finally:
        pool.close()
    assert sorted(pids) == list(range(len(tasks)))
    for key in ("a", "b"):
        assert len({pids[k] for k, task in enumerate(tasks) if task[0] == key}) == 1, key


def test_the_groups_name_default_checks_once_and_each_starts_with_the_check_that_computes_the_runs():
    checks = select("default")
    ids = [c.id for c in checks]
    order = [ids[k] for k in start_order(checks)]
    members = [cid for group in SHARED_RUNS for cid in group]
    assert len(members) == len(set(members)) and set(members) <= set(ids)
    for group in SHARED_RUNS:
        assert {shared_runs_of((cid,)) for cid in group} == {group[0]}
        assert min(order.index(cid) for cid in group) == order.index(group[0]), group  # the provider starts first
    assert shared_runs_of(("C.thm3.min_norm_formula",)) is None


def test_a_serial_executor_takes_no_affinity_and_the_pool_does():
    assert not SerialExecutor.places_by_affinity and ProcessExecutor.places_by_affinity


@pytest.mark.parametrize("pattern", ["A.lemF.[234].*", "B.thm2.transition_time_*", "B.prop2.[cm][lu]*"])
def test_a_group_pooled_gives_the_serial_records(pattern):
    checks = select("default", pattern)
    assert len({shared_runs_of((c.id,)) for c in checks} - {None}) >= 1
    with ProcessExecutor(2) as pool:
        pooled = run_checks(checks, seed=0, mutate=True, progress=False, executor=pool)
    serial = run_checks(checks, seed=0, mutate=True, progress=False)
    assert [r.id for r in pooled] == [r.id for r in serial]
    for a, b in zip(pooled, serial):
        ja, jb = a.to_json(), b.to_json()
        ja.pop("seconds"), jb.pop("seconds")
        assert ja == jb, a.id


def _frozen(task):
    import gc

    return gc.get_freeze_count()


def test_a_forked_worker_starts_with_the_parents_objects_out_of_the_collectors_reach():
    import gc

    pool = WorkerPool(1, start="fork")
    try:
        frozen = dict(pool.map_unordered(_frozen, [0]))[0]
    finally:
        pool.close()
    assert frozen > 0 and gc.get_freeze_count() == 0  # the worker's heap frozen; this process's given back


def _versions_of_a_worker(task):
    from relucheck.proofs_checks import runner

    return runner._process_versions.cache_info().currsize


def test_a_pool_worker_inherits_the_versions_the_run_read_before_forking_it():
    from relucheck.proofs_checks import runner

    runner._process_versions.cache_clear()
    with ProcessExecutor(1) as pool:
        run_checks(select("default", "A.thm3.1.rate"), progress=False, executor=pool)
        assert runner._process_versions.cache_info().currsize == 1  # read in this process, by run_checks
        cached = dict(pool.map_unordered(_versions_of_a_worker, [0]))[0]
    assert cached == 1  # the worker found it cached: forked after it was read
