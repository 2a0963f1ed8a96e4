"""`relucheck flow` as a new user met it (session 31): --max-horizon on orthonormal data, ties between jumps, exit 3
for a success whose jump times are not vouched for."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from relucheck.proofs_checks.cli import main

ORTH2 = {"inputs": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "labels": [2.0, 1.0, -1.5],
         "directions": [[0.6, 0.8, 0], [0, 0.6, -0.8], [0.8, 0, 0.6]], "signs": [1, -1, 1]}
TIE = {"inputs": [[1, 0], [0, 1]], "labels": [1, 1], "directions": [[1, 0], [0, 1]], "signs": [1, 1]}


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_max_horizon_bounds_the_default_horizon_on_orthonormal_data(tmp_path, capsys):
    code = main(["flow", _write(tmp_path, "orth2.json", ORTH2), "--lam", "1e-10", "--max-horizon", "0.1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert max(out["trajectory"]["tau"]) == pytest.approx(0.1)  # Algorithm 1's last jump + 0.5 is 1.84
    assert code == 3 and out["errors"]["jumps"] is None  # stopped long before rest: its jump times are not vouched


def test_jumps_at_the_same_time_are_shown_as_a_tie(tmp_path, capsys):
    assert main(["flow", _write(tmp_path, "tie.json", TIE), "--lam", "1e-10"]) == 0
    out = capsys.readouterr().out
    assert "plateau losses (flow):  0.5, — (tie), " in out and "jumps 1 and 2 are at the same τ" in out


def test_a_number_with_underscores_or_a_fraction_is_bad_input(tmp_path):
    """'1e-10_0' is 1e-100 to Python and '1/2' a fraction to mpmath: both are refused, naming the option (exit 2)."""
    path = _write(tmp_path, "orth2.json", ORTH2)
    for args, option in ((["--lam", "1e-10_0"], "--lam"), (["--lam", "1/2"], "--lam"),
                         (["--lam", "1e-10", "--rtol", "1e-1_0"], "--rtol")):
        proc = subprocess.run([sys.executable, "-m", "relucheck", "flow", path, *args], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 2 and f"argument {option}:" in proc.stderr and "Traceback" not in proc.stderr
