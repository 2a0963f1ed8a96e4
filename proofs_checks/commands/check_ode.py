"""`relucheck check-ode FILE.json [--json] [--seed N] [--budget SECONDS] [--memory MIB]`: does a candidate
closed form solve an ODE?

The file format is in `theory.ode_problem`; its expressions are parsed, never evaluated (`theory.safe_expression`:
no text of the file reaches eval, exec or SymPy's string parser); the three kinds of evidence are in
`theory.ode_checker`; examples are in examples/ode/. The decision runs within a time and memory budget;
beyond it the verdict is inconclusive ("budget exceeded"). Exit codes: 0 verified, 1 refuted,
2 bad input (or an error), 3 inconclusive (a closed form that could not be confirmed is not a success,
and not a refutation either; the message says why).
"""
from __future__ import annotations

import json
import sys
import threading
import time

from relucheck.numerics.schema import read_json_file

from ..arguments import memory_mib, seconds

EXIT_CODES = {"verified": 0, "refuted": 1, "inconclusive": 3}
DECISION_SECONDS = 120.0  # default time budget: the examples take 1–3 s, the simplification ≤ 20 s per expression
NOTE_AFTER = 10.0  # s: a decision still running then says so, and how long it may take (issue 20: never a minute unsaid)
DECISION_MEMORY_MIB = 1024  # default memory allowance beyond what the process holds when the decision starts


def _run(args) -> int:
    from relucheck.numerics.time_limit import TimeLimitExceeded, time_limit
    from relucheck.proofs_checks.report import fmt_number  # here: `relucheck --help` does not load numpy (issue 22)
    from relucheck.theory.ode_checker import check_ode_within_budget, parse_problem

    data = read_json_file(args.file, "ODE")
    start = time.monotonic()
    try:  # building SymPy objects can be slow on constants SymPy evaluates slowly: the parse counts in the budget
        with time_limit(args.budget):  # in this process, so that nothing escapes tests/test_safe_expression's audit
            problem = parse_problem(data, f"ODE file {args.file}")
    except TimeLimitExceeded:
        print(f"relucheck: inconclusive (exit code 3): budget exceeded: {args.file} could not be parsed within "
              f"{args.budget:g} s (--budget)", file=sys.stderr)
        return EXIT_CODES["inconclusive"]
    left = max(args.budget - (time.monotonic() - start), 1.0)  # the parse's share of the budget is spent
    note = threading.Timer(NOTE_AFTER, lambda: print(
        f"relucheck: {args.file}: still deciding after {NOTE_AFTER:g} s; it ends within its budget of {args.budget:g} s "
        "(--budget), inconclusive beyond it", file=sys.stderr, flush=True))
    note.daemon = True
    note.start()
    try:
        result = check_ode_within_budget(problem, args.seed, seconds=left, memory_bytes=args.memory * 2**20)
    finally:
        note.cancel()
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{args.file}: {result['status']} — {result['message']}")
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
        print(f"relucheck: inconclusive (exit code 3): {result['message']}", file=sys.stderr)
    return EXIT_CODES[result["status"]]


def register(sub) -> None:
    p = sub.add_parser("check-ode", help="check a candidate closed-form solution of an ODE (JSON file); "
                                         "exit 0 verified, 1 refuted, 2 error, 3 inconclusive")
    p.add_argument("file", help="JSON with time, state, parameters, equations, initial, solution [, time_span]")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--seed", type=int, default=0, help="seed of the random evaluation points")
    p.add_argument("--budget", type=seconds, default=DECISION_SECONDS, metavar="SECONDS",
                   help=f"time budget of the decision (default {DECISION_SECONDS:g}); beyond it: inconclusive")
    p.add_argument("--memory", type=memory_mib, default=DECISION_MEMORY_MIB, metavar="MIB",
                   help=f"memory budget of the decision in MiB (default {DECISION_MEMORY_MIB})")
    p.set_defaults(func=_run)
