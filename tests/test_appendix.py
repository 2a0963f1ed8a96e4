"""The appendix and every .tex relucheck writes read as a text for a reader, not a log (issue 21): no
programming repr, no list or dict dump, no long float, no raw exponent or caret, no internal label; numbers go
through one formatter (`reader_text.num`) with the digits the tolerance warrants; the legend says in words how sure
each reconstruction is and which version of each paper is numbered; files take the process umask."""
from __future__ import annotations

import json
import os
import stat

import pytest

from relucheck.proofs_checks import reader_text
from relucheck.proofs_checks.registry import all_checks
from relucheck.proofs_checks.report import write_results
from relucheck.proofs_checks.result import CheckResult
from tests.latex_tools import READER_PATTERNS, default_run, reader_problems


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return default_run(tmp_path_factory)[0]


def test_every_tex_of_a_run_and_its_appendix_reads_as_text(run):
    written = sorted(run.glob("*.tex"))
    assert {p.name for p in written} >= {"appendix.tex", "appendix_a.tex", "appendix_b.tex", "appendix_c.tex",
                                         "report.tex", "relucheck-preamble.tex"}
    problems = {p.name: reader_problems(p.read_text()) for p in written}
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}


def test_every_mutant_and_finding_text_reads_as_text():
    """The texts the appendix shows only for a run with --mutate, or for a finding: scanned for every check."""
    problems = {}
    for chk in all_checks().values():
        for what in ("mutant", "finding"):
            found = reader_problems(reader_text.prose(getattr(chk, what)))
            if found:
                problems[f"{chk.id} {what}"] = found
    assert not problems, problems


@pytest.mark.parametrize("tex, name", [
    ("np.float64(1.5)", "numpy repr"), ("Matrix([[0, 0], [0, 0]])", "SymPy repr"), ("[{'a': 1}]", "list of dicts"),
    ("flag True", "Python boolean or None"), ("0.7000000000000001", "float of 10 or more digits"),
    ("tolerance 1e-06", "raw exponent"), ("x\\textasciicircum{}2", "literal caret"),
    ("run with --mutate", "en dash before an option"), ("spec N4: p", "spec label"),
    ("spec C \\S{}5 C07", "spec label"), ("see issue 4", "issue number"), ("Confidence: guess", "confidence tag"),
    ("(theory.first_jump)", "module path"), ("the factor 3 is the spec's", "the spec"),
    ("samplers (margin_inputs)", "identifier in prose"), ("verified in B.thm1 and", "identifier in prose"),
])
def test_the_scanner_sees_each_pattern(tex, name):
    assert name in READER_PATTERNS
    assert any(p.startswith(name + ":") for p in reader_problems(tex)), (tex, reader_problems(tex))


def test_the_scanner_allows_siunitx_numbers_and_math():
    fine = ("\\num{1e-12} and \\num{0.7}; \\ensuremath{10^{-20}}; \\[ x^2 \\]\n1.5e-3 & 2e-4 \\\\\n"
            "\\texttt{A.thm4.1.excess\\_risk}")
    assert reader_problems(fine) == []


@pytest.mark.parametrize("value, digits, expected", [
    (0.7000000000000001, 4, "\\num{0.7}"), (1e-06, 4, "\\num{1e-6}"), (2.0719882142211756, 3, "\\num{2.07}"),
    (123456.7, 4, "\\num{1.235e5}"), (12345.6, 4, "\\num{12350}"), (7, 4, "\\num{7}"), (True, 4, "yes"),
    (float("nan"), 4, "NaN"), (-0.5, 9, "\\num{-0.5}"), (1 / 3, 17, "\\num{0.333333}"),
    ("1e-1000", 4, "\\num{1e-1000}"), ("-2.50e400", 2, "\\num{-2.5e400}"), ("1e-06", 4, "\\num{1e-6}"),  # text: beyond float64
])
def test_one_number_formatter(value, digits, expected):
    assert reader_text.num(value, digits) == expected


def test_digits_fit_the_tolerance():
    assert reader_text.significant_digits(1.3079, 0.01) == 4  # 1.308: one digit below the 0.01 scale
    assert reader_text.significant_digits(0.2057, 1e-12) == 6  # capped: never a 17-digit float
    assert reader_text.significant_digits(5.0, 0) == 6 and reader_text.significant_digits(5.0, None) == 6
    assert reader_text.significant_digits(1e-20, 1.0) == 2


def test_prose_typesets_numbers_powers_code_and_options():
    tex = reader_text.prose("10^-(digits − 10) relative, 1e-06 at 0.7000000000000001, (1 − x)^n, `relucheck run` –mutate")
    assert "\\num{1e-6}" in tex and "\\num{0.7}" in tex and "\\ensuremath{10^{-" in tex and "\\ensuremath{)^{n}}" in tex
    assert "\\texttt{relucheck run}" in tex and "\\texttt{-{}-mutate}" in tex and reader_problems(tex) == []


def test_values_for_a_reader():
    assert reader_text.value("Matrix([[0, 0], [0, 0]])") == "the zero matrix"
    assert reader_text.value("[(0, [0, 1]), (1, [2, 3])]") is None  # an expression only a program reads
    assert reader_text.value([1, 2]) is None and reader_text.value({"a": 1}) is None  # structures: a table
    assert reader_text.value("[0.0611310535339, 0.0611310535339]").count("\\num{") == 2
    assert reader_text.value("0") == "\\num{0}" and reader_text.value(False) == "no"


def test_legend_says_confidence_and_numbering_in_words(run):
    text = (run / "appendix_a.tex").read_text()
    assert "\\item \\emph{Verdicts.}" in text and "\\item \\emph{Numbering.}" in text and "second arXiv version" in text
    assert "Form reconstructed" in text and "Confidence" not in text


def test_a_check_comparing_several_values_gets_a_table(run):
    text = (run / "appendix_a.tex").read_text()
    assert "values compared, largest difference" in text and "\\begin{tabular}{@{}lrr@{}}" in text
    assert "\\begin{longtable}" not in text  # fails in two-column documents


def test_files_take_the_process_umask(run, tmp_path):
    records = [CheckResult.from_json(r) for r in json.loads((run / "results.json").read_text())[:3]]
    old = os.umask(0o022)
    try:
        paths = write_results(records, tmp_path, title="t")
    finally:
        os.umask(old)
    for p in paths:
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p


def test_report_cells_from_records_in_memory():
    """report.tex is written from records that still hold NumPy values: summarized, never dumped."""
    import numpy as np

    from relucheck.proofs_checks.report import reader_cell

    assert reader_cell(np.array([1.0, 2.0])).source == "2 values, \\num{1} to \\num{2}"
    assert reader_cell(np.float64(0.5), np.float64(0.01)).source == "\\num{0.5}"
    assert reader_cell("Matrix([[0, 0], [0, 0]])").source == "the zero matrix"
    assert reader_cell("[(0, [0, 1])]").source == "exact expression"


def test_exact_values_are_typeset_never_shown_as_sympy_str():
    """A check that compares exact numbers writes them as SymPy's str() (``2*sqrt(30)``): the appendix typesets
    them (\\sqrt, \\frac), a flat list as a tuple; a nested, long or non-numeric one is left to the results file.
    The string is parsed by theory.safe_expression, never evaluated."""
    assert reader_text.value("2*sqrt(30)") == "\\ensuremath{2 \\sqrt{30}}"
    # a long one by its value to 6 digits: a cell of a two-column paper's column holds about 40 characters of LaTeX
    assert reader_text.value("-sqrt(5)/5 + sqrt(105)/25 + 4/5") == "\\ensuremath{\\num{0.762664}}"
    assert reader_text.value("[15/4, 5/8, 0]") == "\\ensuremath{\\left(\\frac{15}{4}, \\frac{5}{8}, 0\\right)}"
    assert reader_text.value("[4/5, 4*sqrt(5)*(1 - sqrt(21)/5)/5 + 4/5]") == (
        "\\ensuremath{\\left(\\frac{4}{5}, \\num{0.949342}\\right)}")
    assert reader_text.value("1/2") == "\\ensuremath{\\frac{1}{2}}" and reader_text.value("0.5") == "\\num{0.5}"
    for raw in ("[[0, 1], [2, 3]]", "within 2*eps", "x*sqrt(2)", "sqrt(-1)"):
        assert reader_text.value(raw) is None, raw
    assert reader_text.exact("__import__('os').system('true')") is None and reader_text.exact("sqrt(2)") is not None
    assert reader_text.value("N = 1/2, N residual 0") == "N = 1/2, N residual 0"  # prose stays prose


def test_appendix_has_no_sympy_str_and_fits_an_authors_article(run):
    """No SymPy str() (``sqrt(``, ``a*b``) in the appendix; each fragment sets \\emergencystretch inside its own
    group (an author's article does not, and lines were up to 15 pt too wide in the article class's 345 pt text);
    the sentences that say why a statement is not checked end with a full stop."""
    import re

    for name in ("appendix_a.tex", "appendix_b.tex", "appendix_c.tex"):
        text = (run / name).read_text()
        body = re.sub(r"\\texttt\{(?:[^{}]|\{[^{}]*\})*\}", " ", text)
        assert not re.search(r"\bsqrt\(|\w\*\w|\w\*\*\w", body), (name, re.search(r".{40}(sqrt\(|\w\*\w).{40}", body))
        group = text.index("\\begingroup")
        assert text.index("\\setlength{\\emergencystretch}{3em}", group) < text.index("\\section", group), name
        for line in re.findall(r"^\\emph\{Not checked numerically:\}.*$", text, flags=re.M):
            assert line.rstrip().endswith("."), (name, line)


def test_an_inconclusive_check_says_why_in_words(run):
    # the default suite's inconclusive checks carry their own reason for a reader (details["why_inconclusive"])
    records = {r["id"]: r for r in json.loads((run / "results.json").read_text())}
    appendix = "".join((run / f"appendix_{p}.tex").read_text() for p in "abc")
    inconclusive = [rid for rid, r in records.items() if r["status"] == "inconclusive"]
    assert "C.thm3.growth_exponent" in inconclusive
    for rid in inconclusive:
        why = records[rid]["details"]["why_inconclusive"]
        assert why[:40] in appendix.replace("\n", " ") or reader_text.prose(why)[:40] in appendix.replace("\n", " ")
    assert "could not decide at this precision" not in appendix
