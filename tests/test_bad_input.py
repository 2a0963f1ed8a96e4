"""Bad input to every command: exit 2, one message naming the argument or field and the violated condition,
no traceback, and an end within 30 s (issue 12, items 1, 2 and 7).

Most cases run in process through `cli.main` (the same error boundary as the console script) under a
30 s alarm; a handful run the installed console script and ``python -m relucheck`` as real subprocesses.
"""
import contextlib
import io
import json
import signal
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from relucheck.numerics.budget import BudgetExceeded, run_with_budget
from relucheck.proofs_checks import cli
from relucheck.theory.extremal_vectors import extremal_vectors

LIMIT_SECONDS = 30
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "ode"
SCRIPT = Path(sys.executable).with_name("relucheck")

INSTANCE = {"inputs": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], "labels": [1, -2, 0.5],
            "directions": [[0.5, 0.5, 0.5, 0.5], [0.5, -0.5, 0.5, -0.5]], "signs": [1, -1]}
DATA = {"inputs": [[1, 0.5], [-0.3, 1], [0.2, -1], [-1, -0.4]], "labels": [1, -0.5, 0.7, -1.2]}
ODE = json.loads((EXAMPLES / "logistic_correct.json").read_text())
RECORD = {"id": "C.prop1.flow_across_events", "check": "C.prop1.flow_across_events", "status": "verified",
          "prediction": 1, "measurement": 1, "tolerance": 0, "tolerance_reason": "", "message": ""}


def _with(base: dict, **changes) -> dict:
    out = json.loads(json.dumps(base))
    out.update(changes)
    return out


def _ode(**expressions) -> dict:
    return _with(ODE, equations={"x": expressions.get("x", ODE["equations"]["x"])})


# name → file content (a dict/list is written as JSON, a str or bytes as is)
FILES = {
    "instance.json": INSTANCE,
    "not_json.json": "this is not JSON",
    "empty.json": "",
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "latin1.json": b'{"labels": "\xe9"}',
    "list.json": [1, 2, 3],
    "inst_unknown_key.json": _with(INSTANCE, foo=1, bar=2),
    "inst_no_labels.json": {k: v for k, v in INSTANCE.items() if k != "labels"},
    "inst_string_sign.json": _with(INSTANCE, signs=["1", "-1"]),
    "inst_string_label.json": _with(INSTANCE, labels=[1, "2", 3]),
    "inst_bool_label.json": _with(INSTANCE, labels=[1, True, 3]),
    "inst_huge_labels.json": _with(INSTANCE, labels=[1e160, -2e160, 1e160]),
    "inst_ragged.json": _with(INSTANCE, inputs=[[1, 0, 0, 0], [0, 1, 0], [0, 0, 1, 0]]),
    "inst_short_labels.json": _with(INSTANCE, labels=[1, 2]),
    "inst_nan.json": json.dumps(INSTANCE).replace("0.5]", "NaN]"),
    "inst_overflow.json": json.dumps(INSTANCE).replace('"labels": [1,', '"labels": [1e400,'),
    "inst_half_sign.json": _with(INSTANCE, signs=[1, 0.5]),
    "inst_not_orthonormal.json": _with(INSTANCE, inputs=[[1, 0, 0, 0], [0.6, 0.8, 0, 0], [0, 0, 1, 0]]),
    "inst_not_unit.json": _with(INSTANCE, directions=[[1, 1, 0, 0], [0, 0, 1, 0]]),
    "inst_empty.json": _with(INSTANCE, inputs=[], labels=[]),
    "inst_meta_list.json": _with(INSTANCE, meta=[1, 2]),
    "inst_long_int.json": json.dumps(INSTANCE).replace('"labels": [1,', '"labels": [' + "9" * 5000 + ","),
    "data_d4.json": _with(DATA, inputs=[[1, 0, 0, 0]] * 4),
    "data_string_label.json": _with(DATA, labels=["1", -0.5, 0.7, -1.2]),
    "data_unknown_key.json": _with(DATA, weights=[1]),
    "data_too_many.json": {"inputs": [[1, 0, 0]] * 3000, "labels": [1] * 3000},  # the estimate is far beyond 60 s
    "data_no_labels.json": {"inputs": DATA["inputs"]},
    "data_overflow.json": json.dumps(DATA).replace("[1, 0.5]", "[1e400, 0.5]"),
    "data_ragged.json": _with(DATA, inputs=[[1, 0.5], [-0.3], [0.2, -1], [-1, -0.4]]),
    "data_bool.json": _with(DATA, inputs=[[True, 0.5], [-0.3, 1], [0.2, -1], [-1, -0.4]]),
    "ode_slow.json": _ode(x="(((((((x**2)**2)**2)**2)**2)**2)**2)**2"),
    # the logistic equation plus an exact zero, (sin²t + cos²t − 1)·x²⁵⁶: the candidate solves it, its simplification
    # outlives a 1 s budget, and at the sample points (x up to K = 10) the zero is rounding times 10²⁵⁶
    "ode_slow_identity.json": _ode(x="r*x*(1 - x/K) + (sin(t)**2 + cos(t)**2 - 1)*(((((((x**2)**2)**2)**2)**2)**2)**2)**2"),
    "ode_tower.json": _ode(x="9**9**9**9"),
    "ode_blank_bad_token.json": _ode(x="  x % 2 "),
    "ode_nested_powers.json": _ode(x="((((x**10)**10)**10)**10)"),
    "ode_big_exponent.json": _ode(x="x**1000"),
    "ode_product_exponent.json": _ode(x="2**(99*99*99*99)"),
    "ode_long_literal.json": _ode(x="1" * 40 + "*x"),
    "ode_long_expression.json": _ode(x="+".join(["x"] * 1200)),
    "ode_deep.json": _ode(x="-" * 1500 + "x"),
    "ode_dunder.json": _ode(x="__import__('os').system('true')"),
    "ode_float_overflow.json": _ode(x="1e999*x"),
    "ode_unknown_key.json": _with(ODE, extra="x"),
    "ode_string_range.json": _with(ODE, parameters={"r": ["0.1", "3"], "K": [1, 10], "x0": [0.01, 0.9]}),
    "ode_string_span.json": _with(ODE, time_span=[0, "5"]),
    "ode_state_string.json": _with(ODE, state="x"),
    "ode_bool_equation.json": _ode(x=True),
    "results_object.json": {"records": []},
    "results_unknown_key.json": [_with(RECORD, bogus=1)],
    "results_bad_status.json": [_with(RECORD, status="great")],
    "results_no_status.json": [{k: v for k, v in RECORD.items() if k != "status"}],
    "results_duplicate_id.json": [RECORD, _with(RECORD, status="refuted")],
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad_input")
    for name, content in FILES.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content))
    (root / "a_directory").mkdir()
    return root


# (arguments with {f} for the files' directory, substrings the message must contain)
CASES = [
    # list
    ("list --paper D", ["--paper 'D'", "unknown paper", "registered papers are"]),
    ("list surplus", ["unrecognized arguments: surplus"]),
    ("list --paper", ["argument --paper", "expected one argument"]),
    # run
    ("run --seed -1", ["argument --seed", "numpy seeds are non-negative"]),
    ("run --seed abc", ["argument --seed", "integer seed"]),
    ("run --seed 1.5", ["argument --seed", "integer seed"]),
    ("run --suite nope", ["argument --suite", "invalid choice"]),
    ("run --only no-such-check --out {f}/out", ["--only 'no-such-check'", "no check"]),
    ("run --out {f}/instance.json", ["--out", "instance.json: is a file, not a directory"]),
    ("run --out {f}/instance.json/sub", ["--out", "instance.json is a file, not a directory"]),
    # show
    ("show C.nope", ["ID 'C.nope'", "unknown check or statement id"]),
    ("show", ["the following arguments are required: id"]),
    ("show C.prop1 --results {f}/not_json.json", ["results file", "not valid JSON"]),
    ("show C.prop1 --results {f}/a_directory", ["results file", "is a directory"]),
    ("show C.prop1 --results {f}/deep.json", ["results file", "nested too deeply"]),
    ("show C.prop1 --results {f}/results_object.json", ["results file", "expected a list"]),
    ("show C.prop1 --results {f}/results_unknown_key.json", ["field '[0]'", "unknown field(s) 'bogus'"]),
    ("show C.prop1 --results {f}/results_bad_status.json", ["field '[0].status'", "must be one of"]),
    ("report --appendix --results {f}/results_duplicate_id.json --out {f}/o", ["--results", "record 1 repeats the id"]),
    ("show C.prop1 --results {f}/results_no_status.json", ["field '[0].status' is missing"]),
    # limit-process: the instance schema
    ("limit-process {f}/missing.json", ["instance file", "missing.json: not found"]),
    ("limit-process {f}/a_directory", ["instance file", "is a directory"]),
    ("limit-process /dev/zero", ["instance file /dev/zero", "not a regular file"]),
    ("limit-process {f}/not_json.json", ["not_json.json", "not valid JSON"]),
    ("limit-process {f}/empty.json", ["empty.json", "not valid JSON"]),
    ("limit-process {f}/deep.json", ["deep.json", "nested too deeply"]),
    ("limit-process {f}/latin1.json", ["latin1.json", "not UTF-8"]),
    ("limit-process {f}/list.json", ["list.json", "expected a JSON object"]),
    ("limit-process {f}/inst_unknown_key.json", ["unknown field(s) 'bar', 'foo'"]),
    ("limit-process {f}/inst_no_labels.json", ["field 'labels' is missing"]),
    ("limit-process {f}/inst_string_sign.json", ["field 'signs[0]'", "expected a number, got a string"]),
    ("limit-process {f}/inst_string_label.json", ["field 'labels[1]'", "expected a number, got a string"]),
    ("limit-process {f}/inst_bool_label.json", ["field 'labels[1]'", "got a boolean"]),
    ("limit-process {f}/inst_huge_labels.json", ["field 'labels[0]'", "must be ≤ 1e+100", "got 1e+160"]),
    ("limit-process {f}/inst_ragged.json", ["field 'inputs[1]'", "has 3 entries but d = 4"]),
    ("limit-process {f}/inst_short_labels.json", ["field 'labels'", "has 2 entries but n = 3"]),
    ("limit-process {f}/inst_nan.json", ["inst_nan.json", "NaN is not a JSON number"]),
    ("limit-process {f}/inst_overflow.json", ["field 'labels[0]'", "must be finite"]),
    ("limit-process {f}/inst_half_sign.json", ["field 'signs[1]'", "must be one of [-1, 1]"]),
    ("limit-process {f}/inst_not_orthonormal.json", ["inst_not_orthonormal.json", "Assumption 1"]),
    ("limit-process {f}/inst_not_unit.json", ["directions must be unit vectors", "row 0"]),
    ("limit-process {f}/inst_empty.json", ["field 'inputs'", "n = 0 is outside [1,"]),
    ("limit-process {f}/inst_meta_list.json", ["field 'meta'", "expected an object"]),
    ("limit-process {f}/inst_long_int.json", ["inst_long_int.json", "has 5000 digits; numbers must fit float64"]),
    ("limit-process", ["the following arguments are required: instance"]),
    # flow: generic input only (its engines are tested with them)
    ("flow {f}/missing.json --lam 1e-10", ["instance file", "not found"]),
    ("flow {f}/not_json.json --lam 1e-10", ["not valid JSON"]),
    ("flow {f}/inst_unknown_key.json --lam 1e-10", ["unknown field(s) 'bar', 'foo'"]),
    ("flow {f}/instance.json --lam abc", ["argument --lam", "decimal number in (0, 1)"]),
    ("flow {f}/instance.json --lam 0", ["argument --lam", "decimal number in (0, 1)"]),
    ("flow {f}/instance.json --lam 1.5", ["argument --lam", "must be < 1"]),
    ("flow {f}/instance.json", ["the following arguments are required: --lam"]),
    ("flow {f}/instance.json --lam 1e-10 --engine nope", ["--engine nope: unknown engine 'nope'", "available"]),
    ("flow {f}/instance.json --lam 1e-10 --precision 100000", ["argument --precision", "must be in [15, 1000]"]),
    ("flow {f}/instance.json --lam 1e-10 --horizon inf", ["argument --horizon", "finite"]),
    ("flow {f}/instance.json --lam 1e-10 --engine gd --step 0", ["argument --step", "in (0, 100]"]),
    ("flow {f}/instance.json --lam 1e-10 --engine gd --step nan", ["argument --step", "finite"]),
    ("flow {f}/instance.json --lam 1e-10 --step 0.1", ["--step is the step of engine 'gd'", "'auto'"]),
    ("flow {f}/instance.json --lam 1e-1000 --engine gd --step 1e-9", ["--step", "needs 7.33e+12 gradient-descent steps",
                                                                      "at most 1e+08"]),
    # check-ode: schema, expression limits, budget options
    ("check-ode {f}/missing.json", ["ODE file", "not found"]),
    ("check-ode {f}/a_directory", ["ODE file", "is a directory"]),
    ("check-ode ''", ["ODE file ''", "an empty path"]),
    ("check-ode {f}/not_json.json", ["ODE file", "not valid JSON"]),
    ("check-ode --seed -1 {f}/instance.json", ["argument --seed", "non-negative"]),
    ("check-ode {f}/instance.json --budget 0", ["argument --budget", "seconds in (0, 86400]"]),
    ("check-ode {f}/instance.json --budget abc", ["argument --budget", "a number of seconds"]),
    ("check-ode {f}/instance.json --memory 1", ["argument --memory", "MiB"]),
    ("check-ode {f}/instance.json", ["unknown field(s)", "directions"]),
    ("check-ode {f}/ode_tower.json", ["field 'equations.x'", "power tower"]),
    ("check-ode {f}/ode_blank_bad_token.json", ["field 'equations.x'", "token '%' not allowed in 'x % 2'"]),
    ("check-ode {f}/ode_nested_powers.json", ["field 'equations.x'", "nested powers reach degree 10000"]),
    ("check-ode {f}/ode_big_exponent.json", ["field 'equations.x'", "|exponent| must be ≤ 100"]),
    ("check-ode {f}/ode_product_exponent.json", ["field 'equations.x'", "|exponent| must be ≤ 100"]),
    ("check-ode {f}/ode_long_literal.json", ["field 'equations.x'", "more than 30 digits"]),
    ("check-ode {f}/ode_long_expression.json", ["field 'equations.x'", "at most 2000"]),
    ("check-ode {f}/ode_deep.json", ["field 'equations.x'", "nested deeper than 40"]),
    ("check-ode {f}/ode_dunder.json", ["field 'equations.x'", "unknown name '__import__'"]),
    ("check-ode {f}/ode_float_overflow.json", ["field 'equations.x'", "overflows float64"]),
    ("check-ode {f}/ode_unknown_key.json", ["unknown field(s) 'extra'"]),
    ("check-ode {f}/ode_string_range.json", ["field 'parameters.r[0]'", "expected a number, got a string"]),
    ("check-ode {f}/ode_string_span.json", ["field 'time_span[1]'", "expected a number, got a string"]),
    ("check-ode {f}/ode_state_string.json", ["field 'state'", "expected a list"]),
    ("check-ode {f}/ode_bool_equation.json", ["field 'equations.x'", "got a boolean"]),
    # extremal-vectors: the data schema
    ("extremal-vectors {f}/missing.json", ["data file", "not found"]),
    ("extremal-vectors {f}/a_directory", ["data file", "is a directory"]),
    ("extremal-vectors {f}/data_d4.json", ["field 'inputs[0]'", "d = 4 is outside [2, 3]"]),
    ("extremal-vectors {f}/data_string_label.json", ["field 'labels[0]'", "expected a number, got a string"]),
    ("extremal-vectors {f}/data_unknown_key.json", ["unknown field(s) 'weights'"]),
    ("extremal-vectors {f}/data_too_many.json", ["data file", "beyond the time budget of 60 s (--budget",
                                                  "n = 3000 points in d = 3"]),
    ("extremal-vectors {f}/data_no_labels.json", ["field 'labels' is missing"]),
    ("extremal-vectors {f}/data_overflow.json", ["field 'inputs[0][0]'", "must be finite"]),
    ("extremal-vectors {f}/data_ragged.json", ["field 'inputs[1]'", "has 1 entries but d = 2"]),
    ("extremal-vectors {f}/data_bool.json", ["field 'inputs[0][0]'", "got a boolean"]),
    # report
    ("report --paper D", ["argument --paper", "invalid choice"]),
    ("report", ["report: give --paper A|B|C, --appendix, or both"]),
    ("report --paper A --seed -2", ["argument --seed", "non-negative"]),
    ("report --paper A --out {f}/instance.json", ["--out", "is a file, not a directory"]),
    ("report --appendix --results {f}/missing.json --out {f}/rep", ["--results: no results file", "relucheck run"]),
    ("report --appendix --results {f}/not_json.json --out {f}/rep", ["--results: results file", "not valid JSON"]),
    ("report --appendix --results {f}/results_bad_status.json --out {f}/rep", ["field '[0].status'", "must be one of"]),
    ("report --appendix --results {f}/results_object.json --out {f}/rep", ["--results: results file", "expected a list"]),
    # the command itself
    ("", ["the following arguments are required: command"]),
    ("frobnicate", ["argument command", "invalid choice: 'frobnicate'"]),
]


class _CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException, so the error boundary cannot turn it into an exit code."""


def _alarm(signum, frame):
    raise _CaseTimeout(f"no exit within {LIMIT_SECONDS} s")


def run_in_process(argv) -> tuple[int, str, str]:
    """`cli.main(argv)` with captured output, under a LIMIT_SECONDS alarm; argparse's SystemExit is its code."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, LIMIT_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def _argv(args: str, files) -> list[str]:
    return [word.replace("''", "") for word in args.format(f=files).split()]  # '' is an empty argument


@pytest.mark.parametrize("args, expected", CASES, ids=[c[0].replace("{f}/", "") or "(none)" for c in CASES])
def test_bad_input_exits_2_naming_the_problem(args, expected, files):
    code, _, err = run_in_process(_argv(args, files))
    assert code == 2, err
    assert "Traceback" not in err
    for text in expected:
        assert text in err, f"{text!r} not in {err!r}"
    if not err.startswith("usage:"):  # argparse's usage errors are two lines (usage, then the error)
        assert err.startswith("relucheck: error: ") and err.count("\n") == 1, err


def test_at_least_sixty_cases_across_every_command():
    commands = {c[0].split()[0] if c[0] else "" for c in CASES}
    assert len(CASES) >= 60
    assert {"list", "run", "show", "limit-process", "flow", "check-ode", "extremal-vectors", "report"} <= commands


@pytest.mark.parametrize("runner, args, expected", [
    ("script", "limit-process {f}/a_directory", "is a directory"),
    ("script", "check-ode {f}/ode_tower.json", "power tower"),
    ("script", "limit-process {f}/inst_huge_labels.json", "must be ≤ 1e+100"),
    ("module", "limit-process {f}/deep.json", "nested too deeply"),
    ("module", "extremal-vectors {f}/data_string_label.json", "expected a number"),
    ("proofs_checks", "show C.prop1 --results {f}/not_json.json", "not valid JSON"),
])
def test_console_script_and_python_m(runner, args, expected, files):
    prefix = {"script": [str(SCRIPT)], "module": [sys.executable, "-m", "relucheck"],
              "proofs_checks": [sys.executable, "-m", "relucheck.proofs_checks"]}[runner]
    proc = subprocess.run(prefix + _argv(args, files), capture_output=True, text=True, timeout=LIMIT_SECONDS)
    assert proc.returncode == 2 and expected in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_closed_stdout_is_no_traceback_and_no_verdict():
    with subprocess.Popen([str(SCRIPT), "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()  # the reader is gone before the first line, like `relucheck list | head -0`
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=LIMIT_SECONDS) == cli.EXIT_PIPE_CLOSED
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_internal_error_hint_and_debug_traceback(monkeypatch):
    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli, "_cmd_list", broken)
    code, _, err = run_in_process(["list"])
    assert code == 2 and err.startswith("relucheck: internal error: ZeroDivisionError: a bug")
    assert "--debug" in err and "Traceback" not in err
    code, _, err = run_in_process(["list", "--debug"])
    assert code == 2 and "Traceback" in err and "ZeroDivisionError" in err
    code, _, err = run_in_process(["--debug", "list"])
    assert code == 2 and "Traceback" in err


def test_interrupt_is_130(monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_list", interrupted)
    code, _, err = run_in_process(["list"])
    assert code == cli.EXIT_INTERRUPTED and err == "relucheck: interrupted\n"


def test_check_ode_budget_ends_inconclusive_with_exit_3(files):
    """A decision that outlives its budget is inconclusive (exit 3), never a hang, and never a refutation made of
    rounding: the logistic equation plus (sin²t + cos²t − 1)·x²⁵⁶, which SymPy does not simplify within the budget,
    with its true solution; at DPS digits the exact zero leaves 10²⁰⁶ of garbage at x ≈ 10, which changes at 2·DPS
    digits and so refutes nothing (it was "refuted", exit 1, before that test)."""
    code, out, err = run_in_process(["check-ode", str(files / "ode_slow_identity.json"), "--budget", "1"])
    assert code == 3 and "inconclusive — budget exceeded" in out and "exit code 3" in err


def test_check_ode_refutes_at_the_sample_points_when_the_budget_runs_out(files):
    """x' = x^256 with the logistic candidate: SymPy's cancel runs for minutes, but the residual at the sample points
    is the same at DPS and 2·DPS digits and far above rounding: refuted (exit 1), saying the full check ran out."""
    code, out, err = run_in_process(["check-ode", str(files / "ode_slow.json"), "--budget", "1"])
    assert code == 1 and "refuted at the sample points" in out and "exceeded the budget" in out


def test_budget_bounds_memory_and_time():
    with pytest.raises(BudgetExceeded) as info:
        run_with_budget(lambda: len(bytearray(2**31)), seconds=LIMIT_SECONDS, memory_bytes=100 * 2**20)
    assert info.value.kind == "memory"
    with pytest.raises(BudgetExceeded) as info:
        run_with_budget(signal.pause, seconds=0.2)
    assert info.value.kind == "time"
    assert run_with_budget(sum, ([1, 2, 3],), seconds=LIMIT_SECONDS) == 6
    with pytest.raises(ValueError, match="raised in the child"):
        run_with_budget(lambda: (_ for _ in ()).throw(ValueError("raised in the child")), seconds=LIMIT_SECONDS)


@pytest.mark.parametrize("scale_x, scale_y", [(1e-100, 1e-100), (1e-170, 1e-170), (1e170, 1e130), (1e150, 1e-150),
                                              (2.0**-600, 1.0)])
@pytest.mark.parametrize("d", [2, 3])
def test_extremal_vectors_are_scale_invariant(d, scale_x, scale_y):
    """A Def. 2.1 is invariant under x → c x, y → c' y (c, c' > 0): same directions, types, faces, ties; D → c c' D."""
    rng = np.random.default_rng(d)
    X, y = rng.standard_normal((12, d)), rng.standard_normal(12)
    base = extremal_vectors(X, y)
    scaled = extremal_vectors(X * scale_x, y * scale_y)
    assert [(e.type, e.face, e.ties) for e in scaled] == [(e.type, e.face, e.ties) for e in base]
    factor = Fraction(scale_x) * Fraction(scale_y)
    for a, b in zip(scaled, base):
        # x·c and y·c' are rounded once per entry (relative 2^-53); D sums n = 12 such products: 1e-13 covers it
        assert np.allclose(a.direction, b.direction, rtol=0, atol=1e-13)
        assert all(abs(float(pa / (pb * factor)) - 1) < 1e-13 for pa, pb in zip(a.exact, b.exact) if pb)
        assert all(bool(pa) == bool(pb) for pa, pb in zip(a.exact, b.exact))


def test_extremal_vectors_out_of_float_range_are_decimal_strings(tmp_path):
    """Inputs and labels of size 1e-170 give |D| ≈ 1e-340, below float64: decimal strings, not (0, 0)."""
    path = tmp_path / "tiny.json"
    X, y = np.array(DATA["inputs"]), np.array(DATA["labels"])
    path.write_text(json.dumps({"inputs": (X * 1e-170).tolist(), "labels": (y * 1e-170).tolist()}))
    code, out, err = run_in_process(["extremal-vectors", str(path), "--json"])
    assert code == 0, err
    rows = json.loads(out)
    base = extremal_vectors(X, y)
    np.testing.assert_allclose([r["direction"] for r in rows], [e.direction for e in base], rtol=0, atol=1e-13)
    for row, e in zip(rows, base):
        assert all(isinstance(c, str) for c in row["vector"])
        np.testing.assert_allclose([float(mpmath.mpf(c) * mpmath.mpf("1e340")) for c in row["vector"]], e.vector,
                                   rtol=1e-13)


# -- issue 20: run, list and show (the journal, the lock and the plugins: tests/test_run_integrity.py) ----------

ISSUE_20_CASES = [
    ("run --out=", ["argument --out: must be a path, not empty"]),
    ("show C.prop1 --results=", ["argument --results: must be a path, not empty"]),
    ("run --onl A.* --out {t}/o", ["unrecognized arguments: --onl"]),
    ("flow {t}/none.json --lam 1e-10 --time 1,2", ["unrecognized arguments: --time 1,2"]),
    ("show C.prop1 --results {t}/missing.json", ["--results: no results file at"]),
    ("show C.prop1 --results {t}/loop.json", ["--results: results file", "loop.json: cannot be read"]),
    ("list --checks {t}/notes.txt", ["--checks", "notes.txt: not a .py file"]),
    ("list --checks {t}/exits.py", ["--checks", "exits.py: called sys.exit(0) while loading"]),
    ("show C.prop1 --checks {t}/exits.py", ["--checks", "exits.py: called sys.exit(0) while loading"]),
    ("run --checks {t}/exits.py --out {t}/o", ["--checks", "exits.py: called sys.exit(0) while loading"]),
    ("run --checks {t}/raises.py --out {t}/o", ["--checks", "raises.py: GeneratorExit: at import"]),
]


@pytest.mark.parametrize("args, expected", ISSUE_20_CASES, ids=[c[0].replace("{t}/", "") for c in ISSUE_20_CASES])
def test_issue_20_run_list_show_inputs_exit_2_naming_the_option_or_file(args, expected, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    (tmp_path / "notes.txt").write_text("not python")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "raises.py").write_text("raise GeneratorExit('at import')\n")
    before = sorted(tmp_path.iterdir())
    code, out, err = run_in_process(args.format(t=tmp_path).split())
    assert code == 2, err
    assert "Traceback" not in err
    if not err.startswith("usage:"):  # argparse's usage errors are two lines (usage, then the error)
        assert err.startswith("relucheck: error: ") and err.count("\n") == 1, err
    for text in expected:
        assert text in err, f"{text!r} not in {err!r}"
    assert sorted(tmp_path.iterdir()) == before  # nothing written (no --out, no results)


# Red team 1 (options): empty values, one-line option errors, negative values read as options, Unicode digits,
# --version with arguments, show --results checked before printing.

RED_TEAM_1_OPTIONS = [
    ("run --only= --out {t}/o", "argument --only: must not be empty"),
    ("run --only=\t --out {t}/o", "argument --only: must not be empty"),
    ("run --scheduler= --out {t}/o", "argument --scheduler: must not be empty"),
    ("flow {t}/none.json --lam 1e-4 --engine=", "argument --engine: must not be empty"),
    ("flow {t}/none.json --lam 1e-4 --times=", "argument --times: must not be empty"),
    ("list --paper=", "argument --paper: must not be empty"),
    ("report --style=", "argument --style: must not be empty"),
    ("run --seed -1 --out {t}/o", "argument --seed: must be an integer in [0, 2^63 − 1]"),
    ("run --seed ５ --out {t}/o", "argument --seed: must be an integer seed ≥ 0 written in ASCII digits without '_', "
                                "got '５'"),
    ("run --seed 1_0 --out {t}/o", "argument --seed: must be an integer seed ≥ 0 written in ASCII digits without '_', "
                                 "got '1_0'"),
    ("flow {t}/none.json --lam １e-4", "argument --lam: must be a decimal number in (0, 1) written in ASCII digits"),
    ("flow {t}/none.json --lam 1e-4 --budget ５", "argument --budget: must be a number of seconds written in ASCII"),
    ("flow {t}/none.json --lam 1e-4 --rtol １e-8", "argument --rtol: must be a number in ASCII digits"),
    ("flow {t}/none.json --lam -1e-4", "argument --lam: got the negative value '-1e-4', which is not allowed here"),
    ("flow {t}/none.json --lam=-1e-4", "argument --lam: must be a decimal number in (0, 1)"),
    ("--version x", "argument --version: takes no other arguments, got 'x'"),
    ("run --bogus", "unrecognized arguments: --bogus"),
    ("", "the following arguments are required: command"),
]


@pytest.mark.parametrize("args, expected", RED_TEAM_1_OPTIONS, ids=[c[0].replace("{t}/", "") for c in RED_TEAM_1_OPTIONS])
def test_red_team_1_option_errors_are_one_line_naming_the_option(args, expected, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_in_process(args.format(t=tmp_path).split(" ") if args else [])
    assert code == 2 and out == ""
    assert err.startswith("relucheck: error: ") and err.count("\n") == 1, err
    assert expected in err and err.rstrip().endswith("--help lists the options)"), err
    assert sorted(tmp_path.iterdir()) == []  # nothing written


def test_red_team_1_times_in_unicode_digits_are_refused(tmp_path):
    from relucheck.numerics.errors import RelucheckInputError
    from relucheck.proofs_checks.commands.flow import parse_times

    with pytest.raises(RelucheckInputError, match="--times must be comma-separated numbers in ASCII digits"):
        parse_times("0.5,５")
    assert parse_times("0.5,5") == (0.5, 5.0)


def test_red_team_1_show_checks_results_before_printing_the_statement(tmp_path):
    code, out, err = run_in_process(["show", "A.lemF.1", "--results", str(tmp_path / "nonexist")])
    assert code == 2 and out == ""
    assert err.startswith("relucheck: error: --results: no results file at") and err.count("\n") == 1, err
