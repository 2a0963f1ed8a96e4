"""`RELUCHECK_SCALE=regime relucheck report --paper A`: paper A's threshold and alignment from runs whose verdict width
and flow time do not decide (issue 23, items 1 and 3; `numerics.paper_a_regime`, `numerics.paper_a_verdicts`).

Prints per d the threshold bracket with the widths and flow times that decided its ends, and writes

* table ``paper_a_regime_threshold`` (per d: bracket, inconclusive points, evidence) and ``paper_a_regime_points``
  (per (d, n): verdict, its reason, per seed the widths, final L/L_OLS, flow times and statuses);
* figure ``paper_a_regime_ratio``: L/L_OLS at the end against n per d, one marker per run (width by shade, verdict
  by marker), with the bracket;
* figure ``paper_a_alignment``: A §5.1 Fig. 3's statistic, the share of neurons (and of output weight |a_j|‖w_j‖)
  at |cos(w_j, β̂_OLS)| ≥ 0.9, on the widest decided run of each seed, below and beyond the bracket, against the
  paper's 31 % / 91 % and against chance (the share a uniformly random direction reaches, `chance_aligned`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from relucheck.numerics.paper_a_verdicts import bracket, ladder, not_run, regime_sweep, run_verdict

from ..report import write_table
from . import style as figstyle

# what ran (docs/scale_runs.md): the base ladder per d up to ds_nmax, the extended budget up to extend (s29; d = 3
# since s33: its base bracket (8, 64] has 12–48 inconclusive, all on runs still moving), single points beyond the grid
# with widths m₀ and 4m₀ (s30; d = 4, n = 384 ran at m₀ = 512 only, so it is not listed)
REGIME = dict(ds_nmax={2: 96, 3: 192, 4: 256, 5: 192}, extend={3: 64, 4: 128, 5: 128}, points={5: (384,)},
              seeds=(0, 1, 2))


def chance_aligned(d: int, cut: float) -> float:
    """P(|cos(u, β)| ≥ cut) for u uniform on the sphere S^{d−1}: cos² ~ Beta(1/2, (d − 1)/2), so the probability is
    the regularized incomplete beta I_{1−cut²}((d − 1)/2, 1/2) (d = 3: 1 − cut; d = 2: (2/π) arccos(cut))."""
    from scipy.special import betainc

    return float(betainc((d - 1) / 2, 0.5, 1 - cut**2))


# a run's status and a seed's verdict as a reader reads them (the journal's words are "budget" and "not")
STATUS_WORDS = {"interpolating": "interpolating", "stationary": "stationary", "budget": "moving at the budget"}
SEED_WORDS = {"interpolates": "interpolates", "not": "does not interpolate", "undecided": "undecided"}


def _evidence(v) -> str:
    """Per seed: its verdict and, per width, m: L/L_OLS (status) at flow time t."""
    parts = []
    for s, sv in v["seeds"].items():
        runs = ", ".join(f"m = {e['m']}: {e['ratio']:.3g} ({STATUS_WORDS.get(e['status'], e['status'])}, "
                         f"t = {e['time']:.0f}"
                         + (f", confirmation cut short: stationary at t = {e['stationary_time']:.0f}"
                            if e.get("short") else "")
                         + (", extended budget)" if e.get("budget") == "extended" else ")") for e in sv["evidence"])
        if sv["reason"] == "not run yet":  # a ladder width the journal does not hold (e.g. d = 4, n = 384 in s30)
            runs += f"{', ' if runs else ''}m = {sv['want']}: not run"
        parts.append(f"seed {s}: {SEED_WORDS.get(sv['verdict'], sv['verdict'])} [{runs}]")
    return "; ".join(parts)  # no "|": the evidence sits in Markdown table cells


def _shortened(v) -> str:
    """How many of the runs that decided a point were confirmed over less than two doublings (the budget ended
    first: `numerics.paper_a_verdicts.short_confirmation`)."""
    cut = v["short_confirmations"] or "none"
    return (f"{cut} of its {v['deciding_runs']} deciding runs had a confirmation cut short by the budget; "
            if v["deciding_runs"] else "")


def _decided_runs(v, verdict: str) -> list:
    """The widest run of every seed decided as ``verdict``."""
    out = []
    for sv in v["seeds"].values():
        if sv["verdict"] == verdict:
            out.append(max(sv["evidence"], key=lambda e: e["m"])["m"])
    return out


def write_regime(out: Path, seed: int, alignment_cut: float, paper_aligned: dict, negligible: float,
                 cfg: dict = REGIME) -> list[Path]:
    seeds = tuple(seed + s for s in cfg["seeds"])
    rows, verdicts = regime_sweep(out / "sweeps" / f"paper_a_regime_seed{seed}.jsonl", cfg["ds_nmax"], seeds,
                                  extend=cfg.get("extend"), points=cfg.get("points"), **cfg.get("protocol", {}))
    ds = sorted(cfg["ds_nmax"])
    brackets = {d: bracket(verdicts, d) for d in ds}
    table = []
    print("Per d: the threshold bracket; per bracket end, the seeds that decided it (a strict majority) and the runs "
          "behind it: per seed and width m, L/L_OLS at the end of the run, its status and flow time t. The deciding "
          "runs of a point are the two widest runs of each seed decided as the point is.")
    for d in ds:
        b = brackets[d]
        top = max((n for dd, n in verdicts if dd == d), default=None)
        lo = f"n = {b['lo']}" if b["lo"] else "none on the grid"
        hi = f"n = {b['hi']}" if b["hi"] else f"none decided up to n = {top}"
        why = []
        for end, role, verdict in (("lo", "the largest interpolating", "interpolates"),
                                   ("hi", "the smallest not interpolating", "not")):
            if b[end]:
                v = verdicts[(d, b[end])]
                decided = sum(sv["verdict"] == verdict for sv in v["seeds"].values())
                why.append(f"n = {b[end]}, {role} ({decided} of {len(v['seeds'])} seeds; per seed and width, L/L_OLS "
                           f"at the end of the run): {_shortened(v)}{_evidence(v)}")
        skipped = not_run(verdicts, d, cfg["ds_nmax"][d], cfg.get("points", {}).get(d, ()))
        line = (f"d = {d}: threshold bracket (largest interpolating, smallest not interpolating) = ({lo}, {hi})"
                + ("; crossed: non-monotone in n" if b["crossed"] else "")
                + (f"; inconclusive at n = {', '.join(map(str, b['inconclusive_between']))}"
                   if b["inconclusive_between"] else "")
                + (f"; not run at n = {', '.join(map(str, skipped))}" if skipped else ""))
        print(line)
        for w in why:
            print("    " + w)
        table.append([d, str(b["lo"] or "none"), str(b["hi"] or "none"),
                      ", ".join(map(str, b["inconclusive_between"])) or "—", ", ".join(map(str, skipped)) or "—",
                      " / ".join(why) or "—"])
    caption = ("Paper A, optimization threshold as a bracket per d: the largest n of the grid that interpolates and "
               "the smallest that does not, each decided by a strict majority of seeds whose two widest runs (widths"
               " 4× apart, m(d + 1) ≥ 4n) agree and are interpolating (L ≤ 10⁻³ L_OLS) or stationary (L moved by at "
               "most 1 % over the last two doublings of the flow time, and neither its current rate nor a small "
               "neuron's escape moves it more over one more doubling; confirmed over two further doublings); runs "
               'still moving at their budget (10⁶ steps, flow time 2·10⁴; where the run says "extended budget", '
               "rerun with 4× both, the same rule) leave a seed undecided. Grid points (ratio ≈ 1.5) not run are "
               "listed as such: the bracket says nothing about them.")
    paths = write_table(["d", "largest interpolating n", "smallest non-interpolating n", "inconclusive n between",
                         "grid n not run", "evidence (widths, L/L_OLS, flow time)"], table,
                        out / "paper_a_regime_threshold",
                        caption=caption)
    points = [[d, n, SEED_WORDS.get(v["verdict"], v["verdict"]), v["reason"],
               f"{v['short_confirmations']} of {v['deciding_runs']}" if v["deciding_runs"] else "—", _evidence(v)]
              for (d, n), v in sorted(verdicts.items()) if d in cfg["ds_nmax"]]
    paths += write_table(["d", "n", "verdict", "seeds", "confirmation cut short (deciding runs)", "runs"], points,
                         out / "paper_a_regime_points",
                         caption="Paper A, every (d, n) of the regime runs: verdict and the runs behind it. A "
                                 "stationary run is confirmed by continuing it to 4 t_s (two more doublings of the "
                                 "flow time t_s at which the rule found it stationary); where its budget ended first, "
                                 "the confirmation was cut short (weaker evidence), counted among the runs that "
                                 "decided the point (the two widest of each seed decided as the point is).")
    return paths + _ratio_figure(out, rows, verdicts, brackets, ds) + _alignment(
        out, rows, verdicts, brackets, ds, alignment_cut, paper_aligned, negligible)


def _ratio_figure(out, rows, verdicts, brackets, ds) -> list[Path]:
    fig, axes = figstyle.subplots("full", aspect=0.62, ncols=len(ds), sharey=True, squeeze=False)
    marker = {"interpolates": "v", "not": "o", "undecided": "x"}
    data = {k: [] for k in ("d", "n", "m", "seed", "ratio", "run_verdict", "flow_time")}
    for ax, d in zip(axes[0], ds):
        rs = [r for r in rows if r["d"] == d]
        for r in rs:
            v = run_verdict(r)
            k = ladder(d, r["n"]).index(r["m"]) if r["m"] in ladder(d, r["n"]) else 0
            ax.plot(r["n"] * (1.06 ** (k - 0.5)), max(r["ratio"], 1e-12), marker[v], ms=3.5, mfc="none",
                    color=figstyle.OKABE_ITO[(1, 4, 6)[k % 3]])
            for key, val in zip(data, (d, r["n"], r["m"], r["seed"], r["ratio"], v, r["time"])):
                data[key].append(val)
        b = brackets[d]
        for end in ("lo", "hi"):
            if b[end]:
                ax.axvline(b[end], color="0.4", ls=":", lw=0.8)
        ax.axhline(1e-3, color="0.6", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ns = sorted({r["n"] for r in rs})
        figstyle.plain_log_ticks(ax, "x", ticks=ns[:: max(1, math.ceil(len(ns) / 4))])
        ax.set_title(f"$d = {d}$")  # above the panel: a label inside covered the runs closest to 0
        ax.set_xlabel("sample size $n$")
    axes[0][0].set_ylabel(r"$L / L_{\mathrm{OLS}}$")
    from matplotlib.lines import Line2D

    handles = ([Line2D([], [], ls="none", marker=marker[v], mfc="none", color="0.2", label=lab) for v, lab in
                (("interpolates", "interpolating"), ("not", "stationary"), ("undecided", "budget (moving)"))]
               + [Line2D([], [], ls="none", marker="s", color=figstyle.OKABE_ITO[c], label=lab) for c, lab in
                  ((1, "width $m_0$"), (4, "$4 m_0$"), (6, "$16 m_0$"))])
    fig.legend(handles=handles, loc="outside lower center", ncol=3, columnspacing=1.0, handletextpad=0.3)
    caption = ("Paper A, final train-loss ratio L/L_OLS of every regime run against n (one panel per d; shade: width "
               "m₀ = the smallest power of two with m₀(d + 1) ≥ 4n, 4m₀, 16m₀; marker: interpolating, stationary, or "
               "still moving at the budget); grey line: the interpolation cut 10⁻³; dotted: the bracket's ends.")
    return figstyle.save(fig, out / "paper_a_regime_ratio", caption=caption, data=data)


def _shares(r, cut, negligible) -> tuple[float, float]:
    cos, weight = np.asarray(r["abs_cos"]), np.asarray(r["weight"])
    counted = weight >= negligible * weight.max()
    return float(((cos >= cut) & counted).sum() / counted.sum()), float(weight[cos >= cut].sum() / weight.sum())


def alignment_rows(rows, verdicts, brackets, ds, cut, negligible) -> list[dict]:
    """Per (d, n) with a decided verdict below the bracket (interpolating) or beyond it (not): the shares at
    |cos| ≥ cut of the widest decided run of each decided seed, averaged over those seeds."""
    runs = {(r["d"], r["n"], r["seed"], r["m"]): r for r in rows}
    out = []
    for d in ds:
        b = brackets[d]
        for (dd, n), v in sorted(verdicts.items()):
            if dd != d or v["verdict"] == "inconclusive":
                continue
            side = "below" if v["verdict"] == "interpolates" else "beyond"
            picked = [runs[(d, n, s, max(sv["evidence"], key=lambda e: e["m"])["m"])]
                      for s, sv in v["seeds"].items() if sv["verdict"] == v["verdict"]]
            sh = np.array([_shares(r, cut, negligible) for r in picked])
            out.append(dict(d=d, n=n, side=side, neurons=float(sh[:, 0].mean()), weight=float(sh[:, 1].mean()),
                            runs=len(picked), m=[r["m"] for r in picked], bracket=(b["lo"], b["hi"])))
    return out


def _span(values) -> str:
    lo, hi = 100 * min(values), 100 * max(values)
    return f"{lo:.0f} %" if round(lo) == round(hi) else f"{lo:.0f}–{hi:.0f} %"


def _pattern_words(al, ds, cut, paper) -> str:
    """Per d, the measured shares below and beyond against chance, and whether the paper's pattern appears: a share of
    neurons ≥ paper["beyond"] beyond the threshold while the share below stays under it."""
    def rng(xs, key):
        return _span([x[key] for x in xs])

    words, reached = [], []
    for d in ds:
        below = [x for x in al if x["d"] == d and x["side"] == "below"]
        beyond = [x for x in al if x["d"] == d and x["side"] == "beyond"]
        part = [f"d = {d} (random direction {100 * chance_aligned(d, cut):.0f} %):"]
        if below:
            part.append(f"below at n = {', '.join(str(x['n']) for x in below)}, neurons {rng(below, 'neurons')}, "
                        f"weight {rng(below, 'weight')}")
        if beyond:
            part.append(f"beyond at n = {', '.join(str(x['n']) for x in beyond)}, neurons {rng(beyond, 'neurons')}, "
                        f"weight {rng(beyond, 'weight')}")
        words.append(" ".join(part[:1]) + " " + "; ".join(part[1:]))
        hit = [x["n"] for x in beyond if x["neurons"] >= paper["beyond"]]
        if hit:
            reached.append(f"d = {d}, n = {_and(hit)}")
    beyond_share = f"{100 * paper['beyond']:.0f} %"
    verdict = (f"The paper's {beyond_share} of aligned neurons beyond the threshold is reached only at "
               + "; ".join(reached) + ". " if reached
               else f"The paper's {beyond_share} of aligned neurons beyond the threshold is reached at no point. ")
    both, one_side = [], {"below": [], "beyond": []}
    for d in ds:
        below = [x["neurons"] for x in al if x["d"] == d and x["side"] == "below"]
        beyond_at = [(x["n"], x["neurons"]) for x in al if x["d"] == d and x["side"] == "beyond"]
        beyond = [share for _, share in beyond_at]
        if below and beyond:
            sep = min(beyond) > max(below) and min(beyond) >= paper["beyond"]
            not_above = [n for n, share in beyond_at if share <= max(below)]
            both.append(f"At d = {d}, where both sides were decided, the share of aligned neurons beyond "
                        f"({_span(beyond)}) " + ("is above" if min(beyond) > max(below) else "is not above")
                        + f" the share below ({_span(below)})"
                        + (f"; beyond, it is at most the share below at n = {_and(not_above)}" if not_above else "")
                        + (": the paper's pattern." if sep else ": not the paper's pattern."))
        elif below or beyond:
            one_side["below" if below else "beyond"].append(d)
    untested = []
    if one_side["below"]:
        untested.append(f"at d = {_and(one_side['below'])} no n beyond the threshold was decided, so the pattern "
                        f"is not tested there")
    if one_side["beyond"]:
        untested.append(f"at d = {_and(one_side['beyond'])} no n below the threshold was decided (no n "
                        f"interpolates), so the pattern is not tested there")
    return ("Measured: " + ". ".join(words) + ". " + verdict
            + (" ".join(both) if both else "No d has decided points on both sides of its bracket.")
            + (" " + _sentence("; ".join(untested)) if untested else ""))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _and(items) -> str:
    """1, 2 and 3."""
    items = [str(x) for x in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _alignment(out, rows, verdicts, brackets, ds, cut, paper, negligible) -> list[Path]:
    al = alignment_rows(rows, verdicts, brackets, ds, cut, negligible)
    fig, axes = figstyle.subplots("full", aspect=0.62, ncols=len(ds), sharey=True, squeeze=False)
    blue, orange = figstyle.OKABE_ITO[2], figstyle.OKABE_ITO[5]
    data = {k: [] for k in ("d", "n", "side", "neuron_share", "weight_share", "chance", "runs")}
    for ax, d in zip(axes[0], ds):
        a = [x for x in al if x["d"] == d]
        chance = chance_aligned(d, cut)
        ax.axhline(chance, color="0.4", ls="--", lw=0.8)
        ax.axhline(paper["beyond"], color="0.55", lw=3.0, alpha=0.5)
        ax.axhline(paper["below"], color="0.55", lw=3.0, alpha=0.25)
        for side, fill in (("below", "full"), ("beyond", "none")):
            pts = [x for x in a if x["side"] == side]
            ax.plot([x["n"] for x in pts], [x["neurons"] for x in pts], "o", color=blue,
                    mfc=blue if fill == "full" else "none", ms=4)
            ax.plot([x["n"] for x in pts], [x["weight"] for x in pts], "s", color=orange,
                    mfc=orange if fill == "full" else "none", ms=4)
        for x in a:
            for key, val in zip(data, (d, x["n"], x["side"], x["neurons"], x["weight"], chance, x["runs"])):
                data[key].append(val)
        ax.set_xscale("log")
        ns = sorted({x["n"] for x in a})
        if ns:
            figstyle.plain_log_ticks(ax, "x", ticks=ns[:: max(1, math.ceil(len(ns) / 4))])
        ax.set_ylim(-0.03, 1.08)
        ax.set_title(f"$d = {d}$")  # above the panel: inside, the label covered the paper's band and shares near 1
        ax.set_xlabel("sample size $n$")
    axes[0][0].set_ylabel("aligned share")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="none", marker="o", color=blue, label="neurons"),
               Line2D([], [], ls="none", marker="s", color=orange, label="weight"),
               Line2D([], [], ls="none", marker="o", mfc="none", color="0.3", label="open: not interpolating"),
               Line2D([], [], color="0.55", lw=3.0, alpha=0.5, label="paper: 31 % / 91 %"),
               Line2D([], [], color="0.4", ls="--", lw=0.8, label="random direction")]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, columnspacing=1.0, handletextpad=0.3)

    caption = (f"Paper A, Figure 3 statistic on runs whose verdict width and flow time do not decide: the share of "
               f"neurons (circles; neurons with |a_j|‖w_j‖ ≥ {negligible:g} × the largest of their run) and of the "
               f"output weight Σ|a_j|‖w_j‖ (squares) at |cos(w_j, β̂_OLS)| ≥ {cut:g} (the paper's cut was lost; "
               f"assumed), on the widest run of each decided seed, mean over seeds; filled: interpolating points, open: "
               f"not interpolating. Dashed: the share a uniformly random direction reaches at this d. Thick grey: the "
               f"paper's 31 % aligned below its threshold (its 69 % unaligned, read with the same cut) and 91 % "
               f"beyond; the paper's Figure 3 is at d = 5, its sample sizes lost. " + _pattern_words(al, ds, cut, paper))
    return figstyle.save(fig, out / "paper_a_alignment", caption=caption, data=data)
