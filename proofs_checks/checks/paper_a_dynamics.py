"""Paper A, training dynamics on Assumption-4.1 data: Lemmas F.2–F.6 and Theorem 4.1 (spec A §5.1: S6, S7,
M2, N5–N9, N11, N16). GD runs use the batched GD core (`numerics.flows.batched_gd`) and paper A's trainer
(`numerics.paper_a_training`), time = steps × η."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from relucheck.numerics import datasets, initializations
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.network import field
from relucheck.numerics.paper_a_training import train_batch
from relucheck.theory.paper_a_limits import (ols_excess_risk_gaussian, two_piece_excess_risk_prediction, two_piece_ols)

from ..registry import Context, check
from ..tightest import tightest_case
from ..reader_text import plain, plain_list
from ..result import Outcome, agree, within_bound

EPS = np.finfo(float).eps


# -- phases 1–2: alignment and escape (N5, N6) -------------------------------------------------------
LAMBDAS_EARLY = (1e-2, 1e-4, 1e-6, 1e-8)
LR_EARLY = 0.01


@lru_cache(maxsize=4)
def early_runs(seed: int):
    """S_A1(3, 0.3, 0.5, no whitening), n = 300, I8(λ, 50) for λ ∈ LAMBDAS_EARLY, GD with η = 0.01.

    Records, per λ, at t_1 = ½ ln(1/λ)/‖D_+‖: 1 − min_{N_+} cos(w_j, D_+), 1 − min_{N_−} cos(w_j, −D_−),
    max_j |a_j(t_1)|/|a_j(0)|, and the escape time T_esc = first t with ‖v_+‖ ≥ ½‖β̂_+‖.
    """
    rng = np.random.default_rng([seed, 41])
    n, d, m = 300, 3, 50
    X = datasets.margin_inputs(n, d, rng, c0=0.3, whiten=False)
    y = datasets.linear_teacher(X, rng, noise=0.5)
    plus = X[:, 0] > 0
    D_plus, D_minus = (y * plus) @ X / n, (y * ~plus) @ X / n
    ols = two_piece_ols(X, y)
    init_seed = rng.integers(2**31)
    inits = [initializations.dominated(m, d, lam, init_seed) for lam in LAMBDAS_EARLY]
    a = np.array([i[0] for i in inits])
    W = np.array([i[1] for i in inits])
    a0 = a.copy()
    B = len(LAMBDAS_EARLY)
    k_align = np.round(0.5 * np.log(1 / np.array(LAMBDAS_EARLY)) / np.linalg.norm(D_plus) / LR_EARLY).astype(int)
    pos = a0[0] > 0
    align_plus, align_minus, growth = np.zeros(B), np.zeros(B), np.zeros(B)
    t_esc = np.full(B, np.nan)
    half = 0.5 * np.linalg.norm(ols.beta_plus)

    def observe(step, _field, a, W):  # the state after `step` GD steps
        for b in np.flatnonzero(k_align == step):
            cos = W[b] @ D_plus / (np.linalg.norm(W[b], axis=1) * np.linalg.norm(D_plus))
            cos_m = -(W[b] @ D_minus) / (np.linalg.norm(W[b], axis=1) * np.linalg.norm(D_minus))
            align_plus[b], align_minus[b] = 1 - cos[pos].min(), 1 - cos_m[~pos].min()
            growth[b] = np.max(np.abs(a[b] / a0[b]))
        v_plus = np.einsum("bm,bmd->bd", a * pos, W)
        hit = np.isnan(t_esc) & (np.linalg.norm(v_plus, axis=1) >= half)
        t_esc[hit] = step * LR_EARLY
        return step >= 20000 or not np.isnan(t_esc).any()

    descend(GDBatch.shared(X, y), a, W, LR_EARLY, 20001, observe=observe)  # one data set, B initializations
    return dict(D_plus=D_plus, D_minus=D_minus, k_align=k_align, align_plus=align_plus, align_minus=align_minus,
                growth=growth, t_esc=t_esc, pos=int(pos.sum()), m=m)


@check("A.lemF.2.alignment", statement="A.lemF.2",
       mutant="predicts max|a_j(t_1)|/|a_j(0)| = cosh(‖D_+‖ t) with t = ln(1/λ)/‖D_+‖ (twice the time)")
def alignment(ctx: Context) -> Outcome:
    """Lemma F.2 (N5): at t_1 = ½ ln(1/λ)/‖D_+‖ the N_+ neurons align with D_+ and the N_− neurons with −D_−
    (misalignment decreasing in λ), and the output weights grew by the frozen-field factor.

    Prediction: GD with the field frozen at D ≡ D_+ multiplies (a, ⟨w, D̄_+⟩) by [[1, h], [h, 1]] per step,
    h = η‖D_+‖, so |a(k)|/|a(0)| = ((1 + h)^k + (1 − h)^k)/2 (the discrete cosh(‖D_+‖t)) up to O(λ).
    """
    r = early_runs(ctx.seed)
    h = LR_EARLY * np.linalg.norm(r["D_plus"])
    k = r["k_align"] * (2 if ctx.mutate else 1)
    predicted = ((1 + h) ** k + (1 - h) ** k) / 2
    out = agree(predicted, r["growth"], 0.02,
                "relative: the frozen-field solution is exact once w_j ∥ D_+; before that the neuron spends an "
                "alignment transient of O(1/‖D_+‖) time with ⟨w̄_j, D̄_+⟩ < 1, which the growth factor feels at "
                "first order in its duration × ‖D_+‖ × (1 − cos) at initialization (≤ 2 % for the fraction of N_+ "
                "that starts far from D_+ and does not set the max), plus O(λ) from ‖w(0)‖ ≤ λ|a(0)|",
                relative=True, message=f"misalignment at λ = {plain_list(LAMBDAS_EARLY)}: N_+ {plain_list(r['align_plus'])}; "
                                       f"N_− {plain_list(r['align_minus'])}", align_plus=r["align_plus"],
                align_minus=r["align_minus"])
    decreasing = np.all(np.diff(r["align_plus"]) < 0) and np.all(np.diff(r["align_minus"]) < 0)
    return out.require(decreasing, "misalignment does not decrease with λ")


@check("A.lemF.4.escape_time", statement="A.lemF.4",
       mutant="predicts the slope 1/(2‖D_+‖) (the rate of a loss without the ½)")
def escape_time(ctx: Context) -> Outcome:
    """Lemma F.4 (N6): T_esc(λ), the first t with ‖v_+‖ ≥ ½‖β̂_+‖, grows like ln(1/λ)/‖D_+‖.

    v_+ = Σ_{N_+} a_j w_j grows by (1 + h)² per GD step (h = η‖D_+‖) during phase 2, so the slope of T_esc
    against ln(1/λ) is η/ln(1 + h) = (1/‖D_+‖)(1 + h/2 + O(h²)): the GD value is the prediction.
    """
    r = early_runs(ctx.seed)
    Dn = np.linalg.norm(r["D_plus"])
    slope = np.polyfit(np.log(1 / np.array(LAMBDAS_EARLY)), r["t_esc"], 1)[0]
    predicted = LR_EARLY / np.log(1 + LR_EARLY * Dn) / (2 if ctx.mutate else 1)
    return agree(predicted, slope, 0.01,
                 "relative: the O(1) part of T_esc depends on λ only through O(λ) terms (≤ 1e-2 at λ = 1e-2) "
                 "over a ln(1/λ) range of 13.8, and the crossing is read at the step resolution η = 0.01 (≤ 1e-3 "
                 "relative on T_esc ≥ 9)", relative=True,
                 message=f"T_esc = {plain_list(r['t_esc'])} at λ = {plain_list(LAMBDAS_EARLY)}; 1/‖D_+‖ = {plain(1 / Dn)}",
                 t_esc=r["t_esc"])


# -- phase 3: logistic growth of one balanced neuron (S6, M2) --------------------------------------------
@check("A.lemF.5.logistic", statement="A.lemF.5",
       mutant="predicts the logistic rate 4qb (the rate of a loss without the ½) instead of 2qb")
def logistic(ctx: Context) -> Outcome:
    """Lemma F.5 / S6 + M2: one positive and one negative balanced neuron on the spec's 4-point data
    (Q_± = ½ I, q = 2/n, β̂_+ = (1, 0.3)): p(t) = a‖w‖ solves ṗ = 2qp(b − p), p(t) = b/(1 + (b/p_0 − 1)e^{−2qbt}),
    b = ‖β̂_+‖; the flow integrated with DOP853 at rtol 1e-12."""
    X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.3, 0.7, -0.9, -1.4])
    n = len(y)
    ols = two_piece_ols(X, y)
    s0 = 1e-3
    bp, bm = ols.beta_plus, ols.beta_minus
    a0 = np.array([s0, -s0])
    W0 = np.array([s0 * bp / np.linalg.norm(bp), -s0 * bm / np.linalg.norm(bm)])

    def rhs(_, z):
        da, dW = field(X, y, z[:2], z[2:].reshape(2, 2))
        return np.concatenate([da, dW.ravel()])

    ts = np.array([1.0, 5.0, 10.0, 20.0])
    sol = ctx.cached("sol", lambda: solve_ivp(rhs, (0, 20), np.concatenate([a0, W0.ravel()]), method="DOP853",
                                              rtol=1e-12, atol=1e-15, t_eval=ts))
    p = sol.y[0] * np.linalg.norm(sol.y[2:4], axis=0)
    q, b = 2 / n, np.linalg.norm(bp)
    rate = (4 if ctx.mutate else 2) * q * b
    predicted = b / (1 + (b / s0**2 - 1) * np.exp(-rate * ts))
    return agree(predicted, p, 1e-8, "DOP853 at rtol 1e-12 over ≈ 2000 steps: global error ≤ 1e-9 of p ≤ b ≈ 1.04; "
                 "the neurons never leave their cones (exact logistic while they stay there)", relative=True,
                 message=f"p(t) at t = {plain_list(ts)}")


# -- phase 4: local PL inequality (S7, H5) --------------------------------------------------------------
@check("A.lemF.6.local_PL", statement="A.lemF.6",
       mutant="the inequality with λ_max(Q_+) in place of λ_min(Q_+)")
def local_pl(ctx: Context) -> Outcome:
    """Eq. (45)–(47): ‖∇L_+‖² ≥ 2λ_min(Q_+)(Σ a_j²)(L_+ − L_+*) for N_+ neurons active exactly on S_+
    (S_A1(3, 0.3, 0.5) data, n = 60), on 200 random draws and on the tight configuration (v − β̂_+ along
    the λ_min eigenvector, every w_j ∥ v ⊥ that eigenvector), where the ratio must be 1."""
    rng = np.random.default_rng([ctx.seed, 42])
    n, d, m = 60, 3, 4
    X = datasets.margin_inputs(n, d, rng, c0=0.3)
    y = datasets.linear_teacher(X, rng, noise=0.5)
    plus = X[:, 0] > 0
    Xp = X[plus]
    Q = Xp.T @ Xp / n
    beta = two_piece_ols(X, y).beta_plus
    evals, evecs = np.linalg.eigh(Q)
    lam = evals[-1] if ctx.mutate else evals[0]

    def ratio(a, W):
        v = a @ W
        g = Q @ (beta - v)
        grad_sq = float(np.sum((W @ g) ** 2) + np.sum(a**2) * g @ g)
        excess = 0.5 * (v - beta) @ Q @ (v - beta)  # eq. (47)
        return grad_sq / (2 * lam * np.sum(a**2) * excess)

    ratios = []
    for _ in range(200):
        W = beta + 0.1 * rng.standard_normal((m, d))  # near β̂_+: inside the cone (most draws)
        W = W / np.linalg.norm(W, axis=1, keepdims=True) * rng.uniform(0.2, 1.5, (m, 1))
        if np.any((Xp @ W.T) <= 0) or np.any((X[~plus] @ W.T) >= 0):
            continue
        ratios.append(ratio(rng.uniform(0.2, 1.5, m), W))
    e_min = evecs[:, 0]
    v_tight = beta - (beta @ e_min) * e_min
    shares = rng.uniform(0.5, 1.5, m)
    a_t = np.sqrt(shares / shares.sum())
    W_t = np.outer(a_t, v_tight / np.linalg.norm(v_tight)) * np.linalg.norm(v_tight)
    tight = ratio(a_t, W_t)

    def searched_ratio(case):  # a, and W as directions near β̂_+ with norms; None outside the cones
        a, offsets, norms = (np.array(v) for v in case)
        W = beta + offsets.reshape(m, d)
        W = W / np.linalg.norm(W, axis=1, keepdims=True) * norms[:, None]
        if np.any((Xp @ W.T) <= 0) or np.any((X[~plus] @ W.T) >= 0):
            return None
        return ratio(a, W) - 1.0

    scales = st.lists(st.floats(0.2, 1.5), min_size=m, max_size=m)
    found = tightest_case(searched_ratio, st.tuples(scales, st.lists(st.floats(-0.5, 0.5), min_size=m * d,
                                                                     max_size=m * d), scales), seed=ctx.seed)
    worst = min(min(ratios), tight, found.margin + 1.0)
    out = within_bound(worst, 1.0, "algebra of eq. (45)–(47); slack 1e-10 relative for the float64 rounding of "
                       "quadratic forms in d = 3", side=">=", slack=1e-10,
                       message=f"{len(ratios)} random draws, min ratio {plain(min(ratios))}; tight configuration "
                               f"ratio {tight:.15g}; {found.describe('ratio − 1')}", tight_ratio=tight,
                       searched_min_ratio=found.margin + 1.0)
    return out.require(abs(tight - 1) <= 1e-10, "the tight configuration does not reach equality")


# -- Theorem 4.1: the two-piece OLS limit (N7, N8, N9, N11) --------------------------------------------
def _limit_problem(seed, d, n, key):
    rng = np.random.default_rng([seed, key, d, n])
    X = datasets.margin_inputs(n, d, rng, c0=0.3)
    y = datasets.linear_teacher(X, rng, noise=0.5)
    return X, y, rng


@lru_cache(maxsize=4)
def limit_runs(seed: int, widths: tuple = (100,), problems: tuple = ((2, 80), (3, 80))):
    """N7/N9: S_A1(d, 0.3, 0.5) whitened, I8(1e-3, m), GD η = 0.05 for 6000 steps (t = 300) without early stop.

    The loss reaches its float64 floor (L − L_2OLS ≈ eps L) once ‖v − β̂‖ ≈ √eps, so a loss-based stop
    cannot certify 1e-8 on the parameters; instead the run continues: escape takes ≈ ln(1/λ)/‖D_±‖ ≈ 15 and
    the local PL phase (eq. 48) contracts at rate μ = 2λ_min(Q_±) Σ a_j² ≈ 0.5 per unit time afterwards.
    One batch per d (problems share a padded array)."""
    out = []
    for d, n in problems:
        X, y, rng = _limit_problem(seed, d, n, 43)
        ols = two_piece_ols(X, y)
        runs = []
        for m in widths:
            a0, W0 = initializations.dominated(m, d, 1e-3, rng)
            runs.append((m, a0, W0))
        P = GDBatch.stack([(X, y)] * len(runs))
        # pad widths to a common m with zero neurons (a zero neuron has zero gradient and stays zero)
        M = max(widths)
        A0 = np.zeros((len(runs), M))
        Wz = np.zeros((len(runs), M, d))
        for b, (m, a0, W0) in enumerate(runs):
            A0[b, :m], Wz[b, :m] = a0, W0
        res = train_batch(P, A0, Wz, 0.05, 6000, check_every=6000)
        for b, (m, a0, _) in enumerate(runs):
            out.append(dict(d=d, n=n, m=m, X=X, y=y, ols=ols, a=res.a[b, :m], W=res.W[b, :m], a0=a0,
                            loss=res.loss[b], status=res.status[b], steps=int(res.steps[b]), rng_seed=seed))
    return out


def _stopped(runs) -> str:
    """How the runs stopped, in words: 'both runs stopped at the step budget (6000 steps)'."""
    words = {"budget": "at the step budget", "interpolating": "interpolating", "stationary": "stationary"}
    how = sorted({words.get(r["status"], r["status"]) for r in runs})
    steps = sorted({r["steps"] for r in runs})
    return (f"{'both' if len(runs) == 2 else f'all {len(runs)}'} runs stopped {' or '.join(how)} "
            f"({' or '.join(str(k) for k in steps)} steps)" if len(how) == 1 else
            "runs stopped " + ", ".join(f"{words.get(r['status'], r['status'])} after {r['steps']} steps" for r in runs))


def _v_pm(run):
    pos = run["a0"] > 0
    return run["a"][pos] @ run["W"][pos], run["a"][~pos] @ run["W"][~pos]


@check("A.thm4.1.two_piece_limit", statement="A.thm4.1",
       mutant="the paper's 'coincides with OLS': predicts v_+ = v_− = β̂_OLS (the global OLS)")
def two_piece_limit(ctx: Context) -> Outcome:
    """Theorem 4.1 (N7): on S_A1(d, 0.3, 0.5) data (d = 2, 3; n = 80) from I8(1e-3, 100), GD converges to
    Σ_{N_±} a_j w_j = β̂_± (OLS on S_±), L = L_2OLS < L_OLS, and h_θ = σ(⟨β̂_+,·⟩) − σ(⟨−β̂_−,·⟩) on 5000
    fresh points of the support."""
    runs = limit_runs(ctx.seed)
    errs, rms, gaps = [], [], []
    for r in runs:
        vp, vm = _v_pm(r)
        bp, bm = (r["ols"].beta_ols, r["ols"].beta_ols) if ctx.mutate else (r["ols"].beta_plus, r["ols"].beta_minus)
        errs += [np.linalg.norm(vp - bp), np.linalg.norm(vm - bm)]
        Xt = datasets.margin_inputs(5000, r["d"], np.random.default_rng([ctx.seed, 44, r["d"]]), c0=0.3)
        Z = Xt @ r["W"].T
        h = np.maximum(Z, 0) @ r["a"]
        rms.append(float(np.sqrt(np.mean((h - r["ols"].predict(Xt)) ** 2))))
        gaps.append(r["ols"].loss_ols - r["loss"])
    out = agree(np.zeros(len(errs)), np.array(errs), 1e-8,
                "tolerance 1e-8 of the reconstructed specification (calibration runs: ≤ 1e-13): after t = 300 the local PL contraction (rate ≈ 0.5) has "
                "taken the error to the float64 floor ≈ 1e-14; 1e-8 leaves room for a slower side (small Σ a_j²)",
                message=f"‖v_± − β̂_±‖ = {plain_list(errs, 3)}; RMS of h − h_∞ on fresh points {plain_list(rms, 3)}; "
                        f"L_OLS − L = {plain_list(gaps)}; " + _stopped(runs),
                rms=rms, loss_gap=gaps)
    return out.require(max(rms) <= 1e-8 and min(gaps) > 0, "the function or the loss ordering L_2OLS < L_OLS fails")


@check("A.lemF.3.cone_invariance", statement="A.lemF.3",
       mutant="claims the positive neurons stay active on all data (S_+ ∪ S_−)")
def cone_invariance(ctx: Context) -> Outcome:
    """Lemmas F.3–F.6 (N8): at the end of the N7 runs each N_+ neuron is active exactly on S_+ and each N_−
    neuron exactly on S_−: sign⟨w_j, x_k⟩ = sign(a_j) sign⟨β*, x_k⟩, zero flips."""
    flips = 0
    for r in limit_runs(ctx.seed):
        s = np.sign(r["X"][:, 0])
        expected = np.sign(r["a0"])[:, None] * s[None, :]
        if ctx.mutate:
            expected = np.where(r["a0"][:, None] > 0, 1.0, expected)
        flips += int(np.sum(np.sign(r["W"] @ r["X"].T) != expected))
    return agree(0.0, float(flips), 0.0, "exact count of activation signs", message=f"{flips} activation flips")


@check("A.thm4.1.width_independence", statement="A.thm4.1", suites=("full",),
       mutant="claims the limit depends on the width: v_+ at width m equals m/(m+1) β̂_+")
def width_independence(ctx: Context) -> Outcome:
    """Theorem 4.1 'for all m' (N9): d = 3, n = 80, widths m ∈ {4, 20, 200}: same limit β̂_± whenever N_+ and N_−
    are non-empty."""
    runs = limit_runs(ctx.seed, (4, 20, 200), ((3, 80),))
    errs = []
    for r in runs:
        pos = r["a0"] > 0
        if pos.all() or not pos.any():
            continue
        vp, vm = _v_pm(r)
        k = r["m"] / (r["m"] + 1) if ctx.mutate else 1.0
        errs += [np.linalg.norm(vp - k * r["ols"].beta_plus), np.linalg.norm(vm - r["ols"].beta_minus)]
    return agree(np.zeros(len(errs)), np.array(errs), 1e-8, "the same tolerance as the two-piece limit of Theorem 4.1 (1e-8; calibration runs ≤ 1e-13)",
                 message=f"errors {plain_list(errs, 3)} for widths {plain_list(r['m'] for r in runs)}")


@check("A.thm4.1.spurious", statement="A.thm4.1",
       mutant="claims the limit is a global minimum: no network reaches a lower training loss than L_2OLS")
def spurious(ctx: Context) -> Outcome:
    """N11 (spec §3.4): the limit is a stationary point (‖∇L‖ ≈ 0) but not a global minimum: an interpolating
    network built from m = 2n random features (min-norm least squares on the output weights) has training
    loss ≈ 0 < L_2OLS, and G_res(w) = (1/n) Σ r_k σ(⟨w, x_k⟩) is non-zero for some w (adding a neuron there
    lowers L). Run: d = 3, n = 80 of A.thm4.1.two_piece_limit (in d = 2 the data's cells are thin arcs that
    random features rarely hit, so 2n random features do not span ℝ^n there)."""
    r = next(r for r in limit_runs(ctx.seed) if r["d"] == 3)
    X, y, n = r["X"], r["y"], len(r["y"])
    at_limit = GDBatch.shared(X, y).evaluate(r["a"], r["W"])
    loss, grad = float(at_limit.loss()), float(np.sqrt(at_limit.grad_sq()))
    rng = np.random.default_rng([ctx.seed, 45])
    Wr = rng.standard_normal((2 * n, X.shape[1]))
    F = np.maximum(X @ Wr.T, 0)
    a_int = np.linalg.lstsq(F, y, rcond=None)[0]
    res_int = y - F @ a_int
    loss_int = float(res_int @ res_int / (2 * n))
    resid = y - np.maximum(X @ r["W"].T, 0) @ r["a"]
    U = rng.standard_normal((100000, X.shape[1]))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    g_res = np.abs(np.maximum(U @ X.T, 0) @ resid / n).max()
    lowest = loss if ctx.mutate else loss_int
    out = within_bound(lowest, loss * 1e-6, "an interpolant of n = 80 points with 160 random features "
                       "(full row rank, smallest singular value ≈ 1e-2) reaches the float64 floor ≈ 1e-26, far below "
                       "1e-6 L_2OLS", side="<=",
                       message=f"‖∇L(θ∞)‖ = {grad:.3g}; L(θ∞) = {plain(loss)}; interpolant loss {loss_int:.3g}; "
                               f"the residuals' correlation with a new neuron, max over 10⁵ random unit w of "
                               f"|(1/n) Σ_k r_k σ(⟨w, x_k⟩)|, is {g_res:.3g}", gradient=grad, g_res=g_res)
    return out.require(grad <= 1e-8 and g_res >= 1e-6, "not a stationary point, or no descent direction by adding a neuron")


# -- §6 item 5: excess risk of the two-piece estimator (N16) --------------------------------------------
@check("A.thm4.1.excess_risk", statement="A.thm4.1",
       mutant="the paper's claim: the limit 'coincides with OLS', excess-risk ratio two-piece/OLS = 1",
       finding="Theorem 4.1's limit does not coincide with OLS at finite n: the two-piece estimator has about twice "
               "the excess risk of OLS.")
def excess_risk(ctx: Context) -> Outcome:
    """Finding (spec §6 item 5, N16): on S_G(d, σ) the two-piece estimator's excess risk is ≈ 2× that of the
    global OLS (each piece sees n_± ≈ n/2 points). d = 3, n = 150 and d = 5, n = 250, σ = 1, 2000 repetitions;
    prediction: ½ Σ_± σ² d E[1/(n_± − d − 1)] over n_+ ~ Bin(n, ½), divided by σ² d/(n − d − 1).
    Paper's claim refuted: Theorem 4.1's limit does not coincide with OLS at finite n."""
    cases = [(3, 150), (5, 250)]

    def compute():
        rng = np.random.default_rng([ctx.seed, 46])
        out = []
        for d, n in cases:
            reps = 2000
            X = rng.standard_normal((reps, n, d))
            y = X[:, :, 0] + rng.standard_normal((reps, n))
            beta = np.eye(d)[0]
            ols = np.linalg.solve(np.einsum("rni,rnj->rij", X, X), np.einsum("rni,rn->ri", X, y)[..., None])[..., 0] - beta
            plus = (X[:, :, 0] > 0)[:, :, None]
            risk2 = 0.0
            for side in (plus, ~plus):
                Xs = X * side
                b = np.linalg.solve(np.einsum("rni,rnj->rij", Xs, Xs), np.einsum("rni,rn->ri", Xs, y)[..., None])[..., 0] - beta
                risk2 = risk2 + 0.5 * (b**2).sum(1)  # E_x[(⟨b, x⟩)² | side] = ‖b‖² (E[x xᵀ | ±x_1 > 0] = I)
            ratio = risk2.mean() / (ols**2).sum(1).mean()
            se = ratio * np.sqrt(risk2.var() / risk2.mean() ** 2 / reps + ((ols**2).sum(1)).var()
                                 / ((ols**2).sum(1)).mean() ** 2 / reps)
            out.append((ratio, se))
        return out

    measured = ctx.cached("mc", compute)
    predicted = np.array([1.0 if ctx.mutate else two_piece_excess_risk_prediction(n, d, 1.0)
                          / ols_excess_risk_gaussian(n, d, 1.0) for d, n in cases])
    ratios = np.array([m[0] for m in measured])
    se = np.array([m[1] for m in measured])
    tol = float(np.max(4 * se + 2 * np.array([d / n for d, n in cases]) * predicted))
    out = agree(predicted, ratios, tol,
                "4 Monte-Carlo standard errors of the ratio (2000 repetitions) plus the O(d/n) relative correction "
                "(taken as 2d/n) of treating the half-Gaussian design of each piece as a Gaussian one",
                message="measured ratios " + ", ".join(f"{plain(q)} ± {plain(e, 2)} at (d, n) = ({d}, {n})"
                                                 for q, e, (d, n) in zip(ratios, se, cases)) + "; "
                + ("" if ctx.mutate else "paper's claim refuted: the two-piece limit has about twice the OLS excess "
                   "risk, not the same"), ratios=ratios)
    return out
