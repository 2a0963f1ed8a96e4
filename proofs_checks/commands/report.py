"""`relucheck report --paper X --out DIR`: a paper's figures and tables."""
from __future__ import annotations

import importlib
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError


def _run(args) -> int:
    paper = args.paper.lower()
    try:
        module = importlib.import_module(f"relucheck.proofs_checks.figures.paper_{paper}")
    except ModuleNotFoundError as exc:
        raise RelucheckInputError(f"no report for paper {args.paper.upper()} yet") from exc
    import matplotlib

    matplotlib.use("Agg")
    paths = module.write_report(Path(args.out), seed=args.seed)
    for p in paths:
        print(p)
    return 0


def register(sub) -> None:
    p = sub.add_parser("report", help="a paper's figures (PNG, PDF) and tables (LaTeX, Markdown)")
    p.add_argument("--paper", required=True, choices=["A", "B", "C", "a", "b", "c"])
    p.add_argument("--out", default="relucheck-report")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_run)
