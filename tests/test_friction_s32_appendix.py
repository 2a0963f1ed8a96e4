"""Friction list, session 32: the appendix (`relucheck report --appendix`) names no internal code. B Theorem 2's
tolerance reasons said `lambda_limit.extrapolate` and "the lambda_limit spread rule" (a module of relucheck), and C
Theorem 1's table had rows "tau", "u3 final", "min norm squared" (the check's dict keys, '_' made spaces). The
appendix now writes what they mean; a record's id (the key of results.json, "record B.thm2.…") stays, as a reference.
The test runs the three checks (and mutants, ~3 s) and reads the appendix's LaTeX without the record references."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from relucheck.proofs_checks.appendix import write_appendix
from relucheck.proofs_checks.registry import get_check
from relucheck.proofs_checks.report import write_results
from relucheck.proofs_checks.runner import run_checks

CHECKS = ["B.thm2.transition_time_limit", "B.thm2.transition_time_first_order", "C.thm1.golden_example_exact"]
ROOT = Path(__file__).resolve().parents[1]


def _module_names() -> set[str]:
    """relucheck's module names with an underscore (lambda_limit, paper_a_training, …): none is a word of prose."""
    return {p.stem for sub in ("numerics", "theory", "proofs_checks") for p in (ROOT / sub).rglob("*.py")
            if "_" in p.stem.strip("_")}


@pytest.fixture(scope="module")
def appendix_text(tmp_path_factory):
    out = tmp_path_factory.mktemp("appendix")
    records = run_checks([get_check(cid) for cid in CHECKS], seed=0, mutate=True, progress=False)
    write_results(records, out, title="t")
    write_appendix(out / "results.json", out)
    tex = (out / "appendix.tex").read_text()
    tex = re.sub(r"record \\texttt\{[^}]*(?:\{\}[^}]*)*\}", "record", tex)  # the record references
    return tex.replace(r"\_\allowbreak{}", "_").replace(r"\_", "_").replace(r".\allowbreak{}", ".")


def test_no_module_name_of_relucheck_reaches_the_appendix(appendix_text):
    found = sorted(name for name in _module_names() if re.search(rf"\b{name}\b", appendix_text))
    assert not found, found
    assert "Richardson extrapolation on the finest three rungs" in appendix_text  # what lambda_limit.extrapolate is


def test_table_rows_are_named_by_what_they_hold(appendix_text):
    rows = {line.split(" & ")[0] for line in appendix_text.splitlines() if " & " in line}
    assert not rows & {"tau", "u3 final", "min norm squared", "squared norm", "plateaus"}, rows
    assert r"\ensuremath{\tau} (jump times)" in rows and r"u\ensuremath{_{3}} at the end" in rows


def test_key_words():
    from relucheck.proofs_checks.appendix_values import key_words

    assert key_words("tau") == "τ (jump times)" and key_words("samples_outside") == "samples outside"
    assert key_words("lambda_step") == "λ step" and key_words("zero_columns") == "zero columns"
