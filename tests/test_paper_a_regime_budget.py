"""Paper A regime runs (issue 23, s29): the extended budget for runs still moving, and the journal's code key that
leaves out what does not compute a run."""
import pytest

from relucheck.numerics import paper_a_regime as regime
from relucheck.numerics import paper_a_verdicts as V
from relucheck.numerics.errors import RelucheckInputError

# A short base budget under which d = 2, n = 6, seed 1 (m = 16) is still moving at t = 300 (L/L_OLS = 0.0012) and
# settles by t ≈ 2200 (measured: `regime_batch(2, 16, [(6, 1)], max_steps=30000, max_time=3000.0)`).
BASE = dict(max_steps=3000, max_time=300.0)
LONGER = dict(max_steps=30_000, max_time=3000.0)


def test_an_extended_budget_may_only_raise_the_budget():
    V.check_extension(regime.REGIME_PROTOCOL, V.EXTENDED_BUDGET)
    with pytest.raises(RelucheckInputError, match="rel_tol"):  # a looser rule would change what "decided" means
        V.check_extension(regime.REGIME_PROTOCOL, dict(V.EXTENDED_BUDGET, rel_tol=0.05))
    with pytest.raises(RelucheckInputError, match="max_time"):
        V.check_extension(regime.REGIME_PROTOCOL, dict(max_time=1000.0))


def test_extended_budget_decides_moving_runs_as_a_run_with_that_budget(tmp_path):
    path, seeds = tmp_path / "r.jsonl", (1,)
    rows0, pv0 = V.regime_sweep(path, {2: 6}, seeds, progress=False, extended_budget=LONGER, **BASE)
    moving = [r for r in rows0 if V.run_verdict(r) == "undecided"]
    assert moving and all(r["budget"] == "base" for r in rows0)
    assert pv0[(2, 6)]["verdict"] == "inconclusive"
    decided0 = {(r["n"], r["m"]): r["ratio"] for r in rows0 if V.run_verdict(r) != "undecided"}
    rows1, pv1 = V.regime_sweep(path, {2: 6}, seeds, progress=False, extend={2: 6}, extended_budget=LONGER, **BASE)
    by = {(r["n"], r["m"]): r for r in rows1}
    for r in moving:  # every run that was moving was rerun with the longer budget …
        assert by[(r["n"], r["m"])]["budget"] == "extended"
    for key, ratio in decided0.items():  # … and only those
        assert by[key]["budget"] == "base" and by[key]["ratio"] == ratio
    assert pv1[(2, 6)]["verdict"] != "inconclusive", pv1[(2, 6)]
    # an extended run is the run one would get with that budget from the start (same rule, same data)
    direct = {r["m"]: r for r in regime.regime_batch(2, 16, [(6, 1)], **{**BASE, **LONGER})}
    ext = by[(6, 16)]
    assert ext["budget"] == "extended" and ext["status"] == direct[16]["status"]
    assert abs(ext["ratio"] - direct[16]["ratio"]) <= 1e-6 * direct[16]["ratio"]
    # mutant: a merge that lets the base row win again leaves the point where it was
    base = regime.RegimeJournal(path, progress=False, **BASE).rows()
    longer = regime.RegimeJournal(path, progress=False, **{**BASE, **LONGER}).rows()
    assert V.point_verdicts(V.merge_budgets(base, longer), seeds) == pv1
    mutant = V.point_verdicts(V.merge_budgets(longer, base), seeds)
    assert mutant[(2, 6)]["verdict"] == "inconclusive"
    # nothing is rerun once extended: no request is left
    assert not V.extension_requests(2, V.regime_grid(2, 6), seeds, rows1)


def test_code_key_leaves_out_the_journal_and_the_other_sweep():
    src = ("import os\n\n\ndef regime_batch(x):\n    return x + 1\n\n\nclass RegimeJournal:\n    def ensure(self):\n"
           "        return 1\n\n\ndef threshold_sweep():\n    return 2\n")
    assert regime._code_of(src) == regime._code_of(src.replace("return 1", "return 3").replace("return 2", "return 4"))
    assert regime._code_of(src) != regime._code_of(src.replace("x + 1", "x + 2"))  # the run's code is in the key
    texts = {rel: (regime.Path(regime.__file__).resolve().parent.parent / rel).read_text() for rel in regime.RUN_FILES}
    assert regime.run_code(texts.__getitem__) == regime.run_code()
    changed = dict(texts)
    changed["numerics/paper_a_regime.py"] = changed["numerics/paper_a_regime.py"].replace("CONFIRM = 3.0", "CONFIRM = 2.0")
    assert regime.run_code(changed.__getitem__) != regime.run_code()
