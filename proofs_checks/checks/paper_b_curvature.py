"""Paper B's local-PL curvature μ = p‖∇L‖²/L (eq. 5): Lemma 2's integral identity along a flow,
Lemma 7's two-sided bounds (the upper bound's counterexample is a finding) and Remark C.2's
selection σ'(0) = 0 (spec B §2.2, §2.14, §2.17)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from relucheck.numerics import datasets
from relucheck.numerics.network import field, loss, paper_b

from ..registry import Context, check
from ..tightest import tightest_case
from ..result import Outcome, Status, agree, within_bound
from .flows_in_t import flow_in_t, flow_pattern


def mu_of(X, y, a, W, p, active=None):
    """μ = p‖∇L‖²/L = ‖field‖²/(pL), field = −p∇L (B eq. 5)."""
    conv = paper_b(p)
    da, dW = field(X, y, a, W, conv, active=active)
    return float((da @ da + dW.ravel() @ dW.ravel()) / (p * loss(X, y, a, W, conv)))


def lemma7_bounds(X, y, a, W, p):
    """(paper's upper bound, corrected upper bound, lower bound) of Lemma 7 (B eq. 23; spec B §2.14)."""
    n = len(y)
    norms = np.linalg.norm(X, axis=1)
    G = X @ X.T
    off = float(np.linalg.norm(G - np.diag(np.diag(G)), 2))
    act = (X @ W.T) > 0  # (n, p)
    up_mass = (act * (a**2 + (W**2).sum(1))[None, :]).sum(1).max() / p
    low_mass = (act * (a**2)[None, :]).sum(1).min() / p
    paper_up = 2 / n * norms.max() ** 2 * up_mass
    return paper_up, 2 / n * (norms.max() ** 2 + off) * up_mass, 2 / n * (norms.min() ** 2 - off) * low_mass


@check("B.lem7.upper_bound_counterexample", statement="B.lem7",
       mutant="the paper's claim: μ ≤ (2/n)(C_x^+)² max_i (1/p)Σ_j (a_j² + ‖w_j‖²)1_{j,i} for any inputs",
       finding="Lemma 7's upper bound on μ fails for correlated inputs (x_1 = x_2: μ = 4 > 2); the corrected factor "
               "(C_x^+)² + ‖XᵀX − D_X‖ holds.")
def upper_bound_counterexample(ctx: Context) -> Outcome:
    """Finding (spec B key finding 4): x_1 = x_2 = e_1, p = 1, w = e_1, a = 1, y = (2, 2) gives μ = 4 > 2,
    the paper's upper bound; the corrected factor (C_x^+)² + ‖XᵀX − D_X‖ gives 4 ≥ μ."""
    X = np.array([[1.0, 0.0], [1.0, 0.0]])
    y = np.array([2.0, 2.0])
    a, W = np.array([1.0]), np.array([[1.0, 0.0]])
    mu = mu_of(X, y, a, W, 1)
    paper_up, corrected_up, low = lemma7_bounds(X, y, a, W, 1)
    bound = paper_up if ctx.mutate else corrected_up
    out = within_bound(mu, bound, "exact small integers: μ and both bounds are computed exactly in float64",
                       side="<=", slack=4 * np.finfo(float).eps * bound,
                       message=f"μ = {mu:g}; paper's claim refuted: paper's bound {paper_up:g} < μ; corrected {corrected_up:g}; "
                               f"lower bound {low:g}")
    return out.require(ctx.mutate or mu > paper_up, "the counterexample no longer violates the paper's bound")


@check("B.lem7.bounds_random", statement="B.lem7",
       mutant="the lower bound with (C_x^+)² in place of (C_x^-)² − ‖XᵀX − D_X‖ (moved past the measured μ)")
def bounds_random(ctx: Context) -> Outcome:
    """Lemma 7's lower bound and the corrected upper bound on 200 seeded random instances: near-orthogonal
    inputs x_i = λ_i(e_i + 0.15 g_i/√d) of norms λ_i ∈ [0.5, 2] (so the lower bound is mostly positive) and
    B's init with p ∈ [3, 8]; min over instances of (μ − lower)/μ and (corrected upper − μ)/μ must be ≥ 0."""
    rng = np.random.default_rng([ctx.seed, 71])
    gaps_low, gaps_up, informative = [], [], 0
    for _ in range(200):
        n = int(rng.integers(2, 8))
        d, p = n + int(rng.integers(0, 5)), int(rng.integers(3, 9))
        X = (np.eye(n, d) + 0.15 * rng.standard_normal((n, d)) / np.sqrt(d)) * rng.uniform(0.5, 2, (n, 1))
        y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
        W = rng.standard_normal((p, d)) / np.sqrt(d)
        a = rng.choice([-1.0, 1.0], p) * (np.linalg.norm(W, axis=1) + rng.exponential(1.0, p))
        mu = mu_of(X, y, a, W, p)
        if mu == 0.0:
            continue  # no active neuron at all: both sides vanish
        _, up, low = lemma7_bounds(X, y, a, W, p)
        informative += low > 0
        if ctx.mutate:
            low = 2 / n * np.linalg.norm(X, axis=1).max() ** 2 * ((X @ W.T > 0) * a**2).sum(1).max() / p
        gaps_low.append((mu - low) / mu)
        gaps_up.append((up - mu) / mu)
    def searched_gap(case):  # the same family of instances, every entry chosen by the search
        n, d, p, noise, norms, labels, W, extra = case
        X = (np.eye(n, d) + noise * np.array(W[:n * d]).reshape(n, d) / np.sqrt(d)) * np.array(norms)[:, None]
        Wp = np.array(W[n * d:n * d + p * d]).reshape(p, d) / np.sqrt(d)
        a = np.sign(np.array(extra[:p]) - 0.5 + 1e-300) * (np.linalg.norm(Wp, axis=1) + np.array(extra[p:]))
        y = np.array(labels)
        mu = mu_of(X, y, a, Wp, p)
        if mu == 0.0:
            return None
        _, up, low = lemma7_bounds(X, y, a, Wp, p)
        if ctx.mutate:
            low = 2 / n * np.linalg.norm(X, axis=1).max() ** 2 * ((X @ Wp.T > 0) * a**2).sum(1).max() / p
        return min((mu - low) / mu, (up - mu) / mu)

    @st.composite
    def instances(draw):
        n, p = draw(st.integers(2, 7)), draw(st.integers(3, 8))
        d = n + draw(st.integers(0, 4))
        def floats(lo, hi, k):
            return st.lists(st.floats(lo, hi), min_size=k, max_size=k)

        labels = [s * v for s, v in zip(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)),
                                        draw(floats(1, 2, n)))]
        return (n, d, p, draw(st.floats(0, 0.15)), draw(floats(0.5, 2, n)), labels,
                draw(floats(-3, 3, n * d + p * d)), draw(floats(0, 1, p)) + draw(floats(0, 5, p)))

    found = tightest_case(searched_gap, instances(), seed=ctx.seed)
    worst = min(min(gaps_low), min(gaps_up), found.margin)
    return within_bound(worst, 0.0, "relative gaps; float64 rounding of μ and the bounds is ≤ 1e-12 relative",
                        side=">=", slack=1e-12, message=f"worst relative gap (lower {min(gaps_low):.3g}, "
                        f"corrected upper {min(gaps_up):.3g}) over {len(gaps_low)} instances, {informative} with a "
                        f"positive lower bound; {found.describe('relative gap')}", searched_min_gap=found.margin)


GROUP_LABELS = np.array([1.0, 1.5, 2.0, -1.2, -0.7, -1.9])


def _group_flow(seed):
    rng = np.random.default_rng([seed, 72])
    X = datasets.orthonormal_inputs(6, 8, rng)
    y = GROUP_LABELS
    U0 = np.array([[0.3, 0.1, 0.5], [0.2, 0.4, 0.05]])
    W0 = np.stack([U0[j] @ X[3 * j:3 * j + 3] for j in range(2)])
    a0 = np.array([1.0, -1.0]) * np.linalg.norm(W0, axis=1)
    res = flow_in_t(X, y, a0, W0, 20.0, paper_b(2), save_at=np.linspace(0, 20, 801), rtol=1e-12, atol=1e-14)
    tr = res.trajectory
    mus = np.array([mu_of(X, y, a, W, 2, active=flow_pattern(X, a, W)) for a, W in zip(tr.a, tr.W, strict=True)])
    return res, mus


def _simpson_cumulative(f, h):
    """∫_0^{t_{2k}} f by composite Simpson on even grid indices."""
    out = [0.0]
    for k in range(2, len(f), 2):
        out.append(out[-1] + h / 3 * (f[k - 2] + 4 * f[k - 1] + f[k]))
    return np.array(out)


@check("B.lem2.integral_identity", statement="B.lem2",
       mutant="the proof's μ = ‖∇L‖²/L without the factor p")
def integral_identity(ctx: Context) -> Outcome:
    """L(t) = L(0) exp(−∫_0^t μ) along the flow (group initialization, p = 2, t ≤ 20): log(L(t)/L(0))
    from the flow vs −∫μ by composite Simpson on 801 points."""
    flow, mus = ctx.cached("flow", lambda: _group_flow(ctx.seed))
    res = flow.trajectory
    if ctx.mutate:
        mus = mus / 2  # μ without the factor p = 2
    h = res.tau[1] - res.tau[0]
    fine = _simpson_cumulative(mus, h)
    coarse = _simpson_cumulative(mus[::2], 2 * h)
    measured = np.log(res.loss[::2] / res.loss[0])
    # the flow's error on ln L(t): δL/L = 2 δ‖r‖/‖r‖, with δ‖r‖ ≤ steps·rtol·‖y‖ (the outputs h ≈ y carry the
    # integrator's relative error) and ‖r‖ = √(2nL); largest where L is smallest
    n = len(GROUP_LABELS)
    flow_error = (2 * flow.stats["steps"] * flow.tolerances["rtol"] * np.linalg.norm(GROUP_LABELS)
                  / np.sqrt(2 * n * res.loss[::2].min()))
    tol = float(np.max(np.abs(fine[::2] - coarse))) + float(flow_error)
    if not flow.success:
        return Outcome(Status.INCONCLUSIVE, -fine, measured, tol, "", f"flow: {flow.message}")
    return agree(-fine, measured, tol, "Simpson error of the fine grid ≈ |S_h − S_2h|/15 (Richardson); allow the "
                 "whole |S_h − S_2h|, plus the flow's error on ln L: 2·steps·rtol·‖y‖/‖r‖ at the smallest loss "
                 f"({flow_error:.3g}; rtol 1e-12, {flow.stats['steps']} steps)",
                 message=f"t ∈ [0, 20], L falls from {res.loss[0]:.4g} to {res.loss[-1]:.4g}")


@check("B.remC2.kink_selection", statement="B.remC2",
       mutant="predicts the Filippov restart: ⟨w_j, x_i⟩ leaves 0 although a_j r_i > 0")
def kink_selection(ctx: Context) -> Outcome:
    """Orthogonal data, a neuron with ⟨w_j, x_i⟩ = 0 exactly and a_j r_i > 0: with σ'(0) = 0 (B eq. 3) the
    component stays exactly 0 for 2000 GD steps (η = 0.05) and along the event-aware flow (t ≤ 20)."""
    X = np.eye(3, 4)
    y = np.array([1.0, 2.0, 1.5])
    W0 = np.array([[0.5, 0.0, 0.3, 0.2], [0.0, 0.4, 0.0, -0.1]])  # ⟨w_1, x_2⟩ = 0 with a_1 r_2 > 0
    a0 = np.array([1.0, 1.0]) * (np.linalg.norm(W0, axis=1) + 0.5)
    conv = paper_b(2)
    a, W = a0.copy(), W0.copy()
    worst = 0.0
    for _ in range(2000):
        da, dW = field(X, y, a, W, conv)
        a, W = a + 0.05 * da, W + 0.05 * dW
        worst = max(worst, abs(float(X[1] @ W[0])))
    res = flow_in_t(X, y, a0, W0, 20.0, conv, rtol=1e-10)
    worst = max(worst, float(np.max(np.abs(res.trajectory.W[:, 0] @ X[1]))))
    r2 = float(y[1] - (X @ W0.T).clip(0)[1] @ a0 / 2)
    ok = worst == 0.0
    if ctx.mutate:
        ok = worst > 0.0
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "stays 0" if not ctx.mutate else "> 0", worst, 0,
                   "exact: σ'(0) = 0 makes the x_2-component of w_1's update exactly 0 (orthogonal data)",
                   f"max |⟨w_1, x_2⟩| = {worst:g} (a_1 r_2 = {a0[0] * r2:.3g} > 0 at t = 0)")


def beta0_orthogonal(lam, y, d):
    """β_0 of Lemma 4 for x_i = λ_i e_i, w ~ N(0, I_d/d), a = ±(‖w‖ + Exp(1)) (spec B §2.9, corrected (75)–(79))."""
    from scipy.special import gammaln

    e_norm = np.sqrt(2 / d) * np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))
    e_a2 = 3 + 2 * e_norm
    s2 = float(np.sum(lam**2 * y**2))
    s1 = float(np.sum(lam * y))
    return 2 / float(y @ y) * (s2 / (2 * d) + (s1**2 - s2) / (2 * np.pi * d) + e_a2 / 2 * s2)


def _lemma4_samples(seed, n=40, d=200, p=1000, inits=200):
    from relucheck.numerics import paper_b_sim as sim

    rng = np.random.default_rng([seed, 73])
    lam = rng.uniform(1, 2, n)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    A, W = sim.paper_b_init_in_span(inits, p, n, d, rng)
    return lam, y, n * sim.local_pl(lam, y, A, W)


@check("B.lem4.beta0", statement="B.lem4",
       mutant="the paper's (75) without the normalization by ‖R‖²: β_0 = 2 Yᵀ M̄ Y",
       finding="Lemma 4's β_0 in the paper's (75)–(79) lacks the normalization by ‖R‖²; the corrected β_0 matches "
               "the Monte Carlo mean of nμ(0).")
def beta0(ctx: Context) -> Outcome:
    """Lemma 4: the mean of n μ(0) over 200 seeded inits at p = 1000 (x_i = λ_i e_i, n = 40, d = 200, B's init)
    against the closed-form β_0 of spec B §2.9 (E[a²] = 3 + 2E‖w‖)."""
    lam, y, samples = ctx.cached("samples", lambda: _lemma4_samples(ctx.seed))
    beta = beta0_orthogonal(lam, y, 200)
    predicted = beta * float(y @ y) if ctx.mutate else beta
    se = float(np.std(samples, ddof=1) / np.sqrt(len(samples)))
    tol = 4 * se + 2 * beta / 1000
    return agree(predicted, float(np.mean(samples)), tol,
                 "4 standard errors of the Monte Carlo mean plus the delta method's O(1/p) bias, taken as 2β_0/p",
                 message=f"β_0 = {beta:.4f}; mean n μ(0) = {np.mean(samples):.4f} ± {se:.3f} (SE); "
                         f"√p·sd = {np.std(samples) * np.sqrt(1000):.2f} (γ_0)")


def _extinction_run(seed, n=100, d=40_000, p=20, delta=1.0, lr=0.05, max_steps=2000):
    from relucheck.numerics import paper_b_sim as sim
    from relucheck.numerics.flows.batched_gd import descend

    rng = np.random.default_rng([seed, 74])
    lam = rng.uniform(1, 2, n)  # x_i = λ_i e_i (span coordinates of orthogonal data in ℝ^d)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    W = rng.standard_normal((1, p, n)) / np.sqrt(d)
    norm2 = (W[0] ** 2).sum(1) + rng.chisquare(d - n, p) / d
    A = rng.choice([-1.0, 1.0], (1, p)) * np.sqrt(norm2 + delta)  # a_j(0)² − ‖w_j(0)‖² = Δ
    wrong = A[0][:, None] * y[None, :] < 0
    u0 = np.maximum(W[0], 0)  # ⟨w_j(0), x̄_i⟩_+
    t_tilde = 2 * n * u0.max() / (np.abs(y).min() * lam.min() * np.sqrt(delta))
    seen = {"t_ext": None, "t_star": None, "prev": np.maximum(W[0] * lam, 0), "monotone": True}

    def observe(k, _field, A, W):  # the state after k GD steps
        Z = W[0] * lam
        if seen["t_ext"] is None and not np.any((Z > 0) & wrong):
            seen["t_ext"] = k * lr
        h = (np.maximum(Z, 0).T @ A[0]) / p
        if seen["t_star"] is None and np.any(np.abs(h) > np.abs(y) / 2):
            seen["t_star"] = k * lr
        if seen["t_star"] is None:
            cur = np.maximum(Z, 0)
            seen["monotone"] &= bool(np.all(cur[~wrong] >= seen["prev"][~wrong]))
            seen["prev"] = cur
        return seen["t_ext"] is not None and seen["t_star"] is not None

    descend(sim.runs_of(lam, y, p), A, W, lr, max_steps, observe=observe)
    return t_tilde, seen["t_ext"], seen["t_star"], seen["monotone"]


@check("B.lem8.extinction", statement="B.lem8",
       mutant="claims the wrongly signed activations survive until t* (no extinction before the fit starts)")
def extinction(ctx: Context) -> Outcome:
    """Lemma 8 with the corrected √Δ (spec B §2.15, B20): orthogonal data, n = 100, d = 4·10⁴, p = 20,
    a_j(0)² − ‖w_j(0)‖² = Δ = 1, GD η = 0.05. When t̃ = 2n max⟨w_j(0), x̄_i⟩_+/(C_y^- C_x^- √Δ) ≤ t*
    (first time some |h(x_i)| > |y_i|/2), every wrongly signed activation is extinct by t̃ and the correctly
    signed ⟨w_j, x_i⟩_+ do not decrease before t*."""
    t_tilde, t_ext, t_star, monotone = ctx.cached("run", lambda: _extinction_run(ctx.seed))
    if t_star is None or t_tilde > t_star:
        return Outcome(Status.INCONCLUSIVE, t_tilde, t_ext, 0.05, "GD time grid η = 0.05",
                       f"the lemma's hypothesis t̃ ≤ t* fails (t̃ = {t_tilde:.3g}, t* = "
                       f"{'never reached' if t_star is None else f'{t_star:.6g}'})")
    if ctx.mutate:
        ok = t_ext is None or t_ext >= t_star
    else:
        ok = t_ext is not None and t_ext <= t_tilde and monotone
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, f"extinction ≤ t̃ = {t_tilde:.3g}", t_ext, 0.05,
                   "times on the GD grid η = 0.05 (exact comparisons of recorded step times)",
                   ("no extinction" if t_ext is None else f"extinction at t = {t_ext:.6g}")
                   + f", t̃ = {t_tilde:.3g}, t* = {t_star:.6g}; the correctly signed pairs "
                   f"{'do not decrease' if monotone else 'decrease'} before t* (times on the GD grid η = 0.05)")
