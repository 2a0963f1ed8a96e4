"""The input of `relucheck check-ode`: an initial-value problem y' = f(t, y), y(0) = y_0 with a candidate
closed form, read from JSON (`ODE_SCHEMA`) into SymPy expressions safely and within bounded size.

Fields: ``time`` (a name), ``state`` (names), ``parameters`` (name → [low, high]), ``equations`` (state →
right-hand side), ``initial`` (state → value at time 0), ``solution`` (state → candidate in terms of
time and parameters), optionally ``time_span`` ([0, T], default [0, 1]) and ``meta``; nothing else.

Safety: strings are never passed to ``sympify`` (which evaluates Python). Each string is tokenized first
and only numbers, the operators ``+ - * / ^ ** ( ) ,`` and the declared names (time, states, parameters)
plus a fixed list of mathematical functions are accepted. Then its Python syntax tree is measured before
SymPy sees it (`check_expression_size`), because ``parse_expr`` evaluates constant arithmetic: ``9**9**9**9``
would run for minutes and take gigabytes. Bounded are the length, the number of nodes, the depth, integer
literals, and powers: a constant exponent must be a rational number (literals with + − * /, no power
inside: no towers) of size ≤ `MAX_CONSTANT_EXPONENT`, and nested constant powers multiply to at most
`MAX_POWER_DEGREE`. Only then does ``parse_expr`` run, with the declared names as its only namespace.
Anything else is a `RelucheckInputError` naming the field and the condition.
"""
from __future__ import annotations

import ast
import io
import keyword
import math
import tokenize
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.schema import AnyJson, Array, ListOf, MapOf, Number, Obj, OneOf, Text, validate

FUNCTIONS = {
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh, "Abs": sp.Abs, "abs": sp.Abs,
}
CONSTANTS = {"pi": sp.pi, "E": sp.E}
_NUMBER_CLASSES = {"Integer": sp.Integer, "Float": sp.Float, "Rational": sp.Rational}
_OPERATORS = {"+", "-", "*", "/", "^", "**", "(", ")", ","}
_RESERVED = set(FUNCTIONS) | set(CONSTANTS) | set(_NUMBER_CLASSES) | {"Symbol"}

# Size limits of one expression. The closed forms of papers A–C take a few hundred characters and a few
# dozen nodes; the limits leave an order of magnitude of room and keep SymPy's work per expression small.
MAX_EXPRESSION_CHARS = 2000
MAX_NODES = 500
MAX_DEPTH = 40  # also keeps Python's own parser and SymPy's recursive code far from the recursion limit
MAX_INTEGER_DIGITS = 30
MAX_CONSTANT_EXPONENT = 100  # x**100 is a polynomial of degree 100; 9**100 has 96 digits
MAX_POWER_DEGREE = 1000  # product of constant exponents along nested powers: ((x**10)**10)**10 has degree 1000
MAX_STATES = 16
MAX_PARAMETERS = 32
# Parameter ranges and T: the float64 integration squares and exponentiates them; 1e100 leaves room for that.
RANGE_MAX_ABS = 1e100

_BOUND = Number(RANGE_MAX_ABS, "the float64 integration must be able to square parameter values")
_EXPRESSION = OneOf((Text(MAX_EXPRESSION_CHARS), _BOUND), "an expression (a string) or a number")
_NAME = Text(64)
ODE_SCHEMA = Obj(
    required={"time": _NAME, "state": ListOf(_NAME, 1, MAX_STATES), "equations": MapOf(_EXPRESSION, MAX_STATES),
              "initial": MapOf(_EXPRESSION, MAX_STATES), "solution": MapOf(_EXPRESSION, MAX_STATES)},
    optional={"parameters": MapOf(Array(("2",), _BOUND), MAX_PARAMETERS), "time_span": Array(("2",), _BOUND),
              "meta": MapOf(AnyJson())},
)


@dataclass
class OdeProblem:
    time: sp.Symbol
    state: tuple
    parameters: dict  # Symbol -> (low, high)
    equations: dict  # state Symbol -> rhs
    initial: dict  # state Symbol -> value
    solution: dict  # state Symbol -> candidate
    time_span: tuple = (0.0, 1.0)


def _name(value, field: str) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value) or value.startswith("_"):
        raise RelucheckInputError(f"field '{field}': {value!r} is not a valid name (an identifier not starting with '_')")
    if value in _RESERVED:
        raise RelucheckInputError(f"field '{field}': the name {value!r} is reserved for a function or constant")
    return value


def _constant_exponent(node, fail) -> Fraction:
    """The exact value of a name-free exponent made of literals and + − * / (anything else fails)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _constant_exponent(node.operand, fail)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _constant_exponent(node.left, fail), _constant_exponent(node.right, fail)
        if isinstance(node.op, ast.Div):
            if b == 0:
                fail("division by zero in an exponent")
            return a / b
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        fail("a power inside a constant exponent (a power tower such as 9**9**9) is not allowed")
    fail("a constant exponent must be a rational number (literals with + - * /)")


def check_expression_size(text: str, field: str) -> None:
    """Refuse an expression whose evaluation by SymPy could be unbounded (limits in the module docstring)."""
    def fail(condition: str):
        raise RelucheckInputError(f"field '{field}': {condition}")

    if len(text) > MAX_EXPRESSION_CHARS:
        fail(f"expression of {len(text)} characters; at most {MAX_EXPRESSION_CHARS}")
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        fail(f"cannot parse {text[:80]!r} ({type(exc).__name__}: {exc})")  # Python's parse messages are one short line
    nodes = 0

    def walk(node, depth: int, degree: Fraction) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > MAX_NODES:
            fail(f"expression has more than {MAX_NODES} nodes")
        if depth > MAX_DEPTH:
            fail(f"expression nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int) and abs(node.value) >= 10**MAX_INTEGER_DIGITS:
                fail(f"integer literal with more than {MAX_INTEGER_DIGITS} digits")
            if isinstance(node.value, float) and not math.isfinite(node.value):
                fail(f"number literal overflows float64 ({text[node.col_offset:node.end_col_offset]!r})")
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            if any(isinstance(n, ast.Name) and n.id not in CONSTANTS for n in ast.walk(node.right)):
                walk(node.left, depth + 1, degree)  # a symbolic exponent: SymPy keeps the power unevaluated
                walk(node.right, depth + 1, Fraction(1))
                return
            exponent = _constant_exponent(node.right, fail)
            if abs(exponent) > MAX_CONSTANT_EXPONENT:
                fail(f"constant exponent {float(exponent):g}; |exponent| must be ≤ {MAX_CONSTANT_EXPONENT}")
            degree *= max(abs(exponent), 1)
            if degree > MAX_POWER_DEGREE:
                fail(f"nested powers reach degree {float(degree):g}; at most {MAX_POWER_DEGREE}")
            walk(node.left, depth + 1, degree)
            walk(node.right, depth + 1, Fraction(1))  # pragma: no mutate - holds no power (_constant_exponent), degree unread
            return
        for child in ast.iter_child_nodes(node):
            walk(child, depth + 1, degree)

    walk(tree.body, 0, Fraction(1))


def safe_parse(text, field: str, names: dict) -> sp.Expr:
    """Parse one expression string using only ``names`` (plus numbers, operators, FUNCTIONS, CONSTANTS)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool) and math.isfinite(text):
        text = repr(text)
    if not isinstance(text, str) or not text.strip():
        raise RelucheckInputError(f"field '{field}': expected an expression string, got {text!r}")
    if len(text) > MAX_EXPRESSION_CHARS:  # the limit is on the field as given, blanks included
        raise RelucheckInputError(f"field '{field}': expression of {len(text)} characters; at most {MAX_EXPRESSION_CHARS}")
    text = text.strip()  # surrounding blanks are layout (a leading one would reach the tokenizer as an indent)
    allowed = {**names, **FUNCTIONS, **CONSTANTS}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise RelucheckInputError(f"field '{field}': cannot tokenize {text!r} ({exc})") from None
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NUMBER:
            if tok.string.lower().endswith("j"):
                raise RelucheckInputError(f"field '{field}': complex literal {tok.string!r} not allowed")
            continue
        if tok.type == tokenize.NAME:
            if tok.string not in allowed:
                raise RelucheckInputError(f"field '{field}': unknown name {tok.string!r} in {text!r}; allowed are the "
                                          f"declared time, states and parameters and {sorted(FUNCTIONS) + sorted(CONSTANTS)}")
            continue
        if tok.type == tokenize.OP and tok.string in _OPERATORS:
            continue
        raise RelucheckInputError(f"field '{field}': token {tok.string!r} not allowed in {text!r}")
    check_expression_size(text, field)
    try:
        # every name was checked above; the restricted global namespace is a second guard (pragma: not observable)
        expr = parse_expr(text, local_dict=dict(allowed), global_dict=dict(_NUMBER_CLASSES),  # pragma: no mutate
                          transformations=(auto_number, convert_xor))
    except Exception as exc:  # any parser failure is bad input in this field
        raise RelucheckInputError(f"field '{field}': cannot parse {text!r} ({type(exc).__name__}: {exc})") from None
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.Tuple):
        raise RelucheckInputError(f"field '{field}': {text!r} is not a single expression")
    return expr


def _interval(value, field: str) -> tuple[float, float]:
    low, high = (float(v) for v in value)  # two finite numbers: ODE_SCHEMA
    if not low <= high:
        raise RelucheckInputError(f"field '{field}': need low ≤ high, got [{low}, {high}]")
    return low, high


def parse_problem(data, source: str = "ODE file") -> OdeProblem:
    """An `OdeProblem` from the JSON object of `relucheck check-ode`; errors start with ``source`` and name the field."""
    validate(data, ODE_SCHEMA, source)
    try:
        return _build(data)
    except RelucheckInputError as exc:
        exc.args = (f"{source}: {exc.args[0]}",)
        raise


def _build(data) -> OdeProblem:
    span = _interval(data.get("time_span", [0, 1]), "time_span")
    if span[0] != 0 or span[1] <= 0:
        raise RelucheckInputError(f"field 'time_span': must be [0, T] with T > 0, got {list(span)}")
    t = sp.Symbol(_name(data["time"], "time"), nonnegative=True)  # nonnegative implies real in SymPy
    state_names = [_name(s, "state") for s in data["state"]]
    params = {}
    for name, rng in data.get("parameters", {}).items():
        low, high = _interval(rng, f"parameters.{name}")
        assumptions = {"positive": True} if low > 0 else {"real": True}
        params[sp.Symbol(_name(name, "parameters"), **assumptions)] = (low, high)
    all_names = [t.name, *state_names, *(s.name for s in params)]
    if len(set(all_names)) != len(all_names):
        raise RelucheckInputError(f"time, state and parameter names must be distinct, got {all_names}")
    states = tuple(sp.Symbol(s, real=True) for s in state_names)
    base = {t.name: t, **{s.name: s for s in params}}
    with_state = {**base, **{s.name: s for s in states}}

    def per_state(key, names):
        block = data[key]
        if set(block) != set(state_names):
            raise RelucheckInputError(f"field '{key}': expected one entry per state {state_names}, got {sorted(block)}")
        return {s: safe_parse(block[s.name], f"{key}.{s.name}", names) for s in states}

    equations = per_state("equations", with_state)
    initial = per_state("initial", {s.name: s for s in params})
    solution = per_state("solution", base)
    return OdeProblem(t, states, params, equations, initial, solution, span)
