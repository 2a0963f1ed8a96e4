"""The relucheck command line: list, run (reports, exit codes, mutants), show, bad input."""
import csv
import json

import pytest

from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.report import fmt_number


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {"id", "paper", "number", "title", "confidence", "checks", "not_checkable_reason"}
    assert rows and all(set(r) == keys for r in rows)
    assert all(r["paper"] in "ABC" for r in rows)
    c_prop1 = next(r for r in rows if r["id"] == "C.prop1")
    assert "C.prop1.flow_across_events" in c_prop1["checks"] and c_prop1["not_checkable_reason"] == ""


def test_list_filters_by_paper(capsys):
    assert main(["list", "--paper", "B", "--json"]) == 0
    assert {r["paper"] for r in json.loads(capsys.readouterr().out)} == {"B"}


def test_run_writes_four_files_and_marks_mutants(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "--only", "*.flow_across_events", "--out", str(out), "--mutate", "--quiet"])
    code2 = main(["run", "--only", "A.lemF.1.*", "--out", str(tmp_path / "o2"), "--quiet"])
    assert code == 0 and code2 == 0
    for name in ("results.json", "results.csv", "report.md", "report.tex"):
        assert (out / name).exists()
    records = json.loads((out / "results.json").read_text())
    mutants = [r for r in records if r["mutant"]]
    assert mutants and all(r["caught"] and r["check"] for r in mutants)
    assert all(r["status"] == "verified" for r in records if not r["mutant"])
    for r in records:
        for key in ("id", "statement", "paper", "status", "prediction", "measurement", "tolerance",
                    "tolerance_reason", "precision", "seed", "seconds", "versions", "message"):
            assert key in r
    with (out / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(records)
    tex = (out / "report.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex


def test_run_no_match_is_an_error(tmp_path, capsys):
    assert main(["run", "--only", "no-such-check", "--out", str(tmp_path)]) == 2


def test_show(tmp_path, capsys):
    out = tmp_path / "o"
    main(["run", "--only", "C.prop1.flow_across_events", "--out", str(out), "--quiet"])
    capsys.readouterr()
    assert main(["show", "C.prop1", "--results", str(out / "results.json")]) == 0
    text = capsys.readouterr().out
    assert "Proposition 1" in text and "latest C.prop1.flow_across_events: verified" in text
    assert main(["show", "C.nope"]) == 2
    assert "unknown check or statement id" in capsys.readouterr().err


@pytest.mark.parametrize("value, text", [(1e-40, "1e-40"), (0.0001234, "1.234e-4"), (3.14159, "3.142"),
                                         (0.0, "0"), (2.5e7, "2.5e7"), (12, "12")])
def test_small_numbers_in_scientific_notation(value, text):
    assert fmt_number(value) == text
