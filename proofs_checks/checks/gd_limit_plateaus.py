"""The flow is the limit of gradient descent at λ = 1e-1000, plateau by plateau (C Definition 1; issue 20).

`gd_limit` compares GD with the flow at λ = 1e-10 and 1e-40; this check does it at λ = 1e-1000 (full suite), where raw
float64 cannot hold the initialization (λ² underflows) and the "gd" engine runs in log-scale form θ_j = e^{ρ_j} φ_j:
the same GD iterates. There GD needs ln(1/λ) = 2303 steps of η per unit of τ, so it runs at η = 0.2 and 0.05, where its
error at a jump is not yet in the first-order regime: GD escapes a saddle at the rate ln(1 + ηγ)/η ≈ γ(1 − ηγ/2)
instead of γ, so a jump of GD(η) lags by a τ-shift of relative size ≈ ηγ/2, a few per cent at η = 0.2. The check
therefore compares *plateaus*, on the samples where the three runs sit on the same plateau, away from every discrete
transition: in the middle half of the part of a plateau of the flow's loss that all three runs share (between the
drops of the loss, each run's drop read where its loss crosses the drop's midpoint: `shared_windows`), in the middle
half of the interval between consecutive jumps of each run (the jump rule's times, `plateau_windows`), with the same
neurons jumped by then in all three (`same_jumps`). A short plateau that GD(η)'s lagging jump eats into is read
where it has jumped too (seed 4, draw 1 compared a plateau on which both GD runs had not yet jumped and was refuted for
it), and a drop of the loss that is no jump of the rule bounds a plateau too (seed 12, draw 6: a neuron growing in two
stages drops the loss at τ ≈ 5.5 and jumps at 7.5; GD's lag at that drop was read as its error, ratio 0.99).
There GD's error is its chattering across the kinks the flow slides on and its lag along a slowly drifting plateau,
both first order in η: with A(η) the mean |GD(η) − flow| over a plateau, A(η/4) ≈ A(η)/4, and the check verifies
A(η/4) ≤ 0.6 A(η) on every plateau (measured up to 0.556 over the 66 plateaus of seeds 0–20 where GD(η/4) differs from
the flow beyond its error), or A(η/4) within the flow's own stated error there (``FlowResult.errors["trajectory"]``,
`numerics.flows.vouch`), where GD and the flow agree to what the flow can tell. The flow is engine "auto", as
`relucheck flow` runs it (on seed 0, draw 3 float64 ends in CHATTER and auto reruns it in mpmath).

GD's branch: as at λ = 1e-40, GD(η) and GD(η/4) must jump with the flow's neurons, descending one quartering at
most (the next pair costs 4× the finer run, ≈ 4·10⁶ steps per draw); a draw on which GD flips the sign of a neuron
the flow keeps balanced (C Prop. 1) and jumps it, or misses a jump of the flow after flipping it, at a step no
reachable quartering undoes, is left out with that reason (`gd_limit._unreachable`; seed 2, draw 1: GD flips a_0,
a_1, a_2 by τ ≈ 2.5–3.0 at η = 0.2 and 0.05 and jumps neuron 2, resp. 1, while the flow keeps every sign and jumps
neurons 3 and 4 at τ = 2.856) and replaced by a fresh draw of its shape (``gd_limit.REPLACEMENTS``); so is a draw
on which a run does not succeed (no evidence either way: on seed 0, draw 4, the mutant's flow stops in mpmath at a
Filippov decision below its working precision). With fewer than
three plateaus where GD differs from the flow beyond its error, or fewer than two plateaus per judged draw, the check
is inconclusive.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from relucheck.numerics.flows import FlowProblem, Init, solve
from relucheck.testing.strategies import random_general_instance

from ..registry import Context, check
from ..result import Outcome, Status
from .gd_limit import DRAWS, FIRST_ORDER_RATIO, REPLACEMENTS, _jumped, _unreachable

# Draw 0 of DRAWS chatters in float64 at this λ (seed 0): engine auto reruns it in mpmath, 200 s twice with the
# mutant's flow; it is left out for time. Draws 1–4 (n ≤ 12, m ≤ 6) settle by τ ≈ 52: GD takes 5·10⁶ steps in all
# (the check and its mutant: 430 s CPU, 1.3 GB, measured on the 2-core machine; draw 3 in mpmath included).
TINY_LAMBDA, TINY_STEP, TINY_DRAWS, SPACING = "1e-1000", 0.2, DRAWS[1:], 0.05
TINY_LADDER_DEPTH = 2  # GD at η, η/4, η/16 at most (module docstring)
DROP = 1e-4  # per sample (SPACING in τ), relative to L(0): a fall beyond it is a drop (`drops`); a drifting plateau
# moves ~1e-5 of that (seed 18, draw 4: 6e-8 per sample at loss 0.126), a jump at this λ falls within one or two samples
KINK = 1e-2  # |⟨w_j, x_i⟩| ≤ KINK·‖w_j‖‖x_i‖ counts as on the kink when comparing end patterns (`final_pattern`)
PLATEAU_REASON = ("GD's error on a plateau (chattering across a slid-on kink, lag along a drifting plateau) is first order "
                  "in η: A(η/4) ≈ A(η)/4 for A the mean |GD − flow| over the samples where all three runs sit in the "
                  "middle half of the same plateau; 0.6 leaves room for higher-order terms (measured up to 0.556 on seeds 0–20); "
                  "A(η/4) within the flow's stated error is agreement")


@dataclass
class Curve:
    """What the plateau comparison keeps of a run (not its per-step track: GD takes 10⁵–10⁶ steps here): the loss at
    the grid, the jumps, the signs of the output weights at the grid and at the end (by the sign bit: a tiny a_j
    underflows to ±0 and keeps its sign), the stated loss error per sample (None where the run states none)."""

    loss: np.ndarray
    success: bool
    message: str
    engine: str
    steps: int
    codimension: int
    jumps: list
    trajectory: SimpleNamespace  # tau, a (±1 per sample and neuron, or None)
    a: np.ndarray  # ±1 per neuron at the end
    end: float  # the run's last time
    pattern: np.ndarray  # (m, n) signs of ⟨w_j, x_i⟩ at the end, 0 within KINK of a kink or for a neuron that did not jump
    loss_error: np.ndarray | None = field(default=None)

    @property
    def jumped(self) -> list[int]:
        return _jumped(self)


def _signs(a) -> np.ndarray:
    return np.where(np.signbit(np.asarray(a, dtype=float)), -1.0, 1.0)


def final_pattern(result, inputs) -> np.ndarray:
    """(m, n): the sign of ⟨w_j, x_i⟩ at the end of the run, for the neurons that jumped, where |⟨w_j, x_i⟩| exceeds
    KINK·‖w_j‖‖x_i‖ (GD chatters across a kink the flow slides on, at the scale of its step); 0 elsewhere."""
    W = np.asarray(result.W, dtype=float)
    z = W @ np.asarray(inputs, dtype=float).T
    scale = np.linalg.norm(W, axis=1)[:, None] * np.linalg.norm(inputs, axis=1)[None, :]
    out = np.where(np.abs(z) > KINK * scale, np.sign(z), 0.0)
    out[[j for j in range(len(W)) if j not in _jumped(result)]] = 0.0
    return out


def same_branch(one: Curve, other: Curve) -> bool:
    """Whether two runs made the same discrete choices: the same neurons jumped, the same end activation pattern."""
    return one.jumped == other.jumped and same_pattern(one, other)


def _difference(one: Curve, other: Curve) -> str:
    """How two runs' discrete choices differ, for a reader."""
    if one.jumped != other.jumped:
        def listed(neurons) -> str:
            return ", ".join(str(j) for j in neurons) if len(neurons) else "none"

        return f"they jump neurons {listed(one.jumped)} and {listed(other.jumped)}"
    j, i = np.argwhere((one.pattern != 0) & (other.pattern != 0) & (one.pattern != other.pattern))[0]
    side = {1.0: "active", -1.0: "inactive"}
    return (f"they jump the same neurons, but neuron {j} ends {side[one.pattern[j, i]]} on datum {i} at the first step "
            f"and {side[other.pattern[j, i]]} at the second")


def same_pattern(one: Curve, other: Curve) -> bool:
    """Whether two runs end with the same activation pattern wherever both are clear of a kink."""
    both = (one.pattern != 0) & (other.pattern != 0)
    return bool((one.pattern[both] == other.pattern[both]).all())


def curve(result, inputs) -> Curve:
    """The `Curve` of a `FlowResult` on data ``inputs``."""
    a = getattr(result.trajectory, "a", None)
    error = result.errors.get("trajectory") if result.errors.get("vouched") else None
    return Curve(np.asarray(result.trajectory.loss, dtype=float), result.success, result.message, result.engine,
                 result.stats.get("gd_steps", result.stats["steps"]), result.stats.get("max_sliding_codimension", 0),
                 list(result.jumps), SimpleNamespace(tau=np.asarray(result.trajectory.tau, dtype=float),
                                                     a=None if a is None else _signs(a)),
                 _signs(result.a), float(result.end), final_pattern(result, inputs),
                 None if error is None else np.asarray(error, dtype=float))


def plateau_windows(jump_taus, end: float) -> list[tuple[float, float]]:
    """The middle half of each interval between consecutive distinct jump times (τ = 0 first, ``end`` last; jumps
    closer than 1e-6 are one): where a plateau's loss is read, a quarter of its length from each jump."""
    marks = [0.0]
    for tau in sorted(jump_taus):
        if tau - marks[-1] > 1e-6:
            marks.append(tau)
    if end - marks[-1] > 1e-6:
        marks.append(end)
    return [(u + (v - u) / 4, v - (v - u) / 4) for u, v in zip(marks, marks[1:])]


def drops(loss: np.ndarray, tau: np.ndarray, scale: float) -> list[tuple[float, float, float, float]]:
    """The drops of a loss curve: maximal runs of sample intervals over which it falls by more than DROP·``scale``, as
    (τ where it starts, τ where it ends, the loss before, the loss after). Read from the loss, not from the jump rule
    (half a neuron's final ‖θ_j‖², `result.jumps_of`): a neuron that grows in two stages drops the loss at the first
    and jumps at the second (seed 12, draw 6: the loss falls 0.541 → 0.465 at τ ≈ 5.5, the first jump is at 7.5)."""
    falling = (loss[:-1] - loss[1:]) > DROP * scale
    out, i = [], 0
    while i < falling.size:
        if not falling[i]:
            i += 1
            continue
        j = i
        while j + 1 < falling.size and falling[j + 1]:
            j += 1
        out.append((float(tau[i]), float(tau[j + 1]), float(loss[i]), float(loss[j + 1])))
        i = j + 1
    return out


def _crossings(loss: np.ndarray, tau: np.ndarray, flow_drops) -> list[float]:
    """For each of the flow's drops in turn, the first sampled τ after the previous one's at which a run's loss is
    below the drop's midpoint (∞ from the first it never crosses): where the run makes that drop."""
    out, after = [], -np.inf
    for _, _, before, below in flow_drops:
        crossed = np.flatnonzero((tau > after) & (loss < (before + below) / 2))
        after = float(tau[crossed[0]]) if crossed.size else np.inf
        out.append(after)
    return out


def shared_windows(tau: np.ndarray, flow: Curve, others, end: float) -> list[tuple[float, float] | None]:
    """Per plateau of the flow (before its first drop, between drops, after the last), the middle half of the part all
    runs sit on: from the latest of the flow's end of the drop before and the other runs' crossings of it, to the
    earliest of the flow's start of the drop after and their crossings of it (None where that is empty: a run that
    lags past the next drop, or never makes one)."""
    flow_drops = drops(flow.loss, tau, float(flow.loss[0]))  # a gradient flow's loss never exceeds L(0)
    cross = [_crossings(run.loss, tau, flow_drops) for run in others]
    lows = [0.0] + [max([stop] + [c[k] for c in cross]) for k, (_, stop, _, _) in enumerate(flow_drops)]
    highs = [min([start] + [c[k] for c in cross]) for k, (start, _, _, _) in enumerate(flow_drops)] + [end]
    return [(lo + (hi - lo) / 4, hi - (hi - lo) / 4) if hi > lo else None for lo, hi in zip(lows, highs)]


def _inside(tau: np.ndarray, windows) -> np.ndarray:
    out = np.zeros(tau.shape, dtype=bool)
    for lo, hi in windows:
        out |= (tau >= lo) & (tau <= hi)
    return out


def _jumped_by(run, tau: np.ndarray, m: int) -> np.ndarray:
    """(T, m): whether neuron j has jumped in ``run`` by each sampled τ."""
    first = np.full(m, np.inf)
    for jp in run.jumps:
        first[jp.neuron] = min(first[jp.neuron], jp.tau)
    return tau[:, None] >= first[None, :]


def same_jumps(tau: np.ndarray, runs, m: int) -> np.ndarray:
    """The samples by which all runs have jumped the same neurons."""
    jumped = [_jumped_by(run, tau, m) for run in runs]
    keep = np.ones(tau.shape, dtype=bool)
    for other in jumped[1:]:
        keep &= (other == jumped[0]).all(axis=1)
    return keep


def judge_plateaus(tau, flow: Curve, coarse: Curve, fine: Curve, end: float, m: int, floor: float) -> list[dict]:
    """Per plateau of the flow, on the samples of its window shared with both GD runs (`shared_windows`: away from every
    drop of the loss) that also lie in the middle half of a plateau between each run's jumps (`plateau_windows`: away
    from every jump) and by which all three have jumped the same neurons (`same_jumps`; three samples at least): the
    mean |GD − flow| at both steps, the flow's stated error there (at least ``floor``), and the ratio A(η/4)/A(η) —
    0 where A(η/4) is within the flow's error (agreement to what the flow can tell), ∞ where only A(η) is."""
    agree = same_jumps(tau, (flow, coarse, fine), m)
    for run in (flow, coarse, fine):  # away from every run's jumps too
        agree &= _inside(tau, plateau_windows([jp.tau for jp in run.jumps], end))
    out = []
    for k, window in enumerate(shared_windows(tau, flow, (coarse, fine), end)):
        if window is None:
            continue
        inside = agree & (tau >= window[0]) & (tau <= window[1])
        if inside.sum() < 3:
            continue
        dev = [float(np.abs(run.loss[inside] - flow.loss[inside]).mean()) for run in (coarse, fine)]
        error = max(floor, float(flow.loss_error[inside].max()) if flow.loss_error is not None else 0.0)
        ratio = 0.0 if dev[1] <= error else (dev[1] / dev[0] if dev[0] > error else np.inf)
        out.append({"window": [float(tau[inside][0]), float(tau[inside][-1])], "samples": int(inside.sum()),
                    "after_drop": k > 0, "loss": float(flow.loss[inside].mean()), "gd_error": dev[0],
                    "gd_quarter_error": dev[1], "flow_error": error, "ratio": ratio})
    return out


def _plateau_draw(ctx: Context, k: int, n: int, d: int, m: int) -> dict:
    """One draw at λ: the flow (engine auto) until it settles, sampled every SPACING in τ; GD down the ladder and (for
    the mutant) the flow of other labels at those times; the draw's plateaus (`judge_plateaus`), or why it is left out."""
    instance = random_general_instance(n, d, m, [ctx.seed, 71, k])
    grid = tuple(np.arange(0.0, FlowProblem.__dataclass_fields__["max_horizon"].default, SPACING))
    settled = ctx.cached(("tiny-settle", k), lambda: curve(solve(
        FlowProblem.from_instance(instance, TINY_LAMBDA, save_at=grid), "auto"), instance.inputs))
    tau = settled.trajectory.tau  # the grid up to where the flow settled
    base = FlowProblem.from_instance(instance, TINY_LAMBDA, horizon=settled.end, save_at=tuple(tau))
    flow = settled if not ctx.mutate else ctx.cached(("tiny-mutant", k), lambda: curve(solve(
        FlowProblem(instance.inputs, instance.labels * 1.01,
                    Init.balanced(instance.directions, instance.signs, TINY_LAMBDA),
                    horizon=settled.end, save_at=tuple(tau)), "auto"), instance.inputs))
    row = {"draw": [n, d, m], "index": k, "engine": flow.engine, "end": settled.end, "jumps": len(settled.jumps),
           "sliding_codimension": flow.codimension, "flow_jumped": flow.jumped}
    if not flow.success:
        return {**row, "success": False, "message": f"{flow.engine}: {flow.message}"}
    if len(flow.loss) != len(tau):
        return {**row, "success": False, "message": "the flow was not sampled at the settled run's times"}
    floor = 1e-9 * max(1.0, float(np.abs(instance.labels).max()) ** 2)  # the flow's rtol 1e-10 on the loss's scale
    runs, on_branch, plateaus = [], False, []
    for h in (TINY_STEP / 4**i for i in range(TINY_LADDER_DEPTH + 1)):  # GD's steps to the end, plus two
        limit = int(np.ceil(settled.end * base.time_scale / h)) + 2
        runs.append(ctx.cached(("tiny-gd", k, h), lambda h=h, limit=limit: curve(solve(
            base, "gd", step=h, max_steps=limit, save_params=True), instance.inputs)))
        if not runs[-1].success or len(runs[-1].loss) != len(tau):
            return {**row, "success": False, "message": f"GD at η = {h:g}: {runs[-1].message}"}
        if len(runs) < 2:
            continue
        coarse, fine = runs[-2:]
        on_branch = same_branch(coarse, flow) and same_branch(fine, flow)
        if on_branch:
            plateaus = judge_plateaus(tau, flow, coarse, fine, settled.end, m, floor)
            if max((p["ratio"] for p in plateaus), default=0.0) <= FIRST_ORDER_RATIO:
                break  # the coarsest pair in GD's first-order regime
            continue  # two first-order errors of opposite signs can cancel at a coarse step (seed 18, draw 4): descend
        unreachable = _unreachable(flow, coarse, fine, instance.signs, settled.end, TINY_LADDER_DEPTH - len(runs) + 1)
        if unreachable:
            return {**row, "success": True, "step": h * 4, "gd_jumped": coarse.jumped, "gd_quarter_jumped": fine.jumped,
                    "left_out": unreachable["reason"], "flipped": {x: y for x, y in unreachable.items() if x != "reason"},
                    "gd_steps": sum(run.steps for run in runs)}
    coarse, fine = runs[-2:]
    row.update({"step": TINY_STEP / 4 ** (len(runs) - 2), "same_branch": on_branch, "gd_jumped": coarse.jumped,
                "gd_quarter_jumped": fine.jumped, "gd_steps": sum(run.steps for run in runs)})
    if not on_branch and not same_branch(coarse, fine):
        return {**row, "success": True, "left_out": (
            f"GD at η = {row['step']:g} and {row['step'] / 4:g} end on different branches ({_difference(coarse, fine)}) "
            "and no pair of the ladder follows the flow's: GD has not converged at any step the ladder reaches, so no "
            "pair is in its first-order regime")}
    if not on_branch:  # GD(η) and GD(η/4) agree with each other on another branch: the flow is judged against them
        plateaus = judge_plateaus(tau, flow, coarse, fine, settled.end, m, floor)
    return {**row, "success": True, "message": "", "plateaus": plateaus}


@check("C.def1.gd_limit_general_data_tiny_lambda", statement="C.def1", suites=("full",), precision="float64 (auto)",
       mutant="the flow of labels scaled by 1.01 (a flow that is not gradient descent's limit)")
def gradient_descent_limit_tiny_lambda(ctx: Context) -> Outcome:
    """At λ = 1e-1000, every plateau of the flow (engine auto) against GD at η = 0.2 and 0.05 in log-scale form (down to
    0.05 and 0.0125 where a pair is off the flow's branch or fails the law), a draw on which GD flips a
    neuron's sign that the flow keeps (`gd_limit._unreachable`), on which GD has not converged, or on which a run does not
    succeed left out with its reason and replaced."""
    shapes = [(k, shape) for k, shape in enumerate(DRAWS) if k >= len(DRAWS) - len(TINY_DRAWS)]
    rows = []
    for k, (n, d, m) in shapes:  # grows by a replacement for each draw left out
        rows.append(_plateau_draw(ctx, k, n, d, m))
        if not rows[-1]["success"]:  # no evidence either way (seed 0, draw 4 of the mutant: mpmath stops at a decision
            rows[-1]["left_out"] = f"a run did not succeed: {rows[-1]['message']}"  # below its working precision)
        if "left_out" in rows[-1] and len(shapes) < len(TINY_DRAWS) + REPLACEMENTS:
            shapes.append((len(DRAWS) + len(shapes) - len(TINY_DRAWS), (n, d, m)))
    judged = [row for row in rows if "left_out" not in row]
    left_out = [f"draw {row['index']}: {row['left_out']}" for row in rows if "left_out" in row]
    ratios = [p["ratio"] for row in judged for p in row["plateaus"]]
    steps = ", ".join(sorted({f"{row['step']:g}" for row in judged}))
    worst = max(ratios, default=np.nan)
    moving = sum(p["gd_error"] > p["flow_error"] for row in judged for p in row["plateaus"])
    fitted = sum(p["after_drop"] for row in judged for p in row["plateaus"])
    codimension = max((row["sliding_codimension"] for row in judged), default=0)
    out = Outcome(Status.VERIFIED if worst <= FIRST_ORDER_RATIO else Status.REFUTED, FIRST_ORDER_RATIO, worst,
                  FIRST_ORDER_RATIO, PLATEAU_REASON,
                  f"worst plateau ratio A(η/4)/A(η) = {worst:.3f} over {len(ratios)} plateaus of {len(judged)} draws "
                  f"(η = {steps}, λ = {TINY_LAMBDA}; engines {', '.join(sorted({row['engine'] for row in judged}))}; "
                  f"most kinks slid on at once: {codimension}; {fitted} plateaus after a drop, {moving} where GD differs from "
                  f"the flow beyond its error; {sum(row.get('gd_steps', 0) for row in rows)} GD steps)"
                  + (f"; left out: {'; '.join(left_out)}" if left_out else ""), details={"draws": rows})
    out = out.covers(fitted >= 3, f"only {fitted} plateaus after a drop: too little to test the limit")
    return out.covers(len(ratios) >= 2 * len(judged) and len(judged) >= 3,
                      "fewer than two plateaus per draw or three judged draws: the check does not follow the jumps")
