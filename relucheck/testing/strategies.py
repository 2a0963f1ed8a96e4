"""Hypothesis strategies for instances (composable: sizes are values or strategies of values).

* `labels(n)`: non-zero continuous labels of both signs (or one sign).
* `algorithm_inputs()`: (labels, signs, activation) for paper C's Algorithm 1: fair signs, arbitrary boolean
  activation, n ≤ 30, m ≤ 20.
* `orthonormal_instances()`: `Instance` with orthonormal inputs (a random rotation of e_1..e_n in ℝ^d, d ≥ n; C
  Assumption 1), unit directions and ±1 signs, mixed-sign labels.
* `general_instances(n=, d=, m=)`: unit inputs in general position (non-orthogonal, correlated), mixed-sign
  labels, unit directions, mixed output signs — the setting where neurons slide on one or several kinks.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from relucheck.numerics import datasets
from relucheck.numerics.instances import Instance

_labels_magnitude = st.floats(min_value=0.05, max_value=10.0, allow_nan=False, allow_infinity=False)


@st.composite
def labels(draw, n: int, *, one_sign: bool = False) -> np.ndarray:
    mags = np.array(draw(st.lists(_labels_magnitude, min_size=n, max_size=n)))
    if one_sign:
        return mags
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    return mags * signs


@st.composite
def algorithm_inputs(draw, max_n: int = 30, max_m: int = 20):
    """(y, s, act) for `theory.limit_process.limit_process`."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    y = draw(labels(n))
    s = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    bits = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
    return y, s, np.array(bits, dtype=bool).reshape(n, m)


@st.composite
def orthonormal_instances(draw, max_n: int = 12, max_m: int = 8, max_extra_dims: int = 3):
    """Instances satisfying paper C's Assumption 1, with random rotation, directions and signs."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    d = n + draw(st.integers(0, max_extra_dims))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = datasets.orthonormal_inputs(n, d, rng)
    G = datasets.random_directions(m, d, rng)
    s = datasets.random_signs(m, rng)
    return Instance(X, draw(labels(n)), G, s, {"generator": "relucheck.testing.strategies.orthonormal_instances",
                                                "seed": seed})


def _value(draw, v):
    return draw(v) if isinstance(v, st.SearchStrategy) else v


@st.composite
def general_instances(draw, n=None, d=None, m=None):
    """`Instance` with n unit inputs in ℝ^d drawn uniformly on the sphere (non-orthogonal, ⟨x_i, x_k⟩ of either
    sign), labels of both signs, m unit directions and mixed signs; ``n``, ``d``, ``m`` are ints or strategies
    (default: integers in [2, 6], [2, 4], [1, 5]).

    >>> from hypothesis import given
    >>> @given(general_instances(n=6, d=3, m=5))
    ... def test(inst): ...
    """
    n = _value(draw, st.integers(2, 6) if n is None else n)
    d = _value(draw, st.integers(2, 4) if d is None else d)
    m = _value(draw, st.integers(1, 5) if m is None else m)
    seed = draw(st.integers(0, 2**32 - 1))
    return random_general_instance(n, d, m, seed)


def random_general_instance(n: int, d: int, m: int, seed) -> Instance:
    """The instance `general_instances` draws for a seed: x_i uniform on S^{d−1}, y ~ N(0, 1), ḡ_j uniform, s_j fair."""
    rng = np.random.default_rng(seed)
    X = datasets.random_directions(n, d, rng)
    y = rng.standard_normal(n)
    return Instance(X, y, datasets.random_directions(m, d, rng), datasets.random_signs(m, rng),
                    {"generator": "relucheck.testing.strategies.general_instances", "seed": seed, "n": n, "d": d, "m": m})
