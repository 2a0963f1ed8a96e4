"""The LaTeX appendix of ``relucheck report --appendix``: for each paper, its statements with the verdicts,
numbers and tolerances of their checks (from a results.json of ``relucheck run``), the findings, and the
figures and tables of ``relucheck report --paper`` found in the output directory.

Writes ``appendix.tex`` (one standalone document, compiled by tests/test_latex.py with pdflatex and lualatex)
and ``appendix_a.tex``, ``appendix_b.tex``, ``appendix_c.tex`` (the same sections as ``\\input``-able
fragments without preamble, for authors).

A finding is a record (not a mutant) that is refuted, inconclusive or an error, or whose message says
"paper's claim refuted" (the convention of docs/findings.md: such a check's prediction is the finding and
its mutant, the paper's claim, must be refuted).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from relucheck.theory.statement import PAPERS

from . import latex
from .latex_tables import is_number, table
from .figures.index import latex_body, load_index
from .report import fmt_value
from .results_file import load_results

FINDING_MARK = "paper's claim refuted"


def is_finding(rec: dict) -> bool:
    if rec.get("mutant"):
        return False
    return rec["status"] in ("refuted", "inconclusive", "error") or FINDING_MARK in (rec.get("message") or "")


def _verdict(rec: dict, mutant: dict | None) -> str:
    text = rec["status"]
    if mutant is not None:
        text += "; mutant " + ("refuted" if mutant.get("caught") else "NOT refuted")
    return text


def _check_item(rec: dict, mutant: dict | None) -> str:
    """One check as a description item: verdict, prediction, measurement, tolerance and its reason, message."""
    def num(value) -> str:
        cell = fmt_value(value, 4)
        return rf"\num{{{cell}}}" if is_number(cell) else latex.escape(cell)

    parts = [rf"\emph{{{latex.escape(_verdict(rec, mutant))}}}.",
             f"Prediction {num(rec.get('prediction'))}; measurement {num(rec.get('measurement'))}; "
             f"tolerance {num(rec.get('tolerance'))}"
             + (f" ({latex.escape(rec['tolerance_reason'])})" if rec.get("tolerance_reason") else "") + ".",
             latex.escape(f"Precision {rec.get('precision') or '—'}, seed {rec.get('seed')}, "
                          f"{float(rec.get('seconds') or 0):.2f} s.")]
    if rec.get("message"):
        parts.append(latex.escape(rec["message"]))
    return rf"\item[{latex.identifier(rec['id']).source}] " + " ".join(parts)


def _summary_table(paper: str, statements, by_statement) -> str:
    rows = []
    for st in statements:
        recs = [r for r in by_statement.get(st.id, []) if not r.get("mutant")]
        counts = Counter(r["status"] for r in recs)
        verdicts = ", ".join(f"{counts[s]} {s}" for s in ("verified", "refuted", "inconclusive", "error") if counts[s])
        rows.append([st.number, st.title, verdicts or ("not checkable" if st.not_checkable_reason else "not run")])
    return table(["statement", "title", "verdicts"], rows, long=True,
                       caption=f"Paper {paper}: statements and the verdicts of their checks in this results file")


def paper_section(paper: str, statements: dict, records: list[dict], out_dir) -> str:
    """The appendix section of one paper (LaTeX, no preamble)."""
    own = sorted((st for st in statements.values() if st.paper == paper), key=lambda st: st.id)
    by_statement: dict[str, list[dict]] = {}
    for rec in records:
        by_statement.setdefault(rec.get("statement", ""), []).append(rec)
    parts = [rf"\section{{Paper {paper}}}", latex.escape(PAPERS[paper]) + ".", "",
             _summary_table(paper, own, by_statement), r"\subsection{Statements and verdicts}"]
    for st in own:
        parts.append(st.to_latex())
        recs = by_statement.get(st.id, [])
        mutants = {r.get("check"): r for r in recs if r.get("mutant")}
        checks = [r for r in recs if not r.get("mutant")]
        if checks:
            parts.append(r"\begin{description}" + "\n".join(_check_item(r, mutants.get(r["id"])) for r in checks)
                         + r"\end{description}")
        elif st.not_checkable_reason:
            parts.append(latex.escape(f"Not checked numerically: {st.not_checkable_reason}") + "\n")
        else:
            parts.append(r"\emph{No check of this statement in the results file.}" + "\n")
    findings = [r for r in records if r.get("paper") == paper and is_finding(r)]
    parts.append(r"\subsection{Findings}")
    if findings:
        parts.append(r"\begin{itemize}" + "\n".join(
            rf"\item {latex.identifier(r['id']).source} ({latex.escape(r['status'])}): {latex.escape(r.get('message', ''))}"
            for r in findings) + r"\end{itemize}")
    else:
        parts.append("No finding among the checks of this paper in the results file.\n")
    index = load_index(out_dir, paper)
    parts.append(r"\subsection{Figures and tables}")
    if index:
        parts.append(latex_body(out_dir, index) + r"\clearpage")
    else:
        parts.append(latex.escape(f"None in this directory: run `relucheck report --paper {paper}` with the same "
                                  f"--out to add them.") + "\n")
    return "\n".join(parts) + "\n"


def write_appendix(results, out_dir, papers=("A", "B", "C")) -> list[Path]:
    """Write appendix.tex (standalone) and one \\input-able fragment per paper into ``out_dir``."""
    from relucheck.theory.statements import all_statements

    records = load_results(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    statements = all_statements()
    paths, bodies = [], []
    for paper in papers:
        body = paper_section(paper, statements, records, out)
        bodies.append(body)
        path = out / f"appendix_{paper.lower()}.tex"
        path.write_text(latex.fragment_header(f"appendix section of paper {paper}") + body)
        paths.append(path)
    counts = Counter(r["status"] for r in records if not r.get("mutant"))
    mutants = [r for r in records if r.get("mutant")]
    versions = (records[0].get("versions") or {}) if records else {}
    intro = latex.escape(
        f"Machine verification of the statements of papers {', '.join(papers)} by relucheck: every check computes a "
        f"prediction and a measurement and compares them within a derived tolerance; its mutant (a deliberately "
        f"wrong version of the claim) must come out refuted. This results file holds "
        + ", ".join(f"{counts[s]} {s}" for s in ("verified", "refuted", "inconclusive", "error") if counts[s])
        + (f" checks and {sum(bool(r.get('caught')) for r in mutants)} of {len(mutants)} mutants refuted" if mutants
           else " checks (run without --mutate)") + ". "
        + ("Versions: " + ", ".join(f"{k} {versions[k]}" for k in sorted(versions)) + "." if versions else ""))
    path = out / "appendix.tex"
    path.write_text(latex.document("Appendix: verification of the papers' statements", intro + "\n\n" + "\n".join(bodies)))
    return [path] + paths
