"""Verdicts of paper A's threshold that width and flow time do not decide (issue 23, items 1–3).

Reads the runs of `numerics.paper_a_regime` (one per (d, n, seed, m)); pure bookkeeping, no training, so it can change
without invalidating the journal.

* A run is **interpolating** (L ≤ 10⁻³ L_OLS: GD with the step-size control decreases L, so this is final),
  **not interpolating** (stationary by the rule of `train_batch(horizon="elapsed")` at a ratio above 10⁻³) or
  **undecided** (the flow-time or step budget ran out while L still moved).
* Widths: the ladder m_k = base_width(d, n) · 4^k. base_width makes m (d + 1) ≥ 4 n: a ReLU network needs
  m (d + 1) ≥ n parameters to fit n noisy labels at all, so at 4× that count interpolation is not ruled out by
  parameter counting (issue 23: relucheck's d = 10 threshold of 512 sat within 2× of its 1,100-parameter ceiling).
* A seed of (d, n) is **decided** when its two widest runs (m_k and m_{k+1} = 4 m_k) are both decided and agree;
  when both are decided and disagree, the next width is requested (up to LADDER_DEPTH widths); a run on its budget
  leaves the seed undecided ("more time might change it").
* A point (d, n) **interpolates** / **does not** when a strict majority of its seeds is decided that way (the
  undecided ones cannot overturn it), else it is **inconclusive**, with the reason.
* The threshold per d is the bracket (largest interpolating n, smallest non-interpolating n) of the grid.
"""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from .paper_a_training import INTERPOLATION_RATIO

PARAMETER_MARGIN = 4  # m (d + 1) ≥ 4 n (module docstring)
WIDTH_STEP = 4  # the ladder's factor: two agreeing widths differ by 4×
LADDER_DEPTH = 3  # widths m_0, 4 m_0, 16 m_0 at most
MIN_WIDTH = 16


def base_width(d: int, n: int) -> int:
    """The smallest power of two ≥ max(MIN_WIDTH, 4 n / (d + 1)): m (d + 1) ≥ 4 n (module docstring)."""
    need = max(MIN_WIDTH, math.ceil(PARAMETER_MARGIN * n / (d + 1)))
    return 1 << (need - 1).bit_length()


def ladder(d: int, n: int, depth: int = LADDER_DEPTH) -> list[int]:
    return [base_width(d, n) * WIDTH_STEP**k for k in range(depth)]


def run_verdict(row: dict) -> str:
    """"interpolates", "not" or "undecided" for one run (module docstring)."""
    if row["ratio"] <= INTERPOLATION_RATIO:
        return "interpolates"
    return "not" if row["status"] == "stationary" else "undecided"


def short_confirmation(row: dict) -> bool:
    """A stationary run whose confirmation was cut short: the rule continues a run found stationary at t_s to
    (1 + CONFIRM) t_s (two more doublings, `numerics.paper_a_regime.CONFIRM`), unless its flow-time or step budget ends
    first; then the run ends "stationary" at a time t < (1 + CONFIRM) t_s, confirmed over less than two doublings
    (weaker evidence: docs/paper_a.md, "Found on the way"). Read from the run's own times, so it sees either budget."""
    from .paper_a_regime import CONFIRM

    t_s = row.get("stationary_time", math.nan)  # every journal row has it (a hand-made row may not: not flagged)
    return row["status"] == "stationary" and row["time"] < (1 + CONFIRM) * t_s * (1 - 1e-12)


def _index(rows):
    runs = defaultdict(dict)
    for r in rows:
        runs[(r["d"], r["n"], r["seed"])][r["m"]] = r
    return runs


def seed_verdict(d: int, n: int, by_m: dict, depth: int = LADDER_DEPTH) -> dict:
    """Verdict of one (d, n, seed) from its runs by width: verdict, reason, evidence (width, status, ratio, flow time
    of each run) and ``want``: the next width to run, or None."""
    widths = [m for m in ladder(d, n, depth) if m in by_m]
    evidence = [dict(m=m, verdict=run_verdict(by_m[m]), ratio=by_m[m]["ratio"], time=by_m[m]["time"],
                     status=by_m[m]["status"], budget=by_m[m].get("budget", "base"),
                     short=short_confirmation(by_m[m]), stationary_time=by_m[m].get("stationary_time")) for m in widths]
    full = ladder(d, n, depth)
    missing = [m for m in full[:2] if m not in by_m]
    if missing:
        return dict(verdict="undecided", reason="not run yet", evidence=evidence, want=missing[0])
    top = [e for e in evidence if e["m"] in full][-2:]
    v = {e["verdict"] for e in top}
    if "undecided" in v:
        moving = [e for e in top if e["verdict"] == "undecided"]
        return dict(verdict="undecided", evidence=evidence, want=None,
                    reason="still moving at the flow-time or step budget: " + ", ".join(
                        f"m = {e['m']}: L/L_OLS = {e['ratio']:.3g} at t = {e['time']:.0f}" for e in moving))
    if len(v) == 1:
        return dict(verdict=v.pop(), evidence=evidence, want=None,
                    reason=f"widths {top[0]['m']} and {top[1]['m']} agree")
    nxt = full[full.index(top[1]["m"]) + 1] if top[1]["m"] != full[-1] else None
    return dict(verdict="undecided", evidence=evidence, want=nxt,
                reason=f"widths {top[0]['m']} ({top[0]['verdict']}) and {top[1]['m']} ({top[1]['verdict']}) disagree"
                       + ("" if nxt else "; the widest allowed run does not settle it"))


def point_verdicts(rows, seeds, depth: int = LADDER_DEPTH) -> dict:
    """{(d, n): dict(verdict, reason, seeds={seed: seed_verdict})} over every (d, n) with a run."""
    runs = _index(rows)
    out = {}
    for d, n in sorted({(d, n) for d, n, _ in runs}):
        per = {s: seed_verdict(d, n, runs.get((d, n, s), {}), depth) for s in seeds}
        counts = {k: sum(p["verdict"] == k for p in per.values()) for k in ("interpolates", "not", "undecided")}
        half = len(seeds) / 2
        if counts["interpolates"] > half:
            verdict = "interpolates"
        elif counts["not"] > half:
            verdict = "not"
        else:
            verdict = "inconclusive"
        reason = (f"{counts['interpolates']} of {len(seeds)} seeds interpolate, {counts['not']} do not, "
                  f"{counts['undecided']} undecided")
        # the runs that decided the point: the two widest of every seed decided as the point is
        deciding = [e for p in per.values() if p["verdict"] == verdict for e in p["evidence"][-2:]]
        short = sum(e["short"] for e in deciding)
        if short:
            reason += (f"; {short} of its {len(deciding)} deciding runs stationary with a confirmation cut short by "
                       f"the budget")
        out[(d, n)] = dict(verdict=verdict, reason=reason, seeds=per, deciding_runs=len(deciding),
                           short_confirmations=short)
    return out


def requests(d: int, ns, seeds, rows, depth: int = LADDER_DEPTH) -> list[tuple]:
    """The (d, n, seed, m) runs still wanted: the first two widths of every ladder, and the next width of a seed whose
    two widest runs are decided and disagree."""
    runs = _index(rows)
    want = []
    for n in ns:
        for s in seeds:
            by_m = runs.get((d, n, s), {})
            for m in ladder(d, n, depth)[:2]:
                if m not in by_m:
                    want.append((d, n, s, m))
            if all(m in by_m for m in ladder(d, n, depth)[:2]):
                nxt = seed_verdict(d, n, by_m, depth)["want"]
                if nxt is not None:
                    want.append((d, n, s, nxt))
    return want


def bracket(verdicts: dict, d: int) -> dict:
    """The threshold at d as a bracket: lo = largest n that interpolates, hi = smallest n that does not (either None);
    ``crossed`` when lo > hi (a non-monotone band: the grid has interpolating points beyond non-interpolating ones),
    and the inconclusive n in between (or anywhere, when crossed)."""
    pts = {n: v for (dd, n), v in verdicts.items() if dd == d}
    interp = [n for n, v in pts.items() if v["verdict"] == "interpolates"]
    not_ = [n for n, v in pts.items() if v["verdict"] == "not"]
    lo, hi = (max(interp) if interp else None), (min(not_) if not_ else None)
    crossed = lo is not None and hi is not None and lo > hi
    low, high = (min(lo, hi), max(lo, hi)) if crossed else (lo or 0, hi or math.inf)
    between = sorted(n for n, v in pts.items() if v["verdict"] == "inconclusive" and low < n < high)
    return dict(d=d, lo=lo, hi=hi, crossed=crossed, inconclusive_between=between)


def width_dependence(rows, d: int, n: int, *, exponent: float = 0.0) -> dict:
    """Issue 23 item 2 at (d, n): per data seed, ln(L/L_OLS) against ln m over the widths run with several
    initializations (rows with an ``init`` key), against the claim ρ(m) ∝ m^(−exponent) (0: A's "whatever the
    width"). Returns the largest deviation from the claim over widths and seeds (each width's mean ln ρ over
    initializations, the claim anchored at the smallest width) and the tolerance: the largest range of ln ρ between
    initializations at one width and seed (a new initialization at the same width moves the ratio that much) plus
    2 · rel_tol (each run is stationary to rel_tol)."""
    sel = [r for r in rows if r["d"] == d and r["n"] == n]
    by = defaultdict(lambda: defaultdict(list))
    for r in sel:
        by[r["seed"]][r["m"]].append(r)
    dev, noise, table, undecided = 0.0, 0.0, [], []
    for seed, per_m in sorted(by.items()):
        ms = sorted(per_m)
        for m in ms:
            undecided += [(seed, m, r["ratio"], r["time"]) for r in per_m[m] if run_verdict(r) == "undecided"]
        logs = {m: np.log([r["ratio"] for r in per_m[m]]) for m in ms}
        mean = {m: float(np.mean(v)) for m, v in logs.items()}
        noise = max(noise, *(float(np.ptp(v)) for v in logs.values()))
        for m in ms:
            claim = mean[ms[0]] - exponent * math.log(m / ms[0])
            dev = max(dev, abs(mean[m] - claim))
            table.append(dict(seed=seed, m=m, ratios=[float(np.exp(x)) for x in logs[m]], claimed_log=claim,
                              measured_log=mean[m]))
    widths = sorted({r["m"] for r in sel})
    return dict(deviation=dev, init_noise=noise, widths=widths, table=table, undecided=undecided,
                claimed=[t["claimed_log"] for t in table], measured=[t["measured_log"] for t in table],
                interpolating=[(r["seed"], r["m"], r["ratio"]) for r in sel if run_verdict(r) == "interpolates"],
                span=(max(widths) / min(widths)) if widths else 0.0)


REGIME_GRID = [3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024]  # ratio ≈ 1.5


def regime_grid(d: int, n_max: int) -> list[int]:
    """n of the geometric grid (ratio ≈ 1.5) from d + 1 to n_max. Below d + 1 the ratio L/L_OLS is undefined (OLS fits
    n ≤ d generic data exactly, L_OLS = 0); the grid started at 2d until session 33, which left d = 2 without a lower
    end (no n ≥ 4 interpolates)."""
    return [n for n in REGIME_GRID if d < n <= n_max]


# The extended budget (s29): a run still moving at REGIME_PROTOCOL's budget (10⁶ steps, t = 2·10⁴) is rerun, alone,
# with 4× the steps and the flow time (two more doublings). Only the budget changes: the stationarity rule
# (horizon "elapsed": over the run's own age, not over its budget) and the interpolation cut are the same, so a run
# decided with the extended budget means what a run decided with the base budget means (its confirmation can only be
# longer: it ends at min(4 t_s, max_time)). `check_extension` refuses any other change.
EXTENDED_BUDGET = dict(max_steps=4_000_000, max_time=80_000.0)


def check_extension(base: dict, extended: dict) -> None:
    """An extended budget may raise max_steps and max_time and change nothing else (a decided run must mean the
    same); else RelucheckInputError."""
    from .errors import RelucheckInputError

    other = sorted(set(extended) - {"max_steps", "max_time"})
    lower = [k for k in ("max_steps", "max_time") if k in extended and k in base and extended[k] < base[k]]
    if other or lower:
        raise RelucheckInputError(f"an extended budget may only raise max_steps and max_time; got changes of "
                                  f"{other + lower}")


def merge_budgets(base_rows, extended_rows) -> list[dict]:
    """One row per (d, n, seed, m, init): the extended-budget run where there is one (it continues the same run
    further), else the base one; each marked with ``budget`` = "base" / "extended"."""
    out = {}
    for tier, rows in (("base", base_rows), ("extended", extended_rows)):
        for r in rows:
            out[(r["d"], r["n"], r["seed"], r["m"], r.get("init", 0))] = {**r, "budget": tier}
    return list(out.values())


def extension_requests(d: int, ns, seeds, rows, depth: int = LADDER_DEPTH) -> list[tuple]:
    """The (d, n, seed, m) runs to rerun with the extended budget: among the two widest runs of a seed left undecided
    because a run was still moving, those that ran with the base budget only."""
    runs = _index(rows)
    want = []
    for n in ns:
        for s in seeds:
            by_m = runs.get((d, n, s), {})
            top = [m for m in ladder(d, n, depth) if m in by_m][-2:]
            want += [(d, n, s, m) for m in top
                     if run_verdict(by_m[m]) == "undecided" and by_m[m].get("budget", "base") == "base"]
    return want


def regime_sweep(path, ds_nmax: dict, seeds, *, progress: bool = True, depth: int = LADDER_DEPTH, extend=None,
                 extended_budget: dict = EXTENDED_BUDGET, points=None, **protocol):
    """Run the width ladder (`requests`) at every d (keys of ``ds_nmax``, n up to its value) until no run is wanted,
    then, for n ≤ extend[d] (``extend``: {d: n_max}, none by default), rerun the runs still moving with the extended
    budget (`extension_requests`), and the ladder again on the merged runs (`merge_budgets`); resumable
    (`numerics.paper_a_regime.RegimeJournal`: the two budgets are two protocols of one journal). ``points``
    ({d: [n, …]}, s30): single grid points beyond ds_nmax[d] (the grid between is not run), with the first two
    widths only (no third width where they disagree: such a seed stays undecided; base budget only). Returns (rows,
    point verdicts)."""
    from .paper_a_regime import REGIME_PROTOCOL, RegimeJournal

    check_extension({**REGIME_PROTOCOL, **protocol}, extended_budget)
    journal = RegimeJournal(path, progress=progress, **protocol)
    longer = RegimeJournal(path, progress=progress, **{**protocol, **extended_budget})
    rows = merge_budgets(journal.rows(), longer.rows())
    for d, n_max in ds_nmax.items():
        while True:
            want = requests(d, regime_grid(d, n_max), seeds, rows, depth)
            if want:
                journal.ensure(want)
            else:
                want = extension_requests(d, regime_grid(d, min(n_max, (extend or {}).get(d, 0))), seeds, rows,
                                          depth)
                if not want:
                    break
                longer.ensure(want, max_pairs=len(seeds))  # one n at a time: these runs are the long ones
            rows = merge_budgets(journal.rows(), longer.rows())
    for d, ns in (points or {}).items():
        while want := requests(d, sorted(ns), seeds, rows, min(depth, POINT_DEPTH)):
            journal.ensure(want)
            rows = merge_budgets(journal.rows(), longer.rows())
    return rows, point_verdicts(rows, seeds, depth)


POINT_DEPTH = 2  # a single point beyond the grid runs widths m₀ and 4m₀ only (16m₀ at n = 384 is 4096 at d = 5)


def not_run(verdicts: dict, d: int, n_max: int, extra=()) -> list[int]:
    """The n of the regime grid (`regime_grid(d, max(n_max, *extra))`) with no run at d: the points between single
    points and the swept grid that the report must call "not run", not inconclusive."""
    top = max([n_max, *extra])
    return [n for n in regime_grid(d, top) if (d, n) not in verdicts]
