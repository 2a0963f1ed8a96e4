"""`relucheck limit … --plot FILE`: the jump times τ_k(λ) of the ladder against x = 1/ln(1/λ), the fitted law
τ_k* + C_k x + D_k x² (order 2 on the finest three rungs, `numerics.lambda_limit`) and the limit τ_k* at x = 0 with
its error bar, so a reader sees the extrapolation. Inconclusive jumps are drawn as open markers without a fit;
Algorithm 1's τ_k (orthonormal data) as crosses at x = 0."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from . import style as figstyle


def write_limit_plot(result, path, alg1=None) -> list[Path]:
    from numpy.polynomial import polynomial as P

    stem = Path(path)
    stem = stem.with_suffix("") if stem.suffix.lower() in (".pdf", ".png", ".csv") else stem
    x = np.array([1.0 / r["log_inv_lambda"] for r in result.ladder if r["status"] in ("success", "settled")])
    exact = {j.neuron: j.tau for j in alg1.jumps} if alg1 is not None else {}
    with figstyle.context(figstyle.active().name):
        fig, ax = figstyle.subplots("column", aspect=0.8)
        data = {"x_inv_log_inv_lambda": list(x)}
        grid = np.linspace(0.0, x.max(), 100)
        for k, j in enumerate(result.jumps, start=1):
            color = figstyle.OKABE_ITO[k % len(figstyle.OKABE_ITO)]
            samples = np.array([np.nan if v is None else v for v in j.samples], dtype=float)
            if samples.size != x.size:
                continue
            data[f"tau_{k}_neuron_{j.neuron}"] = list(samples)
            marker = figstyle.MARKERS[(k - 1) % len(figstyle.MARKERS)]
            ax.plot(x, samples, marker, color=color, mfc=color if j.ok else "none", ls="none",
                    label=f"$\\tau_{{{k}}}$ (neuron {j.neuron})" + ("" if j.ok else ", inconclusive"))
            if j.ok:
                ax.plot(grid, P.polyval(grid, j.coefficients), "-", color=color, lw=0.8)
                ax.errorbar([0.0], [j.value], yerr=[j.error], fmt=marker, color=color, capsize=2)
                data[f"limit_{k}"] = [j.value] + [None] * (x.size - 1)
                data[f"limit_{k}_error"] = [j.error] + [None] * (x.size - 1)
            if j.neuron in exact:
                ax.plot([0.0], [exact[j.neuron]], "x", color="0.3", ms=5)
        ax.set_xlabel(r"$1/\ln(1/\lambda)$")
        ax.set_ylabel(r"jump time $\tau_k$")
        ax.set_xlim(left=-0.03 * x.max())
        fig.legend(loc="outside lower center", ncol=2, handlelength=1.2)
        caption = ("Jump times τ_k of the flow against x = 1/ln(1/λ) over the ladder (markers), the fitted law "
                   "τ_k* + C_k x + D_k x² (order 2 on the finest three rungs) and the extrapolated limit τ_k* at x = 0 "
                   "with its error bar (relucheck limit, docs/limit.md); open markers: inconclusive"
                   + ("; crosses: Algorithm 1 (orthonormal data)." if exact else "."))
        return figstyle.save(fig, stem, caption=caption, data=data)
