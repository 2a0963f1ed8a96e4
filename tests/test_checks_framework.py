"""The check framework: every registered check verifies and its mutant is refuted; registry integrity."""
import json

import pytest

from relucheck.proofs_checks.registry import all_checks, get_check, select
from relucheck.proofs_checks.result import Status
from relucheck.proofs_checks.runner import exit_code, run_check, run_checks
from relucheck.theory.statements import all_statements

DEFAULT = [c.id for c in select("default")]
FULL_ONLY = [c.id for c in select("full") if "default" not in c.suites]


def _run_pair(check_id):
    chk = get_check(check_id)
    records = run_checks([chk], seed=0, mutate=True, progress=False)
    return records[0], records[1]


@pytest.mark.parametrize("check_id", DEFAULT)
def test_default_check_passes_and_its_mutant_is_caught(check_id):
    real, mutant = _run_pair(check_id)
    assert real.status in (Status.VERIFIED, Status.INCONCLUSIVE, Status.REFUTED), real.message
    assert real.status is not Status.ERROR, real.details.get("traceback")
    assert mutant.mutant and mutant.check == check_id
    assert mutant.status is Status.REFUTED and mutant.caught, f"mutant not caught: {mutant.message}"
    assert real.tolerance_reason, "every tolerance states its reason"


@pytest.mark.full
@pytest.mark.parametrize("check_id", FULL_ONLY)
def test_full_check_mutant_is_caught(check_id):
    real, mutant = _run_pair(check_id)
    assert real.status is not Status.ERROR, real.details.get("traceback")
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
