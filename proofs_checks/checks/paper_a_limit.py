"""Paper A, Lemma F.4 against the extrapolated λ → 0 limit (issue 24): in accelerated time τ = t/ln(1/λ) the
escape of the positive neurons happens at τ* = 1/‖D_+‖ and that of the negative ones at 1/‖D_−‖ (T_esc grows like
ln(1/λ)/‖D_±‖, A Lemma F.4; D_± = (1/n) Σ_{S_±} y_i x_i). Here the limit itself is measured: the flow's first jump
time of each sign, extrapolated in 1/ln(1/λ) over a ladder of flows (`numerics.lambda_limit`, `relucheck limit`),
with its error bar, instead of a slope fitted to finite-λ GD runs (`A.lemF.4.escape_time`)."""
from __future__ import annotations

import numpy as np

from ..reader_text import plain, significant_digits
from ..registry import Context, check
from ..result import Outcome, Status


def _case(seed: int):
    """A's data (S_A1: margin inputs c0 = 0.3 around β* = e_1, linear teacher with noise 0.5; n = 20, d = 2), two
    positive and two negative balanced neurons (C Assumption 3's start, random unit directions)."""
    from relucheck.api import limit
    from relucheck.numerics import datasets
    from relucheck.numerics.instances import Instance

    rng = np.random.default_rng([seed, 41])
    n, d = 20, 2
    X = datasets.margin_inputs(n, d, rng, c0=0.3, whiten=False)
    y = datasets.linear_teacher(X, rng, noise=0.5)
    plus = X[:, 0] > 0
    D_plus, D_minus = (y * plus) @ X / n, (y * ~plus) @ X / n
    signs = np.array([1.0, 1.0, -1.0, -1.0])
    inst = Instance(X, y, datasets.random_directions(len(signs), d, rng), signs, {"paper": "A", "seed": seed})
    return limit(inst), signs, float(np.linalg.norm(D_plus)), float(np.linalg.norm(D_minus))


def _to_bar(value: float, bar: float) -> str:
    """A value to the digits its error bar warrants (one below the bar's first digit)."""
    return plain(value, significant_digits(abs(value), bar, high=12))


@check("A.lemF.4.escape_time_limit", statement="A.lemF.4", suites=("full",),
       mutant="predicts τ* = 1/(2‖D_±‖) (the rate of a loss without the ½)")
def escape_time_limit(ctx: Context) -> Outcome:
    """The first jump of a positive neuron and of a negative one, extrapolated to λ → 0, are 1/‖D_+‖ and 1/‖D_−‖
    within their error bars (n = 20, d = 2, two neurons of each sign)."""
    result, signs, norm_plus, norm_minus = ctx.cached("case", lambda: _case(ctx.seed))
    factor = 2.0 if ctx.mutate else 1.0
    predicted = [1.0 / (factor * norm_plus), 1.0 / (factor * norm_minus)]
    firsts = [next((j for j in result.jumps if signs[j.neuron] == s), None) for s in (1.0, -1.0)]
    if any(j is None or not j.ok for j in firsts):
        why = "no jump of that sign" if any(j is None for j in firsts) else next(j.reason for j in firsts if not j.ok)
        return Outcome(Status.INCONCLUSIVE, predicted, None, None, "no extrapolated escape time to compare",
                       f"the limit gives no escape time of each sign: {why}", details={"limit": result.to_json()})
    measured = [j.value for j in firsts]
    bars = [j.error for j in firsts]
    ok = all(abs(p - q) <= e for p, q, e in zip(predicted, measured, bars))
    return Outcome(Status.VERIFIED if ok else Status.REFUTED, predicted, measured, bars,
                   "each escape time's own error bar from `relucheck limit`: twice the spread of the extrapolants plus "
                   "the engines' error bounds carried through the extrapolation (docs/limit.md)",
                   f"τ*_esc(+) = {_to_bar(measured[0], bars[0])} ± {bars[0]:.2g} vs 1/‖D_+‖ = "
                   f"{_to_bar(predicted[0], bars[0])}; τ*_esc(−) = {_to_bar(measured[1], bars[1])} ± {bars[1]:.2g} vs "
                   f"1/‖D_−‖ = {_to_bar(predicted[1], bars[1])}",
                   details={"ladder": [r["log_inv_lambda"] for r in result.ladder],
                            "samples": [j.samples for j in firsts]})
