"""`relucheck report --paper A`: the optimization-threshold figures of paper A (v2 Fig. 2, 3, 7).

Scale: reduced by default (d = 2, 3, 4; two seeds; m = 50; flow time 10³; about 1–2 minutes on 2 cores);
``RELUCHECK_SCALE=full`` runs the real experiment (d = 2 … 5, three seeds, m = 100, 10⁵ steps; the full
grid of `numerics.paper_a_training.threshold_grid`). Runs go through a resumable sweep in
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

SCALES = {
    "reduced": dict(ds=(2, 3, 4), n_seeds=2, protocol=dict(THRESHOLD_PROTOCOL, m=50, max_steps=20_000)),
    "full": dict(ds=(2, 3, 4, 5), n_seeds=3, protocol=dict(THRESHOLD_PROTOCOL)),
}


def _save(fig, stem: Path) -> list[Path]:
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    for p in paths:
        fig.savefig(p, dpi=130, bbox_inches="tight")
    return paths


def write_report(out_dir, seed: int = 0) -> list[Path]:
    import matplotlib.pyplot as plt

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
    sigma2_half = cfg["protocol"]["sigma"] ** 2 / 2
    paths: list[Path] = []

    # train/test losses against n (v2 Fig. 2, A.5 Fig. 7)
    ds = cfg["ds"]
    fig, axes = plt.subplots(1, len(ds), figsize=(4.2 * len(ds), 3.4), squeeze=False)
    table = []
    for ax, d in zip(axes[0], ds):
        rs = [r for r in rows if r["d"] == d]
        ns = sorted({r["n"] for r in rs})

        def med(key, rs=rs, ns=ns):
            return np.array([np.median([r[key] for r in rs if r["n"] == n]) for n in ns])

        train, test, train_ols, test_ols = med("train"), med("test"), med("train_ols"), med("test_ols")
        ax.loglog(ns, np.maximum(train, 1e-12), "o-", label="network train")
        ax.loglog(ns, test, "s-", label="network test")
        ax.loglog(ns, train_ols, "--", label="OLS train")
        ax.loglog(ns, test_ols, ":", label="OLS test")
        ax.axhline(sigma2_half, color="grey", lw=0.8, label="noise σ²/2")
        ax.set_title(f"d = {d}")
        ax.set_xlabel("n")
        for k, n in enumerate(ns):
            table.append([d, n, train[k], train_ols[k], train[k] / train_ols[k], test[k], test_ols[k]])
    axes[0][0].set_ylabel("loss at convergence (1/(2n) convention)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Paper A: losses against n ({scale} scale, seeds {list(seeds)}, median)", y=1.03)
    paths += _save(fig, out / "paper_a_losses")
    plt.close(fig)
    paths += write_table(["d", "n", "train", "OLS train", "train/OLS", "test", "OLS test"], table,
                         out / "paper_a_losses", caption=f"Paper A, losses at convergence ({scale} scale; medians over "
                                                         f"seeds {list(seeds)})")

    # threshold against d
    limits = {d: interpolation_limit(rows, d) for d in ds}
    have = [d for d in ds if limits[d]]
    # a slope needs two different thresholds; the reduced grid may not resolve them
    identifiable = len({limits[d] for d in have}) >= 2
    k = fit_exponent(have, [limits[d] for d in have]) if identifiable else float("nan")
    fig, ax = plt.subplots(figsize=(4.2, 3.4))
    if have:
        ax.loglog(have, [limits[d] for d in have], "o", label="largest interpolating n")
        dd = np.linspace(min(have), max(have), 50)
        if np.isfinite(k):
            c = np.exp(np.mean(np.log([limits[d] for d in have]) - k * np.log(have)))
            ax.loglog(dd, c * dd**k, "-", label=f"fit d^{k:.2f}")
        c3 = limits[have[0]] / have[0] ** 3
        ax.loglog(dd, c3 * dd**3, ":", label="d³ (paper)")
    ax.set_xlabel("d")
    ax.set_ylabel("n_interp")
    ax.legend(fontsize=7)
    paths += _save(fig, out / "paper_a_threshold")
    plt.close(fig)
    paths += write_table(["d", "largest interpolating n"], [[d, limits[d] if limits[d] else "none"] for d in ds]
                         + [["exponent", k if identifiable else
                             "not identifiable at this scale (equal thresholds); use RELUCHECK_SCALE=full"]],
                         out / "paper_a_threshold",
                         caption=f"Paper A, optimization threshold (median ratio L/L_OLS < 1e-3), {scale} scale")

    # alignment histogram (v2 Fig. 3): smallest and largest n of the largest d
    d = ds[-1]
    rs = [r for r in rows if r["d"] == d]
    ns = sorted({r["n"] for r in rs})
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
    for ax, n in zip(axes, (ns[0], ns[-1])):
        cos = np.concatenate([r["abs_cos"] for r in rs if r["n"] == n])
        weight = np.concatenate([r["weight"] for r in rs if r["n"] == n])
        ax.hist(cos, bins=20, range=(0, 1), weights=weight / weight.sum())
        share = float(weight[cos >= 0.9].sum() / weight.sum())
        ax.set_title(f"d = {d}, n = {n}: {100 * share:.0f} % of weight at |cos| ≥ 0.9", fontsize=9)
        ax.set_xlabel("|cos(w_j, β̂_OLS)|")
    axes[0].set_ylabel("share of Σ|a_j|‖w_j‖")
    paths += _save(fig, out / "paper_a_alignment")
    plt.close(fig)
    return paths
