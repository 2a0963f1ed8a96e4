"""The input of `relucheck check-ode`: an initial-value problem y' = f(t, y), y(0) = y_0 with a candidate
closed form, read from JSON (`ODE_SCHEMA`) into SymPy expressions safely and within bounded size.

Fields: ``time`` (a name), ``state`` (names), ``parameters`` (name → [low, high]), ``equations`` (state →
right-hand side), ``initial`` (state → value at time 0), ``solution`` (state → candidate in terms of
time and parameters), optionally ``time_span`` ([0, T], default [0, 1]) and ``meta``; nothing else.

Safety: every expression is parsed, never evaluated (`theory.safe_expression`: a walker over Python's syntax
tree that builds SymPy objects, with bounded sizes). Names are compared in their Unicode NFKC form, the form
Python's parser gives them: two declared names that normalize alike, or one that normalizes to a function or
constant (``ℰ`` is ``E``), are refused by name. Anything else is a `RelucheckInputError` naming the field and
the condition, prefixed with the file by `parse_problem`.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.schema import AnyJson, Array, ListOf, MapOf, Number, Obj, OneOf, Text, validate

from .safe_expression import MAX_EXPRESSION_CHARS, declared_name, normalize, parse_expression

safe_parse = parse_expression  # the name under which tests and callers have known it

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


def _distinct(written: list) -> None:
    """Refuse two names that are one name to Python's parser (equal after NFKC normalization)."""
    normal = [normalize(w) for w in written]
    if len(set(normal)) != len(normal):
        alike = sorted({f"{w!r} is {n!r}" for w, n in zip(written, normal) if w != n and normal.count(n) > 1})
        how = f" ({'; '.join(alike)} after Unicode NFKC normalization, as Python reads names)" if alike else ""
        twice = sorted({w for w, n in zip(written, normal) if normal.count(n) > 1})
        raise RelucheckInputError(f"time, state and parameter names must be distinct: {', '.join(map(repr, twice))} "
                                  f"{'is given more than once' if len(twice) == 1 else 'are one name'}{how}")


def _build(data) -> OdeProblem:
    span = _interval(data.get("time_span", [0, 1]), "time_span")
    if span[0] != 0 or span[1] <= 0:
        raise RelucheckInputError(f"field 'time_span': must be [0, T] with T > 0, got {list(span)}")
    t = sp.Symbol(declared_name(data["time"], "time"), nonnegative=True)  # nonnegative implies real in SymPy
    written_states = list(data["state"])
    state_names = [declared_name(s, "state") for s in written_states]
    params = {}
    for name, rng in data.get("parameters", {}).items():
        low, high = _interval(rng, f"parameters.{name}")
        assumptions = {"positive": True} if low > 0 else {"real": True}
        params[sp.Symbol(declared_name(name, "parameters"), **assumptions)] = (low, high)
    _distinct([data["time"], *written_states, *data.get("parameters", {})])
    states = tuple(sp.Symbol(s, real=True) for s in state_names)
    written = dict(zip(states, written_states))
    base = {t.name: t, **{s.name: s for s in params}}
    with_state = {**base, **{s.name: s for s in states}}

    def per_state(key, names):
        block = data[key]
        by_name = {normalize(k): v for k, v in block.items()}
        if len(by_name) != len(block) or set(by_name) != set(state_names):
            raise RelucheckInputError(f"field '{key}': expected one entry per state {written_states}, got {sorted(block)}")
        return {s: parse_expression(by_name[s.name], f"{key}.{written[s]}", names) for s in states}

    equations = per_state("equations", with_state)
    initial = per_state("initial", {s.name: s for s in params})
    solution = per_state("solution", base)
    return OdeProblem(t, states, params, equations, initial, solution, span)
