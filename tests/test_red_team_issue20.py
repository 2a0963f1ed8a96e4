"""Red team of issue 20 from a clean clone: the breaks found, each as a test that failed before its fix.

Every case runs the command line in process through `cli.main` (the console script's error boundary) or, where the
process itself matters, as a subprocess under a timeout.
"""
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from relucheck.proofs_checks import cli

SCRIPT = Path(sys.executable).with_name("relucheck")


def run_cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# -- check-ode: a declared name must not be read as a function or constant of the numerical integration ----------

@pytest.mark.parametrize("name", ["e", "pi_", "arcsin", "arctanh", "numpy", "builtins"])
def test_a_parameter_named_like_a_numpy_printer_name_is_not_identified_with_it(name, tmp_path):
    """numpy's lambdify printed E as ``e`` and asin as ``arcsin`` next to the declared names: a parameter named ``e``
    stood for Euler's number in the integration, and a true closed form came out inconclusive ("zero residual but
    the numerical integration disagrees", exit 3)."""
    ode = {"time": "t", "state": ["x"], "parameters": {name: [0.1, 0.5]},
           "equations": {"x": f"E*x + {name} + 0*asin({name})"}, "initial": {"x": "1"},
           "solution": {"x": f"(1 + {name}/E)*exp(E*t) - {name}/E"}, "time_span": [0, 2]}
    code, out, err = run_cli(["check-ode", _write(tmp_path, "ode.json", ode), "--json"])
    result = json.loads(out)
    assert (code, result["status"]) == (0, "verified"), (out, err)
    assert result["integration"]["draws"] == 3
    assert result["integration"]["max_discrepancy"] <= result["integration"]["tolerance"]
