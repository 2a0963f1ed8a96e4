"""Reruns of one rung of `numerics.lambda_limit`'s ladder at other tolerances, when its engine bounds are too large.

Why: the float64 engine vouches for each answer by a rerun at 100× tighter rtol (`numerics.flows.vouch`); a jump
time also inherits the largest event-time bound before it. On orthonormal n ≥ 7, m ≥ 5 instances (a new user's,
seeds 7771–7780, issue 24) that inherited bound was 0.35–0.56 at the default rtol 1e-10 on some rungs while the
extrapolation's spread was 1e-12, and the same rung at rtol 1e-8 (vouched by 1e-10) stated bounds under 1e-4: which
event a tolerance check cannot confirm depends on the tolerance. So a rung whose bound on some jump time or plateau
loss is above ``threshold`` (`limit_of` passes target/`ENGINE_SHARE`) is rerun at the tolerances `RERUN_RTOLS`, one
after the other, until every quantity's smallest stated bound is under the threshold; each rerun is vouched for by its
own check at 100× tighter. Per quantity the run with the smallest stated bound is kept, provided that all the runs
agree within their stated bounds (|v_a − v_b| ≤ e_a + e_b for every pair). Two runs of the same flow that disagree
beyond their bounds are evidence that a bound is wrong: the quantity is then inconclusive on that rung, and the
reason names both runs — the smaller bound is never picked silently. A rerun that does not succeed (e.g. its own
check does not vouch for it) is left out and listed; one that succeeds with other jumps (neuron, fitted data) makes
every quantity of the rung inconclusive (two vouched runs of one flow on different branches).
"""
from __future__ import annotations

import copy
import dataclasses
import time

import numpy as np

# Tried in this order, skipping the rung's own rtol: 1e-8 first (it gave bounds under 1e-4 on the new user's
# n ≥ 7, m ≥ 5 instances, where 1e-12 did not help), then 1e-6 (cheap), then 1e-12 (the tightest float64 vouches for).
RERUN_RTOLS = (1e-8, 1e-6, 1e-12)
# A rung's bound e enters the bar through the estimate's weights, Σ_i |w_i| e_i with Σ_i |w_i| ≤ 2.43 on ratio-3
# ladders (order 2 on 300, 1000, 3000; 2.29 on 1000, 3000, 10⁴): bounds under target/4 keep that part ≤ 0.61·target,
# leaving the rest of the target to the extrapolation's spread.
ENGINE_SHARE = 4.0


def _keys(run):
    """(kind, key) → (value, bound) for each jump time (key: neuron, fitted data) and plateau loss (key: index)."""
    jerr, perr = run.errors.get("jumps"), run.errors.get("plateaus")
    out = {}
    for i, j in enumerate(run.jumps):
        out[("jump", (j.neuron, tuple(j.fitted)))] = (j.tau, None if jerr is None or i >= len(jerr) else float(jerr[i]))
    for i, p in enumerate(run.plateaus):
        out[("plateau", i)] = (float(p), None if perr is None or i >= len(perr) else float(perr[i]))
    return out


def too_large(run, threshold) -> list:
    """The quantities (kind, key) whose stated bound is above ``threshold``. Not counted: a missing bound, and a
    plateau's interpolation part (the loss's change over the step around its midpoint, `numerics.flows.vouch`): no
    tolerance removes it (measured on a new user's tied instance, seed 7779: 0.049 at rtol 1e-10 and 0.040 at 1e-12
    for the plateau between two simultaneous jumps), so a rerun for it would be paid for nothing."""
    spread = run.stats.get("plateau_interpolation") if hasattr(run, "stats") else None
    out, zero = [], _between_simultaneous(run)
    for key, (_, e) in _keys(run).items():
        if e is None or key in zero:
            continue
        if key[0] == "plateau" and spread is not None:
            e -= float(spread[key[1]] if np.ndim(spread) else spread)
        if e > threshold:
            out.append(key)
    return out


def _between_simultaneous(run) -> set:
    """Plateaus between two jumps that the run itself cannot tell apart (times within their bounds plus
    `lambda_limit.SIMULTANEOUS_RTOL`): of no length, so their loss is no quantity of the limit (the extrapolation
    reports such a plateau inconclusive, "not separated by their error bars"), and no tolerance narrows their bound
    (measured on a new user's general instance g7, n = 4, m = 2, seed 8807: two neurons jump together, and the plateau
    between them asked for three reruns at each of two rungs, 48 s of wall time on a loaded machine). Plateau i lies between jumps i − 1 and i (`numerics.flows.result`)."""
    from .lambda_limit import SIMULTANEOUS_RTOL

    errs = run.errors.get("jumps") or []
    out = set()
    for i in range(1, len(run.jumps)):
        a, b = run.jumps[i - 1], run.jumps[i]
        if i < len(errs) and errs[i] is not None and errs[i - 1] is not None and \
                abs(b.tau - a.tau) <= errs[i] + errs[i - 1] + SIMULTANEOUS_RTOL * max(1.0, abs(b.tau)):
            out.add(("plateau", i))
    return out


def _label(key) -> str:
    kind, k = key
    return f"jump of neuron {k[0]} (fitted {list(k[1])})" if kind == "jump" else f"plateau {k}"


def rerun(run, problem, solve, base_rtol, threshold, options, deadline=None):
    """(the rung's merged run, its JSON note). ``solve(problem, rtol=…, **options)`` runs engine float64 at one
    tolerance; ``deadline`` (perf_counter seconds) stops the reruns when passed. The merged run is a copy of ``run``
    with, per quantity, the value and bound of the run whose bound is smallest, and ``disagreements`` {(kind, key):
    reason} for the quantities on which the runs disagree beyond their bounds (module docstring)."""
    runs = [(base_rtol, run)]
    first = _keys(run)
    note = {"rtol": base_rtol, "reason": f"engine bound above {threshold:.3g} on: "
                                         + "; ".join(f"{_label(k)} ({first[k][1]:.2g})" for k in too_large(run, threshold)),
            "reruns": []}
    merged, disagreements = run, {}
    for rtol in RERUN_RTOLS:
        if rtol == base_rtol:
            continue
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            note["reruns"].append({"rtol": rtol, "status": "not run: the budget is spent"})
            break
        opts = dict(options, rtol=rtol)
        if left is not None:
            opts["budget"] = left
        t0, c0 = time.perf_counter(), time.process_time()
        other = solve(problem, **opts)
        entry = {"rtol": rtol, "status": other.status.name.lower(), "wall_seconds": time.perf_counter() - t0,
                 "cpu_seconds": time.process_time() - c0}
        note["reruns"].append(entry)
        if not other.success:
            entry["used"] = False
            entry["why_not"] = f"not a success: {other.message}"
            continue
        if set(_keys(other)) != set(_keys(run)):
            entry["used"] = False
            why = (f"runs of this flow at rtol {base_rtol:g} and {rtol:g}, each vouched for by its check at 100× tighter, "
                   f"have different jumps: {sorted(k for kind, k in _keys(run) if kind == 'jump')} against "
                   f"{sorted(k for kind, k in _keys(other) if kind == 'jump')}; one of them took another branch")
            disagreements = {k: why for k in _keys(run)}
            runs.append((rtol, other))
            break
        entry["used"] = True
        runs.append((rtol, other))
        merged, disagreements = _merge(run, runs)
        if disagreements or not too_large(merged, threshold):
            break
    if merged is run:
        merged = copy.copy(run)
        merged.rtol_of = {k: base_rtol for k in _keys(run)}
    note["rtol_used"] = {"jumps": [{"neuron": j.neuron, "rtol": merged.rtol_of[("jump", (j.neuron, tuple(j.fitted)))]}
                                   for j in merged.jumps],
                         "plateaus": [merged.rtol_of[("plateau", i)] for i in range(len(merged.plateaus))]}
    merged.disagreements, merged.rerun_note = disagreements, note
    note["disagreements"] = [f"{_label(k)}: {why}" for k, why in disagreements.items()]
    note["still_above"] = [_label(k) for k in too_large(merged, threshold)]
    return merged, note


def _merge(run, runs):
    """Per quantity, the run (rtol, result) with the smallest bound, after every pair agreed within its bounds."""
    tables = [(rtol, _keys(r)) for rtol, r in runs]
    chosen, disagreements = {}, {}
    for key in tables[0][1]:
        have = [(rtol, *t[key]) for rtol, t in tables if t[key][1] is not None]
        for a in range(len(have)):
            for b in range(a + 1, len(have)):
                (ra, va, ea), (rb, vb, eb) = have[a], have[b]
                if abs(va - vb) > ea + eb and key not in disagreements:
                    disagreements[key] = (f"the runs at rtol {ra:g} and {rb:g} disagree beyond their stated bounds "
                                          f"({va:.12g} ± {ea:.2g} against {vb:.12g} ± {eb:.2g}): a bound is wrong, "
                                          "so neither is used")
        base = tables[0][1][key]
        chosen[key] = min(have, key=lambda h: h[2]) if have else (runs[0][0], *base)
    merged = copy.copy(run)
    merged.jumps = sorted((dataclasses.replace(j, tau=chosen[("jump", (j.neuron, tuple(j.fitted)))][1])
                           for j in run.jumps), key=lambda j: j.tau)
    merged.plateaus = [chosen[("plateau", i)][1] for i in range(len(run.plateaus))]
    merged.errors = dict(run.errors)
    merged.errors["jumps"] = [chosen[("jump", (j.neuron, tuple(j.fitted)))][2] for j in merged.jumps]
    merged.errors["plateaus"] = [chosen[("plateau", i)][2] for i in range(len(run.plateaus))]
    merged.rtol_of = {k: c[0] for k, c in chosen.items()}
    spreads = {rtol: getattr(r, "stats", {}).get("plateau_interpolation") for rtol, r in runs}
    if hasattr(run, "stats") and all(np.ndim(v) == 1 for v in spreads.values()):  # each plateau's own run's part
        merged.stats = dict(run.stats, plateau_interpolation=[float(spreads[merged.rtol_of[("plateau", i)]][i])
                                                              for i in range(len(run.plateaus))])
    return merged, disagreements
