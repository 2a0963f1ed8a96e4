"""Where a run's tasks start (issue 22, item 5): a pool starts the checks with a known long cost first
(`proofs_checks.runner.start_order`, longest-processing-time-first), and the records come back in check order
whatever the start order and whatever order the tasks finish in."""
from relucheck.numerics.executor import Executor
from relucheck.proofs_checks import runner
from relucheck.proofs_checks.registry import select
from relucheck.proofs_checks.runner import EXPECTED_SECONDS, run_checks, start_order


def test_the_costed_checks_start_longest_first_and_the_others_keep_their_order():
    checks = select("default")
    order = [checks[k].id for k in start_order(checks)]
    costed = [cid for cid in order if cid in EXPECTED_SECONDS]
    assert order[0] == max(EXPECTED_SECONDS, key=EXPECTED_SECONDS.get) == "B.remC2.float64_vs_mpmath_general_data"
    assert costed == sorted(costed, key=lambda cid: -EXPECTED_SECONDS[cid]) == order[:len(costed)]
    assert order[len(costed):] == [c.id for c in checks if c.id not in EXPECTED_SECONDS]
    assert sorted(order) == sorted(c.id for c in checks)  # every check once
    assert set(EXPECTED_SECONDS) <= {c.id for c in checks}, "a cost names a check of the default suite"


class _ReversingPool(Executor):
    """A stand-in pool (in this process): notes the order tasks are handed to it and finishes them in reverse."""

    kind = "process"

    def __init__(self):
        self.started = []

    def map_unordered(self, fn, tasks, *, prepare=None, limit=None, on_lost=None):
        tasks = list(tasks)
        self.started = [task[0] for task in tasks]
        done = [(k, fn(task)) for k, task in enumerate(tasks)]
        yield from reversed(done)


def test_records_come_back_in_check_order_whatever_starts_and_finishes_first(monkeypatch):
    checks = select("default", "B.lem1.*")
    last = checks[-1].id
    monkeypatch.setitem(EXPECTED_SECONDS, last, 1.0)  # the last check by id is now the one a pool starts first
    pool = _ReversingPool()
    pooled = run_checks(checks, seed=0, mutate=True, progress=False, executor=pool)
    assert pool.started[0] == last and sorted(pool.started) == [c.id for c in checks]
    serial = run_checks(checks, seed=0, mutate=True, progress=False)
    assert [r.id for r in pooled] == [r.id for r in serial] == runner.record_ids(checks, True)
    for a, b in zip(pooled, serial):
        ja, jb = a.to_json(), b.to_json()
        ja.pop("seconds"), jb.pop("seconds")
        assert ja == jb, a.id
