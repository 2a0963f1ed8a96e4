"""A run's versions in report.tex and report.md: named for a reader ("code SHA-256", not the record's key), the code's
hash in typewriter type. A hash such as 76e6ff… read as prose is a number in exponent notation (76·10⁶): the CI run
of session 32 failed on such a hash, which changes with every commit."""
from __future__ import annotations

from latex_tools import reader_problems

from relucheck.proofs_checks.report import latex_report, markdown_report
from relucheck.proofs_checks.result import CheckResult, Status

HASH = "76e6ff57eb126df6bb01353dd583c656b55828eb57f8" + "0" * 20


def _record():
    versions = {"python": "3.11.7", "platform": "Linux", "relucheck_code_sha256": HASH, "relucheck": "0.2.0"}
    return CheckResult("C.thm2.jump_times", "C.thm2", "C", Status.VERIFIED, 1.0, 1.0, 0.1, "a reason", "float64", 0,
                       0.5, versions, "a message")


def test_report_tex_reads_as_text_whatever_the_code_hash():
    tex = latex_report([_record()], "relucheck report")
    assert not reader_problems(tex), reader_problems(tex)
    assert "code SHA-256 \\texttt{76e6ff57eb126df6}" in tex and "sha256" not in tex


def test_report_md_names_the_hash_for_a_reader():
    md = markdown_report([_record()], "relucheck report")
    assert f"code SHA-256 `{HASH}`" in md and "relucheck_code_sha256" not in md
