"""Reports: results.json, results.csv, report.md, report.tex, and shared table writers.

Numbers are formatted with `fmt_number`: four significant digits, scientific notation for small
or large magnitudes (λ = 1e-40 prints as ``1e-40``, never as ``0.000``).
"""
from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np

from . import latex
from .latex_tables import table as latex_table
from .result import CheckResult

CSV_FIELDS = ["id", "check", "statement", "paper", "status", "mutant", "caught", "prediction", "measurement",
              "tolerance", "tolerance_reason", "precision", "seed", "seconds", "message"]


def fmt_number(x, digits: int = 4) -> str:
    """Four significant digits; scientific notation below 1e-3 or from 1e5 on."""
    if x is None:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)) and abs(int(x)) < 10**6:
        return str(int(x))
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if v == 0:
        return "0"
    if abs(v) < 1e-3 or abs(v) >= 1e5:
        mant, exp = f"{v:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e{int(exp)}"
    return f"{v:.{digits}g}"


def fmt_value(value, limit: int = 6) -> str:
    """A prediction or measurement for a table cell: numbers, short vectors, dicts, text."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt_value(v, 3)}" for k, v in list(value.items())[:limit])
    if isinstance(value, (list, tuple, np.ndarray)):
        flat = list(np.ravel(np.asarray(value, dtype=object)))
        cells = [fmt_number(v) for v in flat[:limit]]
        return "[" + ", ".join(cells) + (", …" if len(flat) > limit else "") + "]"
    return fmt_number(value)


def write_results(records: list[CheckResult], out_dir, *, title: str = "relucheck report") -> list[Path]:
    """Write the four report files into ``out_dir`` and return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "results.csv", out / "report.md", out / "report.tex"]
    paths[0].write_text(json.dumps([r.to_json() for r in records], indent=1))
    with paths[1].open("w", newline="") as fh:
        writer = csv.DictWriter(fh, CSV_FIELDS)
        writer.writeheader()
        for r in records:
            row = r.to_json()
            writer.writerow({k: (fmt_value(row[k]) if k in ("prediction", "measurement", "tolerance") else row[k])
                             for k in CSV_FIELDS})
    paths[2].write_text(markdown_report(records, title))
    paths[3].write_text(latex_report(records, title))
    return paths


def _summary(records) -> str:
    counts = Counter(r.status.value for r in records if not r.mutant)
    text = ", ".join(f"{counts[s]} {s}" for s in ("verified", "refuted", "inconclusive", "error") if counts[s])
    mutants = [r for r in records if r.mutant]
    if mutants:
        text += f"; mutants caught: {sum(bool(r.caught) for r in mutants)}/{len(mutants)}"
    return text or "no checks run"


def markdown_report(records: list[CheckResult], title: str) -> str:
    lines = [f"# {title}", "", f"Summary: {_summary(records)}.", ""]
    if records:
        v = records[0].versions
        lines += ["Versions: " + ", ".join(f"{k} {v[k]}" for k in sorted(v)), ""]
    lines += ["| check | status | prediction | measurement | tolerance | precision | seed | seconds |",
              "|---|---|---|---|---|---|---|---|"]
    for r in records:
        status = r.status.value + (f" (mutant {'caught' if r.caught else 'NOT caught'})" if r.mutant else "")
        lines.append(f"| `{r.id}` | {status} | {fmt_value(r.prediction)} | {fmt_value(r.measurement)} | "
                     f"{fmt_value(r.tolerance)} | {r.precision} | {r.seed} | {r.seconds:.2f} |")
    lines += ["", "## Details", ""]
    for r in records:
        lines += [f"### `{r.id}` — {r.status.value}", "", f"- statement: `{r.statement}`",
                  f"- tolerance reason: {r.tolerance_reason or '—'}", f"- message: {r.message or '—'}"]
        if r.mutant:
            lines.append(f"- mutation: {r.mutation}")
        lines.append("")
    return "\n".join(lines)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_table(header: list[str], rows: list[list], stem, *, caption: str = "") -> list[Path]:
    """Write ``stem.md`` and ``stem.tex`` for a table (numbers formatted with `fmt_number`)."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    cells = [[c if isinstance(c, str) else fmt_number(c) for c in row] for row in rows]
    md, tex = stem.with_suffix(".md"), stem.with_suffix(".tex")
    md.write_text((f"{caption}\n\n" if caption else "") + markdown_table(header, cells))
    tex.write_text(latex.fragment_header(f"table {stem.name}")
                   + latex_table(header, cells, caption=caption, label=f"tab:{stem.name}"))
    return [md, tex]


def latex_report(records: list[CheckResult], title: str) -> str:
    """report.tex: the summary and one long table of every record (LaTeX by `proofs_checks.latex`)."""
    header = ["check", "status", "prediction", "measurement", "tolerance", "precision", "seed", "seconds"]
    rows = []
    for r in records:
        status = r.status.value + ((" (caught)" if r.caught else " (NOT caught)") if r.mutant else "")
        rows.append([latex.identifier(r.id), status, fmt_value(r.prediction, 3),
                     fmt_value(r.measurement, 3), fmt_value(r.tolerance, 3), r.precision or "", str(r.seed),
                     f"{r.seconds:.2f}"])
    body = latex.escape("Summary: " + _summary(records) + ".") + "\n\n"
    if records:
        v = records[0].versions
        body += latex.escape("Versions: " + ", ".join(f"{k} {v[k]}" for k in sorted(v)) + ".") + "\n\n"
    table = latex_table(header, rows, caption="Checks, predictions and measurements", long=True, page="landscape")
    return latex.document(title, body + table, page="landscape")
