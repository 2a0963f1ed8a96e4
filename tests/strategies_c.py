"""Hypothesis strategies for paper C instances (importable by other tests).

* `algorithm_inputs()`: (labels, signs, activation) for Algorithm 1: non-zero continuous labels of both
  signs, fair signs, arbitrary boolean activation, n ≤ 30, m ≤ 20.
* `orthonormal_instances()`: `numerics.instances.Instance` with orthonormal inputs (a random rotation of
  e_1..e_n in ℝ^d, d ≥ n), unit directions and ±1 signs, mixed-sign labels.
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
    return Instance(X, draw(labels(n)), G, s, {"generator": "tests.strategies_c", "seed": seed})
