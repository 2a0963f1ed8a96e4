"""A bad RELUCHECK_SCALE gets exit 2 and one message that names the variable, the values it takes (as words, not a
Python list) and what it got."""
from __future__ import annotations

def test_bad_scale_names_the_variable_and_its_values(tmp_path, capsys, monkeypatch):
    from relucheck.proofs_checks.cli import main

    monkeypatch.setenv("RELUCHECK_SCALE", "bogus")
    assert main(["report", "--paper", "A", "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert "RELUCHECK_SCALE must be one of d10, full, reduced, regime, got 'bogus'" in err
    assert "[" not in err and "Traceback" not in err
