"""Tests that pin the verdict code exactly (bench/mutation.py found mutants of it that no other test saw; docs/mutation.md).

Each assertion is a consequence of the documented rule (proofs_checks/result.py), not a recorded output: the
status at and around the boundary, the numbers in the details, and the text of the message that a reader of a
report relies on.
"""
import math

import numpy as np
import pytest

from relucheck.numerics.precision_guard import Guarded
from relucheck.proofs_checks.result import CheckResult, Outcome, Status, agree, apply_guard, versions, within_bound


# -- agree --------------------------------------------------------------------------------------------------------

def test_agree_at_and_beyond_the_tolerance():
    at = agree(1.0, 1.25, 0.25, "r")
    assert at.status is Status.VERIFIED and at.details == {"max_abs_error": 0.25}
    assert at.message == "max error 0.25 vs tolerance 0.25."
    beyond = agree([1.0, 2.0], [1.0, 2.5], 0.25, "why", message="m", extra=3)
    assert beyond.status is Status.REFUTED and beyond.details == {"max_abs_error": 0.5, "extra": 3}
    assert beyond.message == "max error 0.5 vs tolerance 0.25. m"
    assert (beyond.prediction, beyond.measurement, beyond.tolerance, beyond.tolerance_reason) == \
        ([1.0, 2.0], [1.0, 2.5], 0.25, "why")


def test_agree_relative_scales_the_tolerance_by_the_largest_prediction():
    out = agree([-4.0, 2.0], [-4.0, 2.5], 0.125, "r", relative=True)  # allowed 0.125 · 4 = 0.5
    assert out.status is Status.VERIFIED and out.message == "max relative error 0.125 vs tolerance 0.125."
    assert agree([-4.0, 2.0], [-4.0, 2.6], 0.125, "r", relative=True).status is Status.REFUTED
    zero = agree(0.0, 0.0, 0.1, "r", relative=True)  # a zero prediction: the error is reported unscaled
    assert zero.status is Status.VERIFIED and zero.message == "max relative error 0 vs tolerance 0.1."


def test_agree_shape_mismatch_and_non_finite():
    out = agree([1.0, 2.0], [1.0], 1.0, "r", message="m", k=1)
    assert out.status is Status.REFUTED and out.details == {"k": 1}
    assert out.message == "shape mismatch: prediction (2,) vs measurement (1,). m"
    nan = agree(1.0, float("nan"), 1.0, "r")
    assert nan.status is Status.INCONCLUSIVE and math.isnan(nan.details["max_abs_error"])
    assert agree(1.0, float("inf"), 1.0, "r").status is Status.INCONCLUSIVE
    assert agree([], [], 0.0, "r").status is Status.VERIFIED  # nothing differs


# -- within_bound -----------------------------------------------------------------------------------------------

def test_within_bound_messages_and_margins():
    out = within_bound([0.1, 0.41], 0.5, "r", message="m", k=2)
    assert out.status is Status.VERIFIED and out.details == {"margin": pytest.approx(0.09), "k": 2}
    assert out.message == "tightest of 2: measured 0.41 ≤ bound 0.5 (margin 0.09). m"
    assert (out.prediction, out.tolerance, out.tolerance_reason) == (0.5, 0.0, "r")
    low = within_bound(0.62, 0.5, "r", slack=0.1)
    assert low.status is Status.REFUTED and low.message == "measured 0.62 > bound 0.5 + slack 0.1 (margin -0.02)."
    ge = within_bound(0.3, 0.5, "r", side=">=", slack=0.25)
    assert ge.status is Status.VERIFIED and ge.message == "measured 0.3 ≥ bound 0.5 − slack 0.25 (margin 0.05)."
    lt = within_bound(0.2, 0.5, "r", side=">=")
    assert lt.status is Status.REFUTED and lt.message == "measured 0.2 < bound 0.5 (margin -0.3)."
    assert within_bound(0.5, 0.5, "r").status is Status.VERIFIED  # equality holds on both sides
    assert within_bound(0.5, 0.5, "r", side=">=").status is Status.VERIFIED


def test_within_bound_broadcasts_bounds_and_finds_the_tightest_index():
    out = within_bound([1.0, 2.0, 3.0], [1.5, 2.1, 3.9], "r")
    assert out.details["margin"] == pytest.approx(0.1) and "measured 2 ≤ bound 2.1" in out.message


def test_within_bound_nan_empty_and_bad_side():
    nan = within_bound([0.1, float("nan")], 0.5, "r", message="m")
    assert nan.status is Status.INCONCLUSIVE and nan.details == {"margin": None}
    assert nan.message == "measured nan vs bound 0.5: not comparable (NaN). m"
    empty = within_bound([], 0.5, "r", message="m")
    assert empty.status is Status.INCONCLUSIVE and empty.message == "no measured value to compare with the bound. m"
    with pytest.raises(ValueError, match="side must be '<=' or '>=', got '<'"):
        within_bound(1.0, 1.0, "r", side="<")


# -- Outcome.require and the guard ------------------------------------------------------------------------------------

@pytest.mark.parametrize("status, message, expected_status, expected_message", [
    (Status.VERIFIED, "", Status.REFUTED, "f"),
    (Status.VERIFIED, "m", Status.REFUTED, "m; f"),
    (Status.INCONCLUSIVE, "m", Status.REFUTED, "m; f"),
    (Status.ERROR, "m", Status.ERROR, "m"),
])
def test_require(status, message, expected_status, expected_message):
    out = Outcome(status, 1, 1, 0, "r", message).require(False, "f")
    assert (out.status, out.message) == (expected_status, expected_message)
    kept = Outcome(status, 1, 1, 0, "r", message).require(True, "f")
    assert (kept.status, kept.message) == (status, message)


def test_apply_guard_passes_and_fails():
    ok = apply_guard(agree(1.0, 1.0, 0.1, "r"), Guarded(1.0, 1.0, 30, 60, 1e-40, 1e-20))
    assert ok.status is Status.VERIFIED
    assert ok.details == {"max_abs_error": 0.0, "digits": 30, "guard_digits": 60, "guard_discrepancy": 1e-40,
                          "guard_tolerance": 1e-20, "guard_ok": True}
    bad = apply_guard(agree(1.0, 1.0, 0.1, "r", message="m"), Guarded(2.0, 3.0, 30, 60, 1e-3, 1e-20),
                      show=lambda v: v * 10)
    assert bad.status is Status.INCONCLUSIVE and bad.measurement == {"at_digits": 20.0, "at_double_digits": 30.0}
    assert bad.message == ("precision guard: results at 30 and 60 digits differ by 0.001 > 1e-20; the verdict would "
                           "have been verified. max error 0 vs tolerance 0.1. m")
    assert (bad.prediction, bad.tolerance, bad.tolerance_reason) == (1.0, 0.1, "r") and not bad.details["guard_ok"]


# -- records -------------------------------------------------------------------------------------------------

def _record(**changes) -> CheckResult:
    base = dict(id="X.a", statement="X", paper="X", status=Status.VERIFIED, prediction=1, measurement=1, tolerance=0,
                tolerance_reason="r", precision="float64", seed=0, seconds=0.0, versions={}, message="")
    return CheckResult(**{**base, **changes})


def test_check_result_round_trip_and_findings():
    rec = _record(details={"x": np.float64(1.5)}, finding="the paper's claim fails")
    again = CheckResult.from_json(rec.to_json())
    assert again.status is Status.VERIFIED and again.details == {"x": 1.5} and again.finding_reproduced
    assert not _record(finding="f", mutant=True).finding_reproduced
    assert not _record(finding="f", status=Status.REFUTED).finding_reproduced
    assert not _record().finding_reproduced
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['colour'\]"):
        CheckResult.from_json({**rec.to_json(), "colour": "red"})


def test_versions_name_every_library_and_the_code_hash():
    v = versions()
    assert {"python", "platform", "relucheck_code_sha256", "relucheck", "numpy", "scipy", "sympy", "mpmath",
            "python-flint", "matplotlib", "hypothesis"} <= set(v)
    assert len(v["relucheck_code_sha256"]) == 64 and v["numpy"] == np.__version__


# -- survivors of the 2026-11-24 run -----------------------------------------------------------------------------

def test_agree_shape_mismatch_keeps_the_compared_values():
    out = agree([1.0, 2.0], [1.0], 0.5, "why")
    assert (out.prediction, out.measurement, out.tolerance, out.tolerance_reason) == ([1.0, 2.0], [1.0], 0.5, "why")
    assert out.message == "shape mismatch: prediction (2,) vs measurement (1,)."


def test_agree_and_within_bound_on_integers_beyond_int64_differences():
    # as floats the difference of ±(2^63 − 1) is 2^64; in int64 arithmetic it would wrap around to −2
    big = 2**63 - 1
    out = agree([big], [-big], 1.0, "r")
    assert out.status is Status.REFUTED and out.details["max_abs_error"] == 2.0**64
    assert agree([big], [big], 0.0, "r").status is Status.VERIFIED
    rel = agree([big, 1], [big, 1], 1e-3, "r", relative=True)
    assert rel.status is Status.VERIFIED and rel.message == "max relative error 0 vs tolerance 0.001."
    wb = within_bound([-big], [big], "r")
    assert wb.status is Status.VERIFIED and wb.details["margin"] == 2.0**64
    ge = within_bound([-big], [big], "r", side=">=")
    assert ge.status is Status.REFUTED and ge.details["margin"] == -(2.0**64)


def test_within_bound_nan_bound_and_tightest_of_a_matrix():
    nan = within_bound([0.1, 0.2], [0.5, float("nan")], "r")
    assert nan.status is Status.INCONCLUSIVE and nan.message == "measured 0.2 vs bound nan: not comparable (NaN)."
    assert nan.prediction[0] == 0.5 and math.isnan(nan.prediction[1])
    assert (nan.measurement, nan.tolerance, nan.tolerance_reason) == ([0.1, 0.2], 0.0, "r")
    grid = within_bound([[1.0, 2.0], [3.0, 4.0]], [[2.0, 2.5], [3.25, 9.0]], "r", slack=0.5, side="<=")
    assert grid.status is Status.VERIFIED and grid.details == {"margin": 0.75}
    assert grid.message == "tightest of 4: measured 3 ≤ bound 3.25 + slack 0.5 (margin 0.75)."
    ge = within_bound([3.0, 1.0, 2.0], 0.5, "r", side=">=", slack=0.25)
    assert ge.message == "tightest of 3: measured 1 ≥ bound 0.5 − slack 0.25 (margin 0.75)."
    empty = within_bound([], [], "r")
    assert (empty.prediction, empty.measurement, empty.tolerance) == ([], [], 0.0)


def test_versions_report_missing_libraries(monkeypatch):
    from importlib import metadata

    real = metadata.version

    def version(dist):
        if dist == "python-flint":
            raise metadata.PackageNotFoundError(dist)
        return real(dist)

    monkeypatch.setattr(metadata, "version", version)
    v = versions()
    assert v["python-flint"] == "not installed" and v["sympy"] == real("sympy")
    assert list(v)[:3] == ["python", "platform", "relucheck_code_sha256"]
    assert list(v)[3:] == ["relucheck", "numpy", "scipy", "sympy", "mpmath", "python-flint", "matplotlib", "hypothesis"]


def test_within_bound_records_every_field_in_every_branch():
    empty = within_bound([], 0.5, "why", k=1)
    assert (empty.tolerance_reason, empty.details) == ("why", {"k": 1})
    out = within_bound([0.1, 0.2], 0.5, "why")
    assert out.measurement == [0.1, 0.2] and out.prediction == 0.5
    # a measurement given as a Python integer beyond int64 is compared as a float
    big = within_bound(2**70, 2.0**71, "r")
    assert big.status is Status.VERIFIED and big.details["margin"] == 2.0**70


def test_apply_guard_keeps_the_precision_of_the_outcome():
    base = agree(1.0, 1.0, 0.1, "r")
    base.precision = "mpmath 30 digits"
    bad = apply_guard(base, Guarded(2.0, 3.0, 30, 60, 1e-3, 1e-20))
    assert bad.status is Status.INCONCLUSIVE and bad.precision == "mpmath 30 digits"
