"""Friction list, session 32: the reasons `numerics.flows.vouch` gives when a run and its check run differ in their
jumps are words a reader can act on (which neuron, which data, rounded times), not Python reprs of (neuron, fitted
data) tuples. Each assertion below fails on the message before the fix (it printed ``[(7, (0, 13, 15, …)), …]``)."""
from __future__ import annotations

import re
from types import SimpleNamespace

from relucheck.numerics.flows.result import Jump, Status
from relucheck.numerics.flows.vouch import _structure


def _run(*jumps):
    return SimpleNamespace(status=Status.SUCCESS, message="", jumps=[Jump(t, j, tuple(f)) for t, j, f in jumps])


def _no_repr(text: str) -> None:
    assert not re.search(r"[\[\]()]\s*\d+,|\(\)|\[\]", text), text  # no tuple/list literal such as (7, (0, 13 or []


def test_a_neuron_that_jumps_in_one_run_only_is_named_with_its_time():
    common = [(1.0, 0, (0, 1)), (2.5, 1, (2,))]
    said = _structure(_run(*common, (9.0, 12, ())), _run(*common, (14.8234, 6, (3, 4, 5))))
    assert "neuron 6 jumps at τ ≈ 14.82 in the check run and not in the run" in said
    assert "neuron 12 jumps at τ ≈ 9 in the run and not in the check run" in said
    assert "(3 jumps in the run, 3 in the check run)" in said
    _no_repr(said)


def test_a_neuron_that_fits_other_data_says_which_data_each_run_alone_has():
    said = _structure(_run((2.0, 7, (0, 13, 15, 22))), _run((2.0, 7, (0, 13, 16, 22, 30))))
    assert "neuron 7, jumping at τ ≈ 2, fits datum 15 only in the run and data 16 and 30 only in the check run" in said
    _no_repr(said)


def test_long_differences_are_shortened_with_a_count():
    mine = [(float(j), j, tuple(range(12))) for j in range(10)]
    other = [(float(j), j, tuple(range(1, 13))) for j in range(10)]
    said = _structure(_run(*mine), _run(*other))
    assert said.count("fits datum 0 only in the run and datum 12 only in the check run") == 4
    assert "; 6 more differences (10 jumps in the run, 10 in the check run)" in said
    wide = _structure(_run((1.0, 0, tuple(range(20)))), _run((1.0, 0, ())))
    assert "fits data 0, 1, 2, 3 and 16 more only in the run" in wide
    _no_repr(said + wide)


def test_the_time_unit_is_the_problems():
    said = _structure(_run((3.0, 1, (0,))), _run(), unit="t")
    assert "neuron 1 jumps at t ≈ 3 in the run and not in the check run (1 jump in the run, 0 in the check run)" in said


def test_the_same_jumps_are_not_a_difference():
    jumps = [(1.0, 0, (0, 1)), (2.5, 1, (2,))]
    assert _structure(_run(*jumps), _run(*reversed(jumps))) is None


# `relucheck flow`'s text (proofs_checks/flow_text.py): the data a jump fits as a set, yes/no for interpolation.
ORTH3 = {"inputs": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "labels": [1.0, -0.5, 0.7],
         "directions": [[0.6, 0.8, 0], [0, 0.6, 0.8], [0.8, 0, 0.6]], "signs": [1, -1, 1]}
GENERAL = {"inputs": [[1, 0.2], [0.3, 1], [-0.5, 0.4]], "labels": [1.0, 0.5, -0.8],
           "directions": [[0.6, 0.8], [0.8, -0.6]], "signs": [1, -1]}


def _flow_text(tmp_path, capsys, data):
    import json

    from relucheck.proofs_checks.cli import main

    path = tmp_path / "instance.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["flow", str(path), "--lam", "1e-10"]) in (0, 3)
    return capsys.readouterr().out


def test_flow_output_writes_fitted_data_as_sets_and_interpolation_in_words(tmp_path, capsys):
    from test_record_messages import programme_text

    out = _flow_text(tmp_path, capsys, ORTH3)
    assert "{0, 2} / {0, 2}" in out and "{1} / {1}" in out  # neuron 2 fits data 0 and 2, neuron 1 datum 1
    assert "interpolates: yes" in out
    general = _flow_text(tmp_path, capsys, GENERAL)
    assert "fitted (flow)" in general and "interpolates: " in general
    for line in (out + general).splitlines():
        assert programme_text(line) is None, (programme_text(line), line)
        assert "numerics." not in line, line  # no module of relucheck (the error bounds' method named one until then)


def test_flow_output_gives_each_jump_time_to_the_digits_its_bound_warrants(tmp_path, capsys):
    """The τ (flow) column printed 10 significant digits whatever the bound (6.010118653 with a bound of 0.012): each
    jump time now comes with its vouched bound, rounded to one digit below the bound's first."""
    import math

    out = _flow_text(tmp_path, capsys, ORTH3)
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert len(rows) == 2
    for row in rows:
        value, pm, bound = row[1:4]
        assert pm == "±", row
        decimals = len(value.split(".")[1]) if "." in value else 0
        assert decimals <= 1 - math.floor(math.log10(float(bound))), row


def test_a_withdrawn_bound_says_the_problems_time():
    """vouch.not_at_rest wrote 'τ' also for a problem in t units (time_unit 't')."""
    from relucheck.numerics.flows.vouch import not_at_rest

    for unit, word in (("t", "t = "), ("tau", "τ = ")):
        result = SimpleNamespace(errors={"jumps": [0.1], "plateaus": [0.1]}, end=3.5, message="m",
                                 problem={"time_unit": unit})
        not_at_rest(result, 7.0)
        assert f"stopped at {word}3.5" in result.errors["jumps_reason"] and f"by {word}7" in result.message
