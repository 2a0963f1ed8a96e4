"""`relucheck check-ode FILE.json [--json] [--seed N]`: does a candidate closed form solve an ODE?

The file format and the three kinds of evidence are described in `theory.ode_checker`; examples
are in examples/ode/. Exit codes: 0 verified, 1 refuted **or inconclusive** (a closed form that
could not be confirmed is not reported as a success; the message says which), 2 bad input.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError
from relucheck.proofs_checks.report import fmt_number


def _run(args) -> int:
    from relucheck.theory.ode_checker import check_ode, parse_problem

    path = Path(args.file)
    if not path.exists():
        raise RelucheckInputError(f"no such file: {path}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise RelucheckInputError(f"{path}: not valid JSON ({exc})") from None
    result = check_ode(parse_problem(data), seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{path.name}: {result['status']} — {result['message']}")
        for kind in ("initial", "residuals"):
            for name, rec in result[kind].items():
                worst = rec["max_relative_at_points"]
                print(f"  {kind[:-1] if kind == 'residuals' else kind} {name}: {rec['verdict']}; symbolic "
                      f"{rec['symbolic'][:120]}; max relative at {rec['points']} points "
                      f"{'n/a' if worst is None else fmt_number(worst)}")
        integ = result["integration"]
        if integ["draws"]:
            numbers = f"max discrepancy {fmt_number(integ['max_discrepancy'])} vs tolerance {fmt_number(integ['tolerance'])}"
        else:
            numbers = "no parameter draw could be integrated"
        print(f"  integration ({integ['method']}, {integ['draws']} draws): {numbers}")
    if result["status"] == "inconclusive":
        print("inconclusive: exit code 1 (not confirmed)", file=sys.stderr)
    return 0 if result["status"] == "verified" else 1


def register(sub) -> None:
    p = sub.add_parser("check-ode", help="check a candidate closed-form solution of an ODE (JSON file)")
    p.add_argument("file", help="JSON with time, state, parameters, equations, initial, solution [, time_span]")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--seed", type=int, default=0, help="seed of the random evaluation points")
    p.set_defaults(func=_run)
