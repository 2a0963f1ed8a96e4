"""Files that survive an interruption: fsync'd JSON lines and write-and-rename.

- `append_json_line` appends one JSON object as one line and fsyncs it before returning, so after a kill
  (even ``kill -9``) every line written before is on disk and at most the last line is cut.
- `read_json_lines` reads such a file back and skips a cut (undecodable) line instead of failing (sweeps; the
  run journal reads its lines strictly instead, `proofs_checks.journal`).
- `atomic_write_text` writes a whole file to a temporary file in the same directory, fsyncs it and renames
  it over the target (``os.replace``): readers see the old file or the new one, never a partial one. The file
  gets the permissions of any file the process creates, ``0o666 & ~umask`` (``mkstemp`` alone gives 0600).
"""
from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path

from .jsonable import to_jsonable


def append_json_line(path, obj) -> None:
    """Append ``obj`` (made JSON-able) as one line and fsync; a line cut by an earlier kill is ended first."""
    path = Path(path)
    line = json.dumps(to_jsonable(obj), sort_keys=True) + "\n"
    with path.open("ab") as fh:
        if fh.tell() and not _ends_with_newline(path):
            fh.write(b"\n")  # the previous writer was killed mid-line: keep the cut line apart from this one
        fh.write(line.encode())
        fh.flush()
        os.fsync(fh.fileno())


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def read_json_lines(path) -> tuple[list[dict], int]:
    """(the decodable JSON objects of the file in order, the number of lines skipped as cut or garbled)."""
    path = Path(path)
    rows, skipped = [], 0
    if not path.exists():
        return rows, skipped
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            skipped += 1  # a line cut by an interruption
            continue
        if isinstance(row, dict):
            rows.append(row)
        else:
            skipped += 1
    return rows, skipped


def process_umask() -> int:
    """The process's umask, read without changing it: Linux (≥ 4.7) shows it in /proc/self/status. Elsewhere it is
    read once by setting and restoring it (`_umask_by_setting`), a moment during which another thread's new file
    would get the wrong mode, hence only once per process."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return _umask_by_setting()


@functools.cache
def _umask_by_setting() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` to ``path`` through a fsync'd temporary file in the same directory and ``os.replace``; the
    file's mode is ``0o666 & ~umask``, as for a file opened for writing (``mkstemp`` creates it 0600)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~process_umask())
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
