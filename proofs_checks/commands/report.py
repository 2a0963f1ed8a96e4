"""`relucheck report`: a paper's figures and tables (``--paper X``) and the LaTeX appendix (``--appendix``).

``--paper X --out DIR`` writes the paper's figures (PDF and PNG), tables (LaTeX fragments and Markdown) and
``paper_x.md`` / ``paper_x.tex`` (figure index with captions; a standalone document). ``--appendix`` writes
``DIR/appendix.tex`` and one fragment per paper from ``--results`` (a results.json of ``relucheck run``),
with the figures of any paper report already in DIR (or made by ``--paper`` in the same call), and
``DIR/relucheck-preamble.tex`` (the one preamble line every fragment needs). ``--style NAME`` chooses the
figures' preset (fonts and widths of a venue, `figures.style.STYLES`; default "article": Computer Modern at
the width of a one-column article).
"""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError


def _run(args) -> int:
    if not args.paper and not args.appendix:
        raise RelucheckInputError("report: give --paper A|B|C, --appendix, or both")
    from ..journal import prepare_out_dir

    prepare_out_dir(args.out)  # a file, or a directory that cannot be created or written: exit 2 before computing
    if args.appendix:
        from ..results_file import load_results

        load_results(args.results)  # a missing or malformed results file is exit 2 before any computation
    paths: list[Path] = []
    if args.paper:
        paper = args.paper.lower()
        try:
            module = importlib.import_module(f"relucheck.proofs_checks.figures.paper_{paper}")
        except ModuleNotFoundError as exc:
            raise RelucheckInputError(f"no report for paper {args.paper.upper()} yet") from exc
        import matplotlib

        from ..figures.index import write_index

        from relucheck.numerics.executor import use_executor

        from ..arguments import executor_of

        matplotlib.use("Agg")
        options = {"seed": args.seed}
        if "style" in inspect.signature(module.write_report).parameters:
            options["style"] = args.style
        from ..array_options import array_library

        with array_library(args), use_executor(executor_of(args)):  # every sweep of the report runs on it
            paths += module.write_report(Path(args.out), **options)
        paths += write_index(Path(args.out), paper, paths)
    if args.appendix:
        from ..appendix import write_appendix
        from ..plugins import load_checks

        load_checks(args.checks)  # a user's papers and statements, for their records in the results
        paths += write_appendix(args.results, Path(args.out))
    for p in paths:
        print(p)
    return 0


DEFAULT_STYLE = "article"


def _styles() -> tuple[str, ...]:
    from ..figures.style import STYLES  # lazily: matplotlib's preset module only when figures are made

    return tuple(STYLES)


def _style(name: str) -> str:
    """--style NAME: one of the figure presets (argparse turns the error into exit 2 naming the option)."""
    import argparse

    if name not in _styles():
        raise argparse.ArgumentTypeError(f"unknown style {name!r}; choose one of {', '.join(_styles())}")
    return name


def register(sub) -> None:
    p = sub.add_parser("report", help="a paper's figures and tables (--paper), the LaTeX appendix (--appendix)")
    p.add_argument("--paper", choices=["A", "B", "C", "a", "b", "c"],
                   help="write this paper's figures (PDF, PNG, a CSV of the plotted data each) and tables (.tex "
                        "fragments) into --out, with paper_X.tex previewing them; their scale is the environment "
                        "variable RELUCHECK_SCALE: reduced (default) or full for A and B, also d10 and regime for A "
                        "(docs/scale_runs.md)")
    p.add_argument("--appendix", action="store_true",
                   help="write appendix.tex (standalone) and one fragment appendix_x.tex per paper with records in "
                        "--results into --out (a user's paper: give its --checks)")
    p.add_argument("--results", default="relucheck-out/results.json",
                   help="results.json of `relucheck run` for --appendix (default relucheck-out/results.json)")
    p.add_argument("--out", default="relucheck-report", help="output directory (default relucheck-report)")
    p.add_argument("--seed", type=int, default=0, help="seed of every draw behind the figures (default 0)")
    p.add_argument("--style", default=DEFAULT_STYLE, type=_style,
                   help="figure preset: the fonts and sizes of a venue (article, neurips, icml, …; an unknown name "
                        f"lists them); default {DEFAULT_STYLE}: Computer Modern at a one-column article's width")
    from ..cli import _checks_option

    _checks_option(p)
    from ..arguments import executor_options

    executor_options(p)
    from ..array_options import array_options

    array_options(p)
    p.set_defaults(func=_run)
