"""`agree` with a prediction and a measurement of different dimensions is the check's error, not a refutation: a
refutation would read as evidence against the user's theorem and make its mutant "caught" without testing anything
(new user, session 31). Another count of values of the same dimension stays a refutation."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from relucheck import agree
from relucheck.proofs_checks.result import Status

PLUGIN = '''
import numpy as np
from relucheck import register_paper, register_statements, Statement, check, agree

register_paper("Q", "a note")
register_statements(Statement(id="Q.s", paper="Q", number="Lemma 1", title="one third", conclusion="x = 1/3"))


@check("Q.s.np", statement="Q.s", mutant="0.3 in place of 1/3")
def np_check(ctx):
    value = 0.3 if ctx.mutate else 1 / 3
    return agree(np.float64(value), np.array([1 / 3, 0.3333333333333333]), 1e-9, "numpy values")
'''


def test_different_dimensions_are_an_error_and_another_count_is_refuted():
    with pytest.raises(ValueError, match="same number of dimensions"):
        agree(np.float64(1 / 3), np.array([1 / 3, 1 / 3]), 1e-9, "a scalar against a list")
    assert agree([1.0, 2.0], [1.0, 2.0, 3.0], 1e-9, "a jump more").status is Status.REFUTED
    assert agree([[1.0, 2.0]], [[1.0, 2.0]], 1e-9, "the same table").status is Status.VERIFIED


def test_a_user_check_with_that_mistake_is_an_error_record_whose_mutant_is_not_caught(tmp_path):
    (tmp_path / "bad.py").write_text(PLUGIN, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--checks", "bad.py", "--only", "Q.*", "--mutate",
                           "--out", "o"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Q.s.np: error: ValueError: agree: prediction and measurement must have the same number of dimensions" \
        in proc.stdout + proc.stderr
    assert "mutants caught: 0/1" in proc.stdout + proc.stderr
