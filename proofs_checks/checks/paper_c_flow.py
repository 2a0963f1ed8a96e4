"""Paper C: the gradient flow at small λ against Algorithm 1 (Theorem 2 and its lemmas), spec C §2.6, §5 C07–C28.

Flows come from the engines of `numerics.orthogonal_flow` ("uw-float64", any λ) and
`numerics.orthogonal_raw` ("raw-float64", λ ≥ 1e-150); the limit from `theory.limit_process`.
Instances: the spec's golden example (§2.7) and seeded random orthonormal instances (rotated basis,
d > n, mixed signs) drawn until Algorithm 1's jumps are well separated (`separated_instance`), so that
the O(1/ln(1/λ)) error law is visible at moderate λ. Flows are memoized per (instance, λ, engine) so
that checks sharing a run pay for it once.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from relucheck.numerics import datasets
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.initializations import balanced
from relucheck.numerics.instances import Instance
from relucheck.numerics.orthogonal_flow import RTOL, uw_flow
from relucheck.numerics.orthogonal_raw import raw_flow
from relucheck.numerics.scale import InitScale
from relucheck.theory.first_jump import first_jump, linear_phase
from relucheck.theory.limit_process import correct_sign_mask, limit_process_of

from ..registry import Context, check
from ..result import Outcome, Status, agree

EPS = np.finfo(float).eps
SPEC_C_BOUND = 25.0  # spec C11(b): |τ̂_k − τ_k|·ln(1/λ) ≤ 25 for n ≤ 64 and |y_i| = O(1)
ENGINES = {"uw-float64": uw_flow, "raw-float64": raw_flow}


def golden_instance() -> Instance:
    """Spec C §2.7: n = 4, x_i = e_i, y = (3, 4, 1, 2), m = 3, all s_j = +1; τ_1 = 4/5, S_1 = {0, 1}."""
    G = np.array([[1, 1, -1, -1], [-1, 1, 1, 1], [-1, -1, 1, -1]], dtype=float) / 2.0
    return Instance(np.eye(4), np.array([3.0, 4.0, 1.0, 2.0]), G, np.ones(3), {"name": "golden (spec C §2.7)"})


def leftover_exponent(instance: Instance, lp) -> float:
    """c* (spec C14, widened): min u_j(τ_l) over jumps l and neurons j ≠ j_l still unfitted and growing at τ_l.

    Such a neuron has grown to λ^{u_j(τ_l)} by the jump; if it is active on S_l it keeps a frozen raw component of
    that order there (spec C14's pairs), and if it never jumps it keeps a_j² ≈ λ^{2u_j(τ_l)} (a near-tie of line 8).
    1 if there is no such neuron.
    """
    c = 1.0
    fitted = set()
    for k, jp in enumerate(lp.jumps):
        growing = lp.segment_rates[k] > 0
        for j in range(instance.m):
            if j != jp.neuron and j not in fitted and growing[j]:
                c = min(c, float(jp.exponents[j]))
        fitted.add(jp.neuron)
    return c


def separated_instance(seed, n: int = 8, m: int = 5, d: int = 10, *, min_gap: float = 0.6,
                       min_leftover: float = 0.25, max_tries: int = 500) -> Instance:
    """A random orthonormal instance (rotated basis, y ~ N(0,1) with |y_i| ≥ 0.3, random signs) whose Algorithm-1
    jumps are ≥ ``min_gap`` apart (first jump included), at least 2, tie-free, and whose leftover exponent c* is ≥
    ``min_leftover``. Draws with numpy default_rng([seed, 31, attempt]) until one qualifies."""
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, 31, attempt])
        X = datasets.orthonormal_inputs(n, d, rng)
        y = rng.choice([-1.0, 1.0], n) * (0.3 + np.abs(rng.standard_normal(n)))
        G, s = datasets.random_directions(m, d, rng), datasets.random_signs(m, rng)
        inst = Instance(X, y, G, s, {"seed": [seed, 31, attempt]})
        lp = limit_process_of(inst)
        taus = [0.0] + [jp.tau for jp in lp.jumps]
        if len(lp.jumps) < 2 or lp.ties or min(np.diff(taus)) < min_gap:
            continue
        if leftover_exponent(inst, lp) < min_leftover:
            continue
        return inst
    raise RuntimeError(f"no separated instance in {max_tries} draws (seed {seed})")


def wrong_sign_instance(seed, n: int = 10, m: int = 5, d: int = 12, *, min_leftover: float = 0.25,
                        max_tries: int = 500) -> Instance:
    """A random orthonormal instance whose first jumping neuron has wrong-sign active components (so κ needs the
    event-driven linear system) and whose other neurons are still at u_j(τ_1) ≥ ``min_leftover``.
    Draws with default_rng([seed, 37, attempt])."""
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, 37, attempt])
        X = datasets.orthonormal_inputs(n, d, rng)
        y = rng.choice([-1.0, 1.0], n) * (0.3 + np.abs(rng.standard_normal(n)))
        G, s = datasets.random_directions(m, d, rng), datasets.random_signs(m, rng)
        inst = Instance(X, y, G, s, {"seed": [seed, 37, attempt]})
        lp = limit_process_of(inst)
        if not lp.jumps or lp.ties:
            continue
        first = lp.jumps[0]
        others = [u for j, u in enumerate(first.exponents) if j != first.neuron]
        if others and min(others) < min_leftover:
            continue
        if first_jump(inst, lp).wrong_sign >= 1:
            return inst
    raise RuntimeError(f"no wrong-sign instance in {max_tries} draws (seed {seed})")


@lru_cache(maxsize=None)
def instance_of(name: str, seed: int) -> Instance:
    if name == "golden":
        return golden_instance()
    if name == "random":
        return separated_instance(seed)
    if name == "wrong-sign":
        return wrong_sign_instance(seed)
    if name == "random-unrotated":  # x_i = e_i exactly: inactive components are exact zeros of the field
        return _in_data_basis(separated_instance(seed))
    raise KeyError(name)


def _in_data_basis(inst: Instance) -> Instance:
    """The same instance in the orthonormal basis (x_1, …, x_n, complement): inputs become e_1, …, e_n."""
    from scipy.linalg import null_space

    basis = np.vstack([inst.inputs, null_space(inst.inputs).T])  # (d, d) orthogonal
    return Instance(np.eye(inst.n, inst.d), inst.labels, inst.directions @ basis.T, inst.signs)


@lru_cache(maxsize=None)
def flow_of(name: str, seed: int, lam: str, engine: str = "uw-float64", horizon: float | None = None):
    return ENGINES[engine](instance_of(name, seed), lam, horizon=horizon)


@lru_cache(maxsize=None)
def limit_of(name: str, seed: int):
    return limit_process_of(instance_of(name, seed))


def jump_errors(name, seed, lams, engine="uw-float64"):
    """(τ̂_k − τ_k) per λ (rows) and jump k (columns), matching jumps by neuron; nan when a jump is missing."""
    lp = limit_of(name, seed)
    out = np.full((len(lams), len(lp.jumps)), np.nan)
    for r, lam in enumerate(lams):
        run = flow_of(name, seed, lam, engine)
        by_neuron = {jp.neuron: jp.tau for jp in run.jumps}
        for k, jp in enumerate(lp.jumps):
            if jp.neuron in by_neuron:
                out[r, k] = by_neuron[jp.neuron] - jp.tau
    return out


def _jump_time_outcome(ctx, cases, shift):
    """Spec C11 (a)–(b) on each (instance, λ-list) case."""
    rows, ok, worst_scaled = [], True, 0.0
    for name, lams in cases:
        err = jump_errors(name, ctx.seed, lams) - shift
        L = np.array([InitScale.of(lam).log_inv for lam in lams])
        scaled = np.abs(err) * L[:, None]
        decreasing = bool(np.all(np.isfinite(err)) and np.all(np.diff(np.abs(err), axis=0) < 0))
        bounded = bool(np.all(scaled <= SPEC_C_BOUND))
        ok &= decreasing and bounded
        worst_scaled = max(worst_scaled, float(np.nanmax(scaled)))
        rows.append({"instance": name, "lambdas": lams, "errors": err.tolist(), "scaled": scaled.tolist(),
                     "decreasing": decreasing, "bounded": bounded})
    return Outcome(Status.VERIFIED if ok else Status.REFUTED,
                   f"|τ̂_k − τ_k| strictly decreasing as λ ↓ and ≤ {SPEC_C_BOUND:g}/ln(1/λ)",
                   {r["instance"]: r["scaled"] for r in rows}, SPEC_C_BOUND,
                   "Theorem 2 with the error law C_k/ln(1/λ) (spec C §2.6): errors must shrink along the λ sequence; "
                   f"|C_k| ≤ {SPEC_C_BOUND:g} is spec C11(b)'s bound for n ≤ 64, |y_i| = O(1); instances are drawn with "
                   "jump gaps ≥ 0.6 ≫ C_k/ln(1/λ) so that neighbouring jumps do not interact",
                   f"worst |τ̂_k − τ_k|·ln(1/λ) = {worst_scaled:.4g}", details={"cases": rows})


@check("C.thm2.jump_times", statement="C.thm2",
       mutant="predicts every jump 0.05 later (τ_k + 0.05)")
def jump_times(ctx: Context) -> Outcome:
    """Flow jump times (half-fit rule) converge to Algorithm 1's like C_k/ln(1/λ): golden λ = 1e-10…1e-80, random 1e-20…1e-80."""
    cases = [("golden", ("1e-10", "1e-20", "1e-40", "1e-80")), ("random", ("1e-20", "1e-40", "1e-80"))]
    return _jump_time_outcome(ctx, cases, 0.05 if ctx.mutate else 0.0)


@check("C.thm2.jump_times_sweep", statement="C.thm2", suites=("full",),
       mutant="predicts every jump 0.02 later (τ_k + 0.02)")
def jump_times_sweep(ctx: Context) -> Outcome:
    """Spec C11 over λ = 1e-5 … 1e-1000 (uw engine) on the golden example and a random instance."""
    lams = ("1e-5", "1e-10", "1e-20", "1e-40", "1e-80", "1e-200", "1e-1000")
    cases = [("golden", lams), ("random", lams[2:])]
    return _jump_time_outcome(ctx, cases, 0.02 if ctx.mutate else 0.0)


def _first_jump_case(name, seed, lam):
    inst, lp = instance_of(name, seed), limit_of(name, seed)
    fj = first_jump(inst, lp)
    # stop mid-way to the second jump: the first neuron has settled (λ^{γ(τ_2 − τ_1)}) and later jumps are irrelevant
    horizon = (lp.jumps[0].tau + lp.jumps[1].tau) / 2 if len(lp.jumps) > 1 else lp.jumps[0].tau + 0.5
    run = flow_of(name, seed, lam, "uw-float64", horizon)
    tau_hat = {jp.neuron: jp.tau for jp in run.jumps}.get(fj.neuron, math.nan)
    measured = (tau_hat - lp.jumps[0].tau) * run.log_inv_lambda
    lam_mp = InitScale.of(lam)
    # neglected terms (module docstring of theory.first_jump): other neurons' output on S_1, the final-value shift
    others = [u for j, u in enumerate(lp.jumps[0].exponents) if j != fj.neuron]
    u_min = min(others) if others else 1.0
    rates = lp.segment_rates[0]
    other_rates = [r for j, r in enumerate(rates) if j != fj.neuron and r > 0]
    gamma_min = float(min(other_rates)) if other_rates else fj.gamma
    neglected = math.exp(-2 * u_min * lam_mp.log_inv) / (inst.n * fj.gamma * gamma_min)
    neglected += 3 * math.exp(-u_min * lam_mp.log_inv) / (2 * fj.gamma)
    integration = run.stats["steps"] * RTOL / fj.gamma
    return fj, measured, neglected, integration


@check("C.thm2.first_jump_constant", statement="C.thm2",
       mutant="κ without the factor 1/2 (κ = 1 + ⟨ḡ, ŷ_S⟩ in the closed form), i.e. C_1 − ln 2/γ")
def first_jump_constant(ctx: Context) -> Outcome:
    """(τ̂_1 − τ_1)·ln(1/λ) at λ = 1e-200 against C_1 = ln(√‖y_{S_1}‖/κ)/γ (golden: closed-form κ = 0.85;
    random mixed-sign instances, one whose first neuron has wrong-sign components: κ from the exact
    piecewise-linear solution with deactivation events)."""
    preds, meas, tols, info = [], [], [], []
    for name in ("golden", "random", "wrong-sign"):
        fj, measured, neglected, integration = ctx.cached(name, lambda name=name: _first_jump_case(name, ctx.seed, "1e-200"))
        pred = fj.constant - (math.log(2) / fj.gamma if ctx.mutate else 0.0)
        preds.append(pred)
        meas.append(measured)
        tols.append(neglected + integration)
        info.append({"instance": name, "kappa": fj.kappa, "wrong_sign_components": fj.wrong_sign, "C1": fj.constant,
                     "measured": measured, "neglected_terms": neglected, "integration": integration})
    tol = max(tols)
    return agree(preds, meas, tol,
                 "integration: DOP853 at rtol 1e-10 contributes ≤ rtol per step to ln ρ, hence ≤ steps·rtol/γ to the "
                 "half-fit time (in ln(1/λ)-scaled units); neglected: other neurons' output on S_1 ≈ "
                 "λ^{2u_j(τ_1)}/(nγγ_j) and the final-value shift 3λ^{c*}/(2γ) (spec C14), both ≤ 1e-15 at λ = 1e-200",
                 message=f"C_1 predicted {[round(p, 9) for p in preds]} vs measured {[round(q, 9) for q in meas]}",
                 cases=info)


def _plateau_case(name, seed, lam):
    inst, lp, run = instance_of(name, seed), limit_of(name, seed), flow_of(name, seed, lam)
    return inst, lp, run


@check("C.lem1.saddle_losses", statement="C.lem1",
       mutant="saddle loss (1/n)Σ_{i∈U_k} y_i² (the 1/(2n) normalization lost)")
def saddle_losses(ctx: Context) -> Outcome:
    """Losses at plateau midpoints between detected jumps = (1/2n)Σ_{i∈U_k} y_i² (spec C12), λ = 1e-40."""
    lam = "1e-40"
    preds, meas, tols = [], [], []
    for name in ("golden", "random"):
        inst, lp, run = _plateau_case(name, ctx.seed, lam)
        L = run.log_inv_lambda
        factor = 2.0 if ctx.mutate else 1.0
        preds += [factor * p for p in lp.plateaus]
        meas += list(run.loss_plateaus)
        taus = [0.0] + [jp.tau for jp in run.jumps]
        gaps = np.diff(taus)
        gamma_min = float(min(jp.norm_y for jp in lp.jumps)) / inst.n
        # error at a midpoint: unfitted neurons ≤ λ^{2u}, settling λ^{2γ·gap/2}, leftovers λ^{c*}
        u_mid = min(float(np.min(lp.exponents_at((taus[k] + taus[k + 1]) / 2)[[j for j in range(inst.m)
                    if j not in [jp.neuron for jp in lp.jumps[:k]]]])) if k < len(lp.jumps) else 1.0
                    for k in range(len(gaps)))
        rate = max(math.exp(-2 * u_mid * L), math.exp(-gamma_min * min(gaps) * L), math.exp(-leftover_exponent(inst, lp) * L))
        tols.append(3 * np.abs(inst.labels).sum() / inst.n * rate)
    n_plateaus = len(meas)
    if len(preds) != n_plateaus:
        return Outcome(Status.REFUTED, preds, meas, max(tols), "plateau counts differ",
                       "the flow has a different number of jumps")
    return agree(preds, meas, max(tols),
                 "Theorem 2's polynomial rate: at a midpoint the loss differs from the saddle's by ≤ (3‖y‖₁/n)·max(λ^{2u_min}, "
                 "λ^{γ_min·gap}, λ^{c*}) — unfitted neurons of size λ^{u_j}, exponential settling after a jump, and frozen "
                 "leftovers on earlier-fitted points (spec C12, C14)")


@check("C.thm1.one_neuron_per_saddle", statement="C.thm1",
       mutant="predicts k + 1 grown neurons on plateau k (two neurons at the first jump)")
def one_neuron_per_saddle(ctx: Context) -> Outcome:
    """#{j : a_j² ≥ 0.1·min_k ‖y_{S_k}‖} at each plateau midpoint = k on plateau k (spec C13), λ = 1e-40."""
    preds, meas = [], []
    for name in ("golden", "random"):
        lp, run = limit_of(name, ctx.seed), flow_of(name, ctx.seed, "1e-40")
        level = 0.1 * min(jp.norm_y for jp in lp.jumps)
        marks = [0.0] + [jp.tau for jp in run.jumps] + [float(run.taus[-1])]
        for k in range(len(marks) - 1):
            mid = (marks[k] + marks[k + 1]) / 2 if k < len(marks) - 2 else marks[-1]
            rho = np.array([np.interp(mid, run.taus, run.rho[:, j]) for j in range(run.rho.shape[1])])
            meas.append(int(np.sum(rho >= level)))
            preds.append(k + (1 if ctx.mutate else 0))
    return agree(preds, meas, 0,
                 "exact count: at λ = 1e-40 an unfitted neuron has a_j² ≤ λ^{2u_j} ≪ 0.1·min‖y_S‖ unless its exponent is "
                 "within 0.02 of 0, which the separated instances exclude at plateau midpoints")


@check("C.lem9.final_parameters", statement="C.lem9",
       mutant="eq. (14) without the square root: a_j = s_j ‖y_{S}‖ (and w_j scaled alike)")
def final_parameters(ctx: Context) -> Outcome:
    """At τ_K + 0.5 the flow's (a, W) equal eqs. (13)–(14) up to 3·λ^{c*} (spec C14), λ = 1e-40 and 1e-80."""
    preds, meas = [], []
    for name in ("golden", "random"):
        inst, lp = instance_of(name, ctx.seed), limit_of(name, ctx.seed)
        a_pred, W_pred = lp.a.copy(), lp.weights(inst.inputs)
        if ctx.mutate:
            a_pred = np.sign(a_pred) * a_pred**2
            W_pred = W_pred * np.sqrt(np.maximum(np.abs(a_pred), 1.0))[:, None]
        for lam in ("1e-40", "1e-80"):
            run = flow_of(name, ctx.seed, lam)
            L = run.log_inv_lambda
            gamma_min = min(jp.norm_y for jp in lp.jumps) / inst.n
            rate = max(math.exp(-leftover_exponent(inst, lp) * L), math.exp(-2 * gamma_min * 0.5 * L))
            err = max(np.abs(run.a - a_pred).max(), np.abs(run.W - W_pred).max())
            preds.append(3 * rate)
            meas.append(float(err))
    ok = all(q <= p for p, q in zip(preds, meas, strict=True))
    pairs = [f"{q:.3g} ≤ {p:.3g}" for p, q in zip(preds, meas, strict=True)]
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, preds, meas, "3·λ^{c*}",
                   "spec C14's error law (c* widened by leftover_exponent): a neuron fitted after jump l keeps a frozen "
                   "leftover λ^{u_j(τ_l)} on a point of S_l "
                   "(c* = min of these exponents), and the last jump settles like λ^{2γ·0.5} at τ_K + 0.5; the factor 3 is the "
                   "spec's (observed ≈ 1.7)",
                   f"max parameter error vs 3·max(λ^{{c*}}, λ^{{γ}}): {pairs}")


@check("C.thm2.fitted_sets", statement="C.thm2",
       mutant="a jumping neuron fits all its correct-sign active points A_j (not only the unfitted ones S_j)")
def fitted_sets(ctx: Context) -> Outcome:
    """Order of jumping neurons and the data each fits (half-output rule) = Algorithm 1's (j_k, S_k), λ = 1e-40."""
    preds, meas = [], []
    for name in ("golden", "random"):
        inst, lp, run = instance_of(name, ctx.seed), limit_of(name, ctx.seed), flow_of(name, ctx.seed, "1e-40")
        A = correct_sign_mask(inst.labels, inst.signs, inst.activation())
        for jp in lp.jumps:
            fitted = np.flatnonzero(A[:, jp.neuron]).tolist() if ctx.mutate else jp.fitted
            preds.append((jp.neuron, fitted))
        meas += [(jp.neuron, jp.fitted) for jp in run.jumps]
    ok = preds == meas
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, str(preds), str(meas), "exact",
                   "exact combinatorics: (j_k, S_k) are discrete; at λ = 1e-40 leftovers are ≤ λ^{c*} ≪ the half-output "
                   "rule's margin |y_i|/2",
                   "identical" if ok else "the sequences differ")


@check("C.asm2.frozen_components", statement="C.asm2",
       mutant="predicts the wrong-sign positive components keep their initial value (never deactivate)")
def frozen_components(ctx: Context) -> Outcome:
    """Raw engine, x_i = e_i, λ = 1e-20: every initially non-positive ⟨w_j, x_i⟩ is unchanged bit for bit, every
    wrong-sign positive one was deactivated (an event) and sits exactly at 0 (C Assumption 2, σ'(0) = 0; spec C08, C10)."""
    inst = instance_of("random-unrotated", ctx.seed)
    run = ctx.cached("raw", lambda: flow_of("random-unrotated", ctx.seed, "1e-20", "raw-float64"))
    lam = InitScale.of("1e-20").as_float()
    Z0 = lam * inst.directions @ inst.inputs.T  # (m, n)
    Z = run.W @ inst.inputs.T
    nonpos = Z0 <= 0
    wrong = (Z0 > 0) & (np.outer(inst.signs, inst.labels) < 0)
    pred = np.where(nonpos, Z0, 0.0)[nonpos | wrong]
    if ctx.mutate:
        pred = Z0[nonpos | wrong]
    meas = Z[nonpos | wrong]
    events = {(e["neuron"], e["datum"]) for e in run.stats["event_list"]}
    all_events = all((j, i) in events for j, i in zip(*np.nonzero(wrong), strict=True))
    out = agree(pred, meas, 0.0, "exact: with x_i = e_i the field's inactive components are exact float64 zeros, and an "
                "event snaps the crossing component to exactly 0",
                message=f"{int(nonpos.sum())} non-positive and {int(wrong.sum())} wrong-sign components; "
                        f"every wrong-sign component deactivated by an event: {all_events}")
    return out.require(all_events, "a wrong-sign component was deactivated without an event")


@check("C.lem3.early_phase", statement="C.lem3",
       mutant="the early phase without the 1/n of D_j (event times and alignment of the system with y in place of y/n)")
def early_phase(ctx: Context) -> Outcome:
    """Lemma 3 (1), (3): alignment at τ_0 = 0.05 and the deactivation times of wrong-sign components equal those of the
    λ-free linear system (theory.first_jump.linear_phase) read at t = τ·ln(1/λ), for λ = 1e-20 and 1e-40; the
    misalignment 1 − ⟨w̄_j, w̄_j^{(0)}⟩ decreases with λ."""
    from relucheck.numerics.orthogonal_flow import integrate, stable_step, uw_system

    inst = instance_of("random", ctx.seed)
    X, y, n = inst.inputs, inst.labels, inst.n
    A = correct_sign_mask(y, inst.signs, inst.activation())
    tau0 = 0.05
    yy = y * n if ctx.mutate else y
    preds, meas, misalign = [], [], []
    for lam in ("1e-20", "1e-40"):
        L = InitScale.of(lam).log_inv
        system, z0, act0, _ = uw_system(inst, L)
        traj = ctx.cached(lam, lambda system=system, z0=z0, act0=act0, L=L:
                          integrate(system, z0, act0, tau0, max_step=stable_step(inst, L)))
        C = traj.z[inst.m:inst.m + inst.m * n].reshape(inst.m, n)
        row = []
        for j in range(inst.m):
            if not A[:, j].any():
                continue
            g = X @ inst.directions[j]
            phase = linear_phase(g, yy, inst.signs[j], tau0 * L)
            comp = inst.directions[j] - g @ X  # frozen complement of ḡ_j
            z_full = np.concatenate([phase.z, [np.linalg.norm(comp)]])
            c_pred = z_full / np.linalg.norm(z_full)
            target = np.where(A[:, j], np.abs(y), 0.0)
            target /= np.linalg.norm(target)
            preds.append(float(c_pred[:n] @ target))
            meas.append(float(C[j] @ target))
            row.append(1 - meas[-1])
            ev_meas = sorted(e["tau"] * L for e in traj.events if e["neuron"] == j)
            ev_pred = phase.events
            if len(ev_meas) == len(ev_pred):
                preds += list(ev_pred)
                meas += ev_meas
            else:
                preds.append(float(len(ev_pred)))
                meas.append(float(len(ev_meas)))
        misalign.append(row)
    decreasing = bool(np.all(np.array(misalign[1]) < np.array(misalign[0])))
    out = agree(preds, meas, 1e-6,
                "the linear system is exact up to O(λ²) before any growth; DOP853 at rtol 1e-10 over ≤ 10⁴ steps gives ≤ 1e-6 "
                "on the cosines and on event times in real-time units (t = τ ln(1/λ), events located by root finding)",
                message=f"misalignment at τ_0 = 0.05 for λ = 1e-20, 1e-40: {misalign}; decreasing: {decreasing}")
    return out.require(decreasing, "misalignment does not decrease with λ")


def _signed_subinstance(inst: Instance, sign: float, *, renormalize: bool) -> Instance | None:
    J = inst.signs == sign
    if not J.any():
        return None
    if renormalize:  # the wrong decoupling: the sub-problem as its own data set (normalization 1/n_±)
        own = np.sign(inst.labels) == sign
        return Instance(inst.inputs[own], inst.labels[own], inst.directions[J], inst.signs[J])
    return Instance(inst.inputs, inst.labels, inst.directions[J], inst.signs[J])


@check("C.lem3.sign_decoupling", statement="C.lem3",
       mutant="decouples by treating (I_±, J_±) as separate data sets (normalization 1/n_± instead of 1/n)")
def sign_decoupling(ctx: Context) -> Outcome:
    """Eq. (56)–(57), spec C26: the jumps of the full flow = those of the flows of J_+ and J_− run separately, λ = 1e-40."""
    inst = instance_of("random", ctx.seed)
    full = flow_of("random", ctx.seed, "1e-40")
    preds, meas = [], []
    for sign in (1.0, -1.0):
        sub = _signed_subinstance(inst, sign, renormalize=ctx.mutate)
        if sub is None:
            continue
        idx = np.flatnonzero(inst.signs == sign)
        horizon = float(full.tolerances["horizon"])
        run = ctx.cached(("sub", sign, ctx.mutate), lambda sub=sub, horizon=horizon: uw_flow(sub, "1e-40", horizon=horizon))
        preds += [jp.tau for jp in run.jumps]
        meas += [jp.tau for jp in full.jumps if jp.neuron in set(idx[[j.neuron for j in run.jumps]])] if run.jumps else []
    preds = sorted(preds)
    meas = sorted(meas)
    L = full.log_inv_lambda
    return agree(preds, meas, 1e-6,
                 "the two sign classes interact only through O(λ²) products before the wrong-sign components die (Lemma 3), "
                 "i.e. not at all in float64 at λ = 1e-40; 1e-6 is the integration tolerance of two DOP853 runs "
                 f"(rtol 1e-10, ≤ 10⁴ steps) on jump times of size ≤ 20 (ln(1/λ) = {L:.4g})")


@check("C.thm2.engines_agree", statement="C.thm2",
       mutant="compares the uw engine's jump times with the raw engine's run in real time (no ln(1/λ) acceleration): τ·ln(1/λ)")
def engines_agree(ctx: Context) -> Outcome:
    """Raw (a, W) engine vs (ũ, w̄) engine at λ = 1e-40 on the rotated random instance (spec C27-like)."""
    uw = flow_of("random", ctx.seed, "1e-40")
    raw = flow_of("random", ctx.seed, "1e-40", "raw-float64")
    scale = uw.log_inv_lambda if ctx.mutate else 1.0
    preds = [jp.tau for jp in uw.jumps] + uw.a.tolist()
    meas = [jp.tau * scale for jp in raw.jumps] + raw.a.tolist()
    steps = max(uw.stats["steps"], raw.stats["steps"])
    tol = 10 * steps * RTOL * max(1.0, max(abs(p) for p in preds))
    return agree(preds, meas, tol,
                 "two DOP853 integrations at rtol 1e-10 of the same flow in different coordinates: global error ≤ "
                 "10·steps·rtol relative to the largest compared value (jump times and final a_j)",
                 message=f"{len(uw.jumps)} jumps; nfev uw {uw.stats['nfev']}, raw {raw.stats['nfev']}")


@check("C.thm1.gd_matches_flow", statement="C.thm1", suites=("full",),
       mutant="converts GD steps to accelerated time without the learning rate (τ = k / ln(1/λ))")
def gd_matches_flow(ctx: Context) -> Outcome:
    """Spec C28: plain GD in raw coordinates (lr 0.05 and 0.01, λ = 1e-20) jumps at the flow's times within a
    relative O(η γ) (golden example)."""
    inst = instance_of("golden", ctx.seed)
    lam = "1e-20"
    flow = flow_of("golden", ctx.seed, lam)
    L = flow.log_inv_lambda
    preds, meas, tols = [], [], []
    for lr in (0.05, 0.01):
        hist = ctx.cached(lr, lambda lr=lr: _gd_rho(inst, lam, lr, flow.tolerances["horizon"] * L))
        steps = np.arange(hist.shape[0])
        from relucheck.numerics.engines import activation_times

        conv = 1.0 if ctx.mutate else lr
        taus = steps * conv / L
        gd_jumps = dict((j, t) for t, j in activation_times(taus, hist))
        gamma = max(jp.norm_y for jp in limit_of("golden", ctx.seed).jumps) / inst.n
        for jp in flow.jumps:
            preds.append(jp.tau)
            meas.append(gd_jumps.get(jp.neuron, math.nan))
            tols.append(lr * gamma * jp.tau + lr / L)
    return agree(np.array(preds), np.array(meas), max(tols),
                 "explicit Euler is first order: (1 + ηγ)^{t/η} = e^{γt(1 − ηγ/2 + O(η²γ²))}, so a size is reached later by "
                 "ηγ/2 relative, i.e. jump times move by ηγτ_k/2 (tolerance: twice that, γ the largest rate), plus one "
                 "step (η/ln(1/λ)) of detection granularity; x_i = e_i as in the paper's runs")


def _gd_rho(inst, lam, lr, t_end):
    a0, W0 = balanced(inst, lam)
    steps = int(math.ceil(t_end / lr))
    rho = np.empty((steps + 1, inst.m))

    def record(k, _field, a, _W):  # the state after k steps
        rho[k] = a**2

    a, W = np.array(a0, dtype=float), np.array(W0, dtype=float)
    descend(GDBatch.shared(inst.inputs, inst.labels), a, W, lr, steps, observe=record)
    rho[steps] = a**2
    return rho


def exponent_tracking_error(name: str, seed: int, lam: str, shift: float = 0.0, margin: float = 0.05) -> float:
    """sup |ũ_j(τ) − u_j(τ)| over plateau interiors [τ̂_k + margin, τ̂_{k+1} − margin] and neurons still unfitted
    and growing there (Algorithm 1 rate > 0); ũ_j = −ln(a_j²)/(2 ln(1/λ)) from the flow, u_j from eq. (11) (+ shift)."""
    lp, run = limit_of(name, seed), flow_of(name, seed, lam)
    L = run.log_inv_lambda
    marks = [0.0] + [jp.tau for jp in run.jumps] + [float(run.taus[-1])]
    worst = 0.0
    for k in range(len(marks) - 1):
        inside = (run.taus >= marks[k] + margin) & (run.taus <= marks[k + 1] - margin)
        if k >= len(lp.segment_rates):
            continue
        tracked = np.flatnonzero(lp.segment_rates[k] > 0)
        for t, rho in zip(run.taus[inside], run.rho[inside], strict=True):
            u_flow = -np.log(rho[tracked]) / (2 * L)
            u_limit = lp.exponents_at(float(t))[tracked] + shift
            worst = max(worst, float(np.max(np.abs(u_flow - u_limit))) if tracked.size else 0.0)
    return worst


@check("C.hyp1.exponent_tracking", statement="C.hyp1",
       mutant="predicts every exponent 0.05 higher (u_j(τ) + 0.05)")
def exponent_tracking(ctx: Context) -> Outcome:
    """Hypothesis 1 (1) and Lemmas 4, 8 (item 6), spec C15: on plateau interiors the flow's exponents ũ_j track
    eq. (11) with an error that shrinks like 1/ln(1/λ): sup|ũ_j − u_j| decreases along λ = 1e-20, 1e-40, 1e-80 and
    sup|ũ_j − u_j|·ln(1/λ) changes by less than a factor 1.5 when ln(1/λ) doubles (golden and random instances)."""
    lams = ("1e-20", "1e-40", "1e-80")
    shift = 0.05 if ctx.mutate else 0.0
    L = np.array([InitScale.of(lam).log_inv for lam in lams])
    rows, ok = {}, True
    for name in ("golden", "random"):
        sup = np.array([exponent_tracking_error(name, ctx.seed, lam, shift) for lam in lams])
        scaled = sup * L
        ratios = scaled[1:] / scaled[:-1]
        decreasing = bool(np.all(np.diff(sup) < 0))
        one_over_L = bool(np.all((ratios > 1 / 1.5) & (ratios < 1.5)))
        ok &= decreasing and one_over_L
        rows[name] = {"sup": sup.tolist(), "sup_times_L": scaled.tolist(), "ratios": ratios.tolist(),
                      "decreasing": decreasing, "one_over_L": one_over_L}
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "sup|ũ − u| = O(1/ln(1/λ))",
                   {k: v["sup_times_L"] for k, v in rows.items()}, 1.5,
                   "the offsets of ũ_j are ln(κ)-type constants divided by ln(1/λ) (theory.first_jump: ũ_j = "
                   "u_j − ln(α_j e^{−γt})/ln(1/λ) while small), so sup·ln(1/λ) is asymptotically constant; an O(1) error "
                   "would double it when ln(1/λ) doubles, hence the factor-1.5 window",
                   "sup|ũ − u|·ln(1/λ): " + "; ".join(f"{k}: {np.round(v['sup_times_L'], 3).tolist()}" for k, v in rows.items()),
                   details=rows)
