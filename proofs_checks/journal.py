"""The run journal: every record of `relucheck run` is on disk as soon as its check finishes.

``DIR/journal.jsonl`` is a JSON-lines file, each line fsync'd (`numerics.durable_files`), so a kill at any
moment (``kill -9`` included) leaves every finished record readable and at most the last line cut:

- first line ``{"kind": "run", "parameters": {...}}``: the run's suite, ``only`` pattern, seed, ``mutate``, the
  package version and the hash of the package's code (`numerics.code_version`), and the users' check files
  with the hash of each (`proofs_checks.plugins`);
- ``{"kind": "session", "resume": …, "to_run": k, "already": j}`` each time a run starts or resumes;
- ``{"kind": "record", "record": {...}}`` per finished check or mutant (`CheckResult.to_json`).

`relucheck run` starts a new journal (its header replaces an old journal atomically); ``--resume`` keeps it,
refuses when the parameters differ (another seed, suite, pattern, ``--mutate``, code or user's checks), and runs only the
records that are missing. results.json/csv and report.md/tex are regenerated from the journal at the end.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from relucheck.numerics.code_version import code_version
from relucheck.numerics.durable_files import append_json_line, atomic_write_text, read_json_lines
from relucheck.numerics.errors import RelucheckInputError

from .result import CheckResult

JOURNAL_NAME = "journal.jsonl"


def run_parameters(suite: str, only: str | None, seed: int, mutate: bool, plugins: list | None = None) -> dict:
    """What a run's records depend on; ``--resume`` requires all of it to be unchanged. ``plugins``: the users'
    check files and modules with the sha256 of their source (`proofs_checks.plugins.plugin_fingerprint`)."""
    return {"suite": suite, "only": only, "seed": seed, "mutate": bool(mutate), "plugins": list(plugins or []),
            **code_version()}


def prepare_out_dir(path, option: str = "--out") -> Path:
    """Create the output directory and make sure a file can be written there, before anything is computed.

    Raises `RelucheckInputError` naming ``option`` and the condition: the path is a file, a parent is a
    file, the directory cannot be created, or it is not writable.
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise RelucheckInputError(f"{option} {path}: is a file, not a directory")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise RelucheckInputError(f"{option} {path}: {parent} is a file, not a directory")
            break
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RelucheckInputError(f"{option} {path}: cannot create the directory ({exc.strerror or exc})") from None
    try:
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise RelucheckInputError(f"{option} {path}: the directory is not writable ({exc.strerror or exc})") from None
    return out


class Journal:
    """``DIR/journal.jsonl`` (see the module docstring)."""

    def __init__(self, out_dir):
        self.path = Path(out_dir) / JOURNAL_NAME

    def start(self, parameters: dict) -> None:
        """Begin a new journal with the run's parameters (replaces an old one atomically)."""
        atomic_write_text(self.path, json.dumps({"kind": "run", "parameters": parameters}, sort_keys=True) + "\n")

    def note_session(self, *, resume: bool, to_run: int, already: int) -> None:
        append_json_line(self.path, {"kind": "session", "resume": resume, "to_run": to_run, "already": already})

    def append(self, record: CheckResult) -> None:
        append_json_line(self.path, {"kind": "record", "record": record.to_json()})

    def _rows(self) -> list[dict]:
        return read_json_lines(self.path)[0]

    def parameters(self) -> dict | None:
        """The parameters of the run that wrote the journal (None when there is no readable header)."""
        return next((r.get("parameters") for r in self._rows() if r.get("kind") == "run"), None)

    def records(self) -> dict[str, CheckResult]:
        """The journal's records by id (a later line for the same id wins)."""
        return {r["record"]["id"]: CheckResult.from_json(r["record"]) for r in self._rows() if r.get("kind") == "record"}

    def sessions(self) -> list[dict]:
        return [r for r in self._rows() if r.get("kind") == "session"]

    def resume(self, parameters: dict) -> dict[str, CheckResult]:
        """The records of a journal written with the same ``parameters``; an error naming every difference."""
        if not self.path.exists():
            return {}
        saved = self.parameters()
        if saved is None:
            raise RelucheckInputError(f"--resume: {self.path} has no run header (not a relucheck journal); "
                                      "run without --resume to start over")
        changed = [key for key in sorted(set(saved) | set(parameters)) if saved.get(key) != parameters.get(key)]
        if changed:
            diffs = "; ".join(f"{key} {saved.get(key)!r} in the journal, {parameters.get(key)!r} now" for key in changed)
            code = " (the code changed since the journal was written)" if {"relucheck", "code_sha256"} & set(changed) else ""
            raise RelucheckInputError(f"--resume: the journal {self.path} was written by a run with other parameters: "
                                      f"{diffs}{code}. Run without --resume to start over, or choose another --out")
        return self.records()
