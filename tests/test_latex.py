"""Every LaTeX file relucheck writes compiles with pdflatex and lualatex: report.tex of `relucheck run`, a paper's
tables and figures (`relucheck report --paper C`), and the appendix (`relucheck report --appendix`); the escaper
maps every symbol of the package's sources; tables align numbers.

No skip: without pdflatex, lualatex or pdffonts these tests FAIL and say to install TeX Live (.ci/run does).
"""
from __future__ import annotations

import json
import random
import re
import string
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relucheck.proofs_checks import latex, latex_tables
from relucheck.proofs_checks.cli import main
from tests.latex_tools import ENGINES, compile_tex, pdf_fonts, reader_problems

ROOT = Path(__file__).resolve().parents[1]
NASTY = "λ = 1e-40 ∈ [0, 1], ‖θ_∞‖² ≤ τ̂_k − τ_k … 50% & $x_1$ #{a}~^\\ ≠ ∉ 𝓘 ℝ^d S^{d−1} Lazić § — ŷ ḡ"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A small `run --only` (with mutants), paper C's report and the appendix, in one directory each."""
    base = tmp_path_factory.mktemp("latex")
    run_dir, report_dir = base / "run", base / "report"
    assert main(["run", "--only", "C.prop1.*", "--mutate", "--quiet", "--out", str(run_dir)]) == 0
    results = run_dir / "results.json"
    records = json.loads(results.read_text())
    finding = dict(records[0], id="C.prop1.synthetic_finding", check="C.prop1.synthetic_finding", status="refuted",
                   mutant=False, prediction=[1e-300, 2.5, float("nan")], measurement={"μ_low": 0.25, "τ̂": 3},
                   message="paper's claim refuted: " + NASTY, tolerance_reason=NASTY)
    finding["prediction"] = [1e-300, 2.5, "nan"]  # as results.json stores a NaN
    results.write_text(json.dumps(records + [finding]))
    assert main(["report", "--paper", "C", "--appendix", "--results", str(results), "--out", str(report_dir)]) == 0
    return {"run": run_dir, "report": report_dir, "base": base}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("what", ["run/report.tex", "report/paper_c.tex", "report/appendix.tex"])
def test_documents_compile(outputs, engine, what):
    tex = outputs["base"] / what
    pdf = compile_tex(tex, engine, outputs["base"] / "pdf" / engine / Path(what).parent)
    assert all(kind != "Type 3" for _, kind in pdf_fonts(pdf)), "Type 3 (bitmap) fonts in the compiled document"


def test_fragments_are_inputable_without_preamble(outputs, tmp_path):
    """The authors' fragments (tables, appendix sections) compile when \\input into a document of their own."""
    report = outputs["report"]
    tables = json.loads((report / "paper_c_index.json").read_text())["tables"]
    fragments = sorted(report.glob("appendix_?.tex")) + [report / name for name in tables]
    assert len(fragments) == 5
    for frag in fragments:
        assert "\\documentclass" not in frag.read_text()
    doc = report / "authors.tex"
    doc.write_text(latex.document("authors' document", "\n".join(f"\\input{{{f.name}}}" for f in fragments)))
    compile_tex(doc, "pdflatex", tmp_path)


def test_appendix_content(outputs):
    text = (outputs["report"] / "appendix.tex").read_text()
    assert text.isascii()
    for needle in ("\\section{Paper A: machine verification}", "\\section{Paper B: machine verification}",
                   "\\section{Paper C: machine verification}", "Findings", "\\textbf{Refuted}",
                   "came out refuted, as it must", "fig1_loss_vs_tau.pdf", "Algorithm 1", "How to read this section"):
        assert needle in text, needle
    frag = (outputs["report"] / "appendix_c.tex").read_text()
    assert "\\documentclass" not in frag and "\\section{Paper C: machine verification}" in frag


AUTHOR_OVERFULL_PT = 10.0  # what a reader would see in print; the bar for the fragments in a paper
LAYOUTS = {  # an author's paper: the documented preamble line, a 5.5 in column or two columns
    "one-column": "\\documentclass[10pt]{article}\n\\usepackage[textwidth=5.5in,textheight=9in]{geometry}",
    "two-column": "\\documentclass[10pt,twocolumn]{article}\n\\usepackage[textwidth=6.75in,columnsep=0.25in,"
                  "textheight=9in]{geometry}",
}


def _fragments(report: Path) -> list[Path]:
    tables = json.loads((report / "paper_c_index.json").read_text())["tables"]
    return sorted(report.glob("appendix_?.tex")) + [report / name for name in tables]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_fragments_in_an_authors_paper_from_a_parent_folder(outputs, layout):
    """The fragments \\input from the folder above them, into a one-column (5.5 in) or a two-column article whose
    preamble is the documented line (relucheck-preamble.tex): they compile with pdflatex, figures found, no
    overfull box over 10 pt, no Type 3 font."""
    base, report = outputs["base"], outputs["report"]
    assert (report / latex.PREAMBLE_FILE).read_text().strip().endswith(latex.PREAMBLE_LINE)
    doc = base / f"paper-{layout}.tex"
    inputs = "\n".join(f"\\input{{{report.name}/{frag.name}}}" for frag in _fragments(report))
    doc.write_text(f"{LAYOUTS[layout]}\n\\input{{{report.name}/{latex.PREAMBLE_FILE}}}\n\\begin{{document}}\n"
                   f"Body text of the author's paper.\n{inputs}\n\\end{{document}}\n")
    # In two columns (3.25 in) only relucheck's own text and tables must fit; the statements' displayed formulas are
    # typeset for a 5.5 in column (tests/test_statement_latex.py), so an overfull display there is not failed on.
    limit = AUTHOR_OVERFULL_PT if layout == "one-column" else float("inf")
    pdf = compile_tex(doc, "pdflatex", base / "pdf" / layout, overfull_pt=limit)
    log = (base / "pdf" / layout / f"{doc.stem}.log").read_text(errors="replace")
    text_boxes = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\) in (?:paragraph|alignment)", log)]
    assert not [w for w in text_boxes if w > AUTHOR_OVERFULL_PT], text_boxes
    fonts = pdf_fonts(pdf)
    assert not [name for name, kind in fonts if kind == "Type 3"], fonts
    assert "fig1_loss_vs_tau" in "".join(frag.read_text() for frag in _fragments(report))  # figures were included


def test_labels_are_unique_across_fragments(outputs):
    """An author may \\input every fragment: no \\label twice (the appendix renames the copies it inlines)."""
    seen: dict[str, str] = {}
    for frag in _fragments(outputs["report"]):
        for label in re.findall(r"\\label\{([^}]*)\}", frag.read_text()):
            assert label not in seen, f"\\label{{{label}}} in {frag.name} and {seen[label]}"
            seen[label] = frag.name
    assert seen


def test_fragments_and_documents_read_as_text(outputs):
    """report.tex, the table fragments and paper_c.tex (the appendix holds the synthetic NASTY record here; the
    appendix of a real run is scanned by tests/test_appendix.py)."""
    for folder in ("run", "report"):
        for tex in sorted(outputs[folder].glob("*.tex")):
            if tex.name == "authors.tex" or tex.name.startswith("appendix") or tex.name.startswith("paper-"):
                continue
            assert not reader_problems(tex.read_text()), (tex.name, reader_problems(tex.read_text()))


def test_appendix_without_results_is_exit_2(tmp_path, capsys):
    missing = tmp_path / "nope" / "results.json"
    assert main(["report", "--appendix", "--results", str(missing), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--results" in err and "relucheck run" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert main(["report", "--appendix", "--results", str(bad), "--out", str(tmp_path)]) == 2
    assert main(["report", "--out", str(tmp_path)]) == 2  # neither --paper nor --appendix


def test_the_compile_check_can_fail(tmp_path):
    """The helper catches what the issue found: raw Unicode under pdflatex, a table running off the page."""
    raw = tmp_path / "raw.tex"
    raw.write_text("\\documentclass{article}\\usepackage[T1]{fontenc}\\begin{document}λ ∈ τ\\end{document}\n")
    with pytest.raises(AssertionError, match="pdflatex failed"):
        compile_tex(raw, "pdflatex", tmp_path / "o1")
    wide = tmp_path / "wide.tex"
    wide.write_text(latex.document("wide", "\\begin{tabular}{l}" + "x" * 400 + "\\end{tabular}"))
    with pytest.raises(AssertionError, match="Overfull"):
        compile_tex(wide, "pdflatex", tmp_path / "o2")


def _source_characters() -> set[str]:
    chars = set()
    for folder in ("theory", "numerics", "proofs_checks"):
        for path in (ROOT / folder).rglob("*.py"):
            chars |= {c for c in unicodedata.normalize("NFC", path.read_text()) if not c.isascii()}
    return chars


def test_every_symbol_of_the_sources_is_mapped_and_compiles(tmp_path):
    chars = sorted(_source_characters())
    assert len(chars) > 50
    unmapped = [c for c in chars if "U+" in latex.escape("x" + c if unicodedata.combining(c) else c)]
    assert not unmapped, f"characters without a LaTeX mapping: {unmapped}"
    body = "\n\n".join(latex.escape(" ".join(chars[k:k + 20])) for k in range(0, len(chars), 20))
    body += "\n\n" + latex.escape(NASTY)
    doc = tmp_path / "symbols.tex"
    doc.write_text(latex.document("symbols", body))
    for engine in ENGINES:
        compile_tex(doc, engine, tmp_path / engine)


@pytest.mark.parametrize("text, expected", [
    ("λ", "\\ensuremath{\\lambda}"), ("a_b & 50%", "\\ensuremath{a _{b}} \\& 50\\%"),
    ("escape_time", "escape\\_time"), ("τ̂_k", "\\ensuremath{\\hat{\\tau} _{k}}"), ("‖x‖²", "\\ensuremath{\\| x \\| ^{2}}"),
    ("≠", "\\ensuremath{\\neq}"), ("Lazić", "Lazi\\'{c}"), ("☃", "\\texttt{U+2603}"),
    ("~^", "\\textasciitilde{}\\textasciicircum{}"), ("10⁻³", "10\\ensuremath{^{-3}}"),
])
def test_escape(text, expected):
    assert latex.escape(text) == expected


def test_numbers_are_decimal_aligned():
    tex = latex_tables.table(["n", "error", "note"], [["12", "1.5e-3", "ok"], ["1024", "-0.25", "nan"], ["7", "nan", "x"]])
    assert "S[table-format=4]" in tex and "S[table-format=-1.1e-1,exponent-mode=scientific]" in tex
    assert "{n} & {error} & note" in tex  # siunitx column headers are braced
    assert "{NaN}" in tex  # a non-finite number inside an S column is braced text
    long = latex_tables.table(["check", "status"], [[latex.identifier("A.lemF.4.escape_time"), "verified"]], long=True)
    assert "\\begin{longtable}" in long and "\\allowbreak" in long and "p{\\dimexpr" in long


def test_long_float_tables_are_split():
    rows = [[str(k), f"{k / 7:.4g}"] for k in range(latex_tables.MAX_FLOAT_ROWS * 2 + 1)]
    tex = latex_tables.table(["k", "x"], rows, caption="many")
    assert tex.count("\\begin{table}") == 3 and "(part 3 of 3)" in tex


def _braces_balance(tex: str) -> bool:
    depth = 0
    for c in tex.replace("\\\\", "").replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


@given(st.text(max_size=40))
def test_escape_gives_ascii_with_balanced_braces(text):
    tex = latex.escape(text)
    assert tex.isascii() and _braces_balance(tex)


def test_random_texts_compile(tmp_path):
    """Random strings over ASCII, the sources' symbols, scripts and combining marks compile with both engines."""
    pool = list(string.printable[:95]) + sorted(_source_characters()) + list("⁻³²₁₂ᵀ") + ["\u0302", "\u0338", "_", "^"] * 4
    rng = random.Random(0)
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 14))) for _ in range(300)]
    doc = tmp_path / "random.tex"
    doc.write_text(latex.document("random", "\n\n".join(latex.escape(t) for t in texts)))
    for engine in ENGINES:
        compile_tex(doc, engine, tmp_path / engine)
