"""Paper C, Algorithm 1 and its consequences: exact golden example, float vs exact, eq. (15), the minimum
norm, Proposition 2 (interpolation probability, ties), Theorem 3 (norm bound and growth exponent),
Propositions 4–6 and Corollary 1 (halving), Lemma 10, Assumptions 3–4 (spec C §2, §3, §5 rows C01–C24, §6).

All checks use Algorithm 1 only (no flow); instances have x_i = e_i, so the mask depends on the
initial directions only through their signs (spec C §1.5).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp
from scipy import optimize, stats

from relucheck.theory import limit_process_exact as lpe
from relucheck.theory.interpolation_probability import all_rows_nonzero_probability, row_union_lower_bound
from relucheck.theory.limit_process import limit_process
from relucheck.theory.statements.paper_c import LEM10_BOUND, THM3_CONSTANT, alpha, beta, delta, f, f0, t

from ..registry import Context, check
from ..result import Outcome, Status, agree, within_bound
from .paper_c_instances import GOLDEN_LABELS, GOLDEN_SIGNS, golden_instance

EPS = np.finfo(float).eps
Z_CONFIDENCE = 4.0   # two-sided normal quantile of every Monte Carlo interval: false alarm ≈ 6e-5 per interval
_Z_REASON = (f"Wilson score interval at z = {Z_CONFIDENCE:g} (two-sided false-alarm probability ≈ 6e-5 per "
             "interval), the only error is Monte Carlo sampling")


def fig5_width(n: int) -> int:
    """m = ⌈ln(20n)/ln(4/3)⌉, so that n(3/4)^m ≤ 0.05 (spec C §4, Fig. 5 reproduction default)."""
    return math.ceil(math.log(20 * n) / math.log(4 / 3))


def wilson(successes: int, trials: int, z: float = Z_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def random_instance(rng, n: int, m: int, *, labels: str = "gaussian", one_sign: bool = False):
    """(y, s, act) with x_i = e_i: Gaussian (or |Gaussian| if one_sign) labels, fair signs (all + if one_sign),
    activation signs of Gaussian directions (uniform on {±1}^n, spec C §1.5)."""
    y = rng.standard_normal(n)
    s = rng.choice([-1.0, 1.0], m)
    if one_sign:
        y, s = np.abs(y), np.ones(m)
    act = rng.standard_normal((n, m)) > 0
    return y, s, act


# --------------------------------------------------------------------------------------------------
# C01: the golden example, exactly (spec C §2.7; the instance is `paper_c_instances.golden_instance`)


def golden_prediction(shift_tau1=0):
    r5, r21 = sp.sqrt(5), sp.sqrt(21)
    tau1 = sp.Rational(4, 5) + shift_tau1
    tau2 = sp.Rational(4, 5) + 4 / r5 * (1 - r21 / 5)
    return {"tau": [tau1, tau2], "neurons": [0, 1], "fitted": [[0, 1], [2, 3]],
            "u3_final": sp.Rational(4, 5) - (tau2 - sp.Rational(4, 5)) / 4,
            "squared_norm": 2 * (5 + r5), "min_norm_squared": 2 * sp.sqrt(30),
            "plateaus": [sp.Rational(15, 4), sp.Rational(5, 8), sp.Integer(0)]}


@check("C.thm1.golden_example_exact", statement="C.thm1", precision="exact (SymPy)",
       mutant="first jump time τ_1 = 4/5 + 1/100 instead of 4/5")
def golden_example_exact(ctx: Context) -> Outcome:
    """Exact Algorithm 1 on the n = 4, m = 3 golden instance (spec C §2.7): τ_1 = 4/5,
    τ_2 = 4/5 + (4/√5)(1 − √21/5), S = {0,1},{2,3}, ‖θ_∞‖² = 2(5+√5), plateaus 15/4, 5/8, 0."""
    act = golden_instance().activation()
    res = ctx.cached("golden", lambda: lpe.limit_process_exact(list(GOLDEN_LABELS), list(GOLDEN_SIGNS), act))
    pred = golden_prediction(sp.Rational(1, 100) if ctx.mutate else 0)
    meas = {"tau": [jp.tau for jp in res.jumps], "neurons": [jp.neuron for jp in res.jumps],
            "fitted": [jp.fitted for jp in res.jumps], "u3_final": res.jumps[-1].exponents[2],
            "squared_norm": res.squared_norm, "min_norm_squared": res.min_norm_squared, "plateaus": res.plateaus}
    same = (pred["neurons"] == meas["neurons"] and pred["fitted"] == meas["fitted"]
            and len(pred["tau"]) == len(meas["tau"]) and len(pred["plateaus"]) == len(meas["plateaus"]))
    mismatches = []
    if same:
        for key in ("tau", "plateaus"):
            mismatches += [f"{key}[{i}]" for i, (p, q) in enumerate(zip(pred[key], meas[key], strict=True))
                           if lpe.exact_sign(p - q)]
        mismatches += [key for key in ("u3_final", "squared_norm", "min_norm_squared")
                       if lpe.exact_sign(pred[key] - meas[key])]
    ok = same and not mismatches
    as_text = {k: str(v) for k, v in meas.items()}
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, {k: str(v) for k, v in pred.items()}, as_text, 0,
                   "exact algebraic arithmetic: equality decided by the exact sign of the difference "
                   "(minimal polynomial when numerically zero)",
                   "all quantities equal exactly" if ok else f"differ: {mismatches or 'jump order / fitted sets'}",
                   details={"tau_float": [float(x) for x in meas["tau"]]})


# --------------------------------------------------------------------------------------------------
# float64 vs exact Algorithm 1
def _float_vs_exact_runs(seed):
    rng = np.random.default_rng([seed, 301])
    runs = []
    for _ in range(12):
        n, m = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        y, s, act = random_instance(rng, n, m)
        runs.append((n, limit_process(y, s, act), lpe.limit_process_exact(y.tolist(), s.tolist(), act)))
    return runs


@check("C.thm1.float_matches_exact", statement="C.thm1", precision="float64 vs exact (SymPy)",
       mutant="exact jump times under the PyTorch MSELoss normalization (1/n)Σr² (rate constant 2/n, caveat U1), "
              "which halves every τ_k")
def float_matches_exact(ctx: Context) -> Outcome:
    """Vectorized float64 Algorithm 1 against the exact one on 12 random instances (n ≤ 6, m ≤ 4, Gaussian
    labels taken at their exact binary value): same jump order and fitted sets, τ_k, ‖θ_∞‖², plateaus."""
    runs = ctx.cached("runs", lambda: _float_vs_exact_runs(ctx.seed))
    factor = 0.5 if ctx.mutate else 1.0
    pred, meas, structure_ok = [], [], True
    for _n, fl, ex in runs:
        structure_ok &= [(jp.neuron, jp.fitted) for jp in fl.jumps] == [(jp.neuron, jp.fitted) for jp in ex.jumps]
        pred += [factor * float(jp.tau) for jp in ex.jumps] + [float(ex.squared_norm)] + [float(p) for p in ex.plateaus]
        meas += [jp.tau for jp in fl.jumps] + [fl.squared_norm] + list(fl.plateaus)
    if not structure_ok or len(pred) != len(meas):
        return Outcome(Status.REFUTED, "same jumps", "different jump order or fitted sets", 0, "exact structure")
    tol = 1e-12
    return agree(pred, meas, tol,
                 "float64 rounding: every value is built from ≤ 2K(n+1) ≤ 100 roundings of relative size eps = 2.2e-16 "
                 "of quantities bounded by the largest value (exponents u_j ≤ 1, times ≤ τ_K), so the error is "
                 "≤ 100·eps·max ≈ 2e-14·max; 1e-12 relative to the largest value leaves room for cancellation in u_j",
                 relative=True, message=f"{len(runs)} instances, {len(meas)} compared values")


# --------------------------------------------------------------------------------------------------
# eq. (15): ‖θ*‖² ≤ ‖θ_∞‖² ≤ 2(√K_+‖y_+‖ + √K_−‖y_−‖), and ‖θ_∞‖² = Σ_j a_j² + ‖w_j‖²
def _eq15_runs(seed):
    rng = np.random.default_rng([seed, 302])
    runs = []
    for _ in range(300):
        n, m = int(rng.integers(1, 31)), int(rng.integers(1, 21))
        y, s, act = random_instance(rng, n, m)
        runs.append(limit_process(y, s, act))
    return runs


@check("C.thm3.eq15_norm_bounds", statement="C.thm3",
       mutant="claims Algorithm 1 returns a minimum-norm interpolator (upper bound ‖θ*‖² instead of "
              "2(√K_+‖y_+‖ + √K_−‖y_−‖))")
def eq15_norm_bounds(ctx: Context) -> Outcome:
    """Eq. (15) on 300 random instances (n ≤ 30, m ≤ 20, mixed signs): ‖θ_∞‖² = Σ_j(a_j² + ‖w_j‖²) = 2Σ_k‖y_{S_k}‖,
    ‖θ_∞‖² ≥ ‖θ*‖² = 2(‖y_+‖+‖y_−‖) when θ_∞ interpolates, and ‖θ_∞‖² ≤ 2(√K_+‖y_+‖ + √K_−‖y_−‖) (spec C §2.4)."""
    runs = ctx.cached("runs", lambda: _eq15_runs(ctx.seed))
    ratios = []
    identity_err = 0.0
    for lp in runs:
        y, s = lp.labels, lp.signs
        params = float((lp.a**2).sum() + (lp.W_data**2).sum())
        identity_err = max(identity_err, abs(params - lp.squared_norm) / max(lp.squared_norm, 1e-300))
        k_plus = sum(1 for jp in lp.jumps if s[jp.neuron] > 0)
        k_minus = len(lp.jumps) - k_plus
        upper = 2 * (math.sqrt(k_plus) * np.linalg.norm(y[y > 0]) + math.sqrt(k_minus) * np.linalg.norm(y[y < 0]))
        if ctx.mutate:
            upper = lp.min_norm_squared
        if lp.jumps:                       # K = 0: both sides vanish
            ratios.append(lp.squared_norm / upper)
        if lp.interpolates:
            ratios.append(lp.min_norm_squared / lp.squared_norm)
    out = within_bound(np.array(ratios), 1.0,
                       "float64 rounding of sums of ≤ 30 squares and ≤ 20 square roots: relative error ≤ 64·eps ≈ 1.4e-14",
                       slack=64 * EPS, message=f"{len(runs)} instances; max ratio {max(ratios):.6g}; "
                       f"identity Σ(a²+‖w‖²) = 2Σ‖y_S‖ relative error {identity_err:.2g}")
    return out.require(identity_err <= 64 * EPS, f"identity Σ(a²+‖w‖²) = 2Σ‖y_S‖ off by {identity_err:.2g} > 64·eps")


# --------------------------------------------------------------------------------------------------
# C06: ‖θ*‖² = 2(‖y_+‖ + ‖y_−‖) against a numerical minimization over width-4 networks
WIDTH_MIN_NORM = 4
SLSQP_FTOL = 1e-14
FEASIBILITY = 1e-9


def _min_norm_by_slsqp(y, rng, restarts=4):
    """min Σ_j(a_j² + ‖w_j‖²) s.t. Σ_j a_j σ(w_ji) = y_i (x_i = e_i, width 4), by SLSQP from random starts.

    W ≥ 0 without loss of generality: replacing w_j by its positive part keeps every output σ(w_ji) and does
    not increase the norm, so the constraint becomes the smooth bilinear a·W = y (ReLU kinks would make SLSQP's
    constraint Jacobian singular)."""
    n, m = y.size, WIDTH_MIN_NORM

    def constraint(z):
        return z[:m] @ z[m:].reshape(m, n) - y

    def constraint_jac(z):
        a, W = z[:m], z[m:].reshape(m, n)
        J = np.zeros((n, m + m * n))
        J[:, :m] = W.T
        for j in range(m):
            J[np.arange(n), m + j * n + np.arange(n)] = a[j]
        return J

    best = np.inf
    for _ in range(restarts):
        z0 = np.r_[rng.standard_normal(m), np.abs(rng.standard_normal(m * n))]
        res = optimize.minimize(lambda z: float(z @ z), z0, jac=lambda z: 2 * z, method="SLSQP",
                                bounds=[(None, None)] * m + [(0, None)] * (m * n),
                                constraints=[{"type": "eq", "fun": constraint, "jac": constraint_jac}],
                                options={"ftol": SLSQP_FTOL, "maxiter": 300})
        if np.max(np.abs(constraint(res.x))) < FEASIBILITY:
            best = min(best, float(res.fun))
    return best


def _min_norm_runs(seed):
    rng = np.random.default_rng([seed, 306])
    out = []
    for n in (2, 3, 4, 5, 6):
        y = rng.standard_normal(n)
        y[0], y[1] = abs(y[0]), -abs(y[1])       # both signs present (width ≥ 2 suffices then)
        out.append((y, _min_norm_by_slsqp(y, rng)))
    return out


@check("C.thm3.min_norm_formula", statement="C.thm3",
       mutant="claims ‖θ*‖² = 2‖y‖ (one neuron per sign merged into a single norm) instead of 2(‖y_+‖ + ‖y_−‖)")
def min_norm_formula(ctx: Context) -> Outcome:
    """C06: the smallest Σ_j(a_j² + ‖w_j‖²) over width-4 interpolating networks, found by SLSQP with 4 random
    restarts for n = 2..6 (x_i = e_i, mixed signs), equals 2(‖y_+‖ + ‖y_−‖) (spec C §2.4)."""
    runs = ctx.cached("runs", lambda: _min_norm_runs(ctx.seed))
    pred = [2 * np.linalg.norm(y) if ctx.mutate else 2 * (np.linalg.norm(y[y > 0]) + np.linalg.norm(y[y < 0]))
            for y, _ in runs]
    meas = [best for _, best in runs]
    return agree(pred, meas, 1e-8,
                 "SLSQP stops when the objective changes by < ftol = 1e-14; feasible points are accepted with "
                 "constraint error ≤ 1e-9, which moves the optimal value by ≤ 2·1e-9·max|∂‖θ*‖²/∂y_i| ≤ 2e-9·(1 + "
                 "‖θ*‖²/min|y_i|) relative ≲ 1e-8 for these labels", relative=True,
                 message=f"n = 2..6, width {WIDTH_MIN_NORM}")


# --------------------------------------------------------------------------------------------------
# C21: Proposition 2(i), the probability that every row of the mask is non-zero
PROP2_CASES = ((16, 16, 15), (32, 32, 25), (8, 24, 12))   # (n_+, n_−, m)
PROP2_TRIALS = 10000
PROP2_ALG1_TRIALS = 150


def _mask_draws(rng, n_plus, n_minus, m, trials):
    """Activations, signs and correct-sign masks of `trials` initializations (fair signs s, activation signs
    of Gaussian directions), for labels with signs (+ × n_+, − × n_−)."""
    y_sign = np.r_[np.ones(n_plus), -np.ones(n_minus)]
    s = rng.choice([-1.0, 1.0], (trials, m))
    act = rng.standard_normal((trials, n_plus + n_minus, m)) > 0
    return act, s, act & (y_sign[None, :, None] * s[:, None, :] > 0)


def _assumption4i(mask):
    rows = mask.any(2).all(1)
    cols = mask.any(1).all(1)
    packed = np.packbits(mask, axis=1).transpose(0, 2, 1)          # (trials, m, bytes): one key per column
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[2]))).reshape(packed.shape[:2])
    distinct = np.array([np.unique(k).size == k.size for k in keys])
    return rows, rows & cols & distinct


def _prop2_runs(seed):
    out = []
    for case, (n_plus, n_minus, m) in enumerate(PROP2_CASES):
        rng = np.random.default_rng([seed, 303, case])
        act, signs, mask = _mask_draws(rng, n_plus, n_minus, m, PROP2_TRIALS)
        rows, full = _assumption4i(mask)
        # Algorithm 1 interpolates exactly when every row is non-zero (spec C §2.2): check on a subset
        y = np.r_[np.abs(rng.standard_normal(n_plus)), -np.abs(rng.standard_normal(n_minus))]
        mismatches = sum(limit_process(y, signs[k], act[k]).interpolates != bool(rows[k])
                         for k in range(PROP2_ALG1_TRIALS))
        out.append({"rows": int(rows.sum()), "full": int(full.sum()), "alg1_mismatches": mismatches})
    return out


@check("C.prop2.interpolation_probability", statement="C.prop2", precision="exact rational + Monte Carlo",
       mutant="forgets the sign condition of the mask: P(row ≠ 0) = 1 − 2^{−m}, i.e. (1 − 2^{−m})^n")
def interpolation_probability(ctx: Context) -> Outcome:
    """Proposition 2(i): P(all rows of M non-zero) = Σ_k C(m,k)2^{−m}(1−2^{−k})^{n_+}(1−2^{−(m−k)})^{n_−} (exact
    rational) against 10000 initializations per (n_+, n_−, m) ∈ {(16,16,15), (32,32,25), (8,24,12)}; Algorithm 1
    interpolates exactly on those draws (150 per case); the spec's lower bound 1 − n(3/4)^m − (m + m(m−1)/4)2^{−min n_±}
    lies below the Monte Carlo frequency of the whole Assumption 4(i)."""
    runs = ctx.cached("runs", lambda: _prop2_runs(ctx.seed))
    pred, lo, hi, bound_ok, mismatches, rows_freq = [], [], [], True, 0, []
    for (n_plus, n_minus, m), r in zip(PROP2_CASES, runs, strict=True):
        p = (1 - Fraction(1, 2**m)) ** (n_plus + n_minus) if ctx.mutate else all_rows_nonzero_probability(n_plus, n_minus, m)
        pred.append(float(p))
        a, b = wilson(r["rows"], PROP2_TRIALS)
        lo.append(a)
        hi.append(b)
        rows_freq.append(r["rows"] / PROP2_TRIALS)
        bound_ok &= row_union_lower_bound(n_plus, n_minus, m, columns=True) <= wilson(r["full"], PROP2_TRIALS)[1]
        bound_ok &= row_union_lower_bound(n_plus, n_minus, m) <= all_rows_nonzero_probability(n_plus, n_minus, m)
        mismatches += r["alg1_mismatches"]
    inside = all(a <= p <= b for p, a, b in zip(pred, lo, hi, strict=True))
    ok = inside and bound_ok and mismatches == 0
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, pred, rows_freq, {"interval_low": lo, "interval_high": hi},
                   _Z_REASON, f"exact inside the Monte Carlo intervals: {inside}; lower bounds hold: {bound_ok}; "
                   f"Algorithm 1 interpolation ≠ all-rows-non-zero on {mismatches} draws",
                   details={"cases": PROP2_CASES, "trials": PROP2_TRIALS})


# --------------------------------------------------------------------------------------------------
# C22: Proposition 2(ii), ties
TIE_LABELS = [1, 1, 1, 1]
TIE_ACTIVATION = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=bool)


def _tie_runs(seed):
    rng = np.random.default_rng([seed, 304])
    continuous, used = 0, 0
    while used < 300:
        n, m = int(rng.integers(2, 31)), int(rng.integers(1, 21))
        y, s, act = random_instance(rng, n, m)
        if not _assumption4i((act & (np.outer(y, s) > 0))[None])[1][0]:
            continue                        # Proposition 2(ii) assumes 4(i): equal columns tie trivially
        used += 1
        continuous += len(limit_process(y, s, act).ties)
    integer = lpe.limit_process_exact(TIE_LABELS, [1, 1], TIE_ACTIVATION).ties
    return continuous, integer


@check("C.prop2.ties_only_for_special_labels", statement="C.prop2",
       mutant="claims integer labels never tie either (no Assumption 4(ii) violation on the constructed instance)")
def ties_only_for_special_labels(ctx: Context) -> Outcome:
    """Proposition 2(ii): with Gaussian labels no argmin tie occurs in 300 random instances satisfying Assumption 4(i)
    (relative gap > 1e-12; with two equal mask columns the tie is certain, which is why 4(i) asks for distinct columns);
    the integer-label instance y = (1,1,1,1) with two neurons on {0,1} and {2,3} ties exactly (exact arithmetic)."""
    continuous, integer = ctx.cached("runs", lambda: _tie_runs(ctx.seed))
    predicted_integer_ties = 0 if ctx.mutate else 1
    ok = continuous == 0 and len(integer) == predicted_integer_ties
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, {"continuous": 0, "integer": predicted_integer_ties},
                   {"continuous": continuous, "integer": len(integer)}, 0,
                   "counts: a tie among continuous labels has probability 0; the integer tie is exact (SymPy)",
                   f"integer instance ties: {[{**t, 'tau': str(t['tau'])} for t in integer]}")


# --------------------------------------------------------------------------------------------------
# §6 item 4: Assumption 4(i) is impossible for one-signed labels with a neuron of the other sign
def _one_signed_runs(seed, trials=400, n=8, m=20):
    rng = np.random.default_rng([seed, 305])
    y = np.abs(rng.standard_normal(n)) + 0.1
    satisfied, zero_columns = 0, 0
    for _ in range(trials):
        s = rng.choice([-1.0, 1.0], m)
        s[0] = -1.0                                        # some neuron has the other sign
        act = rng.standard_normal((n, m)) > 0
        mask = act & (np.outer(y, s) > 0)
        zero_columns += int(not mask[:, 0].any())
        cols_ok = mask.any(0).all() and len({c.tobytes() for c in mask.T}) == m
        satisfied += int(mask.any(1).all() and cols_ok)
    return {"trials": trials, "n": n, "m": m, "satisfied": satisfied, "zero_columns": zero_columns}


@check("C.asm4.one_signed_labels_zero_column", statement="C.asm4",
       mutant="Proposition 2(i) without the column term: P(Assumption 4(i)) ≥ 1 − n(3/4)^m > 0")
def one_signed_labels_zero_column(ctx: Context) -> Outcome:
    """Spec C §6 item 4: with all labels positive and a neuron with s_j = −1, that neuron's mask column is
    identically 0, so Assumption 4(i) never holds (400 draws, n = 8, m = 20): Prop. 2(i) is vacuous there."""
    r = ctx.cached("runs", lambda: _one_signed_runs(ctx.seed))
    freq = r["satisfied"] / r["trials"]
    if ctx.mutate:
        bound = float(row_union_lower_bound(r["n"], 0, r["m"]))
        lo, hi = wilson(r["satisfied"], r["trials"])
        ok = hi >= bound
        return Outcome(Status.VERIFIED if ok else Status.REFUTED, bound, freq, {"interval": (lo, hi)}, _Z_REASON,
                       "Monte Carlo frequency of Assumption 4(i) against the column-free lower bound")
    ok = r["satisfied"] == 0 and r["zero_columns"] == r["trials"]
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, {"satisfied": 0, "zero_columns": r["trials"]},
                   {"satisfied": r["satisfied"], "zero_columns": r["zero_columns"]}, 0,
                   "exact counts: the claim is deterministic (s_j y_i < 0 for every i)",
                   "Assumption 4(i) fails on every draw; the negative neuron's column is empty every time")


# --------------------------------------------------------------------------------------------------
# Theorem 3: ‖θ_∞‖² ≤ C‖y‖_∞√n and the growth exponent of the squared norm
THM3_DELTA = sp.Rational(1, 10)
THM3_C = float(THM3_CONSTANT.subs(delta, THM3_DELTA))      # 7.7405, spec §2.5 reconstruction


def norm_sweep(seed, sizes, seeds_per_size, tag):
    """Algorithm 1 with y ~ N(0, I_n), fair signs, m = fig5_width(n): per n the arrays of ‖θ_∞‖², ‖θ*‖², ‖y‖_∞."""
    out = {}
    for n in sizes:
        m = fig5_width(n)
        rows = []
        for r in range(seeds_per_size):
            rng = np.random.default_rng([seed, tag, n, r])
            y, s, act = random_instance(rng, n, m)
            lp = limit_process(y, s, act)
            rows.append((lp.squared_norm, lp.min_norm_squared, float(np.abs(y).max()), lp.interpolates))
        out[n] = np.array(rows)
    return out


THM3_SIZES = (256, 1024, 4096)


@check("C.thm3.norm_bound", statement="C.thm3",
       mutant="bound C‖y‖_∞ n^{1/4} (growth exponent 1/4) instead of C‖y‖_∞ √n")
def norm_bound(ctx: Context) -> Outcome:
    """Theorem 3 (eq. 16) with the spec's explicit constant C = 7.74 (δ = 0.1, spec §2.5 reconstruction):
    max over 20 seeds and n ∈ {256, 1024, 4096} of ‖θ_∞‖²/(‖y‖_∞√n) ≤ C; also ‖θ_∞‖²/‖θ*‖² ≥ 1 on interpolating runs."""
    data = ctx.cached("sweep", lambda: norm_sweep(ctx.seed, THM3_SIZES, 20, 307))
    power = 0.25 if ctx.mutate else 0.5
    normalized = np.concatenate([d[:, 0] / (d[:, 2] * n**power) for n, d in data.items()])
    ratios = np.concatenate([d[d[:, 3] > 0, 0] / d[d[:, 3] > 0, 1] for d in data.values()])
    out = within_bound(normalized, THM3_C, "a hard bound (Theorem 3 with probability ≥ 1 − failure); float64 "
                       "rounding of the norms (≤ 1e-13 relative) is far below the margin", slack=0.0,
                       message=f"max ‖θ_∞‖²/(‖y‖_∞ n^{power:g}) = {normalized.max():.4g}; learned/min-norm ratio in "
                       f"[{ratios.min():.4g}, {ratios.max():.4g}]",
                       ratio_min=float(ratios.min()), ratio_max=float(ratios.max()))
    return out.require(ratios.min() >= 1 - 1e-12, "a learned norm below the minimum norm")


def fitted_slope(data: dict, column: int = 0, boot: int = 400, seed=0) -> tuple[float, float]:
    """Least-squares slope of log mean(column) against log n, and its seed-to-seed standard error
    (bootstrap over the seeds within each n)."""
    sizes = np.array(sorted(data))
    logn = np.log(sizes)

    def slope(means):
        return float(np.polyfit(logn, np.log(means), 1)[0])

    est = slope([data[n][:, column].mean() for n in sizes])
    rng = np.random.default_rng([seed, 999])
    reps = [slope([data[n][rng.integers(0, len(data[n]), len(data[n])), column].mean() for n in sizes])
            for _ in range(boot)]
    return est, float(np.std(reps))


def _slope_outcome(ctx, data, label):
    pred = 1.0 if ctx.mutate else 0.5
    learned, se = fitted_slope(data, 0, seed=ctx.seed)
    min_norm, se_min = fitted_slope(data, 1, seed=ctx.seed)
    ratio = {n: (d[:, 0] / d[:, 1])[:, None] for n, d in data.items()}
    drift, se_drift = fitted_slope(ratio, 0, seed=ctx.seed)
    sizes = sorted(data)
    ratio_means = [float(ratio[n].mean()) for n in sizes]
    reason = ("3 × the seed-to-seed (bootstrap) standard error of the fitted slope; an excess above that but within "
              "the measured slope of the learned/min-norm ratio (pre-asymptotic drift, which Theorem 3 says vanishes "
              "since the ratio is bounded) is inconclusive, anything else refuted")
    details = {"sizes": sizes, "learned_slope": learned, "se": se, "min_norm_slope": min_norm, "se_min_norm": se_min,
               "ratio_slope": drift, "ratio_means": ratio_means}
    message = (f"{label}: slope {learned:.4f} ± {se:.4f} (min-norm slope {min_norm:.4f} ± {se_min:.4f}, ratio drift "
               f"{drift:.4f}; ratio means {', '.join(f'{r:.3f}' for r in ratio_means)})")
    excess = learned - pred
    if abs(excess) <= 3 * se:
        status = Status.VERIFIED
    elif 0 < excess <= 3 * (se + se_drift) + drift and abs(min_norm - pred) <= 3 * se_min:
        status = Status.INCONCLUSIVE
        message += "; the excess over 1/2 is the drift of the ratio, still rising at these n"
    else:
        status = Status.REFUTED
    return Outcome(status, pred, learned, 3 * se, reason, message, details=details)


@check("C.thm3.growth_exponent", statement="C.thm3",
       mutant="linear growth: slope 1 of log ‖θ_∞‖² against log n")
def growth_exponent(ctx: Context) -> Outcome:
    """Theorem 3 / Fig. 5: the log–log slope of the mean ‖θ_∞‖² over n ∈ {256, …, 4096} (20 seeds, m = ⌈ln(20n)/ln(4/3)⌉)
    against the asymptotic 1/2; the spec measured ≈ 0.55 on [256, 4096] (spec §5 C17, §6 item 10)."""
    data = ctx.cached("sweep", lambda: norm_sweep(ctx.seed, (256, 512, 1024, 2048, 4096), 20, 308))
    return _slope_outcome(ctx, data, "n = 256..4096, 20 seeds")


@check("C.thm3.growth_exponent_large_n", statement="C.thm3", suites=("full",),
       mutant="linear growth: slope 1 of log ‖θ_∞‖² against log n")
def growth_exponent_large_n(ctx: Context) -> Outcome:
    """As `C.thm3.growth_exponent` on n ∈ {4096, …, 65536} with 30 seeds: closer to the asymptotic regime."""
    data = ctx.cached("sweep", lambda: norm_sweep(ctx.seed, (4096, 8192, 16384, 32768, 65536), 30, 309))
    return _slope_outcome(ctx, data, "n = 4096..65536, 30 seeds")


# --------------------------------------------------------------------------------------------------
# Proposition 4 (fixed order halving, the Chernoff step), Corollary 1 (why the union bound), Props 5–6
PROP4_N, PROP4_DELTA, PROP4_TRIALS = 900, 0.1, 20000


def _prop4_runs(seed):
    rng = np.random.default_rng([seed, 310])
    first_column = rng.standard_normal((PROP4_TRIALS, PROP4_N)) > 0      # A_{π(1)} for a fixed order, positive case
    size = first_column.sum(1)
    return int(np.sum(np.abs((PROP4_N - size) - PROP4_N / 2) > PROP4_DELTA * PROP4_N / 2))


@check("C.prop4.halving_chernoff_step", statement="C.prop4",
       mutant="Chernoff exponent δ²n (six times the paper's δ²n/6): P(E_1^c) ≤ 2exp(−δ²n)")
def halving_chernoff_step(ctx: Context) -> Outcome:
    """Proposition 4, first term of eq. (334): for a fixed neuron order, P(E_1^c) = P(| |U_1| − n/2 | > δn/2)
    ≤ 2exp(−δ²n/6); 20000 draws, n = 900, δ = 0.1 (later terms are ≥ 1 at simulable n: the bound is vacuous there,
    spec §2.5)."""
    failures = ctx.cached("runs", lambda: _prop4_runs(ctx.seed))
    exponent = PROP4_DELTA**2 * PROP4_N * (1.0 if ctx.mutate else 1 / 6)
    bound = 2 * math.exp(-exponent)
    lo, hi = wilson(failures, PROP4_TRIALS)
    exact = 2 * stats.binom.sf(math.floor(PROP4_N / 2 + PROP4_DELTA * PROP4_N / 2), PROP4_N, 0.5)
    return within_bound(lo, bound, _Z_REASON + "; the lower end of the interval must not exceed the bound",
                        message=f"failures {failures}/{PROP4_TRIALS} (interval [{lo:.3g}, {hi:.3g}], exact binomial "
                        f"{exact:.3g}) vs bound {bound:.3g}")


COR1_N, COR1_WIDTHS, COR1_TRIALS = 64, (4096,), 200


def _cor1_runs(seed):
    rng = np.random.default_rng([seed, 311])
    out = {}
    for m in COR1_WIDTHS:
        holds = 0
        for _ in range(COR1_TRIALS):
            y, s, act = random_instance(rng, COR1_N, m, one_sign=True)
            first = limit_process(y, s, act).jumps[0]
            holds += abs((COR1_N - len(first.fitted)) - COR1_N / 2) <= PROP4_DELTA * COR1_N / 2
        out[m] = holds
    return out


@check("C.cor1.selected_order_needs_union_bound", statement="C.cor1",
       mutant="claims the fixed-order law of Proposition 4 applies to Algorithm 1's order without the union bound")
def selected_order_needs_union_bound(ctx: Context) -> Outcome:
    """Corollary 1 and spec §6 item 9: Algorithm 1 picks the neuron with the largest ‖y_S‖, so for a wide network
    (n = 64, m = 4096, positive labels and neurons) the halving event E_1 (δ = 0.1) is much rarer than for a fixed
    order (exact binomial probability): the union bound over m^{K_0} orders, hence an upper restriction on m, is needed."""
    holds = ctx.cached("runs", lambda: _cor1_runs(ctx.seed))
    half = PROP4_DELTA * COR1_N / 2
    fixed = float(stats.binom.cdf(math.floor(COR1_N / 2 + half), COR1_N, 0.5)
                  - stats.binom.cdf(math.ceil(COR1_N / 2 - half) - 1, COR1_N, 0.5))
    m = COR1_WIDTHS[0]
    lo, hi = wilson(holds[m], COR1_TRIALS)
    side = ">=" if ctx.mutate else "<="
    measurement = lo if ctx.mutate else hi
    return within_bound(measurement, fixed, _Z_REASON + "; the interval end on the predicted side is compared",
                        side=side, message=f"P(E_1) for Algorithm 1's order, m = {m}: {holds[m]}/{COR1_TRIALS} "
                        f"(interval [{lo:.3g}, {hi:.3g}]); fixed order: {fixed:.4f}")


PROP56_N, PROP56_M, PROP56_DELTA, PROP56_RUNS = 16384, 12, 0.2, 20


def _prop56_runs(seed):
    rng = np.random.default_rng([seed, 312])
    qp = (1 + PROP56_DELTA) / 2
    k0 = math.ceil(math.log(PROP56_N) / (2 * math.log(1 / qp)))
    rows = []
    for _ in range(PROP56_RUNS):
        y = rng.uniform(0.5, 1.0, PROP56_N)                     # ‖y‖_∞ ≤ 1 ≈ typical |y_i|: the bounds are tight-ish
        act = rng.standard_normal((PROP56_N, PROP56_M)) > 0
        lp = limit_process(y, np.ones(PROP56_M), act)
        sizes = [len(jp.fitted) for jp in lp.jumps]
        remaining = PROP56_N - np.cumsum([0] + sizes)
        event = len(sizes) >= k0 and all(abs(remaining[k] - remaining[k - 1] / 2) <= PROP56_DELTA * remaining[k - 1] / 2
                                         for k in range(1, k0 + 1))
        norms = np.array([jp.norm_y for jp in lp.jumps])
        rows.append((event, 2 * norms[:k0].sum(), 2 * norms[k0:].sum(), float(y.max())))
    return k0, qp, rows


def _prop56_outcome(ctx, which):
    k0, qp, rows = ctx.cached("runs", lambda: _prop56_runs(ctx.seed))
    held = [r for r in rows if r[0]]
    if not held:
        return Outcome(Status.INCONCLUSIVE, "bound", "no run satisfied the event E", 0, "conditional statement")
    n = PROP56_N
    if which == 5:
        const = qp / (1 - qp) if ctx.mutate else math.sqrt(qp) / (1 - math.sqrt(qp))
        measured = [r[1] / (2 * r[3] * math.sqrt(n)) for r in held]
    else:
        const = qp**(2 * k0 if ctx.mutate else k0) * n / math.sqrt(n)
        measured = [r[2] / (2 * r[3] * math.sqrt(n)) for r in held]
    return within_bound(np.array(measured), const, "a deterministic bound on the event E; float64 rounding ≤ 1e-13",
                        message=f"{len(held)}/{len(rows)} runs satisfy E (n = {n}, m = {PROP56_M}, δ = {PROP56_DELTA}, "
                        f"K_0 = {k0}); normalized sums ≤ {max(measured):.4g} vs constant {const:.4g}")


@check("C.prop5.first_jumps_norm", statement="C.prop5",
       mutant="terms q_+^k instead of q_+^{k/2} (forgets the square root of ‖y_S‖ ≤ ‖y‖_∞√|S|): constant q_+/(1 − q_+)")
def first_jumps_norm(ctx: Context) -> Outcome:
    """Proposition 5 (eq. 354) on Algorithm 1 runs where the halving event E holds (labels uniform in [1/2, 1],
    positive neurons, n = 16384, m = 12, δ = 0.2): 2Σ_{k≤K_0}‖y_{S_k}‖ ≤ 2‖y‖_∞√n √q_+/(1 − √q_+)."""
    return _prop56_outcome(ctx, 5)


@check("C.prop6.later_jumps_norm", statement="C.prop6",
       mutant="bound 2‖y‖_∞ q_+^{2K_0} n (squares the decay of |U_{K_0}|)")
def later_jumps_norm(ctx: Context) -> Outcome:
    """Proposition 6 (eq. 358) on the same runs: 2Σ_{k>K_0}‖y_{S_k}‖ ≤ 2‖y‖_∞ q_+^{K_0} n."""
    return _prop56_outcome(ctx, 6)


# --------------------------------------------------------------------------------------------------
# Lemma 10 and Assumption 3
@check("C.lem10.bound_solves_equality_case", statement="C.lem10", precision="exact (SymPy)",
       mutant="the bound with β/(2α) in place of β/α")
def lemma10_equality_case(ctx: Context) -> Outcome:
    """Lemma 10: the bound √f = e^{αt/2}√f_0 + (β/α)(e^{αt/2} − 1) solves the equality case f' = αf + β√f with
    f(0) = f_0 (so the bound is attained), and tends to √f_0 + βt/2 as α → 0 (SymPy)."""
    g = LEM10_BOUND.rhs
    if ctx.mutate:
        g = g.subs(beta, beta / 2)
    fp = sp.symbols("f_0", positive=True)
    al = sp.symbols("alpha", positive=True)
    be = sp.symbols("beta", nonnegative=True)
    g = g.subs({f0: fp, alpha: al, beta: be})
    residual = sp.simplify(sp.diff(g**2, t) - al * g**2 - be * g)
    initial = sp.simplify(g.subs(t, 0) - sp.sqrt(fp))
    limit = sp.simplify(sp.limit(g, al, 0) - (sp.sqrt(fp) + be * t / 2))
    ok = residual == 0 and initial == 0 and limit == 0
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "0, 0, 0",
                   f"{residual}, {initial}, {limit}", 0, "exact symbolic identity",
                   "ODE residual, initial value and α → 0 limit all simplify to 0" if ok else "non-zero residual",
                   details={"bound": str(LEM10_BOUND), "f": str(f)})


ASM3_N, ASM3_D, ASM3_TRIALS = 3, 5, 40000


def _asm3_runs(seed):
    rng = np.random.default_rng([seed, 313])
    Q, _ = np.linalg.qr(rng.standard_normal((ASM3_D, ASM3_D)))
    X = Q[:ASM3_N]                                       # orthonormal, rotated (Assumption 1)
    G = rng.standard_normal((ASM3_TRIALS, ASM3_D))
    G /= np.linalg.norm(G, axis=1, keepdims=True)        # uniform directions (Assumption 3)
    patterns = (G @ X.T > 0) @ (1 << np.arange(ASM3_N))
    return np.bincount(patterns, minlength=2**ASM3_N)


@check("C.asm3.activation_signs_uniform", statement="C.asm3",
       mutant="P(⟨ḡ_j, x_i⟩ > 0) = 1/4 independently (the correct-sign mask probability instead of the activation's)")
def activation_signs_uniform(ctx: Context) -> Outcome:
    """Spec C §1.5: with orthonormal x_i and ḡ uniform on S^{d−1}, the activation pattern is uniform on {0,1}^n
    (n = 3 rotated inputs in d = 5, 40000 directions)."""
    counts = ctx.cached("runs", lambda: _asm3_runs(ctx.seed))
    ones = np.array([bin(k).count("1") for k in range(2**ASM3_N)])
    pred = (0.25**ones * 0.75**(ASM3_N - ones)) if ctx.mutate else np.full(2**ASM3_N, 2.0**-ASM3_N)
    intervals = [wilson(int(c), ASM3_TRIALS) for c in counts]
    inside = all(lo <= p <= hi for p, (lo, hi) in zip(pred, intervals, strict=True))
    return Outcome(Status.VERIFIED if inside else Status.REFUTED, pred.tolist(), (counts / ASM3_TRIALS).tolist(),
                   [list(iv) for iv in intervals], _Z_REASON,
                   f"pattern frequencies {'inside' if inside else 'outside'} their intervals")


# --------------------------------------------------------------------------------------------------
# Proposition 7 and Corollary 2: alignment with the saddle directions (eq. 9) gives coordinate-wise control
ALIGN_DIM, ALIGN_SAMPLES = 12, 2000


def _aligned_pairs(seed):
    """Pairs (u, v) of unit vectors with ⟨u, v⟩ = 1 − ε: v = w̄^{(k)} of eq. (9) for a random set S (the first
    |S| coordinates) and labels y, and u = cos θ v + sin θ z with z ⊥ v either random or a coordinate direction
    (the cases where Proposition 7 and the mass bound are tight)."""
    rng = np.random.default_rng([seed, 314])
    out = []
    for r in range(ALIGN_SAMPLES):
        size = int(rng.integers(1, ALIGN_DIM))
        y = rng.standard_normal(size)
        v = np.zeros(ALIGN_DIM)
        v[:size] = np.abs(y) / np.linalg.norm(y)                       # eq. (9) with x_i = e_i, S = {0..size−1}
        eps = 10 ** rng.uniform(-8, -0.5)
        if r % 2:
            z = np.zeros(ALIGN_DIM)
            z[int(rng.integers(size, ALIGN_DIM))] = 1.0                # off S: the tight case
        else:
            z = rng.standard_normal(ALIGN_DIM)
        z -= (z @ v) * v
        z /= np.linalg.norm(z)
        c = 1 - eps
        u = c * v + np.sqrt(1 - c * c) * z
        out.append((u, v, size, 1 - float(u @ v)))
    return out


@check("C.prop7.alignment_gives_coordinates", statement="C.prop7",
       mutant="bound √ε instead of √(2ε)")
def alignment_gives_coordinates(ctx: Context) -> Outcome:
    """Proposition 7 (eq. 362): |⟨u, x_i⟩ − ⟨v, x_i⟩| ≤ √(2ε) for unit u, v with ⟨u, v⟩ = 1 − ε, orthonormal x_i = e_i;
    2000 pairs around saddle directions of eq. (9), half of them in the tight configuration u − v ∥ x_i."""
    pairs = ctx.cached("pairs", lambda: _aligned_pairs(ctx.seed))
    k = 1.0 if ctx.mutate else 2.0
    ratios = np.array([np.max(np.abs(u - v)) / math.sqrt(k * eps) for u, v, _, eps in pairs])
    return within_bound(ratios, 1.0, "float64 rounding of ε = 1 − ⟨u,v⟩ ≥ 1e-8·(1 − 1e-8): relative error ≤ "
                        "4 eps/ε ≤ 1e-7, so the ratio may exceed 1 by ≤ 1e-7", slack=1e-7,
                        message=f"max |u_i − v_i|/√({k:g}ε) = {ratios.max():.6f} over {len(pairs)} pairs")


@check("C.cor2.aligned_neuron_active_on_its_set", statement="C.cor2",
       mutant="mass off the set bounded by ε instead of 2ε")
def aligned_neuron_active_on_its_set(ctx: Context) -> Outcome:
    """Corollary 2 (eq. 367) on the same pairs: ⟨u, x_i⟩ ≥ |y_i|/‖y_S‖ − √(2ε) on S and Σ_{i∉S}⟨u, x_i⟩² ≤ 2ε."""
    pairs = ctx.cached("pairs", lambda: _aligned_pairs(ctx.seed))
    k = 1.0 if ctx.mutate else 2.0
    worst = []
    for u, v, size, eps in pairs:
        on_set = np.max(v[:size] - math.sqrt(2 * eps) - u[:size])     # ≤ 0 claimed (v_i = |y_i|/‖y_S‖ on S)
        off_set = float(u[size:] @ u[size:]) / (k * eps) - 1            # ≤ 0 claimed
        worst.append(max(on_set, off_set))
    worst = np.array(worst)
    return within_bound(worst, 0.0, "float64 rounding: the normalized left − right side carries a relative error "
                        "≤ 1e-7 (ε ≥ 1e-8 computed from 1 − ⟨u,v⟩)", slack=1e-7,
                        message=f"largest normalized left − right side {worst.max():.3g} (≤ 0 claimed) over "
                                f"{len(pairs)} pairs")
