"""`relucheck extremal-vectors DATA.json [--json]`: the non-zero extremal vectors of finite data (A Def. 2.1).

DATA.json is an object with ``inputs`` (n×d rows x_k, d ∈ {2, 3}) and ``labels`` (n numbers y_k).
Each extremal vector is printed with its unit ``direction`` w, its ``vector`` D ∈ 𝒟_n(w) ∩ ℝw and its
``type`` ("max" when w = D/‖D‖, "min" when w = −D/‖D‖); exact arithmetic (theory.extremal_vectors).
"""
from __future__ import annotations

import json

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import read_json_file
from relucheck.theory.extremal_vectors import extremal_vectors


def load_data(path):
    """Read a DATA.json file: an object with 'inputs' (n×d) and 'labels' (n); errors name the field."""
    raw = read_json_file(path, "data")
    if not isinstance(raw, dict):
        raise RelucheckInputError("the data file must be a JSON object with fields 'inputs' and 'labels'")
    missing = [k for k in ("inputs", "labels") if k not in raw]
    if missing:
        raise RelucheckInputError(f"data file is missing field(s) {missing}")
    return raw["inputs"], raw["labels"]


def _fmt(v) -> str:
    return "(" + ", ".join(f"{c:.12g}" for c in v) + ")"


def _run(args) -> int:
    X, y = load_data(args.data)
    found = extremal_vectors(X, y)
    if args.json:
        print(json.dumps([e.to_json() for e in found], indent=1))
        return 0
    print(f"{len(found)} non-zero extremal vector(s) (exact enumeration):")
    for e in found:
        print(f"  {e.type:<3}  D = {_fmt(e.vector)}  at w = {_fmt(e.direction)}  [{e.face}"
              + (f", ties {list(e.ties)}]" if e.ties else "]"))
    return 0


def register(sub) -> None:
    p = sub.add_parser("extremal-vectors", help="non-zero extremal vectors of data (paper A Definition 2.1), d = 2, 3")
    p.add_argument("data", help="JSON object with 'inputs' (n×d) and 'labels' (n)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {direction, vector, type, face, ties}")
    p.set_defaults(func=_run)
