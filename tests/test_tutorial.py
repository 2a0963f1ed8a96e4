"""docs/tutorial.md runs as written, and a user's checks work end to end through the public API only.

The tutorial's ```python file=NAME``` blocks are written to a temporary directory and its ```console``` lines are
run there (``relucheck`` and ``python`` from this interpreter's environment). Then the cases of issue 13's
"done when": a wrong prediction exits 1 and fails the user's pytest file; a paper id colliding with A, B or C,
a duplicate check id, a missing statement, or a file that does not import exit 2 with a message naming it;
`list --checks --json` shows the check; an installed plugin (entry point ``relucheck.checks``) is loaded.
"""
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text()
FILES = dict(re.findall(r"```python file=(\S+)\n(.*?)```", TUTORIAL, flags=re.S))
COMMANDS = [line[2:] for block in re.findall(r"```console\n(.*?)```", TUTORIAL, flags=re.S)
            for line in block.splitlines() if line.startswith("$ ")]
TIMEOUT = 300  # hang guard only: every command here takes seconds


def _env(extra_path: Path | None = None) -> dict:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               MPLBACKEND="Agg")
    env.pop("PYTHONPATH", None)
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    return env


def _sh(command: str, cwd: Path, env=None) -> subprocess.CompletedProcess:
    command = re.sub(r"^python\b", f'"{sys.executable}"', command)
    return subprocess.run(command, shell=True, cwd=cwd, env=env or _env(), capture_output=True, text=True,
                          timeout=TIMEOUT)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tutorial")
    for name, text in FILES.items():
        (path / name).write_text(text)
    return path


def test_the_tutorial_has_its_parts():
    assert {"my_theorem.py", "test_my_theorem.py", "flow_at_1e_minus_20.py"} <= set(FILES)
    assert any(c.startswith("relucheck run --checks") for c in COMMANDS)
    assert any("pytest" in c for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_tutorial_command_succeeds(workdir, command):
    proc = _sh(command, workdir)
    assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    if command.startswith("relucheck run"):
        assert "summary: 1 verified; mutants caught: 1/1" in proc.stdout, proc.stdout
        records = json.loads((workdir / "tutorial-out" / "results.json").read_text())
        assert {r["id"]: r["status"] for r in records} == {"T.fit_time.flow": "verified",
                                                                      "T.fit_time.flow.mutant": "refuted"}
    if "--relucheck-checks" in command:
        assert "5 passed" in proc.stdout, proc.stdout


def test_list_checks_json_shows_the_users_check(workdir):
    proc = _sh("relucheck list --checks my_theorem.py --paper T --json", workdir)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["id"] == "T.fit_time" and row["checks"] == ["T.fit_time.flow"]
    assert row["mutants"] == {"T.fit_time.flow": "the λ → 0 limit 1/y in place of t*/ln(1/λ)"}


@pytest.fixture
def wrong(tmp_path) -> Path:
    """The tutorial with a prediction off by 0.1 % (far beyond the tolerance steps·rtol/y ≈ 1e-8)."""
    for name, text in FILES.items():
        if name == "my_theorem.py":
            text = text.replace("predicted = float(FIT_TIME", "predicted = 1.001 * float(FIT_TIME")
            assert "1.001" in text
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_wrong_prediction_is_refuted_with_exit_1(wrong):
    proc = _sh("relucheck run --checks my_theorem.py --only 'T.*' --out out", wrong)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "T.fit_time.flow: refuted" in proc.stderr and "Traceback" not in proc.stderr


def test_a_wrong_prediction_fails_the_users_pytest_file(wrong):
    proc = _sh("python -m pytest -q -p no:cacheprovider test_my_theorem.py", wrong)
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "1 failed" in proc.stdout and "T.fit_time.flow (seed 0): refuted" in proc.stdout


USER_FILES = {
    "collide.py": """
        from relucheck import register_paper
        register_paper("A", "my own paper A")
    """,
    "dup_a.py": """
        from relucheck import Statement, agree, check, register_paper, register_statements
        register_paper("U", "U")
        register_statements(Statement(id="U.one", paper="U", number="1", title="one", conclusion="x = x"))
        @check("U.one.same", statement="U.one", mutant="x = x + 1")
        def same(ctx):
            return agree(1.0, 1.0 + ctx.mutate, 0.0, "exact")
    """,
    "dup_b.py": """
        from relucheck import agree, check
        @check("U.one.same", statement="U.one", mutant="again")
        def again(ctx):
            return agree(1.0, 1.0, 0.0, "exact")
    """,
    "orphan.py": """
        from relucheck import agree, check
        @check("V.lost", statement="V.nothing", mutant="none")
        def lost(ctx):
            return agree(1.0, 1.0, 0.0, "exact")
    """,
    "broken.py": "def f(:\n",
}


@pytest.mark.parametrize("args, message", [
    ("--checks collide.py", "--checks collide.py: ValueError: paper id 'A' is a built-in paper"),
    ("--checks dup_a.py --checks dup_b.py", "--checks dup_b.py: ValueError: check id 'U.one.same' is already registered"),
    ("--checks orphan.py", "check V.lost refers to statement 'V.nothing', which is not registered"),
    ("--checks broken.py", "--checks broken.py: syntax error at line 1"),
    ("--checks missing.py", "--checks missing.py: no such file"),
    ("--checks no_such_module_xyz", "--checks no_such_module_xyz: no file and no importable module"),
])
def test_bad_user_files_exit_2_naming_the_file(tmp_path, args, message):
    for name, text in USER_FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    for command in ("run --out out", "list"):
        proc = _sh(f"relucheck {command} {args}", tmp_path)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out" / "journal.jsonl").exists()  # nothing computed


def test_an_installed_plugin_is_loaded_through_its_entry_point(tmp_path):
    """A distribution on the path with an entry point of group ``relucheck.checks`` (as ``pip install`` leaves it)."""
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "checks.py").write_text(textwrap.dedent(USER_FILES["dup_a.py"]))
    info = tmp_path / "mypkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[relucheck.checks]\nmine = mypkg.checks\n")
    env = _env(extra_path=tmp_path)
    proc = _sh("relucheck run --only 'U.*' --mutate --out out", tmp_path, env=env)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "summary: 1 verified; mutants caught: 1/1" in proc.stdout
    (info / "entry_points.txt").write_text("[relucheck.checks]\nmine = mypkg.nothing_here\n")
    proc = _sh("relucheck list", tmp_path, env=env)
    assert proc.returncode == 2 and "plugin 'mine' (entry point mypkg.nothing_here" in proc.stderr, proc.stderr
