"""A new user's red-team of `relucheck limit` (issue 24), from a clean clone.

Found: on an orthonormal instance of my own (n = 8, d = 9, m = 6, seed 7775 below) every rung of the default
ladder had the same three jumps, same neurons, same fitted data, same order, and Algorithm 1 agrees; yet
`relucheck limit` said "inconclusive: jump 2 differs across the ladder" (exit 3). At ln(1/λ) = 3000 the float64
flow's bound on jumps 2 and 3 is 0.1 (a bound inherited from an earlier event); the jumps are 0.078 apart, so
`_ordered` took them for simultaneous and sorted them by neuron (2 before 4), against the time order (4 before 2)
of the other rungs. The fix orders simultaneous jumps by their median time over the ladder, then by neuron.
"""
from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pytest


def _run(jumps, errors):
    from relucheck.numerics.flows import Jump

    return NS(jumps=[Jump(t, n, f) for t, n, f in jumps], errors={"jumps": list(errors)})


def test_jumps_grouped_by_a_large_engine_bound_at_one_rung_keep_the_ladder_order():
    """The numbers of the seed-7775 instance (time, neuron, fitted data at each rung; engine bounds as measured)."""
    from relucheck.numerics.lambda_limit import _matched, _ordered, _rank

    a, b, c = (5, (0, 2, 5, 6, 7)), (4, (4,)), (2, (1, 3))
    ladder = {100: (2.655551, 2.922362, 3.014367), 300: (2.639873, 2.916856, 2.999021),
              1000: (2.634248, 2.914890, 2.993649), 3000: (2.632640, 2.914328, 2.992115)}
    runs = []
    for L, (ta, tb, tc) in ladder.items():
        errs = [4e-10] * 3 if L < 3000 else [3.6e-10, 0.10043477190305326, 0.10043477191151676]
        runs.append(_run([(ta, *a), (tb, *b), (tc, *c)], errs))
    rank = _rank(runs)
    assert _matched([_ordered(r, rank) for r in runs]) == (3, "")


def test_simultaneous_jumps_still_match_in_any_listed_order_and_a_real_swap_is_still_caught():
    from relucheck.numerics.lambda_limit import _matched, _ordered, _rank

    same = [_run([(1.0, 2, (0,)), (1.0, 1, (0,)), (3.0, 0, (0,))], [1e-10] * 3),
            _run([(0.9, 1, (0,)), (0.9, 2, (0,)), (2.9, 0, (0,))], [1e-10] * 3)]
    assert _matched([_ordered(r, _rank(same)) for r in same]) == (3, "")
    apart = [_run([(1.0, 2, (0,)), (1.1, 1, (0,))], [1e-10] * 2), _run([(0.9, 1, (0,)), (1.0, 2, (0,))], [1e-10] * 2)]
    k, why = _matched([_ordered(r, _rank(apart)) for r in apart])
    assert k == 0 and "differs across the ladder" in why


def _orthonormal(n, d, m, seed):
    """The new user's generator: Haar-rotated orthonormal inputs, labels ±U(0.4, 2.5), mixed signs."""
    r = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(r.standard_normal((d, d)))
    y = r.choice([-1, 1], n) * r.uniform(0.4, 2.5, n)
    W = r.standard_normal((m, d))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    s = r.choice([-1, 1], m)
    if len(set(s)) == 1:
        s[0] = -s[0]
    return {"inputs": Q[:n].tolist(), "labels": y.tolist(), "directions": W.tolist(), "signs": [int(v) for v in s]}


@pytest.mark.parametrize("n, d, m, seed", [(8, 9, 6, 7775), (7, 7, 5, 7778)])
def test_orthonormal_n7_m5_bars_are_under_1e_3_and_cover_algorithm_1(n, d, m, seed):
    """End to end on two of the new user's n ≥ 7, m ≥ 5 instances (o5, o8): conclusive, same neurons and fitted data as
    Algorithm 1 (exact, SymPy), every bar covers its exact τ_k and is under 1e-3 (before the reruns at other
    tolerances, `numerics.limit_reruns`: 0.35–0.56 from the engine's inherited bound). About 5 s CPU each."""
    import relucheck

    from relucheck.numerics.instances import Instance
    from relucheck.theory.limit_process_exact import limit_process_exact

    inst = Instance(**_orthonormal(n, d, m, seed))
    res = relucheck.limit(inst)
    exact = limit_process_exact(inst.labels.tolist(), inst.signs.tolist(), inst.activation())
    assert not exact.ties and len(res.jumps) == len(exact.jumps) == 3
    for est, jump in zip(res.jumps, exact.jumps):
        assert est.ok, est.reason
        assert (est.neuron, list(est.fitted)) == (jump.neuron, list(jump.fitted))
        assert abs(est.value - float(jump.tau)) <= est.error < 1e-3, (est.value, float(jump.tau), est.error)


# -- --plot (found: an unwritable path failed only after the whole ladder, without naming --plot; a spent budget with
#    --plot was an internal error, exit 2, instead of inconclusive, exit 3) -----------------------------------------

def _golden(tmp_path):
    from relucheck.proofs_checks.checks.paper_c_instances import golden_instance

    path = tmp_path / "golden.json"
    golden_instance().save(path)
    return path


@pytest.mark.parametrize("where", ["file/fig.pdf", "dir"])
def test_an_unusable_plot_path_is_refused_before_any_flow(tmp_path, capsys, monkeypatch, where):
    from relucheck.numerics import lambda_limit
    from relucheck.proofs_checks.cli import main

    path = _golden(tmp_path)
    (tmp_path / "file").write_text("")
    (tmp_path / "dir").mkdir()
    monkeypatch.setattr(lambda_limit, "limit_of", lambda *a, **k: pytest.fail("a flow ran before --plot was checked"))
    assert main(["limit", str(path), "--plot", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_plot_with_a_spent_budget_is_inconclusive_not_an_internal_error(tmp_path, capsys):
    from relucheck.proofs_checks.cli import main

    path = _golden(tmp_path)
    assert main(["limit", str(path), "--budget", "0.05", "--plot", str(tmp_path / "fig.pdf")]) == 3
    err = capsys.readouterr().err
    assert "internal error" not in err and "no figure written" in err


def test_overlapping_wide_bars_are_not_called_a_coincidence():
    """Found: after the order fix, the seed-7775 instance's jumps 1 and 2 (2.632 ± 4e-8 and 2.914 ± 0.35, the latter
    the engine's inherited bound) were reported as "coincide in the limit": they are 0.28 apart, only not separated
    by the bars. The plateau stays inconclusive; the reason says what is known."""
    from relucheck.numerics.lambda_limit import _extrapolated

    runs = []
    for L in (100.0, 300.0, 1000.0, 3000.0):
        jumps = [(1.0 + 1.0 / L, 0, (0,)), (1.3 + 2.0 / L, 1, (1,))]
        run = _run(jumps, [1e-10, 1e-10] if L < 3000 else [1e-10, 0.2])
        run.log_inv_lambda, run.plateaus = L, [1.0, 0.5, 0.2]
        run.errors["plateaus"] = [1e-10] * 3
        runs.append(run)
    result = _extrapolated(runs, [], 0.0)
    assert all(j.ok for j in result.jumps) and result.jumps[1].error > 0.3
    reason = result.plateaus[1].reason
    assert not result.plateaus[1].ok and "not separated by their error bars" in reason and "1.3" in reason


def test_orthonormal_jumps_beyond_the_default_horizon_are_followed(tmp_path, capsys):
    """Found: labels of size 1e-6 (Algorithm 1's jumps at τ ≈ 1.8e6 and 9.5e6) gave "success", exit 0, with no jump:
    the ladder's flows settled "before the maximal horizon" 100. On orthonormal data the flows now run to
    twice Algorithm 1's last jump + 1; here labels of size 1e-3 (jumps near 1.8e3, 5.4e3)."""
    import json

    from relucheck.numerics.instances import Instance
    from relucheck.proofs_checks.cli import main
    from relucheck.theory.limit_process import limit_process_of

    data = _orthonormal(3, 4, 2, 7771)
    data["labels"] = [1e-3 * v for v in data["labels"]]
    inst = Instance(**data)
    alg = limit_process_of(inst)
    assert alg.jumps[0].tau > 1000
    path = tmp_path / "small.json"
    inst.save(path)
    code = main(["limit", str(path), "--ladder", "50,100,200,400", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["stats"]["max_horizon"] == pytest.approx(2 * alg.jumps[-1].tau + 1)
    assert len(out["jumps"]) == len(alg.jumps), "jumps beyond τ = 100 were not looked for"
    assert code == (0 if out["status"] == "success" else 3)
    for est, jump in zip(out["jumps"], alg.jumps):
        assert est["status"] != "ok" or abs(est["value"] - jump.tau) <= est["error"]


# -- engine bounds: a rung whose bound is above the target is rerun at other tolerances (found: on the new user's
#    orthonormal n ≥ 7, m ≥ 5 instances 7 of 20 bars were 0.35–0.56, all the float64 engine's inherited bound at
#    rtol 1e-10, while --rtol 1e-8 gave bounds under 1e-4) -----------------------------------------------------------

class _StandIn:
    """A float64 engine stand-in: jumps 1 + 1/L (neuron 0) and 2 + 3/L (neuron 1), plateaus 1, 0.5, 0.1. At the rung
    L = 3000 and the default rtol 1e-10 jump 2's bound is 0.3 (as an inherited event bound); at rtol 1e-8 it is 1e-9
    and its value is ``shift`` away (0: the runs agree; 0.5: they disagree beyond their bounds)."""

    def __init__(self, shift):
        self.shift, self.calls = shift, []

    def __call__(self, problem, engine, **opts):
        from relucheck.numerics.flows import Jump, Status

        L, rtol = problem, opts.get("rtol", 1e-10)
        self.calls.append((L, rtol))
        wide = L == 3000.0 and rtol == 1e-10
        tau2 = 2.0 + 3.0 / L + (self.shift if L == 3000.0 and rtol == 1e-8 else 0.0)
        run = NS(status=Status.SETTLED, success=True, message="settled", engine="float64",
                 jumps=[Jump(1.0 + 1.0 / L, 0, (0,)), Jump(tau2, 1, (1,))], plateaus=[1.0, 0.5, 0.1],
                 errors={"jumps": [1e-10, 0.3 if wide else 1e-9], "plateaus": [1e-10] * 3}, log_inv_lambda=L)
        return run


def _limit_with(monkeypatch, stand_in):
    from relucheck.numerics import flows, lambda_limit

    monkeypatch.setattr(flows, "solve", stand_in)
    return lambda_limit.limit_of(lambda lam: float(round(-float(__import__("mpmath").log(lam)))),
                                 (100.0, 300.0, 1000.0, 3000.0), extend_to=3000.0)


def test_a_rung_with_a_large_engine_bound_is_rerun_and_the_smaller_agreeing_bound_is_kept(monkeypatch):
    stand_in = _StandIn(shift=0.0)
    result = _limit_with(monkeypatch, stand_in)
    assert result.success, result.message
    assert all(j.ok and j.error < 1e-3 for j in result.jumps)
    assert abs(result.jumps[1].value - 2.0) <= result.jumps[1].error
    # only the rung that needs it pays: one rerun (1e-8 suffices), at L = 3000
    assert stand_in.calls == [(100.0, 1e-10), (300.0, 1e-10), (1000.0, 1e-10), (3000.0, 1e-10), (3000.0, 1e-8)]
    rung = result.ladder[-1]
    assert rung["rtol"] == 1e-10 and "engine_reruns" not in result.ladder[0]
    used = rung["engine_reruns"]["rtol_used"]
    assert used["jumps"] == [{"neuron": 0, "rtol": 1e-10}, {"neuron": 1, "rtol": 1e-8}]


def test_reruns_that_disagree_beyond_their_bounds_make_the_quantity_inconclusive(monkeypatch):
    stand_in = _StandIn(shift=0.5)  # 0.5 apart against bounds 0.3 + 1e-9: one bound is wrong
    result = _limit_with(monkeypatch, stand_in)
    assert not result.success
    assert result.jumps[0].ok and not result.jumps[1].ok and result.jumps[1].value is None
    reason = result.jumps[1].reason
    assert "disagree beyond their stated bounds" in reason and "1e-08" in reason and "ln(1/λ) = 3000" in reason
    assert result.ladder[-1]["engine_reruns"]["disagreements"]


def test_a_rerun_that_does_not_succeed_is_left_out_and_the_next_tolerance_is_tried(monkeypatch):
    from relucheck.numerics.flows import Status

    class Failing(_StandIn):
        def __call__(self, problem, engine, **opts):
            run = super().__call__(problem, engine, **opts)
            if opts.get("rtol") == 1e-8:  # its own check did not vouch for it
                run.status, run.success, run.message = Status.TOLERANCE, False, "the check run chattered"
            elif opts.get("rtol") == 1e-6:
                run.errors = {"jumps": [1e-7, 1e-7], "plateaus": [1e-7] * 3}
            return run

    stand_in = Failing(shift=0.0)
    result = _limit_with(monkeypatch, stand_in)
    assert result.success and result.jumps[1].error < 1e-3
    reruns = result.ladder[-1]["engine_reruns"]["reruns"]
    assert [(r["rtol"], r["used"]) for r in reruns] == [(1e-8, False), (1e-6, True)]
    assert "chattered" in reruns[0]["why_not"]
    assert result.ladder[-1]["engine_reruns"]["rtol_used"]["jumps"][1] == {"neuron": 1, "rtol": 1e-6}
