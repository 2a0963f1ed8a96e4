"""Extrapolation to x = 0 of one quantity sampled at x = 1/L, with an error bar (issue 24, docs/limit.md).

The λ → 0 limit of `numerics.lambda_limit` samples a jump time or a plateau loss at L = ln(1/λ) on a ladder, under
the error law q(L) = q* + C x + D x² + O(x³), x = 1/L (paper C's first-order correction, spec C §2.6); paper B's
transition-time limit samples a ratio at L = log(np) (`proofs_checks.checks.paper_b_limit`). Steps 4–6 of
`numerics.lambda_limit`'s method, on one quantity (`extrapolate`):

4. *Extrapolants.* Richardson of order 1 (a line through two adjacent rungs) and order 2 (a parabola through
   three), on the finest rungs and on the next coarser ones; least-squares fits of degrees 1 and 2 on the finest
   four rungs (`numpy.polynomial.polynomial`); and the model a + b x + c x ln(1/x) on the finest three and four
   rungs (a term ln ln(1/λ)/ln(1/λ) outside the assumed law, whose distance widens the bar when such a term is
   there). The estimate is order 2 on the finest three rungs. (Choosing the coarser three when their bar is
   smaller was tried and dropped: noise on the finest rung can hide the coarser estimate's truncation error,
   measured on synthetic data.)
5. *Error bar.* `SPREAD_SAFETY` (2) times the largest distance of the extrapolants from the estimate, plus the
   engines' own error bounds (``FlowResult.errors``, `numerics.flows.vouch`) carried through the estimate's linear
   weights (Σ_i |w_i| e_i). Under the cubic model the order-1 extrapolants' distance is D·x_a·x_b, which bounds the
   estimate's own error E·x_a·x_b·x_c by a wide margin when x ≤ 1/100.
6. *Settling.* If the law holds, the order-1/order-2 disagreement shrinks from the coarser sub-ladder to the finest
   by about x_finest/x_third ≈ 1/10; it must shrink at least by `SETTLE_FACTOR`, or be within the engines' error,
   else the quantity is inconclusive (the extrapolation has not settled: terms such as λ^c with a small c, or
   a change of events, are not yet negligible on the ladder).

A quantity's ``value`` and ``error`` are None when it is inconclusive (never a bare number).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.polynomial import polynomial as P

MIN_RUNGS = 4  # order 2 on the finest three and on the next coarser three: the settling test needs both
SETTLE_FACTOR = 2.0  # the law predicts a shrink ≈ x_finest/x_third (1/9 to 1/11 on the default ladder): ask for 2
SPREAD_SAFETY = 2.0  # the spread of the extrapolants times 2: it measures the neglected terms only to their order
# (20 000 synthetic laws mixing x², x³, x ln(1/x) and e^{−cL} terms: 10 of 15 530 concluded ones missed with the bare
# spread, 2 with twice it; docs/limit.md)
ENGINE_NOISE = 4.0  # disagreements within 4× the propagated engine error are engine noise, not a failure to settle


def _weights(x: np.ndarray, degree: int) -> np.ndarray:
    """Linear weights w with (fitted value at x = 0) = Σ w_i q_i: row 0 of the pseudo-inverse of the Vandermonde
    matrix (exact interpolation when len(x) = degree + 1, least squares otherwise)."""
    return np.linalg.pinv(P.polyvander(x, degree))[0]


def _log_weights(x: np.ndarray) -> np.ndarray:
    """Weights of the value at x = 0 of a fit q ≈ a + b x + c x ln(1/x) (a ln(ln(1/λ))/ln(1/λ) term, as a polynomial
    prefactor t^p e^{γt} of a neuron's growth would give): a model outside the assumed law, whose distance from the
    estimate enters the error bar (`extrapolate`)."""
    return np.linalg.pinv(np.column_stack([np.ones_like(x), x, -x * np.log(x)]))[0]


@dataclass
class Estimate:
    """One quantity's limit: ``value`` ± ``error`` when ``status`` is "ok"; None and a ``reason`` otherwise."""

    status: str  # "ok" or "inconclusive"
    reason: str
    value: float | None = None
    error: float | None = None
    coefficients: list | None = None  # the estimate's order-2 fit: [τ*, C, D] in x = 1/ln(1/λ)
    samples: list = field(default_factory=list)  # the quantity at each rung (ladder order)
    engine_errors: list = field(default_factory=list)
    extrapolants: dict = field(default_factory=dict)
    engine_part: float | None = None  # the engines' error carried through the estimate
    neuron: int | None = None  # for a jump
    fitted: tuple | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def predict(self, log_inv: float) -> tuple[float, float]:
        """(value, error) of the fitted law at L = ln(1/λ) ≥ the ladder's finest: for 0 ≤ x ≤ x_finest each factor of
        the interpolation error |(x − x_a)(x − x_b)(x − x_c)| is at most its value at x = 0, so the limit's error
        bar bounds the prediction's too (plus the engines' error, already in it)."""
        if not self.ok:
            raise ValueError(f"no prediction from an inconclusive estimate: {self.reason}")
        return float(P.polyval(1.0 / log_inv, self.coefficients)), float(self.error)

    def to_json(self) -> dict:
        out = {"status": self.status, "value": self.value, "error": self.error, "reason": self.reason,
               "coefficients": self.coefficients, "samples": self.samples, "engine_errors": self.engine_errors,
               "extrapolants": self.extrapolants, "engine_part": self.engine_part}
        if self.neuron is not None:
            out = {"neuron": self.neuron, "fitted": list(self.fitted or ()), **out}
        return out


def extrapolate(log_inv, values, errors) -> Estimate:
    """Steps 4–6 of the module docstring on one quantity sampled at L = ``log_inv`` (ascending) with engine error
    bounds ``errors`` (None for an unknown bound: the quantity is then inconclusive)."""
    L = np.asarray(log_inv, dtype=float)
    q = np.asarray(values, dtype=float)
    samples, errs = q.tolist(), list(errors)
    if len(L) < MIN_RUNGS:
        return Estimate("inconclusive", f"{len(L)} rungs, at least {MIN_RUNGS} needed", samples=samples,
                        engine_errors=errs)
    if any(e is None or not math.isfinite(e) for e in errs) or not np.all(np.isfinite(q)):
        return Estimate("inconclusive", "an engine gave no error bound (or a non-finite value) on some rung",
                        samples=samples, engine_errors=errs)
    e = np.asarray(errs, dtype=float)
    x = 1.0 / L
    N = len(x)

    def richardson(last, order):  # on the rungs last−order … last
        idx = np.arange(last - order, last + 1)
        w = _weights(x[idx], order)
        return float(w @ q[idx]), float(np.abs(w) @ e[idx])

    (fine2, fine_engine), (coarse2, coarse_engine) = richardson(N - 1, 2), richardson(N - 2, 2)
    ext = {"order2_finest": fine2, "order1_finest": richardson(N - 1, 1)[0],
           "order2_coarser": coarse2, "order1_coarser": richardson(N - 2, 1)[0],
           "lsq1_last4": float(_weights(x[N - 4:], 1) @ q[N - 4:]), "lsq2_last4": float(_weights(x[N - 4:], 2) @ q[N - 4:]),
           "xlogx_finest": float(_log_weights(x[N - 3:]) @ q[N - 3:]),
           "xlogx_last4": float(_log_weights(x[N - 4:]) @ q[N - 4:])}
    best, engine_part = fine2, fine_engine
    bar = SPREAD_SAFETY * max(abs(v - best) for v in ext.values()) + engine_part
    coefficients = P.polyfit(x[N - 3:], q[N - 3:], 2).tolist()
    fine = abs(ext["order1_finest"] - fine2)
    coarse = abs(ext["order1_coarser"] - coarse2)
    noise = ENGINE_NOISE * (fine_engine + coarse_engine)
    common = dict(samples=samples, engine_errors=errs, extrapolants=ext, engine_part=engine_part,
                  coefficients=coefficients)
    if fine > noise and fine > coarse / SETTLE_FACTOR:
        return Estimate("inconclusive", f"the extrapolation has not settled: orders 1 and 2 differ by {fine:.3g} on "
                        f"the finest rungs against {coarse:.3g} on the coarser ones (the law C x + D x² predicts a "
                        f"shrink by ≈ {x[-1] / x[-3]:.2g}; at least 1/{SETTLE_FACTOR:g} is asked); a finer ladder "
                        "may settle it", **common)
    return Estimate("ok", "", value=best, error=bar, **common)
