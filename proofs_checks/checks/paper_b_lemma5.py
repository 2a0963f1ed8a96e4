"""Paper B, Lemma 5 (good initialization): exact binomial formula, the two bullets, the proof's false
step (a finding), and on orthogonal data convergence ⇔ 𝓘 seed by seed (spec B §2.11, key finding 9)."""
from __future__ import annotations

import numpy as np

from relucheck.numerics import paper_b_sim as sim
from relucheck.theory import paper_b_probability as prob

from ..registry import Context, check
from ..result import Outcome, Status

LEVEL = 0.999
NS = [1, 2, 3, 5, 10, 30, 100, 300, 1000, 3000, 10_000, 100_000]
EPSS = [0.5, 0.2, 0.1, 0.05, 0.01, 0.001]


@check("B.lem5.exact_formula", statement="B.lem5",
       mutant="predicts P(𝓘) by the paper's union bound 1 − n(3/4)^p instead of the exact binomial sum")
def exact_formula(ctx: Context) -> Outcome:
    """Monte Carlo of 𝓘 over 20 000 seeded inits (orthogonal data, n = 20, p = 12, B's init law) vs
    Σ_m C(p,m)2^-p(1−2^-m)^{n+}(1−2^-(p−m))^{n−}: the formula must lie in the 99.9% Clopper–Pearson interval."""
    rng = np.random.default_rng([ctx.seed, 61])
    n, p, trials = 20, 12, 20_000
    X, y = sim.experiment_data(n, n, rng, orthogonal=True)
    A, W = sim.paper_b_init_in_span(trials, p, n, 2 * n, rng)
    hits = int(ctx.cached("hits", lambda: sim.good_event(X, y, A, W).sum()))
    n_pos = int((y > 0).sum())
    exact = prob.exact_good_init(n_pos, n - n_pos, p)
    predicted = prob.union_bound(n, p) if ctx.mutate else exact
    low, high = prob.clopper_pearson(hits, trials, LEVEL)
    ok = low <= predicted <= high
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, predicted, hits / trials, [low, high],
                   f"exact {LEVEL:.1%} Clopper–Pearson interval of the Monte Carlo frequency ({trials} seeded inits)",
                   f"exact {exact:.5f} (mpmath {float(prob.exact_good_init_mp(n_pos, n - n_pos, p)):.5f}), union bound "
                   f"{prob.union_bound(n, p):.5f}, Monte Carlo {hits}/{trials}", details={"n_pos": n_pos})


@check("B.lem5.bullets_on_grid", statement="B.lem5",
       mutant="first bullet with constant 3 instead of 4: p ≥ 3 log(n/ε) ⇒ P(𝓘) ≥ 1 − ε")
def bullets_on_grid(ctx: Context) -> Outcome:
    """Both bullets of Lemma 5 on a grid n ∈ [1, 10^5], ε ∈ [10^-3, 0.5], n_+/n ∈ {0, ½, 1}, with the exact
    orthogonal formula at each bullet's extreme width (no violation expected: the claim holds although
    its proof does not)."""
    constant = 3.0 if ctx.mutate else 4.0
    cases, bad = prob.bullet_violations(NS, EPSS, first_constant=constant)
    status = Status.VERIFIED if not bad else Status.REFUTED
    return Outcome(status, 0, len(bad), 0, "exact formula evaluated in log space (relative error ~1e-15; the "
                   "closest case is decided with margin far above that)",
                   f"{len(bad)} violations in {cases} (n, ε, n_+/n, bullet) cases with first-bullet constant {constant:g}",
                   details={"first_violations": bad[:5]})


@check("B.lem5.second_bullet_proof_step", statement="B.lem5",
       mutant="the paper's claim: (1 − 4(ε/n)^{3 log 2})^n ≤ (1 − 4ε/n)^n for all n, ε",
       finding="the proof step (1 − 4(ε/n)^{3 log 2})^n ≤ (1 − 4ε/n)^n of Lemma 5's second bullet is false wherever "
               "4ε/n < 1.")
def second_bullet_proof_step(ctx: Context) -> Outcome:
    """Finding (spec B §5 item 11): the proof's inequality is false wherever 4ε/n < 1, since 3 log 2 > 1."""
    bad = prob.proof_step_violations(NS, EPSS)
    predicted = 0 if ctx.mutate else "> 0"
    ok = (len(bad) == 0) if ctx.mutate else bool(bad)
    example = bad[0] if bad else None
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, predicted, len(bad), 0,
                   "both sides in log space (log1p); a violation is a strict inequality with a visible margin",
                   f"paper's claim refuted: the step fails in {len(bad)} (n, ε) cases, e.g. n = {example[0]}, "
                   f"ε = {example[1]}: {example[2]:.6g} > {example[3]:.6g}" if example else "no violation found",
                   details={"violations": bad[:10]})


def _iff_runs(seed):
    n, d, p, B = 12, 24, 6, 200
    rng = np.random.default_rng([seed, 62])
    X, y = sim.experiment_data(n, d, rng, orthogonal=True)
    Xc = X[:, :n]  # canonical data: span coordinates are the first n coordinates
    A, W = sim.paper_b_init_in_span(B, p, n, d, rng)
    threshold = 1e-6 / (2 * n)
    run = sim.batch_gd(Xc, y, A, W, 0.25, 4000, stop_loss=threshold)
    return X, y, Xc, A, W, run, threshold


@check("B.lem5.convergence_iff_good_init", statement="B.lem5",
       mutant="predicts convergence from activation alone (∀i ∃j ⟨w_j, x_i⟩ > 0), ignoring the sign condition a_j y_i > 0")
def convergence_iff_good_init(ctx: Context) -> Outcome:
    """Orthogonal data (n = 12, d = 24, p = 6, B's init, 200 seeds): GD (η = 0.25, 4000 steps) converges
    (L < 10^-6/(2n)) exactly for the seeds whose initialization is in 𝓘 (spec B key finding 9)."""
    X, y, Xc, A, W, run, threshold = ctx.cached("runs", lambda: _iff_runs(ctx.seed))
    conv = run.loss < threshold
    if ctx.mutate:
        predicted = ((W @ Xc.T) > 0).any(1).all(1)
    else:
        predicted = sim.good_event(Xc, y, A, W)
    disagree = int((conv != predicted).sum())
    n_pos = int((y > 0).sum())
    exact = prob.exact_good_init(n_pos, len(y) - n_pos, A.shape[1])
    low, high = prob.clopper_pearson(int(conv.sum()), len(conv), 0.95)
    floor = float(run.loss[~conv].min()) if (~conv).any() else None
    return Outcome(Status.VERIFIED if disagree == 0 else Status.REFUTED, 0, disagree, 0,
                   "event-level agreement: the converged runs stop below 1e-6/(2n) while the others keep a loss "
                   "floor Σ_unfit y_i²/(2n) ≥ 1/(2n), far apart",
                   f"{disagree} disagreements in {len(conv)} seeds; P̂(conv) = {conv.mean():.3f} (95% CI "
                   f"[{low:.3f}, {high:.3f}]), exact P(𝓘) = {exact:.4f}; "
                   + ("every run converged" if floor is None else f"smallest loss of a non-converged run {floor:.4g}"),
                   details={"converged": int(conv.sum()), "exact_probability": exact})
