"""The default suite's cost per check and the pool's schedule (issue 22, item 5: `relucheck run` under 20 s on 2 cores).

By default every check of the suite runs in its own process forked from one that has loaded every check module, as a
pool worker is (`numerics.process_pool`), so that no check profits from another's memoized runs: printed is each
check's CPU time (user + sys of its process and of the processes it forks, `resource.getrusage(RUSAGE_CHILDREN)`) and
wall time, longest first. CPU time is what a check costs a worker whatever else the machine runs; wall time grows
with the load. Then the pool's schedule is simulated on ``--workers`` workers from these CPU times (without the
memoized runs a worker shares): the tasks start in `proofs_checks.runner.start_order`, each on the first free
worker; printed are the makespan (the longest worker's CPU seconds) and the lower bound max(longest check, total /
workers).

* ``--serial``: every check one after another in one forked process, in id order, each one's CPU seconds (what
  `relucheck run --executor serial` pays, the memoized runs of earlier checks reused);
* ``--sharing``: as ``--serial``, and which memoized functions (functools caches) each check computes and reuses;
  `runner.SHARED_RUNS` is read from it;
* ``--pool [--rounds R]``: the suite on a `WorkerPool` as `relucheck run` starts it, without and with affinity
  (`runner.SHARED_RUNS`), interleaved R times: each worker's CPU seconds (its tasks' and their children's), their
  maximum (the makespan in CPU seconds, what an idle 2-core machine's wall time follows) and the wall time;
* ``--groups``: each group of `runner.SHARED_RUNS` in one process against its checks apart;
* ``--timeline [RUN OPTIONS]``: `relucheck run --quiet` itself (the command line, in a child process in a temporary
  directory, the options after ``--timeline`` passed on), with each task's worker, start, end and CPU seconds logged:
  printed are the main process's phases (start-up to the first task, the run, the reports, the exit after them,
  interpreter shutdown included), each worker's first start, last end, CPU and idle time between its tasks, and the
  CPU of the whole command. It answers where the wall time goes that the checks' CPU does not explain.

Run from the repository root: ``nice python -m bench.suite_schedule [--only PATTERN] [--workers 2] [MODE]``.
Nothing here is timed in a test; the figures depend on the machine and its load.
"""
from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import time


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_in_child(ids: list[str], seed: int) -> tuple[float, float, list[str]]:
    """(CPU s, wall s, statuses) of running the checks ``ids`` one after another in one forked process."""
    from relucheck.proofs_checks.registry import get_check
    from relucheck.proofs_checks.runner import run_check

    read, write = os.pipe()
    cpu0, wall0 = _child_cpu(), time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        statuses = [run_check(get_check(i), seed, in_worker=True).status.value for i in ids]
        os.write(write, ",".join(statuses).encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return _child_cpu() - cpu0, time.perf_counter() - wall0, b"".join(chunks).decode().split(",")


def memoized() -> dict[str, object]:
    """Every memoized function (functools.lru_cache, functools.cache) at the top level of a loaded relucheck module
    or of a class there, by qualified name."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("relucheck") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            for obj in [value] + (list(vars(value).values()) if isinstance(value, type) else []):
                if hasattr(obj, "cache_info") and getattr(obj, "__module__", None) == name:
                    found[f"{name}.{getattr(obj, '__qualname__', attr)}"] = obj
    return found


def _serial(ids: list[str], seed: int, sharing: bool = False) -> int:
    """Every check in ``ids`` one after another in one forked process; each one's CPU time, the memoized runs of the
    checks before it shared (as `relucheck run --executor serial`); with ``sharing``, each memoized function's new
    misses (computed) and hits (reused) during each check."""
    from relucheck.proofs_checks.registry import get_check
    from relucheck.proofs_checks.runner import run_check

    cpu0 = _child_cpu()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        for cid in ids:
            before = {k: f.cache_info() for k, f in memoized().items()} if sharing else {}
            start = _own_and_children_cpu()
            status = run_check(get_check(cid), seed, in_worker=True).status.value
            print(f"  {_own_and_children_cpu() - start:7.2f} s CPU  {status:>12}  {cid}", flush=True)
            for k, f in memoized().items() if sharing else ():
                info, old = f.cache_info(), before.get(k)
                misses, hits = info.misses - (old.misses if old else 0), info.hits - (old.hits if old else 0)
                if misses or hits:
                    print(f"      {k}: {misses} computed, {hits} reused", flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
    print(f"{len(ids)} checks in one process: {_child_cpu() - cpu0:.2f} s CPU, load {os.getloadavg()[0]:.2f}")
    return 0


def _own_and_children_cpu() -> float:
    """CPU seconds of this process and of its waited-for children (`numerics.budget`'s forked simplifications)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed_task(task):
    """`runner.check_task` in a pool worker, with the worker's pid and the task's CPU seconds (its children's too)."""
    from relucheck.proofs_checks.runner import check_task

    start = _own_and_children_cpu()
    records = check_task(task)
    return os.getpid(), _own_and_children_cpu() - start, [r.status.value for r in records]


def _pool(checks, seed: int, workers: int, rounds: int) -> int:
    """The suite on a `WorkerPool` of ``workers`` in `start_order`, with affinity (runner.SHARED_RUNS) and without,
    interleaved: each worker's CPU seconds (the sum of its tasks'), their maximum (the makespan in CPU seconds) and
    the wall time of the pool."""
    from relucheck.numerics.process_pool import WorkerPool
    from relucheck.proofs_checks.runner import prepare_worker, shared_runs_of, start_order

    order = start_order(checks)
    tasks = [(checks[k].id, seed, (False,), (), None) for k in order]
    for r in range(rounds):
        for affinity in (None, shared_runs_of):
            pool = WorkerPool(workers)
            wall = time.perf_counter()
            per_worker: dict[int, float] = {}
            for _, (pid, cpu, _) in pool.map_unordered(_timed_task, tasks, prepare=functools.partial(prepare_worker, ()),
                                                       affinity=affinity):
                per_worker[pid] = per_worker.get(pid, 0.0) + cpu
            wall = time.perf_counter() - wall
            pool.close()
            name = "affinity" if affinity else "no affinity"
            print(f"round {r + 1} {name:>11}: makespan {max(per_worker.values()):6.2f} s CPU, total "
                  f"{sum(per_worker.values()):6.2f} s CPU, workers {sorted(round(v, 2) for v in per_worker.values())}, "
                  f"{wall:6.2f} s wall, load {os.getloadavg()[0]:.2f}", flush=True)
    return 0


def simulate(costs: dict[str, float], order: list[str], workers: int) -> tuple[float, list[list[str]]]:
    """The makespan and each worker's checks when the tasks start in ``order``, each on the first free worker."""
    free = [0.0] * workers
    assigned: list[list[str]] = [[] for _ in range(workers)]
    for cid in order:
        w = min(range(workers), key=lambda k: free[k])
        free[w] += costs[cid]
        assigned[w].append(cid)
    return max(free), assigned


def _timeline_child(run_args: list[str]) -> int:  # pragma: no cover - runs in the child of `_timeline`
    """`relucheck run` with its tasks and phases logged (`_timeline`): wall times from $SUITE_T0 (the parent's clock at
    the child's start), as JSON lines on the pipe $SUITE_LOG_FD (the command's own output is discarded)."""
    import json

    t0 = float(os.environ["SUITE_T0"])
    out = os.fdopen(int(os.environ["SUITE_LOG_FD"]), "w", buffering=1)

    def mark(name: str) -> None:
        out.write(json.dumps({"mark": name, "t": time.time() - t0}) + "\n")

    mark("interpreter up")
    from relucheck.proofs_checks import report, runner
    from relucheck.proofs_checks.cli import entry

    task, run, write = runner.check_task, runner.run_checks, report.write_results

    def check_task(t):
        cpu0, start = _own_and_children_cpu(), time.time()
        records = task(t)
        out.write(json.dumps({"task": t[0], "pid": os.getpid(), "start": start - t0, "end": time.time() - t0,
                              "cpu": _own_and_children_cpu() - cpu0}) + "\n")
        return records

    check_task.__module__, check_task.__qualname__ = task.__module__, task.__qualname__  # pickled by name
    runner.check_task = check_task

    def logged(fn, name):
        def call(*a, **k):
            mark(name + " start")
            try:
                return fn(*a, **k)
            finally:
                mark(name + " end")
        return call

    runner.run_checks, report.write_results = logged(run, "run_checks"), logged(write, "write_results")
    sys.argv = ["relucheck", "run", "--quiet", *run_args]
    try:
        code = entry()
    except SystemExit as exc:
        code = exc.code
    mark("command returned")
    return code


def _timeline(run_args: list[str]) -> int:
    """`--timeline` (module docstring): the child, then its log summarized."""
    import json
    import subprocess
    import tempfile

    read, write = os.pipe()
    cpu0 = _child_cpu()
    with tempfile.TemporaryDirectory() as where:
        t0 = time.time()
        child = subprocess.Popen([sys.executable, "-c", "import sys; from bench.suite_schedule import _timeline_child; "
                                  "sys.exit(_timeline_child(sys.argv[1:]))", *run_args], cwd=where, pass_fds=(write,),
                                 env=dict(os.environ, SUITE_T0=repr(t0), SUITE_LOG_FD=str(write), PYTHONPATH=os.pathsep.join(
                                     [os.environ.get("PYTHONPATH", ""), os.getcwd()])),
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as log:
            lines = [json.loads(line) for line in log]
        code = child.wait()
        end = time.time() - t0
    marks = {m["mark"]: m["t"] for m in lines if "mark" in m}
    tasks = [t for t in lines if "task" in t]
    print(f"relucheck run --quiet {' '.join(run_args)}: exit {code}, {end:.2f} s wall, {_child_cpu() - cpu0:.2f} s CPU "
          f"(all its processes), {len(tasks)} tasks, load {os.getloadavg()[0]:.2f}")
    for name in ("interpreter up", "run_checks start", "run_checks end", "write_results start", "write_results end",
                 "command returned"):
        if name in marks:
            print(f"  {marks[name]:7.2f} s  {name}")
    print(f"  {end:7.2f} s  process ended (after the command returned: {end - marks.get('command returned', end):.2f} s "
          "of interpreter shutdown)")
    for pid in sorted({t["pid"] for t in tasks}):
        mine = sorted((t for t in tasks if t["pid"] == pid), key=lambda t: t["start"])
        idle = sum(b["start"] - a["end"] for a, b in zip(mine, mine[1:]))
        print(f"  worker {pid}: {len(mine)} tasks, {mine[0]['start']:.2f} -> {mine[-1]['end']:.2f} s, "
              f"{sum(t['cpu'] for t in mine):.2f} s CPU, {idle:.2f} s between tasks; last {mine[-1]['task']}")
    for t in sorted(tasks, key=lambda t: -t["cpu"])[:8]:
        print(f"    {t['cpu']:6.2f} s CPU  {t['start']:7.2f} -> {t['end']:7.2f} s  worker {t['pid']}  {t['task']}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="default")
    parser.add_argument("--only", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--groups", action="store_true", help="also time each group of runner.SHARED_RUNS in one process")
    parser.add_argument("--serial", action="store_true", help="instead: every check one after another in one forked "
                        "process (id order), each check's CPU time (its forked children's too) printed")
    parser.add_argument("--pool", action="store_true", help="instead: run the suite on the process pool as `relucheck "
                        "run` does (start_order), with and without affinity (runner.SHARED_RUNS), --rounds times "
                        "interleaved; each worker's CPU seconds")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sharing", action="store_true", help="as --serial, and which memoized functions (lru_cache) "
                        "of relucheck each check computes (misses) or reuses (hits)")
    parser.add_argument("--timeline", nargs=argparse.REMAINDER, default=None, metavar="RUN OPTIONS",
                        help="instead: time `relucheck run --quiet [RUN OPTIONS]` itself, phase by phase and task by task")
    args = parser.parse_args(argv)
    if args.timeline is not None:
        return _timeline(args.timeline)

    from relucheck.proofs_checks.registry import select
    from relucheck.proofs_checks.runner import prepare_worker, start_order

    start = time.process_time()
    prepare_worker(())
    print(f"loading every check module: {time.process_time() - start:.2f} s CPU in this process")
    checks = select(args.suite, args.only)
    if args.pool:
        return _pool(checks, args.seed, args.workers, args.rounds)
    if args.serial or args.sharing:
        return _serial([c.id for c in checks], args.seed, args.sharing)
    costs, walls = {}, {}
    for chk in checks:
        costs[chk.id], walls[chk.id], statuses = _run_in_child([chk.id], args.seed)
        print(f"  {costs[chk.id]:7.2f} s CPU {walls[chk.id]:7.2f} s wall  {statuses[0]:>12}  {chk.id}", file=sys.stderr)
    total = sum(costs.values())
    print(f"{len(checks)} checks, {total:.2f} s CPU in all (each in its own forked process), load {os.getloadavg()[0]:.2f}")
    for cid in sorted(costs, key=costs.get, reverse=True)[:15]:
        print(f"  {costs[cid]:7.2f} s CPU {walls[cid]:7.2f} s wall  {cid}")
    order = [checks[k].id for k in start_order(checks)]
    makespan, assigned = simulate(costs, order, args.workers)
    bound = max(max(costs.values()), total / args.workers)
    print(f"start_order on {args.workers} workers: makespan {makespan:.2f} s CPU (lower bound {bound:.2f})")
    for w, ids in enumerate(assigned):
        print(f"  worker {w}: {sum(costs[i] for i in ids):.2f} s, {len(ids)} checks, first {ids[:3]}")
    lpt = sorted(costs, key=costs.get, reverse=True)
    print(f"LPT on these measured costs: makespan {simulate(costs, lpt, args.workers)[0]:.2f} s CPU")
    if args.groups:
        from relucheck.proofs_checks.runner import SHARED_RUNS

        for group in SHARED_RUNS:
            ids = [i for i in group if i in costs]
            if len(ids) > 1:
                cpu, wall, _ = _run_in_child(ids, args.seed)
                alone = sum(costs[i] for i in ids)
                print(f"group of {len(ids)} ({ids[0]}, …): {cpu:.2f} s CPU together, {alone:.2f} s apart")
    return 0


if __name__ == "__main__":
    sys.exit(main())
