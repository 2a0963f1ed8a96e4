"""results.json, as written by `relucheck run`: its schema and its one reader (for `show` and `report --appendix`).

A list of records, each an object with the fields of `CheckResult` (`CheckResult.to_json`) and nothing
else: ``id``, ``check``, ``status`` (one of `Status`), prediction, measurement, tolerance and its reason and
the message are required (they are what the readers show); the other fields are optional, so files written
before a field was added still read.
"""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.schema import AnyJson, ListOf, Obj, Text, load_json

from .result import CheckResult, Status

_TEXT = Text(100_000)
_SHOWN = {"id": Text(), "check": Text(), "status": Text(choices=tuple(s.value for s in Status)),
          "prediction": AnyJson(), "measurement": AnyJson(), "tolerance": AnyJson(), "tolerance_reason": _TEXT,
          "message": _TEXT}
RESULTS_SCHEMA = ListOf(Obj(required=_SHOWN,
                            optional={f.name: AnyJson() for f in fields(CheckResult) if f.name not in _SHOWN}))


def load_results(path, option: str = "--results") -> list[dict]:
    """The records of a results.json; a missing file, one that cannot be read (a symlink loop, no permission) or
    one that breaks `RESULTS_SCHEMA` is a `RelucheckInputError` naming ``option`` and the path."""
    path = Path(path)
    try:
        path.stat()
    except FileNotFoundError:
        raise RelucheckInputError(f"{option}: no results file at {path}; run `relucheck run` first "
                                  f"(or give {option} PATH)") from None
    except OSError:
        pass  # `load_json` names the file and why it cannot be read
    records = load_json(path, RESULTS_SCHEMA, f"{option}: results")[0]
    seen = set()
    for k, rec in enumerate(records):
        if rec["id"] in seen:  # two verdicts for one record: which one the reports would show is arbitrary
            raise RelucheckInputError(f"{option}: results file {path}: record {k} repeats the id {rec['id']!r}; "
                                      "each record id appears once in a results file")
        seen.add(rec["id"])
    return records
