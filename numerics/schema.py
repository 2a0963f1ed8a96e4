"""Declarative schemas for the JSON input files, and a strict, bounded JSON reader.

Each kind of input file (instance, extremal-vector data, ODE problem, results.json) is described by ONE
schema built from the node types below, next to the code that reads it. `validate` walks the parsed JSON
and raises a `RelucheckInputError` at the first problem, naming the file, the field (a path such as
``labels[3]`` or ``parameters.r``) and the violated condition:

* types: a number is a JSON number (no strings, no booleans), a text is a string, lists and objects are
  what the schema says;
* shapes: the axes of an `Array` have names ("n", "d"), and every array using a name must agree with the
  first one that fixed it; an `Obj` bounds each axis (e.g. d ∈ {2, 3});
* finiteness and magnitude: every number is finite and |x| ≤ its `Number.max_abs`, a bound derived from the
  arithmetic that consumes it (the reason is part of the schema and of the message);
* unknown keys are rejected with their names; free-form fields (``meta``) are bounded in depth.

`read_json_file` refuses what is not a readable regular JSON file (missing, a directory, too large, not
UTF-8, invalid JSON, NaN/Infinity constants, a key repeated in one object, a non-zero number that float64
reads as 0, nesting deeper than Python's parser takes) with a message naming the file and its role.
`naming` prefixes the same to errors found later in a file's content (a violated hypothesis).
"""
from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import RelucheckInputError

MAX_FILE_BYTES = 64 * 2**20  # 64 MiB of JSON: millions of numbers, far beyond what any command here works on
MAX_DEPTH = 32  # free-form fields (meta, check details) nest at most this deep
FLOAT64_MAX = 1.7976931348623157e308


@dataclass(frozen=True)
class Number:
    """A JSON number (int or float, never a bool) with |x| ≤ max_abs (``reason`` says why)."""

    max_abs: float
    reason: str
    integer: bool = False
    choices: tuple = ()
    minimum: float | None = None


@dataclass(frozen=True)
class Text:
    """A JSON string of at most ``max_len`` characters (one of ``choices`` if given)."""

    max_len: int = 200
    choices: tuple = ()


@dataclass(frozen=True)
class Array:
    """A rectangular nested list of numbers; axis k has the name dims[k] ("n", "d", or a fixed size "2")."""

    dims: tuple
    item: Number


@dataclass(frozen=True)
class ListOf:
    item: Any
    min_len: int = 0
    max_len: int = 100_000


@dataclass(frozen=True)
class MapOf:
    """An object with free keys (at most ``max_len``), every value matching ``value``."""

    value: Any
    max_len: int = 1000


@dataclass(frozen=True)
class OneOf:
    """Any of ``options`` (tried in order); ``description`` names them in the message."""

    options: tuple
    description: str


@dataclass(frozen=True)
class AnyJson:
    """Free-form JSON, kept as is, nested at most MAX_DEPTH deep."""


@dataclass(frozen=True)
class Obj:
    """An object with ``required`` and ``optional`` keys (nothing else); ``dims`` bounds named axes:
    name → (low, high, reason)."""

    required: dict
    optional: dict = field(default_factory=dict)
    dims: dict = field(default_factory=dict)


_JSON_TYPES = {Number: (int, float), Text: str, Array: list, ListOf: list, MapOf: dict, Obj: dict, AnyJson: object}


def _kind(value) -> str:
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string ({value[:40]!r}{'…' if len(value) > 40 else ''})"
    if isinstance(value, (int, float)):
        return f"the number {_short(value)}"
    return "a list" if isinstance(value, list) else "an object"


def _short(x) -> str:
    if isinstance(x, float) or abs(x) < 10**15:
        return f"{x:.6g}" if isinstance(x, float) else str(x)
    digits = str(abs(x))  # an int beyond float64's range has no float image; JSON's digit limit keeps str() cheap
    return f"{'-' if x < 0 else ''}{digits[0]}.{digits[1:6]}e+{len(digits) - 1:02d}"


class _Walk:
    def __init__(self, source: str):
        self.source = source
        self.dims: dict[str, tuple[int, str]] = {}

    def fail(self, path: str, condition: str):
        where = f"field '{path}': " if path else ""
        raise RelucheckInputError(f"{self.source}: {where}{condition}")

    def check(self, value, spec, path: str) -> None:
        getattr(self, "_" + type(spec).__name__.lower())(value, spec, path)

    def _number(self, v, spec: Number, path: str) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(path, f"expected a number, got {_kind(v)}")
        if isinstance(v, float) and not math.isfinite(v):
            self.fail(path, f"must be finite, got {v}")
        if abs(v) > spec.max_abs:
            self.fail(path, f"|value| must be ≤ {spec.max_abs:g} ({spec.reason}), got {_short(v)}")
        if spec.integer and not float(v).is_integer():
            self.fail(path, f"must be an integer, got {_short(v)}")
        if spec.choices and v not in spec.choices:
            self.fail(path, f"must be one of {list(spec.choices)}, got {_short(v)}")
        if spec.minimum is not None and v < spec.minimum:
            self.fail(path, f"must be ≥ {spec.minimum:g}, got {_short(v)}")

    def _text(self, v, spec: Text, path: str) -> None:
        if not isinstance(v, str):
            self.fail(path, f"expected a string, got {_kind(v)}")
        if len(v) > spec.max_len:
            self.fail(path, f"at most {spec.max_len} characters, got {len(v)}")
        if spec.choices and v not in spec.choices:
            self.fail(path, f"must be one of {list(spec.choices)}, got {v!r}")

    def _bind(self, name: str, size: int, path: str) -> None:
        if name.isdigit():
            if size != int(name):
                self.fail(path, f"expected {name} entries, got {size}")
            return
        if name not in self.dims:
            self.dims[name] = (size, path)
        elif self.dims[name][0] != size:
            first, where = self.dims[name]
            self.fail(path, f"has {size} entries but {name} = {first} (fixed by field '{where}'; shapes must match)")

    def _array(self, v, spec: Array, path: str, axis: int = 0) -> None:
        name = spec.dims[axis]
        if not isinstance(v, list):
            self.fail(path, f"expected a list (axis {name}), got {_kind(v)}")
        self._bind(name, len(v), path)
        last = axis == len(spec.dims) - 1
        for i, item in enumerate(v):
            if last:
                self._number(item, spec.item, f"{path}[{i}]")
            else:
                self._array(item, spec, f"{path}[{i}]", axis + 1)

    def _listof(self, v, spec: ListOf, path: str) -> None:
        if not isinstance(v, list):
            self.fail(path, f"expected a list, got {_kind(v)}")
        if not spec.min_len <= len(v) <= spec.max_len:
            self.fail(path, f"expected {spec.min_len} to {spec.max_len} entries, got {len(v)}")
        for i, item in enumerate(v):
            self.check(item, spec.item, f"{path}[{i}]")

    def _mapof(self, v, spec: MapOf, path: str) -> None:
        if not isinstance(v, dict):
            self.fail(path, f"expected an object, got {_kind(v)}")
        if len(v) > spec.max_len:
            self.fail(path, f"at most {spec.max_len} entries, got {len(v)}")
        for key, item in v.items():
            self.check(item, spec.value, f"{path}.{key}" if path else key)

    def _oneof(self, v, spec: OneOf, path: str) -> None:
        """The first option of v's JSON type decides (its message is the precise one); no such option: v's type is wrong."""
        for option in spec.options:
            if isinstance(v, _JSON_TYPES[type(option)]) and not (isinstance(v, bool) and isinstance(option, Number)):
                self.check(v, option, path)
                return
        self.fail(path, f"expected {spec.description}, got {_kind(v)}")

    def _anyjson(self, v, spec: AnyJson, path: str) -> None:
        stack = [(v, 0)]
        while stack:
            item, depth = stack.pop()
            if depth > MAX_DEPTH:
                self.fail(path, f"nested more than {MAX_DEPTH} levels deep")
            if isinstance(item, float) and not math.isfinite(item):
                self.fail(path, f"must hold finite numbers only, got {item}")
            children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
            stack.extend((c, depth + 1) for c in children)

    def _obj(self, v, spec: Obj, path: str) -> None:
        if not isinstance(v, dict):
            self.fail(path, f"expected a JSON object with fields {sorted(spec.required)}, got {_kind(v)}")
        allowed = [*spec.required, *spec.optional]
        unknown = sorted(k for k in v if k not in allowed)
        if unknown:
            self.fail(path, f"unknown field(s) {', '.join(repr(k) for k in unknown)}; allowed are "
                            f"{', '.join(allowed)}")
        missing = [f"{path}.{k}" if path else k for k in spec.required if k not in v]
        if missing:
            self.fail("", f"field '{missing[0]}' is missing" if len(missing) == 1 else f"fields {missing} are missing")
        for key, item in v.items():
            self.check(item, spec.required.get(key, spec.optional.get(key)), f"{path}.{key}" if path else key)
        for name, (low, high, reason) in spec.dims.items():
            if name in self.dims and not low <= self.dims[name][0] <= high:
                size, where = self.dims[name]
                self.fail(where, f"{name} = {size} is outside [{low}, {high}] ({reason})")


def validate(value, schema, source: str):
    """Check parsed JSON against ``schema``; return the axis sizes found ({"n": 4, …}), raise at the first problem.

    ``source`` names the input in messages, e.g. "instance file inst.json".
    """
    walk = _Walk(source)
    walk.check(value, schema, "")
    return {name: size for name, (size, _) in walk.dims.items()}


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number (numbers must be finite)")


class _Refused(ValueError):
    """Valid JSON that would be read as something else than what it says (the message says what and why)."""


def _unique_keys(pairs: list) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _Refused(f"the key {key!r} appears twice in one object (JSON readers would silently keep only "
                           "the last of its values)")
        seen.add(key)
    return dict(pairs)


def _float(text: str) -> float:
    """A JSON number with a fraction or exponent as float64; a non-zero literal that reads as 0 (below 4.9e-324)
    is refused: its value would change silently (a label 1e-400 is not a zero label). Beyond float64's range it
    reads as ±inf, which the schemas refuse as non-finite, naming the field."""
    value = float(text)
    if value == 0 and any(c in "123456789" for c in text.lower().split("e")[0]):
        raise _Refused(f"the number {text[:40]} is below float64's smallest positive number 4.9e-324 (it would "
                       "silently read as 0)")
    return value


MAX_INTEGER_DIGITS = 400  # every integer float64 can hold has at most 309 digits


def _int(text: str) -> int:
    """An integer literal of the JSON text; one longer than any float64 refused by its length (Python's own limit,
    4300 digits, ended in a message about sys.set_int_max_str_digits)."""
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _Refused(f"the integer {text[:12]}… has {digits} digits; numbers must fit float64 (at most 309 digits)")
    return int(text)


def read_json_file(path, what: str = "instance"):
    """Parse a JSON file; anything that is not a readable regular JSON file is an error naming it and its role."""
    label = f"{what} file {path}"
    p = Path(path)
    try:
        if str(path) == "":  # Path("") is the working folder
            raise RelucheckInputError(f"{what} file '': an empty path, expected a JSON file")
        if p.is_dir():
            raise RelucheckInputError(f"{label}: is a directory, expected a JSON file")
        if p.exists() and not p.is_file():  # a FIFO or a device (/dev/zero) would be read forever
            raise RelucheckInputError(f"{label}: not a regular file, expected a JSON file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RelucheckInputError(f"{label}: {size} bytes, more than the {MAX_FILE_BYTES // 2**20} MiB accepted")
        text = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise RelucheckInputError(f"{label}: not found") from None
    except UnicodeDecodeError as exc:
        raise RelucheckInputError(f"{label}: not UTF-8 text (byte {exc.start}), expected JSON") from None
    except OSError as exc:
        raise RelucheckInputError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_float, parse_int=_int,
                          object_pairs_hook=_unique_keys)
    except _Refused as exc:
        raise RelucheckInputError(f"{label}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RelucheckInputError(f"{label}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise RelucheckInputError(f"{label}: JSON nested too deeply for the parser (inputs need at most "
                                  f"{MAX_DEPTH} levels)") from None
    except ValueError as exc:  # NaN/Infinity constants, integer literals beyond Python's digit limit
        raise RelucheckInputError(f"{label}: not valid JSON ({exc})") from None


@contextlib.contextmanager
def naming(label: str):
    """Inside: a `RelucheckInputError` (its subclass kept) whose message does not start with ``label`` gets it
    prefixed, e.g. "instance file x.json: Assumption 4(ii) … violated" (every input error names its file)."""
    try:
        yield
    except RelucheckInputError as exc:
        message = exc.args[0] if exc.args else type(exc).__name__
        if not str(message).startswith(label):
            exc.args = (f"{label}: {message}",)
        raise


def load_json(path, schema, what: str):
    """`read_json_file` then `validate`: the parsed value and the axis sizes."""
    raw = read_json_file(path, what)
    return raw, validate(raw, schema, f"{what} file {path}")
