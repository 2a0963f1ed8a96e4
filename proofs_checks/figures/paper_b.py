"""`relucheck report --paper B`: Figures 2–6 of paper B regenerated (spec B §3) with tables.

* Figure 2: the phase transition of the closed form (p = 2 groups, ‖D‖ = 1, 2, N_0 = 1, k = 100 + ⌊e^42⌋;
  ρ_0 = 1 where the paper's (67)/(69) are exact), plus a panel comparing the paper's and the exact
  closed form at ρ_0 = 0.3 (the finding of docs/paper_b.md).
* Figure 3: P̂(convergence) against n at fixed d (Exp. 1.0), with Clopper–Pearson intervals and the
  measured 50 % threshold.
* Figures 4 and 5: the threshold N(d, p) against d (p = 30) and against p (fixed d).
* Figure 6: the asymptotic local-PL measures on orthogonal data against n, log–log, with slopes.

Protocol of the experiments (spec B §3): ‖x_i‖, |y_i| ~ U[1, 2], fair label signs, B's Gaussian init,
full-batch GD with η = 1 on p·L for ⌊1.5√(np) log(np)/4⌋ + 1 epochs, early stop at L < cv/(2n),
"converged" = final L ≤ 1/(2n). Default scale is reduced (≈ 1–2 min on 2 cores); ``RELUCHECK_SCALE=full``
runs the paper's sizes (d = 100 and n ∈ [1300, 2100] for Figure 3, d up to 100 for Figure 4, d = 2000
and n ∈ [1000, 2000] for Figure 6; hours). Every sweep is a `numerics.sweep.Sweep` in
``out_dir/sweeps/`` (progress on stderr; rerunning resumes without repeating finished points).
Beside each figure, the CSV of its plotted values (`figures.style.save`; figures whose panels have different
x use a long table with ``panel`` and ``curve`` columns).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import mpmath
import numpy as np

from relucheck.numerics import paper_b_sim as sim
from relucheck.numerics.sweep import Sweep
from relucheck.theory import paper_b_closed_form as cf
from relucheck.theory.paper_b_probability import clopper_pearson

from ..report import write_table
from . import style as figstyle

SCALES = {
    "reduced": {"fig3": {"d": 30, "n": [60, 90, 120, 150, 180, 210, 240, 300], "runs": 16},
                "fig4": {"p": 30, "d": [10, 20, 30], "runs": 12, "n_per_d": [1, 3, 5, 7, 9, 12]},
                "fig5": {"d": 15, "p": [15, 30, 60], "runs": 10, "n": [30, 50, 70, 90, 120, 150]},
                "fig6": {"d": 2000, "n": [250, 354, 500, 707], "runs": 8}},
    "full": {"fig3": {"d": 100, "n": list(range(1300, 2101, 100)), "runs": 40},
             "fig4": {"p": 30, "d": list(range(10, 101, 10)), "runs": 20,
                      "n_per_d": [1, 3, 6, 9, 12, 15, 18, 21, 25, 30]},
             "fig5": {"d": 30, "p": [50, 100, 150, 200, 300, 400], "runs": 20, "n": list(range(150, 451, 30))},
             "fig6": {"d": 2000, "n": list(range(1000, 2001, 250)), "runs": 20}},
}


def scale_name() -> str:
    name = os.environ.get("RELUCHECK_SCALE", "reduced")
    if name not in SCALES:
        from relucheck.numerics.errors import RelucheckInputError

        raise RelucheckInputError(f"RELUCHECK_SCALE must be one of {', '.join(sorted(SCALES))}, got {name!r}")
    return name


def _long(curves) -> dict:
    """One long table (columns panel, curve, x, y) of curves given as (panel, curve, xs, ys)."""
    data = {"panel": [], "curve": [], "x": [], "y": []}
    for panel, curve, xs, ys in curves:
        for x, y in zip(xs, ys, strict=True):
            data["panel"].append(panel)
            data["curve"].append(curve)
            data["x"].append(x)
            data["y"].append(y)
    return data


# -- Figure 2 -------------------------------------------------------------------------------------------

def figure2(out: Path) -> list[Path]:
    p, N0 = 2, 1
    with mpmath.workdps(60):
        k = 100 + mpmath.floor(mpmath.e**42)
        n = p * k
        Ds = [mpmath.mpf(1), mpmath.mpf(2)]
        groups = [(2 * mpmath.sqrt(k) * D / n, p * mpmath.sqrt(k) * D, mpmath.sqrt(k) * D) for D in Ds]
        t_sec = max(mpmath.log(P) / c for c, P, _ in groups)
        s = np.linspace(0, 1.5, 301)
        L = []
        for si in s:
            tot = 0
            for c, P, Y in groups:
                rho, N = cf.true_state(c, P, 1, N0, si * t_sec)
                tot += cf.group_loss_sq(Y, N, rho, p) / (2 * k)
            L.append(float(tot / p))
    # L_∞(s) = (1/(2p)) Σ_j ‖D_j‖² 1{s < 1/‖D_j‖}: group j transitions at (1/c_j) log P_j ≈ t_sec/‖D_j‖
    stair = [sum(float(D) ** 2 / (2 * p) for D in Ds if si < 1 / float(D)) for si in s]
    # comparison panel: ρ_0 = 0.3, one group, c = 1, P = 100, N_0 = 1
    tt = np.linspace(0, 12, 241)
    true_N = [float(cf.true_state(1, 100, 0.3, 1, x)[1]) for x in tt]
    pap_N = [float(cf.paper_state(1, 100, 0.3, 1, x)[1]) for x in tt]
    fig, ax = figstyle.subplots("full", ncols=2)
    ax[0].plot(s, L, label="$L_n$ (closed form, $\\rho_0=1$)")
    ax[0].plot(s, stair, "--", label="$L_\\infty$ staircase")
    ax[0].set_xlabel(r"$t/t_{\mathrm{sec}}$")
    ax[0].set_ylabel("loss")
    ax[0].legend()
    ax[1].plot(tt, true_N, label="exact solution")
    ax[1].plot(tt, pap_N, "--", label="paper's eq. (69)")
    ax[1].set_xlabel("$ct$")
    ax[1].set_ylabel("$N=\\|w\\|_+^2$")
    ax[1].legend()
    caption = ("Paper B, Figure 2 regenerated: left, the loss of the closed form (p = 2 groups with ‖D‖ = 1 and 2, "
               "N_0 = 1, ρ_0 = 1, k = 100 + ⌊e⁴²⌋ points per group) against t/t_sec, with the limit staircase L_∞; "
               "right, N = ‖w‖_+² of one group (c = 1, P = 100, N_0 = 1, ρ_0 = 0.3): the exact solution against the "
               "paper's equation (69), which is off for ρ_0 < 1 (the paper's claim is refuted there).")
    data = _long([("loss_vs_t_over_t_sec", "closed_form_L_n", s, L),
                  ("loss_vs_t_over_t_sec", "limit_staircase_L_inf", s, stair),
                  ("N_vs_ct", "exact_solution", tt, true_N), ("N_vs_ct", "paper_eq_69", tt, pap_N)])
    paths = figstyle.save(fig, out / "fig2_phase_transition", caption=caption, data=data)
    rows = [[f"{x:.2f}", L[i], stair[i]] for i, x in enumerate(s) if i % 50 == 0]
    return paths + write_table(["t / t_sec", "L_n", "L_inf"], rows, out / "fig2_phase_transition",
                               caption="Paper B, Figure 2: closed-form loss L_n and limit L_∞ against normalized time "
                                       "t/t_sec (ρ_0 = 1)")


# -- Experiment 1: probability of convergence ------------------------------------------------------------

def convergence_point(point: dict) -> dict:
    """Runs of Exp. 1 at one (n, d, p): the count of converged runs and the remaining-loss trend."""
    n, d, p, runs, seed = point["n"], point["d"], point["p"], point["runs"], point["seed"]
    rng = np.random.default_rng([seed, n, d, p, 1])
    X, y = sim.experiment_data(n, d, rng)
    A, W = sim.paper_b_init(runs, p, d, rng)
    run = sim.batch_gd(X, y, A, W, 1.0, sim.experiment_epochs(n, p), stop_loss=1 / (2 * n))
    conv = run.loss <= 1 / (2 * n)
    trend = float(np.sum(np.where(conv, 0.0, run.loss / run.loss0)) / runs)
    return {"converged": int(conv.sum()), "runs": runs, "loss_trend": trend}


def _threshold(ns, probs) -> float | None:
    """First n where P̂ crosses 1/2 (linear interpolation), None if it never does."""
    for (n0, p0), (n1, p1) in zip(zip(ns, probs, strict=False), zip(ns[1:], probs[1:], strict=False), strict=False):
        if p0 >= 0.5 > p1:
            return n0 + (p0 - 0.5) / (p0 - p1) * (n1 - n0)
    return None


def figure3(out: Path, seed: int, cfg: dict) -> list[Path]:
    d = cfg["d"]
    points = [{"fig": 3, "n": n, "d": d, "p": sim.experiment_width(n), "runs": cfg["runs"], "seed": seed}
              for n in cfg["n"]]
    rows = Sweep(out / "sweeps" / "fig3.jsonl").run(points, convergence_point)
    ns = [r["point"]["n"] for r in rows]
    k = [r["result"]["converged"] for r in rows]
    N = [r["result"]["runs"] for r in rows]
    probs = [a / b for a, b in zip(k, N, strict=False)]
    ci = np.array([clopper_pearson(a, b) for a, b in zip(k, N, strict=False)])
    thr = _threshold(ns, probs)
    fig, ax = figstyle.subplots("full", ncols=2)
    ax[0].errorbar(ns, probs, yerr=[np.array(probs) - ci[:, 0], ci[:, 1] - np.array(probs)], fmt="o-")
    if thr:
        ax[0].axvline(thr, ls=":", c="0.5")
    ax[0].set_xlabel("sample size $n$")
    ax[0].set_ylabel("$P$(convergence)")
    ax[1].plot(ns, [r["result"]["loss_trend"] for r in rows], "o-")
    ax[1].set_xlabel("sample size $n$")
    ax[1].set_ylabel("remaining-loss trend")
    caption = (f"Paper B, Figure 3 regenerated (Experiment 1, d = {d}, {cfg['runs']} runs per point): left, the "
               f"estimated probability of convergence against n with 95 % Clopper–Pearson intervals"
               + (f" and the 50 % crossing at n ≈ {thr:.0f} (dotted)" if thr else " (the 50 % level is not crossed)")
               + "; right, the remaining-loss trend: the mean over runs of L/L(0) at the end, a converged run counting 0.")
    data = {"n": ns, "p": [r["point"]["p"] for r in rows], "converged_runs": k, "runs": N,
            "probability_of_convergence": probs, "clopper_pearson_95_low": list(ci[:, 0]),
            "clopper_pearson_95_high": list(ci[:, 1]), "remaining_loss_trend": [r["result"]["loss_trend"] for r in rows]}
    paths = figstyle.save(fig, out / "fig3_probability", caption=caption, data=data)
    table = [[n, r["point"]["p"], f"{a}/{b}", f"[{lo:.2f}, {hi:.2f}]", r["result"]["loss_trend"]]
             for n, r, a, b, (lo, hi) in zip(ns, rows, k, N, ci, strict=False)]
    return paths + write_table(["n", "p", "converged", "95% CI", "loss trend"], table, out / "fig3_probability",
                               caption=f"Paper B, Figure 3: probability of convergence at d = {d}; "
                                       + (f"50 % crossing at n ≈ {thr:.0f}" if thr else "the 50 % level is not crossed"))


def _threshold_curve(out, name, seed, grid):
    """Thresholds N for a list of (d, p, n-values)."""
    result = []
    for d, p, ns, runs in grid:
        points = [{"fig": name, "n": n, "d": d, "p": p, "runs": runs, "seed": seed} for n in ns]
        rows = Sweep(out / "sweeps" / f"{name}.jsonl").run(points, convergence_point)
        probs = [r["result"]["converged"] / r["result"]["runs"] for r in rows]
        result.append((d, p, _threshold(ns, probs), probs))
    return result


def _affine(fit, slope_digits: int, intercept_digits: int, minus: str = "-") -> str:
    """``a d + b`` or ``a d − b`` (``minus``: "-" in mathtext, "−" in text) of a degree-1 polyfit."""
    a, b = fit
    return f"{a:.{slope_digits}f} d {'+' if b >= 0 else minus} {abs(b):.{intercept_digits}f}"


def figure4(out: Path, seed: int, cfg: dict) -> list[Path]:
    p = cfg["p"]
    grid = [(d, p, [m * d for m in cfg["n_per_d"]], cfg["runs"]) for d in cfg["d"]]
    res = _threshold_curve(out, "fig4", seed, grid)
    ds = [r[0] for r in res if r[2]]
    Ns = [r[2] for r in res if r[2]]
    fig, ax = figstyle.subplots("column")
    ax.plot(ds, Ns, "o-", label="measured $N(d, p)$")
    fit = np.polyfit(ds, Ns, 1) if len(ds) >= 2 else None
    if fit is not None:
        ax.plot(ds, np.polyval(fit, ds), ":", label="affine fit $" + _affine(fit, 1, 0).replace(" d", r"\,d") + "$")
    ax.set_xlabel("input dimension $d$")
    ax.set_ylabel("threshold $N$")
    ax.legend()
    caption = (f"Paper B, Figure 4 regenerated: the convergence threshold N(d, p) (50 % crossing of the estimated "
               f"probability of convergence) against d at width p = {p}, {cfg['runs']} runs per point"
               + (f", with the affine fit N = {_affine(fit, 2, 1, minus='−')}" if fit is not None else "") + ".")
    data = {"d": ds, "p": [p] * len(ds), "threshold_N": Ns}
    if fit is not None:
        data["affine_fit_N"] = list(np.polyval(fit, ds))
    paths = figstyle.save(fig, out / "fig4_threshold_vs_d", caption=caption, data=data)
    rows = [[d, pp, "not crossed" if N is None else N] for d, pp, N, _ in res]
    return paths + write_table(["d", "p", "N (50% crossing)"], rows, out / "fig4_threshold_vs_d",
                               caption="Paper B, Figure 4: convergence threshold against d" +
                                       (f"; affine fit N = {_affine(fit, 2, 1, minus='−')}" if fit is not None else ""))


def figure5(out: Path, seed: int, cfg: dict) -> list[Path]:
    d = cfg["d"]
    res = _threshold_curve(out, "fig5", seed, [(d, p, cfg["n"], cfg["runs"]) for p in cfg["p"]])
    ps = [r[1] for r in res if r[2]]
    Ns = [r[2] for r in res if r[2]]
    fig, ax = figstyle.subplots("column")
    ax.plot(ps, Ns, "o-")
    ax.set_xscale("log")
    figstyle.plain_log_ticks(ax, "x", ticks=ps)  # the widths themselves, not 2×10¹ 3×10¹ minor labels
    ax.set_xlabel("width $p$")
    ax.set_ylabel("threshold $N$")
    caption = (f"Paper B, Figure 5 regenerated: the convergence threshold N(d, p) against the width p (log scale) "
               f"at d = {d}, {cfg['runs']} runs per point.")
    paths = figstyle.save(fig, out / "fig5_threshold_vs_p", caption=caption,
                          data={"d": [d] * len(ps), "p": ps, "threshold_N": Ns})
    rows = [[dd, p, "not crossed" if N is None else N] for dd, p, N, _ in res]
    return paths + write_table(["d", "p", "N (50% crossing)"], rows, out / "fig5_threshold_vs_p",
                               caption="Paper B, Figure 5: convergence threshold against the width p")


# -- Experiment 2: asymptotic local-PL on orthogonal data ------------------------------------------------

def pl_point(point: dict) -> dict:
    """Exp. 2 at one n: canonical orthogonal data in ℝ^d (span coordinates), rejection on 𝓘, cv 1e-6."""
    n, d, runs, seed = point["n"], point["d"], point["runs"], point["seed"]
    rng = np.random.default_rng([seed, n, d, 2])
    X, y = sim.experiment_data(n, n, rng, orthogonal=True)
    lam = np.linalg.norm(X, axis=1)  # x_i = λ_i e_i
    p = sim.experiment_width(n)
    As, Ws = [], []
    while len(As) < runs:  # rejection sampling on the good event (the authors' code)
        A, W = sim.paper_b_init_in_span(4 * runs, p, n, d, rng)
        keep = sim.good_event(lam, y, A, W)
        As += list(A[keep])
        Ws += list(W[keep])
    A, W = np.array(As[:runs]), np.array(Ws[:runs])
    epochs = sim.experiment_epochs(n, p)
    run = sim.batch_gd(lam, y, A, W, 1.0, epochs, stop_loss=1e-6 / (2 * n), history=True)
    H = run.history
    mu_end, mu_avg = [], []
    for b in range(runs):
        h = H[b][np.isfinite(H[b])]
        last = h[-101:]
        mu_end.append(float(np.mean(np.log(last[:-1] / last[1:]))))
        mu_avg.append(float(math.log(h[0] / h[-1]) / (len(h) - 1)))
    act = (run.W * lam) > 0
    mass = (act * (run.A**2)[:, :, None]).sum(1) / p  # (runs, n): (1/p) Σ_j a_j² 1_{j,i}
    return {"p": p, "mu_end": float(np.mean(mu_end)), "mu_avg": float(np.mean(mu_avg)),
            "mu_low": float(np.mean(2 / n * mass.min(1))), "mu_upp": float(np.mean(16 / n * mass.max(1))),
            "converged": int((run.loss < 1 / (2 * n)).sum())}


MEASURES = [("mu_end", "μ(t_∞)"), ("mu_avg", "⟨μ_∞⟩"), ("mu_low", "μ_low"), ("mu_upp", "μ_upp")]
MEASURE_LABELS = [r"$\mu(t_\infty)$", r"$\langle\mu_\infty\rangle$", r"$\mu_{\mathrm{low}}$", r"$\mu_{\mathrm{upp}}$"]


def figure6(out: Path, seed: int, cfg: dict) -> list[Path]:
    points = [{"fig": 6, "n": n, "d": cfg["d"], "runs": cfg["runs"], "seed": seed} for n in cfg["n"]]
    rows = Sweep(out / "sweeps" / "fig6.jsonl").run(points, pl_point)
    ns = np.array([r["point"]["n"] for r in rows], dtype=float)
    fig, ax = figstyle.subplots("column", aspect=1.2)
    slopes, data = {}, {"n": list(ns)}
    for k, ((key, _), label) in enumerate(zip(MEASURES, MEASURE_LABELS)):
        vals = np.array([r["result"][key] for r in rows])
        slopes[key] = float(np.polyfit(np.log(ns), np.log(vals), 1)[0])
        # the conjectured n^(-1/2) through the geometric mean of the measure: the guide its slope is read against
        guide = np.exp(np.mean(np.log(vals) + 0.5 * np.log(ns))) / np.sqrt(ns)
        ax.plot(ns, guide, color="0.6", lw=0.7, ls=(0, (4, 2)), zorder=1)
        ax.plot(ns, vals, marker=figstyle.MARKERS[k], color=figstyle.OKABE_ITO[k], label=rf"{label} (${slopes[key]:.2f}$)")
        data[f"{key}_run_average"] = list(vals)
        data[f"{key}_guide_n_to_minus_half"] = list(guide)
    ax.plot([], [], color="0.6", lw=0.7, ls=(0, (4, 2)), label=r"guide $n^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    figstyle.plain_log_ticks(ax, "x", ticks=[int(n) for n in ns])
    ax.set_xlabel("sample size $n$")
    ax.set_ylabel("run average")
    fig.legend(loc="outside lower center", ncol=2, columnspacing=1.0, title="measure (fitted slope)")
    caption = (f"Paper B, Figure 6 regenerated (Experiment 2): the asymptotic local-PL measures μ(t_∞), ⟨μ_∞⟩, μ_low "
               f"and μ_upp (run averages over {cfg['runs']} runs) on orthogonal data in dimension d = {cfg['d']} "
               f"against n, log–log, with their fitted slopes; each grey dashed guide has the slope −1/2 that "
               f"Conjecture 1 predicts.")
    paths = figstyle.save(fig, out / "fig6_local_pl_slopes", caption=caption, data=data)
    table = [[r["point"]["n"], r["result"]["p"]] + [r["result"][k] for k, _ in MEASURES] for r in rows]
    table.append(["slope", ""] + [slopes[k] for k, _ in MEASURES])
    return paths + write_table(["n", "p"] + [lab for _, lab in MEASURES], table, out / "fig6_local_pl_slopes",
                               caption="Paper B, Figure 6: asymptotic local-PL measures (run averages) and log–log "
                                       "slopes; Conjecture 1 predicts −1/2")


def write_report(out_dir: Path, seed: int = 0, *, style: str = figstyle.DEFAULT_STYLE) -> list[Path]:
    """All of paper B's figures and tables at the scale chosen by RELUCHECK_SCALE (default reduced), in the venue
    preset ``style`` (`figures.style.STYLES`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = SCALES[scale_name()]
    with figstyle.context(style):
        paths = figure2(out)
        paths += figure3(out, seed, cfg["fig3"])
        paths += figure4(out, seed, cfg["fig4"])
        paths += figure5(out, seed, cfg["fig5"])
        paths += figure6(out, seed, cfg["fig6"])
    return paths
