"""`relucheck limit` and `numerics.lambda_limit` (issue 24): the λ → 0 limit by extrapolation in 1/ln(1/λ).

* the extrapolation on synthetic laws: exact on the assumed law, never a confident wrong answer on laws outside it
  (λ^c terms, ln ln(1/λ)/ln(1/λ), 1/√ln(1/λ)), which must come out inconclusive or covered;
* drawn orthonormal instances: every error bar covers Algorithm 1's exact jump time (SymPy,
  `theory.limit_process_exact`), and the same quantity without extrapolation (the finest rung ± its engine error)
  does not — the coverage check can fail;
* the golden example: the fitted first-order coefficient C_1 is the known correction (`theory.first_jump`);
* a general instance: the fitted law predicts a flow outside the ladder within the error bars;
* the command: --json, --plot, bad input exits 2 with one message.
Long runs (default ladder, λ = 1e-10000) are marked full.
"""
import json
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from relucheck.api import flow, limit
from relucheck.numerics import datasets
from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import Instance
from relucheck.numerics.lambda_limit import DEFAULT_LADDER, extrapolate, lam_of
from relucheck.proofs_checks.checks.paper_c_instances import golden_instance
from relucheck.proofs_checks.cli import main
from relucheck.testing.strategies import random_general_instance
from relucheck.theory.first_jump import first_jump
from relucheck.theory.limit_process_exact import limit_process_exact

FAST_LADDER = (50.0, 100.0, 200.0, 400.0)  # ln(1/λ): a few seconds a ladder on n ≤ 3


# -- the extrapolation on synthetic laws --------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.floats(-1e3, 1e3), st.floats(-20, 20), st.floats(-100, 100))
def test_the_assumed_law_is_extrapolated_and_covered(limit_value, C, D):
    L = np.array(DEFAULT_LADDER)
    q = limit_value + C / L + D / L**2
    est = extrapolate(L, q, [1e-12 * max(1.0, abs(limit_value))] * len(L))
    assert est.ok, est.reason
    assert abs(est.value - limit_value) <= est.error
    assert est.coefficients[1] == pytest.approx(C, abs=1e-6 * max(1.0, abs(limit_value)))


@settings(max_examples=200, deadline=None)
@given(st.floats(-20, 20), st.floats(-100, 100), st.floats(-1000, 1000))
def test_a_cubic_term_is_covered_or_inconclusive(C, D, E):
    """With x³ terms the order-1/order-2 disagreement can cancel on the coarser rungs (D = −4, E = 239): the settling
    test then says inconclusive, which is allowed; a bar that misses is not."""
    L = np.array(DEFAULT_LADDER)
    est = extrapolate(L, 1.0 + C / L + D / L**2 + E / L**3, [1e-12] * len(L))
    assert not est.ok or abs(est.value - 1.0) <= est.error


@settings(max_examples=300, deadline=None)
@given(st.floats(-3, 3), st.floats(-4, 0), st.floats(-5, 5), st.floats(-3, 3), st.floats(-50, 50))
def test_laws_outside_the_assumption_are_inconclusive_or_covered(A, log_c, B, C, D):
    """λ^c terms (A e^{−c L}), a ln ln(1/λ)/ln(1/λ) term (B ln L / L) and more: never a bar that misses."""
    L = np.array(DEFAULT_LADDER)
    q = 1.0 + C / L + D / L**2 + B * np.log(L) / L + A * np.exp(-(10.0**log_c) * L)
    est = extrapolate(L, q, [1e-12] * len(L))
    assert not est.ok or abs(est.value - 1.0) <= est.error, (est.value, est.error, est.extrapolants)


def test_a_slow_power_of_lambda_is_inconclusive():
    L = np.array(DEFAULT_LADDER)
    est = extrapolate(L, 1.0 + 2.0 / np.sqrt(L), [1e-12] * len(L))
    assert not est.ok and "not settled" in est.reason


def test_missing_engine_bound_is_inconclusive():
    L = np.array(DEFAULT_LADDER)
    est = extrapolate(L, 1.0 + 1.0 / L, [1e-12, None, 1e-12, 1e-12])
    assert not est.ok and "no error bound" in est.reason


def test_lambda_strings_parse_to_the_rung():
    from relucheck.numerics.scale import InitScale

    for L in (100.0, 3000.0, 23025.85):
        assert InitScale.of(lam_of(L)).log_inv == pytest.approx(L, rel=1e-15)


# -- orthonormal data against Algorithm 1 -------------------------------------------------------------------------

def _orthonormal(seed, n, m):
    rng = np.random.default_rng(seed)
    X = datasets.orthonormal_inputs(n, n + 1, rng, rotate=True)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(0.3, 3.0, n)
    return Instance(X, y, datasets.random_directions(m, n + 1, rng), datasets.random_signs(m, rng), {"seed": seed})


def _covers_algorithm_1(inst, ladder):
    exact = limit_process_exact(inst.labels.tolist(), inst.signs.tolist(), inst.activation())
    assume(not exact.ties)  # C Assumption 4(ii): with a tie Algorithm 1 continues with one neuron, the flow with both
    result = limit(inst, ladder=ladder)
    concluded = [j for j in result.jumps if j.ok]
    assert len(concluded) <= len(exact.jumps)
    for k, j in enumerate(result.jumps):
        if not j.ok:
            continue
        ref = exact.jumps[k]
        assert (j.neuron, list(j.fitted)) == (ref.neuron, list(ref.fitted)), (k, j, ref)
        assert abs(j.value - float(ref.tau)) <= j.error, (k, j.value, float(ref.tau), j.error)
    for k, p in enumerate(result.plateaus):
        if p.ok and k < len(exact.plateaus):
            assert abs(p.value - float(exact.plateaus[k])) <= p.error, (k, p.value, float(exact.plateaus[k]), p.error)
    return result, exact


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 3), st.integers(1, 2))
def test_error_bars_cover_algorithm_1_on_drawn_orthonormal_instances(seed, n, m):
    result, exact = _covers_algorithm_1(_orthonormal(seed, n, m), FAST_LADDER)
    # and without extrapolation (the finest rung ± its engine error) they would not: the check can fail
    for j, ref in zip(result.jumps, exact.jumps):
        if j.ok and abs(j.coefficients[1]) > 1e-3:
            assert abs(j.samples[-1] - float(ref.tau)) > j.engine_errors[-1]


@pytest.mark.full
@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 5), st.integers(2, 4))
def test_error_bars_cover_algorithm_1_default_ladder(seed, n, m):
    _covers_algorithm_1(_orthonormal(seed, n, m), DEFAULT_LADDER)


def test_golden_first_order_coefficient_is_the_known_correction():
    """C_1 of the fit is theory.first_jump's C_1 = ln(√‖y_S1‖/κ)/γ (spec C §2.6): 0.7737903…, on the default ladder."""
    from numpy.polynomial import polynomial as P

    result = limit(golden_instance())
    j1 = result.jumps[0]
    assert j1.ok and abs(j1.value - 0.8) <= j1.error
    x = 1.0 / np.array([r["log_inv_lambda"] for r in result.ladder])[-3:]  # the ladder as run (maybe extended)
    q, e = np.array(j1.samples[-3:]), np.array(j1.engine_errors[-3:])
    # the slope's error: its truncation, measured by the order-1 slope through the two finest rungs (twice the
    # difference, as for the limit's bar), and the engines' errors through the slope's linear weights
    slope_rows = np.linalg.pinv(P.polyvander(x, 2))[1]
    order1 = (q[-2] - q[-1]) / (x[-2] - x[-1])
    tolerance = 2 * abs(j1.coefficients[1] - order1) + np.abs(slope_rows) @ e
    assert abs(j1.coefficients[1] - first_jump(golden_instance()).constant) <= tolerance
    assert tolerance < 1e-3  # and the check says something: C_1 to three digits at least


# -- general data: the fitted law predicts a flow outside the ladder ------------------------------------------------

def _predicts(inst, ladder, lam):
    result = limit(inst, ladder=ladder)
    run = flow(inst, lam, engine="auto")
    assert run.success, run.message
    checked = 0
    for k, j in enumerate(result.jumps):
        if not j.ok:
            continue
        assert k < len(run.jumps) and run.jumps[k].neuron == j.neuron
        value, error = j.predict(run.log_inv_lambda)
        assert abs(run.jumps[k].tau - value) <= error + run.errors["jumps"][k], (k, run.jumps[k].tau, value, error)
        checked += 1
    return result, checked


def test_general_instance_prediction_outside_the_ladder():
    result, checked = _predicts(random_general_instance(3, 2, 2, 0), FAST_LADDER, lam_of(1500.0))
    assert checked >= 1, result.message


@pytest.mark.full
@pytest.mark.parametrize("seed", [0, 1])
def test_general_instance_prediction_at_lambda_1e_minus_10000(seed):
    _predicts(random_general_instance(3, 2, 2, seed), DEFAULT_LADDER, "1e-10000")


# -- the command ------------------------------------------------------------------------------------------------------

def test_limit_command_json_and_plot(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    code = main(["limit", str(path), "--ladder", ",".join(str(v) for v in FAST_LADDER), "--json",
                 "--plot", str(tmp_path / "fig.pdf"), "--predict", "1e-1000"])
    out = json.loads(capsys.readouterr().out)
    pred = out["prediction"]  # q* + C x + D x² at ln(1/λ) = 2302.6, as a user computed by hand
    assert pred["log_inv_lambda"] == pytest.approx(1000 * math.log(10))
    for est, p in zip(out["jumps"], pred["jumps"]):
        if est["status"] == "ok":
            q, C, D = est["coefficients"]
            x = 1.0 / pred["log_inv_lambda"]
            assert p["value"] == pytest.approx(q + C * x + D * x * x, abs=1e-12) and p["error"] == est["error"]
    assert all(r["rtol"] == 1e-10 for r in out["ladder"])
    assert code == (0 if out["status"] == "success" else 3)
    assert [j["neuron"] for j in out["jumps"]] == [0, 1]
    assert [r["log_inv_lambda"] for r in out["ladder"]] == list(FAST_LADDER)
    assert out["algorithm_1"]["jumps"][0]["tau"] == pytest.approx(0.8)
    assert all((tmp_path / f"fig.{ext}").stat().st_size > 0 for ext in ("pdf", "png", "csv"))


@pytest.mark.parametrize("argv, needle", [
    (["--ladder", "100,300"], "at least 4"),
    (["--ladder", "100,300,x,1000"], "--ladder"),
    (["--ladder", "5,300,1000,3000"], "≥ 10"),
    (["--ladder", "100,100,1000,3000"], "distinct"),
    (["--engine", "gd"], "--engine"),
    (["--rtol", "1"], "--rtol"),
    (["--budget", "-1"], "--budget"),
    (["--target", "0"], "--target"),
    (["--extend-to", "nan"], "--extend-to"),
    (["--predict", "1e-10"], "finest rung"),  # ln(1/λ) = 23 < 3000: the fitted law's bar does not hold there
    (["--predict", "abc"], "--predict"),
])
def test_limit_bad_input_exits_2(tmp_path, capsys, argv, needle):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    with pytest.raises(SystemExit) if argv[0] in ("--rtol", "--budget") else _nothing():
        code = main(["limit", str(path), *argv])
        assert code == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) <= 3


def test_limit_spent_budget_exits_3(tmp_path, capsys):
    path = tmp_path / "golden.json"
    golden_instance().save(path)
    assert main(["limit", str(path), "--budget", "0.05"]) == 3
    captured = capsys.readouterr()
    assert "status: budget" in captured.out and "inconclusive" in captured.err


def test_limit_missing_file_exits_2(tmp_path, capsys):
    assert main(["limit", str(tmp_path / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err


def test_api_ladder_is_checked():
    with pytest.raises(RelucheckInputError, match="at least 4"):
        limit(golden_instance(), ladder=(100, 300, 1000))
    with pytest.raises(RelucheckInputError, match="finite"):
        limit(golden_instance(), ladder=(100, 300, 1000, math.inf))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_simultaneous_jumps_match_in_any_listed_order_but_distinct_times_do_not():
    from types import SimpleNamespace as NS

    from relucheck.numerics.flows import Jump
    from relucheck.numerics.lambda_limit import _matched, _ordered

    def run(*jumps):
        return NS(jumps=[Jump(t, j, (0,)) for t, j in jumps], errors={"jumps": [1e-10] * len(jumps)})

    same = [run((1.0, 2), (1.0, 1), (3.0, 0)), run((0.9, 1), (0.9, 2), (2.9, 0))]
    assert _matched([_ordered(r) for r in same]) == (3, "")
    apart = [run((1.0, 2), (1.1, 1)), run((0.9, 1), (1.0, 2))]  # the order changes with λ: inconclusive from jump 1
    k, why = _matched([_ordered(r) for r in apart])
    assert k == 0 and "differs across the ladder" in why


def test_predict_human_output_names_each_quantity(capsys):
    from relucheck.proofs_checks.commands.limit import _print_prediction

    _print_prediction({"lambda": "1e-10000", "log_inv_lambda": 23025.85, "law": "q* + C·x + D·x², x = 1/ln(1/λ)",
                       "jumps": [{"neuron": 2, "status": "ok", "value": 1.25, "error": 3e-9},
                                 {"neuron": 0, "status": "inconclusive", "reason": "jump 2 differs across the ladder"}],
                       "plateaus": [{"status": "ok", "value": 0.5, "error": 1e-10}]})
    out = capsys.readouterr().out
    assert "jump 1 (neuron 2): 1.25 ± 3e-9" in out and "inconclusive: jump 2 differs" in out and "plateau 0" in out
