"""Hypothesis strategies for the settings of papers A, B and C and for a user's own (docs/api.md).

Composable: every size argument (``n``, ``d``, ``m``, ``k``) is an int or a strategy of ints, and every strategy
draws its randomness through hypothesis (a drawn seed feeds numpy), so failures shrink and replay.

Instances (`relucheck.Instance`: inputs, labels, unit directions, ±1 signs):

* `orthonormal_instances(n=, m=, d=)`: C Assumption 1, inputs a random rotation of e_1 … e_n in ℝ^d (d ≥ n), or the
  standard basis itself when ``rotate`` draws False.
* `weakly_correlated_instances(n=, d=, m=)`: B's weakly interacting data, x_i ~ N(0, I_d/d) (B Lemma 3:
  ⟨x_i, x_k⟩ = O(1/√d)).
* `positively_correlated_instances(n=, d=, m=)`: A's data, the margin sampler S_A1 (every x_i within the cone
  |⟨x̄_i, β*⟩| ≥ c0 around ±β* = ±e_1) with linear-teacher labels y = ⟨β*, x⟩ + σξ, so y_i x_i is positively
  correlated with β* (A §5).
* `general_instances(n=, d=, m=)`: unit inputs uniform on the sphere, labels N(0, 1) of both signs: any correlation.

Pieces: `labels(n)`, `algorithm_inputs()` (Algorithm 1's (y, s, activation)), `linear_teacher_labels(X)`,
`relu_teacher_labels(X, k=)`, `balanced_initializations(m=, d=, lam=)` (C Assumption 3),
`dominated_initializations(m=, d=, lam=)` (A eqs. (2)–(3)).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from relucheck.numerics import datasets, initializations
from relucheck.numerics.instances import Instance

_labels_magnitude = st.floats(min_value=0.05, max_value=10.0, allow_nan=False, allow_infinity=False)
_seeds = st.integers(0, 2**32 - 1)


def _value(draw, v):
    return draw(v) if isinstance(v, st.SearchStrategy) else v


def _directions_and_signs(m: int, d: int, rng):
    return datasets.random_directions(m, d, rng), datasets.random_signs(m, rng)


@st.composite
def labels(draw, n, *, one_sign: bool = False) -> np.ndarray:
    """n labels with |y_i| ∈ [0.05, 10], of both signs unless ``one_sign`` (then positive)."""
    n = _value(draw, n)
    mags = np.array(draw(st.lists(_labels_magnitude, min_size=n, max_size=n)))
    if one_sign:
        return mags
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    return mags * signs


@st.composite
def algorithm_inputs(draw, max_n: int = 30, max_m: int = 20):
    """(y, s, act) for paper C's Algorithm 1 (`relucheck.theory.limit_process.limit_process`): fair signs and an
    arbitrary boolean activation pattern, n ≤ ``max_n``, m ≤ ``max_m``."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    y = draw(labels(n))
    s = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    bits = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
    return y, s, np.array(bits, dtype=bool).reshape(n, m)


@st.composite
def orthonormal_instances(draw, n=None, m=None, d=None, *, rotate=None):
    """C Assumption 1: orthonormal inputs (a Haar rotation of e_1 … e_n in ℝ^d, or e_1 … e_n when ``rotate`` is
    False), labels of both signs, m unit directions, fair signs. Defaults: n ∈ [1, 12], m ∈ [1, 8], d ∈ [n, n + 3],
    ``rotate`` drawn."""
    n = _value(draw, st.integers(1, 12) if n is None else n)
    m = _value(draw, st.integers(1, 8) if m is None else m)
    d = _value(draw, st.integers(n, n + 3) if d is None else d)
    rotate = _value(draw, st.booleans() if rotate is None else rotate)
    seed = draw(_seeds)
    rng = np.random.default_rng(seed)
    X = datasets.orthonormal_inputs(n, d, rng, rotate=rotate)
    G, s = _directions_and_signs(m, d, rng)
    return Instance(X, draw(labels(n)), G, s, {"generator": "relucheck.testing.strategies.orthonormal_instances",
                                                "seed": seed, "rotate": bool(rotate)})


@st.composite
def weakly_correlated_instances(draw, n=None, d=None, m=None):
    """B's weakly interacting data: x_i ~ N(0, I_d/d) (B Lemma 3), labels of both signs, unit directions, fair
    signs. Defaults: n ∈ [2, 6], d ∈ [n², n² + 8] (B's regime d ≳ n²), m ∈ [1, 6]."""
    n = _value(draw, st.integers(2, 6) if n is None else n)
    d = _value(draw, st.integers(n * n, n * n + 8) if d is None else d)
    m = _value(draw, st.integers(1, 6) if m is None else m)
    seed = draw(_seeds)
    rng = np.random.default_rng(seed)
    X = datasets.gaussian_inputs(n, d, rng)
    G, s = _directions_and_signs(m, d, rng)
    return Instance(X, draw(labels(n)), G, s, {"generator": "relucheck.testing.strategies.weakly_correlated_instances",
                                                "seed": seed})


@st.composite
def positively_correlated_instances(draw, n=None, d=None, m=None, *, c0: float = 0.3, noise=None):
    """A's data (spec A §5.0, sampler S_A1): x_i in the cone |⟨x̄_i, e_1⟩| ≥ ``c0``, whitened; labels from the linear
    teacher β* = e_1 with noise σ (drawn in [0, 0.5] by default); unit directions, fair signs. Defaults:
    n ∈ [4, 24], d ∈ [2, 4], m ∈ [1, 6]."""
    n = _value(draw, st.integers(4, 24) if n is None else n)
    d = _value(draw, st.integers(2, 4) if d is None else d)
    m = _value(draw, st.integers(1, 6) if m is None else m)
    sigma = _value(draw, st.floats(0.0, 0.5) if noise is None else noise)
    seed = draw(_seeds)
    rng = np.random.default_rng(seed)
    X = datasets.margin_inputs(n, d, rng, c0=c0)
    y = datasets.linear_teacher(X, rng, noise=sigma)
    G, s = _directions_and_signs(m, d, rng)
    return Instance(X, y, G, s, {"generator": "relucheck.testing.strategies.positively_correlated_instances",
                                 "seed": seed, "c0": c0, "noise": sigma})


@st.composite
def general_instances(draw, n=None, d=None, m=None):
    """Unit inputs uniform on S^{d−1} (non-orthogonal, ⟨x_i, x_k⟩ of either sign), labels N(0, 1), m unit
    directions and fair signs: the setting where neurons slide on one or several kinks. Defaults: n ∈ [2, 6],
    d ∈ [2, 4], m ∈ [1, 5].

    >>> from hypothesis import given
    >>> @given(general_instances(n=6, d=3, m=5))
    ... def test(inst): ...
    """
    n = _value(draw, st.integers(2, 6) if n is None else n)
    d = _value(draw, st.integers(2, 4) if d is None else d)
    m = _value(draw, st.integers(1, 5) if m is None else m)
    return random_general_instance(n, d, m, draw(_seeds))


def random_general_instance(n: int, d: int, m: int, seed) -> Instance:
    """The instance `general_instances` draws for a seed: x_i uniform on S^{d−1}, y ~ N(0, 1), ḡ_j uniform, s_j fair."""
    rng = np.random.default_rng(seed)
    X = datasets.random_directions(n, d, rng)
    y = rng.standard_normal(n)
    return Instance(X, y, datasets.random_directions(m, d, rng), datasets.random_signs(m, rng),
                    {"generator": "relucheck.testing.strategies.general_instances", "seed": seed, "n": n, "d": d, "m": m})


@st.composite
def linear_teacher_labels(draw, X, *, noise=0.0):
    """y = ⟨β, x⟩ + σξ for a drawn unit β (A eq. (7) with a random β* instead of e_1)."""
    X = np.asarray(X, dtype=float)
    rng = np.random.default_rng(draw(_seeds))
    beta = datasets.random_directions(1, X.shape[1], rng)[0]
    return datasets.linear_teacher(X, rng, beta=beta, noise=_value(draw, noise))


@st.composite
def relu_teacher_labels(draw, X, *, k=None, noise=0.0):
    """y = Σ_{l ≤ k} b_l σ(⟨v_l, x⟩) + σξ with unit v_l and b_l = ±1 (A's one-ReLU teacher for k = 1);
    k ∈ [1, 3] by default."""
    k = _value(draw, st.integers(1, 3) if k is None else k)
    y, _, _ = datasets.relu_teacher(np.asarray(X, dtype=float), np.random.default_rng(draw(_seeds)), k=k,
                                    noise=_value(draw, noise))
    return y


@st.composite
def balanced_initializations(draw, m, d, lam=1e-6):
    """(a, W) with w_j = λ ḡ_j, a_j = s_j λ (C Assumption 3: a_j² = ‖w_j‖²), ḡ_j uniform, s_j fair."""
    m, d, lam = _value(draw, m), _value(draw, d), _value(draw, lam)
    rng = np.random.default_rng(draw(_seeds))
    G, s = _directions_and_signs(m, d, rng)
    return s * lam, G * lam


@st.composite
def dominated_initializations(draw, m, d, lam=1e-6):
    """(a, W) of A eqs. (2)–(3): a_j = ±λ/√m, w_j = λ/√m · λ u_j with u_j uniform in the unit ball, so
    ‖w_j‖ ≤ λ |a_j| (strict domination)."""
    m, d, lam = _value(draw, m), _value(draw, d), _value(draw, lam)
    return initializations.dominated(m, d, lam, np.random.default_rng(draw(_seeds)))


__all__ = ["labels", "algorithm_inputs", "orthonormal_instances", "weakly_correlated_instances",
           "positively_correlated_instances", "general_instances", "random_general_instance", "linear_teacher_labels",
           "relu_teacher_labels", "balanced_initializations", "dominated_initializations"]
