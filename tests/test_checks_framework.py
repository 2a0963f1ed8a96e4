"""The check framework: every default check has its pinned status (tests/expected_statuses.json) and its mutant
is refuted; findings are counted apart from verified checks; bounds show their margin; registry integrity."""
import json
import math
from pathlib import Path

import pytest

from relucheck.proofs_checks.registry import all_checks, get_check, select
from relucheck.proofs_checks.result import Status, agree
from relucheck.proofs_checks.runner import exit_code, run_check, run_checks
from relucheck.theory.statements import all_statements

DEFAULT = [c.id for c in select("default")]
FULL_ONLY = [c.id for c in select("full") if "default" not in c.suites]
EXPECTED = json.loads((Path(__file__).with_name("expected_statuses.json")).read_text())


def _run_pair(check_id):
    chk = get_check(check_id)
    records = run_checks([chk], seed=0, mutate=True, progress=False)
    return records[0], records[1]


@pytest.mark.parametrize("check_id", DEFAULT)
def test_default_check_has_its_pinned_status_and_its_mutant_is_caught(check_id, default_suite_run):
    real, mutant = default_suite_run.pair(check_id)
    assert real.status is not Status.ERROR, real.details.get("traceback")
    expected = EXPECTED["statuses"].get(check_id)
    assert real.status.value == expected, (f"{check_id} is {real.status.value}, pinned {expected} in "
                                           f"tests/expected_statuses.json: {real.message}")
    assert mutant.mutant and mutant.check == check_id
    assert mutant.status is Status.REFUTED and mutant.caught, f"mutant not caught: {mutant.message}"
    assert real.tolerance_reason, "every tolerance states its reason"


def test_pinned_statuses_cover_exactly_the_default_suite_and_pin_no_failure(default_suite_run):
    assert EXPECTED["suite"] == "default" and EXPECTED["seed"] == default_suite_run.SEED  # builds the run, runs nothing
    assert sorted(EXPECTED["statuses"]) == sorted(DEFAULT), "add (or remove) the check in tests/expected_statuses.json"
    # `relucheck run` must succeed on a healthy toolkit: a refutation of a paper is a finding check, never a refuted pin
    assert set(EXPECTED["statuses"].values()) <= {"verified", "inconclusive"}


def test_default_suite_statuses_match_the_pinned_table(default_suite_run):
    statuses = {cid: default_suite_run.pair(cid)[0].status.value for cid in DEFAULT}
    flipped = {cid: f"{EXPECTED['statuses'].get(cid)} -> {s}" for cid, s in statuses.items()
               if s != EXPECTED["statuses"].get(cid)}
    assert not flipped, f"statuses changed (update tests/expected_statuses.json only on purpose): {flipped}"


def test_default_suite_summary_counts_and_lists_the_findings(default_suite_run, tmp_path):
    from relucheck.proofs_checks.report import summary_line, write_results

    records = default_suite_run.records()
    findings = [c.id for c in select("default") if c.finding and EXPECTED["statuses"][c.id] == "verified"]
    assert len(findings) >= 7
    verified = sum(1 for cid in DEFAULT if EXPECTED["statuses"][cid] == "verified") - len(findings)
    line = summary_line(records)
    assert line.startswith(f"{verified} verified, {len(findings)} paper's claims refuted (findings)"), line
    write_results(records, tmp_path)
    report = (tmp_path / "report.md").read_text()
    top = report[:report.index("| check |")]
    assert f"Summary: {line}." in top and "## Findings: paper's claims refuted" in top
    assert all(f"`{cid}`" in top for cid in findings)
    assert "paper's claims refuted (findings)" in (tmp_path / "report.tex").read_text()


def test_every_finding_check_has_the_papers_claim_as_its_mutant():
    """docs/findings.md convention: the prediction is the finding, the mutant is the paper's claim."""
    for chk in all_checks().values():
        if chk.finding:
            assert "paper" in chk.mutant, f"{chk.id}: the mutant of a finding check states the paper's claim"


@pytest.mark.full
@pytest.mark.parametrize("check_id", FULL_ONLY)
def test_full_check_mutant_is_caught(check_id):
    real, mutant = _run_pair(check_id)
    assert real.status is not Status.ERROR, real.details.get("traceback")
    assert real.status in (Status.VERIFIED, Status.INCONCLUSIVE), f"real check refuted: {real.message}"
    assert mutant.status is Status.REFUTED, mutant.message


def test_every_check_points_to_a_statement_and_every_statement_is_covered_or_explained():
    statements = all_statements()
    for chk in all_checks().values():
        assert chk.statement in statements, f"{chk.id} refers to unknown statement {chk.statement}"
        assert chk.id.startswith(chk.statement + "."), f"{chk.id} should start with {chk.statement}."
    covered = {c.statement for c in all_checks().values()}
    for st in statements.values():
        assert st.id in covered or st.not_checkable_reason, f"{st.id}: no check and no reason"


def test_balancedness_checks_verified():
    for cid in ("A.lemF.1.symbolic", "B.lem1.gd_step_identity", "B.lem1.flow_across_events", "C.prop1.flow_across_events"):
        assert run_check(get_check(cid)).status is Status.VERIFIED


def test_crash_becomes_error_record_and_exit_code_2():
    from relucheck.proofs_checks.registry import Check

    def boom(ctx):
        raise RuntimeError("kaboom")

    rec = run_check(Check("C.prop1.boom", "C.prop1", boom, "none"))
    assert rec.status is Status.ERROR and "kaboom" in rec.message
    assert exit_code([rec]) == 2
    json.dumps(rec.to_json())


def test_unknown_check_id():
    with pytest.raises(KeyError, match="unknown check id"):
        get_check("C.nope")
    with pytest.raises(ValueError, match="unknown suite"):
        select("weekly")


def test_require_refutes_on_a_failed_further_condition():
    from relucheck.proofs_checks.result import Outcome, agree

    ok = agree(1.0, 1.0, 0.1, "exact").require(True, "never shown")
    assert ok.status is Status.VERIFIED and "never shown" not in ok.message
    bad = agree(1.0, 1.0, 0.1, "exact").require(False, "the ordering fails")
    assert bad.status is Status.REFUTED and bad.message.endswith("; the ordering fails")
    err = Outcome(Status.ERROR, None, None, None, "", "crash").require(False, "x")
    assert err.status is Status.ERROR


def _record(cid, status, finding="", mutant=False):
    from relucheck.proofs_checks.result import CheckResult

    return CheckResult(cid + (".mutant" if mutant else ""), "B.lem7", "B", status, 1, 2, 0, "r", "float64", 0, 0.0, {},
                       f"message of {cid}", mutant=mutant, check=cid, caught=(status is Status.REFUTED) if mutant else None,
                       finding=finding)


def test_summary_counts_findings_apart_and_reports_a_finding_that_did_not_reproduce(tmp_path):
    from relucheck.proofs_checks.report import summary_line, write_results

    records = [_record("B.lem7.a", Status.VERIFIED), _record("B.lem7.f1", Status.VERIFIED, "claim one is false."),
               _record("B.lem7.f1", Status.REFUTED, mutant=True), _record("B.lem7.f2", Status.VERIFIED, "claim two."),
               _record("B.lem7.f3", Status.REFUTED, "claim three."), _record("B.lem7.i", Status.INCONCLUSIVE)]
    line = summary_line(records)
    assert line == "1 verified, 2 paper's claims refuted (findings), 1 refuted, 1 inconclusive; mutants caught: 1/1"
    assert summary_line(records[:2]) == "1 verified, 1 paper's claim refuted (finding)"
    write_results(records, tmp_path)
    report = (tmp_path / "report.md").read_text()
    top = report[:report.index("| check |")]
    assert "`B.lem7.f1` (statement `B.lem7`): claim one is false. Evidence: message of B.lem7.f1" in top
    assert "`B.lem7.f3`: did NOT reproduce (refuted)" in top and "B.lem7.a`" not in top
    assert "| `B.lem7.f1` | verified: paper's claim refuted (finding) |" in report
    assert json.loads((tmp_path / "results.json").read_text())[1]["finding"] == "claim one is false."
    assert exit_code(records) == 1  # the refuted finding check: its finding no longer reproduces


@pytest.mark.parametrize("measured, bound, side, slack, status, text", [
    (0.41, 0.5, "<=", 0.0, Status.VERIFIED, "measured 0.41 ≤ bound 0.5 (margin 0.09)"),
    (0.62, 0.5, "<=", 0.0, Status.REFUTED, "measured 0.62 > bound 0.5 (margin -0.12)"),
    (0.5, 0.41, ">=", 0.0, Status.VERIFIED, "measured 0.5 ≥ bound 0.41 (margin 0.09)"),
    (0.505, 0.5, "<=", 0.01, Status.VERIFIED, "measured 0.505 ≤ bound 0.5 + slack 0.01 (margin 0.005)"),
    ([0.3, 0.45, 0.2], 0.5, "<=", 0.0, Status.VERIFIED, "tightest of 3: measured 0.45 ≤ bound 0.5 (margin 0.05)"),
    ([0.3, 0.1], [0.2, 0.5], ">=", 0.0, Status.REFUTED, "tightest of 2: measured 0.1 < bound 0.5 (margin -0.4)"),
    (float("nan"), 0.5, "<=", 0.0, Status.INCONCLUSIVE, "measured nan vs bound 0.5: not comparable (NaN)"),
    ([], 0.5, "<=", 0.0, Status.INCONCLUSIVE, "no measured value"),
])
def test_bounds_show_the_comparison_and_the_signed_margin(measured, bound, side, slack, status, text):
    from relucheck.proofs_checks.result import within_bound

    out = within_bound(measured, bound, "reason", side=side, slack=slack)
    assert out.status is status and out.message.startswith(text), out.message
    assert "excess" not in out.message


@pytest.mark.parametrize("tolerance", [math.inf, -1e-9, math.nan, "0.1", None, True])
def test_agree_refuses_a_tolerance_that_is_no_promise(tolerance):
    # inf verified 1 against 1e300; a negative tolerance refuted everything (found by the red team)
    with pytest.raises(ValueError, match="finite number ≥ 0"):
        agree(1.0, 1e300, tolerance, "reason")
