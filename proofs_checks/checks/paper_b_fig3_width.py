"""Paper B, Figure 3 (Experiment 1, Section 5.1, Appendix B): the width of the network decides where the
probability of convergence falls, so a figure drawn at another width than the stated one moves its threshold.

The paper states p = ⌊log(n/ε)/log(4/3)⌋ + 1 (ε = 0.05) and shows a threshold n ≈ 3000 at d = 100; with that p,
relucheck and the authors' own rerun put it at n ≈ 1640–1670 (docs/findings.md, docs/paper_b.md). The authors'
first commit (leodana2000/Convergence-High-Dimension ce62ea9, exps.ipynb, cell "EXP1.a") runs the same protocol
with p = 4⌊log(n/ε)/log(4/3)⌋ + 1, about four times wider. This check shows, at a size the full suite affords
(d = 30), that this width moves the threshold past a sample size where the stated width never converges; the
d = 100 measurements and their command are in docs/findings.md (section "Paper B, Figure 3: the authors'
repository").
"""
from __future__ import annotations

import numpy as np

from relucheck.numerics import paper_b_sim as sim
from relucheck.theory.paper_b_probability import clopper_pearson

from ..registry import Context, check
from ..result import Outcome, Status

D, N, RUNS, LEVEL = 30, 240, 12, 0.95


def four_times_width(n: int, eps: float = 0.05) -> int:
    """4⌊log(n/ε)/log(4/3)⌋ + 1, the width of the authors' first notebook (ce62ea9 exps.ipynb:
    ``p=int(4*np.floor(np.log(n/epsilon)/np.log(4/3))+1)``)."""
    return 4 * (sim.experiment_width(n, eps) - 1) + 1


def converged_runs(seed, n: int, d: int, p: int, runs: int) -> int:
    """Experiment 1's protocol (spec B §3, as `relucheck report --paper B` Figure 3): Appendix B data and init,
    GD η = 1 on p·L for ⌊1.5√(np) log(np)/4⌋ + 1 epochs, early stop and "converged" at L ≤ 1/(2n)."""
    rng = np.random.default_rng([seed, n, d, p, 1])
    X, y = sim.experiment_data(n, d, rng)
    A, W = sim.paper_b_init(runs, p, d, rng)
    run = sim.batch_gd(X, y, A, W, 1.0, sim.experiment_epochs(n, p), stop_loss=1 / (2 * n))
    return int((run.loss <= 1 / (2 * n)).sum())


@check("B.cor1.figure3_width", statement="B.cor1", suites=("full",),
       mutant="predicts that the four times wider network of the authors' notebook converges no more often than "
              "the stated width, so that the width could not explain the paper's threshold")
def figure3_width(ctx: Context) -> Outcome:
    """d = 30, n = 240 (above the stated width's threshold ≈ 140 of docs/paper_b.md, below the 4× width's
    ≈ 324 of docs/findings.md), 12 runs per width: the stated width must converge with probability < 1/2 and the
    4× width with probability > 1/2, each decided by its 95% Clopper–Pearson interval (inconclusive if an
    interval contains 1/2)."""
    p_stated, p_wide = sim.experiment_width(N), four_times_width(N)
    k_stated = ctx.cached("stated", lambda: converged_runs(ctx.seed, N, D, p_stated, RUNS))
    k_wide = ctx.cached("wide", lambda: converged_runs(ctx.seed, N, D, p_wide, RUNS))
    lo_s, hi_s = clopper_pearson(k_stated, RUNS, LEVEL)
    lo_w, hi_w = clopper_pearson(k_wide, RUNS, LEVEL)
    if ctx.mutate:  # the width does not matter: the wide network fails as the stated one does
        pred = "P(stated p) < 1/2 and P(4x p) < 1/2"
        agree, disagree = hi_s < 0.5 and hi_w < 0.5, lo_s > 0.5 or lo_w > 0.5
    else:
        pred = "P(stated p) < 1/2 < P(4x p)"
        agree, disagree = hi_s < 0.5 < lo_w, lo_s > 0.5 or hi_w < 0.5
    status = Status.VERIFIED if agree else Status.REFUTED if disagree else Status.INCONCLUSIVE
    return Outcome(status, pred, [k_stated / RUNS, k_wide / RUNS], [[lo_s, hi_s], [lo_w, hi_w]],
                   f"{LEVEL:.0%} Clopper–Pearson interval of each frequency over {RUNS} seeded runs; a side of 1/2 "
                   "is decided only when the whole interval is on it",
                   f"d = {D}, n = {N}: stated p = {p_stated} converged {k_stated}/{RUNS} (CI [{lo_s:.2f}, {hi_s:.2f}]), "
                   f"4x p = {p_wide} converged {k_wide}/{RUNS} (CI [{lo_w:.2f}, {hi_w:.2f}])",
                   details={"p_stated": p_stated, "p_wide": p_wide})
