"""`C.def1.gd_limit_general_data` does not depend on the seed (issue 20): the check holds and its mutant is refuted on
seeds 0–20 (the 21-seed sweep is `full`; seeds 1–3 run by default, seed 1 being the draw where a fixed step η = 0.04
let GD take another branch than the flow, and seed 0 running in the default suite's session run).

The step is derived from each draw (`proofs_checks.checks.gd_limit`): below the stability limit and small enough that
GD jumps with the flow's neurons. The sharpness bound it uses is checked against finite differences of the gradient.
The rule that leaves out a draw on which GD flips a neuron's sign that the flow keeps (`_unreachable`) is tested
on the figures of seed 1, draw 0 at λ = 1e-40 and on variations that it must not leave out.
"""
import numpy as np
import pytest

from relucheck.numerics import network
from relucheck.proofs_checks.checks import gd_limit
from relucheck.proofs_checks.registry import get_check
from relucheck.proofs_checks.result import Outcome, Status
from relucheck.proofs_checks.runner import run_checks

CHECK = "C.def1.gd_limit_general_data"


def _pair(seed):
    real, mutant = run_checks([get_check(CHECK)], seed=seed, mutate=True, progress=False)
    assert real.status is Status.VERIFIED, f"seed {seed}: {real.message}"
    assert mutant.status is Status.REFUTED and mutant.caught, f"seed {seed}: mutant not caught: {mutant.message}"
    return real


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_holds_and_its_mutant_is_refuted_on_seeds_1_to_3(seed):
    _pair(seed)


def test_seed_1_descends_to_the_flows_branch_on_draw_0():
    """On seed 1, draw 0, GD at η = 0.04 and 0.01 lets neuron 0 jump, the flow does not: the check's step is smaller
    there, both GD runs jump with the flow's neurons, and the other draws keep the top step."""
    rows = _pair(1).details["draws"]
    assert rows[0]["step"] < gd_limit.STEP / 4 and rows[0]["gd_jumped"] == rows[0]["flow_jumped"]
    assert all(row["same_branch"] for row in rows)
    assert all(row["step"] == gd_limit.STEP for row in rows[1:])
    assert all(row["step"] * 2 / row["stability_limit"] <= gd_limit.STABILITY_PRODUCT for row in rows)


@pytest.mark.full
@pytest.mark.parametrize("seed", range(21))
def test_holds_and_its_mutant_is_refuted_on_seeds_0_to_20(seed):
    _pair(seed)


def _loss(X, y, theta, m):
    a, W = theta[:m], theta[m:].reshape(m, -1)
    return float(network.loss(X, y, a, W))


def _hessian(X, y, a, W, h=1e-4):
    """∇²L by central differences (exact up to rounding for L quadratic in each coordinate pair on a fixed pattern)."""
    m, theta = len(a), np.concatenate([a, W.ravel()])
    p = theta.size
    H = np.empty((p, p))
    for i in range(p):
        for j in range(p):
            e_i, e_j = np.eye(p)[i] * h, np.eye(p)[j] * h
            H[i, j] = (_loss(X, y, theta + e_i + e_j, m) - _loss(X, y, theta + e_i - e_j, m)
                       - _loss(X, y, theta - e_i + e_j, m) + _loss(X, y, theta - e_i - e_j, m)) / (4 * h * h)
    return (H + H.T) / 2


@pytest.mark.parametrize("n, d, m", [(4, 3, 2), (7, 5, 4), (3, 2, 6)])
def test_sharpness_bound_holds_and_is_exact_at_zero_residual(n, d, m):
    """At random states away from every kink: the bound is ≥ the Hessian's largest eigenvalue, and equal to it where
    the residuals vanish (labels = the network's outputs: ∇²L = JᵀJ/n, the residual term is 0)."""
    rng = np.random.default_rng(n * 100 + d * 10 + m)
    X, y = rng.normal(size=(n, d)), rng.normal(size=n)
    a, W = rng.normal(size=m), rng.normal(size=(m, d))
    assert np.abs(X @ W.T).min() > 1e-3, "a state away from every kink (the pattern is fixed within h)"
    tolerance = 1e-5  # central differences at h = 1e-4 of a polynomial of degree 4: rounding ≈ 1e-16/h² = 1e-8, ×1000
    assert np.linalg.eigvalsh(_hessian(X, y, a, W))[-1] <= gd_limit.sharpness_bound(X, y, a, W) + tolerance
    fitted = network.forward(X, a, W)
    assert np.linalg.eigvalsh(_hessian(X, fitted, a, W))[-1] == pytest.approx(
        gd_limit.sharpness_bound(X, fitted, a, W), abs=tolerance)


def _run(jumps, a, flips=None):
    """A stand-in run: its jumps, final output weights, and (``flips``: neuron → τ) a trajectory of output weights
    on τ = 0, 0.01, …, 30 with the final signs from the given τ on and the initial sign (that of ``a`` where no
    flip is given) before."""
    from types import SimpleNamespace

    from relucheck.numerics.flows.result import Jump
    a = np.array(a, dtype=float)
    tau = np.round(np.arange(0.0, 30.005, 0.01), 2)
    track = np.tile(a, (tau.size, 1))
    for j, at in (flips or {}).items():
        track[tau < at, j] = -a[j]
    return SimpleNamespace(jumps=[Jump(t, j, ()) for j, t in jumps], a=a, trajectory=SimpleNamespace(tau=tau, a=track))


@pytest.mark.parametrize("case, expected", [
    ("flip", 0), ("flow_flipped_too", None), ("gd_kept_sign", None), ("moves_fast", None), ("moves_earlier", None),
    ("missed_earlier_jump", None)])
def test_unreachable_leaves_out_only_a_gd_sign_flip_no_step_of_the_ladder_undoes(case, expected):
    """`gd_limit._unreachable` on the figures of seed 1, draw 0 at λ = 1e-40 (GD flips a_0 at τ ≈ 0.43, 0.51 and jumps
    neuron 0 at τ = 2.680, 2.771 at η, η/4; the flow jumps neuron 2 only) and on variations where the ladder must go
    on judging."""
    signs = np.array([1.0, 1.0, -1.0, 1.0, 1.0])
    flow_jumps, flow_a = [(2, 3.798)], [1e-54, 2e-14, -1.26, 3e-14, 5e-15]
    coarse_jumps, fine_jumps = [(0, 2.680), (2, 3.828), (1, 27.2)], [(0, 2.771), (2, 3.811), (1, 26.2)]
    gd_a = [-1.38, 1.07, -1.52, 1.27, -1.39]
    coarse_flip, fine_flip = {0: 0.43}, {0: 0.51}
    if case == "flow_flipped_too":
        flow_a[0] = -1e-54
    if case == "gd_kept_sign":
        gd_a[0] = 1.38
        coarse_flip = fine_flip = {}
    if case == "moves_fast":  # the jump moves 10 in τ per quartering: past τ = 30 after 1.7 more, within the ladder
        fine_jumps[0] = (0, 12.68)
    if case == "moves_earlier":  # a flip that comes earlier at η/4 is not the O(η) imbalance's
        fine_flip = {0: 0.40}
    if case == "missed_earlier_jump":  # the flow jumps neuron 3 before GD's jump and GD does not
        flow_jumps = [(3, 1.0), (2, 3.798)]
    out = gd_limit._unreachable(_run(flow_jumps, flow_a), _run(coarse_jumps, gd_a, coarse_flip),
                                _run(fine_jumps, gd_a, fine_flip), signs, 30.0, 2)
    if expected is None:
        assert out is None
    else:
        spacing = 0.01  # the stand-in runs' samples
        assert out["neuron"] == expected and out["shift_per_quartering"] == pytest.approx(0.08)
        # the jump's own count is the smaller here: (30 − 2.771)/0.091
        assert out["quarterings_needed"] == pytest.approx(min((30 - 0.51) / (0.08 + spacing), (30 - 2.771) / 0.091))
        assert "C Prop. 1" in out["reason"] and out["kind"] == "extra"


@pytest.mark.parametrize("case, expected", [
    ("flip", 0), ("flow_flipped_too", None), ("moves_fast", None), ("gd_jumps_it", None), ("missed_earlier_jump", None)])
def test_unreachable_leaves_out_a_jump_gd_misses_after_flipping_its_sign(case, expected):
    """The mirror case (seed 11, draw 0 at λ = 1e-40): the flow jumps neuron 0 with its sign; GD flips a_0 first at
    both steps and never jumps it. Left out when the flip's shift per quartering of η cannot carry it past the flow's
    jump within the ladder; judged (None) on the variations."""
    signs = np.array([1.0, -1.0, 1.0])
    flow_jumps, flow_a = [(1, 2.1), (0, 6.5)], [1.3, -0.9, 1e-30]
    coarse_jumps, fine_jumps = [(1, 2.12)], [(1, 2.105)]
    gd_a = [-1e-20, -0.9, 1e-30]
    coarse_flip, fine_flip = {0: 0.50}, {0: 0.60}
    flow_flips = {0: 1.0} if case == "flow_flipped_too" else {}  # a_0 · s_0 < 0 before τ = 1 in the flow
    if case == "moves_fast":  # 3 in τ per quartering: past τ = 6.5 after 0.97 more, within the ladder's 2
        fine_flip = {0: 0.5 + 3.0}
    if case == "gd_jumps_it":
        fine_jumps = fine_jumps + [(0, 9.0)]
    if case == "missed_earlier_jump":  # the flow jumps neuron 2 before GD's flip and GD does not
        flow_jumps = [(2, 0.2)] + flow_jumps
    flow = _run(flow_jumps, flow_a, flow_flips)
    coarse, fine = _run(coarse_jumps, gd_a, coarse_flip), _run(fine_jumps, gd_a, fine_flip)
    for run, flip in ((coarse, coarse_flip), (fine, fine_flip)):  # a_0 starts with s_0 = +1 and turns negative
        run.trajectory.a[:, 0] = np.where(run.trajectory.tau < flip[0], 1e-20, -1e-20)
    out = gd_limit._unreachable(flow, coarse, fine, signs, 30.0, 2)
    if expected is None:
        assert out is None
    else:
        assert out["neuron"] == expected and out["kind"] == "missing"
        assert out["shift_per_quartering"] == pytest.approx(0.1)
        assert out["quarterings_needed"] == pytest.approx((6.5 - 0.6) / (0.1 + 0.01)) and "never jumps" in out["reason"]


def test_unreachable_counts_by_the_flip_when_the_extra_jump_moves_earlier():
    """Seed 17, draw 1 at λ = 1e-40: GD flips a_2 at τ ≈ 0.7, 0.8 (η, η/4) and jumps neuron 2 at τ = 12.146, 10.568,
    earlier at the smaller step; the flip, the mechanism, moves later, and GD rejoins the flow's branch only once it
    passes the horizon: (30 − 0.8)/(0.1 + 0.1) quarterings."""
    signs = np.array([1.0, -1.0, 1.0])
    flow = _run([(0, 3.599)], [1.2, -1e-30, 1e-30])
    tau = np.round(np.arange(0.0, 30.05, 0.1), 1)
    coarse, fine = _run([(0, 3.593), (2, 12.146)], [1.2, -1e-30, -0.9]), _run([(0, 3.586), (2, 10.568)], [1.2, -1e-30, -0.9])
    for run, flip in ((coarse, 0.7), (fine, 0.8)):
        run.trajectory.tau = tau
        run.trajectory.a = np.tile(run.a, (tau.size, 1))
        run.trajectory.a[tau < flip, 2] = 0.9
    out = gd_limit._unreachable(flow, coarse, fine, signs, 30.0, 2)
    assert out["neuron"] == 2 and out["kind"] == "extra"
    assert out["quarterings_needed"] == pytest.approx((30 - 0.8) / (0.1 + 0.1))


def test_too_little_evidence_is_inconclusive_not_a_refutation():
    """Seed 5 of the λ = 1e-1000 check had only 2 plateaus where GD differs from the flow beyond its error, and was
    'refuted' for it (`Outcome.require`); lack of coverage is inconclusive, and a refutation stays one."""
    verified = Outcome(Status.VERIFIED, 0.6, 0.3, 0.6, "", "worst ratio 0.3")
    out = verified.covers(False, "only 2 plateaus: too little to test")
    assert out.status is Status.INCONCLUSIVE and out.details["why_inconclusive"] == "only 2 plateaus: too little to test"
    refuted = Outcome(Status.REFUTED, 0.6, 0.9, 0.6, "", "worst ratio 0.9")
    assert refuted.covers(False, "too little").status is Status.REFUTED
    assert Outcome(Status.VERIFIED, 0.6, 0.3, 0.6, "", "").covers(True, "x").status is Status.VERIFIED
