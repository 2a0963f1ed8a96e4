"""The LaTeX appendix of ``relucheck report --appendix``: for each paper, its statements with the verdicts,
numbers and tolerances of their checks (from a results.json of ``relucheck run``), the findings, and the
figures and tables of ``relucheck report --paper`` found in the output directory.

Writes ``appendix.tex`` (one standalone document, compiled by tests/test_latex.py with pdflatex and lualatex),
``appendix_a.tex``, ``appendix_b.tex``, ``appendix_c.tex`` (the same sections as ``\\input``-able fragments
without preamble, for authors) and ``relucheck-preamble.tex`` (the one preamble line the fragments need,
`latex.PREAMBLE_LINE`). The fragments compile in one- and two-column articles (no longtable, no float wider
than the column) and from any folder (`latex.FRAGMENT_SETUP`).

Verdicts and counts come from `result.verdict_of` / `result.count_verdicts` (the record's fields, never its
message), the same functions as the run's summary line, report.md, report.tex and results.csv. The text is for
a reader: per check one sentence with prediction, measurement, tolerance and its reason, numbers through
`reader_text.num` with the digits the tolerance warrants, a small table where a check compares several values
(`appendix_values.comparison`); the
messages (a log of the computation) stay in results.json. The confidence of a reconstruction and the numbering
of each paper are said in words, in a legend.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from relucheck.numerics.durable_files import atomic_write_text
from relucheck.theory.statement import PAPERS

from . import latex
from .appendix_values import comparison
from .figures.index import latex_body, load_index
from .reader_text import prose
from .report import SUMMARY_FILE, incomplete_note
from .result import CHECK_VERDICTS, Verdict, count_verdicts, verdict_of
from .results_file import load_results


# A check's verdict for a reader (the heading of its paragraph)
VERDICT_WORDS = {
    Verdict.VERIFIED: "Verified",
    Verdict.FINDING: "Finding: the paper's claim is refuted",
    Verdict.REFUTED: "Refuted",
    Verdict.INCONCLUSIVE: "Inconclusive",
    Verdict.ERROR: "Error (the computation failed)",
}
# Short words for the confidence of a statement's form (the legend explains them)
CONFIDENCE_WORDS = {
    "certain": "as stated in the paper",
    "likely": "reconstructed, probable",
    "guess": "reconstructed from its role only",
    "verified symbolically": "legible in the paper, confirmed symbolically",
    "verified numerically": "legible in the paper, confirmed numerically",
    "error": "legible in the paper, found wrong in part",
    "unverified": "legible in the paper, not independently verified",
}
VERSION_WORDS = {"v1": "the first arXiv version", "v2": "the second arXiv version", "v3": "the third arXiv version"}


# Internal names that check texts (tolerance reasons, findings) use for a routine, and what they mean for a reader of
# the appendix, who has the paper and not relucheck's source (friction list, session 32: the appendix printed
# `lambda_limit.extrapolate` and "the lambda_limit spread rule" in B Theorem 2's tolerance reasons). Longest first;
# tests/test_friction_s32_appendix.py fails when a module name of relucheck reaches the appendix's text.
INTERNAL_NAMES = (
    ("`numerics.lambda_limit`", "the extrapolation of `relucheck limit`"),
    ("`lambda_limit.extrapolate`", "the order-2 Richardson extrapolation on the finest three rungs of the ladder"),
    ("the lambda_limit spread rule", "the spread rule of `relucheck limit`'s extrapolation"),
)


def reader_prose(text) -> str:
    """`prose` of a check's text with its internal names (INTERNAL_NAMES) written as what they mean."""
    text = str(text)
    for name, meaning in INTERNAL_NAMES:
        text = text.replace(name, meaning)
    return prose(text)


def _why_inconclusive(rec: dict) -> str:
    """The check's own sentence on why it could not decide (``details["why_inconclusive"]``), else the generic one."""
    why = (rec.get("details") or {}).get("why_inconclusive") if isinstance(rec.get("details"), dict) else None
    if isinstance(why, str) and why:
        return reader_prose(why.rstrip(".")) + "."
    return "the check could not decide at this precision."


# ---- one check, one statement -----------------------------------------------------------------------------
def _check_item(rec: dict, mutant: dict | None) -> str:
    """One check for a reader: its verdict, the comparison in a sentence (and a table), the tolerance's reason,
    the finding it establishes, its mutant."""
    verdict = verdict_of(rec)
    sentence, table = comparison(rec)
    parts = [rf"\textbf{{{VERDICT_WORDS[verdict]}.}}"]
    if rec.get("finding"):
        lead = "It establishes" if verdict is Verdict.FINDING else "It was to establish (this run does not)"
        parts.append(f"{lead}: {reader_prose(rec['finding'].rstrip('.'))}.")
    parts.append(sentence[:1].upper() + sentence[1:] + ".")
    if verdict is Verdict.INCONCLUSIVE:
        parts.append("Why it is inconclusive: " + _why_inconclusive(rec))
    if rec.get("tolerance_reason"):
        parts.append(f"Why this tolerance: {reader_prose(rec['tolerance_reason'].rstrip('.'))}.")
    if mutant is not None:
        caught = verdict_of(mutant) is Verdict.MUTANT_CAUGHT
        what = reader_prose(mutant.get("mutation") or "a deliberately wrong claim")
        parts.append(f"Its mutant ({what}) came out {'refuted, as it must' if caught else 'NOT refuted'}.")
    seed = rec.get("seed")
    parts.append(f"{{\\footnotesize Seed {seed if seed is not None else 'none'}; "
                 rf"record {latex.identifier(rec['id']).source}.}}")
    return r"\item " + " ".join(parts) + ("\n" + table if table else "")


def _numbering(st) -> str:
    """The statement's numbers in the paper's versions, in words ("" for a paper with one version)."""
    if not st.numbers or all(n == st.number for n in st.numbers.values()) and len(st.numbers) == 1:
        return ""
    shown = [f"{n} in {VERSION_WORDS.get(v, 'version ' + v)}" for v, n in st.numbers.items()]
    return "Numbered " + " and ".join(shown) + "."


def _statement(st) -> str:
    """A statement as the paper states it (the statement's hand-written LaTeX when it has it)."""
    title = st.title_latex() if hasattr(st, "title_latex") else latex.escape(st.title)
    parts = [rf"\paragraph{{{latex.escape(st.number)}: {title}.}}"]
    words = CONFIDENCE_WORDS.get(st.confidence, st.confidence)
    parts.append(rf"\emph{{Form: {latex.escape(words)}.}} " + latex.escape(_numbering(st)))
    hypotheses = st.hypotheses_latex() if hasattr(st, "hypotheses_latex") else tuple(
        latex.escape(h) for h in st.hypotheses)
    if hypotheses:
        parts.append(r"\emph{Assumptions:} " + "; ".join(h.rstrip(". ") for h in hypotheses) + ".")
    conclusion = getattr(st, "conclusion_tex", "") or st.conclusion_latex()
    if not getattr(st, "conclusion_tex", "") and not hasattr(st, "title_latex") and not isinstance(st.conclusion, str):
        conclusion = rf"\[ {conclusion} \]"  # the statement module before hand-written LaTeX: bare math
    parts.append(r"\emph{Claim:} " + conclusion)
    return "\n".join(parts) + "\n"


# ---- sections ---------------------------------------------------------------------------------------------
def _counts_text(counts) -> str:
    words = {Verdict.VERIFIED: "verified", Verdict.FINDING: "finding{s} (paper's claim refuted)",
             Verdict.REFUTED: "refuted", Verdict.INCONCLUSIVE: "inconclusive", Verdict.ERROR: "error{s}"}
    parts = [f"{counts[v]} " + words[v].format(s="s" if counts[v] != 1 else "") for v in CHECK_VERDICTS if counts[v]]
    return ", ".join(parts) or "no check"


def _legend(paper: str, statements) -> str:
    """What a reader needs to read the section: the verdict words, the forms' confidence, the numbering."""
    from relucheck.theory import statement as statement_module

    explain = getattr(statement_module, "confidence_explanation", None)
    numbering = getattr(statement_module, "numbering_explanation", None)
    tags = sorted({st.confidence for st in statements})
    items = [r"\emph{Verdicts.} \emph{Verified}: the prediction and the measurement agree within the tolerance. "
             r"\emph{Finding}: the check shows that the paper's claim, as stated, fails (its prediction is the "
             r"refutation; its mutant is the paper's claim). \emph{Refuted}: they disagree. \emph{Inconclusive}: "
             r"the computation cannot decide at this precision. Each check's \emph{mutant} is a deliberately wrong "
             r"claim run through the same computation; it must come out refuted."]
    for tag in tags:
        meaning = explain(tag) if explain else ""
        items.append(rf"\emph{{Form {latex.escape(CONFIDENCE_WORDS.get(tag, tag))}.}} "
                     + (latex.escape(meaning[:1].upper() + meaning[1:]) + "." if meaning else ""))
    if numbering:
        items.append(r"\emph{Numbering.} " + latex.escape(numbering(paper)) + ".")
    return (r"\paragraph{How to read this section.}" + "\n" + r"{\small\begin{itemize}" + "\n"
            + "\n".join(r"\item " + item for item in items) + "\n" + r"\end{itemize}}" + "\n")


def _summary_table(paper: str, statements, by_statement) -> str:
    rows = []
    for st in statements:
        counts = count_verdicts(r for r in by_statement.get(st.id, []) if not r.get("mutant"))
        text = _counts_text(counts) if any(counts[v] for v in CHECK_VERDICTS) else (
            "not checkable" if st.not_checkable_reason else "not run")
        rows.append([st.number, st.title, text])
    return _table(["statement", "title", "checks"], rows, f"Paper {paper}: statements and the verdicts of their checks")


def _table(header, rows, caption):
    from .latex_tables import table

    return table(header, rows, caption=caption, breakable=True)


def _label_prefix(tex: str, paper: str) -> str:
    """Labels of the figures and tables inlined in a paper's section, made unique to the appendix."""
    return re.sub(r"\\label\{", rf"\\label{{relucheck-appendix-{paper.lower()}-", tex)


def _natural(st) -> tuple:
    """Statements in the paper's order of kinds and numbers: Lemma 2 before Lemma 10."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", st.id))


def paper_section(paper: str, statements: dict, records: list[dict], out_dir, *, expected: int | None = None) -> str:
    """The appendix section of one paper (LaTeX, no preamble)."""
    own = sorted((st for st in statements.values() if st.paper == paper), key=_natural)
    by_statement: dict[str, list[dict]] = {}
    for rec in records:
        by_statement.setdefault(rec.get("statement", ""), []).append(rec)
    mine = [r for r in records if r.get("paper") == paper]
    counts = count_verdicts(r for r in mine if not r.get("mutant"))
    note = incomplete_note(len(records), expected)
    head = (latex.escape(note[:1].upper() + note[1:]) + r"; the counts below cover only the records present. "
            if note else "")
    # \emergencystretch: an author's article does not set it, and without it a long name or number in a 345 pt
    # column (the article class's) leaves lines up to 15 pt too wide; local to the section's group
    parts = [r"\begingroup" + latex.SISETUP + r"\setlength{\emergencystretch}{3em}",
             rf"\section{{Paper {paper}: machine verification}}"
             + rf"\label{{relucheck-appendix-{paper.lower()}}}",
             head + latex.escape(PAPERS[paper]) + ". " + f"Checks of this paper in this run: {_counts_text(counts)}.",
             _legend(paper, own), _summary_table(paper, own, by_statement)]
    findings = [r for r in mine if verdict_of(r) in (Verdict.FINDING, Verdict.REFUTED, Verdict.INCONCLUSIVE,
                                                     Verdict.ERROR)]
    parts.append(r"\subsection{Findings and open points}")
    if findings:
        items = []
        for r in findings:
            v = verdict_of(r)
            text = reader_prose(r["finding"].rstrip(".")) + "." if r.get("finding") and v is Verdict.FINDING else (
                _why_inconclusive(r) if v is Verdict.INCONCLUSIVE else
                "the prediction and the measurement disagree." if v is Verdict.REFUTED else "the computation failed.")
            st = statements.get(r.get("statement", ""))
            where = latex.escape(st.number) + ", " if st is not None else ""
            items.append(rf"\item \textbf{{{VERDICT_WORDS[v]}}} ({where}"
                         rf"record {latex.identifier(r['id']).source}): {text}")
        parts.append(r"\begin{itemize}" + "\n" + "\n".join(items) + "\n" + r"\end{itemize}")
    else:
        parts.append("No finding and no open point among the checks of this paper in this run.\n")
    parts.append(r"\subsection{Statements and verdicts}")
    for st in own:
        parts.append(_statement(st))
        recs = by_statement.get(st.id, [])
        mutants = {r.get("check"): r for r in recs if r.get("mutant")}
        checks = [r for r in recs if not r.get("mutant")]
        if checks:
            parts.append(r"\begin{itemize}" + "\n" + "\n".join(_check_item(r, mutants.get(r["id"])) for r in checks)
                         + "\n" + r"\end{itemize}")
        elif st.not_checkable_reason:
            parts.append(r"\emph{Not checked numerically:} " + reader_prose(st.not_checkable_reason.rstrip(". ")) + ".\n")
        else:
            parts.append(r"\emph{No check of this statement in this run.}" + "\n")
    index = load_index(out_dir, paper)
    if index:
        parts.append(r"\subsection{Figures and tables}")
        parts.append(_label_prefix(latex_body(out_dir, index), paper) + r"\clearpage")
    elif paper in BUILTIN_PAPERS:  # (a user's paper has no figure report: no section about one)
        parts.append(r"\subsection{Figures and tables}")
        parts.append(prose(f"No figure or table of this paper in this folder: `relucheck report --paper {paper}` "
                           "with the same output folder adds them.") + "\n")
    parts.append(r"\endgroup")
    return "\n".join(parts) + "\n"


def _expected(results) -> int | None:
    """How many records the run expected (run-summary.json beside the results file), None when unknown."""
    path = Path(results).with_name(SUMMARY_FILE)
    try:
        value = json.loads(path.read_text()).get("expected")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


BUILTIN_PAPERS = ("A", "B", "C")  # the papers with a figure report (`relucheck report --paper`)


def papers_of(records) -> tuple:
    """The papers of a run's appendix: A, B and C when any of them has a record (or none of any paper does), then
    each other paper with records (a user's); a paper whose statements are not registered (a user's, without its
    --checks) is bad input naming it."""
    from relucheck.numerics.errors import RelucheckInputError

    seen = list(dict.fromkeys(str(r.get("paper")) for r in records if r.get("paper")))
    unknown = [p for p in seen if p not in PAPERS]
    if unknown:
        raise RelucheckInputError(f"the results hold checks of paper {', '.join(unknown)}, whose statements are not "
                                  f"registered: give the file or module that defines them with --checks")
    builtin = list(BUILTIN_PAPERS) if any(p in BUILTIN_PAPERS for p in seen) else []  # all three, as a suite's
    return tuple(builtin + [p for p in seen if p not in builtin]) or BUILTIN_PAPERS


def write_appendix(results, out_dir, papers=None) -> list[Path]:
    """Write appendix.tex (standalone), one \\input-able fragment per paper (``papers``, default `papers_of` the
    records: a user's own paper too, new user, session 31) and relucheck-preamble.tex."""
    from relucheck.theory.statements import all_statements

    from .report import summary_line

    records = load_results(results)
    papers = papers_of(records) if papers is None else papers
    expected = _expected(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    statements = all_statements()
    paths, bodies = [], []
    for paper in papers:
        body = paper_section(paper, statements, records, out, expected=expected)
        bodies.append(body)
        path = out / f"appendix_{paper.lower()}.tex"
        atomic_write_text(path, latex.fragment_header(f"appendix section of paper {paper}") + body)
        paths.append(path)
    preamble = atomic_write_text(out / latex.PREAMBLE_FILE, latex.preamble_file())
    line = summary_line(records, expected=expected)
    versions = (records[0].get("versions") or {}) if records else {}
    shown = ("relucheck", "python", "numpy", "scipy", "sympy", "mpmath")
    intro = ("Machine verification of the statements of " + ("paper " if len(papers) == 1 else "papers ")
             + ", ".join(papers) + " by relucheck: every check "
             "computes a prediction and a measurement and compares them within a tolerance derived from the "
             "computation (its reason is given); its mutant, a deliberately wrong version of the claim, must come "
             "out refuted. This run: " + prose(line) + ". "
             + (latex.escape("Versions: " + ", ".join(f"{k} {versions[k]}" for k in shown if k in versions) + ".")
                if versions else ""))
    path = out / "appendix.tex"
    title = "Appendix: verification of the papers' statements"
    atomic_write_text(path, latex.document(title, intro + "\n\n" + "\n".join(bodies)))
    return [path] + paths + [preamble]
