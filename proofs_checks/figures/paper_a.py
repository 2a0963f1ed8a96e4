"""`relucheck report --paper A`: the optimization-threshold figures of paper A (v2 Fig. 2, 3, 7).

Scale: reduced by default (d = 2 … 6; three seeds; m = 50; 5·10⁴ steps; about 1 minute on 2 cores);
``RELUCHECK_SCALE=full`` runs the real experiment (d = 2 … 5, three seeds, m = 100, 10⁵ steps; the full
grid of `numerics.paper_a_training.threshold_grid`); ``RELUCHECK_SCALE=d10`` the same protocol at d = 2 … 10 with
n up to min(24 d², 4096) (docs/scale_runs.md). Runs go through a resumable sweep in
``OUT/sweeps/``: an interrupted report resumes where it stopped.

Outputs (PNG + PDF each, tables as Markdown + LaTeX):
* ``paper_a_losses``: train and test loss at convergence against n per d, with the OLS train and test
  losses and the noise level σ²/2 (1/(2n) convention);
* ``paper_a_threshold``: largest interpolating n against d (log-log) with the fitted exponent and d³;
* ``paper_a_alignment``: histogram of |cos(w_j, β̂_OLS)| below and beyond the threshold (v2 Fig. 3);
* tables ``paper_a_losses`` (medians per (d, n)) and ``paper_a_threshold`` (n_interp per d, exponent).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from relucheck.numerics.paper_a_training import THRESHOLD_PROTOCOL, fit_exponent, interpolation_limit, threshold_sweep

from ..report import write_table
from . import style

SCALES = {
    # reduced: d = 2 … 6 with a 5·10⁴-step budget resolves four distinct thresholds (d = 3 … 6; d = 2 does not
    # interpolate at n ≥ 2d) in about 50 s on one core, so the threshold plot shows a curve, not two points
    "reduced": dict(ds=(2, 3, 4, 5, 6), n_seeds=3, protocol=dict(THRESHOLD_PROTOCOL, m=50, max_steps=50_000)),
    "full": dict(ds=(2, 3, 4, 5), n_seeds=3, protocol=dict(THRESHOLD_PROTOCOL)),
    # the papers' own dimension: d = 2 … 10, n from 2d to min(24 d², 4096) (docs/scale_runs.md)
    "d10": dict(ds=(2, 3, 4, 5, 6, 7, 8, 9, 10), n_seeds=3, protocol=dict(THRESHOLD_PROTOCOL)),
}


def write_report(out_dir, seed: int = 0) -> list[Path]:
    scale = os.environ.get("RELUCHECK_SCALE", "reduced")
    if scale not in SCALES:
        from relucheck.numerics.errors import RelucheckInputError

        raise RelucheckInputError(f"RELUCHECK_SCALE must be one of {sorted(SCALES)}, got {scale!r}")
    cfg = SCALES[scale]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    seeds = tuple(seed + s for s in range(cfg["n_seeds"]))
    rows = threshold_sweep(out / "sweeps" / f"paper_a_threshold_{scale}_seed{seed}.jsonl", cfg["ds"], seeds,
                           scale=scale, **cfg["protocol"])
    with style.context():
        return _losses(out, rows, cfg, scale, seeds) + _threshold(out, rows, cfg, scale) + _alignment(out, rows, cfg)


def _losses(out: Path, rows, cfg, scale: str, seeds) -> list[Path]:
    """Train and test loss at convergence against n per d (v2 Fig. 2, A.5 Fig. 7)."""
    ds, sigma2_half = cfg["ds"], cfg["protocol"]["sigma"] ** 2 / 2
    fig, axes = style.subplots("full", aspect=0.62, ncols=len(ds), sharey=True, squeeze=False)
    table = []
    for ax, d in zip(axes[0], ds):
        rs = [r for r in rows if r["d"] == d]
        ns = sorted({r["n"] for r in rs})

        def med(key, rs=rs, ns=ns):
            return np.array([np.median([r[key] for r in rs if r["n"] == n]) for n in ns])

        train, test, train_ols, test_ols = med("train"), med("test"), med("train_ols"), med("test_ols")
        ax.loglog(ns, np.maximum(train, 1e-12), "o-", label="network, train")
        ax.loglog(ns, test, "s-", label="network, test")
        ax.loglog(ns, train_ols, "--", label="OLS, train")
        ax.loglog(ns, test_ols, ":", label="OLS, test")
        ax.axhline(sigma2_half, color="0.5", lw=0.6, label=r"noise $\sigma^2/2$")
        ax.set_xlabel(f"$n$ ($d = {d}$)")
        style.plain_log_ticks(ax, "x", ticks=ns[:: max(1, len(ns) // 3)])
        for k, n in enumerate(ns):
            table.append([d, n, train[k], train_ols[k], train[k] / train_ols[k], test[k], test_ols[k]])
    axes[0][0].set_ylabel("loss at convergence")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))
    caption = (f"Paper A, Figure 2 analogue: train and test loss at convergence (1/(2n) convention, median over seeds "
               f"{', '.join(map(str, seeds))}) of the network trained by GD from small initialization and of OLS, "
               f"against n, for each d ({scale} scale); the grey line is the noise level σ²/2.")
    paths = style.save(fig, out / "paper_a_losses", caption=caption)
    return paths + write_table(["d", "n", "train", "OLS train", "train/OLS", "test", "OLS test"], table,
                               out / "paper_a_losses", caption=f"Paper A, losses at convergence ({scale} scale; "
                                                               f"medians over seeds {', '.join(map(str, seeds))}).")


def _threshold(out: Path, rows, cfg, scale: str) -> list[Path]:
    """Largest interpolating n against d, log–log, with the fitted exponent and the paper's d³."""
    ds = cfg["ds"]
    limits = {d: interpolation_limit(rows, d) for d in ds}
    have = [d for d in ds if limits[d]]
    identifiable = len({limits[d] for d in have}) >= 2  # a slope needs two different thresholds
    k = fit_exponent(have, [limits[d] for d in have]) if identifiable else float("nan")
    fig, ax = style.subplots("column")
    if have:
        ax.loglog(have, [limits[d] for d in have], "o", label="largest interpolating $n$")
        dd = np.linspace(min(have), max(have), 50)
        if np.isfinite(k):
            c = np.exp(np.mean(np.log([limits[d] for d in have]) - k * np.log(have)))
            ax.loglog(dd, c * dd**k, "-", label=f"fit $n \\propto d^{{{k:.2f}}}$")
        c3 = limits[have[0]] / have[0] ** 3
        ax.loglog(dd, c3 * dd**3, ":", label="$n \\propto d^3$ (paper)")
        style.plain_log_ticks(ax, "x", ticks=have)
        style.plain_log_ticks(ax, "y", ticks=sorted({limits[d] for d in have}))
    ax.set_xlabel("input dimension $d$")
    ax.set_ylabel(r"threshold $n_{\mathrm{interp}}$")
    ax.legend()
    missing = [d for d in ds if not limits[d]]
    caption = (f"Paper A, optimization threshold: the largest n of the grid at which the median ratio of the "
               f"network's train loss to OLS's is below 10⁻³ (interpolation), against d, log–log ({scale} scale)"
               + (f"; fitted exponent {k:.2f}" if identifiable else "; exponent not identifiable at this scale")
               + " against the paper's d³ (up to log d)"
               + (f"; no interpolation on the grid (n ≥ 2d) at d = {', '.join(map(str, missing))}" if missing else "")
               + ".")
    paths = style.save(fig, out / "paper_a_threshold", caption=caption)
    table = [[d, limits[d] if limits[d] else "none"] for d in ds]
    note = (f"fitted exponent {k:.3g}" if identifiable
            else "exponent not identifiable at this scale (equal thresholds): use RELUCHECK_SCALE=full")
    return paths + write_table(["d", "largest interpolating n"], table, out / "paper_a_threshold",
                               caption=f"Paper A, optimization threshold (median ratio L/L_OLS < 1e-3), {scale} "
                                       f"scale; {note}.")


def _alignment(out: Path, rows, cfg) -> list[Path]:
    """Histogram of |cos(w_j, β̂_OLS)| below and beyond the threshold (v2 Fig. 3): smallest and largest n of
    the largest d."""
    d = cfg["ds"][-1]
    rs = [r for r in rows if r["d"] == d]
    ns = sorted({r["n"] for r in rs})
    fig, axes = style.subplots("column", aspect=0.62, ncols=2, sharey=True)
    shares = []
    for ax, n in zip(axes, (ns[0], ns[-1])):
        cos = np.concatenate([r["abs_cos"] for r in rs if r["n"] == n])
        weight = np.concatenate([r["weight"] for r in rs if r["n"] == n])
        ax.hist(cos, bins=20, range=(0, 1), weights=weight / weight.sum(), color=style.OKABE_ITO[4])
        shares.append(float(weight[cos >= 0.9].sum() / weight.sum()))
        ax.text(0.96, 0.96, f"$n = {n}$", transform=ax.transAxes, ha="right", va="top")
        ax.set_xlabel(r"$|\cos(w_j, \hat\beta_{\mathrm{OLS}})|$")
    axes[0].set_ylabel(r"share of $\sum_j |a_j|\,\|w_j\|$")
    caption = (f"Paper A, Figure 3 analogue: distribution of the neurons' alignment |cos(w_j, β̂_OLS)| with the OLS "
               f"estimator, weighted by |a_j|‖w_j‖, at d = {d} for n = {ns[0]} (left, below the threshold) and "
               f"n = {ns[-1]} (right, beyond it); weight at |cos| ≥ 0.9: {100 * shares[0]:.0f} % and "
               f"{100 * shares[1]:.0f} %.")
    return style.save(fig, out / "paper_a_alignment", caption=caption)
