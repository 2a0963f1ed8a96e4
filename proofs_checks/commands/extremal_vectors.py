"""`relucheck extremal-vectors DATA.json [--json]`: the non-zero extremal vectors of finite data (A Def. 2.1).

DATA.json is an object with ``inputs`` (n×d rows x_k, d ∈ {2, 3}) and ``labels`` (n numbers y_k).
Each extremal vector is printed with its unit ``direction`` w, its ``vector`` D ∈ 𝒟_n(w) ∩ ℝw and its
``type`` ("max" when w = D/‖D‖, "min" when w = −D/‖D‖); exact arithmetic (theory.extremal_vectors), so
any finite float64 data work and scaled data give the same directions (with D scaled): a component of D
outside float64's range is printed, and given in ``--json``, as a decimal string.

`DATA_SCHEMA` is the file format: nothing but ``inputs``, ``labels`` and an optional ``meta`` object;
numbers only; d ∈ {2, 3}; n bounded by the cost of the exact enumeration (`MAX_POINTS`).
"""
from __future__ import annotations

import json

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.schema import FLOAT64_MAX, AnyJson, Array, MapOf, Number, Obj, load_json
from relucheck.theory.extremal_vectors import extremal_vectors

_ANY_FLOAT = Number(FLOAT64_MAX, "exact arithmetic takes any finite float64")
# The enumeration costs O(n²) integer operations for d = 2 and O(n³) for d = 3; measured on the project's
# machine: 5.3 s at n = 4000 (d = 2), 4.2 s at n = 200 (d = 3). These bounds keep one call under a minute.
MAX_POINTS = {2: 5000, 3: 300}
DATA_SCHEMA = Obj(required={"inputs": Array(("n", "d"), _ANY_FLOAT), "labels": Array(("n",), _ANY_FLOAT)},
                  optional={"meta": MapOf(AnyJson())},
                  dims={"d": (2, 3, "exact enumeration is implemented for d = 2 and 3"),
                        "n": (1, max(MAX_POINTS.values()), "the enumeration costs O(n^(d-1))")})


def load_data(path):
    """Read a DATA.json file (`DATA_SCHEMA`); errors name the file, the field and the condition."""
    raw, dims = load_json(path, DATA_SCHEMA, "data")
    if dims["n"] > MAX_POINTS[dims["d"]]:
        raise RelucheckInputError(f"data file {path}: field 'inputs': n = {dims['n']} points in d = {dims['d']} "
                                  f"exceed {MAX_POINTS[dims['d']]}, the bound that keeps the O(n^{dims['d'] - 1}) "
                                  "exact enumeration under a minute")
    return raw["inputs"], raw["labels"]


def _fmt(v) -> str:
    return "(" + ", ".join(v) + ")"


def _run(args) -> int:
    X, y = load_data(args.data)
    found = extremal_vectors(X, y)
    if args.json:
        print(json.dumps([e.to_json() for e in found], indent=1))
        return 0
    print(f"{len(found)} non-zero extremal vector(s) (exact enumeration):")
    for e in found:
        print(f"  {e.type:<3}  D = {_fmt(e.decimal(12))}  at w = {_fmt(f'{c:.12g}' for c in e.direction)}  [{e.face}"
              + (f", ties {list(e.ties)}]" if e.ties else "]"))
    return 0


def register(sub) -> None:
    p = sub.add_parser("extremal-vectors", help="non-zero extremal vectors of data (paper A Definition 2.1), d = 2, 3")
    p.add_argument("data", help="JSON object with 'inputs' (n×d) and 'labels' (n)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {direction, vector, type, face, ties}")
    p.set_defaults(func=_run)
