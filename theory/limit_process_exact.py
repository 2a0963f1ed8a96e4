"""Algorithm 1 of paper C in exact arithmetic (SymPy), for small instances.

Same algorithm and conventions as `theory.limit_process` (spec C §2.3): labels become exact rationals
(a float label is taken at its exact binary value; "3/2" strings are read exactly), rates are
‖D_j^{(k)}‖ = c‖y_{S_j^{(k)}}‖ with c = `exact_rate_constant(n)`, so jump times, exponents and norms are
exact algebraic numbers (sums of products of square roots of rationals). Hit times are compared by
the exact sign of their difference (`exact_sign`), so ties of line 8 (Assumption 4(ii)) are detected
exactly and reported, never broken silently (the lowest index continues, as in the float version).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy
from sympy.core.evalf import PrecisionExhausted

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError

from .limit_process import NONZERO_LABELS, correct_sign_mask, exact_rate_constant

_X = sympy.Symbol("x")
RETRY_DIGITS = 400     # working precision (maxn) of the first retry of a non-zero value evalf could not certify


def exact_sign(value: sympy.Expr) -> int:
    """Sign of an algebraic number: from a value whose digits evalf certifies (``strict=True``), else 0 when its
    minimal polynomial is x, else from a certified value at a working precision doubled until evalf succeeds
    (it does: the number is not 0). A non-strict evalf is not enough: on sqrt(10^300 + 1) − 10^150 ≈ 5·10^-151
    it returns −0.e-40 at 60 digits (cancellation beyond sympy's working precision), whose sign is wrong."""
    value = sympy.sympify(value)
    if value == 0:
        return 0
    try:
        return int(sympy.sign(value.evalf(strict=True)))   # certified digits: a certain sign
    except PrecisionExhausted:                              # a zero in disguise, or a tiny value
        pass
    if sympy.minimal_polynomial(value, _X) == _X:
        return 0
    working = RETRY_DIGITS
    while True:
        try:
            return int(sympy.sign(value.evalf(strict=True, maxn=working)))
        except PrecisionExhausted:
            working += working                               # doubled


def exact_number(value, name: str = "label") -> sympy.Rational:
    """An exact rational from an int, a fraction string ("3/2"), a float (its binary value) or a SymPy rational."""
    if isinstance(value, sympy.Basic):
        if not value.is_rational:
            raise RelucheckInputError(f"{name} must be rational for the exact Algorithm 1, got {value}")
        return sympy.Rational(value)
    if isinstance(value, (str, int, np.integer)):
        try:
            return sympy.Rational(Fraction(str(value).strip()))
        except (ValueError, ZeroDivisionError) as exc:
            raise RelucheckInputError(f"{name} {value!r} is not a number") from exc
    x = float(value)
    if not np.isfinite(x):
        raise RelucheckInputError(f"{name} must be finite, got {value!r}")
    return sympy.Rational(Fraction(x))


@dataclass
class ExactJump:
    tau: sympy.Expr
    neuron: int
    fitted: list[int]
    norm_y: sympy.Expr
    exponents: list[sympy.Expr]


@dataclass
class ExactLimitProcess:
    jumps: list[ExactJump]
    plateaus: list[sympy.Rational]
    a: list[sympy.Expr]
    W_data: list[list[sympy.Expr]]
    interpolates: bool
    squared_norm: sympy.Expr
    min_norm_squared: sympy.Expr
    ties: list[dict]

    def to_json(self) -> dict:
        """Exact values as strings next to their float values."""
        def both(x):
            return {"exact": str(x), "value": float(x)}

        return {
            "jumps": [{"tau": both(jp.tau), "neuron": jp.neuron, "fitted": jp.fitted, "norm_y": both(jp.norm_y)}
                      for jp in self.jumps],
            "interpolates": self.interpolates,
            "squared_norm": both(self.squared_norm),
            "min_norm_squared": both(self.min_norm_squared),
            "loss_plateaus": [both(p) for p in self.plateaus],
            "ties": [{**t, "tau": both(t["tau"])} for t in self.ties],
            "final": {"a": [both(v) for v in self.a], "W_data": [[both(v) for v in row] for row in self.W_data]},
        }


def limit_process_exact(labels, signs, activation) -> ExactLimitProcess:
    """Algorithm 1 (spec C §2.3) in exact arithmetic; see the module docstring."""
    y = [exact_number(v, f"label {i}") for i, v in enumerate(labels)]
    if any(v == 0 for v in y):
        raise HypothesisViolation(NONZERO_LABELS, f"label {[v == 0 for v in y].index(True)} is 0")
    s = [int(exact_number(v, "sign")) for v in signs]
    if not y or not s or any(v not in (-1, 1) for v in s):
        raise RelucheckInputError("labels must be non-empty and signs a non-empty list of ±1")
    act = np.asarray(activation, dtype=bool)
    n, m = len(y), len(s)
    if act.shape != (n, m):
        raise RelucheckInputError(f"activation must have shape (n, m) = ({n}, {m}), got {act.shape}")
    A = correct_sign_mask(np.array([float(v) for v in y]), np.array(s), act)
    c = exact_rate_constant(n)
    unfitted = set(range(n))                                  # U_k
    u = [sympy.Integer(1)] * m                                # u_j(τ_k)
    tau = sympy.Integer(0)
    a = [sympy.Integer(0)] * m
    W = [[sympy.Integer(0)] * n for _ in range(m)]
    jumps, ties = [], []
    plateaus = [sum(v**2 for v in y) / (2 * n)]                 # y ≠ []: a SymPy sum
    while True:
        S = [[i for i in sorted(unfitted) if A[i, j]] for j in range(m)]      # S_j^{(k)}
        rate = [c * sympy.sqrt(sum(y[i]**2 for i in S[j])) for j in range(m)]  # ‖D_j^{(k)}‖
        cand = [j for j in range(m) if S[j]]          # S_j = ∅ once j has jumped: F_k needs no record
        if not cand:
            break
        hit = {j: u[j] / rate[j] for j in cand}
        best = [cand[0]]
        for j in cand[1:]:
            sign = exact_sign(hit[j] - hit[best[0]])
            if sign < 0:
                best = [j]
            elif sign == 0:
                best.append(j)
        j = best[0]
        dt = hit[j]
        tau = sympy.expand(tau + dt)
        if len(best) > 1:
            ties.append({"iteration": len(jumps) + 1, "neurons": sorted(best), "tau": tau})
        for i in range(m):                                              # eq. (11); a fitted i has rate 0
            u[i] = sympy.expand(u[i] - dt * rate[i])
        u[j] = sympy.Integer(0)
        norm_y = sympy.sqrt(sum(y[i]**2 for i in S[j]))
        for i in S[j]:
            W[j][i] = abs(y[i]) / sympy.sqrt(norm_y)                     # eq. (13)
        a[j] = s[j] * sympy.sqrt(norm_y)                                 # eq. (14)
        jumps.append(ExactJump(tau, j, list(S[j]), norm_y, list(u)))
        unfitted -= set(S[j])
        plateaus.append(sum((y[i]**2 for i in unfitted), sympy.Integer(0)) / (2 * n))
    norm_pos = sympy.sqrt(sum(max(v, 0)**2 for v in y))                # ‖y_+‖
    norm_neg = sympy.sqrt(sum(min(v, 0)**2 for v in y))                # ‖y_−‖
    return ExactLimitProcess(jumps=jumps, plateaus=plateaus, a=a, W_data=W, interpolates=not unfitted,
                             squared_norm=2 * sum((jp.norm_y for jp in jumps), sympy.Integer(0)),
                             min_norm_squared=2 * (norm_pos + norm_neg), ties=ties)
