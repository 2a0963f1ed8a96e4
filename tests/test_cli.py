"""The relucheck command line: list, run (reports, exit codes, mutants), show, bad input."""
import csv
import json

import pytest

from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.report import fmt_number


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {"id", "paper", "number", "title", "confidence", "checks", "mutants", "not_checkable_reason"}
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


# -- flow and engines on any data -------------------------------------------------------------------

def _general_instance_file(tmp_path):
    """n = 6 unit inputs in ℝ³ (correlated, not orthonormal), m = 5 neurons of mixed signs: sliding events."""
    from relucheck.testing.strategies import random_general_instance

    path = tmp_path / "general.json"
    random_general_instance(6, 3, 5, 1).save(path)
    return path


def test_flow_on_non_orthogonal_data_reports_events_and_the_trajectory_at_the_requested_times(tmp_path, capsys):
    path = _general_instance_file(tmp_path)
    times = [0.5, 1.0, 2.0, 7.25, 12.5]
    assert main(["flow", str(path), "--lam", "1e-10", "--times", ",".join(map(str, times)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] in ("success", "settled") and out["engine"] == "float64"
    assert out["trajectory"]["tau"] == times and len(out["trajectory"]["loss"]) == len(times)
    assert out["events"] and {"tau", "neuron", "datum", "kind"} == set(out["events"][0])
    assert "slide" in {e["kind"] for e in out["events"]}
    assert out["jumps"] and "limit_process" not in out  # Algorithm 1 only on orthonormal data
    assert out["problem"]["horizon"] is None  # it ran until it settled
    assert out["trajectory"]["loss"][-1] < out["trajectory"]["loss"][0]


def test_flow_runs_at_least_to_the_last_requested_time(tmp_path, capsys):
    path = _general_instance_file(tmp_path)
    assert main(["flow", str(path), "--lam", "1e-10", "--times", "1,60", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trajectory"]["tau"] == [1.0, 60.0] and out["stats"]["end"] == 60.0


def test_flow_human_output_on_non_orthogonal_data(tmp_path, capsys):
    path = _general_instance_file(tmp_path)
    assert main(["flow", str(path), "--lam", "1e-40"]) == 0
    out = capsys.readouterr().out
    assert "status: settled" in out and "Algorithm 1: not shown" in out and "events: " in out
    assert "plateau losses (flow)" in out and "field evaluations" in out


def test_flow_inconclusive_status_exits_3(tmp_path, capsys, monkeypatch):
    """A status the engine cannot vouch for (here PRECISION, forced) is inconclusive: exit 3, said on stderr."""
    from relucheck.numerics import flows
    from relucheck.numerics.flows import Status

    real = flows.solve

    def imprecise(problem, engine="auto", **options):
        result = real(problem, "float64", **options)
        result.status, result.message = Status.PRECISION, Status.PRECISION.value
        return result

    monkeypatch.setattr(flows, "solve", imprecise)
    path = _general_instance_file(tmp_path)
    assert main(["flow", str(path), "--lam", "1e-10", "--horizon", "2", "--json"]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "precision"
    assert "inconclusive" in captured.err and "precision" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["--engine", "nope"], "unknown engine 'nope'"),
    (["--times", "1,x"], "--times must be comma-separated numbers"),
    (["--times", "2,1"], "--times must be increasing, got 2.0 then 1.0"),
    (["--horizon", "2", "--times", "1,3"], "--times: 3.0 is beyond --horizon 2"),
    (["--max-horizon", "-1"], "--max-horizon: must be an accelerated time in (0, 1e+06]"),
])
def test_flow_bad_options_exit_2(tmp_path, capsys, argv, message):
    path = _general_instance_file(tmp_path)
    assert main(["flow", str(path), "--lam", "1e-10", *argv]) == 2
    assert message in capsys.readouterr().err


def test_engines_lists_each_engine_with_precision_domain_and_options(capsys):
    from relucheck.numerics.flows import available_engines

    assert main(["engines", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in out["engines"]] == sorted(available_engines())
    float64 = next(e for e in out["engines"] if e["name"] == "float64")
    assert float64["precision"] == "float64" and "any data" in float64["domain"] and "rtol" in float64["options"]
    assert main(["engines"]) == 0
    text = capsys.readouterr().out
    assert "float64" in text and "domain:" in text and "options:" in text and "auto" in text


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}])
def test_output_on_a_terminal_without_utf8_is_escaped_not_an_error(env):
    # "internal error: UnicodeEncodeError" after 18 lines of `list --paper C` (found by the red team)
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "relucheck", "list", "--paper", "B"], capture_output=True,
                          env={**os.environ, **env}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"B.thm1" in proc.stdout and b"internal error" not in proc.stderr
