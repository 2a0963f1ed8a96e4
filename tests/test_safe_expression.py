"""Parse, never evaluate (issue 20, item 1): `theory.safe_expression` and the hostile ODE files of `relucheck check-ode`.

Each hostile file must end in exit 2 with one line naming the file, and nothing of it may run: a canary file that
the payload would create stays absent, and in a subprocess an audit hook (`sys.addaudithook`; a hook cannot be
removed, hence the subprocess) sees no ``exec``, no import, no ``compile`` other than the parser's own syntax tree
(`safe_expression.PARSE_FILENAME`) and no file opened but the input while the command runs. Random well-formed
expressions of the grammar must come out as the SymPy object built here directly.
"""
import contextlib
import io
import json
import signal
import string
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import RelucheckInputError
from relucheck.proofs_checks import cli
from relucheck.theory import safe_expression as se
from relucheck.theory.ode_checker import check_ode, parse_problem

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "ode"
LOGISTIC = json.loads((EXAMPLES / "logistic_correct.json").read_text())  # t; x; r, K, x0
CANARY = "canary"  # created, relative to the working folder, by any payload that runs
CODE = f"open('{CANARY}','w')"  # what the chr(…) payloads spell
LIMIT_SECONDS = 30  # a hostile file must be refused at once; the alarm turns a hang into a failure


def _styled(word: str, first_letter: int, exceptions=None) -> str:
    """``word`` (lower-case ASCII) in the Unicode letters starting at ``first_letter`` (a look-alike alphabet)."""
    exceptions = exceptions or {}
    return "".join(exceptions.get(c, chr(first_letter + string.ascii_lowercase.index(c))) for c in word)


def full_width(word):
    return _styled(word, 0xFF41)


def bold(word):
    return _styled(word, 0x1D41A)


def italic(word):
    return _styled(word, 0x1D44E, {"h": "\u210e"})  # mathematical italic h is U+210E (Planck constant)


def spelled(style) -> str:
    """``exec(chr(111)+chr(112)+…)`` in the letters of ``style``: the payload that wrote a file before issue 20."""
    return f"{style('exec')}(" + "+".join(f"{style('chr')}({ord(c)})" for c in CODE) + ")"


def _file(solution: str, parameters: dict | None = None, **changes) -> dict:
    data = json.loads(json.dumps(LOGISTIC))
    data["solution"] = {"x": solution}
    if parameters:
        data["parameters"].update(parameters)
    data.update(changes)
    return data


ANY = [0, 1]
HOSTILE = {  # name → (file content, a text the one error line must contain)
    "full_width_exec": (_file(spelled(full_width)), "unknown name 'ｅｘｅｃ' (read as 'exec'"),
    "full_width_exec_declared": (_file(spelled(full_width), {full_width("exec"): ANY, full_width("chr"): ANY}),
                                 "call of 'ｅｘｅｃ' (read as 'exec' after Unicode NFKC normalization) not allowed"),
    "bold_exec": (_file(spelled(bold)), "(read as 'exec'"),
    "bold_exec_declared": (_file(spelled(bold), {bold("exec"): ANY, bold("chr"): ANY}), "(read as 'exec'"),
    "italic_eval_declared": (_file(f"{italic('eval')}({italic('chr')}(49))", {italic("eval"): ANY, italic("chr"): ANY}),
                             "(read as 'eval'"),
    "full_width_exit": (_file(f"{full_width('exit')}()"), "unknown name 'ｅｘｉｔ' (read as 'exit'"),
    "full_width_exit_declared": (_file(f"{full_width('exit')}()", {full_width("exit"): ANY}), "call of 'ｅｘｉｔ'"),
    "full_width_open": (_file(f"{full_width('open')}(x0)", {}), "(read as 'open'"),
    "ligature_filter": (_file("ﬁlter(r, K)"), "unknown name 'ﬁlter' (read as 'filter'"),
    "ligature_collision": (_file("fi", {"ﬁ": ANY, "fi": ANY}), "'ﬁ' is 'fi' after Unicode NFKC normalization"),
    "script_E_parameter": (_file("K*E", {"ℰ": ANY}), "the name 'ℰ' (read as 'E' after Unicode NFKC normalization"),
    "full_width_pi_state": (_file("K", state=["ｐｉ"]), "the name 'ｐｉ' (read as 'pi'"),
    "dunder_import": (_file("__import__('os').system('touch canary')"), "unknown name '__import__'"),
    "full_width_import": (_file("＿＿ｉｍｐｏｒｔ＿＿('os')"), "invalid character '＿' (U+FF3F)"),
    "dunder_chain": (_file("().__class__.__bases__[0].__subclasses__()"), "not allowed"),
    "attribute": (_file("K.__class__"), "attribute access ('.') not allowed"),
    "subscript": (_file("(K, r)[0]"), "a subscript ('[…]') not allowed"),
    "lambda": (_file(f"(lambda: {CODE})()"), "unknown name 'open'"),
    "lambda_only_declared": (_file("(lambda r: r)(K)"), "a call of a lambda not allowed"),
    "comprehension": (_file("[K for K in (r,)]"), "a comprehension not allowed"),
    "string": (_file("'K'"), "a string literal \"'K'\" not allowed"),
    "bytes": (_file("b'K'"), "a string literal"),
    "starred": (_file("exp(*(r,))"), "a starred argument not allowed"),
    "keyword": (_file("exp(r, evaluate=False)"), "keyword arguments not allowed"),
    "f_string": (_file("f'{K}'"), "an f-string not allowed"),
    "walrus": (_file("(K := r)"), "an assignment expression (':=') not allowed"),
    "conditional": (_file("K if r else x0"), "a conditional expression not allowed"),
    "comparison": (_file("K < r"), "a comparison not allowed"),
    "boolean": (_file("K or r"), "token 'or' not allowed"),
    "ellipsis": (_file("..."), "the constant '...' not allowed"),
    "call_of_a_parameter": (_file("K(r)"), "call of 'K' not allowed"),
    "power_tower": (_file("9**9**9**9"), "power tower"),
    "folded_exponent": (_file("2**(r*0 + 9**9)"), "constant exponent 3.8742e+08; |exponent| must be ≤ 100"),
    "nested_powers": (_file("(K**1000)**1000"), "|exponent| must be ≤ 100"),
    "folded_degree": (_file("((K**10)**(r - r + 10))**(r - r + 11)"), "nested powers reach degree 1100"),
    "big_exact_number": (_file("(10**29)**10 * (10**29)**10 * (10**29)**10 * (10**29)**10 * K"),
                         "an exact number of more than 1000 digits"),
    "exp_tower_of_floats": (_file("exp(exp(exp(exp(5.0))))"), "a decimal number beyond float64's range arises"),
    "exp_tower_in_a_sum": (_file("exp(exp(exp(exp(5)))) + 1"), "the argument of exp is a constant beyond 1e+300"),
    "sin_of_a_tower": (_file("K*sin(exp(exp(exp(5))))"), "the argument of sin is a constant beyond 1e+300"),
    "tower_exponent": (_file("K**exp(exp(exp(exp(5))))"), "the argument of exp is a constant beyond 1e+300"),
    "huge_float": (_file("K/cosh(1e300)"), "a decimal number beyond float64's range arises"),
    "complex_constant_in_cosh": (_file("asin(cosh(acos(-2)**100))"), "the argument of cosh is a constant that is not real"),
    "sympy_failing_inside": (_file("asin(cosh(sqrt(-1)*70**100))"), "the argument of cosh is a constant that is not real"),
    "exponent_beyond_float": (_file("K**(123456789012345678901234567890*1e300)"),
                              "constant exponent beyond 1e308; |exponent| must be ≤ 100"),
    "ten_thousand_parentheses": (_file("(" * 10_000 + "K" + ")" * 10_000), "2000"),
    "parser_nesting": (_file("(" * 999 + "K" + ")" * 999), "too many nested parentheses"),
    "deep_unary": (_file("-" * 1999 + "K"), "nested deeper than 40 levels"),
    "deep_calls": (_file("exp(" * 150 + "K" + ")" * 150), "nested deeper than 40 levels"),
    "long_text": (_file("K" + "+K" * 100_000), "2000"),
    "null_byte": (_file("K\x00"), "null bytes"),
    "comment": (_file(f"K # {CODE}"), "a comment ('#') is not allowed"),
    "division_by_zero": (_file("K/0"), "has no finite value"),
    "log_of_zero": (_file("log(0)"), "has no finite value"),
    "semicolon": (_file(f"K; {CODE}"), "cannot parse"),
    "newline_statement": (_file(f"K\n{CODE}"), "cannot parse"),
}


def _write(folder: Path, name: str, data) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


class _Hang(BaseException):
    """Raised by the alarm: a BaseException, so that no error boundary turns it into an exit code."""


def _alarm(signum, frame):
    raise _Hang(f"no exit within {LIMIT_SECONDS} s")


def run_cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, LIMIT_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_exits_2_with_one_line_and_runs_nothing(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data, expected = HOSTILE[name]
    path = _write(tmp_path, name, data)
    code, out, err = run_cli(["check-ode", str(path)])
    assert code == 2, err
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"relucheck: error: ODE file {path}: "), err
    assert expected in err, err
    assert not (tmp_path / CANARY).exists()


def test_the_canary_payload_is_live_when_python_evaluates_it(tmp_path):
    """The detector works: Python itself, evaluating the full-width text, writes the canary (PEP 3131's NFKC)."""
    subprocess.run([sys.executable, "-c", f"eval({spelled(full_width)!r})"], cwd=tmp_path, check=True, timeout=60)
    assert (tmp_path / CANARY).exists()


def test_a_hostile_file_through_the_console_entry_in_a_subprocess(tmp_path):
    path = _write(tmp_path, "evil", HOSTILE["full_width_exec_declared"][0])
    proc = subprocess.run([sys.executable, "-m", "relucheck", "check-ode", str(path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr.startswith(f"relucheck: error: ODE file {path}: field 'solution.x': call of 'ｅｘｅｃ'")
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / CANARY).exists()


AUDIT_SCRIPT = textwrap.dedent("""
    import contextlib, io, json, sys
    from relucheck.proofs_checks import cli
    from relucheck.theory import safe_expression

    files = json.loads(sys.argv[1])
    window, seen = [None], []

    def allowed(event, args):
        if event == "compile":  # the parser's syntax tree of an expression, nothing else
            return args[1] == safe_expression.PARSE_FILENAME
        if event == "open":  # the input file, read
            return str(args[0]) == window[0] and args[1] in ("r", "rb", None)
        return event in ("os.listdir", "sys._getframe", "object.__getattr__")

    def hook(event, args):
        if window[0] is not None and not allowed(event, args):
            seen.append(f"{event} {str(args)[:120]}")

    sys.addaudithook(hook)
    quiet = io.StringIO()
    # a first pass, not watched, loads what the CLI and SymPy import lazily (sympy.sets.setexpr, …)
    with contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet):
        for path in files:
            cli.main(["check-ode", path])
    results = []
    for path in files:
        err = io.StringIO()
        seen.clear()
        window[0] = path
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(quiet):
            code = cli.main(["check-ode", path])
        window[0] = None
        results.append({"path": path, "code": code, "err": err.getvalue(), "events": list(seen)})
    print(json.dumps(results))
""")


def test_no_exec_compile_or_import_while_hostile_files_are_parsed(tmp_path):
    paths = [str(_write(tmp_path, name, data)) for name, (data, _) in sorted(HOSTILE.items())]
    proc = subprocess.run([sys.executable, "-c", AUDIT_SCRIPT, json.dumps(paths)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["path"] for r in results] == paths
    for r in results:
        assert r["code"] == 2 and r["err"].startswith(f"relucheck: error: ODE file {r['path']}: "), r
        assert r["events"] == [], r
    assert not (tmp_path / CANARY).exists()


def test_the_audit_hook_would_see_an_evaluation(tmp_path):
    """The audit script's detector works: the same window around SymPy's string parser reports exec and compile."""
    script = AUDIT_SCRIPT.replace('code = cli.main(["check-ode", path])',
                                  'import sympy; sympy.parse_expr("1 + 1"); code = 2')
    path = str(_write(tmp_path, "refused", _file("K/0")))
    proc = subprocess.run([sys.executable, "-c", script, json.dumps([path])], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    events = json.loads(proc.stdout)[0]["events"]
    assert any(e.startswith("exec ") for e in events) and any(e.startswith("compile ") for e in events), events


# -- names: normalized before every check --------------------------------------------------------------------------

X = sp.Symbol("x", real=True)
RHO = sp.Symbol("ρ", real=True)


def message(call) -> str:
    with pytest.raises(RelucheckInputError) as info:
        call()
    return str(info.value)


def test_names_are_read_as_python_reads_them():
    assert se.parse_expression("ｘ + 𝐱 + 𝑥", "f", {"x": X}) == 3 * X  # all three are x to Python's parser
    assert se.parse_expression("ρ*x", "f", {"x": X, "ρ": RHO}) == RHO * X  # a declared non-ASCII name
    assert se.declared_name("ｘ", "state") == "x" and se.declared_name("ρ", "state") == "ρ"
    assert message(lambda: se.parse_expression("ρ*x", "f", {"x": X})) == \
        "field 'f': name 'ρ' in 'ρ*x' is not ASCII and not declared"
    assert se.parse_expression("ℰ", "f", {"x": X}) == sp.E  # Python reads ℰ as E: so does the walker, visibly
    assert message(lambda: se.declared_name("ℰ", "parameters")) == ("field 'parameters': the name 'ℰ' (read as 'E' "
                                                                  "after Unicode NFKC normalization, as Python reads "
                                                                  "it) is reserved for a function or constant")
    assert message(lambda: se.declared_name("x²", "state")) == \
        "field 'state': 'x²' is not a valid name (an identifier not starting with '_')"
    assert message(lambda: se.declared_name("＿x", "state")) == \
        "field 'state': '＿x' is not a valid name (an identifier not starting with '_')"


def test_a_script_E_parameter_is_refused_in_a_problem_not_identified_with_E():
    data = _file("x0*exp(r*t)", {"ℰ": [2, 3]})
    data["equations"] = {"x": "r*x"}
    assert message(lambda: parse_problem(data, "f.json")).startswith("f.json: field 'parameters': the name 'ℰ'")


def test_a_full_width_state_name_and_its_keys():
    data = {"time": "t", "state": ["ｙ"], "equations": {"ｙ": "-y"}, "initial": {"y": "1"},
            "solution": {"ｙ": "exp(-t)"}}
    p = parse_problem(data)
    y = sp.Symbol("y", real=True)
    assert p.state == (y,) and p.equations == {y: -y} and p.solution == {y: sp.exp(-p.time)}
    data["initial"] = {"y": "1", "ｙ": "2"}
    assert message(lambda: parse_problem(data)) == \
        "ODE file: field 'initial': expected one entry per state ['ｙ'], got ['y', 'ｙ']"


# -- internal errors on valid input (issue 20): honest answers instead ----------------------------------------------

def _one_state(solution, equation="0", initial="1", parameters=None):
    data = {"time": "t", "state": ["x"], "equations": {"x": equation}, "initial": {"x": initial},
            "solution": {"x": solution}}
    if parameters:
        data["parameters"] = parameters
    return parse_problem(data)


def test_a_candidate_without_a_value_at_time_zero():
    # 1/t at t = 0 is SymPy's zoo; lambdify could not even print it (KeyError 'ComplexInfinity' before issue 20)
    out = check_ode(_one_state("1/t"))
    assert out["initial"]["x"]["verdict"] == "inconclusive" and out["initial"]["x"]["points"] == 0
    assert out["initial"]["x"]["symbolic"] == "(the candidate has no value at t = 0) zoo"
    assert out["status"] == "refuted" and out["residuals"]["x"]["verdict"] == "refuted"  # (1/t)' = −1/t² ≠ 0


def test_a_symbolic_power_tower_is_refuted_not_an_internal_error():
    # at t = 0 the candidate is 10^10000, an int beyond Python's 4300-digit str limit: rounded to 50 digits
    out = check_ode(_one_state("10**(10**(4 + t))"))
    assert out["status"] == "refuted" and out["initial"]["x"]["verdict"] == "refuted"
    assert out["initial"]["x"]["symbolic"].endswith("e+10000")


def test_a_zero_of_rounded_numbers_is_no_proof():
    # x(0) = (10^10000 + 1)/10^10000 ≠ 1 = the initial value; at 50 digits the difference rounds to 0. The initial
    # record is then "verified" by the points to rounding (the documented limit of that evidence), never as a proof;
    # the residual −10^(4 + t − 10^(4 + t))·ln²10 ≠ 0 refutes the candidate
    out = check_ode(_one_state("(10**(10**(4 + t)) + 1)/10**(10**(4 + t))", equation="x - x"))
    assert out["initial"]["x"]["symbolic"] == "(not a proof: exact powers beyond 1000 digits rounded to 50 digits) 0"
    assert out["initial"]["x"]["verdict"] == "verified numerically" and out["initial"]["x"]["max_relative_at_points"] == 0.0
    assert out["status"] == "refuted" and out["residuals"]["x"]["verdict"] == "refuted"


def test_a_candidate_undefined_on_the_whole_parameter_range_is_not_verified():
    # a ∈ [1, 1]: 1/(a − 1) has no value anywhere; its residual is 0 symbolically, which proves nothing here
    out = check_ode(_one_state("1/(a - 1)", initial="1/(a - 1)", parameters={"a": [1, 1]}))
    assert out["status"] == "inconclusive"
    assert out["message"].startswith("the candidate has no finite real value at any of the 24 sample points")


def test_cli_on_the_former_internal_errors(tmp_path):
    for name, solution, code in (("pole", "1/t", 1), ("tower", "10**(10**(4 + t))", 1), ("literal", "1/0", 2)):
        path = _write(tmp_path, name, {"time": "t", "state": ["x"], "equations": {"x": "0"}, "initial": {"x": "1"},
                                       "solution": {"x": solution}})
        got, _, err = run_cli(["check-ode", str(path)])
        assert got == code and "internal error" not in err, err


# -- round trip: random expressions of the grammar ---------------------------------------------------------------

NAMES = {"x": X, "y": sp.Symbol("y", positive=True), "ρ": RHO}
WRITINGS = {"x": ("x", "ｘ", "𝐱"), "y": ("y", "ｙ"), "ρ": ("ρ",)}  # ways to write each declared name


def _leaf():
    names = st.sampled_from(sorted(NAMES)).flatmap(
        lambda n: st.sampled_from(WRITINGS[n]).map(lambda w, n=n: (w, NAMES[n])))
    integers = st.integers(0, 10**6).map(lambda k: (str(k), sp.Integer(k)))
    decimals = st.sampled_from(["0.5", "1.25", "2.0", "1e-3", "3.5e2"]).map(lambda d: (d, sp.Float(d)))
    constants = st.sampled_from([("pi", sp.pi), ("E", sp.E)])
    return st.one_of(names, integers, decimals, constants)


def _small(expr) -> bool:
    """Every number in the expression has at most 60 digits (numerator and denominator)."""
    return all(len(str(abs(q.p))) <= 60 and len(str(q.q)) <= 60 if q.is_Rational else True for q in expr.atoms(sp.Number))


def _node(children):
    unary = st.tuples(st.sampled_from(["-", "+"]), children).map(
        lambda p: (f"{p[0]}({p[1][0]})", -p[1][1] if p[0] == "-" else p[1][1]))
    binary = st.tuples(st.sampled_from(["+", "-", "*", "/"]), children, children).map(
        lambda p: (f"({p[1][0]}) {p[0]} ({p[2][0]})",
                   {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                    "/": lambda a, b: a / b}[p[0]](p[1][1], p[2][1])))
    # no huge number under a power or a function: SymPy evaluates the trusted construction exactly, and a randomized CI
    # run spent over 10 minutes at 1.5 GB on one drawn case (the expression was not recovered); the parser refuses
    # constants beyond its digit and exponent limits anyway
    power = st.tuples(children, st.integers(-4, 4), st.sampled_from(["**", "^"])).filter(lambda p: _small(p[0][1])).map(
        lambda p: (f"({p[0][0]}){p[2]}({p[1]})", p[0][1] ** sp.Integer(p[1])))
    call = st.tuples(st.sampled_from(sorted(se.FUNCTIONS)), children).filter(lambda p: _small(p[1][1])).map(
        lambda p: (f"{p[0]}({p[1][0]})", se.FUNCTIONS[p[0]](p[1][1])))
    return st.one_of(unary, binary, power, call)


EXPRESSIONS = st.recursive(_leaf(), _node, max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_random_expressions_round_trip_to_the_trusted_construction(pair):
    text, trusted = pair
    assume(len(text) <= se.MAX_EXPRESSION_CHARS and not trusted.has(sp.zoo, sp.nan, sp.oo, -sp.oo))
    try:
        got = se.parse_expression(text, "f", NAMES)
    except RelucheckInputError as exc:  # only a size limit, a documented bound on constants (a function's
        # constant argument must be real and ≤ 1e300: cos(acos(2)) is refused though it is 2), or a part with no finite
        # value ((0**-1)**0: SymPy's zoo**0 is 1, but 1/0 has no value) may refuse
        assert any(word in str(exc) for word in ("nodes", "deeper", "degree", "digits", "exponent",
                                                 "that is not real", "constant beyond", "has no finite value")), str(exc)
        return
    assert got == trusted, (text, got, trusted)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(list("xy()+-*/^.,:;'\"[]{}_ 019eE") + ["ｅｘｅｃ", "__", "lambda", "ℰ", "#", "ρ"]),
               max_size=30).map("".join))
def test_random_text_is_parsed_or_refused_never_anything_else(text):
    try:
        se.parse_expression(text, "f", NAMES)
    except RelucheckInputError as exc:
        assert str(exc).startswith("field 'f': ")


def test_unicode_normalization_is_the_one_python_uses():
    for word in ("exec", "chr", "exit", "open", "eval"):
        for style in (full_width, bold, italic):
            assert unicodedata.normalize("NFKC", style(word)) == word == se.normalize(style(word))


def test_a_long_flat_sum_is_one_level_deep():
    # a polynomial of 60 terms was refused as "nested deeper than 40 levels": Python nests a + b + c to the left
    t = sp.Symbol("t")
    text = " + ".join(f"{i}*t" for i in range(1, 61)) + " - 3/t*2/5"  # 60 levels as Python nests it, 432 nodes
    assert se.parse_expression(text, "f", {"t": t}) == 1830 * t - sp.Rational(6, 5) / t
    with pytest.raises(RelucheckInputError, match="deeper than 40 levels"):
        se.parse_expression("2*(1 + " * 21 + "t" + ")" * 21, "f", {"t": t})  # real nesting is still bounded
    with pytest.raises(RelucheckInputError, match="more than 500 nodes"):
        se.parse_expression("+".join(["t"] * 501), "f", {"t": t})


@pytest.mark.parametrize("base", ["0", "1", "2 - 1"])
def test_log_with_base_zero_or_one_is_refused(base):
    with pytest.raises(RelucheckInputError, match=f"log with base {sp.sympify(base)} has no value"):
        se.parse_expression(f"log(t, {base})", "f", {"t": sp.Symbol("t")})
