"""How the process pool starts its workers (`numerics.process_pool.start_method`, issue 22 item 5): forked on Linux
while the main process runs one Python thread (they inherit its imports: no ~1.3 s import of the check modules per
worker), spawned otherwise or on request; the tasks' results are the same either way."""
import os
import sys
import threading

import pytest

from relucheck.numerics.process_pool import WorkerPool, start_method


def _pid_and_square(x):
    return os.getpid(), x * x


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork is chosen on Linux only")
def test_fork_on_linux_with_one_thread_spawn_with_more():
    assert threading.active_count() == 1 or start_method() == "spawn"
    if threading.active_count() == 1:
        assert start_method() == "fork"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert start_method() == "spawn"  # another Python thread might hold a lock across the fork
    finally:
        stop.set()
        other.join()
    assert start_method("spawn") == "spawn" and start_method("fork") == "fork"


@pytest.mark.parametrize("method", ["fork", "spawn"] if sys.platform.startswith("linux") else ["spawn"])
def test_both_start_methods_give_the_same_results(method):
    pool = WorkerPool(2, start=method)
    try:
        got = dict(pool.map_unordered(_pid_and_square, [1, 2, 3, 4]))
    finally:
        pool.close()
    assert {k: v[1] for k, v in got.items()} == {0: 1, 1: 4, 2: 9, 3: 16}
    assert os.getpid() not in {v[0] for v in got.values()}
