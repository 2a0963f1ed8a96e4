"""Paper C on random activation masks: Proposition 2 (interpolation probability, ties), Assumption 4, Proposition 4
(fixed-order halving), Corollary 1 (why the union bound), Propositions 5–6 (spec C §3, §5 rows C21–C24).

Algorithm 1 only (no flow), x_i = e_i (`paper_c_algorithm.random_instance`); Monte Carlo frequencies are compared
through Wilson score intervals (`wilson`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp
from scipy import stats

from relucheck.theory import limit_process_exact as lpe
from relucheck.theory.interpolation_probability import all_rows_nonzero_probability, row_union_lower_bound
from relucheck.theory.limit_process import limit_process

from ..registry import Context, check
from ..result import Outcome, Status, within_bound
from .paper_c_algorithm import random_instance

Z_CONFIDENCE = 4.0   # two-sided normal quantile of every Monte Carlo interval: false alarm ≈ 6e-5 per interval
_Z_REASON = (f"Wilson score interval at z = {Z_CONFIDENCE:g} (two-sided false-alarm probability ≈ 6e-5 per "
             "interval), the only error is Monte Carlo sampling")


def wilson(successes: int, trials: int, z: float = Z_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(centre - half, 0.0), min(centre + half, 1.0)

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
                   _Z_REASON, ("the exact probabilities lie inside their Monte Carlo intervals" if inside else
                               "an exact probability lies outside its Monte Carlo interval")
                   + f"; the lower bounds {'hold' if bound_ok else 'fail'}; Algorithm 1's interpolation and "
                   f"'every row non-zero' disagree on {mismatches} draws",
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
                   f"{continuous} ties in 300 random instances with Gaussian labels; the integer instance: "
                   + ("; ".join(_tie_text(t) for t in integer) or "no tie"))


def _tie_text(tie) -> str:
    """One exact tie of Algorithm 1 for a reader: 'at iteration 1 neurons 0 and 1 tie at τ = 2·√2 ≈ 2.828' (SymPy's
    dot operator U+22C5 written as the middle dot ·, which the LaTeX report maps)."""
    exact = sp.pretty(tie["tau"], use_unicode=True).replace("\N{DOT OPERATOR}", "·")
    if "\n" in exact:  # a form that needs several lines: SymPy's one-line text
        exact = sp.sstr(tie["tau"])
    return (f"at iteration {tie['iteration']} neurons {' and '.join(str(j) for j in tie['neurons'])} tie at "
            f"τ = {exact} ≈ {float(tie['tau']):.4g}")


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
