"""Direct tests of Algorithm 1 (`theory.limit_process`, `theory.limit_process_exact`) and of Proposition 2(i)
(`theory.interpolation_probability`): hand-derived exact values, the float and exact versions field by field,
the JSON records pinned key by key, and the interpolation probability against a brute-force enumeration of the
mask run through Algorithm 1 itself.
"""
import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.instances import Instance
from relucheck.theory import interpolation_probability as ip
from relucheck.theory import limit_process as lpm
from relucheck.theory import limit_process_exact as lpe

# Hand instance H (n = 3, m = 3): y = (2, −2, 1), s = (+1, −1, +1), act rows = data, columns = neurons.
# A_0 = {0} (row 1 is wrong-sign), A_1 = {1}, A_2 = {0, 2}; c = 1/3, rates 2/3, 2/3, √5/3.
# Neuron 2 jumps at τ_1 = 3/√5 (S_1 = {0, 2}); then neuron 0 has S = ∅ and neuron 1 reaches 0 at
# τ_2 = τ_1 + (1 − 2/√5)·3/2 = 3/2 (S_2 = {1}).
H_Y, H_S = [2, -2, 1], [1, -1, 1]
H_ACT = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
R5 = sp.sqrt(5)
H_EXPECTED = {
    "taus": [3 / R5, sp.Rational(3, 2)], "neurons": [2, 1], "fitted": [[0, 2], [1]], "norm_y": [R5, sp.Integer(2)],
    "exponents": [[1 - 2 / R5, 1 - 2 / R5, 0], [1 - 2 / R5, 0, 0]],
    "plateaus": [sp.Rational(3, 2), sp.Rational(2, 3), sp.Integer(0)],
    "a": [sp.Integer(0), -sp.sqrt(2), sp.root(5, 4)],
    "W": [[0, 0, 0], [0, sp.sqrt(2), 0], [2 / sp.root(5, 4), 0, 1 / sp.root(5, 4)]],
    "squared_norm": 2 * (R5 + 2), "min_norm_squared": 2 * (R5 + 2),
}


def same(x, y):
    return sp.simplify(sp.sympify(x) - sp.sympify(y)) == 0


def test_exact_hand_instance():
    ex = lpe.limit_process_exact(H_Y, H_S, H_ACT)
    e = H_EXPECTED
    assert [jp.neuron for jp in ex.jumps] == e["neurons"] and [jp.fitted for jp in ex.jumps] == e["fitted"]
    assert all(same(jp.tau, t) for jp, t in zip(ex.jumps, e["taus"]))
    assert all(same(jp.norm_y, v) for jp, v in zip(ex.jumps, e["norm_y"]))
    for jp, row in zip(ex.jumps, e["exponents"]):
        assert len(jp.exponents) == 3 and all(same(u, v) for u, v in zip(jp.exponents, row))
    assert ex.plateaus == e["plateaus"]
    assert all(same(u, v) for u, v in zip(ex.a, e["a"]))
    assert all(same(u, v) for r1, r2 in zip(ex.W_data, e["W"]) for u, v in zip(r1, r2))
    assert same(ex.squared_norm, e["squared_norm"]) and same(ex.min_norm_squared, e["min_norm_squared"])
    assert ex.interpolates is True and ex.ties == []


def test_float_hand_instance():
    lp = lpm.limit_process(np.array(H_Y, float), np.array(H_S, float), H_ACT)
    e = H_EXPECTED
    np.testing.assert_allclose(lp.taus, [float(t) for t in e["taus"]], rtol=1e-15)
    assert [jp.neuron for jp in lp.jumps] == e["neurons"] and [jp.fitted for jp in lp.jumps] == e["fitted"]
    np.testing.assert_allclose([jp.norm_y for jp in lp.jumps], [float(v) for v in e["norm_y"]], rtol=1e-15)
    for jp, row in zip(lp.jumps, e["exponents"]):
        np.testing.assert_allclose(jp.exponents, [float(v) for v in row], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lp.plateaus, [float(v) for v in e["plateaus"]], rtol=1e-15)
    np.testing.assert_allclose(lp.a, [float(v) for v in e["a"]], rtol=1e-15)
    np.testing.assert_allclose(lp.W_data, [[float(v) for v in row] for row in e["W"]], rtol=1e-15)
    assert lp.squared_norm == pytest.approx(float(e["squared_norm"]), rel=1e-15)
    assert lp.min_norm_squared == pytest.approx(float(e["min_norm_squared"]), rel=1e-15)
    assert lp.interpolates is True and lp.ties == []
    # the segments of eq. (11): starts and slopes
    np.testing.assert_allclose(lp.segment_start, [[1, 1, 1], [1 - 2 / 5**0.5] * 2 + [0], [1 - 2 / 5**0.5, 0, 0]],
                               rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lp.segment_rates, [[2 / 3, 2 / 3, 5**0.5 / 3], [0, 2 / 3, 0], [0, 0, 0]], rtol=1e-15)


def test_exponents_loss_and_horizon_along_the_hand_process():
    lp = lpm.limit_process(H_Y, H_S, H_ACT)
    t1, t2 = 3 / 5**0.5, 1.5
    np.testing.assert_array_equal(lp.exponents_at(0.0), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(lp.exponents_at(1.0), [1 / 3, 1 / 3, 1 - 5**0.5 / 3], rtol=1e-14)
    mid = (t1 + t2) / 2
    np.testing.assert_allclose(lp.exponents_at(mid), [1 - 2 / 5**0.5, 1 - 2 / 5**0.5 - (mid - t1) * 2 / 3, 0.0],
                               rtol=1e-13)
    np.testing.assert_allclose(lp.exponents_at(t1), lp.jumps[0].exponents, atol=1e-15)
    np.testing.assert_allclose(lp.exponents_at(7.0), [1 - 2 / 5**0.5, 0, 0], rtol=1e-14, atol=1e-15)
    assert [lp.loss_at(0.0), lp.loss_at(1.0), lp.loss_at(mid), lp.loss_at(t2), lp.loss_at(9.0)] == \
        pytest.approx([1.5, 1.5, 2 / 3, 0.0, 0.0], rel=1e-15)
    assert lp.flow_horizon() == pytest.approx(2.0, rel=1e-15)
    assert lp.flow_horizon(0.25) == pytest.approx(1.75, rel=1e-15)
    for bad in (-1e-9, math.inf, math.nan):
        with pytest.raises(RelucheckInputError, match=rf"accelerated time τ must be finite and ≥ 0, got {bad!r}"):
            lp.exponents_at(bad)
        with pytest.raises(RelucheckInputError):
            lp.loss_at(bad)


def test_no_jump_process():
    lp = lpm.limit_process([1.0, -1.0], [1.0], np.array([[False], [True]]))
    assert lp.jumps == [] and lp.taus.tolist() == [] and not lp.interpolates
    assert lp.flow_horizon() == 1.5 and lp.flow_horizon(0.0) == 1.0
    np.testing.assert_array_equal(lp.exponents_at(3.0), [1.0])
    assert lp.plateaus == [0.5] and lp.squared_norm == 0.0 and lp.min_norm_squared == 4.0


def test_non_interpolating_process():
    # n = 2, m = 1, y = (1, −1), s = +1, active on both: S_1 = {0} at τ = 1/(c·1) = 2; row 1 stays
    for run in (lpm.limit_process([1, -1], [1], [[1], [1]]), lpe.limit_process_exact([1, -1], [1], [[1], [1]])):
        assert [float(jp.tau) for jp in run.jumps] == [2.0] and run.jumps[0].fitted == [0]
        assert [float(p) for p in run.plateaus] == [0.5, 0.25]
        assert run.interpolates is False
        assert float(run.squared_norm) == 2.0 and float(run.min_norm_squared) == 4.0


def test_weights():
    lp = lpm.limit_process(H_Y, H_S, H_ACT)
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(lp.weights(X), lp.W_data @ X, rtol=0)
    got = lp.weights([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(2)], [Fraction(1), Fraction(1)]])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, lp.W_data @ X, rtol=0)
    np.testing.assert_allclose(lp.weights(np.eye(3)), lp.W_data, rtol=0)
    for bad in (np.ones(3), np.ones((2, 3)), np.ones((4, 2))):
        with pytest.raises(RelucheckInputError) as info:
            lp.weights(bad)
        assert str(info.value) == f"X must have n = 3 rows, got shape {bad.shape}"


def test_float_to_json_exactly():
    lp = lpm.limit_process(H_Y, H_S, H_ACT)
    out = lp.to_json()
    assert list(out) == ["jumps", "interpolates", "squared_norm", "min_norm_squared", "loss_plateaus", "ties", "final"]
    assert out["jumps"] == [{"tau": lp.jumps[0].tau, "neuron": 2, "fitted": [0, 2], "norm_y": lp.jumps[0].norm_y},
                            {"tau": 1.5, "neuron": 1, "fitted": [1], "norm_y": 2.0}]
    assert out["interpolates"] is True and out["ties"] == []
    assert out["squared_norm"] == lp.squared_norm and out["min_norm_squared"] == lp.min_norm_squared
    assert out["loss_plateaus"] == lp.plateaus
    assert out["final"] == {"a": lp.a.tolist(), "W_data": lp.W_data.tolist()}
    json.dumps(out)


# -- ties ----------------------------------------------------------------------------------------------

def test_exact_tie_between_signs():
    # n = 2, y = (2, −2), s = (+1, −1), each neuron on its own row: both hit at τ = 1 (c = 1/2, rates 1)
    act = np.eye(2, dtype=bool)
    ex = lpe.limit_process_exact([2, -2], [1, -1], act)
    assert [jp.neuron for jp in ex.jumps] == [0, 1]
    assert [jp.tau for jp in ex.jumps] == [1, 1]
    assert ex.ties == [{"iteration": 1, "neurons": [0, 1], "tau": 1}]
    assert ex.jumps[0].exponents == [0, 0] and ex.jumps[1].exponents == [0, 0]
    assert ex.a == [sp.sqrt(2), -sp.sqrt(2)] and ex.min_norm_squared == 8 and ex.squared_norm == 8
    fl = lpm.limit_process([2, -2], [1, -1], act)
    assert fl.ties == [{"iteration": 1, "neurons": [0, 1], "tau": 1.0}]
    assert [jp.neuron for jp in fl.jumps] == [0, 1] and fl.taus.tolist() == [1.0, 1.0]
    js = ex.to_json()
    assert js["ties"] == [{"iteration": 1, "neurons": [0, 1], "tau": {"exact": "1", "value": 1.0}}]


def test_three_way_tie_and_a_later_tie_iteration():
    # neurons 1 and 2 tie at iteration 2 (after neuron 0 fits row 0 alone)
    y = [4, 1, 1, 1, 1]
    act = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=bool)
    ex = lpe.limit_process_exact(y, [1, 1, 1], act)
    assert [jp.neuron for jp in ex.jumps] == [0, 1, 2]
    assert ex.ties == [{"iteration": 2, "neurons": [1, 2], "tau": sp.Rational(5, 1) * sp.sqrt(2) / 2}]
    fl = lpm.limit_process(y, [1, 1, 1], act)
    assert len(fl.ties) == 1 and fl.ties[0]["iteration"] == 2 and fl.ties[0]["neurons"] == [1, 2]
    assert fl.ties[0]["tau"] == pytest.approx(5 / 2**0.5, rel=1e-15)
    act3 = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    ex3 = lpe.limit_process_exact([1, 1, 1], [1, 1, 1], act3)
    # after neuron 0, the other two sit at u = 0: a second tie at the same time
    assert ex3.ties == [{"iteration": 1, "neurons": [0, 1, 2], "tau": 3}, {"iteration": 2, "neurons": [1, 2], "tau": 3}]
    fl3 = lpm.limit_process([1, 1, 1], [1, 1, 1], act3)
    assert fl3.ties == [{"iteration": 1, "neurons": [0, 1, 2], "tau": 3.0}, {"iteration": 2, "neurons": [1, 2], "tau": 3.0}]
    assert [jp.neuron for jp in ex3.jumps] == [0, 1, 2]


def test_tie_tolerance_of_the_float_version():
    # hit times 1/‖y‖·n differ by the relative amount δ between the two neurons
    act = np.eye(2, dtype=bool)
    for delta, tied in ((1e-13, True), (1e-11, False)):
        lp = lpm.limit_process([1.0, 1.0 + delta], [1.0, 1.0], act)
        assert bool(lp.ties) == tied
        assert [jp.neuron for jp in lp.jumps] == ([0, 1] if tied else [1, 0])
    lp = lpm.limit_process([1.0, 1.0 + 1e-13], [1.0, 1.0], act, tie_rtol=0.0)
    assert lp.ties == [] and [jp.neuron for jp in lp.jumps] == [1, 0]
    lp = lpm.limit_process([1.0, 1.0], [1.0, 1.0], act, tie_rtol=0.0)  # exact tie: recorded even with rtol 0
    assert lp.ties == [{"iteration": 1, "neurons": [0, 1], "tau": 2.0}]
    lp = lpm.limit_process([1.0, 1.1], [1.0, 1.0], act, tie_rtol=0.2)
    assert lp.ties[0]["neurons"] == [0, 1]
    inst = Instance(np.eye(2), np.array([1.0, 1.0 + 1e-13]), np.eye(2), np.ones(2))
    assert lpm.limit_process_of(inst).ties and not lpm.limit_process_of(inst, tie_rtol=0.0).ties
    for bad in (-1.0, math.inf, math.nan):
        with pytest.raises(RelucheckInputError, match="tie_rtol must be finite and ≥ 0"):
            lpm.limit_process([1.0, 1.0], [1.0, 1.0], act, tie_rtol=bad)


# -- float against exact, field by field ----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_float_and_exact_agree_on_every_field(seed):
    rng = np.random.default_rng([seed, 12])
    n, m = int(rng.integers(2, 6)), int(rng.integers(1, 4))
    y = [int(v) for v in rng.choice([-3, -2, -1, 1, 2, 3, 5], n)]
    s = [int(v) for v in rng.choice([-1, 1], m)]
    act = rng.random((n, m)) < 0.6
    fl, ex = lpm.limit_process(y, s, act), lpe.limit_process_exact(y, s, act)
    assert [(j.neuron, j.fitted) for j in fl.jumps] == [(j.neuron, j.fitted) for j in ex.jumps]
    for jf, je in zip(fl.jumps, ex.jumps):
        assert jf.tau == pytest.approx(float(je.tau), rel=1e-12)
        assert jf.norm_y == pytest.approx(float(je.norm_y), rel=1e-14)
        np.testing.assert_allclose(jf.exponents, [float(u) for u in je.exponents], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(fl.plateaus, [float(p) for p in ex.plateaus], rtol=1e-14)
    np.testing.assert_allclose(fl.a, [float(v) for v in ex.a], rtol=1e-14)
    np.testing.assert_allclose(fl.W_data, [[float(v) for v in row] for row in ex.W_data], rtol=1e-14)
    assert fl.squared_norm == pytest.approx(float(ex.squared_norm), rel=1e-14)
    assert fl.min_norm_squared == pytest.approx(float(ex.min_norm_squared), rel=1e-14)
    assert fl.interpolates == ex.interpolates
    assert [(t["iteration"], t["neurons"]) for t in fl.ties] == [(t["iteration"], t["neurons"]) for t in ex.ties]
    # the independent facts: plateau k is the loss of the unfitted rows, min-norm from the label norms
    unfitted = set(range(n))
    for k, jp in enumerate(ex.jumps):
        assert ex.plateaus[k] == sp.Rational(sum(y[i] ** 2 for i in unfitted), 2 * n)
        unfitted -= set(jp.fitted)
    pos = math.sqrt(sum(v * v for v in y if v > 0))
    neg = math.sqrt(sum(v * v for v in y if v < 0))
    assert float(ex.min_norm_squared) == pytest.approx(2 * (pos + neg), rel=1e-14)


def test_exact_to_json_exactly():
    ex = lpe.limit_process_exact(H_Y, H_S, H_ACT)
    out = ex.to_json()
    assert list(out) == ["jumps", "interpolates", "squared_norm", "min_norm_squared", "loss_plateaus", "ties", "final"]

    def check(entry, value):
        assert list(entry) == ["exact", "value"]
        assert same(sp.sympify(entry["exact"]), value)
        assert entry["value"] == float(value) and isinstance(entry["value"], float)

    e = H_EXPECTED
    assert [list(j) for j in out["jumps"]] == [["tau", "neuron", "fitted", "norm_y"]] * 2
    for j, tau, neuron, fitted, norm in zip(out["jumps"], e["taus"], e["neurons"], e["fitted"], e["norm_y"]):
        check(j["tau"], tau)
        check(j["norm_y"], norm)
        assert j["neuron"] == neuron and j["fitted"] == fitted
    assert out["interpolates"] is True and out["ties"] == []
    check(out["squared_norm"], e["squared_norm"])
    check(out["min_norm_squared"], e["min_norm_squared"])
    assert len(out["loss_plateaus"]) == 3
    for entry, value in zip(out["loss_plateaus"], e["plateaus"]):
        check(entry, value)
    assert list(out["final"]) == ["a", "W_data"]
    for entry, value in zip(out["final"]["a"], e["a"]):
        check(entry, value)
    assert len(out["final"]["W_data"]) == 3
    for row, want in zip(out["final"]["W_data"], e["W"]):
        assert len(row) == 3
        for entry, value in zip(row, want):
            check(entry, value)
    json.dumps(out)


# -- exact arithmetic helpers -------------------------------------------------------------------------

def test_exact_sign():
    assert lpe.exact_sign(0) == 0 and lpe.exact_sign(sp.Integer(0)) == 0
    assert lpe.exact_sign(1) == 1 and lpe.exact_sign(-1) == -1
    assert lpe.exact_sign(-sp.sqrt(2)) == -1 and lpe.exact_sign(sp.sqrt(2) - 1) == 1
    assert lpe.exact_sign(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6))) == 0
    tiny = sp.sqrt(sp.Integer(10) ** 140 + 1) - sp.Integer(10) ** 70  # ≈ 5·10^-71: beyond the 60-digit screen
    assert lpe.exact_sign(tiny) == 1 and lpe.exact_sign(-tiny) == -1
    assert lpe.exact_sign(sp.Rational(1, 10**60)) == 1 and lpe.exact_sign(-sp.Rational(1, 10**60)) == -1
    assert lpe.exact_sign("3/7") == 1


def test_exact_number():
    assert lpe.exact_number(3) == 3 and lpe.exact_number(np.int64(-2)) == -2
    assert lpe.exact_number(" 3/2 ") == sp.Rational(3, 2) and lpe.exact_number("-0.25") == sp.Rational(-1, 4)
    assert lpe.exact_number(0.1) == sp.Rational(3602879701896397, 36028797018963968)  # the binary value
    assert lpe.exact_number(np.float64(1.5)) == sp.Rational(3, 2)
    assert lpe.exact_number(sp.Rational(5, 3)) == sp.Rational(5, 3) and lpe.exact_number(sp.Integer(4)) == 4
    assert isinstance(lpe.exact_number(sp.Integer(4)), sp.Rational)
    with pytest.raises(RelucheckInputError) as info:
        lpe.exact_number(sp.sqrt(2))
    assert str(info.value) == "label must be rational for the exact Algorithm 1, got sqrt(2)"
    with pytest.raises(RelucheckInputError) as info:
        lpe.exact_number(sp.sqrt(3), "sign")
    assert str(info.value) == "sign must be rational for the exact Algorithm 1, got sqrt(3)"
    for bad in ("abc", "1/0", ""):
        with pytest.raises(RelucheckInputError) as info:
            lpe.exact_number(bad, "label 4")
        assert str(info.value) == f"label 4 {bad!r} is not a number"
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(RelucheckInputError) as info:
            lpe.exact_number(bad)
        assert str(info.value) == f"label must be finite, got {bad!r}"


def test_limit_process_exact_input_errors():
    act = np.ones((3, 1), bool)
    with pytest.raises(HypothesisViolation) as info:
        lpe.limit_process_exact([1, 2, 0], [1], act)
    assert info.value.detail == "label 2 is 0" and info.value.hypothesis == lpm.NONZERO_LABELS
    with pytest.raises(RelucheckInputError) as info:
        lpe.limit_process_exact([1, "q", 2], [1], act)
    assert str(info.value) == "label 1 'q' is not a number"
    with pytest.raises(RelucheckInputError) as info:
        lpe.limit_process_exact([1, 2, 3], ["z"], act)
    assert str(info.value) == "sign 'z' is not a number"
    with pytest.raises(RelucheckInputError) as info:
        lpe.limit_process_exact([1, 2, 3], [sp.sqrt(2)], act)
    assert str(info.value) == "sign must be rational for the exact Algorithm 1, got sqrt(2)"
    message = "labels must be non-empty and signs a non-empty list of ±1"
    for labels, signs in (([], [1]), ([1, 2, 3], []), ([1, 2, 3], [2]), ([1, 2, 3], [1, 0]), ([], [])):
        with pytest.raises(RelucheckInputError) as info:
            lpe.limit_process_exact(labels, signs, act)
        assert str(info.value) == message
    with pytest.raises(RelucheckInputError) as info:
        lpe.limit_process_exact([1, 2, 3], [1, -1], act)
    assert str(info.value) == "activation must have shape (n, m) = (3, 2), got (3, 1)"


def test_limit_process_exact_accepts_numeric_activation_and_float_labels():
    act = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    ex = lpe.limit_process_exact([0.5, -1.5, 2.0], [1.0, -1.0], act)
    fl = lpm.limit_process([0.5, -1.5, 2.0], [1.0, -1.0], act.astype(bool))
    assert [(j.neuron, j.fitted) for j in ex.jumps] == [(j.neuron, j.fitted) for j in fl.jumps]
    assert ex.plateaus[0] == sp.Rational(13, 12)  # (1/4 + 9/4 + 4)/6


# -- Proposition 2(i) ------------------------------------------------------------------------------------

def interpolation_by_enumeration(n_plus, n_minus, m):
    """P(Algorithm 1 interpolates) over fair activation and output signs, by running it on every draw."""
    y = [1.0] * n_plus + [-1.0] * n_minus
    n = len(y)
    count = 0
    for signs in itertools.product((1.0, -1.0), repeat=m):
        for bits in itertools.product((False, True), repeat=n * m):
            act = np.array(bits).reshape(n, m)
            count += lpm.limit_process(y, signs, act).interpolates
    return Fraction(count, 2 ** (m + n * m))


@pytest.mark.parametrize("n_plus, n_minus, m", [(1, 0, 1), (1, 1, 2), (2, 1, 2), (0, 2, 3), (2, 0, 2)])
def test_interpolation_probability_by_enumeration(n_plus, n_minus, m):
    assert ip.all_rows_nonzero_probability(n_plus, n_minus, m) == interpolation_by_enumeration(n_plus, n_minus, m)


def test_all_rows_nonzero_probability_exact_sums():
    got = ip.all_rows_nonzero_probability(3, 2, 4)
    want = sum(Fraction(math.comb(4, k), 16) * (1 - Fraction(1, 2**k)) ** 3 * (1 - Fraction(1, 2 ** (4 - k))) ** 2
               for k in range(5))
    assert got == want and isinstance(got, Fraction)
    assert ip.all_rows_nonzero_probability(0, 1, 1) == Fraction(1, 4)


def test_row_union_lower_bound():
    assert ip.row_union_lower_bound(2, 3, 4) == 1 - 5 * Fraction(81, 256)
    # columns: − (m + m(m − 1)/4)·2^{−min(n_+, n_−)} = −(4 + 3)/4
    assert ip.row_union_lower_bound(2, 3, 4, columns=True) == 1 - 5 * Fraction(81, 256) - Fraction(7, 4)
    assert ip.row_union_lower_bound(5, 3, 3, columns=True) == 1 - 8 * Fraction(27, 64) - Fraction(9, 2) / 8
    assert ip.row_union_lower_bound(1, 0, 1) == Fraction(1, 4)
    assert isinstance(ip.row_union_lower_bound(2, 3, 4, columns=True), Fraction)
    for n_plus, n_minus, m in ((3, 4, 2), (10, 12, 15), (1, 1, 3)):
        exact = ip.all_rows_nonzero_probability(n_plus, n_minus, m)
        assert ip.row_union_lower_bound(n_plus, n_minus, m) <= exact
        assert ip.row_union_lower_bound(n_plus, n_minus, m, columns=True) <= ip.row_union_lower_bound(n_plus, n_minus, m)


@pytest.mark.parametrize("args, message", [
    ((-1, 2, 3), "n_+ must be a non-negative integer, got -1"),
    ((1.5, 2, 3), "n_+ must be a non-negative integer, got 1.5"),
    ((2, -3, 3), "n_- must be a non-negative integer, got -3"),
    ((2, 0.5, 3), "n_- must be a non-negative integer, got 0.5"),
    ((2, 2, 0), "width m must be a positive integer, got 0"),
    ((2, 2, 1.5), "width m must be a positive integer, got 1.5"),
    ((0, 0, 3), "need at least one data point (n_+ + n_- ≥ 1)"),
])
def test_interpolation_probability_argument_checks(args, message):
    for f in (ip.all_rows_nonzero_probability, ip.row_union_lower_bound):
        with pytest.raises(RelucheckInputError) as info:
            f(*args)
        assert str(info.value) == message


def test_flow_horizon_uses_the_last_of_three_jumps():
    # three neurons, each on its own row, y = (3, 2, 1): jumps at τ = 1, 3/2, 3 (c = 1/3)
    lp = lpm.limit_process([3.0, 2.0, 1.0], [1.0, 1.0, 1.0], np.eye(3, dtype=bool))
    assert lp.taus.tolist() == pytest.approx([1.0, 1.5, 3.0], rel=1e-15)
    assert lp.flow_horizon() == pytest.approx(3.5, rel=1e-15) and lp.flow_horizon(1.0) == pytest.approx(4.0, rel=1e-15)


def test_validate_inputs_messages():
    act = np.ones((2, 1), bool)
    cases = [
        (([[1.0, 2.0]], [1.0], act), "labels must be a non-empty 1-D array, got shape (1, 2)"),
        (([], [1.0], np.ones((0, 1), bool)), "labels must be a non-empty 1-D array, got shape (0,)"),
        (([1.0, math.nan], [1.0], act), "labels must be finite; non-finite label at index 1"),
        (([1.0, -math.inf, 2.0], [1.0], np.ones((3, 1), bool)), "labels must be finite; non-finite label at index 1"),
        (([1.0, -2e100], [1.0], act),
         "labels: |y_i| must be ≤ 1e+100 (products of three data values summed over n terms must stay finite in float64), "
         "got y_1 = -2e+100"),
        (([1.0, 2.0], [[1.0]], act), "signs must be a non-empty 1-D array of ±1"),
        (([1.0, 2.0], [], np.ones((2, 0), bool)), "signs must be a non-empty 1-D array of ±1"),
        (([1.0, 2.0], [1.0, 2.0], np.ones((2, 2), bool)), "signs must be a non-empty 1-D array of ±1"),
        (([1.0, 2.0], [1.0], np.array([[1], [2]])), "activation must be boolean (or 0/1)"),
        (([1.0, 2.0], [1.0], np.array([[0.5], [1.0]])), "activation must be boolean (or 0/1)"),
    ]
    for args, text in cases:
        with pytest.raises(RelucheckInputError) as info:
            lpm.validate_inputs(*args)
        assert str(info.value) == text
    y, s, a = lpm.validate_inputs([1, -1e100], [1], np.array([[1], [0]]))  # the bound itself is allowed
    assert y.dtype == np.float64 and s.dtype == np.float64 and a.dtype == bool and a.tolist() == [[True], [False]]


def test_exact_rational_labels_and_signs_give_the_float_process():
    y = [Fraction(3, 2), Fraction(-1, 4), Fraction(2)]
    s = [Fraction(1), Fraction(-1)]
    act = np.array([[1, 0], [1, 1], [1, 0]], dtype=bool)
    got, want = lpm.limit_process(y, s, act), lpm.limit_process([1.5, -0.25, 2.0], [1.0, -1.0], act)
    assert got.labels.dtype == np.float64 and got.signs.dtype == np.float64
    assert got.to_json() == want.to_json()


def test_process_keeps_its_inputs():
    lp = lpm.limit_process(H_Y, H_S, H_ACT.astype(int))
    assert lp.labels.tolist() == [2.0, -2.0, 1.0] and lp.signs.tolist() == [1.0, -1.0, 1.0]
    assert lp.activation.dtype == bool and lp.activation.tolist() == H_ACT.tolist()


def test_exact_process_small_positive_labels_and_no_jump():
    ex = lpe.limit_process_exact(["1/2", "-3/4"], [1, -1], np.eye(2, dtype=bool))
    # ‖y_+‖ = 1/2, ‖y_−‖ = 3/4
    assert ex.min_norm_squared == sp.Rational(5, 2) and ex.squared_norm == sp.Rational(5, 2)
    none = lpe.limit_process_exact([1, -1], [1], [[False], [True]])
    assert none.jumps == [] and none.squared_norm == 0 and isinstance(none.squared_norm, sp.Basic)
    assert none.plateaus == [sp.Rational(1, 2)] and none.interpolates is False
    assert none.to_json()["squared_norm"] == {"exact": "0", "value": 0.0}
