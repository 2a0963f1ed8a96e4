"""The closed-form ODE checker (theory/ode_checker.py) and `relucheck check-ode`."""
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.proofs_checks.cli import main
from relucheck.theory.ode_checker import check_ode, parse_problem, safe_parse

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "ode"


def _logistic(rate_factor: str, r_lo: float, K: float):
    return {"time": "t", "state": ["x"], "parameters": {"r": [r_lo, r_lo + 1], "x0": [0.05, 0.5]},
            "equations": {"x": f"r*x*(1 - x/{K})"}, "initial": {"x": "x0"},
            "solution": {"x": f"{K}*x0*exp({rate_factor}*r*t)/({K} + x0*(exp({rate_factor}*r*t) - 1))"},
            "time_span": [0, 3]}


def test_blank_padded_expressions_are_verified():
    """Leading and trailing blanks in every expression field are layout, not tokens."""
    problem = _logistic("1", 0.5, 2)
    problem["equations"]["x"] = "  " + problem["equations"]["x"] + " "
    problem["initial"]["x"] = " x0"
    problem["solution"]["x"] = "\t" + problem["solution"]["x"] + "  "
    out = check_ode(parse_problem(problem))
    assert out["status"] == "verified", out["message"]


@settings(max_examples=6, deadline=None)
@given(r_lo=st.floats(0.1, 2.0), K=st.sampled_from([1, 2, 5, 10]))
def test_random_logistic_verified_and_perturbed_rate_refuted(r_lo, K):
    good = check_ode(parse_problem(_logistic("1", r_lo, K)))
    assert good["status"] == "verified", good["message"]
    bad = check_ode(parse_problem(_logistic("(1 + 1/7)", r_lo, K)))
    assert bad["status"] == "refuted"
    assert bad["integration"]["max_discrepancy"] > bad["integration"]["tolerance"]


@settings(max_examples=6, deadline=None)
@given(k=st.integers(1, 5), shift=st.sampled_from(["0", "1/1000", "t/50"]))
def test_linear_system_exponential(k, shift):
    problem = {"time": "t", "state": ["y"], "parameters": {"a": [-1, 1], "y0": [-2, 2]},
               "equations": {"y": f"{k}*a*y"}, "initial": {"y": "y0"},
               "solution": {"y": f"y0*exp({k}*a*t) + {shift}"}, "time_span": [0, 2]}
    out = check_ode(parse_problem(problem))
    assert out["status"] == ("verified" if shift == "0" else "refuted"), out


def test_wrong_initial_condition_refuted():
    problem = _logistic("1", 0.5, 2)
    problem["solution"]["x"] = "2*x0*exp(r*t)/(2 + x0*(exp(r*t) - 1)) + 1/100"
    out = check_ode(parse_problem(problem))
    assert out["status"] == "refuted" and out["initial"]["x"]["verdict"] == "refuted"


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "x.__class__", "lambda: 1", "[x]",
                                  "x if x else 1", "open", "eval", "'x'", "x; x", "1j*x", "Symbol('y')"])
def test_unsafe_or_unknown_input_rejected_naming_the_field(text):
    with pytest.raises(RelucheckInputError, match="field 'solution.x'"):
        safe_parse(text, "solution.x", {"x": __import__("sympy").Symbol("x")})


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("equations"), "field 'equations' is missing"),
    (lambda d: d["parameters"].update(r=[2, 1]), "parameters.r"),
    (lambda d: d.update(state=["x", "t"]), "distinct"),
    (lambda d: d["solution"].update(x="x0*exp(r*t"), "solution.x"),
    (lambda d: d["solution"].update(x="x*2"), "solution.x"),  # a candidate may not use the state
    (lambda d: d.update(time_span=[1, 2]), "time_span"),
    (lambda d: d.update(state=["exp"]), "reserved"),
])
def test_bad_problem_files(mutate, message):
    data = _logistic("1", 0.5, 2)
    mutate(data)
    with pytest.raises(RelucheckInputError, match=message):
        parse_problem(data)


@pytest.mark.parametrize("name, code", [("logistic_correct.json", 0), ("paper_b_group_paper_67_69.json", 1),
                                        ("paper_b_group_paper_rho0_one.json", 0)])
def test_cli_exit_codes_and_json(name, code, capsys):
    assert main(["check-ode", str(EXAMPLES / name), "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == ("verified" if code == 0 else "refuted")


def test_cli_bad_file_is_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"time": "t", "state": ["x"], "equations": {"x": "x"}, "initial": {"x": "1"},
                               "solution": {"x": "__import__('os')"}}))
    assert main(["check-ode", str(bad)]) == 2
    assert "solution.x" in capsys.readouterr().err
    (tmp_path / "nojson.json").write_text("{")
    assert main(["check-ode", str(tmp_path / "nojson.json")]) == 2


def test_a_decision_that_takes_long_says_so_and_how_long_it_may_take(monkeypatch, capsys):
    from relucheck.proofs_checks.commands import check_ode as command

    monkeypatch.setattr(command, "NOTE_AFTER", 0.0)  # 10 s in relucheck: any decision is "long" here
    example = sorted(EXAMPLES.glob("*.json"))[0]
    assert main(["check-ode", str(example), "--budget", "50"]) in (0, 1, 3)
    assert f"{example}: still deciding after 0 s; it ends within its budget of 50 s (--budget)" in capsys.readouterr().err
