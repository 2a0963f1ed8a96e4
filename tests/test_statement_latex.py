"""Statements typeset by hand, checked by machine (issue 21, item 2).

Every statement of papers A, B and C carries ``conclusion_tex`` and ``hypotheses_tex`` written for it; this file
checks the convention of relucheck.theory.statement (text-mode LaTeX, pure ASCII, no script outside math or
around prose), compiles every statement with pdflatex in a 5.5 in column, and checks that a user's statement
without hand-written LaTeX still renders safely.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy as sp

from relucheck.theory.statement import (CONFIDENCE_TAGS, LATEX_PACKAGES, PAPER_NUMBERING, Statement,
                                        confidence_explanation, latex_problems, numbering_explanation, text_to_latex)
from relucheck.theory.statements import all_statements

OVERFULL_LIMIT_PT = 10.0  # issue 21: no overfull box over 10 pt in a 5.5 in column (a reader sees more in print)
COLUMN = "5.5in"
BUILTIN = {sid: st for sid, st in all_statements().items() if st.paper in ("A", "B", "C")}

# a user's plugin statements without hand-written LaTeX: prose SymPy names and Unicode text, as paper A's used to be
PROSE_SYMPY = Statement(id="A.user_prose", paper="A", number="Theorem 99", title="h_θ^∞ ≈ OLS (user)",
                        hypotheses=("x_k ∈ ℝ^d, ‖x_k‖ ≤ 1", "gradient flow dθ/dt ∈ −∂L(θ)"),
                        conclusion=sp.Eq(sp.Function("h_{theta^infty}")(sp.Symbol("x")),
                                         sp.Symbol("two-piece OLS for every width m")))
UNICODE_TEXT = Statement(id="A.user_text", paper="A", number="Lemma 99", title="t",
                         conclusion="at τ = ε ln(1/λ): ⟨w̄_j, D̄_+⟩ ≥ 1 − λ^κ, 50% & $5, a_{prose in braces}^x ~ #1 \\ {}")
CLEAN_SYMPY = Statement(id="A.user_clean", paper="A", number="Lemma 98", title="t",
                        conclusion=sp.Le(sp.Symbol("a_j") ** 2, sp.Symbol("lambda") * sp.Symbol("x")))
USER = (PROSE_SYMPY, UNICODE_TEXT, CLEAN_SYMPY)


def _pieces(st: Statement):
    yield "conclusion_latex()", st.conclusion_latex()
    yield "title_latex()", st.title_latex()
    for k, h in enumerate(st.hypotheses_latex()):
        yield f"hypotheses_latex()[{k}]", h
    yield "to_latex()", st.to_latex()


def test_every_statement_of_a_b_c_is_typeset_by_hand():
    assert len(BUILTIN) == 62
    for sid, st in BUILTIN.items():
        assert st.conclusion_tex.strip(), f"{sid}: no conclusion_tex"
        assert len(st.hypotheses_tex) == len(st.hypotheses), f"{sid}: one hypotheses_tex per hypothesis"
        assert all(h.strip() for h in st.hypotheses_tex), sid


@pytest.mark.parametrize("st", list(BUILTIN.values()) + list(USER), ids=lambda st: st.id)
def test_latex_follows_the_convention(st):
    for where, tex in _pieces(st):
        assert latex_problems(tex) == [], f"{st.id} {where}: {latex_problems(tex)}\n{tex}"


@pytest.mark.parametrize("tex, problem", [
    (r"$h_{theta^infty}(x)$", "prose 'theta'"),                # a SymPy symbol named in prose (the old A Theorem 4.1)
    (r"\[ x_{\mathrm{some words}} \]", "prose 'some'"),
    (r"\[ \sqrt{p}(n\mu(0)-\beta_0)\to\mathcal{N} \]", None),  # macro names are not prose
    (r"the time a_j", "raw _ outside math"),
    (r"x^2 grows", "raw ^ outside math"),
    (r"$\text{a_b}$", "raw _ outside math"),                   # \text returns to text mode inside math
    (r"$a$ and \ensuremath{b_j}", None),
    (r"\[ \begin{aligned} a&=b_j\\ c&=d^2 \end{aligned} \]", None),
    (r"$\tau$ and τ", "Unicode character 'τ'"),
    (r"$$ x $$", "$$"),
    (r"$x", "unclosed '$'"),
    (r"\[ x", "unclosed"),
    (r"a}", "unmatched }"),
    (r"100\% of \$5 and a\_j", None),                          # escaped specials are text
])
def test_latex_problems_finds_each_kind_of_fault(tex, problem):
    found = latex_problems(tex)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found


def test_user_statements_without_tex_fall_back_safely():
    """A plugin statement without conclusion_tex renders its text literally: no prose in a subscript."""
    prose = PROSE_SYMPY.conclusion_latex()
    assert "\\[" not in prose and "two-piece OLS for every width m" in prose and "h\\_" in prose
    hypothesis = PROSE_SYMPY.hypotheses_latex()[0]  # "x_k ∈ ℝ^d, ‖x_k‖ ≤ 1": scripts literal, symbols as macros
    assert hypothesis.startswith("x\\_k ") and "\\textasciicircum{}d" in hypothesis and "\\mathbb{R}" in hypothesis
    text = UNICODE_TEXT.conclusion_latex()
    assert "50\\% \\& \\$5" in text and "\\textasciicircum{}" in text and "\\#1 \\textbackslash{} \\{\\}" in text
    assert CLEAN_SYMPY.conclusion_latex() == "\\[ a_{j}^{2} \\leq \\lambda x \\]"  # plain symbols keep SymPy's LaTeX
    assert CLEAN_SYMPY._repr_latex_() == "$\\displaystyle \\text{A Lemma 98}:\\ a_{j}^{2} \\leq \\lambda x$"
    assert text_to_latex("τ²") == "\\ensuremath{\\tau ^{2}}"


def test_hand_written_latex_is_validated_when_a_statement_is_made():
    with pytest.raises(ValueError, match=r"statement A.v: conclusion_tex: prose 'theta'"):
        Statement(id="A.v", paper="A", number="1", title="t", conclusion_tex=r"$h_{theta}$")
    with pytest.raises(ValueError, match=r"hypotheses_tex\[0\]: Unicode character"):
        Statement(id="A.v", paper="A", number="1", title="t", hypotheses=("h",), hypotheses_tex=("λ",))
    with pytest.raises(ValueError, match="hypotheses_tex has 1 entries for 2 hypotheses"):
        Statement(id="A.v", paper="A", number="1", title="t", hypotheses=("h", "k"), hypotheses_tex=("$h$",))
    with pytest.raises(ValueError, match="must be a string of LaTeX"):
        Statement(id="A.v", paper="A", number="1", title="t", conclusion_tex=sp.Symbol("x"))


def test_reader_explanations_of_tags_and_numbering():
    for tag in CONFIDENCE_TAGS:
        sentence = confidence_explanation(tag)
        assert len(sentence.split()) >= 8 and sentence.isascii() and not sentence.endswith(".")
    with pytest.raises(ValueError, match="unknown confidence tag 'sure'"):
        confidence_explanation("sure")
    assert set(PAPER_NUMBERING) == {"A", "B", "C"} and "v2" in numbering_explanation("A")
    assert numbering_explanation("Q") == "Paper Q is numbered as its statements were registered"
    assert BUILTIN["A.thm4.1"].number_in_words() == "Theorem 4.1 (Theorem 2 in v1)"
    assert BUILTIN["A.thm1.1"].number_in_words() == "Theorem 1.1 (informal) (new in v2)" \
        or BUILTIN["A.thm1.1"].number_in_words() == "Theorem 1.1 (new in v2)"
    assert BUILTIN["C.thm2"].number_in_words() == "Theorem 2"


def statements_document(statements, column: str = COLUMN, setup: str = "") -> str:
    """One article with every statement's to_latex() in a ``column`` (5.5 in) wide column, with only LATEX_PACKAGES
    (and ``setup`` before the document)."""
    body = "\n".join(f"\\subsection*{{{st.id.replace('_', ' ')}}}\n{st.to_latex()}" for st in statements)
    return ("\\documentclass{article}\n"
            f"\\usepackage{{{','.join(LATEX_PACKAGES)}}}\n"
            f"\\setlength{{\\textwidth}}{{{column}}}\n\\setlength{{\\oddsidemargin}}{{0.5in}}\n{setup}"
            "\\begin{document}\n" + body + "\n\\end{document}\n")


def compile_statements(tmp_path, statements, column: str = COLUMN, setup: str = ""):
    """pdflatex on the document; returns (pdf path, overfull widths in pt). A LaTeX error fails the test."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.fail("pdflatex is not installed: apt-get install --no-install-recommends texlive-latex-recommended "
                    "(.ci/run does this)")
    tex = tmp_path / "statements.tex"
    tex.write_text(statements_document(statements, column, setup))
    proc = subprocess.run([pdflatex, "-halt-on-error", "-interaction=nonstopmode", tex.name], cwd=tmp_path,
                          capture_output=True, text=True, errors="replace", timeout=300)
    log = (tmp_path / "statements.log").read_text(errors="replace")
    assert proc.returncode == 0, "pdflatex failed:\n" + "\n".join(log.splitlines()[-30:])
    assert "LaTeX Warning" not in log or "undefined" not in log, log
    overfull = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]
    return tmp_path / "statements.pdf", overfull, log


def test_every_statement_compiles_in_a_five_and_a_half_inch_column(tmp_path):
    pdf, overfull, log = compile_statements(tmp_path, list(BUILTIN.values()) + list(USER))
    assert pdf.stat().st_size > 0
    too_wide = [w for w in overfull if w > OVERFULL_LIMIT_PT]
    assert not too_wide, (f"overfull boxes over {OVERFULL_LIMIT_PT} pt: {too_wide}\n"
                          + "\n".join(line for line in log.splitlines() if "Overfull" in line or line.startswith("[]")))
    assert "Overfull \\vbox" not in log and "Missing character" not in log


def test_every_statement_fits_one_column_of_a_two_column_paper(tmp_path):
    """The appendix goes into two-column papers too: every statement fits the article class's two-column column
    (229.5 pt; ICML's and AISTATS's are 234 pt) with the \\emergencystretch the appendix sections set, no overfull
    box over 10 pt. Single-line displays (balancedness, the sup-deviation bounds, Lemma F.2, F.3, Corollary 2 of C)
    were up to 73 pt too wide there."""
    _, overfull, log = compile_statements(tmp_path, list(BUILTIN.values()), column="229.5pt",
                                          setup="\\setlength{\\emergencystretch}{3em}\n")
    too_wide = [w for w in overfull if w > OVERFULL_LIMIT_PT]
    assert not too_wide, (f"overfull boxes over {OVERFULL_LIMIT_PT} pt: {too_wide}\n"
                          + "\n".join(line for line in log.splitlines() if "Overfull" in line))
