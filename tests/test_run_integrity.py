"""Issue 20 (items 4, 6, 8): one writer per --out, a journal validated line by line, files with the umask, and the
friction of run/list/show (--out=, --results, --checks FILE alone, no abbreviations, plugins that print or exit).

Runs use two fast built-in checks (`QUICK`, ≈ 0.1 s with their mutants) on the serial executor. Tests that load a
user's plugin file run `relucheck` in a subprocess (a plugin registers a paper once per process); the others call
`cli.main` in-process, where the code hash that `--resume` compares is computed once.
"""
import ast
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from relucheck.proofs_checks import cli
from relucheck.proofs_checks.cli import main
from relucheck.proofs_checks.journal import JOURNAL_NAME, RECORD_TYPES, Journal, integrity_hash
from relucheck.proofs_checks.out_lock import LOCK_NAME, OutDirLock
from relucheck.proofs_checks.result import CheckResult
from relucheck.numerics.errors import RelucheckInputError

QUICK = "B.lem5.[bs]*"  # B.lem5.bullets_on_grid and B.lem5.second_bullet_proof_step: ≈ 0.1 s with their mutants
QUICK_IDS = ["B.lem5.bullets_on_grid", "B.lem5.bullets_on_grid.mutant", "B.lem5.second_bullet_proof_step",
             "B.lem5.second_bullet_proof_step.mutant"]
HANG_GUARD = 120  # seconds; a guard against a hang, never a timing assertion
ROOT = Path(__file__).resolve().parent.parent


def _run_args(out, *extra) -> list[str]:
    return ["run", "--only", QUICK, "--mutate", "--quiet", "--executor", "serial", "--out", str(out), *extra]


def _relucheck() -> list[str]:
    script = Path(sys.executable).with_name("relucheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relucheck"]


def _env() -> dict:
    return {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def _sh(args: list[str], cwd: Path, umask: int | None = None) -> subprocess.CompletedProcess:
    def child():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if umask is not None:
            os.umask(umask)
    return subprocess.run([*_relucheck(), *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=HANG_GUARD, preexec_fn=child)


def _lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / JOURNAL_NAME).read_text().splitlines()]


def _write_lines(out: Path, rows: list[dict], *, tail: str = "") -> None:
    (out / JOURNAL_NAME).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows) + tail)


def _record_line(rows: list[dict], record_id: str) -> int:
    """The index (0-based) of the journal line holding ``record_id``."""
    return next(k for k, r in enumerate(rows) if r["kind"] == "record" and r["record"]["id"] == record_id)


def _reseal(row: dict, run_id: str) -> dict:
    """A line with its integrity hash recomputed (what a forger, or a bug, would write)."""
    return {**row, "sha256": integrity_hash(row, run_id)}


@pytest.fixture
def complete_run(tmp_path, capsys) -> Path:
    out = tmp_path / "o"
    assert main(_run_args(out)) == 0
    capsys.readouterr()
    return out


# -- one writer per output folder -------------------------------------------------------------------------------

WAITING_PLUGIN = """
    import time
    from pathlib import Path
    from relucheck import Statement, agree, check, register_paper, register_statements

    RELEASE = Path({release!r})
    register_paper("W", "a paper of this test")
    register_statements(Statement(id="W.one", paper="W", number="1", title="one", conclusion="x = x"))

    @check("W.one.a_fast", statement="W.one", mutant="x = x + 1")
    def fast(ctx):
        return agree(1.0, 1.0 + ctx.mutate, 0.0, "exact")

    @check("W.one.b_waits", statement="W.one", mutant="x = x + 1")
    def waits(ctx):
        deadline = time.monotonic() + {guard}  # hang guard: the test creates RELEASE
        while not RELEASE.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return agree(1.0, 1.0 + ctx.mutate, 0.0, "exact")
"""


def _waiting_plugin(tmp_path: Path) -> tuple[Path, Path]:
    release = tmp_path / "release"
    plugin = tmp_path / "waits.py"
    plugin.write_text(textwrap.dedent(WAITING_PLUGIN.format(release=str(release), guard=HANG_GUARD)))
    return plugin, release


def _start_waiting_run(tmp_path: Path, out: Path, plugin: Path) -> subprocess.Popen:
    proc = subprocess.Popen([*_relucheck(), "run", "--checks", str(plugin), "--mutate", "--quiet", "--executor",
                             "serial", "--out", str(out)], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG_GUARD
    while not [r for r in _safe_lines(out) if r.get("kind") == "record"]:  # the run holds the lock and waits
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no record journaled"
        time.sleep(0.02)
    return proc


def _safe_lines(out: Path) -> list[dict]:
    try:
        return _lines(out)
    except (OSError, ValueError):
        return []


def test_a_second_run_or_resume_on_a_folder_in_use_exits_2_naming_the_holder_and_the_first_finishes(tmp_path):
    plugin, release = _waiting_plugin(tmp_path)
    out = tmp_path / "shared"
    first = _start_waiting_run(tmp_path, out, plugin)
    try:
        for extra in ([], ["--resume"], ["--resume", "--seed", "1"]):
            second = _sh(["run", "--checks", str(plugin), "--mutate", "--quiet", "--executor", "serial",
                          "--out", str(out), *extra], tmp_path)
            assert second.returncode == 2, (extra, second.stdout, second.stderr)
            assert f"--out {out}: the folder is in use by another relucheck run (pid {first.pid}" in second.stderr
            assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    finally:
        release.touch()
    stdout, stderr = first.communicate(timeout=HANG_GUARD)
    assert first.returncode == 0, stderr
    assert "ran 4 of 4 records" in stdout
    ids = sorted(r["id"] for r in json.loads((out / "results.json").read_text()))
    assert ids == ["W.one.a_fast", "W.one.a_fast.mutant", "W.one.b_waits", "W.one.b_waits.mutant"]
    rows = _lines(out)
    assert [r["kind"] for r in rows] == ["run", "session"] + ["record"] * 4  # nothing from the refused runs


def test_a_lock_left_by_a_killed_process_does_not_block(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from relucheck.proofs_checks.out_lock import OutDirLock
        OutDirLock({str(out)!r}, "--out o").acquire()
        print("locked", flush=True)
        time.sleep({HANG_GUARD})
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    with pytest.raises(RelucheckInputError, match=f"--out o: the folder is in use .*pid {holder.pid}"):
        OutDirLock(out, "--out o").acquire()
    holder.kill()
    holder.communicate(timeout=HANG_GUARD)
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == holder.pid  # the stale holder's line is still there
    assert main(_run_args(out)) == 0  # the kernel released the dead holder's lock
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == os.getpid()


def test_a_lock_taken_twice_in_one_process_conflicts_and_is_released_after_the_run(tmp_path, capsys):
    with OutDirLock(tmp_path, "--out x"):
        with pytest.raises(RelucheckInputError, match=f"pid {os.getpid()}"):
            OutDirLock(tmp_path, "--out x").acquire()
    assert main(_run_args(tmp_path / "o")) == 0
    with OutDirLock(tmp_path / "o", "--out o"):  # the run released its lock when it ended
        pass


# -- unfinished work is never replaced, and a journal is trusted only after every line validated ------------

def _unfinish(out: Path) -> list[dict]:
    """Drop the journal's last record line, as if the run had been interrupted before it: the rows kept."""
    rows = _lines(out)
    del rows[max(k for k, r in enumerate(rows) if r["kind"] == "record")]
    _write_lines(out, rows)
    return rows


def test_seeds_0_then_1_on_an_unfinished_run_refuse_and_keep_it(complete_run, capsys):
    _unfinish(complete_run)
    journal, results = (complete_run / JOURNAL_NAME).read_bytes(), (complete_run / "results.json").read_bytes()
    assert main(_run_args(complete_run, "--seed", "1")) == 2
    err = capsys.readouterr().err
    assert f"--out {complete_run}: holds the journal of another run" in err
    assert "an unfinished run" in err and "seed 0, --mutate, 3 records" in err
    assert "--resume" in err and "delete" in err and "another --out" in err
    assert main(_run_args(complete_run, "--seed", "1", "--resume")) == 2
    assert "seed 0 in the journal, 1 now" in capsys.readouterr().err
    assert (complete_run / JOURNAL_NAME).read_bytes() == journal
    assert (complete_run / "results.json").read_bytes() == results
    assert main(_run_args(complete_run, "--resume")) == 0
    assert "ran 1 of 4 records (3 already in the journal)" in capsys.readouterr().out


def test_a_finished_run_is_replaced_by_the_next_run_with_a_note(complete_run, capsys):
    first = _lines(complete_run)[0]["run_id"]
    assert main(_run_args(complete_run, "--seed", "1")) == 0
    captured = capsys.readouterr()
    assert f"replacing the finished run's journal in {complete_run}" in captured.err
    assert "ran 4 of 4 records" in captured.out
    rows = _lines(complete_run)
    assert rows[0]["run_id"] != first and rows[0]["parameters"]["seed"] == 1
    assert {r["record"]["seed"] for r in rows if r["kind"] == "record"} == {1}


@pytest.mark.parametrize("where", ["middle", "last"])
def test_a_garbage_line_is_an_error_naming_the_journal_and_the_line(complete_run, capsys, where):
    rows = _lines(complete_run)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    lines = text.splitlines(keepends=True)
    at = 3 if where == "middle" else len(lines)
    lines.insert(at, "this is not JSON\n")
    (complete_run / JOURNAL_NAME).write_text("".join(lines))
    assert main(_run_args(complete_run, "--resume")) == 2
    err = capsys.readouterr().err
    assert f"journal {complete_run / JOURNAL_NAME} line {at + 1}: not a JSON line" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_edited_status_is_an_error_naming_the_line(complete_run, capsys):
    rows = _lines(complete_run)
    k = _record_line(rows, "B.lem5.bullets_on_grid.mutant")
    assert rows[k]["record"]["status"] == "refuted"
    rows[k]["record"]["status"], rows[k]["record"]["caught"] = "verified", False  # consistent, but not what ran
    _write_lines(complete_run, rows)
    assert main(_run_args(complete_run, "--resume")) == 2
    err = capsys.readouterr().err
    assert f"line {k + 1}: the line's sha256 does not match its content" in err


@pytest.mark.parametrize("forge, message", [
    (lambda rec: rec.update(seed=1), "has seed 1, the journal's run has seed 0"),
    (lambda rec: rec.update(id="B.lem5.other", check="B.lem5.other"), "is not one of this run's 4 record ids"),
    (lambda rec: rec.update(status="fine"), "record status 'fine' is not one of"),
    (lambda rec: rec.update(seconds="fast"), "record field 'seconds' must be"),
    (lambda rec: rec.pop("message"), "record field(s) ['message'] missing"),
    (lambda rec: rec.update(extra=1), "unknown field(s) ['extra']"),
    (lambda rec: rec.update(mutant=True), "id, check and caught do not agree"),
])
def test_a_well_sealed_but_invalid_record_is_an_error_naming_the_line(complete_run, capsys, forge, message):
    """The schema holds even where the hash was recomputed (a forger, or a bug writing the journal)."""
    rows = _lines(complete_run)
    run_id = rows[0]["run_id"]
    k = _record_line(rows, "B.lem5.bullets_on_grid")
    forge(rows[k]["record"])
    rows[k] = _reseal(rows[k], run_id)
    _write_lines(complete_run, rows)
    assert main(_run_args(complete_run, "--resume")) == 2
    err = capsys.readouterr().err
    assert f"line {k + 1}: " in err and message in err, err


def test_a_duplicate_record_a_header_edit_and_a_line_of_another_run_are_errors(complete_run, capsys):
    rows = _lines(complete_run)
    k = _record_line(rows, "B.lem5.bullets_on_grid")
    _write_lines(complete_run, rows + [rows[k]])
    assert main(_run_args(complete_run, "--resume")) == 2
    assert f"line {len(rows) + 1}: a second record 'B.lem5.bullets_on_grid' (the first is on line {k + 1})" \
        in capsys.readouterr().err
    header = {**rows[0], "parameters": {**rows[0]["parameters"], "seed": 1}}
    _write_lines(complete_run, [header] + rows[1:])
    assert main(_run_args(complete_run, "--resume", "--seed", "1")) == 2
    assert "line 1: the header's sha256 does not match" in capsys.readouterr().err
    _write_lines(complete_run, rows[:1] + [_reseal(rows[1], "0" * 32)] + rows[2:])  # sealed under another run id
    assert main(_run_args(complete_run, "--resume")) == 2
    assert "line 2: the line's sha256 does not match its content (edited, damaged, or from another run)" \
        in capsys.readouterr().err


def test_a_journal_of_the_old_format_is_refused_naming_line_1(complete_run, capsys):
    rows = _lines(complete_run)
    old = {"kind": "run", "parameters": rows[0]["parameters"]}  # format 1: no run id, no hashes
    _write_lines(complete_run, [old] + [{k: v for k, v in r.items() if k != "sha256"} for r in rows[1:]])
    assert main(_run_args(complete_run, "--resume")) == 2
    assert "line 1: a journal of format 1, not 2" in capsys.readouterr().err


def test_a_cut_last_line_is_reported_dropped_and_run_again(complete_run, capsys):
    rows = _lines(complete_run)
    last = json.dumps(rows[-1], sort_keys=True)
    _write_lines(complete_run, rows[:-1], tail=last[: len(last) // 2])  # killed while writing the last record
    assert main(_run_args(complete_run, "--resume")) == 0
    captured = capsys.readouterr()
    note = f"journal {complete_run / JOURNAL_NAME} line {len(rows)} was cut"
    assert note in captured.err and captured.err.count(note) == 1
    assert "ran 1 of 4 records (3 already in the journal)" in captured.out
    journal = Journal(complete_run)
    assert sorted(journal.records(QUICK_IDS)) == QUICK_IDS
    assert [s["to_run"] for s in journal.sessions()] == [4, 1]


def test_a_cut_line_that_is_not_last_is_an_error(complete_run, capsys):
    rows = _lines(complete_run)
    last = json.dumps(rows[-1], sort_keys=True)
    _write_lines(complete_run, rows[:-1], tail=last[:40] + "\n" + json.dumps(rows[-1], sort_keys=True) + "\n")
    assert main(_run_args(complete_run, "--resume")) == 2
    assert f"line {len(rows)}: not a JSON line" in capsys.readouterr().err


def test_record_types_cover_every_field_of_a_result_record():
    from dataclasses import fields

    assert set(RECORD_TYPES) == {f.name for f in fields(CheckResult)}


# -- files with the process umask -------------------------------------------------------------------------------

@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_run_writes_its_files_with_the_umask(tmp_path, umask, mode):
    proc = _sh(["run", "--only", "B.lem5.second_bullet_proof_step", "--quiet", "--executor", "serial",
                "--out", "o"], tmp_path, umask=umask)
    assert proc.returncode == 0, proc.stderr
    files = sorted((tmp_path / "o").iterdir())
    assert {p.name for p in files} >= {"results.json", "results.csv", "report.md", "report.tex", JOURNAL_NAME,
                                       LOCK_NAME}
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in files} == {p.name: oct(mode) for p in files}


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_write_text_follows_the_umask(tmp_path, umask, mode):
    code = textwrap.dedent(f"""
        import os
        os.umask({umask})
        from relucheck.numerics.durable_files import atomic_write_text
        atomic_write_text({str(tmp_path / 'f.txt')!r}, "x")
        atomic_write_text({str(tmp_path / 'f.txt')!r}, "y")
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=HANG_GUARD)
    assert (tmp_path / "f.txt").read_text() == "y"
    assert oct((tmp_path / "f.txt").stat().st_mode & 0o777) == oct(mode)


# -- friction ---------------------------------------------------------------------------------------------------

def _main_exit(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return exc.code


@pytest.mark.parametrize("argv, named", [
    (["run", "--out="], "argument --out: must be a path, not empty"),
    (["run", "--out", "  "], "argument --out: must be a path, not empty"),
    (["show", "C.prop1", "--results="], "argument --results: must be a path, not empty"),
    (["run", "--checks=", "--out", "o"], "argument --checks: must be a path, not empty"),
])
def test_empty_paths_are_errors_naming_the_option(tmp_path, monkeypatch, capsys, argv, named):
    monkeypatch.chdir(tmp_path)
    assert _main_exit(argv) == 2
    assert named in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written into the working folder


@pytest.mark.parametrize("argv", [
    ["flow", "x.json", "--lam", "1e-10", "--time", "1,2"],
    ["run", "--onl", "A.*"],
    ["run", "--out", "o", "--mut"],
    ["list", "--js"],
    ["show", "C.prop1", "--res", "r.json"],
    ["--deb", "list"],
    ["report", "--pap", "A"],
])
def test_abbreviated_options_are_refused(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert _main_exit(argv) == 2
    assert "unrecognized arguments" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_every_parser_refuses_abbreviations():
    import argparse

    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert parser.allow_abbrev is False
    assert {name: p.allow_abbrev for name, p in subparsers.choices.items()} == \
        {name: False for name in subparsers.choices}


def test_show_results_symlink_loop_missing_explicit_and_missing_default(tmp_path, monkeypatch, capsys):
    loop = tmp_path / "loop.json"
    loop.symlink_to(tmp_path / "loop2.json")
    (tmp_path / "loop2.json").symlink_to(loop)
    assert main(["show", "C.prop1", "--results", str(loop)]) == 2
    err = capsys.readouterr().err
    assert f"--results: results file {loop}: cannot be read" in err and err.count("\n") == 1
    assert main(["show", "C.prop1", "--results", str(tmp_path / "none.json")]) == 2
    assert f"--results: no results file at {tmp_path / 'none.json'}" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # the default relucheck-out/results.json is missing: a friendly line, exit 0
    assert main(["show", "C.prop1"]) == 0
    assert f"no result in {cli.DEFAULT_RESULTS}" in capsys.readouterr().out
    (tmp_path / "relucheck-out").mkdir()
    (tmp_path / cli.DEFAULT_RESULTS).symlink_to(tmp_path / cli.DEFAULT_RESULTS)  # a loop at the default path
    assert main(["show", "C.prop1"]) == 2
    assert "cannot be read" in capsys.readouterr().err


MINE = """
    from relucheck import Statement, agree, check, register_paper, register_statements
    register_paper("M", "mine")
    register_statements(Statement(id="M.one", paper="M", number="1", title="one", conclusion="x = x"))

    @check("M.one.same", statement="M.one", mutant="x = x + 1")
    def same(ctx):
        return agree(1.0, 1.0 + ctx.mutate, 0.0, "exact")

    @check("M.one.again", statement="M.one", mutant="x = x + 2")
    def again(ctx):
        return agree(2.0, 2.0 + 2 * ctx.mutate, 0.0, "exact")
"""


def _ids(results: Path) -> list[str]:
    return sorted(r["id"] for r in json.loads(results.read_text()))


def test_run_checks_file_runs_only_its_checks_unless_with_builtin(tmp_path):
    (tmp_path / "mine.py").write_text(textwrap.dedent(MINE))
    proc = _sh(["run", "--checks", "mine.py", "--quiet", "--executor", "serial", "--out", "a"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _ids(tmp_path / "a" / "results.json") == ["M.one.again", "M.one.same"]
    proc = _sh(["run", "--checks", "mine.py", "--only", "*same", "--quiet", "--executor", "serial", "--out", "b"],
               tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _ids(tmp_path / "b" / "results.json") == ["M.one.same"]
    proc = _sh(["run", "--checks", "mine.py", "--with-builtin", "--only", "*.s[ae]*", "--quiet", "--executor",
                "serial", "--out", "c"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    ids = _ids(tmp_path / "c" / "results.json")
    assert "M.one.same" in ids and "B.lem5.second_bullet_proof_step" in ids and "M.one.again" not in ids
    proc = _sh(["run", "--checks", "mine.py", "--only", "B.lem5.*", "--out", "d"], tmp_path)
    assert proc.returncode == 2 and "--only 'B.lem5.*': no check of --checks mine.py" in proc.stderr
    assert "--with-builtin" in proc.stderr and not (tmp_path / "d").exists()


NOISY = """
    import os, sys
    print("hello from a plugin")
    sys.stdout.write("and more\\n")
    os.system("echo through the file descriptor")
    from relucheck import Statement, agree, check, register_paper, register_statements
    register_paper("N", "noisy")
    register_statements(Statement(id="N.one", paper="N", number="1", title="one", conclusion="x = x"))

    @check("N.one.same", statement="N.one", mutant="x = x + 1")
    def same(ctx):
        return agree(1.0, 1.0 + ctx.mutate, 0.0, "exact")
"""


def test_list_json_stays_json_when_a_plugin_prints(tmp_path):
    (tmp_path / "noisy.py").write_text(textwrap.dedent(NOISY))
    proc = _sh(["list", "--checks", "noisy.py", "--paper", "N", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["checks"] == ["N.one.same"]
    for text in ("hello from a plugin", "and more", "through the file descriptor"):
        assert text in proc.stderr


@pytest.mark.parametrize("body, message", [
    ("import sys\nsys.exit(0)\n", "called sys.exit(0) while loading"),
    ("import os\nos._exit(0)\n", "called os._exit(0) while loading"),
    ("raise SystemExit('bye')\n", "called sys.exit('bye') while loading"),
    ("class Stop(BaseException):\n    pass\nraise Stop('custom')\n", "Stop: custom"),
    ("raise ValueError('bad value')\n", "ValueError: bad value"),
    ("def f(:\n", "syntax error at line 1"),
])
@pytest.mark.parametrize("command", [["list"], ["run", "--out", "o"], ["show", "C.prop1"]])
def test_a_plugin_that_exits_or_fails_while_loading_is_an_error_naming_the_file(tmp_path, monkeypatch, capsys,
                                                                                 body, message, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exits.py").write_text(body)
    assert main([*command, "--checks", "exits.py"]) == 2
    err = capsys.readouterr().err
    assert f"relucheck: error: --checks exits.py: {message}" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("make, message", [
    (lambda d: None, "--checks mine.py: no such file"),
    (lambda d: (d / "mine.py").mkdir(), "--checks mine.py: not a file"),
    (lambda d: (d / "mine.py").symlink_to(d / "mine.py"), "--checks mine.py: cannot be read"),
])
def test_a_checks_file_that_cannot_be_imported_is_named(tmp_path, monkeypatch, capsys, make, message):
    monkeypatch.chdir(tmp_path)
    make(tmp_path)
    assert main(["list", "--checks", "mine.py"]) == 2
    assert message in capsys.readouterr().err


def test_a_checks_file_that_is_not_python_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("register nothing")
    assert main(["run", "--checks", "notes.txt", "--out", "o"]) == 2
    assert "--checks notes.txt: not a .py file" in capsys.readouterr().err


# -- plugins import the registry, never the reverse -------------------------------------------------------------

def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names |= {f"{'.' * node.level}{node.module or ''}"} | {f"{'.' * node.level}{a.name}" for a in node.names
                                                                    if not node.module}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_the_registry_does_not_import_plugins():
    registry = _imported_modules(ROOT / "proofs_checks" / "registry.py")
    assert not {name for name in registry if name.endswith("plugins")}, registry
    assert ".registry" in _imported_modules(ROOT / "proofs_checks" / "plugins.py")
    code = ("import sys; from relucheck.proofs_checks.registry import all_checks; all_checks(); "
            "assert 'relucheck.proofs_checks.plugins' not in sys.modules, 'registry loaded plugins'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=HANG_GUARD)


# Red team 1 (run): symbolic links in --out, a check that changes directory, blank journal lines, lingering threads.

def test_a_symlinked_lock_file_is_refused_and_its_target_untouched(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("DATA\n")
    out = tmp_path / "sl"
    out.mkdir()
    (out / LOCK_NAME).symlink_to(victim)
    assert main(_run_args(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"relucheck: error: --out {out}: {LOCK_NAME} is not a regular file") and err.count("\n") == 1
    assert victim.read_text() == "DATA\n"
    assert not (out / JOURNAL_NAME).exists()


def test_a_hard_linked_lock_file_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("DATA\n")
    out = tmp_path / "hl"
    out.mkdir()
    os.link(victim, out / LOCK_NAME)
    with pytest.raises(RelucheckInputError, match="run.lock is not a regular file"):
        OutDirLock(out, shown=f"--out {out}").acquire()
    assert victim.read_text() == "DATA\n"


def test_a_journal_symlinked_to_another_folders_journal_is_refused(complete_run, tmp_path, capsys):
    before = (complete_run / JOURNAL_NAME).read_bytes()
    other = tmp_path / "jB"
    other.mkdir()
    (other / JOURNAL_NAME).symlink_to(complete_run / JOURNAL_NAME)
    for extra in (["--resume"], []):
        assert main(_run_args(other, *extra)) == 2
        err = capsys.readouterr().err
        assert f"journal {other / JOURNAL_NAME}: is a symbolic link" in err and err.count("\n") == 1, err
    assert (complete_run / JOURNAL_NAME).read_bytes() == before


def test_a_folder_in_place_of_the_journal_is_refused(tmp_path, capsys):
    out = tmp_path / "o"
    (out / JOURNAL_NAME).mkdir(parents=True)
    assert main(_run_args(out, "--resume")) == 2
    assert f"journal {out / JOURNAL_NAME}: is not a regular file" in capsys.readouterr().err


def test_blank_journal_lines_are_skipped_and_every_other_line_still_checked(complete_run, capsys):
    rows = _lines(complete_run)
    text = (complete_run / JOURNAL_NAME).read_text()
    (complete_run / JOURNAL_NAME).write_text(text + "\n  \n")
    assert sorted(Journal(complete_run).records()) == sorted(QUICK_IDS)
    assert main(_run_args(complete_run, "--resume")) == 0
    assert "ran 0 of 4 records" in capsys.readouterr().out
    lines = (complete_run / JOURNAL_NAME).read_text().split("\n")
    edited = json.loads(lines[len(rows) - 1])
    edited["record"]["status"] = "verified" if edited["record"]["status"] != "verified" else "refuted"
    lines[len(rows) - 1] = json.dumps(edited)
    (complete_run / JOURNAL_NAME).write_text("\n".join(lines))
    with pytest.raises(RelucheckInputError, match=f"line {len(rows)}: "):
        Journal(complete_run).records()


def test_relative_out_survives_a_check_that_changes_directory(tmp_path):
    plugin = tmp_path / "p_chdir.py"
    plugin.write_text(textwrap.dedent("""
        import os
        from relucheck import register_paper, register_statements, Statement, check, Outcome, Status
        register_paper("PCD", "test paper")
        register_statements(Statement("PCD.thm1", "PCD", "Theorem 1", "t", conclusion="x"))

        @check("PCD.thm1.chdir", statement="PCD.thm1", mutant="m")
        def moves(ctx):
            os.chdir("/")
            return Outcome(Status.REFUTED if ctx.mutate else Status.VERIFIED, 1, 1, 0, "exact")
        """))
    proc = _sh(["run", "--checks", "p_chdir.py", "--mutate", "--quiet", "--executor", "serial", "--out", "o"],
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "wrote o/results.json" in proc.stdout and "(journal o/journal.jsonl)" in proc.stdout
    assert sorted(Journal(tmp_path / "o").records()) == ["PCD.thm1.chdir", "PCD.thm1.chdir.mutant"]


@pytest.mark.parametrize("command", [["list", "--json"], ["run", "--quiet", "--executor", "serial", "--out", "o"]])
def test_a_plugins_non_daemon_thread_does_not_keep_the_command_alive(tmp_path, command):
    plugin = tmp_path / "p_thread.py"
    plugin.write_text(textwrap.dedent("""
        import threading, time
        from relucheck import register_paper, register_statements, Statement, check, Outcome, Status
        register_paper("PTH", "test paper")
        register_statements(Statement("PTH.thm1", "PTH", "Theorem 1", "t", conclusion="x"))
        threading.Thread(target=lambda: time.sleep(10**6)).start()

        @check("PTH.thm1.ok", statement="PTH.thm1", mutant="m")
        def ok(ctx):
            return Outcome(Status.REFUTED if ctx.mutate else Status.VERIFIED, 1, 1, 0, "exact")
        """))
    proc = subprocess.run([sys.executable, "-m", "relucheck", command[0], "--checks", "p_thread.py", *command[1:]],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith("relucheck: note: a plugin left 1 thread running; ending anyway\n")
    assert ("PTH.thm1.ok" if command[0] == "list" else "summary: 1 verified") in proc.stdout


def test_main_returns_its_code_and_entry_exits_with_it(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["relucheck", "show", "no.such.id"])
    with pytest.raises(SystemExit) as ended:
        cli.entry()
    assert ended.value.code == 2 and main(["show", "no.such.id"]) == 2


def test_a_relative_out_is_named_as_typed_in_a_lock_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "victim.txt").write_text("DATA\n")
    Path("sl").mkdir()
    Path("sl", LOCK_NAME).symlink_to("../victim.txt")
    assert main(_run_args("sl")) == 2
    err = capsys.readouterr().err
    assert err == (f"relucheck: error: --out sl: {LOCK_NAME} is not a regular file (a symbolic link, a folder, a fifo "
                   f"…); relucheck locks and writes only a file of its own: remove sl/{LOCK_NAME} or choose another "
                   "--out\n")
    assert (tmp_path / "victim.txt").read_text() == "DATA\n"


def test_symlinked_reports_are_replaced_never_written_through(complete_run, tmp_path, capsys):
    victim = tmp_path / "victim.json"
    victim.write_text("DATA\n")
    (complete_run / "results.json").unlink()
    (complete_run / "results.json").symlink_to(victim)
    assert main(_run_args(complete_run)) == 0
    assert victim.read_text() == "DATA\n" and not (complete_run / "results.json").is_symlink()


@pytest.mark.parametrize("k, check_id", list(enumerate(["Q.one.a\nb", "Q.one.\x1b[31mred", "Q.one/../x", "Q.one." + "x" * 200,
                                                       "Q.one.λ"])))
def test_a_check_id_that_would_break_a_file_a_table_or_a_terminal_is_refused(tmp_path, monkeypatch, capsys, k,
                                                                             check_id):
    monkeypatch.chdir(tmp_path)
    paper = f"WeirdIds{k}"  # one paper per case: registrations stay in this process
    (tmp_path / "weird.py").write_text(
        "from relucheck import Statement, agree, check, register_paper, register_statements\n"
        f"register_paper({paper!r}, 'weird ids')\n"
        f"register_statements(Statement(id='{paper}.one', paper={paper!r}, number='1', title='w', conclusion='1 = 1'))\n"
        f"@check({check_id!r}, statement='{paper}.one', mutant='m')\n"
        "def h(ctx):\n    return agree(1.0, 1.0, 0.0, 'exact')\n")
    assert main(["list", "--checks", "weird.py"]) == 2
    err = capsys.readouterr().err
    assert "--checks weird.py: ValueError: check id must be" in err and err.count("\n") == 1


def test_the_reports_of_a_checks_only_run_name_the_file_not_the_suite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(
        "from relucheck import Statement, agree, check, register_paper, register_statements\n"
        "register_paper('Mine', 'my note')\n"
        "register_statements(Statement(id='Mine.one', paper='Mine', number='1', title='t', conclusion='1 = 1'))\n"
        "@check('Mine.one.exact', statement='Mine.one', mutant='m')\n"
        "def h(ctx):\n    return agree(1.0, 1.0, 0.0, 'exact')\n")
    assert main(["run", "--checks", "mine.py", "--quiet", "--executor", "serial", "--out", "o"]) == 0
    assert (tmp_path / "o" / "report.md").read_text().startswith("# relucheck run (checks of mine.py, seed 0)")
