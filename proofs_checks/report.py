"""Reports: results.json, results.csv, report.md, report.tex, and shared table writers.

Every summary counts records through ONE classification, `result.verdict_of` / `result.count_verdicts`
(from the records' fields status, finding, mutant, caught; never from message text): `summary_line` counts a
finding check's verified record as "paper's claim refuted (finding)", separately from "verified", and both
reports list those findings first; results.csv carries the verdict in its ``verdict`` column; the appendix
(`proofs_checks.appendix`) uses the same functions. A run that wrote fewer records than it ``expected`` says so
first in every summary (`incomplete_note`), and ``run-summary.json`` beside results.json records it (results.json
stays a plain list of records, as its readers expect). Every file is written atomically (temporary file +
``os.replace``) with the permissions of the process umask (`numerics.durable_files.atomic_write_text`).

Numbers are formatted with `fmt_number`: four significant digits, scientific notation for small
or large magnitudes (λ = 1e-40 prints as ``1e-40``, never as ``0.000``).
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np

from relucheck.numerics.durable_files import atomic_write_text
from relucheck.numerics.jsonable import to_jsonable

from . import latex, reader_text
from .latex_tables import table as latex_table
from .result import CheckResult, Verdict, count_verdicts, verdict_of

CSV_FIELDS = ["id", "check", "statement", "paper", "status", "verdict", "mutant", "caught", "finding", "prediction",
              "measurement", "tolerance", "tolerance_reason", "precision", "seed", "seconds", "message"]

# A run's versions as a reader names them; the code's hash is set in typewriter type (a hex string such as 76e6ff…
# is not a number in an exponent notation, and must not be typeset or read as one), its first 16 digits in the .tex
# (the whole of it, in results.json, would overrun the line).
VERSION_NAMES = {"relucheck_code_sha256": "code SHA-256", "python": "Python"}
CODE_HASHES = {"relucheck_code_sha256"}


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


SUMMARY_FILE = "run-summary.json"  # beside results.json: the summary line and how many records were expected


def write_results(records: list[CheckResult], out_dir, *, title: str = "relucheck report",
                  expected: int | None = None) -> list[Path]:
    """Write results.json, results.csv, report.md, report.tex and run-summary.json into ``out_dir`` (each
    atomically) and return their paths. ``expected``: how many records the run should have written (every
    summary says "incomplete: …" first when fewer are present)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "results.csv", out / "report.md", out / "report.tex", out / SUMMARY_FILE]
    atomic_write_text(paths[0], json.dumps([r.to_json() for r in records], indent=1))
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, CSV_FIELDS)
    writer.writeheader()
    for r in records:
        row = r.to_json()
        row["verdict"] = verdict_of(r).value
        writer.writerow({k: (fmt_value(row[k]) if k in ("prediction", "measurement", "tolerance") else row[k])
                         for k in CSV_FIELDS})
    atomic_write_text(paths[1], buf.getvalue())
    atomic_write_text(paths[2], markdown_report(records, title, expected=expected))
    atomic_write_text(paths[3], latex_report(records, title, expected=expected))
    counts = count_verdicts(records)
    atomic_write_text(paths[4], json.dumps({"records": len(records), "expected": expected,
                                     "complete": expected is None or len(records) >= expected,
                                     "counts": {v.value: counts[v] for v in Verdict},
                                     "summary": summary_line(records, expected=expected)}, indent=1))
    return paths


def incomplete_note(present: int, expected: int | None) -> str:
    """"incomplete: 32 of 86 records; the run was interrupted" when fewer records than expected, else ""."""
    if expected is None or present >= expected:
        return ""
    return f"incomplete: {present} of {expected} records; the run was interrupted"


def summary_line(records, expected: int | None = None) -> str:
    """E.g. "74 verified, 9 paper's claims refuted (findings), 1 inconclusive; mutants caught: 84/84", preceded
    by `incomplete_note` when fewer records than ``expected`` are present (counts by `count_verdicts`)."""
    counts = count_verdicts(records)
    parts = [f"{counts[Verdict.VERIFIED]} verified"] if counts[Verdict.VERIFIED] else []
    findings = counts[Verdict.FINDING]
    if findings:
        parts.append(f"{findings} paper's claim{'s' if findings > 1 else ''} refuted (finding{'s' if findings > 1 else ''})")
    parts += [f"{counts[v]} {v.value}" for v in (Verdict.REFUTED, Verdict.INCONCLUSIVE, Verdict.ERROR) if counts[v]]
    text = ", ".join(parts)
    mutants = counts[Verdict.MUTANT_CAUGHT] + counts[Verdict.MUTANT_MISSED]
    if mutants:
        text += f"; mutants caught: {counts[Verdict.MUTANT_CAUGHT]}/{mutants}"
    text = text or "no checks run"
    note = incomplete_note(len(records), expected)
    return f"{note}; {text}" if note else text


def _status_text(r: CheckResult) -> str:
    verdict = verdict_of(r)
    if r.mutant:
        return f"{r.status.value} (mutant {'caught' if verdict is Verdict.MUTANT_CAUGHT else 'NOT caught'})"
    if verdict is Verdict.FINDING:
        return "verified: paper's claim refuted (finding)"
    return r.status.value + (" (finding check: the finding did not reproduce)" if r.finding else "")


def _findings(records) -> tuple[list[CheckResult], list[CheckResult]]:
    """(finding checks that reproduced, finding checks that did not)."""
    real = [r for r in records if not r.mutant and r.finding]
    return ([r for r in real if verdict_of(r) is Verdict.FINDING],
            [r for r in real if verdict_of(r) is not Verdict.FINDING])


def markdown_report(records: list[CheckResult], title: str, expected: int | None = None) -> str:
    lines = [f"# {title}", "", f"Summary: {summary_line(records, expected=expected)}.", ""]
    shown, failed = _findings(records)
    if shown or failed:
        lines += ["## Findings: paper's claims refuted", "",
                  "Each check below states a refutation of a paper's claim as its prediction (its mutant is the "
                  "paper's claim); verified means the refutation reproduces (docs/findings.md).", ""]
        lines += [f"- `{r.id}` (statement `{r.statement}`): {r.finding} Evidence: {r.message or '—'}" for r in shown]
        lines += [f"- `{r.id}`: did NOT reproduce ({r.status.value}): {r.message or '—'}" for r in failed]
        lines.append("")
    if records:
        v = records[0].versions
        lines += ["Versions: " + ", ".join(f"{VERSION_NAMES.get(k, k)} `{v[k]}`" if k in CODE_HASHES else
                                           f"{VERSION_NAMES.get(k, k)} {v[k]}" for k in sorted(v)), ""]
    lines += ["| check | status | prediction | measurement | tolerance | precision | seed | seconds |",
              "|---|---|---|---|---|---|---|---|"]
    for r in records:
        tol = reader_text.as_float(to_jsonable(r.tolerance))
        cells = [reader_text.plain_cell(to_jsonable(v), tolerance=t).replace("|", "\\|")
                 for v, t in ((r.prediction, tol), (r.measurement, tol), (r.tolerance, None))]
        lines.append(f"| `{r.id}` | {_status_text(r)} | {cells[0]} | {cells[1]} | {cells[2]} | {r.precision} | "
                     f"{r.seed} | {r.seconds:.2f} |")
    lines += ["", "## Details", ""]
    for r in records:
        lines += [f"### `{r.id}` — {_status_text(r)}", "", f"- statement: `{r.statement}`",
                  f"- tolerance reason: {r.tolerance_reason or '—'}", f"- message: {r.message or '—'}"]
        if r.finding and not r.mutant:
            lines.append(f"- finding: {r.finding}")
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
    atomic_write_text(md, (f"{caption}\n\n" if caption else "") + markdown_table(header, cells))
    atomic_write_text(tex, latex.fragment_header(f"table {stem.name}")
                      + latex_table(header, cells, caption=caption, label=f"tab:{stem.name}"))
    return [md, tex]


def _flat(value) -> list:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def reader_cell(value, tolerance=None) -> latex.Tex:
    """A prediction, measurement or tolerance as a LaTeX table cell for a reader: a number by `reader_text.num`, a
    short text, or for a list or dict "n values, from a to b"; an expression only a program reads is "exact
    expression" (every value stays in results.json)."""
    value, tolerance = to_jsonable(value), to_jsonable(tolerance)  # records in memory hold NumPy arrays and scalars
    tol = reader_text.as_float(tolerance)
    single = reader_text.value(value, tol)
    if single is not None:
        return latex.Tex(single, min(len(str(value)), 14), 12)
    if isinstance(value, (list, tuple, dict)):
        leaves = _flat(value)
        numbers = [f for f in (reader_text.as_float(x) for x in leaves) if f is not None and math.isfinite(f)]
        text = f"{len(leaves)} values"
        if numbers and len(numbers) == len(leaves) and len(leaves) > 1:
            text += f", {reader_text.num(min(numbers), 3)} to {reader_text.num(max(numbers), 3)}"
        elif len(leaves) == 1:
            inner = reader_text.value(leaves[0], tol)
            text = inner if inner is not None else "exact expression"
        return latex.Tex(text, 22, 10)
    return latex.Tex("exact expression" if value not in (None, "") else "", 16, 10)


def latex_report(records: list[CheckResult], title: str, expected: int | None = None) -> str:
    """report.tex: the summary and one long table of every record (LaTeX by `proofs_checks.latex`)."""
    header = ["check", "status", "prediction", "measurement", "tolerance", "precision", "seed", "seconds"]
    rows = []
    for r in records:
        status = r.status.value + ((" (caught)" if r.caught else " (NOT caught)") if r.mutant else "")
        if verdict_of(r) is Verdict.FINDING:
            status = "verified: paper's claim refuted"
        rows.append([latex.identifier(r.id), status, reader_cell(r.prediction, r.tolerance),
                     reader_cell(r.measurement, r.tolerance), reader_cell(r.tolerance), r.precision or "",
                     str(r.seed), f"{r.seconds:.2f}"])
    body = latex.escape("Summary: " + summary_line(records, expected=expected) + ".") + "\n\n"
    if records:
        v = records[0].versions
        body += "Versions: " + ", ".join(
            f"{latex.escape(VERSION_NAMES.get(k, k))} \\texttt{{{latex.escape(str(v[k])[:16])}}}…" if k in CODE_HASHES
            else latex.escape(f"{VERSION_NAMES.get(k, k)} {v[k]}") for k in sorted(v)) + ".\n\n"
    shown, failed = _findings(records)
    if shown or failed:
        items = [f"\\item {latex.identifier(r.id)}: {reader_text.prose(r.finding)}" for r in shown]
        items += [f"\\item {latex.identifier(r.id)}: did NOT reproduce ({r.status.value})" for r in failed]
        body += "\n".join(["\\subsection*{Findings: paper's claims refuted}", "\\begin{itemize}", *items,
                            "\\end{itemize}", "", ""])
    table = latex_table(header, rows, caption="Checks, predictions and measurements", long=True, page="landscape")
    return latex.document(title, body + table, page="landscape")
