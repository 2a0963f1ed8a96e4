"""Direct, fast tests of `theory.ode_problem` (the input of `relucheck check-ode`): every size limit at and just
past its boundary, every refusal with its exact message, and the parsed problem compared with SymPy objects
built here."""
import copy
import math
from fractions import Fraction

import pytest
import sympy as sp

from relucheck.numerics.errors import RelucheckInputError
from relucheck.theory import ode_problem as op
from relucheck.theory import safe_expression as se

x = sp.Symbol("x", real=True)
NAMES = {"x": x}


def message(call):
    with pytest.raises(RelucheckInputError) as info:
        call()
    return str(info.value)


# -- check_expression_size -------------------------------------------------------------------------------

def test_size_limits_at_their_boundaries():
    assert se.MAX_EXPRESSION_CHARS == 2000 and se.MAX_NODES == 500 and se.MAX_DEPTH == 40
    assert se.MAX_INTEGER_DIGITS == 30 and se.MAX_CONSTANT_EXPONENT == 100 and se.MAX_POWER_DEGREE == 1000
    se.check_expression_size("1" * 30 + " + x", "f")  # a 30-digit integer is fine (< 10^30)
    assert message(lambda: se.check_expression_size("1" + "0" * 30, "f")) == \
        "field 'f': integer literal with more than 30 digits"
    assert message(lambda: se.check_expression_size("-" + "9" * 31, "g")) == \
        "field 'g': integer literal with more than 30 digits"
    long = "x" + "+x" * 1000  # 2001 characters
    assert message(lambda: se.check_expression_size(long, "f")) == "field 'f': expression of 2001 characters; at most 2000"

def balanced_sum(k):
    """x + x + … (k terms) as a balanced tree: depth ~ log k, 4k − 2 AST nodes (Name, Load; BinOp, Add)."""
    return "x" if k == 1 else f"({balanced_sum(k // 2)})+({balanced_sum(k - k // 2)})"


def test_node_and_depth_limits():
    import ast

    assert sum(1 for _ in ast.walk(ast.parse(balanced_sum(125), mode="eval").body)) == 498
    se.check_expression_size(balanced_sum(125), "f")
    assert message(lambda: se.check_expression_size(balanced_sum(126), "f")) == "field 'f': expression has more than 500 nodes"
    # "-…-x": the k-th UnaryOp sits at depth k − 1, x at depth k and its Load context at k + 1
    se.check_expression_size("(" * 60 + "x" + ")" * 60, "f")  # parentheses add no depth
    se.check_expression_size("-" * 39 + "x", "f")
    assert message(lambda: se.check_expression_size("-" * 40 + "x", "f")) == "field 'f': expression nested deeper than 40 levels"


def test_unparsable_and_overflowing_literals():
    got = message(lambda: se.check_expression_size("x +* 2", "f"))
    assert got.startswith("field 'f': cannot parse 'x +* 2' (SyntaxError: ")
    assert message(lambda: se.check_expression_size("1e999 * x", "f")) == \
        "field 'f': number literal overflows float64 ('1e999')"
    se.check_expression_size("1e308 * x", "f")


def test_constant_exponents():
    se.check_expression_size("x**100", "f")
    se.check_expression_size("x**-100", "f")
    se.check_expression_size("x^(1/2)", "f")
    se.check_expression_size("x**(200/2)", "f")
    assert message(lambda: se.check_expression_size("x**101", "f")) == \
        "field 'f': constant exponent 101; |exponent| must be ≤ 100"
    assert message(lambda: se.check_expression_size("x**(-101)", "f")) == \
        "field 'f': constant exponent -101; |exponent| must be ≤ 100"
    assert message(lambda: se.check_expression_size("x^(50+51)", "f")) == \
        "field 'f': constant exponent 101; |exponent| must be ≤ 100"
    # nested powers multiply: (x**10)**100 has degree 1000 (allowed), ((x**10)**10)**11 has 1100
    se.check_expression_size("(x**10)**100", "f")
    assert message(lambda: se.check_expression_size("((x**10)**10)**11", "f")) == \
        "field 'f': nested powers reach degree 1100; at most 1000"
    assert message(lambda: se.check_expression_size("(x**(-20))**51", "f")) == \
        "field 'f': nested powers reach degree 1020; at most 1000"
    se.check_expression_size("(x**(1/2))**100", "f")  # |exponent| < 1 counts as 1
    se.check_expression_size("exp(x)**100 * (x**10)**100", "f")  # separate branches do not multiply
    # a symbolic exponent is left unevaluated and resets the degree in the exponent
    se.check_expression_size("(x**100)**x", "f")
    se.check_expression_size("x**(x**100)", "f")
    assert message(lambda: se.check_expression_size("(x**10)**pi", "f")) == \
        "field 'f': a constant exponent must be a rational number (literals with + - * /)"
    assert message(lambda: se.check_expression_size("x**9**9", "f")) == \
        "field 'f': a power inside a constant exponent (a power tower such as 9**9**9) is not allowed"
    assert message(lambda: se.check_expression_size("x**(1/0)", "f")) == "field 'f': division by zero in an exponent"
    assert message(lambda: se.check_expression_size("2**(3/(2-2))", "f")) == "field 'f': division by zero in an exponent"


@pytest.mark.parametrize("text, value", [("2", 2), ("1.5", Fraction(3, 2)), ("-3", -3), ("+4", 4), ("2+3", 5),
                                         ("7-10", -3), ("3*4", 12), ("3/4", Fraction(3, 4)), ("-(1/2)*6", -3),
                                         ("1/3 - 1/3", 0)])
def test_constant_exponent_values(text, value):
    import ast

    def fail(condition):
        raise AssertionError(condition)

    assert se._constant_exponent(ast.parse(text, mode="eval").body, fail) == value


def test_constant_exponent_values_decide_the_limit():
    se.check_expression_size("x**(25*4)", "f")
    se.check_expression_size("x**(99+1)", "f")
    se.check_expression_size("x**(101-1)", "f")
    se.check_expression_size("x**(-(50+50))", "f")
    assert message(lambda: se.check_expression_size("x**(25*5)", "f")) == \
        "field 'f': constant exponent 125; |exponent| must be ≤ 100"
    assert message(lambda: se.check_expression_size("x**(202/2)", "f")) == \
        "field 'f': constant exponent 101; |exponent| must be ≤ 100"
    assert message(lambda: se.check_expression_size("x**(+101)", "f")) == \
        "field 'f': constant exponent 101; |exponent| must be ≤ 100"


# -- safe_parse ---------------------------------------------------------------------------------------------

def test_safe_parse_values():
    assert se.parse_expression("x^2 + 1/2", "f", NAMES) == x**2 + sp.Rational(1, 2)
    assert se.parse_expression("exp(x) + E + pi + abs(x) + Abs(x)", "f", NAMES) == sp.exp(x) + sp.E + sp.pi + 2 * sp.Abs(x)
    assert se.parse_expression(2, "f", NAMES) == 2
    assert se.parse_expression(0.5, "f", NAMES) == sp.Float(0.5)
    assert se.parse_expression("x ", "f", NAMES) == x
    assert isinstance(se.parse_expression("1", "f", NAMES), sp.Integer)
    assert se.parse_expression("3/2", "f", NAMES) == sp.Rational(3, 2)


@pytest.mark.parametrize("text", [" x", "x ", "  x  ", "\tx", "x\n", "\n x * 2 \t"])
def test_safe_parse_ignores_surrounding_blanks(text):
    """Leading blanks were an indent to Python's tokenizer ("token ' ' not allowed"); both ends are layout."""
    assert se.parse_expression(text, "f", NAMES) == se.parse_expression(text.strip(), "f", NAMES)


def test_safe_parse_bad_tokens_inside_blanks_still_refused():
    assert message(lambda: se.parse_expression("  x % 2 ", "f", NAMES)) == "field 'f': token '%' not allowed in 'x % 2'"
    assert message(lambda: se.parse_expression(" y", "f", NAMES)).startswith("field 'f': unknown name 'y' in 'y'")


@pytest.mark.parametrize("value, text", [(True, "True"), (None, "None"), ("", "''"), ("   ", "'   '"), (math.inf, "inf"),
                                         (math.nan, "nan"), ([1], "[1]")])
def test_safe_parse_refuses_non_expressions(value, text):
    assert message(lambda: se.parse_expression(value, "solution.x", NAMES)) == \
        f"field 'solution.x': expected an expression string, got {text}"


def test_safe_parse_messages():
    assert message(lambda: se.parse_expression("y + x", "f", NAMES)) == (
        "field 'f': unknown name 'y' in 'y + x'; allowed are the declared time, states and parameters and "
        f"{sorted(se.FUNCTIONS) + sorted(se.CONSTANTS)}")
    assert message(lambda: se.parse_expression("2j*x", "f", NAMES)) == "field 'f': complex literal '2j' not allowed"
    assert message(lambda: se.parse_expression("3J", "f", NAMES)) == "field 'f': complex literal '3J' not allowed"
    assert message(lambda: se.parse_expression("x % 2", "f", NAMES)) == "field 'f': token '%' not allowed in 'x % 2'"
    assert message(lambda: se.parse_expression("'x'", "f", NAMES)) == \
        "field 'f': a string literal \"'x'\" not allowed in \"'x'\""
    assert message(lambda: se.parse_expression("x" * 2001, "f", NAMES)) == \
        "field 'f': expression of 2001 characters; at most 2000"
    assert message(lambda: se.parse_expression("(x", "f", NAMES)) == \
        "field 'f': cannot parse '(x' (SyntaxError: '(' was never closed)"
    assert message(lambda: se.parse_expression("x, x", "f", NAMES)) == "field 'f': 'x, x' is not a single expression"
    assert message(lambda: se.parse_expression("x ** 101", "f", NAMES)) == \
        "field 'f': constant exponent 101; |exponent| must be ≤ 100"
    assert message(lambda: se.parse_expression("x(2)", "f", NAMES)) == (
        f"field 'f': call of 'x' not allowed in 'x(2)': only the functions {sorted(se.FUNCTIONS)} can be called")
    # every operator of the list is accepted
    assert se.parse_expression("((x + 1) - 2) * 3 / 4 ^ 1", "f", NAMES) == sp.Rational(3, 4) * (x - 1)
    assert se.parse_expression("atan(x) + asinh(x) + acosh(x) + atanh(x) + asin(x) + acos(x)", "f", NAMES).has(sp.atanh)
    assert se.parse_expression("x\n", "f", NAMES) == x


# -- parse_problem --------------------------------------------------------------------------------------------

BASE = {"time": "t", "state": ["x", "v"], "parameters": {"k": [0.5, 2.0], "c": [-1.0, 1.0], "x0": [0, 1]},
        "equations": {"x": "v", "v": "-k*x + c"}, "initial": {"x": "x0", "v": 0},
        "solution": {"x": "x0*cos(sqrt(k)*t)", "v": "-x0*sqrt(k)*sin(sqrt(k)*t)"}, "time_span": [0, 2.5]}


def test_parse_problem_builds_the_symbols():
    p = op.parse_problem(copy.deepcopy(BASE))
    t = sp.Symbol("t", real=True, nonnegative=True)
    X, V = sp.Symbol("x", real=True), sp.Symbol("v", real=True)
    k, c, x0 = sp.Symbol("k", positive=True), sp.Symbol("c", real=True), sp.Symbol("x0", real=True)
    assert p.time == t and p.state == (X, V)
    assert p.parameters == {k: (0.5, 2.0), c: (-1.0, 1.0), x0: (0.0, 1.0)}
    assert all(type(v) is float for lo_hi in p.parameters.values() for v in lo_hi)
    assert p.equations == {X: V, V: -k * X + c}
    assert p.initial == {X: x0, V: 0}
    assert p.solution == {X: x0 * sp.cos(sp.sqrt(k) * t), V: -x0 * sp.sqrt(k) * sp.sin(sp.sqrt(k) * t)}
    assert p.time_span == (0.0, 2.5)


def test_parse_problem_defaults():
    data = copy.deepcopy(BASE)
    del data["time_span"]
    data["parameters"] = {"k": [1, 1]}  # low = high is allowed
    data["equations"] = {"x": "v", "v": "-k*x"}
    data["initial"] = {"x": 1, "v": 0}
    data["solution"] = {"x": "cos(t)", "v": "-sin(t)"}
    p = op.parse_problem(data)
    assert p.time_span == (0.0, 1.0) and p.parameters == {sp.Symbol("k", positive=True): (1.0, 1.0)}
    del data["parameters"]
    data["equations"] = {"x": "v", "v": "-x"}
    assert op.parse_problem(data).parameters == {}
    assert op.OdeProblem(p.time, p.state, {}, {}, {}, {}).time_span == (0.0, 1.0)


@pytest.mark.parametrize("change, text", [
    (lambda d: d.update(time_span=[0, 0]), "field 'time_span': must be [0, T] with T > 0, got [0.0, 0.0]"),
    (lambda d: d.update(time_span=[1, 2]), "field 'time_span': must be [0, T] with T > 0, got [1.0, 2.0]"),
    (lambda d: d.update(time_span=[-1, 2]), "field 'time_span': must be [0, T] with T > 0, got [-1.0, 2.0]"),
    (lambda d: d.update(time_span=[0, -2]), "field 'time_span': need low ≤ high, got [0.0, -2.0]"),
    (lambda d: d["parameters"].update(k=[2, 1]), "field 'parameters.k': need low ≤ high, got [2.0, 1.0]"),
    (lambda d: d.update(time="_t"), "field 'time': '_t' is not a valid name (an identifier not starting with '_')"),
    (lambda d: d.update(time="lambda"), "field 'time': 'lambda' is not a valid name (an identifier not starting with '_')"),
    (lambda d: d.update(time="2t"), "field 'time': '2t' is not a valid name (an identifier not starting with '_')"),
    (lambda d: d.update(state=["x", "sin"]), "field 'state': the name 'sin' is reserved for a function or constant"),
    (lambda d: d.update(state=["x", "ｓｉｎ"]), "field 'state': the name 'ｓｉｎ' (read as 'sin' after Unicode NFKC "
     "normalization, as Python reads it) is reserved for a function or constant"),
    (lambda d: d["parameters"].update({"ℰ": [0, 1]}), "field 'parameters': the name 'ℰ' (read as 'E' after Unicode NFKC "
     "normalization, as Python reads it) is reserved for a function or constant"),
    (lambda d: d["parameters"].update({"ｋ": [0, 1]}), "time, state and parameter names must be distinct: "
     "'k', 'ｋ' are one name ('ｋ' is 'k' after Unicode NFKC normalization, as Python reads names)"),
    (lambda d: d.update(time="pi"), "field 'time': the name 'pi' is reserved for a function or constant"),
    (lambda d: d["parameters"].update(E=[0, 1]), "field 'parameters': the name 'E' is reserved for a function or constant"),
    (lambda d: d.update(state=["x", "t"]),
     "time, state and parameter names must be distinct: 't' is given more than once"),
    (lambda d: d["parameters"].update(v=[0, 1]),
     "time, state and parameter names must be distinct: 'v' is given more than once"),
    (lambda d: d["equations"].pop("v"), "field 'equations': expected one entry per state ['x', 'v'], got ['x']"),
    (lambda d: d["initial"].update(w="1"), "field 'initial': expected one entry per state ['x', 'v'], got ['v', 'w', 'x']"),
    (lambda d: d["solution"].update(x="x*t"), "field 'solution.x': unknown name 'x' in 'x*t'; allowed are the declared time, "
     f"states and parameters and {sorted(se.FUNCTIONS) + sorted(se.CONSTANTS)}"),
    (lambda d: d["initial"].update(x="t"), "field 'initial.x': unknown name 't' in 't'; allowed are the declared time, "
     f"states and parameters and {sorted(se.FUNCTIONS) + sorted(se.CONSTANTS)}"),
    (lambda d: d["equations"].update(v="q"), "field 'equations.v': unknown name 'q' in 'q'; allowed are the declared time, "
     f"states and parameters and {sorted(se.FUNCTIONS) + sorted(se.CONSTANTS)}"),
])
def test_parse_problem_refusals(change, text):
    data = copy.deepcopy(BASE)
    change(data)
    assert message(lambda: op.parse_problem(data)) == "ODE file: " + text
    assert message(lambda: op.parse_problem(data, "my.json")) == "my.json: " + text


def test_parse_problem_equations_may_use_the_state_and_time():
    data = copy.deepcopy(BASE)
    data["equations"]["v"] = "-k*x + c*t*v"
    p = op.parse_problem(data)
    t, X, V = p.time, *p.state
    assert p.equations[V] == -sp.Symbol("k", positive=True) * X + sp.Symbol("c", real=True) * t * V


@pytest.mark.parametrize("text, condition", [
    ("x**(-(2**3))", "a power inside a constant exponent (a power tower such as 9**9**9) is not allowed"),
    ("x**((2**3)+1)", "a power inside a constant exponent (a power tower such as 9**9**9) is not allowed"),
    ("x**(1+(2**3))", "a power inside a constant exponent (a power tower such as 9**9**9) is not allowed"),
    ("x**(-pi)", "a constant exponent must be a rational number (literals with + - * /)"),
    ("x**(E*2)", "a constant exponent must be a rational number (literals with + - * /)"),
    ("x**(2*E)", "a constant exponent must be a rational number (literals with + - * /)"),
])
def test_failures_deep_inside_a_constant_exponent_are_reported(text, condition):
    assert message(lambda: se.check_expression_size(text, "f")) == f"field 'f': {condition}"


# -- boundaries of the limits, exactly ----------------------------------------------------------------------

def node_count(text):
    import ast

    return sum(1 for _ in ast.walk(ast.parse(text, mode="eval").body))


def test_length_and_node_limits_are_inclusive():
    at = "x" + " " * 1999  # 2000 characters
    se.check_expression_size(at, "f")
    assert se.parse_expression(at, "f", NAMES) == x
    assert message(lambda: se.parse_expression(at + " ", "f", NAMES)) == "field 'f': expression of 2001 characters; at most 2000"
    five_hundred = "-(" + balanced_sum(125) + ")"
    assert node_count(five_hundred) == 500
    se.check_expression_size(five_hundred, "f")
    five_hundred_one = balanced_sum(126).replace("x", "1", 1)
    assert node_count(five_hundred_one) == 501
    assert message(lambda: se.check_expression_size(five_hundred_one, "f")) == "field 'f': expression has more than 500 nodes"


def test_depth_is_counted_through_powers():
    # the base and the exponent of a power sit one level below it
    for template in ("({})**2", "({})**y", "y**({})"):
        se.check_expression_size(template.format("-" * 38 + "x"), "f")  # x's Load context at depth 40
        assert message(lambda t=template: se.check_expression_size(t.format("-" * 39 + "x"), "f")) == \
            "field 'f': expression nested deeper than 40 levels"
    se.check_expression_size("x**(" + "-" * 39 + "2)", "f")  # a constant exponent: the literal at depth 40
    assert message(lambda: se.check_expression_size("x**(" + "-" * 40 + "2)", "f")) == \
        "field 'f': expression nested deeper than 40 levels"


def test_degree_is_counted_exactly():
    se.check_expression_size("x**((y**10)**100)", "f")  # a symbolic exponent starts its own degree at 1
    se.check_expression_size("((x**(1/2))**100)**10", "f")  # |exponent| < 1 counts as 1
    se.check_expression_size("((x**1)**100)**10", "f")
    assert message(lambda: se.check_expression_size("((x**2)**100)**10", "f")) == \
        "field 'f': nested powers reach degree 2000; at most 1000"


@pytest.mark.parametrize("text", ["1 + q", "x + q", "(q)", "2*x*q"])
def test_every_token_is_checked(text):
    assert message(lambda: se.parse_expression(text, "f", NAMES)).startswith(f"field 'f': unknown name 'q' in {text!r}")


def test_parse_failure_message_is_truncated_as_documented():
    import ast

    text = "x + " * 30 + "*"  # 121 characters, a syntax error at the end
    try:
        ast.parse(text, mode="eval")
    except SyntaxError as exc:
        expected = f"field 'f': cannot parse {text[:80]!r} (SyntaxError: {exc.msg[:120]})"
    assert message(lambda: se.check_expression_size(text, "f")) == expected


def test_schema_errors_name_the_source():
    assert message(lambda: op.parse_problem({}, "my.json")) == \
        "my.json: fields ['time', 'state', 'equations', 'initial', 'solution'] are missing"
    assert message(lambda: op.parse_problem({"time": "t"})).startswith("ODE file: fields ")
