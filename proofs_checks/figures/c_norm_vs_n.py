"""Paper C, Figure 5: squared parameter norm against n, learned (Algorithm 1's θ_∞) and minimum (θ*), log–log.

Spec C §4 (Fig. 5): d = n, x = identity, y ~ N(0, I_n), random output signs, width m = ⌈ln(20n)/ln(4/3)⌉ (the
spec's reproduction default, the paper's m(n) is lost), mean over seeds with min/max bars. The learned norm is
the λ → 0 limit ‖θ_∞‖² = 2Σ_k‖y_{{S_k}}‖ of eq. (15) computed by Algorithm 1 (no training), the minimum is
‖θ*‖² = 2(‖y_+‖ + ‖y_−‖). Both are predicted to grow like √n (Theorem 3).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..checks.paper_c_algorithm import fig5_width, norm_sweep
from ..report import write_table
from . import style as figstyle

FIG5_SIZES = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
FIG5_SEEDS = 10
FIG5_TAG = 501


def write_norm_figure(out_dir, seed: int) -> list[Path]:
    """Write ``fig5_norm_vs_n.png/.pdf/.csv`` and the table ``fig5_norm_vs_n.md/.tex`` into ``out_dir`` (in the style of
    the enclosing `figures.style.context`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = norm_sweep(seed, FIG5_SIZES, FIG5_SEEDS, FIG5_TAG)
    sizes = np.array(FIG5_SIZES, dtype=float)
    stats = {}
    for col, name in ((0, "learned"), (1, "minimum")):
        values = np.array([data[n][:, col] for n in FIG5_SIZES])
        stats[name] = (values.mean(1), values.min(1), values.max(1))

    with figstyle.context(figstyle.active().name):  # the enclosing report's style, or the default
        paths = _draw(out, sizes, stats)

    learned, minimum = stats["learned"][0], stats["minimum"][0]
    local = np.r_[np.nan, np.diff(np.log(learned)) / np.diff(np.log(sizes))]
    rows = []
    for i, n in enumerate(FIG5_SIZES):
        d = data[n]
        rows.append([n, fig5_width(n), learned[i], stats["learned"][1][i], stats["learned"][2][i], minimum[i],
                     float((d[:, 0] / d[:, 1]).mean()), float(d[:, 3].mean()),
                     "" if np.isnan(local[i]) else local[i]])
    header = ["n", "m", "mean ‖θ_∞‖²", "min", "max", "mean ‖θ*‖²", "mean ratio", "interpolating", "local slope"]
    caption = (f"Paper C Fig. 5 by Algorithm 1: y ~ N(0, I_n), m = ⌈ln(20n)/ln(4/3)⌉, {FIG5_SEEDS} seeds "
               f"(seed {seed}); local slope = Δlog mean ‖θ_∞‖² / Δlog n (asymptotically 1/2, Theorem 3)")
    paths += write_table(header, rows, out / "fig5_norm_vs_n", caption=caption)
    return paths


def _draw(out: Path, sizes, stats) -> list[Path]:
    """The figure: mean squared norms with min/max bars, log–log, and a √n guide; its CSV."""
    fig, ax = figstyle.subplots("column", aspect=0.95)
    plotted = {"n": list(FIG5_SIZES)}
    for k, (name, label) in enumerate((("learned", r"learned $\|\theta_\infty\|^2$"),
                                       ("minimum", r"minimum $\|\theta^*\|^2$"))):
        mean, lo, hi = stats[name]
        ax.errorbar(sizes, mean, yerr=[mean - lo, hi - mean], marker=figstyle.MARKERS[k],
                    color=figstyle.OKABE_ITO[k + 1], label=label)
        plotted.update({f"{name}_squared_norm_mean": list(mean), f"{name}_squared_norm_min": list(lo),
                        f"{name}_squared_norm_max": list(hi)})
    guide = stats["minimum"][0][0] * np.sqrt(sizes / sizes[0])
    ax.plot(sizes, guide, "--", color="0.4", lw=0.8, zorder=1, label=r"$\propto n^{1/2}$")
    plotted["guide_sqrt_n"] = list(guide)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sample size $n$")
    ax.set_ylabel("squared norm")
    handles, labels = ax.get_legend_handles_labels()  # lines come before error-bar containers: guide last
    order = sorted(range(len(labels)), key=lambda i: labels[i].startswith(r"$\propto"))
    fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="outside lower center", ncol=2,
               columnspacing=1.0, handlelength=1.6)
    caption = (f"Paper C, Figure 5 analogue: squared parameter norm against n (log–log) in the λ → 0 limit, learned "
               f"‖θ_∞‖² = 2Σ_k‖y_{{S_k}}‖ by Algorithm 1 (no training) and minimum ‖θ*‖² = 2(‖y_+‖ + ‖y_−‖); mean with "
               f"min/max bars over {FIG5_SEEDS} seeds; d = n, x = identity, y ~ N(0, I_n), "
               f"m = ⌈ln(20n)/ln(4/3)⌉. Theorem 3 predicts growth like √n (dashed guide: slope 1/2).")
    return figstyle.save(fig, out / "fig5_norm_vs_n", caption=caption, data=plotted)
