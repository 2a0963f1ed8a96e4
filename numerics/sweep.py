"""Resumable sweeps: results are appended to a JSON-lines file as they are computed.

    sweep = Sweep("out/fig3.jsonl")
    for row in sweep.run(points, compute):   # skips points already in the file
        ...

A point is a dict of JSON-able parameters; its key is the canonical JSON of that dict. Each row also
records the code that computed it (`numerics.code_version.code_version`: the package version and a hash
of the package's source files); rows written by other code are ignored and recomputed, so a change of the
code never reuses an old result. An interruption loses at most the point being computed; a rerun neither
repeats finished points nor loses them. Lines are fsync'd as they are written; a truncated last line
(killed mid-write) is ignored. Points run on the executor of `numerics.executor` (serial, a process pool or
Dask); rows are appended by this process as they arrive, so every executor writes the same rows.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Iterable

from .code_version import code_version
from .durable_files import append_json_line, read_json_lines
from .jsonable import to_jsonable


def point_key(point: dict) -> str:
    return json.dumps(to_jsonable(point), sort_keys=True)


class Sweep:
    """A JSON-lines cache of ``compute(point)`` keyed by the point and the code version.

    ``code`` defaults to `code_version()`; it is a parameter so that a test can stand in for a change of code.
    """

    def __init__(self, path, *, progress: bool = True, code: dict | None = None):
        self.path = Path(path)
        self.progress = progress
        self.code = to_jsonable(code_version() if code is None else code)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def done(self) -> dict[str, dict]:
        """Finished rows of this code version by point key."""
        rows, _ = read_json_lines(self.path)
        return {point_key(row["point"]): row for row in rows if "point" in row and row.get("code") == self.code}

    def record(self, point: dict, result) -> dict:
        """Append the row of one computed point (fsync'd) and return it."""
        row = {"point": to_jsonable(point), "result": to_jsonable(result), "code": self.code}
        append_json_line(self.path, row)
        return row

    def run(self, points: Iterable[dict], compute: Callable[[dict], dict], *, executor=None) -> list[dict]:
        """Compute every point not yet in the file; return all rows (old and new) in point order.

        The missing points run on ``executor`` (default: `numerics.executor.current_executor`, serial unless the
        command line chose another); each row is appended as its point finishes, in any order, and the rows come
        back in point order, so the result does not depend on the executor. ``compute`` must be a module-level
        function for a process pool or Dask.
        """
        from .executor import current_executor

        points = list(points)
        done = self.done()
        todo = [p for p in points if point_key(p) not in done]
        executor = current_executor() if executor is None else executor
        for k, (index, result) in enumerate(executor.map_unordered(compute, todo), 1):
            point = todo[index]
            done[point_key(point)] = self.record(point, result)
            if self.progress:
                print(f"[sweep {self.path.name}] {len(points) - len(todo) + k}/{len(points)} {point_key(point)}",
                      file=sys.stderr)
        return [done[point_key(p)] for p in points]
