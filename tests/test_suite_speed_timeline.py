"""`python -m bench.suite_schedule --timeline` (issue 22, item 5): `relucheck run` timed phase by phase and task by
task, without changing what the command does (its exit code)."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_timeline_names_the_phases_and_each_task_of_a_run():
    out = subprocess.run([sys.executable, "-m", "bench.suite_schedule", "--timeline", "--only", "A.thm3.1.*"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert re.search(r"relucheck run --quiet --only A\.thm3\.1\.\*: exit 0, .* 2 tasks", text), text
    for phase in ("interpreter up", "run_checks start", "run_checks end", "write_results end", "process ended"):
        assert phase in text, phase
    assert sum(int(n) for n in re.findall(r"worker \d+: (\d+) tasks", text)) == 2
    assert "A.thm3.1.cover_count" in text and "A.thm3.1.rate" in text


def test_the_timeline_passes_the_runs_exit_code_on():
    out = subprocess.run([sys.executable, "-m", "bench.suite_schedule", "--timeline", "--only", "no.such.check"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "exit 2" in out.stdout and "0 tasks" in out.stdout, out.stdout
