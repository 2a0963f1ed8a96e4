"""Paper C's instances for the flow checks: the golden example (defined here once) and seeded random orthonormal
instances drawn until Algorithm 1's jumps are well separated, so that the O(1/ln(1/λ)) error law of Theorem 2 is
visible at moderate λ (spec C §2.6–2.7). Algorithm 1 of each named instance is memoized (`limit_of`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from relucheck.numerics import datasets
from relucheck.numerics.instances import Instance
from relucheck.theory.first_jump import first_jump
from relucheck.theory.limit_process import limit_process_of

# spec C §2.7: n = 4, x_i = e_i, y = (3, 4, 1, 2), m = 3, all s_j = +1; τ_1 = 4/5, S_1 = {0, 1}
GOLDEN_LABELS = (3, 4, 1, 2)
GOLDEN_SIGNS = (1, 1, 1)
GOLDEN_DIRECTIONS = np.array([[1, 1, -1, -1], [-1, 1, 1, 1], [-1, -1, 1, -1]]) / 2.0


def golden_instance() -> Instance:
    """Spec C §2.7: n = 4, x_i = e_i, y = (3, 4, 1, 2), m = 3, all s_j = +1; τ_1 = 4/5, S_1 = {0, 1}."""
    return Instance(np.eye(4), np.array(GOLDEN_LABELS, dtype=float), GOLDEN_DIRECTIONS, np.array(GOLDEN_SIGNS, dtype=float),
                    {"name": "golden (spec C §2.7)"})


def leftover_exponent(instance: Instance, lp) -> float:
    """c* (spec C14, widened): min u_j(τ_l) over jumps l and neurons j ≠ j_l still unfitted and growing at τ_l.

    Such a neuron has grown to λ^{u_j(τ_l)} by the jump; if it is active on S_l it keeps a frozen raw component of
    that order there (spec C14's pairs), and if it never jumps it keeps a_j² ≈ λ^{2u_j(τ_l)} (a near-tie of line 8).
    1 if there is no such neuron.
    """
    c = 1.0
    fitted = set()
    for k, jp in enumerate(lp.jumps):
        growing = lp.segment_rates[k] > 0
        for j in range(instance.m):
            if j != jp.neuron and j not in fitted and growing[j]:
                c = min(c, float(jp.exponents[j]))
        fitted.add(jp.neuron)
    return c


def _random_orthonormal(rng, n: int, m: int, d: int, meta: dict) -> Instance:
    X = datasets.orthonormal_inputs(n, d, rng)
    y = rng.choice([-1.0, 1.0], n) * (0.3 + np.abs(rng.standard_normal(n)))
    G, s = datasets.random_directions(m, d, rng), datasets.random_signs(m, rng)
    return Instance(X, y, G, s, meta)


def separated_instance(seed, n: int = 8, m: int = 5, d: int = 10, *, min_gap: float = 0.6,
                       min_leftover: float = 0.25, max_tries: int = 500) -> Instance:
    """A random orthonormal instance (rotated basis, y ~ N(0,1) with |y_i| ≥ 0.3, random signs) whose Algorithm-1
    jumps are ≥ ``min_gap`` apart (first jump included), at least 2, tie-free, and whose leftover exponent c* is ≥
    ``min_leftover``. Draws with numpy default_rng([seed, 31, attempt]) until one qualifies."""
    for attempt in range(max_tries):
        inst = _random_orthonormal(np.random.default_rng([seed, 31, attempt]), n, m, d, {"seed": [seed, 31, attempt]})
        lp = limit_process_of(inst)
        taus = [0.0] + [jp.tau for jp in lp.jumps]
        if len(lp.jumps) < 2 or lp.ties or min(np.diff(taus)) < min_gap:
            continue
        if leftover_exponent(inst, lp) < min_leftover:
            continue
        return inst
    raise RuntimeError(f"no separated instance in {max_tries} draws (seed {seed})")


def wrong_sign_instance(seed, n: int = 10, m: int = 5, d: int = 12, *, min_leftover: float = 0.25,
                        max_tries: int = 500) -> Instance:
    """A random orthonormal instance whose first jumping neuron has wrong-sign active components (so κ needs the
    event-driven linear system) and whose other neurons are still at u_j(τ_1) ≥ ``min_leftover``.
    Draws with default_rng([seed, 37, attempt])."""
    for attempt in range(max_tries):
        inst = _random_orthonormal(np.random.default_rng([seed, 37, attempt]), n, m, d, {"seed": [seed, 37, attempt]})
        lp = limit_process_of(inst)
        if not lp.jumps or lp.ties:
            continue
        first = lp.jumps[0]
        others = [u for j, u in enumerate(first.exponents) if j != first.neuron]
        if others and min(others) < min_leftover:
            continue
        if first_jump(inst, lp).wrong_sign >= 1:
            return inst
    raise RuntimeError(f"no wrong-sign instance in {max_tries} draws (seed {seed})")


def in_data_basis(inst: Instance) -> Instance:
    """The same instance in the orthonormal basis (x_1, …, x_n, complement): inputs become e_1, …, e_n."""
    from scipy.linalg import null_space

    basis = np.vstack([inst.inputs, null_space(inst.inputs).T])  # (d, d) orthogonal
    return Instance(np.eye(inst.n, inst.d), inst.labels, inst.directions @ basis.T, inst.signs)


@lru_cache(maxsize=None)
def instance_of(name: str, seed: int) -> Instance:
    """The named instances of the checks: golden, random (separated), wrong-sign, random-unrotated (x_i = e_i)."""
    if name == "golden":
        return golden_instance()
    if name == "random":
        return separated_instance(seed)
    if name == "wrong-sign":
        return wrong_sign_instance(seed)
    if name == "random-unrotated":  # x_i = e_i exactly: inactive components are exact zeros of the field
        return in_data_basis(separated_instance(seed))
    raise KeyError(name)


@lru_cache(maxsize=None)
def limit_of(name: str, seed: int):
    """Algorithm 1 (`theory.limit_process`) on a named instance."""
    return limit_process_of(instance_of(name, seed))
