"""Parse, never evaluate: an expression string from a file becomes a SymPy expression without any of it being run
(issue 20, item 1).

The text is given to Python's parser only (``ast.parse``: it builds a syntax tree and executes nothing; its one
audit event is ``compile`` with the file name `PARSE_FILENAME`). The tree is then walked against a whitelist and the
SymPy object is built by calling SymPy constructors on objects already built: no string ever reaches ``sympify``,
``parse_expr``, ``eval``, ``exec`` or ``compile`` to code.

Grammar: numbers (integer literals of at most `MAX_INTEGER_DIGITS` digits → ``Integer``; decimal literals →
``Float`` of the literal's digits, as SymPy's parser gives them), the declared names, the constants `CONSTANTS`,
calls ``f(arg)`` of the functions `FUNCTIONS` (``log`` also ``log(x, base)``), unary ``+ -``, binary
``+ - * / ** ^`` (``^`` is ``**``, with the precedence of ``**``) and parentheses. Everything else is refused:
attributes, subscripts, calls of other names, keyword or starred arguments, lambdas, comprehensions, strings,
f-strings, ``:=``, comparisons, conditionals, containers, comments.

Names: Python's parser normalizes identifiers with Unicode NFKC (PEP 3131), so ``ｅｘｉｔ`` and ``exit`` are one
name to it. Declared names are normalized the same way (`declared_name`) before any check, so a name is compared in
the form Python would use; a declared name that normalizes to a function or constant (``ℰ`` → ``E``) is refused,
and a name in an expression that is not ASCII after normalization must be declared.

Size: before SymPy sees anything the syntax tree is measured (`check_expression_size`): at most
`MAX_EXPRESSION_CHARS` characters, `MAX_NODES` nodes, depth `MAX_DEPTH` (a chain of + and −, or of * and /, is one
level: `operand_chain`); a constant exponent is a rational number
(literals with + − * /, no power inside it: no towers such as ``9**9**9``) with |exponent| ≤
`MAX_CONSTANT_EXPONENT`, and nested constant powers multiply to a degree ≤ `MAX_POWER_DEGREE`. While building, SymPy
folds constants (``a*0 + 1000`` is ``1000``), so the same bounds are applied again to the built objects, an exact
number of more than `MAX_EXACT_DIGITS` digits is refused, and so is an expression without a finite value
(``1/0`` is ``zoo``). Every refusal is a `RelucheckInputError` naming the field and the violated condition.
"""
from __future__ import annotations

import ast
import keyword
import math
import operator
import unicodedata
from fractions import Fraction

import sympy as sp

from relucheck.numerics.errors import RelucheckInputError

FUNCTIONS = {
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh, "Abs": sp.Abs, "abs": sp.Abs,
}
_ARITY = {"log": (1, 2)}  # log(x, base); every other function takes one argument
CONSTANTS = {"pi": sp.pi, "E": sp.E}
RESERVED = frozenset(FUNCTIONS) | frozenset(CONSTANTS)
PARSE_FILENAME = "<relucheck expression>"  # the file name of the parser's one audit event ("compile")

# Size limits of one expression. The closed forms of papers A–C take a few hundred characters and a few
# dozen nodes; the limits leave an order of magnitude of room and keep SymPy's work per expression small.
MAX_EXPRESSION_CHARS = 2000
MAX_NODES = 500
MAX_DEPTH = 40  # also keeps this module's recursion and SymPy's recursive code far from the recursion limit
MAX_INTEGER_DIGITS = 30
MAX_CONSTANT_EXPONENT = 100  # x**100 is a polynomial of degree 100; 9**100 has 96 digits
MAX_POWER_DEGREE = 1000  # product of constant exponents along nested powers: ((x**10)**10)**10 has degree 1000
# An exact number SymPy folds while building: 1000 digits hold every constant the limits above let a paper's
# closed form need (30-digit literals to the power 30), and stay far below Python's 4300-digit limit on int → str.
MAX_EXACT_DIGITS = 1000
# SymPy evaluates constants numerically (exp(5.0) at once; exp(exp(exp(exp(5)))) + 1 when it orders the sum), and exp,
# sin, … reduce their argument with about log2|x| extra bits: exp(exp(exp(exp(5)))) would need 10^64 bits and never
# end. So the argument of such a function, and a power's exponent, may be a constant of magnitude ≤ 1e300 only; by
# induction every constant then costs at most ~1000 extra bits. Beyond 1e300 a number is of no use to the float64
# integration anyway.
MAX_FUNCTION_ARGUMENT = 1e300
_REDUCING = frozenset({"exp", "sin", "cos", "tan", "sinh", "cosh", "tanh"})  # functions that reduce their argument
_LOG10_2 = math.log10(2)
# A decimal number (SymPy Float) that float64 cannot hold is of no use to the integration, and SymPy's arithmetic on
# Floats of exponent 10^299 (cosh(1e300)) builds multiprecision fields of that size: binary exponents of float64's
# normal and subnormal numbers only.
_FLOAT64_BINARY_EXPONENTS = (-1073, 1024)

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.Mod: "%",
              ast.FloorDiv: "//", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
              ast.LShift: "<<", ast.RShift: ">>", ast.Invert: "~", ast.Not: "not", ast.UAdd: "+", ast.USub: "-",
              ast.And: "and", ast.Or: "or"}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_SAME_LEVEL = ((ast.Add, ast.Sub), (ast.Mult, ast.Div))  # left-associative chains that count as one level of nesting


def operand_chain(node: ast.BinOp) -> tuple[ast.expr, list[tuple[ast.operator, ast.expr]]]:
    """``a − b + c`` as (a, [(−, b), (+, c)]): Python nests a flat sum to the left, one level per term, so a polynomial
    of 60 terms would be 60 levels deep; a chain of + and − (or of * and /) is one level instead, walked without
    recursion (`check_expression_size`, `_Builder.binary`)."""
    group = next(ops for ops in _SAME_LEVEL if isinstance(node.op, ops))
    rest = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, group):
        rest.append((node.op, node.right))
        node = node.left
    return node, rest[::-1]
_REFUSED = {ast.Attribute: "attribute access ('.')", ast.Subscript: "a subscript ('[…]')",
            ast.Lambda: "a lambda", ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
            ast.DictComp: "a comprehension", ast.GeneratorExp: "a comprehension", ast.JoinedStr: "an f-string",
            ast.FormattedValue: "an f-string", ast.NamedExpr: "an assignment expression (':=')",
            ast.Starred: "a starred expression", ast.Compare: "a comparison", ast.IfExp: "a conditional expression",
            ast.List: "a list", ast.Set: "a set", ast.Dict: "a dict", ast.Slice: "a slice",
            ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield"}


def _shown(number) -> str:
    """A number of a message in %g form, or its sign and "beyond 1e308" (a Fraction or Rational of 400 digits)."""
    try:
        return f"{float(number):g}"
    except OverflowError:
        return "below -1e308" if number < 0 else "beyond 1e308"


def _refuse(field: str, condition: str):
    raise RelucheckInputError(f"field '{field}': {condition}")


def normalize(name: str) -> str:
    """``name`` as Python's parser reads an identifier: Unicode NFKC (PEP 3131)."""
    return unicodedata.normalize("NFKC", name)


def declared_name(value, field: str) -> str:
    """A declared name (time, state or parameter) in its NFKC form; refused if it is no identifier, starts with
    ``_``, is a keyword, or is (after normalization) a function or constant of the grammar."""
    if not isinstance(value, str) or not value.isidentifier():
        _refuse(field, f"{value!r} is not a valid name (an identifier not starting with '_')")
    name = normalize(value)
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        _refuse(field, f"{value!r} is not a valid name (an identifier not starting with '_')")
    if name in RESERVED:
        as_read = "" if name == value else f" (read as {name!r} after Unicode NFKC normalization, as Python reads it)"
        _refuse(field, f"the name {value!r}{as_read} is reserved for a function or constant")
    return name


# -- measuring the syntax tree before SymPy sees it -------------------------------------------------------------

def _constant_exponent(node, fail) -> Fraction:
    """The exact value of a name-free exponent made of literals and + − * / (anything else fails)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
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


def _syntax_tree(text: str, field: str) -> ast.expr:
    """Python's syntax tree of ``text`` (``^`` read as ``**``); nothing is executed."""
    if len(text) > MAX_EXPRESSION_CHARS:
        _refuse(field, f"expression of {len(text)} characters; at most {MAX_EXPRESSION_CHARS}")
    if "#" in text:
        _refuse(field, f"a comment ('#') is not allowed in {text[:80]!r}")
    try:
        return ast.parse(text.replace("^", "**"), filename=PARSE_FILENAME, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        msg = (exc.msg if isinstance(exc, SyntaxError) else str(exc))[:120]  # Python's parse messages: one short line
        _refuse(field, f"cannot parse {text[:80]!r} ({type(exc).__name__}: {msg})")


def check_expression_size(text: str, field: str) -> ast.expr:
    """The syntax tree of ``text`` if its size is within the limits of the module docstring (else refused)."""
    tree = _syntax_tree(text, field)
    nodes = 0

    def fail(condition: str):
        _refuse(field, condition)

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
                fail(f"number literal overflows float64 ({ast.get_source_segment(tree_text, node)!r})")
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            if any(isinstance(n, ast.Name) and n.id not in CONSTANTS for n in ast.walk(node.right)):
                walk(node.left, depth + 1, degree)  # a symbolic exponent: SymPy keeps the power unevaluated
                walk(node.right, depth + 1, Fraction(1))
                return
            exponent = _constant_exponent(node.right, fail)
            if abs(exponent) > MAX_CONSTANT_EXPONENT:
                fail(f"constant exponent {_shown(exponent)}; |exponent| must be ≤ {MAX_CONSTANT_EXPONENT}")
            degree *= max(abs(exponent), 1)
            if degree > MAX_POWER_DEGREE:
                fail(f"nested powers reach degree {_shown(degree)}; at most {MAX_POWER_DEGREE}")
            walk(node.left, depth + 1, degree)
            walk(node.right, depth + 1, Fraction(1))  # pragma: no mutate - holds no power (_constant_exponent), degree unread
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, tuple(_ARITHMETIC)):
            first, rest = operand_chain(node)
            nodes += 2 * len(rest) - 1  # the chain's other BinOp nodes and its operator nodes, as ast.walk counts them
            for operand in (first, *(operand for _, operand in rest)):
                walk(operand, depth + 1, degree)
            return
        for child in ast.iter_child_nodes(node):
            walk(child, depth + 1, degree)

    tree_text = text.replace("^", "**")
    walk(tree, 0, Fraction(1))
    return tree


# -- building the SymPy object ---------------------------------------------------------------------------------

def _digits(n: int) -> int:
    """A lower bound of the decimal digits of |n| from its bit length (no int → str conversion)."""
    return int((abs(n).bit_length() - 1) * _LOG10_2) + 1 if n else 1


def _complex(value) -> complex:
    """A constant at 15 digits (inf beyond float64, nan without a numeric value); cheap when its functions' arguments
    are moderate."""
    try:
        return complex(value.evalf(15))
    except (TypeError, ValueError, ArithmeticError):  # no numeric value SymPy can give
        return complex(math.nan)


def magnitude(value) -> float:
    """|value| of a constant at 15 digits (inf beyond float64, nan without a numeric value)."""
    return abs(_complex(value))


class _Builder:
    """Builds the SymPy object of a measured syntax tree (depth ≤ MAX_DEPTH, so the recursion is bounded)."""

    def __init__(self, text: str, source: str, field: str, names: dict):
        self.text, self.source, self.field, self.names = text, source, field, names

    def fail(self, condition: str):
        _refuse(self.field, condition)

    def segment(self, node) -> str:
        return ast.get_source_segment(self.source, node) or "?"

    def check_names(self, tree) -> None:
        """Every name, in the order of the text, is declared, a constant or a called function."""
        allowed = {*self.names, *FUNCTIONS, *CONSTANTS}
        for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name)),
                           key=lambda n: (n.lineno, n.col_offset)):
            if node.id in allowed:
                continue
            written = self.segment(node)
            as_read = "" if written == node.id else f" (read as {node.id!r} after Unicode NFKC normalization)"
            if not node.id.isascii():
                self.fail(f"name {written!r}{as_read} in {self.text!r} is not ASCII and not declared")
            self.fail(f"unknown name {written!r}{as_read} in {self.text!r}; allowed are the declared time, states "
                      f"and parameters and {sorted(FUNCTIONS) + sorted(CONSTANTS)}")

    def bounded(self, expr):
        """``expr`` if it has a finite value and SymPy's folding kept every exact number and every constant power
        within the limits."""
        if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            self.fail(f"{self.text[:80]!r} has no finite value (SymPy gives {sp.sstr(expr)[:80]}: a division by zero "
                      "or the logarithm of 0)")
        for sub in sp.preorder_traversal(expr):
            if isinstance(sub, sp.Float) and sub != 0 and not _FLOAT64_BINARY_EXPONENTS[0] <= sum(sub._mpf_[2:]) <= \
                    _FLOAT64_BINARY_EXPONENTS[1]:  # mpf (sign, mantissa, exponent, bits): |x| ≈ 2^(exponent + bits)
                self.fail(f"a decimal number beyond float64's range arises in {self.text[:80]!r}")
            if isinstance(sub, sp.Rational) and max(_digits(sub.p), _digits(sub.q)) > MAX_EXACT_DIGITS:
                self.fail(f"an exact number of more than {MAX_EXACT_DIGITS} digits arises in {self.text[:80]!r}")
            if isinstance(sub, sp.Pow) and sub.exp.is_Number and abs(sub.exp) > MAX_POWER_DEGREE:
                self.fail(f"nested powers reach degree {_shown(abs(sub.exp))}; at most {MAX_POWER_DEGREE}")
        return expr

    def build(self, node):
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            if node.id in FUNCTIONS:
                self.fail(f"the function {node.id!r} is used without an argument in {self.text!r}")
            return self.names[node.id] if node.id in self.names else CONSTANTS[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            return self.apply(operator.neg if isinstance(node.op, ast.USub) else operator.pos, self.build(node.operand))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            return self.binary(node)
        if isinstance(node, (ast.UnaryOp, ast.BinOp, ast.BoolOp)):
            self.fail(f"token {_OPERATORS.get(type(node.op), '?')!r} not allowed in {self.text!r}")
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Tuple):
            self.fail(f"{self.text!r} is not a single expression")
        what = _REFUSED.get(type(node), f"a {type(node).__name__} node")
        self.fail(f"{what} not allowed in {self.text!r}")

    def number(self, node):
        value, written = node.value, self.segment(node)
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            kind = "a string literal" if isinstance(value, (str, bytes)) else "the constant"
            self.fail(f"{kind} {written!r} not allowed in {self.text!r}")
        if isinstance(value, complex):
            self.fail(f"complex literal {written!r} not allowed")
        if isinstance(value, int):
            return sp.Integer(value)
        return sp.Float(written.replace("_", ""))  # the literal's digits, as SymPy's own parser reads them

    def binary(self, node):
        if isinstance(node.op, ast.Pow):
            exponent = self.build(node.right)  # first: a folded constant exponent is bounded before any power
            if exponent.is_Number and abs(exponent) > MAX_CONSTANT_EXPONENT:
                self.fail(f"constant exponent {_shown(exponent)}; |exponent| must be ≤ {MAX_CONSTANT_EXPONENT}")
            self.moderate(exponent, "the exponent")
            return self.apply(operator.pow, self.build(node.left), exponent)
        first, rest = operand_chain(node)
        out = self.build(first)
        for op, operand in rest:
            out = self.apply(_ARITHMETIC[type(op)], out, self.build(operand))
        return out

    def call(self, node):
        if not isinstance(node.func, ast.Name):
            what = _REFUSED.get(type(node.func), "an expression")
            self.fail(f"a call of {what} not allowed in {self.text!r}")
        name = node.func.id
        if name not in FUNCTIONS:
            written = self.segment(node.func)
            as_read = "" if written == name else f" (read as {name!r} after Unicode NFKC normalization)"
            self.fail(f"call of {written!r}{as_read} not allowed in {self.text!r}: only the functions "
                      f"{sorted(FUNCTIONS)} can be called")
        if node.keywords:
            self.fail(f"keyword arguments not allowed in {self.text!r}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(f"a starred argument not allowed in {self.text!r}")
        arity = _ARITY.get(name, (1,))
        if len(node.args) not in arity:
            self.fail(f"{name} takes {' or '.join(map(str, arity))} argument(s), got {len(node.args)} in {self.text!r}")
        args = [self.build(a) for a in node.args]
        if name == "log" and len(args) == 2 and args[1].is_number and args[1] in (0, 1):
            self.fail(f"log with base {args[1]} has no value in {self.text[:80]!r}")  # SymPy: log(t, 0) = 0, log(t, 1) = zoo
        if name in _REDUCING:
            self.moderate(args[0], f"the argument of {name}", real=True)
        return self.apply(FUNCTIONS[name], *args)

    def moderate(self, value, what: str, real: bool = False) -> None:
        """Refuse a constant ``value`` of magnitude beyond MAX_FUNCTION_ARGUMENT (see there), or, with ``real``, one
        that is not real (SymPy's assumptions on cosh(acos(-2)**100) take seconds and grow with the power); symbols
        pass."""
        if not value.is_number:
            return
        z = _complex(value)
        if not abs(z) <= MAX_FUNCTION_ARGUMENT:
            self.fail(f"{what} is a constant beyond {MAX_FUNCTION_ARGUMENT:g} in absolute value in {self.text[:80]!r}")
        if real and z.imag != 0:
            self.fail(f"{what} is a constant that is not real in {self.text[:80]!r}")

    def apply(self, operation, *args):
        """``operation(*args)`` bounded; SymPy's numeric evaluation failing on a valid tree is a refusal too."""
        try:
            result = operation(*args)
        except (ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError, MemoryError,
                RecursionError) as exc:  # SymPy's own failures (a TypeError in its cache wrapper ends as AttributeError)
            self.fail(f"SymPy cannot evaluate a constant in {self.text[:80]!r} ({type(exc).__name__}: {str(exc)[:80]})")
        return self.bounded(result)


def parse_expression(value, field: str, names: dict) -> sp.Expr:
    """The SymPy expression of ``value`` (a string, or a finite JSON number) over ``names`` (NFKC name → Symbol) and
    the grammar of the module docstring; anything else is a `RelucheckInputError` naming ``field``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        value = repr(value)
    if not isinstance(value, str) or not value.strip():
        _refuse(field, f"expected an expression string, got {value!r}")
    if len(value) > MAX_EXPRESSION_CHARS:  # the limit is on the field as given, blanks included
        _refuse(field, f"expression of {len(value)} characters; at most {MAX_EXPRESSION_CHARS}")
    text = value.strip()  # surrounding blanks are layout (a leading one would be an indent to Python's parser)
    tree = check_expression_size(text, field)
    builder = _Builder(text, text.replace("^", "**"), field, {normalize(k): v for k, v in names.items()})
    builder.check_names(tree)
    return builder.build(tree)
