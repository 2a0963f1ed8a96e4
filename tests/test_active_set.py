"""Engine "float64" on orthonormal data integrates only the components that can move (`numerics.flows.engines.active_set`).

Two claims, each able to fail: the compressed field is the full field (active components, ρ, and the frozen ones as
one scale per neuron), and a run with the compressed form finds the same events and jumps as the full form.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.flows.engines import logscale
from relucheck.numerics.flows.engines.active_set import ActiveSet, eligible
from relucheck.numerics.flows.filippov import Pattern
from relucheck.numerics.flows.registry import get_engine
from relucheck.testing.strategies import orthonormal_instances

FIELD_RTOL = 1e-13  # the two forms differ only in the order of floating-point operations (sums of ≤ n + 1 terms)
# Both runs at rtol 1e-10 from the same state: their event times differ by the integrators' error, of order rtol times
# the events' time scale (measured: ≤ 1.9e-11 on these instances). Jump times differ more (measured 4.2e-8, 3.9e-7:
# a half-crossing of ‖θ_j‖² on a plateau end is ill-conditioned) and are compared against the runs' own bounds.
EVENT_TOL = 1e-9


def _stepper_and_pattern(instance, lam, seed):
    problem = FlowProblem.from_instance(instance, lam, horizon=1.0)
    stepper = get_engine("float64").start(problem)
    rng = np.random.default_rng(seed)
    m = problem.m
    stepper.y = stepper.y.copy()
    stepper.y[:m] += rng.uniform(0.0, 0.9, m) * problem.log_inv_lambda  # some neurons grown, some still small
    stepper.y[m:] += 0.1 * rng.standard_normal(stepper.y.size - m)
    _, _, phi_w = stepper._parts(stepper.y)
    pattern = Pattern.of_signs(stepper.basis.pre(phi_w))
    stepper.pattern = pattern
    return stepper, pattern


@settings(max_examples=25, deadline=None)
@given(orthonormal_instances(), st.sampled_from(["1e-3", "1e-40"]), st.integers(0, 2**16))
def test_the_compressed_field_is_the_full_field(instance, lam, seed):
    stepper, pattern = _stepper_and_pattern(instance, lam, seed)
    assert eligible(stepper, pattern)
    active = ActiveSet(stepper, pattern, logscale.EXP_CAP)
    yc = active.compress(stepper.y)
    np.testing.assert_array_equal(active.expand(yc), stepper.y)  # the segment starts where the full state is
    full = stepper._rhs(0.0, stepper.y)
    small = active.rhs(0.0, yc)
    m = stepper.m
    scale = np.abs(full).max()
    np.testing.assert_allclose(small[:m], full[:m], rtol=0, atol=FIELD_RTOL * scale)
    np.testing.assert_allclose(small[2 * m:], full[active.full_idx], rtol=0, atol=FIELD_RTOL * scale)
    # a frozen component moves as its neuron's scale μ_j: dψ_ij/ds = ψ_ij dμ_j/ds (μ_j = 1 at the segment's start)
    frozen = np.setdiff1d(np.arange(m, stepper.y.size), active.full_idx)
    neuron = (frozen - m) // active.width
    np.testing.assert_allclose(stepper.y[frozen] * small[m:2 * m][neuron], full[frozen], rtol=0,
                               atol=FIELD_RTOL * scale)


def _events(result):
    return [(e.kind, e.neuron, e.datum) for e in result.events], np.array([e.tau for e in result.events])


@pytest.mark.parametrize("seed", [0, 1])
def test_a_run_with_the_compressed_form_finds_the_same_events_and_jumps(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    n, m = 24, 8
    from relucheck.numerics import datasets
    from relucheck.numerics.instances import Instance

    instance = Instance(np.eye(n), rng.standard_normal(n), datasets.random_directions(m, n, rng),
                        datasets.random_signs(m, rng))
    problem = FlowProblem.from_instance(instance, "1e-40", horizon=None, max_horizon=40.0)
    compressed = solve(problem, "float64")
    assert compressed.stats.get("basis") == "data"
    monkeypatch.setattr(logscale, "eligible", lambda *args: False)
    full = solve(problem, "float64")
    assert compressed.status == full.status and compressed.success
    kinds_c, taus_c = _events(compressed)
    kinds_f, taus_f = _events(full)
    assert kinds_c == kinds_f and len(kinds_c) > 0
    assert np.abs(taus_c - taus_f).max() <= EVENT_TOL
    assert [jp.neuron for jp in compressed.jumps] == [jp.neuron for jp in full.jumps] and compressed.jumps
    # jump times and the final loss: within the sum of the two runs' own error bounds (`numerics.flows.vouch`)
    for k, (a, b) in enumerate(zip(compressed.jumps, full.jumps, strict=True)):
        assert abs(a.tau - b.tau) <= compressed.errors["jumps"][k] + full.errors["jumps"][k]
    assert abs(compressed.final_loss - full.final_loss) <= \
        compressed.errors["final_loss"] + full.errors["final_loss"]
