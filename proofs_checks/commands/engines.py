"""`relucheck engines [--json]`: the registered flow engines of `numerics.flows` with their precision, domain and
options (`Engine.describe()`); ``--engine NAME`` of `relucheck flow` takes one of these names or "auto"."""
from __future__ import annotations

import json

AUTO = ("auto: float64, rerun with mpmath (30 digits) when float64 reports a sign decision below its precision "
        "and the mpmath engine is registered")


def _run(args) -> int:
    from relucheck.numerics.flows import available_engines

    described = [engine.describe() for _, engine in sorted(available_engines().items())]
    if args.json:
        print(json.dumps({"engines": described, "auto": AUTO}, indent=1))
        return 0
    for d in described:
        print(f"{d['name']}  (precision: {d['precision']})")
        print(f"    domain: {d['domain']}")
        print(f"    options: {', '.join(d['options']) if d['options'] else '(none)'}")
    print(AUTO)
    return 0


def register(sub) -> None:
    p = sub.add_parser("engines", help="the flow engines with their precision, domain and options")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
