"""A tolerance is a promise (issue 20, item 2): for every rtol a user can set, a successful run's answers — event
times, jump times, plateau losses, the loss at the saved times — agree with a tight rerun (rtol 1e-12) within the
errors the two results report (`numerics.flows.vouch`); an rtol outside the engine's bounds is refused naming it.

The comparison: |answer − tight answer| ≤ error(answer) + error(tight answer) (both are bounds on the distance to the
flow). Jumps are matched by neuron, events component by component (as `vouch` matches them).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import FlowProblem, Status, solve
from relucheck.numerics.flows.engines.logscale import MAX_RTOL, MIN_RTOL
from relucheck.numerics.flows.vouch import _event_structure, _matched_events
from relucheck.testing.strategies import random_general_instance

RTOLS = [10.0 ** -k for k in range(2, 13)]  # 1e-2 … 1e-12
TIGHT = 1e-12


@functools.lru_cache(maxsize=64)
def run(sizes: tuple, seed: int, lam: str, horizon: float, rtol: float):
    n, d, m = sizes
    problem = FlowProblem.from_instance(random_general_instance(n, d, m, seed), lam, horizon=horizon,
                                        save_at=tuple(np.linspace(0.0, horizon, 9)))
    return solve(problem, "float64", rtol=rtol, atol=rtol / 100)


def worst_ratio(res, ref) -> float:
    """max |answer − tight| / (error + tight's error) over every answer of a vouched-for run."""
    e, f = res.errors, ref.errors
    ratios = [np.abs(res.trajectory.loss - ref.trajectory.loss) / (np.array(e["trajectory"]) + f["trajectory"])]
    if e["jumps"] is None or f["jumps"] is None:  # a run not at rest by twice its end (`vouch.not_at_rest`): its jump
        assert "not vouched for" in (res.message if e["jumps"] is None else ref.message)  # times and plateaus say so
        return float(max(r.max() for r in ratios if r.size))
    ratios.append(np.abs(np.subtract(res.plateaus, ref.plateaus)) / (np.array(e["plateaus"]) + f["plateaus"]))
    tight_jumps = {jp.neuron: (jp.tau, bound) for jp, bound in zip(ref.jumps, f["jumps"], strict=True)}
    assert sorted(jp.neuron for jp in res.jumps) == sorted(tight_jumps)
    ratios.append(np.array([abs(jp.tau - tight_jumps[jp.neuron][0]) / (bound + tight_jumps[jp.neuron][1])
                            for jp, bound in zip(res.jumps, e["jumps"], strict=True)]))
    if e["events"] is not None and f["events"] is not None:  # else the result says its event list is not vouched for
        if _event_structure(res, ref) is not None:
            return float("inf")  # a vouched-for event list that is not the tight run's: the promise is broken
        ratios.append(np.array([abs(u.tau - v.tau) / (e["events"] + f["events"]) for u, v in _matched_events(res, ref)]))
    return float(max((r.max() for r in ratios if r.size), default=0.0))


def check_promise(sizes, seed, lam, horizon, rtol):
    if not MIN_RTOL <= rtol <= MAX_RTOL:
        with pytest.raises(RelucheckInputError, match="rtol must be in"):
            run(sizes, seed, lam, horizon, rtol)
        return None
    ref = run(sizes, seed, lam, horizon, TIGHT)
    assume(ref.success)  # the tight run vouched for itself (else there is nothing to compare with)
    res = run(sizes, seed, lam, horizon, rtol)
    if not res.success:
        assert res.status in (Status.PRECISION, Status.TOLERANCE, Status.CHATTER), res.message
        return None
    assert res.errors["vouched"] and ref.errors["vouched"]
    ratio = worst_ratio(res, ref)
    assert ratio <= 1.0, (rtol, seed, ratio)
    return ratio


sizes_small = st.tuples(st.integers(3, 6), st.integers(2, 3), st.integers(2, 4))


@pytest.mark.parametrize("rtol", RTOLS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(sizes=sizes_small, seed=st.integers(0, 2**32 - 1))
def test_a_successful_run_is_within_its_reported_error_of_a_tight_rerun(rtol, sizes, seed):
    check_promise(sizes, seed, "1e-10", 3.0, rtol)


@pytest.mark.full
@pytest.mark.parametrize("rtol", RTOLS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(sizes=st.tuples(st.integers(6, 16), st.integers(3, 6), st.integers(3, 8)), seed=st.integers(0, 2**32 - 1))
def test_the_promise_on_larger_instances_at_small_lambda(rtol, sizes, seed):
    check_promise(sizes, seed, "1e-40", 6.0, rtol)


def test_the_reported_errors_cover_every_answer():
    res = run((6, 3, 5), 1, "1e-10", 16.0, 1e-6)  # past where the flow settles (τ = 15.8): at rest, every answer vouched
    assert res.stats["static_at_end"] and len(res.jumps) == 5
    assert res.success and res.errors["vouched"]
    assert len(res.errors["jumps"]) == len(res.jumps) and len(res.errors["plateaus"]) == len(res.plateaus)
    assert len(res.errors["trajectory"]) == len(res.trajectory.loss)
    assert res.errors["events"] > 0 and res.errors["final_loss"] > 0
    # 100× tighter, or the tightest rtol where the run recorded near ties (`LogScaleEngine.review`)
    assert res.errors["check"]["rtol"] == pytest.approx(1e-12 if res.stats["near_ties"] else 1e-8)


@pytest.mark.parametrize("rtol", [1e-3, 1e-13, float("nan"), True])
def test_an_rtol_without_a_promise_is_refused_with_the_reason(rtol):
    with pytest.raises(RelucheckInputError, match="rtol must be"):
        run((4, 2, 2), 0, "1e-10", 3.0, rtol)


def test_an_event_list_that_its_check_run_does_not_confirm_has_no_bound(monkeypatch):
    """Mutant: the check run misses the first event: the event times are not vouched for (no bound, the message says
    so) while the losses and jumps, which agree, are."""
    from relucheck.numerics.flows import vouch

    real = vouch.errors_against

    def fewer_events(res, check, problem, **kw):
        check.events = check.events[1:]
        return real(res, check, problem, **kw)

    monkeypatch.setattr(vouch, "errors_against", fewer_events)
    # to where the flow is at rest (it settles at τ = 15.8), so that the plateaus are vouched for
    problem = FlowProblem.from_instance(random_general_instance(6, 3, 5, 1), "1e-10", horizon=16.0)
    res = solve(problem, "float64")
    assert res.success and res.errors["vouched"] and res.errors["events"] is None
    assert "event times not vouched for" in res.message and res.errors["plateaus"]


def test_a_run_that_its_check_disagrees_with_is_not_a_success(monkeypatch):
    """Mutant: a check run whose plateau path differs (other jumps) must turn a success into TOLERANCE."""
    from relucheck.numerics.flows import vouch

    real = vouch.errors_against

    def against_other(res, check, problem, **kw):
        check.jumps = check.jumps[1:]  # the check run "saw" one jump fewer
        return real(res, check, problem, **kw)

    monkeypatch.setattr(vouch, "errors_against", against_other)
    # horizon past the first jump (τ = 5.0998; before it no neuron has grown and there is no jump to remove)
    problem = FlowProblem.from_instance(random_general_instance(6, 3, 5, 1), "1e-10", horizon=5.6)
    res = solve(problem, "float64")
    assert res.jumps and res.status is Status.TOLERANCE and not res.success
    assert "jumps" in res.message and res.errors["vouched"] is False


def test_the_mpmath_guard_gives_bounds_that_hold_against_a_tight_float64_run():
    # horizon past the first jump (τ = 2.4729; a run to τ = 2 has no neuron grown yet, hence no jump)
    problem = FlowProblem.from_instance(random_general_instance(4, 2, 3, 5), "1e-10", horizon=3.0,
                                        save_at=tuple(np.linspace(0.0, 3.0, 5)))
    res = solve(problem, "mpmath", digits=20, guard=True)
    ref = solve(problem, "float64", rtol=TIGHT, atol=TIGHT / 100)
    assert res.success and ref.success and res.errors["vouched"] and res.jumps
    assert worst_ratio(res, ref) <= 1.0
    unguarded = solve(problem, "mpmath", digits=20)
    assert unguarded.errors["vouched"] is False and "a priori" in unguarded.errors["method"]


def test_engine_gd_says_its_answer_has_no_bound_to_the_flow():
    problem = FlowProblem.from_instance(random_general_instance(4, 2, 3, 5), "1e-10", horizon=0.5)
    res = solve(problem, "gd", step=0.05)
    assert res.errors["vouched"] is False and "gradient descent" in res.errors["reason"]


def sweep(draws: int, big: bool = False) -> dict:
    """The worst ratio |answer − tight| / (error + tight's error) per rtol over ``draws`` drawn instances (seed 2026):
    ``python tests/test_engine_tolerance.py [DRAWS] [big]`` prints it (docs/engines.md quotes it)."""
    rng = np.random.default_rng(2026)
    lam, horizon = ("1e-40", 6.0) if big else ("1e-10", 3.0)
    out = {r: [0, 0, 0.0] for r in RTOLS}  # successes, other statuses, worst ratio
    for _ in range(draws):
        sizes = (int(rng.integers(6, 17)), int(rng.integers(3, 7)), int(rng.integers(3, 9))) if big else \
            (int(rng.integers(3, 7)), int(rng.integers(2, 4)), int(rng.integers(2, 5)))
        seed = int(rng.integers(0, 2**32))
        ref = run(sizes, seed, lam, horizon, TIGHT)
        for r in (r for r in RTOLS if MIN_RTOL <= r <= MAX_RTOL and ref.success):
            res = run(sizes, seed, lam, horizon, r)
            out[r][0 if res.success else 1] += 1
            if res.success:
                out[r][2] = max(out[r][2], worst_ratio(res, ref))
        run.cache_clear()
    return out


if __name__ == "__main__":
    import sys

    table = sweep(int(sys.argv[1]) if len(sys.argv) > 1 else 60, big="big" in sys.argv[2:])
    for r, (ok, other, worst) in table.items():
        print(f"rtol {r:.0e}: refused" if not MIN_RTOL <= r <= MAX_RTOL else
              f"rtol {r:.0e}: {ok} successes, {other} other statuses, worst ratio {worst:.3g}")
