"""bench.race's agreement logic on the --quick instances (issue 22, item 8): every check agrees on the real runs and
refutes a mutant. No timing is asserted. The heyoka part needs the optional extra relucheck[bench]; without it only
that part is skipped, with its reason."""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/ lives at the repository root, not in the package
from bench import race, race_checks, race_gd, race_heyoka  # noqa: E402
from relucheck.numerics.flows.result import Jump  # noqa: E402

QUICK = dataclasses.replace(race.QUICK, rounds=1)


def test_jump_agreement_refutes_a_shifted_time_and_another_neuron():
    jumps = {0: 1.25, 3: 2.5}
    assert race_checks.jump_agreement(jumps, dict(jumps)).ok
    assert not race_checks.jump_agreement(jumps, {0: 1.25, 3: 2.5 + 2 * race_checks.JUMP_TOL}).ok
    assert not race_checks.jump_agreement(jumps, {0: 1.25, 2: 2.5}).ok
    assert not race_checks.jump_agreement({}, {}).ok


def test_jump_order_agreement_refutes_another_order():
    first = [Jump(1.0, 2, ()), Jump(2.0, 0, ())]
    assert race_checks.jump_order_agreement(first, [Jump(1.1, 2, ()), Jump(2.2, 0, ())]).ok
    assert not race_checks.jump_order_agreement(first, [Jump(1.0, 0, ()), Jump(2.0, 2, ())]).ok
    # jumps within the tie tolerance are simultaneous, in either order; one apart by more is ordered
    together = [Jump(12.350253126203445, 3, ()), Jump(12.350253126203446, 0, ())]
    assert race_checks.jump_order_agreement(together, [Jump(12.38, 0, ()), Jump(12.38, 3, ())]).ok
    assert not race_checks.jump_order_agreement(together, [Jump(12.38, 0, ()), Jump(12.39, 3, ())]).ok


def test_loss_agreement_refutes_an_offset_and_nan():
    flow = [0.5, 0.2, 0.01]
    assert race_checks.loss_agreement(flow, [v + 0.5 * race_checks.LOSS_TOL for v in flow]).ok
    assert not race_checks.loss_agreement(flow, [0.5, 0.2 + 2 * race_checks.LOSS_TOL, 0.01]).ok
    assert not race_checks.loss_agreement(flow, [0.5, math.nan, 0.01]).ok
    assert not race_checks.loss_agreement(flow, flow[:2]).ok


def test_event_agreement_accepts_only_rounding_level_extras():
    ours = {(0, 1): 1.0, (2, 3): 4.0}
    theirs = {(0, 1): 1.0}
    band = 1e-14
    assert race_checks.event_agreement(ours, theirs, [4.0], {(2, 3): 1e-17}, band).ok
    assert not race_checks.event_agreement(ours, theirs, [4.0], {(2, 3): 1e-3}, band).ok  # heyoka's component is not ~0
    assert not race_checks.event_agreement(ours, theirs, [], {(2, 3): 1e-17}, band).ok  # no near tie there
    assert not race_checks.event_agreement(theirs, ours, [4.0], {}, band).ok  # heyoka found one relucheck did not
    assert not race_checks.event_agreement(ours, {(0, 1): 1.1, (2, 3): 4.0}, [], {}, band).ok  # a time off


def test_quick_general_race_agrees_and_gd_on_other_labels_is_refuted():
    lines = []
    out = race.general_race(QUICK, QUICK.seed, lines.append)
    for lam in race.LAMBDAS:
        assert out[lam].ok, "\n".join(lines)
        assert all(np.isfinite(out[f"gd_ratio {lam}"]))
    assert out["tiny"].ok and all(np.isfinite(out["tiny_ratio"])), "\n".join(lines)
    # mutant: GD on labels × 1.1 at the step the race chose is refuted at the same points
    inst = race.random_general_instance(*QUICK.general, QUICK.seed)
    flow = race.solve(race.FlowProblem.from_instance(inst, "1e-10", horizon=None, max_horizon=QUICK.max_horizon), "float64")
    points = race.comparison_points([jp.tau for jp in flow.jumps], flow.end, flow.log_inv_lambda)
    ref = list(np.interp(points, flow.trajectory.tau, flow.trajectory.loss))
    eta, agreement, _ = race_gd.choose_step(inst, "1e-10", flow.log_inv_lambda, flow.end, points, ref)
    assert eta and agreement.ok
    wrong = dataclasses.replace(inst, labels=inst.labels * 1.1)
    losses, _ = race_gd.run(wrong, "1e-10", flow.log_inv_lambda, eta, flow.end)
    assert not race_checks.loss_agreement(ref, race_gd.losses_at(losses, eta, flow.log_inv_lambda, points)).ok


def test_quick_orthonormal_race_without_heyoka_says_so(monkeypatch):
    monkeypatch.setattr(race_heyoka, "available", lambda: None)
    lines = []
    out = race.orthonormal_race(QUICK, QUICK.seed, lines.append)
    assert out["relucheck_status"] == "SUCCESS"
    assert all(np.isfinite(out["floor_ratio"]))
    assert any("heyoka: SKIPPED, heyoka is not installed" in line for line in lines)
    assert "heyoka_ratio" not in out


def test_quick_orthonormal_race_agrees_with_heyoka_and_a_wrong_lambda_is_refuted():
    if race_heyoka.available() is None:
        pytest.skip("heyoka is not installed (optional extra: pip install 'relucheck[bench]'); the relucheck-vs-heyoka "
                    "agreement of bench.race is not tested here")
    lines = []
    out = race.orthonormal_race(QUICK, QUICK.seed, lines.append)
    assert out["jumps"].ok and out["events"].ok, "\n".join(lines)
    # mutant: heyoka started at λ = 1e-30 instead of 1e-40 (jump times move by O(1/ln(1/λ)))
    inst = race.orthonormal_instance(QUICK.seed, *QUICK.ortho)
    lp = race.limit_process_of(inst)
    horizon = lp.jumps[-1].tau + 0.5
    ours = race.solve(race.FlowProblem.from_instance(inst, "1e-40", horizon=horizon), "float64")
    L = math.log(1e30)
    model = race_heyoka.build(inst, L, race.HEYOKA_TOL)
    hey = race_heyoka.finish(model, inst, L, *race_heyoka.integrate(model, horizon))
    assert not race_checks.jump_agreement({j.neuron: j.tau for j in ours.jumps}, {j.neuron: j.tau for j in hey.jumps}).ok


def test_bad_rounds_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        race.main(["--quick", "--rounds", "0"])
    assert exc.value.code == 2
    assert "--rounds must be ≥ 1" in capsys.readouterr().err
