"""Cold start of the command line (issue 22, item 6): CPU and wall time of ``relucheck engines``, ``relucheck flow
--help`` and ``relucheck --help`` against the floors ``python -c pass`` and ``python -c "import numpy"``.

Every command runs once per round, in the same order, for ``--rounds`` rounds (interleaved, so that a load that
changes during the run falls on every command alike); printed are the medians and ranges of the child's CPU time
(user + sys, `resource.getrusage(RUSAGE_CHILDREN)`) and of its wall time, and the CPU time as a multiple of numpy's
import. On a shared machine the wall time grows with the load and the CPU time much less: compare CPU times, or
ratios from one run. ``--before REV`` also times the commands of a git revision (its tree extracted with
``git archive`` into a temporary directory put first on PYTHONPATH), interleaved with the working tree's.
``--bytecode`` lets Python cache compiled modules (in a temporary PYTHONPYCACHEPREFIX, warmed by one untimed round)
when the environment sets PYTHONDONTWRITEBYTECODE, as an installed package would have them.

Run from the repository root: ``nice python -m bench.cold_start [--rounds R] [--before REV] [--bytecode]``.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = (["engines"], ["flow", "--help"], ["--help"])


def _relucheck() -> list[str]:
    script = Path(sys.executable).with_name("relucheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relucheck"]


def _timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``; its output is discarded, a non-zero exit is an error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True,
                   cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def contenders(before: Path | None, env: dict) -> dict[str, tuple[list[str], dict]]:
    out = {"python -c pass": ([sys.executable, "-c", "pass"], env),
           "python -c 'import numpy'": ([sys.executable, "-c", "import numpy"], env)}
    for argv in COMMANDS:
        if before is not None:
            old = dict(env, PYTHONPATH=os.pathsep.join(filter(None, (str(before), env.get("PYTHONPATH")))))
            out["before: relucheck " + " ".join(argv)] = (_relucheck() + argv, old)
        out[("after:  " if before is not None else "") + "relucheck " + " ".join(argv)] = (_relucheck() + argv, env)
    return out


def race(runs: dict, rounds: int) -> dict[str, list[tuple[float, float]]]:
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, (cmd, env) in runs.items():
            times[name].append(_timed(cmd, env))
    return times


def report(times: dict, header: str) -> None:
    numpy_cpu = statistics.median(c for _, c in times["python -c 'import numpy'"])
    print(header)
    for name, runs in times.items():
        wall, cpu = [w for w, _ in runs], [c for _, c in runs]
        print(f"  {name:32s} CPU {1000 * statistics.median(cpu):4.0f} ms [{1000 * min(cpu):.0f}–{1000 * max(cpu):.0f}]"
              f" ({statistics.median(cpu) / numpy_cpu:.2f}× numpy)   wall {1000 * statistics.median(wall):4.0f} ms"
              f" [{1000 * min(wall):.0f}–{1000 * max(wall):.0f}]")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold_start", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default 11)")
    parser.add_argument("--before", metavar="REV", help="also time the commands of this git revision")
    parser.add_argument("--bytecode", action="store_true", help="cache compiled modules (see the module docstring)")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="relucheck-cold-") as tmp:
        before = None
        if args.before:
            before = Path(tmp) / "before"
            before.mkdir()
            root = Path(__file__).resolve().parent.parent
            archive = subprocess.run(["git", "-C", str(root), "archive", args.before], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
        if args.bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        runs = contenders(before, env)
        if args.bytecode:
            race(runs, 1)  # untimed: compiles every module once
        times = race(runs, args.rounds)
        if before is not None:
            shutil.rmtree(before)
    mode = "bytecode cached" if args.bytecode or "PYTHONDONTWRITEBYTECODE" not in env else "PYTHONDONTWRITEBYTECODE set"
    report(times, f"{args.rounds} interleaved rounds, {mode}, load average {os.getloadavg()[0]:.2f} at the end, "
                  f"{os.cpu_count()} CPUs; medians [ranges]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
