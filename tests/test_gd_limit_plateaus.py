"""The plateau comparison of `C.def1.gd_limit_general_data_tiny_lambda` (`proofs_checks.checks.gd_limit_plateaus`).

GD's jump lags the flow's by a τ-shift of order η at λ = 1e-1000: a plateau is read only where all three runs sit on
it (`same_plateau`), and a plateau where GD(η/4) agrees with the flow to the flow's stated error is agreement. The
leave-out rule of GD's sign flips (`gd_limit._unreachable`) works per run: GD at η and η/4 may jump different
flipped neurons (seed 2, draw 1). Stand-in runs, no integration.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from relucheck.numerics.flows.result import Jump
from relucheck.proofs_checks.checks import gd_limit
from relucheck.proofs_checks.checks.gd_limit_plateaus import Curve, judge_plateaus, plateau_windows, shared_windows

TAU = np.round(np.arange(0.0, 10.0001, 0.05), 2)


def _curve(jumps, levels, a=(1.0, 1.0, -1.0), flips=None, error=None, wobble=0.0):
    """A run whose loss steps down at each jump (levels: the loss before the first and after each jump) plus a
    wobble (GD's plateau error), with output-weight signs a, flipped before the given τ (flips: neuron → τ)."""
    loss = np.full(TAU.shape, float(levels[0]))
    for (_, t), level in zip(sorted(jumps, key=lambda x: x[1]), levels[1:]):
        loss[TAU >= t] = level
    a = np.array(a, dtype=float)
    track = np.tile(a, (TAU.size, 1))
    for j, at in (flips or {}).items():
        track[TAU < at, j] = -a[j]
    return Curve(loss + wobble, True, "", "test", 1, 1, [Jump(t, j, ()) for j, t in jumps],
                 SimpleNamespace(tau=TAU, a=track), a, 10.0, np.zeros((a.size, 1)),
                 None if error is None else np.full(TAU.shape, error))


def test_plateau_windows_are_middle_halves_between_distinct_jumps():
    assert plateau_windows([2.0, 2.0 + 1e-9, 6.0], 10.0) == [(0.5, 1.5), (3.0, 5.0), (7.0, 9.0)]


def test_a_lagging_gd_jump_is_not_read_as_gd_error():
    """The flow jumps neuron 0 at τ = 2 and 1 at 3; GD at η lags the second by 0.5, at η/4 by 0.125 (first order): the
    short plateau [2, 3] read over the flow's middle half would compare GD still before its jump (seed 4, draw 1). Read
    where all three share it, GD's plateau error (1e-3, 2.5e-4) gives the first-order ratio 1/4."""
    levels = (1.0, 0.5, 0.1)
    flow = _curve([(0, 2.0), (1, 3.0)], levels, error=1e-9)
    coarse = _curve([(0, 2.0), (1, 3.5)], levels, wobble=1e-3)
    fine = _curve([(0, 2.0), (1, 3.125)], levels, wobble=2.5e-4)
    windows = shared_windows(TAU, flow, (coarse, fine), 10.0)
    assert windows[1] == pytest.approx((2.0 + 0.95 / 4, 2.95 - 0.95 / 4))  # the flow drops over the samples 1.95–2, 2.95–3
    assert windows[2][0] >= 3.5  # after GD(η)'s drop, at 3.5
    plateaus = judge_plateaus(TAU, flow, coarse, fine, 10.0, 3, 1e-12)
    assert len(plateaus) == 3 and all(p["ratio"] == pytest.approx(0.25) for p in plateaus)


def test_a_drop_without_a_jump_bounds_a_plateau_too():
    """Seed 12, draw 6: a neuron grows in two stages, so the loss falls 0.541 → 0.465 at τ ≈ 5.5 and the jump rule
    (half the final ‖θ_j‖²) puts the first jump at 7.5; GD makes that drop late by a first-order lag. Plateaus are read
    away from the drops of the loss as well as from the jumps, so the lag is not read as GD's error on the plateau
    before (ratio 0.99 when it was)."""
    def run(drop, wobble):
        c = _curve([(0, 7.5)], (0.541, 0.2), wobble=wobble, error=1e-12)
        c.loss = np.where((TAU >= drop) & (TAU < 7.5), 0.465 + wobble, c.loss)
        return c
    flow, coarse, fine = run(5.5, 0.0), run(5.7, 1e-6), run(5.55, 2.5e-7)
    windows = shared_windows(TAU, flow, (coarse, fine), 10.0)
    assert len(windows) == 3 and windows[0][1] < 5.5 and windows[1][0] > 5.7
    plateaus = judge_plateaus(TAU, flow, coarse, fine, 10.0, 3, 1e-12)
    # read away from every drop and every jump: the plateau between the drop and the jump at 7.5 lies within a quarter
    # of the jump-rule plateau [0, 7.5]'s ends of neither, so it is not read; the ones before and after are, first order
    assert max(p["ratio"] for p in plateaus) == pytest.approx(0.25)
    assert [p["after_drop"] for p in plateaus] == [False, True] and plateaus[0]["window"][1] < 5.5


def test_agreement_to_the_flows_stated_error_is_agreement_and_only_that():
    """GD(η/4) within the flow's stated error on a plateau: agreement (ratio 0), whatever A(η); GD(η/4) beyond it with
    A(η) not: ∞; the mutant's flow (labels × 1.01, loss 1 % off) is beyond any such error."""
    levels = (1.0, 0.5, 0.1)
    flow = _curve([(0, 2.0), (1, 3.0)], levels, error=6e-8)
    coarse, fine = _curve([(0, 2.0), (1, 3.0)], levels, wobble=6.1e-8), _curve([(0, 2.0), (1, 3.0)], levels, wobble=5.9e-8)
    assert all(p["ratio"] == 0.0 for p in judge_plateaus(TAU, flow, coarse, fine, 10.0, 3, 1e-9))
    coarse, fine = _curve([(0, 2.0), (1, 3.0)], levels, wobble=5e-8), _curve([(0, 2.0), (1, 3.0)], levels, wobble=2e-7)
    assert all(p["ratio"] == np.inf for p in judge_plateaus(TAU, flow, coarse, fine, 10.0, 3, 1e-9))
    mutant = _curve([(0, 2.0), (1, 3.0)], tuple(1.0201 * v for v in levels), error=6e-8)
    gd = _curve([(0, 2.0), (1, 3.0)], levels, wobble=1e-4), _curve([(0, 2.0), (1, 3.0)], levels, wobble=2.5e-5)
    assert max(p["ratio"] for p in judge_plateaus(TAU, mutant, *gd, 10.0, 3, 1e-9)) > gd_limit.FIRST_ORDER_RATIO


def test_gd_flipping_and_jumping_different_neurons_at_the_two_steps_is_left_out():
    """Seed 2, draw 1 at λ = 1e-1000: GD flips a_0, a_1, a_2 (τ ≈ 2.5–3.0) and jumps neuron 2 at η, neuron 1 at η/4;
    the flow keeps every sign and jumps 3 and 4. The flips move later at η/4; no reachable quartering undoes it."""
    signs = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
    flow = _curve([(3, 2.856), (4, 2.856)], (1.0, 0.5, 0.3), a=signs)
    gd_a = -signs
    gd_a[3:] = signs[3:]
    coarse = _curve([(3, 2.9), (4, 2.9), (2, 5.0)], (1.0, 0.5, 0.3, 0.2), a=gd_a, flips={0: 2.5, 1: 2.6, 2: 2.7})
    fine = _curve([(3, 2.87), (4, 2.87), (1, 5.2)], (1.0, 0.5, 0.3, 0.2), a=gd_a, flips={0: 2.6, 1: 2.75, 2: 2.8})
    out = gd_limit._unreachable(flow, coarse, fine, signs, 10.0, 1)
    assert out is not None and out["kind"] == "extra" and out["neuron"] == 1
    assert out["gd_flip_tau"] == [2.6, 2.75] and "neurons 2, 1" in out["reason"]
    # the same, but GD at η/4 keeps the sign of the neuron it jumps: not GD's flip, the ladder judges it
    kept = _curve([(3, 2.87), (4, 2.87), (1, 5.2)], (1.0, 0.5, 0.3, 0.2), a=np.where(np.arange(5) == 1, 1.0, gd_a),
                  flips={0: 2.6, 2: 2.8})
    assert gd_limit._unreachable(flow, coarse, kept, signs, 10.0, 1) is None
    # flips that come earlier at η/4 are not the O(η) imbalance's
    early = _curve([(3, 2.87), (4, 2.87), (1, 5.2)], (1.0, 0.5, 0.3, 0.2), a=gd_a, flips={0: 2.4, 1: 2.5, 2: 2.6})
    assert gd_limit._unreachable(flow, coarse, early, signs, 10.0, 1) is None


def test_end_patterns_differ_only_clear_of_the_kinks_on_jumped_neurons():
    """Seed 4, draw 2 at λ = 1e-1000: GD at η = 0.2 and 0.05 jumps the flow's four neurons but ends with neuron 0 off
    datum 1's kink (⟨w_0, x_1⟩ = −0.29; the flow slides there, 0.0) and on datum 5 (+0.12 against −0.20): another
    branch (loss 0.064683 against 0.070046), which the ladder must descend from. A component within KINK of its kink
    (GD chattering where the flow slides) and a neuron that did not jump (its direction is not the flow's choice) do
    not count."""
    from relucheck.proofs_checks.checks.gd_limit_plateaus import final_pattern, same_pattern

    X = np.eye(3)
    flow = SimpleNamespace(W=np.array([[1.0, 0.0, -0.2], [0.5, 0.5, 0.5]]), jumps=[Jump(1.0, 0, ())])
    chatter = SimpleNamespace(W=np.array([[1.0, 0.004, -0.2], [-0.5, 0.5, 0.5]]), jumps=[Jump(1.1, 0, ())])
    other = SimpleNamespace(W=np.array([[1.0, -0.29, 0.12], [0.5, 0.5, 0.5]]), jumps=[Jump(1.1, 0, ())])

    def run(r):
        return SimpleNamespace(pattern=final_pattern(r, X))

    assert final_pattern(flow, X).tolist() == [[1, 0, -1], [0, 0, 0]]
    assert same_pattern(run(chatter), run(flow))
    assert not same_pattern(run(other), run(flow))


def _ladder(seed_runs, mutate=False):
    """`_plateau_draw` on draw 1 (n, d, m = 6, 3, 5) of seed 0 with stand-in runs in the check's cache: the flow, and GD
    at η = 0.2, 0.05, 0.0125 (no integration)."""
    from relucheck.proofs_checks.checks import gd_limit_plateaus as plateaus
    from relucheck.proofs_checks.registry import Context

    flow, gd = seed_runs
    cache = {("tiny-settle", 1): flow, **{("tiny-gd", 1, h): run for h, run in zip((0.2, 0.05, 0.0125), gd)}}
    return plateaus._plateau_draw(Context(seed=0, mutate=mutate, cache=cache), 1, 6, 3, 5)


def _with_pattern(run, pattern):
    run.pattern = np.array(pattern, dtype=float)
    return run


ON, OFF = [[1, 0, -1], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]], [[1, -1, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
JUMPS, LEVELS, SIGNS = [(0, 2.0), (1, 3.0)], (1.0, 0.5, 0.1), (1.0, 1.0, -1.0, 1.0, 1.0)


def _run(pattern, wobble=0.0, levels=LEVELS):
    return _with_pattern(_curve(JUMPS, levels, a=SIGNS, wobble=wobble, error=1e-12), pattern)


def test_a_pair_that_fails_the_law_on_the_flows_branch_descends_and_is_judged_below():
    """Seed 18, draw 4: on a slowly drifting plateau GD's lag and its chattering err in opposite directions and cancel
    at η = 0.2 (A(0.05)/A(0.2) = 1.03); at 0.05 and 0.0125 the law holds. The coarsest pair that follows it is judged."""
    row = _ladder((_run(ON), [_run(ON, 1e-6), _run(ON, 1.03e-6), _run(ON, 0.3e-6)]))
    assert row["step"] == 0.05 and row["same_branch"] and "left_out" not in row
    assert max(p["ratio"] for p in row["plateaus"]) <= 0.3


def test_gd_pairs_on_different_branches_at_the_ladders_end_leave_the_draw_out():
    """Seed 4, draw 2: GD at 0.2 and 0.05 end on another branch than the flow (neuron 0 off a kink it slides on), GD at
    0.0125 on the flow's: GD has not converged at any step of the ladder, and the draw is left out, not refuted."""
    row = _ladder((_run(ON), [_run(OFF, 5e-3, (1.0, 0.5, 0.095)), _run(OFF, 5e-3, (1.0, 0.5, 0.095)), _run(ON, 1e-5)]))
    assert "left_out" in row and "not converged" in row["left_out"] and row["step"] == 0.05


def test_a_flow_off_the_branch_gd_converges_to_is_judged_and_refuted():
    """GD at every step ends on one branch, the flow on another (a wrong flow): the finest pair is judged against it and
    its plateau is off at both steps alike (ratio ≈ 1), a refutation, not a leave-out."""
    gd = [_run(OFF, 0.0, (1.0, 0.5, 0.095)) for _ in range(3)]
    for run, wobble in zip(gd, (4e-4, 1e-4, 2.5e-5)):
        run.loss = run.loss + wobble
    row = _ladder((_run(ON), gd))
    assert "left_out" not in row and not row["same_branch"] and row["step"] == 0.05
    assert max(p["ratio"] for p in row["plateaus"]) > 0.6


def test_a_draw_whose_run_fails_is_left_out_and_replaced(monkeypatch):
    """A run that does not succeed (seed 0, draw 4 of the mutant: mpmath stops at a decision below its working
    precision) is no evidence either way: the draw is left out with the run's message and a fresh draw of its shape
    judged instead; the verdict rests on the judged draws."""
    from relucheck.proofs_checks.checks import gd_limit_plateaus as plateaus
    from relucheck.proofs_checks.registry import Context

    asked = []

    def draw(ctx, k, n, d, m):
        asked.append(k)
        if k == 4:
            return {"draw": [n, d, m], "index": k, "success": False, "message": "mpmath: a sign decision depended on a "
                    "quantity below the working precision"}  # a flow that fails before GD runs: no GD steps
        return {"draw": [n, d, m], "index": k, "success": True, "message": "", "engine": "float64", "step": 0.2,
                "sliding_codimension": 2, "gd_steps": 10, "plateaus": [
                    {"ratio": 0.3, "gd_error": 1e-4, "flow_error": 1e-9, "after_drop": after} for after in (False, True)]}

    monkeypatch.setattr(plateaus, "_plateau_draw", draw)
    out = plateaus.gradient_descent_limit_tiny_lambda(Context(seed=0))
    assert asked == [1, 2, 3, 4, 5] and out.status.value == "verified"
    assert "draw 4: a run did not succeed: mpmath" in out.message
