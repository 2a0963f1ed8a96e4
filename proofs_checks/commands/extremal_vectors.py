"""`relucheck extremal-vectors DATA.json [--json] [--budget SECONDS] [--memory MIB]`: the non-zero extremal vectors of
finite data (A Def. 2.1).

DATA.json is an object with ``inputs`` (n×d rows x_k, d ∈ {2, 3}) and ``labels`` (n numbers y_k).
Each extremal vector is printed with its unit ``direction`` w, its ``vector`` D ∈ 𝒟_n(w) ∩ ℝw and its
``type`` ("max" when w = D/‖D‖, "min" when w = −D/‖D‖); exact arithmetic (theory.extremal_vectors), so
any finite float64 data work and scaled data give the same directions (with D scaled): a component of D
outside float64's range is printed, and given in ``--json``, as a decimal string.

Bounded work: before anything is computed, `theory.extremal_cost` estimates the enumeration's time and memory from
n, d and the data's exponents; a request estimated beyond ``--budget`` (default `BUDGET_SECONDS`) or ``--memory``
is refused (exit 2, naming the bound and the estimate). The enumeration then runs in a child process within both
budgets (`numerics.budget`); beyond them the answer is inconclusive (exit 3, nothing on stdout).

`DATA_SCHEMA` is the file format: nothing but ``inputs``, ``labels`` and an optional ``meta`` object;
numbers only; d ∈ {2, 3}; n ≤ `MAX_POINTS` (the cost estimate bounds it further).
"""
from __future__ import annotations

import json
import sys

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.schema import FLOAT64_MAX, AnyJson, Array, MapOf, Number, Obj, load_json, naming

from ..arguments import memory_mib, seconds

EXIT_INCONCLUSIVE = 3
BUDGET_SECONDS = 60.0  # no invocation runs more than a minute without saying so (issue 20)
BUDGET_MEMORY_MIB = 2048  # beyond what the process holds; n = 300, d = 3 takes ≈ 450 MB
_ANY_FLOAT = Number(FLOAT64_MAX, "exact arithmetic takes any finite float64")
# d = 3 needs n(n − 1) vertices × n data of work and memory: n = 2000 would need 2·10^11 bytes, beyond any budget; d = 2
# needs 2n², and n = 10^5 needs 10^11 bytes. The cost estimate refuses long before these bounds; they keep it cheap.
MAX_POINTS = 100_000
DATA_SCHEMA = Obj(required={"inputs": Array(("n", "d"), _ANY_FLOAT), "labels": Array(("n",), _ANY_FLOAT)},
                  optional={"meta": MapOf(AnyJson())},
                  dims={"d": (2, 3, "exact enumeration is implemented for d = 2 and 3"),
                        "n": (1, MAX_POINTS, "the enumeration costs Θ(n^d) operations and bytes")})


def extremal_vectors(X, y):
    """`theory.extremal_vectors.extremal_vectors` (A Def. 2.1), imported when called: `relucheck --help` builds this
    parser without loading mpmath and numpy (issue 22, item 6). `_run` imports it before the budget's child forks."""
    from relucheck.theory.extremal_vectors import extremal_vectors as enumerate_exactly

    return enumerate_exactly(X, y)


def load_data(path):
    """Read a DATA.json file (`DATA_SCHEMA`); errors name the file, the field and the condition."""
    raw, _ = load_json(path, DATA_SCHEMA, "data")
    return raw["inputs"], raw["labels"]


def _fmt(v) -> str:
    return "(" + ", ".join(v) + ")"


def _refuse_beyond_budgets(X, y, budget: float, memory_mib: int) -> None:
    """Exit-2 refusal (a `RelucheckInputError`) when the estimated cost exceeds a budget."""
    from relucheck.theory.extremal_cost import estimate

    n, d = len(X), len(X[0])
    cost = estimate(X, y)
    if cost.seconds > budget:
        raise RelucheckInputError(f"the exact enumeration is estimated at {cost.seconds:.3g} s, beyond the time budget "
                                  f"of {budget:g} s (--budget; at most 86400): {cost.describe(n, d)}")
    if cost.bytes > memory_mib * 2**20:
        raise RelucheckInputError(f"the exact enumeration is estimated to need {cost.bytes / 2**20:.0f} MiB, beyond the "
                                  f"memory budget of {memory_mib} MiB (--memory): {cost.describe(n, d)}")


def _run(args) -> int:
    import relucheck.theory.extremal_vectors  # noqa: F401  loaded here, before the child forks (as when imported above)
    from relucheck.numerics.budget import BudgetExceeded, run_with_budget

    X, y = load_data(args.data)
    with naming(f"data file {args.data}"):
        _refuse_beyond_budgets(X, y, args.budget, args.memory)
        try:
            found = run_with_budget(extremal_vectors, (X, y), seconds=args.budget, memory_bytes=args.memory * 2**20)
        except BudgetExceeded as exc:
            print(f"relucheck: inconclusive (exit code 3): data file {args.data}: the exact enumeration was stopped: {exc} "
                  "(raise --budget or --memory to let it finish)", file=sys.stderr)
            return EXIT_INCONCLUSIVE
    if args.json:
        print(json.dumps([e.to_json() for e in found], indent=1))
        return 0
    print(f"{len(found)} non-zero extremal vector(s) (exact enumeration):")
    for e in found:
        print(f"  {e.type:<3}  D = {_fmt(e.decimal(12))}  at w = {_fmt(f'{c:.12g}' for c in e.direction)}  [{e.face}"
              + (f", ties {list(e.ties)}]" if e.ties else "]"))
    return 0


def register(sub) -> None:
    p = sub.add_parser("extremal-vectors", help="non-zero extremal vectors of data (paper A Definition 2.1), d = 2, 3; "
                                                "exit 0 answered, 2 error or estimated beyond the budgets, 3 stopped "
                                                "by a budget")
    p.add_argument("data", help="JSON object with 'inputs' (n×d) and 'labels' (n)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {direction, vector, type, face, ties}")
    p.add_argument("--budget", type=seconds, default=BUDGET_SECONDS, metavar="SECONDS",
                   help=f"time budget of the enumeration (default {BUDGET_SECONDS:g}); a request estimated beyond it "
                        "is refused, one that runs beyond it is stopped: inconclusive")
    p.add_argument("--memory", type=memory_mib, default=BUDGET_MEMORY_MIB, metavar="MIB",
                   help=f"memory budget of the enumeration in MiB (default {BUDGET_MEMORY_MIB})")
    p.set_defaults(func=_run)
