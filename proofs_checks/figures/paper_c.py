"""Paper C's figures and tables: `relucheck report --paper C --out DIR`.

* Figure 1 (``fig1_loss_vs_tau.png/.pdf``): the training loss against accelerated time τ for decreasing λ
  (engine "float64" of `numerics.flows`, to Algorithm 1's τ_K + 0.5) on a Fig.-1-like instance (n = d = 64
  orthonormal, m = 6, y_i = |N(0,1)|, all a_j(0) = +λ; spec C §4), with Algorithm 1's predicted staircase
  L(θ̄^{(k)}) on [τ_k, τ_{k+1}).
* Figure 5: squared norm against n, learned and minimum, by the Algorithm-1 helper's
  `proofs_checks.figures.c_norm_vs_n.write_norm_figure(out_dir, seed)`.
* Table ``jump_time_errors.md/.tex``: τ̂_k − τ_k and (τ̂_k − τ_k)·ln(1/λ) against λ (1e-5 … 1e-1000) for the
  golden example, a separated random instance and the Fig.-1 instance.

Flow runs are written to ``DIR/paper_c_flows.jsonl`` as they finish (`numerics.sweep`), so an
interrupted report resumes.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from relucheck.numerics import datasets
from relucheck.numerics.instances import Instance
from relucheck.numerics.sweep import Sweep
from relucheck.theory.limit_process import limit_process_of

from ..checks.paper_c_instances import golden_instance, separated_instance
from ..checks.paper_c_runs import run_flow
from ..report import fmt_number, write_table
from . import style as figstyle

FIG1_LAMBDAS = ("1e-10", "1e-20", "1e-40", "1e-80", "1e-200", "1e-1000")
TABLE_LAMBDAS = ("1e-5", "1e-10", "1e-20", "1e-40", "1e-80", "1e-200", "1e-1000")


def fig1_instance(seed: int, n: int = 64, m: int = 6, *, max_tries: int = 200) -> Instance:
    """Spec C §4 Fig. 1: x_i = e_i in ℝ^64, y_i = |N(0,1)|, m = 6, all signs +1; drawn with
    default_rng([seed, 41, attempt]) until Algorithm 1 makes ≥ 3 tie-free jumps."""
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, 41, attempt])
        y = np.abs(rng.standard_normal(n))
        G = datasets.random_directions(m, n, rng)
        inst = Instance(np.eye(n), y, G, np.ones(m), {"figure": "C Fig. 1", "seed": [seed, 41, attempt]})
        lp = limit_process_of(inst)
        if len(lp.jumps) >= 3 and not lp.ties:
            return inst
    raise RuntimeError(f"no Fig. 1 instance with ≥ 3 tie-free jumps in {max_tries} draws")


def _instances(seed: int) -> dict[str, Instance]:
    return {"golden": golden_instance(), "random": separated_instance(seed), "fig1": fig1_instance(seed)}


def flow_point(point: dict) -> dict:
    """One sweep point: the flow of instance ``point["instance"]`` (drawn from ``point["seed"]``) at ``point["lam"]``
    (module-level, so that a process pool or Dask can run it)."""
    run = run_flow(_instances(point["seed"])[point["instance"]], point["lam"])
    taus, losses = run.trajectory.tau, run.trajectory.loss
    keep = np.unique(np.linspace(0, len(taus) - 1, 1500).astype(int))
    return {"jumps": [[jp.tau, jp.neuron] for jp in run.jumps], "log_inv_lambda": run.log_inv_lambda,
            "status": run.status.name.lower(), "taus": taus[keep].tolist(), "losses": losses[keep].tolist(),
            "nfev": run.stats["nfev"], "seconds": run.stats["wall_seconds"]}


def _flow_rows(out: Path, points: list[dict]) -> list[dict]:
    return Sweep(out / "paper_c_flows.jsonl", progress=False).run(points, flow_point)


def _figure1(out: Path, inst: Instance, rows: list[dict]) -> list[Path]:
    lp = limit_process_of(inst)
    rows = sorted(rows, key=lambda row: -_log10_inverse(row["point"]["lam"]))  # λ from large to small
    fig, ax = figstyle.subplots("column", aspect=1.15)
    t_end = max(row["result"]["taus"][-1] for row in rows)
    marks = [0.0] + [jp.tau for jp in lp.jumps] + [t_end]
    stairs_t = np.repeat(marks, 2)[1:-1]
    stairs_l = np.repeat(lp.plateaus, 2)
    # the prediction underneath as a wide light band, so that no flow curve hides under it
    ax.plot(stairs_t, stairs_l, "-", color="0.82", lw=4.0, solid_joinstyle="miter", zorder=1,
            label=r"Algorithm 1 ($\lambda \to 0$)")
    # λ as −log10 λ (a number pgfplots can filter on; 10⁻¹⁰⁰⁰ is beyond any float), the staircase at λ → 0: inf
    data = {k: [] for k in ("curve", "minus_log10_lambda", "accelerated_time_tau", "training_loss")}
    colors = figstyle.sequential(len(rows))
    for k, (row, color) in enumerate(zip(rows, colors, strict=True)):
        r, lam = row["result"], row["point"]["lam"]
        n_points = len(r["taus"])
        ax.plot(r["taus"], r["losses"], color=color, lw=0.9, ls=figstyle.LINESTYLES[k % len(figstyle.LINESTYLES)],
                marker=figstyle.MARKERS[k % len(figstyle.MARKERS)], ms=2.8,
                markevery=(k * n_points // (6 * len(rows)), max(1, n_points // 6)), zorder=2 + k,
                label=rf"$\lambda = 10^{{-{_log10_inverse(lam)}}}$")
        for t, loss in zip(r["taus"], r["losses"], strict=True):
            for key, v in zip(data, ("flow", _log10_inverse(lam), t, loss)):
                data[key].append(v)
    for t, loss in zip(stairs_t, stairs_l, strict=True):
        for key, v in zip(data, ("algorithm_1_staircase", math.inf, t, loss)):
            data[key].append(v)
    ax.set_xlim(max(0.0, lp.jumps[0].tau - 2.0) if lp.jumps else 0.0, t_end)  # nothing moves before τ_1 − O(1/ln(1/λ))
    ax.set_xlabel(r"accelerated time $\tau = t/\ln(1/\lambda)$")
    ax.set_ylabel("training loss $L$")
    fig.legend(loc="outside lower center", ncol=2, columnspacing=1.0, handlelength=2.6)
    lams = ", ".join(f"10{_superscript(-_log10_inverse(row['point']['lam']))}" for row in rows)
    caption = (f"Paper C, Figure 1 analogue: training loss L = (1/(2n)) Σ_i r_i² of the gradient flow (float64 "
               f"integration) against the accelerated time τ for λ = {lams} (dark to light), and Algorithm 1's "
               f"predicted staircase for λ → 0 (wide grey line); n = d = {inst.n} orthonormal inputs, m = {inst.m} "
               f"neurons, y_i = |N(0, 1)|, all a_j(0) = +λ. As λ decreases the curves approach the staircase.")
    return figstyle.save(fig, out / "fig1_loss_vs_tau", caption=caption, data=data)


def _log10_inverse(lam: str) -> int:
    """k for λ written "1e-k" (the λ of these runs are exact powers of ten, given as strings)."""
    mantissa, _, exponent = lam.partition("e-")
    if mantissa != "1" or not exponent.isdigit():
        raise ValueError(f"λ must be written 1e-k, got {lam!r}")
    return int(exponent)


def _superscript(k: int) -> str:
    return str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _error_table(out: Path, instances: dict, rows: list[dict]) -> list[Path]:
    # no ln(1/λ) column (λ is an exact power of ten): with it the table was 29 pt wider than an article's 345 pt text
    header = ["instance", "λ", "k", "neuron", "τ_k (Alg. 1)", "τ̂_k − τ_k", "(τ̂_k − τ_k)·ln(1/λ)"]
    body = []
    for row in rows:
        name, lam = row["point"]["instance"], row["point"]["lam"]
        lp = limit_process_of(instances[name])
        seen = {j: t for t, j in row["result"]["jumps"]}
        L = row["result"]["log_inv_lambda"]
        for k, jp in enumerate(lp.jumps, start=1):
            err = seen[jp.neuron] - jp.tau if jp.neuron in seen else float("nan")
            body.append([name, lam, k, jp.neuron, jp.tau, err, err * L])
    return write_table(header, body, out / "jump_time_errors",
                       caption="Paper C: jump times τ̂_k of the flow (the first τ at which the neuron's squared norm "
                               "reaches half its value at rest; float64 integration) against "
                               "Algorithm 1's τ_k; the error is predicted to decay like C_k/ln(1/λ), so the last "
                               "column should settle to a constant per jump.")


def write_report(out_dir, seed: int = 0, *, style: str = figstyle.DEFAULT_STYLE) -> list[Path]:
    """Paper C's figures and tables in the venue preset ``style`` (`figures.style.STYLES`)."""
    from .c_norm_vs_n import write_norm_figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    instances = _instances(seed)
    fig_points = [{"instance": "fig1", "lam": lam, "seed": seed} for lam in FIG1_LAMBDAS]
    table_points = [{"instance": name, "lam": lam, "seed": seed} for name in ("golden", "random")
                    for lam in TABLE_LAMBDAS]
    rows = _flow_rows(out, table_points + fig_points)
    fig_rows = [r for r in rows if r["point"]["instance"] == "fig1"]
    with figstyle.context(style):
        paths = _figure1(out, instances["fig1"], fig_rows)
        paths += list(write_norm_figure(out, seed))
    paths += _error_table(out, instances, rows)
    timing = ", ".join(f"{r['point']['instance']} λ={r['point']['lam']}: {fmt_number(r['result']['seconds'], 3)} s"
                       for r in rows)
    (out / "paper_c_flow_timing.md").write_text(f"Flow wall times (float64 integration): {timing}\n")
    return paths + [out / "paper_c_flow_timing.md", out / "paper_c_flows.jsonl"]
