"""Resumable sweeps: results are appended to a JSON-lines file as they are computed.

    sweep = Sweep("out/fig3.jsonl")
    for row in sweep.run(points, compute):   # skips points already in the file
        ...

A point is a dict of JSON-able parameters; its key is the canonical JSON of that dict. An
interruption loses at most the point being computed; a rerun neither repeats finished points nor
loses them. A truncated last line (killed mid-write) is ignored.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterable

from relucheck.proofs_checks.result import to_jsonable


def point_key(point: dict) -> str:
    return json.dumps(to_jsonable(point), sort_keys=True)


class Sweep:
    def __init__(self, path, *, progress: bool = True):
        self.path = Path(path)
        self.progress = progress
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def done(self) -> dict[str, dict]:
        """Finished rows by point key."""
        rows = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by an interruption
                rows[point_key(row["point"])] = row
        return rows

    def run(self, points: Iterable[dict], compute: Callable[[dict], dict]) -> list[dict]:
        """Compute every point not yet in the file; return all rows (old and new) in point order."""
        points = list(points)
        if self.path.exists() and self.path.stat().st_size and not self.path.read_bytes().endswith(b"\n"):
            with self.path.open("a") as fh:  # end a line cut by an interruption before appending
                fh.write("\n")
        done = self.done()
        todo = [p for p in points if point_key(p) not in done]
        for k, point in enumerate(todo, 1):
            result = compute(point)
            row = {"point": to_jsonable(point), "result": to_jsonable(result)}
            with self.path.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            done[point_key(point)] = row
            if self.progress:
                print(f"[sweep {self.path.name}] {len(points) - len(todo) + k}/{len(points)} {point_key(point)}",
                      file=sys.stderr)
        return [done[point_key(p)] for p in points]
