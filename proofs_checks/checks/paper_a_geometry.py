"""Paper A, early-alignment geometry: Theorem 3.1, Lemma C.1, Corollary D.1, Definition 2.1 / eq. (19),
Proposition 3.1, and the infinite-data objects of Lemma F.2 (spec A §5.1: S4, S8, S9, H2, N1–N4)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from relucheck.numerics import datasets
from relucheck.theory.extremal_vectors import cover_count, count_cells, extremal_vectors
from relucheck.theory.sup_deviation import sup_deviation_2d
from relucheck.theory.paper_a_limits import D_inf_linear_proof

from ..registry import Context, check
from ..reader_text import plain_list
from ..result import Outcome, Status, agree, within_bound

E_Y2X2_SG21 = 6.0  # E[y²‖x‖²] for S_G(2, 1): y = x_1 + ξ, E[x_1²‖x‖²] + E‖x‖² = (3 + 1) + 2
BETA_HALF = np.array([0.5, 0.0])  # D_∞ = ½ β* for S_G (x ~ N(0, I), β* = e_1)


def _gaussian_problem(n, rng, d=2, sigma=1.0):
    X = rng.standard_normal((n, d))
    return X, X[:, 0] + sigma * rng.standard_normal(n)


def _deviations(seed, ns, reps, key):
    rng = np.random.default_rng([seed, key])
    return np.array([[sup_deviation_2d(*_gaussian_problem(n, rng), BETA_HALF) for _ in range(reps)] for n in ns])


@check("A.thm3.1.rate", statement="A.thm3.1",
       mutant="claims the rate 1/n (log-log slope −1) instead of √(log n / n)")
def rate(ctx: Context) -> Outcome:
    """A Theorem 3.1 (N1): E sup_w ‖D_n(w) − D_∞(w)‖ on S_G(2, 1), exact cells (d = 2), 20 repetitions per n.

    Prediction: the log-log slope of E_n against n equals that of √(log n / n) fitted on the same grid
    (≈ −0.45 here), and E_n ≤ √(E[y²‖x‖²] d log n / n) (the bound with C = 1).
    """
    ns = np.array([100, 300, 1000, 3000, 10000])
    dev = ctx.cached("dev", lambda: _deviations(ctx.seed, ns, 20, 31))
    E = dev.mean(1)
    slope = np.polyfit(np.log(ns), np.log(E), 1)[0]
    theory = np.sqrt(np.log(ns) / ns)
    predicted = -1.0 if ctx.mutate else np.polyfit(np.log(ns), np.log(theory), 1)[0]
    se = np.sqrt(((dev.std(1, ddof=1) / np.sqrt(dev.shape[1]) / E) ** 2).sum()) / np.log(ns).std() / np.sqrt(len(ns))
    bound = np.sqrt(E_Y2X2_SG21 * 2 * np.log(ns) / ns)
    out = agree(predicted, slope, 0.1,
                "the issue's ±0.1 on the slope: Theorem 3.1 fixes the rate only up to its unknown constant C and "
                f"lower-order terms; the Monte-Carlo standard error of the fitted slope is {se:.3g}",
                message=f"E_n = {plain_list(E)} at n = {plain_list(ns)}; ratio to the C = 1 bound {plain_list(E / bound, 3)}",
                ns=ns, E_n=E, slope_standard_error=se, ratio_to_bound=E / bound)
    return out.require(bool(np.all(E <= bound)), "the C = 1 bound is violated")


@check("A.thm3.1.cover_count", statement="A.thm3.1", precision="exact (integers)",
       mutant="Cover's count with C(n, i) in place of C(n − 1, i)")
def cover(ctx: Context) -> Outcome:
    """Eq. (12) (S8/H3): the number of activation patterns |𝒜| equals 2 Σ_{i<d} C(n−1, i) for points in
    general position, counted by exact cell enumeration (d = 2, 3; n = 3 … 12)."""
    rng = np.random.default_rng([ctx.seed, 32])
    cases = [(d, n) for d in (2, 3) for n in (3, 5, 8, 12)]
    counted = ctx.cached("counts", lambda: [count_cells(rng.standard_normal((n, d))) for d, n in cases])
    formula = [2 * sum(sp.binomial(n, i) for i in range(d)) if ctx.mutate else cover_count(n, d) for d, n in cases]
    return agree(np.array(formula, float), np.array(counted, float), 0.0,
                 "exact: both sides are integers from exact arithmetic (Gaussian points are in general position a.s.)",
                 cases=cases)


@check("A.lemC.1.clarke_segments", statement="A.lemC.1",
       mutant="claims the Clarke segments raise the sup by 1 % over the sup of D_n")
def clarke_segments(ctx: Context) -> Outcome:
    """Lemma C.1 (H2): sup over every boundary segment of ‖D − D_∞‖ (101 points per segment) equals the
    max over the arcs, d = 2, S_G(2, 1), n = 200."""
    rng = np.random.default_rng([ctx.seed, 33])
    X, y = _gaussian_problem(200, rng)
    n = len(y)
    arcs = sup_deviation_2d(X, y, BETA_HALF)
    phi = np.arctan2(X[:, 1], X[:, 0])
    seg = 0.0
    for k in range(n):
        for b in (phi[k] + np.pi / 2, phi[k] - np.pi / 2):
            w = np.array([np.cos(b), np.sin(b)])
            act = (X @ w > 0)
            act[k] = False  # the tied point: η_k ranges over [0, 1]
            base = (act * y) @ X / n
            eta = np.linspace(0, 1, 101)[:, None]
            seg = max(seg, float(np.max(np.linalg.norm(base + eta * y[k] * X[k] / n - BETA_HALF, axis=1))))
    predicted = 1.01 * arcs if ctx.mutate else arcs
    return agree(predicted, seg, 1e-12, "float64 rounding of sums of n = 200 terms of size ≤ max‖y x‖/n (≈ 1e-14); "
                 "a convex function on a segment is maximal at an endpoint, which is an arc value",
                 relative=True, message=f"sup over arcs {arcs:.6g}, over Clarke segments {seg:.6g}")


@check("A.corD.1.tail", statement="A.corD.1",
       mutant="threshold with C = 0.2 instead of C = 1 (below the typical deviation)")
def tail(ctx: Context) -> Outcome:
    """Corollary D.1 (N2): frequency over 300 repetitions of sup_w ‖D_n − D_∞‖ > C √(E[y²‖x‖²] d log n / n)
    with C = 1 on S_G(2, 1), n ∈ {1000, 3000}: at most 0.05 (the O(1/n) tail, generous)."""
    ns = [1000, 3000]
    dev = ctx.cached("dev", lambda: _deviations(ctx.seed, ns, 300, 34))
    C = 0.2 if ctx.mutate else 1.0
    freq = np.array([(dev[i] > C * np.sqrt(E_Y2X2_SG21 * 2 * np.log(n) / n)).mean() for i, n in enumerate(ns)])
    return within_bound(freq, 0.05, "Corollary D.1 gives O(1/n) ≤ 0.05 here with moderate C'; 3 binomial standard "
                        "errors at 300 repetitions and p = 0.05 are 0.038, so 0.05 is met with room when the tail is "
                        "O(1/n) = O(1e-3)", side="<=", message=f"frequencies {plain_list(freq)} at n = {plain_list(ns)}")


def _margin_extremals(seed, n, reps, key):
    rng = np.random.default_rng([seed, key])
    out = []
    for _ in range(reps):
        X = datasets.margin_inputs(n, 2, rng, c0=0.3, whiten=False)
        y = datasets.linear_teacher(X, rng, noise=0.5)
        plus = X[:, 0] > 0
        D_plus, D_minus = (y * plus) @ X / n, (y * ~plus) @ X / n
        out.append((extremal_vectors(X, y), D_plus, D_minus))
    return out


@check("A.def2.1.margin_two_vectors", statement="A.def2.1", precision="exact (integers) + float64",
       mutant="swaps the types: D_+ of min type and D_− of max type")
def margin_two_vectors(ctx: Context) -> Outcome:
    """Eq. (19) (N4): under the margin (S_A1(2, 0.3, 0.5), n = 100, 20 data sets) the extremal vectors are
    exactly {(D_+, max), (D_−, min)}, D_± = (1/n) Σ_{S_±} y_k x_k, in at least 95 % of the data sets."""
    runs = ctx.cached("runs", lambda: _margin_extremals(ctx.seed, 100, 20, 35))
    tmax, tmin = ("min", "max") if ctx.mutate else ("max", "min")
    hits = 0
    for found, Dp, Dm in runs:
        got = sorted((e.type, tuple(np.round(e.vector, 12))) for e in found)
        want = sorted([(tmax, tuple(np.round(Dp, 12))), (tmin, tuple(np.round(Dm, 12)))])
        hits += got == want
    freq = hits / len(runs)
    return within_bound(freq, 0.95, "the reconstructed specification asks probability ≥ 0.95 at n ≥ 100 (calibration runs: 1.0); vectors compared to "
                        "12 decimals (both sides are exactly rounded sums of the same terms)", side=">=",
                        message=f"{hits}/{len(runs)} data sets have exactly the two predicted extremal vectors")


@check("A.prop3.1.concentration", statement="A.prop3.1", precision="exact (integers) + float64",
       mutant="claims the extremal vectors concentrate at β* instead of at the critical value D_∞ = β*/2")
def concentration(ctx: Context) -> Outcome:
    """Proposition 3.1 (N3): Gaussian data without margin, S_G(2, 1), n ∈ {60, 200, 600}, 5 data sets each.

    G_∞(w) = ½⟨w, β*⟩ is linear, so its only extremal vector is D* = β*/2 (eq. 6). The proof of Prop. 3.1
    gives, for an extremal D ∈ 𝒟_n(w), ‖D − D*‖ = ‖D − D_∞(w)‖ ≤ sup_w sup_{𝒟_n} ‖· − D_∞‖ = ε', the
    uniform deviation of Theorem 3.1 (Lemma C.1 reduces it to the arcs). Checked per data set, with the
    mean distance decreasing in n (concentration)."""
    ns = [60, 200, 600]

    def compute():
        rng = np.random.default_rng([ctx.seed, 36])
        out = []
        for n in ns:
            per_n = []
            for _ in range(5):
                X, y = _gaussian_problem(n, rng)
                per_n.append((extremal_vectors(X, y), sup_deviation_2d(X, y, BETA_HALF)))
            out.append(per_n)
        return out

    runs = ctx.cached("runs", compute)
    target = np.array([1.0, 0.0]) if ctx.mutate else BETA_HALF
    dist = np.array([[max(np.linalg.norm(e.vector - target) for e in found) for found, _ in per_n] for per_n in runs])
    eps = np.array([[dev for _, dev in per_n] for per_n in runs])
    counts = [[len(found) for found, _ in per_n] for per_n in runs]
    out = within_bound(dist, eps, "exact inequality of the proof; slack = float64 rounding of sums of n ≤ 600 terms "
                       "of size max‖y x‖/n (≤ 1e-12)", side="<=", slack=1e-12,
                       message=f"mean max distance {plain_list(dist.mean(1))} at n = {plain_list(ns)}; extremal vectors found "
                               f"in the {len(counts[0])} data sets: " + "; ".join(
                                   f"{plain_list(c)} at n = {n}" for c, n in zip(counts, ns)), mean_max_distance=dist.mean(1))
    return out.require(bool(np.all(np.diff(dist.mean(1)) < 0)), "the mean distance does not decrease with n")


def _matrix_text(M) -> str:
    """A SymPy matrix in a message: 0 (the zero matrix), or its rows in parentheses (never Matrix([[…]]))."""
    if all(e == 0 for e in M):
        return f"0 (the {M.rows}×{M.cols} zero matrix)"
    rows = [f"({', '.join(str(e) for e in M.row(i))})" for i in range(M.rows)]
    return f"the matrix with rows {', '.join(rows[:-1])} and {rows[-1]}"


@check("A.lemF.2.D_infinity", statement="A.lemF.2", precision="exact (SymPy)",
       mutant="claims D_∞(w) = Σβ* (without the ½)")
def D_infinity(ctx: Context) -> Outcome:
    """S4, proof of Lemma F.2: E[1{⟨w,x⟩>0} x xᵀ] = ½ I for a standard Gaussian in d = 2 at every w
    (polar integral over the half-plane, symbolic angle), so D_∞(w) = ½ β* for the linear teacher."""
    diff = ctx.cached("diff", D_inf_linear_proof)
    if ctx.mutate:
        diff = sp.simplify(diff - sp.eye(2) / 2)
    ok = diff == sp.zeros(2, 2)
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "0", str(diff), 0,
                   "exact symbolic integration: the simplified difference must be the zero matrix",
                   f"E[1{{⟨w,x⟩>0}} x xᵀ] − {'I' if ctx.mutate else '½ I'} = {_matrix_text(diff)}")


@check("A.lemF.2.tanh_comparison", statement="A.lemF.2", precision="exact (SymPy)",
       mutant="claims f = tanh(αt + atanh f_0) solves f' = α(1 − f) instead of f' = α(1 − f²)")
def tanh_comparison(ctx: Context) -> Outcome:
    """Eq. (22) (S9): f(t) = tanh(αt + atanh f_0) solves f' = α(1 − f²) with f(0) = f_0."""
    t, alpha, f0 = sp.symbols("t alpha f_0", real=True)
    f = sp.tanh(alpha * t + sp.atanh(f0))
    rhs = alpha * (1 - f) if ctx.mutate else alpha * (1 - f**2)
    residual = sp.simplify(sp.diff(f, t) - rhs)
    initial = sp.simplify(f.subs(t, 0) - f0)
    ok = residual == 0 and initial == 0
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, "0", f"{residual}; f(0) − f_0 = {initial}", 0,
                   "exact symbolic identity", "ODE residual and initial condition simplify to 0" if ok else
                   "non-zero residual")
