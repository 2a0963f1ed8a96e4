"""A bad RELUCHECK_SCALE gets exit 2 and one message that names the variable, the values it takes (as words, not a
Python list) and what it got."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("paper, values", [("A", "d10, full, reduced, regime"), ("B", "full, reduced")])
def test_bad_scale_names_the_variable_and_its_values(paper, values, tmp_path, capsys, monkeypatch):
    from relucheck.proofs_checks.cli import main

    monkeypatch.setenv("RELUCHECK_SCALE", "bogus")
    assert main(["report", "--paper", paper, "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert f"RELUCHECK_SCALE must be one of {values}, got 'bogus'" in err
    assert "[" not in err and "Traceback" not in err


def test_report_help_names_the_scale_variable_and_its_values(capsys):
    from relucheck.proofs_checks.cli import main

    with pytest.raises(SystemExit):
        main(["report", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "RELUCHECK_SCALE: reduced (default) or full for A and B, also d10 and regime for A" in text
