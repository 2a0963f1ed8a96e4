"""The float64 flow's per-event bookkeeping made cheaper (issue 22, item 1) computes what it computed before.

Three claims, each able to fail:

* `filippov.decide`'s shortcut for neurons still sliding on the same data (`filippov._still_sliding`, all neurons at
  once) gives the pattern the full per-neuron decision gives, at every event of drawn general runs;
* `LogScaleStepper.snap` (all kink neurons at once) puts the state where the former one-neuron-at-a-time projection
  put it, bit for bit, in both bases and for balanced and unbalanced starts;
* `events.first_crossing` returns the *earliest* of several rows crossing close together (after BISECTIONS halvings it
  takes the first root of their minimum), with the row that crosses there.
"""
from __future__ import annotations

import numpy as np
import pytest

from relucheck.numerics.flows import FlowProblem, Init
from relucheck.numerics.flows import filippov, loop
from relucheck.numerics.flows.events import EventKind, KINDS, Watch, first_crossing
from relucheck.numerics.flows.registry import get_engine
from relucheck.testing.strategies import random_general_instance

ROOT_TOL = 1e-13  # brentq's tolerance is 4 ε |t| ≈ 9e-16 on [0, 1]; the rows below are linear, so only rounding is left


def _decisions_agree(seed: int, lam: str, horizon: float) -> int:
    """Run a drawn general instance; at every event decide again without the shortcut (cache None) and compare. Returns
    how many neurons the shortcut kept (it must be used, or the comparison says nothing)."""
    used = [0]
    original = filippov._still_sliding

    def counted(*args):
        keep = original(*args)
        used[0] += int(keep.sum())
        return keep

    def both(Z, kink, r, s, G, previous, **options):
        fast = filippov.decide(Z, kink, r, s, G, previous, **options)
        slow = filippov.decide(Z, kink, r, s, G, previous, **{**options, "cache": None})
        assert np.array_equal(fast.act, slow.act) and np.array_equal(fast.slide, slow.slide)
        assert sorted(fast.projections) == sorted(slow.projections)
        for j, (S, A, P) in fast.projections.items():
            S2, A2, P2 = slow.projections[j]
            assert np.array_equal(S, S2) and np.array_equal(A, A2)
            np.testing.assert_allclose(P, P2, rtol=0, atol=1e-12 * max(1.0, float(np.abs(P2).max(initial=0))))
        return fast

    problem = FlowProblem.from_instance(random_general_instance(12, 4, 6, seed), lam, horizon=horizon)
    saved = loop.decide, filippov._still_sliding
    loop.decide, filippov._still_sliding = both, counted
    try:
        loop.integrate(get_engine("float64"), problem)
    finally:
        loop.decide, filippov._still_sliding = saved
    return used[0]


@pytest.mark.parametrize("seed,lam", [(3, "1e-40"), (5, "1e-10")])
def test_the_still_sliding_shortcut_is_the_full_decision(seed, lam):
    assert _decisions_agree(seed, lam, horizon=8.0) > 0


def test_the_still_sliding_shortcut_is_seen_when_it_is_wrong():
    """Mutant: the shortcut keeps every candidate without its band check; the comparison above must refute it."""
    original = filippov._still_sliding

    def careless(kink, act, r, s, G, rounding_all, previous, crossed, cache):
        keep = np.zeros(kink.shape[1], dtype=bool)
        if previous is None or not previous.projections or cache is None:
            return keep
        return kink.any(axis=0) & (kink == previous.slide).all(axis=0) & act.any(axis=0)

    filippov._still_sliding = careless
    try:
        with pytest.raises(AssertionError):
            for seed, lam in [(3, "1e-40"), (5, "1e-10"), (7, "1e-40")]:
                _decisions_agree(seed, lam, horizon=8.0)
    finally:
        filippov._still_sliding = original


def _snap_one_by_one(stepper, kink):
    """The former `snap`: one neuron at a time (`Basis.project_out`, `np.linalg.norm`)."""
    rho, Phi = stepper._split(stepper.y.copy())
    for j in np.flatnonzero(kink.any(axis=0)):
        Phi[j, 1:] = stepper.basis.project_out(Phi[j, 1:], np.flatnonzero(kink[:, j]))
        if stepper.balanced:
            norm = np.sqrt(2.0) * np.linalg.norm(Phi[j, 1:])
            Phi[j, 1:] /= norm
        else:
            norm = np.linalg.norm(Phi[j])
            Phi[j] /= norm
        rho[j] += np.log(norm)
    return np.concatenate([rho, (Phi[:, 1:] * np.sqrt(2.0) if stepper.balanced else Phi).ravel()])


@pytest.mark.parametrize("balanced", [True, False])
@pytest.mark.parametrize("orthonormal", [True, False])
def test_snap_all_at_once_is_snap_one_by_one(balanced, orthonormal):
    rng = np.random.default_rng(11)
    n, d, m = (6, 6, 5) if orthonormal else (9, 4, 5)
    X = np.linalg.qr(rng.standard_normal((d, d)))[0][:n] if orthonormal else rng.standard_normal((n, d))
    W = rng.standard_normal((m, d))
    a = np.linalg.norm(W, axis=1) * rng.choice([-1.0, 1.0], m) if balanced else rng.standard_normal(m)
    problem = FlowProblem(X, rng.standard_normal(n), Init.explicit(a * 1e-3, W * 1e-3), horizon=1.0, time_unit="t")
    for trial in range(5):
        stepper = get_engine("float64").start(problem)
        assert stepper.balanced == balanced and stepper.basis.identity == orthonormal
        kink = rng.random((n, m)) < 0.3
        kink[:, trial % m] = False  # a neuron without a kink component keeps its state
        expected = _snap_one_by_one(stepper, kink)
        stepper.snap(kink)
        np.testing.assert_array_equal(stepper.y, expected)


def _linear_rows(crossings):
    """A watch of DEACTIVATE rows z_q(t) = crossing_q − t (each crosses 0 downwards at its crossing time) and the
    evaluator `first_crossing` expects."""
    k = len(crossings)
    watch = Watch(np.full(k, KINDS.index(EventKind.DEACTIVATE)), np.arange(k), np.zeros(k, dtype=int), np.ones(k),
                  np.zeros(k))
    crossings = np.asarray(crossings, dtype=float)

    def evaluator(sub):
        at = crossings[sub.data]
        return lambda t: at - t

    return watch, evaluator


@pytest.mark.parametrize("crossings,first", [([0.3 + 1e-9, 0.3, 0.3 + 2e-9], 1), ([0.3, 0.3, 0.6], 0),
                                             ([0.5, 0.2 + 1e-12, 0.2], 2)])
def test_first_crossing_takes_the_earliest_of_rows_crossing_together(crossings, first):
    watch, evaluator = _linear_rows(crossings)
    t, row = first_crossing(evaluator, watch, np.arange(len(crossings)), 0.0, 1.0)
    assert abs(t - crossings[first]) <= ROOT_TOL
    assert crossings[row] == crossings[first]


def test_first_crossing_mutant_taking_the_latest_is_refuted(monkeypatch):
    """Mutant: the root of the rows' maximum (the last of them to cross) instead of their minimum."""
    monkeypatch.setattr(np, "min", np.max)  # (numpy's own attribute, restored after the test)
    watch, evaluator = _linear_rows([0.3 + 1e-9, 0.3, 0.3 + 2e-9])
    t, _ = first_crossing(evaluator, watch, np.arange(3), 0.0, 1.0)
    assert not abs(t - 0.3) <= ROOT_TOL
