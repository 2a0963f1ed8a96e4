"""Nothing lost: `relucheck run` checks --out first, journals each record, resumes, survives kill -9 and SIGINT."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relucheck.numerics.durable_files import append_json_line, atomic_write_text, read_json_lines
from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.journal import JOURNAL_NAME, Journal
from relucheck.proofs_checks.result import CheckResult

QUICK = "B.lem1.*"  # 4 checks, 8 records with --mutate: two take < 0.1 s, then two mpmath checks take ≈ 0.6–0.8 s each
QUICK_RECORDS = 8


def _relucheck() -> list[str]:
    script = Path(sys.executable).with_name("relucheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relucheck.proofs_checks.cli"]


def _start_run(out: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    # A shell without job control starts background commands with SIGINT ignored, which the child would inherit
    # (and Python then installs no KeyboardInterrupt handler): give the run the default disposition, as in a terminal.
    return subprocess.Popen([*_relucheck(), "run", "--only", QUICK, "--mutate", "--quiet", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _journal_records(out: Path) -> list[dict]:
    return [r for r in read_json_lines(out / JOURNAL_NAME)[0] if r.get("kind") == "record"]


def _stop_after_first_record(proc: subprocess.Popen, out: Path, sig: int) -> None:
    """Send ``sig`` as soon as the journal holds a record (the run is then mid-way: the slow checks remain)."""
    deadline = time.monotonic() + 120  # hang guard, not a timing assertion
    while not _journal_records(out):
        assert proc.poll() is None, f"the run ended before any record was journaled: {proc.communicate()}"
        assert time.monotonic() < deadline, "no record journaled within 120 s"
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(sig)


def _id_status(results_json: Path) -> dict:
    return {r["id"]: r["status"] for r in json.loads(results_json.read_text())}


def test_kill_9_mid_run_then_resume_gives_the_records_of_an_uninterrupted_run(tmp_path, capsys):
    reference = tmp_path / "reference"
    assert main(["run", "--only", QUICK, "--mutate", "--quiet", "--out", str(reference)]) == 0
    capsys.readouterr()
    expected = _id_status(reference / "results.json")
    assert len(expected) == QUICK_RECORDS

    out = tmp_path / "killed"
    proc = _start_run(out)
    _stop_after_first_record(proc, out, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    rows, cut = read_json_lines(out / JOURNAL_NAME)
    assert cut <= 1  # at most the line being written when the process died
    kept = [CheckResult.from_json(r["record"]) for r in rows if r.get("kind") == "record"]
    assert 1 <= len(kept) < QUICK_RECORDS  # readable results, and the run really was interrupted

    resumed = _start_run(out, "--resume")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    already = len({r.id for r in kept})
    ran = QUICK_RECORDS - already
    assert f"ran {ran} of {QUICK_RECORDS} records ({already} already in the journal)" in stdout
    assert ran < QUICK_RECORDS  # the resumed run did less work than a full one
    sessions = Journal(out).sessions()
    assert [s["to_run"] for s in sessions] == [QUICK_RECORDS, ran] and sessions[-1]["resume"]
    ids = [r["record"]["id"] for r in _journal_records(out)]
    assert sorted(set(ids)) == sorted(expected) and len(ids) == len(set(ids))  # exactly one record per check
    assert _id_status(out / "results.json") == expected


def test_sigint_keeps_the_records_writes_the_reports_and_exits_130(tmp_path):
    out = tmp_path / "o"
    proc = _start_run(out)
    _stop_after_first_record(proc, out, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr and "Traceback" not in stderr
    journaled = {r["record"]["id"] for r in _journal_records(out)}
    assert 1 <= len(journaled) < QUICK_RECORDS
    assert set(_id_status(out / "results.json")) == journaled
    assert (out / "report.md").read_text().startswith("# relucheck run")


def test_resume_refuses_other_parameters_and_runs_nothing_when_complete(tmp_path, capsys):
    out = tmp_path / "o"
    args = ["run", "--only", "A.lemF.1.*", "--quiet", "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args + ["--resume"]) == 0
    assert "ran 0 of 1 records (1 already in the journal)" in capsys.readouterr().out
    for extra, named in ((["--seed", "1"], "seed 0 in the journal, 1 now"), (["--mutate"], "mutate False"),
                         (["--suite", "full"], "suite 'default'")):
        assert main(args + ["--resume", *extra]) == 2
        err = capsys.readouterr().err
        assert "--resume" in err and named in err and "Traceback" not in err
    journal = Journal(out)
    params = journal.parameters()
    journal.start({**params, "code_sha256": "0" * 64})  # as if written by other code
    assert main(args + ["--resume"]) == 2
    assert "the code changed" in capsys.readouterr().err


@pytest.mark.parametrize("make_bad, condition", [
    (lambda d: (d / "file").write_text("x") and d / "file", "is a file, not a directory"),
    (lambda d: (d / "file").write_text("x") and d / "file" / "sub", "is a file, not a directory"),
    (lambda d: _unwritable(d), "not writable"),
])
def test_run_checks_out_before_computing(tmp_path, capsys, monkeypatch, make_bad, condition):
    import relucheck.proofs_checks.runner as runner

    def no_computing(*args, **kwargs):
        raise AssertionError("checks ran although --out is unusable")

    monkeypatch.setattr(runner, "run_checks", no_computing)
    bad = make_bad(tmp_path)
    assert main(["run", "--only", "A.lemF.1.*", "--quiet", "--out", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"--out {bad}" in err and condition in err and "Traceback" not in err


def _unwritable(d: Path) -> Path:
    if os.geteuid() == 0:  # root writes through permission bits; /proc refuses new files to everyone
        return Path("/proc")
    ro = d / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    return ro


def test_durable_lines_survive_a_cut_line_and_atomic_writes_replace_whole_files(tmp_path):
    path = tmp_path / "j.jsonl"
    append_json_line(path, {"a": 1})
    with path.open("a") as fh:
        fh.write('{"a": 2, "cut')  # killed mid-line
    append_json_line(path, {"a": 3})
    rows, cut = read_json_lines(path)
    assert rows == [{"a": 1}, {"a": 3}] and cut == 1
    target = tmp_path / "r.json"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
