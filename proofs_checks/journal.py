"""The run journal: every record of `relucheck run` is on disk as soon as its check finishes, and is trusted only
after it was validated.

``DIR/journal.jsonl`` (format 2) is a JSON-lines file, each line fsync'd (`numerics.durable_files`), so a kill at
any moment (``kill -9`` included) leaves every finished record readable and at most the last line cut:

- line 1, the header ``{"kind": "run", "format": 2, "run_id": …, "parameters": {...}, "sha256": …}``: a random run
  id, and the run's suite, ``only`` pattern, seed, ``mutate``, ``with_builtin``, the package version and the hash
  of the package's code (`numerics.code_version`), and the users' check files with the hash of each
  (`proofs_checks.plugins`);
- ``{"kind": "session", "resume": …, "to_run": k, "already": j, "sha256": …}`` each time a run starts or resumes;
- ``{"kind": "record", "record": {...}, "sha256": …}`` per finished check or mutant (`CheckResult.to_json`).

**Integrity.** ``sha256`` is the SHA-256 of the run id, a newline and the line's canonical JSON without its
``sha256`` (`_canonical`: sorted keys, no spaces). It finds a line edited by hand (a status changed from refuted
to verified), damaged on disk, or copied from another run's journal. It is not a signature: there is no secret,
so whoever recomputes the hash can forge a line; it guards against mistakes, not against a forger.

**Validation.** Every read (`Journal.load`) checks every line before any record is used; a line that fails is an
error naming the journal and the line number (exit 2), never a skip: valid JSON; an object of one of the three
kinds with exactly its fields; the header first and only there, in format 2; the integrity hash; a record with
every field of `CheckResult` in its type, a status of `Status`, its id among the run's record ids, ``mutant``,
``check`` and ``caught`` consistent with the id and status, the header's seed, one line per id. One exception:
a LAST line without its newline is the line a kill cut (`numerics.durable_files`): it is reported on stderr in
one line (`Journal.note`), dropped from the file by ``--resume``, and its record runs again. A blank (whitespace-only)
line carries nothing and is skipped; its number still counts. A journal that is a symbolic link (e.g. to another
folder's journal, whose lock this run does not hold) or not a regular file is exit 2 naming it, never read or written.

**Who writes.** `relucheck run` holds DIR's lock (`proofs_checks.out_lock`) from before the journal is read until
the reports are written, so two runs never write one journal. Without ``--resume`` a run starts a new journal:
it replaces the journal of a finished run and refuses a folder holding an unfinished one (exit 2: ``--resume`` with
that run's options continues it; another
``--out``, or deleting the journal, starts over): a run never throws away an unfinished run's records.
``--resume`` continues the journal when its header's parameters equal the run's (suite, pattern, seed,
``--mutate``, ``--with-builtin``, code, users' check files; otherwise exit 2 naming each difference), runs only
the missing records, and starts a new journal when DIR has none. The reports are regenerated from the journal.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from relucheck.numerics.code_version import code_version
from relucheck.numerics.durable_files import append_json_line, atomic_write_text
from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.jsonable import to_jsonable

from .result import CheckResult, Status

JOURNAL_NAME = "journal.jsonl"
FORMAT = 2
_KEYS = {"run": {"kind", "format", "run_id", "parameters", "sha256"},
         "session": {"kind", "resume", "to_run", "already", "sha256"},
         "record": {"kind", "record", "sha256"}}
_ANY = object
_NUMBER = (int, float)
RECORD_TYPES = {  # every field of CheckResult (a test checks that) and the JSON types `CheckResult.to_json` writes
    "id": str, "statement": str, "paper": str, "status": str, "prediction": _ANY, "measurement": _ANY,
    "tolerance": _ANY, "tolerance_reason": str, "precision": (str, type(None)), "seed": int, "seconds": _NUMBER,
    "versions": dict, "message": str, "mutant": bool, "check": str, "caught": (bool, type(None)), "mutation": str,
    "details": dict, "finding": str}
_STATUSES = tuple(s.value for s in Status)


def run_parameters(suite: str, only: str | None, seed: int, mutate: bool, plugins: list | None = None,
                   with_builtin: bool = False) -> dict:
    """What a run's records depend on; ``--resume`` requires all of it to be unchanged. ``plugins``: the users'
    check files and modules with the sha256 of their source (`proofs_checks.plugins.plugin_fingerprint`)."""
    return {"suite": suite, "only": only, "seed": seed, "mutate": bool(mutate), "plugins": list(plugins or []),
            "with_builtin": bool(with_builtin), **code_version()}


def prepare_out_dir(path, option: str = "--out", shown: str | None = None) -> Path:
    """Create the output directory and make sure a file can be written there, before anything is computed.

    Raises `RelucheckInputError` naming ``option`` and the condition: the path is a file, a parent is a
    file, the directory cannot be created, or it is not writable. ``shown``: the path as the user typed it, for
    the messages (``path`` may be its absolute form).
    """
    out = Path(path)
    path = path if shown is None else shown
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


def _canonical(row: dict) -> str:
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def integrity_hash(row: dict, run_id: str) -> str:
    """SHA-256 of the run id, a newline and the canonical JSON of ``row`` without its ``sha256`` field."""
    body = {k: v for k, v in row.items() if k != "sha256"}
    return hashlib.sha256(f"{run_id}\n{_canonical(body)}".encode()).hexdigest()


def _type_name(types) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false", dict: "an object",
             type(None): "null"}
    return " or ".join(dict.fromkeys(names[t] for t in (types if isinstance(types, tuple) else (types,))))


def _has_type(value, types) -> bool:
    if types is _ANY:
        return True
    types = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _record_problem(rec: dict, seed, record_ids) -> str | None:
    """What is wrong with a journal line's record (None when it is a valid record of this run)."""
    if not isinstance(rec, dict):
        return "'record' is not an object"
    missing, unknown = sorted(set(RECORD_TYPES) - set(rec)), sorted(set(rec) - set(RECORD_TYPES))
    if missing or unknown:
        return f"record field(s) {missing} missing" if missing else f"record has unknown field(s) {unknown}"
    for name, types in RECORD_TYPES.items():
        if not _has_type(rec[name], types):
            return f"record field {name!r} must be {_type_name(types)}, got {json.dumps(rec[name])[:40]}"
    if rec["status"] not in _STATUSES:
        return f"record status {rec['status']!r} is not one of {list(_STATUSES)}"
    if rec["mutant"]:
        if rec["id"] != rec["check"] + ".mutant" or rec["caught"] is not (rec["status"] == "refuted"):
            return f"mutant record {rec['id']!r}: id, check and caught do not agree with mutant and status"
    elif rec["id"] != rec["check"] or rec["caught"] is not None:
        return f"record {rec['id']!r}: check and caught do not agree with a record that is not a mutant"
    if rec["seed"] != seed:
        return f"record {rec['id']!r} has seed {rec['seed']}, the journal's run has seed {seed}"
    if record_ids is not None and rec["id"] not in record_ids:
        return f"record id {rec['id']!r} is not one of this run's {len(record_ids)} record ids"
    return None


@dataclass
class JournalContents:
    """A validated journal: its header's run id and parameters, its records by id, its sessions."""

    run_id: str
    parameters: dict
    records: dict[str, CheckResult] = field(default_factory=dict)
    sessions: list[dict] = field(default_factory=list)
    cut_line: int | None = None  # the number of a cut last line (a kill while writing it)
    complete_bytes: int = 0  # the size of the file without that cut line


class Journal:
    """``DIR/journal.jsonl`` (see the module docstring)."""

    def __init__(self, out_dir, shown: str | None = None):
        self.path = Path(out_dir) / JOURNAL_NAME
        self.shown = self.path if shown is None else Path(shown) / JOURNAL_NAME  # as the user typed --out
        self.run_id: str | None = None  # set by `start` or `resume`: this process writes lines of that run
        self.note = ""  # one line for stderr when a cut last line was dropped

    def _refuse_unsafe(self) -> None:
        """The journal is a regular file of DIR, or absent: a symbolic link (to another folder's journal, which
        this run has not locked) or a device, fifo or directory in its place is exit 2 naming it."""
        try:
            mode = self.path.lstat().st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
            what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise RelucheckInputError(f"journal {self.shown}: is {what}; relucheck reads and writes only a journal "
                                      "file of its own --out folder: remove it, or choose another --out")

    def exists(self) -> bool:
        """There is a journal (an empty file holds nothing to lose and counts as none)."""
        self._refuse_unsafe()
        try:
            return self.path.stat().st_size > 0
        except FileNotFoundError:
            return False

    def start(self, parameters: dict) -> None:
        """Begin a new journal with the run's parameters and a new run id."""
        self._refuse_unsafe()
        self.run_id = uuid.uuid4().hex
        header = {"kind": "run", "format": FORMAT, "run_id": self.run_id, "parameters": to_jsonable(parameters)}
        header["sha256"] = integrity_hash(header, self.run_id)
        atomic_write_text(self.path, json.dumps(header, sort_keys=True) + "\n")

    def _append(self, row: dict) -> None:
        if self.run_id is None:
            raise RuntimeError("Journal: start() or resume() before writing lines")
        row = to_jsonable(row)
        row["sha256"] = integrity_hash(row, self.run_id)
        self._refuse_unsafe()
        append_json_line(self.path, row)

    def note_session(self, *, resume: bool, to_run: int, already: int) -> None:
        self._append({"kind": "session", "resume": resume, "to_run": to_run, "already": already})

    def append(self, record: CheckResult) -> None:
        self._append({"kind": "record", "record": record.to_json()})

    def _error(self, line: int, problem: str) -> RelucheckInputError:
        return RelucheckInputError(f"journal {self.shown} line {line}: {problem}; the journal cannot be trusted: "
                                   "delete it (or choose another --out) to start over")

    def _header(self, raw: bytes, number: int = 1) -> dict:
        try:
            row = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise self._error(number, "not a JSON line (expected the journal's header)") from None
        if not isinstance(row, dict) or row.get("kind") != "run":
            raise self._error(number, "not the header of a relucheck run journal")
        if row.get("format") != FORMAT or set(row) != _KEYS["run"]:
            raise self._error(number, f"a journal of format {row.get('format', 1)!r}, not {FORMAT} (written by another "
                                 "version of relucheck, without integrity fields)")
        if not (isinstance(row["run_id"], str) and re.fullmatch("[0-9a-f]{32}", row["run_id"])
                and isinstance(row["parameters"], dict) and isinstance(row["parameters"].get("seed"), int)):
            raise self._error(number, "the header's run_id or parameters are malformed")
        if row["sha256"] != integrity_hash(row, row["run_id"]):
            raise self._error(number, "the header's sha256 does not match its content (edited or damaged)")
        return row

    def load(self, parameters: dict | None = None, record_ids=None) -> JournalContents:
        """Read and validate every line (module docstring). ``parameters``: the run's, compared with the header's
        first (an error naming each difference); ``record_ids``: the run's record ids."""
        self._refuse_unsafe()
        data = self.path.read_bytes()
        *lines, tail = data.split(b"\n")
        numbered = [(number, raw) for number, raw in enumerate(lines, start=1) if raw.strip()]  # a blank line
        # carries nothing (an editor's or a copy's trailing newline): it is skipped; every other line is checked
        if not numbered:
            raise self._error(1, "no complete header line")
        header = self._header(numbered[0][1], numbered[0][0])
        if parameters is not None:
            self._compare(header["parameters"], to_jsonable(parameters))
        if self.run_id is not None and header["run_id"] != self.run_id:
            raise self._error(numbered[0][0], "another run's header (the journal was replaced while this run wrote it)")
        contents = JournalContents(header["run_id"], header["parameters"], complete_bytes=len(data) - len(tail))
        ids = None if record_ids is None else frozenset(record_ids)
        where: dict[str, int] = {}
        for number, raw in numbered[1:]:
            row = self._line(raw, number, contents.run_id)
            if row["kind"] == "session":
                contents.sessions.append(row)
                continue
            rec = row["record"]
            problem = _record_problem(rec, contents.parameters["seed"], ids)
            if problem is None and rec["id"] in where:
                problem = f"a second record {rec['id']!r} (the first is on line {where[rec['id']]})"
            if problem:
                raise self._error(number, problem)
            where[rec["id"]] = number
            contents.records[rec["id"]] = CheckResult.from_json(rec)
        if tail.strip():
            contents.cut_line = len(lines) + 1
            self.note = (f"relucheck: note: journal {self.shown} line {contents.cut_line} was cut (a run was killed "
                         "while writing it); it is dropped and its record runs again")
        return contents

    def _line(self, raw: bytes, number: int, run_id: str) -> dict:
        """A session or record line, checked for its JSON, kind, fields and integrity hash."""
        try:
            row = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise self._error(number, "not a JSON line") from None
        kind = row.get("kind") if isinstance(row, dict) else None
        if kind not in ("session", "record"):
            raise self._error(number, f"not a session or record line (kind {kind!r})")
        if set(row) != _KEYS[kind]:
            raise self._error(number, f"a {kind} line needs exactly the fields {sorted(_KEYS[kind])}")
        if row["sha256"] != integrity_hash(row, run_id):
            raise self._error(number, "the line's sha256 does not match its content (edited, damaged, or from "
                                      "another run)")
        if kind == "session" and not (isinstance(row["resume"], bool) and all(
                isinstance(row[k], int) and not isinstance(row[k], bool) and row[k] >= 0 for k in ("to_run", "already"))):
            raise self._error(number, "a session line needs resume true/false and counts to_run, already ≥ 0")
        return row

    def _compare(self, saved: dict, parameters: dict) -> None:
        changed = [key for key in sorted(set(saved) | set(parameters)) if saved.get(key) != parameters.get(key)]
        if changed:
            diffs = "; ".join(f"{key} {saved.get(key)!r} in the journal, {parameters.get(key)!r} now" for key in changed)
            code = " (the code changed since the journal was written)" if {"relucheck", "code_sha256"} & set(changed) else ""
            raise RelucheckInputError(f"--resume: the journal {self.shown} was written by a run with other parameters: "
                                      f"{diffs}{code}. Run with that run's options, or choose another --out")

    def parameters(self) -> dict:
        return self.load().parameters

    def records(self, record_ids=None) -> dict[str, CheckResult]:
        """The journal's records by id, every line validated (``record_ids``: the run's ids)."""
        return self.load(record_ids=record_ids).records

    def sessions(self) -> list[dict]:
        return self.load().sessions

    def resume(self, parameters: dict, record_ids) -> dict[str, CheckResult]:
        """Continue the journal written with the same ``parameters`` (its records by id); {} when there is none.
        A cut last line is removed from the file (`note` says so) before this run appends."""
        if not self.exists():
            return {}
        contents = self.load(parameters, record_ids)
        if contents.cut_line is not None:
            with self.path.open("r+b") as fh:
                fh.truncate(contents.complete_bytes)
                fh.flush()
                os.fsync(fh.fileno())
        self.run_id = contents.run_id
        return contents.records

    def refuse_unfinished(self, shown: str) -> bool:
        """A run without ``--resume`` never throws away unfinished work: a journal whose run did not produce all
        its records (interrupted, killed), or that is not a valid journal, is exit 2 naming it and how to continue
        or start over. The journal of a finished run is replaced, as its reports are (True: there was one)."""
        if not self.exists():
            return False
        try:
            contents = self.load()
        except RelucheckInputError:
            contents = None
        if contents is not None and contents.cut_line is None and contents.sessions:
            last = contents.sessions[-1]
            if len(contents.records) == last["to_run"] + last["already"]:
                return True  # finished: everything it computed is in its reports, which this run replaces
        if contents is None:
            what, hint = ", not a valid journal", ""
        else:
            p = contents.parameters
            only = f", --only {p['only']}" if p.get("only") else ""
            what = (f": an unfinished run, suite {p.get('suite')}{only}, seed {p.get('seed')}"
                    f"{', --mutate' if p.get('mutate') else ''}, {len(contents.records)} records")
            hint = "`relucheck run --resume` with that run's options continues it; "
        raise RelucheckInputError(f"{shown}: holds the journal of another run ({self.shown}{what}); {hint}to start a new "
                                  f"run delete {self.shown} or choose another --out")

