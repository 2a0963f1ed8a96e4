"""One source of truth for verdicts (issue 21): the summary line of `relucheck run`, report.md, report.tex,
results.csv, run-summary.json and the appendix count the same verdicts, all through `result.verdict_of`, which
reads the records' fields (status, finding, mutant, caught), never their messages; an incomplete run says so
first in every summary."""
from __future__ import annotations

import csv
import json
import re
from collections import Counter

import pytest

from relucheck.proofs_checks.appendix import write_appendix
from relucheck.proofs_checks.report import SUMMARY_FILE, summary_line, write_results
from relucheck.proofs_checks.result import CheckResult, Status, Verdict, count_verdicts, verdict_of
from tests.latex_tools import default_run

KEYS = ("verified", "finding", "refuted", "inconclusive", "error")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return default_run(tmp_path_factory)


def _counts(text: str) -> dict[str, int]:
    """Counts of a summary sentence, in the wording of `summary_line` or of the appendix."""
    patterns = {"verified": r"(\d+) verified", "finding": r"(\d+) (?:paper's claims? refuted|findings? \(paper)",
                "refuted": r"(\d+) refuted", "inconclusive": r"(\d+) inconclusive", "error": r"(\d+) errors?\b"}
    out = {}
    for key, pattern in patterns.items():
        found = re.findall(pattern, text)
        assert len(found) <= 1, (key, text)
        out[key] = int(found[0]) if found else 0
    return out


def _from_fields(records: list[dict]) -> dict[str, int]:
    """The counts computed here from the fields, independently of `verdict_of`."""
    real = [r for r in records if not r.get("mutant")]
    out = Counter(r["status"] for r in real if not (r["status"] == "verified" and r.get("finding")))
    out["finding"] = sum(r["status"] == "verified" and bool(r.get("finding")) for r in real)
    return {k: out.get(k, 0) for k in KEYS}


def test_every_summary_counts_the_same_verdicts(run):
    out, line = run
    records = json.loads((out / "results.json").read_text())
    truth = _from_fields(records)
    assert truth["finding"] > 0 and sum(truth.values()) == len(records)
    assert _counts(line) == truth, line
    md = next(s for s in (out / "report.md").read_text().splitlines() if s.startswith("Summary: "))
    assert _counts(md) == truth and line in md
    tex = next(s for s in (out / "report.tex").read_text().splitlines() if s.startswith("Summary: "))
    assert _counts(tex) == truth
    with (out / "results.csv").open(newline="") as fh:
        column = Counter(row["verdict"] for row in csv.DictReader(fh))
    assert {k: column.get(k, 0) for k in KEYS} == truth
    saved = json.loads((out / SUMMARY_FILE).read_text())
    assert {k: saved["counts"][k] for k in KEYS} == truth and saved["complete"] and saved["summary"] == line

    appendix = (out / "appendix.tex").read_text()
    run_sentence = re.search(r"This run: ([^\n]*?)\. ", appendix).group(1)
    assert _counts(run_sentence) == truth
    per_paper = [_counts(s) for s in re.findall(r"Checks of this paper in this run: ([^\n]*?)\.\n", appendix)]
    assert len(per_paper) == 3 and {k: sum(c[k] for c in per_paper) for k in KEYS} == truth
    assert appendix.count(r"\item \textbf{Finding: the paper's claim is refuted.}") == truth["finding"]
    assert appendix.count(r"\item \textbf{Verified.}") == truth["verified"]
    listed = re.findall(r"\\item \\textbf\{(Finding: the paper's claim is refuted|Refuted|Inconclusive|Error[^}]*)\} \(",
                        appendix)
    assert len(listed) == truth["finding"] + truth["refuted"] + truth["inconclusive"] + truth["error"]


def test_verdict_of_reads_fields_never_messages():
    base = dict(id="X.thm1.c", statement="X.thm1", paper="X", status="verified", prediction=0, measurement=0,
                tolerance=0, tolerance_reason="", message="paper's claim refuted (finding)")
    assert verdict_of(base) is Verdict.VERIFIED  # the message is not read
    assert verdict_of({**base, "finding": "the claim fails"}) is Verdict.FINDING
    assert verdict_of({**base, "finding": "the claim fails", "status": "refuted"}) is Verdict.REFUTED
    assert verdict_of({**base, "status": "inconclusive"}) is Verdict.INCONCLUSIVE
    assert verdict_of({**base, "status": "error"}) is Verdict.ERROR
    assert verdict_of({**base, "mutant": True, "status": "refuted", "caught": True}) is Verdict.MUTANT_CAUGHT
    assert verdict_of({**base, "mutant": True, "caught": False}) is Verdict.MUTANT_MISSED
    record = CheckResult(**{**base, "status": Status.VERIFIED, "finding": "f", "precision": "float64", "seed": 0,
                            "seconds": 0.0, "versions": {}})
    assert verdict_of(record) is Verdict.FINDING and count_verdicts([record, base])[Verdict.FINDING] == 1


def test_an_incomplete_run_says_so_first(run, tmp_path):
    out, _ = run
    records = [CheckResult.from_json(r) for r in json.loads((out / "results.json").read_text())]
    part, expected = records[:32], len(records)
    note = f"incomplete: 32 of {expected} records; the run was interrupted"
    assert summary_line(part, expected=expected).startswith(note + "; ")
    assert summary_line(records, expected=expected) == summary_line(records)
    write_results(part, tmp_path, title="t", expected=expected)
    assert f"Summary: {note}" in (tmp_path / "report.md").read_text()
    assert f"Summary: {note}" in (tmp_path / "report.tex").read_text()
    saved = json.loads((tmp_path / SUMMARY_FILE).read_text())
    assert saved["expected"] == expected and saved["records"] == 32 and not saved["complete"]
    write_appendix(tmp_path / "results.json", tmp_path)
    appendix = (tmp_path / "appendix.tex").read_text()
    assert f"This run: {note};" in appendix
    for paper in "abc":
        fragment = (tmp_path / f"appendix_{paper}.tex").read_text()
        assert "Incomplete: 32 of" in fragment
