"""Numbers, values and prose for a reader, as LaTeX (the appendix, report.tex): ONE number formatter (`num`:
siunitx ``\\num{…}`` with the significant digits a tolerance warrants, `significant_digits`), values that are
shown or summarized but never dumped (`value`: no ``np.float64(…)``, ``Matrix(…)``, list or dict reprs), and
`prose` for the texts of checks (tolerance reasons, findings, mutations): numbers, powers, code and options
typeset, so that no raw exponent, caret, long float or en-dashed option reaches the page (issue 21).
"""
from __future__ import annotations

import math
import re
from decimal import Decimal

from .latex import escape, identifier


def significant_digits(value: float, tolerance=None, *, low: int = 2, high: int = 6) -> int:
    """Significant digits that show ``value`` to the scale of ``tolerance`` (one digit below it), between
    ``low`` and ``high``; ``high`` when there is no positive finite tolerance (exact comparisons)."""
    try:
        tol = abs(float(tolerance))
    except (TypeError, ValueError):
        return high
    if not (math.isfinite(tol) and tol > 0 and math.isfinite(value) and value != 0):
        return high
    return max(low, min(high, math.floor(math.log10(abs(value))) - math.floor(math.log10(tol)) + 2))


def num(value, digits: int = 4) -> str:
    """THE number formatter of the reader's texts: siunitx ``\\num{…}`` with ``digits`` significant digits (at
    most 6, never a 17-digit float), scientific notation below 1e-3 and from 1e5 on (``\\num{1e-12}`` prints
    1 × 10⁻¹²); integers print whole (up to 10⁶); booleans as yes/no; NaN and ±∞ as words/symbols."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and abs(value) < 10**6:
        return rf"\num{{{value}}}"
    if isinstance(value, str):  # a number written in a text, maybe beyond float64 (λ = 1e-1000 is not 0)
        exact = Decimal(value)
        if exact != 0 and not 1e-300 < abs(exact) < 1e300:
            exp = exact.adjusted()
            mant = f"{exact.scaleb(-exp):.{max(1, min(6, digits)) - 1}f}"
            mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
            return rf"\num{{{mant}e{exp}}}"
    v = float(value)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return r"\ensuremath{\infty}" if v > 0 else r"\ensuremath{-\infty}"
    if v == 0:
        return r"\num{0}"
    return rf"\num{{{_rounded(v, max(1, min(6, digits)))}}}"


def _rounded(v: float, digits: int) -> str:
    """A finite non-zero float to ``digits`` significant digits: ``mant``e``exp`` below 1e-3 and from 1e5 on, else
    positional (the one rounding rule of `num` and `plain`)."""
    if abs(v) < 1e-3 or abs(v) >= 1e5:
        mant, exp = f"{v:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        return f"{mant}e{int(exp)}"
    text = f"{v:.{digits}g}"
    if "e" in text:  # 12345.6 at 4 digits: %g switches to an exponent; write the rounded integer instead
        text = str(int(round(float(text))))
    return text


_PROSE_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d{5,}|\d+(?:\.\d+)?[eE][+-]?\d+)(?![\w.])")
_PROSE_POWER = re.compile(r"((?<![\w.])\d+|\))\^(\{[^{}]*\}|[-−]?\((?:[^()]|\([^()]*\))*\)|[-−]?[\w.]+)")
_PROSE_CODE = re.compile(r"`([^`]+)`")
_PROSE_OPTION = re.compile(r"(?<![\w-])(?:--|[–—])([a-z][a-z-]*\b)")  # --mutate, or a typographic dash before it
_PROSE_IDENT = re.compile(r"(?<![\w\\{.])(?=[A-Za-z0-9._]{10})"
                          r"([A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)*_[A-Za-z0-9]+(?:[._][A-Za-z0-9]+)*)")
_PROSE = re.compile(f"{_PROSE_CODE.pattern}|{_PROSE_POWER.pattern}|{_PROSE_NUMBER.pattern}|{_PROSE_OPTION.pattern}|"
                    f"{_PROSE_IDENT.pattern}")
# (an identifier of 10 or more characters with an underscore is code in prose: typewriter, breakable; a_j is math)


def _code(text: str) -> str:
    """A command, option or name in typewriter type, "--" kept as two hyphens, breakable after "." and "_"."""
    tex = escape(text).replace("--", "-{}-").replace(".", r".\allowbreak{}").replace(r"\_", r"\_\allowbreak{}")
    return r"\texttt{" + tex + "}"


def prose(text) -> str:
    """Text for a reader (a tolerance's reason, a finding, a mutation) as LaTeX: `escape`, with numbers written
    by `num` (``1e-06`` → 1 × 10⁻⁶, ``0.7000000000000001`` → 0.7), powers of numbers and of parenthesized
    terms in math (``10^-(digits − 10)``, ``2^-52``, ``(1 − x)^n``), `code`, ``--options`` and long names with an
    underscore (``B.thm1.pointwise_bound``) in typewriter type, breakable, so that no exponent, caret, long float,
    en-dashed option or unbreakable name is printed raw."""
    text = str(text)
    out, pos = [], 0
    for m in _PROSE.finditer(text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:  # `code`
            out.append(_code(m.group(1)))
        elif m.group(2) is not None:  # a power
            exponent = m.group(3)
            if exponent.startswith("{") and exponent.endswith("}"):
                exponent = exponent[1:-1]
            sign = ""
            if exponent[:1] in "-−":
                sign, exponent = "-", exponent[1:]
            if re.fullmatch(r"\d+|[A-Za-z]", exponent):
                inner = exponent
            elif re.fullmatch(r"\(\d+\)", exponent):
                inner = exponent[1:-1]
            else:
                inner = r"\text{" + escape(exponent) + "}"
            out.append(r"\ensuremath{" + m.group(2) + "^{" + sign + inner + "}}")
        elif m.group(4) is not None:  # a number
            out.append(num(m.group(4), 4))
        elif m.group(5) is not None:  # an option
            out.append(_code("--" + m.group(5)))
        else:  # a name in code: B.thm1.pointwise_bound, Instance.require_x (a_j, n_interp stay math)
            out.append(identifier(m.group(6)).source)
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


_REPR = re.compile(r"np\.|Matrix\(|\[\s*[\[({]|\{\s*['\"]|\(\s*-?\d+\s*,\s*\[|\bTrue\b|\bFalse\b|\bNone\b|"
                   r"\w+\(\[|^\s*[\[{(]")
_ZERO_MATRIX = re.compile(r"Matrix\(\[\[[0,\s\[\]]*\]\]\)")
_INTERVAL = re.compile(r"^\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]\s*$")


def as_float(value) -> float | None:
    """A number (or a string holding one) as a float; None for anything else (booleans included)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def value(value, tolerance=None) -> str | None:
    """One value (a prediction, a measurement) as LaTeX for a reader, numbers through `num` with the digits
    ``tolerance`` warrants; None when it is a structure (a list or dict: the caller shows a table or a summary)
    or an expression only a program could read (a repr: it stays in results.json)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return None
    f = as_float(value)
    if f is not None:
        if isinstance(value, int) or (isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value)):
            return num(int(f)) if abs(f) < 1e6 else num(f)
        return num(f, significant_digits(abs(f), tolerance))
    if isinstance(value, str):
        if _ZERO_MATRIX.fullmatch(value.strip()):
            return "the zero matrix"
        m = _INTERVAL.match(value)
        if m:
            lo, hi = float(m.group(1)), float(m.group(2))
            digits = significant_digits(max(abs(lo), abs(hi)), abs(hi - lo) or None, high=6)
            return rf"\ensuremath{{[}}{num(lo, digits)}, {num(hi, digits)}\ensuremath{{]}}"
        exact_tex = exact(value)
        if exact_tex is not None:
            return exact_tex
        text = re.sub(r"'(\w[\w -]*)'", r"\1", value)  # check-ode verdict 'verified' → verified
        if _REPR.search(text) or len(text) > 90 or (_EXACT.fullmatch(text) and _CODE_SYNTAX.search(text)):
            return None
        return prose(text)
    return None


_EXACT = re.compile(r"[0-9a-z+\-*/(). ]+")
_EXACT_SYNTAX = re.compile(r"\w\(|\*|\d/\d")  # sqrt(, 2*x, 15/4: SymPy's str() of a number
_CODE_SYNTAX = re.compile(r"\w\(|\*")  # a longer SymPy str() (never shown raw: a reader sees the results file)
_EXACT_LIST = re.compile(r"\[([^\[\]]*)\]")
MAX_EXACT_TEX = 40  # LaTeX source characters of one exact number shown as such; a longer one is shown by its value
MAX_EXACT_CELL = 90  # LaTeX source characters of a whole cell; a longer one stays in results.json


def _exact_number(text: str):
    """The SymPy number of a string SymPy's str() wrote (``2*sqrt(30)``, ``15/4``), parsed by
    `theory.safe_expression` (never evaluated); None when it is not a closed-form number."""
    from relucheck.numerics.errors import RelucheckInputError
    from relucheck.theory.safe_expression import parse_expression

    text = text.strip()
    if not text or not _EXACT.fullmatch(text):
        return None
    try:
        expr = parse_expression(text, "value", {})
    except (RelucheckInputError, ValueError, TypeError):
        return None
    return expr if getattr(expr, "is_number", False) and getattr(expr, "is_real", False) else None


def _exact_tex(number) -> str:
    """One exact number: its LaTeX (``2 \\sqrt{30}``) when short, else its value to 6 digits (a table cell of a
    two-column paper holds about 40 characters of LaTeX source beside a label and a second value)."""
    import sympy as sp

    tex = sp.latex(number)
    return tex if len(tex) <= MAX_EXACT_TEX else num(float(number), 6)


def exact(value) -> str | None:
    """An exact value that a check wrote as SymPy's str() (``2*sqrt(30)``, ``-sqrt(5)/5 + 4/5``, a flat list
    ``[15/4, 5/8, 0]``) as LaTeX math (``2\\sqrt{30}``, a list as a tuple; a long expression by its value to 6
    digits); None for a plain decimal (`num` shows it), anything else, or a cell longer than `MAX_EXACT_CELL`."""
    if not isinstance(value, str) or as_float(value) is not None:
        return None
    m = _EXACT_LIST.fullmatch(value.strip())
    items = [t for t in m.group(1).split(",")] if m else [value]
    if m and not m.group(1).strip():
        return None
    numbers = [_exact_number(t) for t in items]
    if any(n is None for n in numbers) or not (m or _EXACT_SYNTAX.search(value)):
        return None
    tex = ", ".join(_exact_tex(n) for n in numbers)
    tex = rf"\left({tex}\right)" if m else tex
    return rf"\ensuremath{{{tex}}}" if len(tex) <= MAX_EXACT_CELL else None


# Plain text for a check's message (the terminal, report.md, results.json, `relucheck show`): the rounding of `num`
# without LaTeX, so that no repr (np.float64(…), a list, dict or tuple, True/False) or 17-digit float is printed.

def plain(value, digits: int = 4) -> str:
    """One number in a check's message: ``digits`` significant digits (1e-12, 0.7, 3.805917383 at 10 digits),
    scientific notation below 1e-3 and from 1e5 on, integers whole (up to 10⁶), booleans as yes/no; a string
    (a label, or a number written beyond float64) as it is."""
    import numbers

    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):  # numpy's bool too
        return yes_no(value)
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and abs(int(value)) < 10**6:
        return str(int(value))
    v = float(value)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    return _rounded(v, max(1, digits))


def plain_list(values, digits: int = 4, *, sep: str = ", ") -> str:
    """Numbers joined for a message (``0.979, 0.9247``), each by `plain`; a nested sequence's rows joined by ``"; "``
    (never a list repr)."""
    items = list(values)
    if any(isinstance(v, (list, tuple)) or hasattr(v, "__len__") and not isinstance(v, str) for v in items):
        return "; ".join(plain_list(v, digits, sep=sep) for v in items)
    return sep.join(plain(v, digits) for v in items)


def plain_interval(lo, hi, digits: int | None = None) -> str:
    """An enclosure [lo, hi] rounded outward (the printed interval still contains the computed one: a float bound is
    read as its shortest decimal, a string bound, an mpmath or Arb number beyond float64, exactly) to the digits its
    width warrants (two beyond the first digit where lo and hi differ, at least 4) unless ``digits`` is given."""
    from decimal import ROUND_CEILING, ROUND_FLOOR

    a, b = (Decimal(x.strip()) if isinstance(x, str) else Decimal(repr(float(x))) for x in (lo, hi))
    if not (a.is_finite() and b.is_finite()):
        return f"[{plain(float(a))}, {plain(float(b))}]"
    top = max(abs(a), abs(b))
    if digits is None:
        width = b - a
        digits = 4 if width == 0 or top == 0 else max(4, top.adjusted() - width.adjusted() + 2)
    if top == 0:
        return "[0, 0]"
    quantum = Decimal(1).scaleb(top.adjusted() - digits + 1)
    low, high = a.quantize(quantum, rounding=ROUND_FLOOR), b.quantize(quantum, rounding=ROUND_CEILING)
    return f"[{_decimal_text(low)}, {_decimal_text(high)}]"


def _decimal_text(d: Decimal) -> str:
    """A rounded Decimal in plain notation up to 1e-3 … 1e5 (as `plain`), else as 1.234e-7."""
    if d == 0:
        return "0"
    if abs(d) < Decimal("1e-3") or abs(d) >= Decimal("1e5"):
        exp = d.adjusted()
        mant = format(d.scaleb(-exp), "f")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        return f"{mant}e{exp}"
    return format(d, "f")


def yes_no(flag) -> str:
    """A boolean in a message: yes or no (never True/False)."""
    return "yes" if bool(flag) else "no"



def event_sequence(kinds, shown: int = 6) -> str:
    """The kinds of a flow's events (`numerics.flows.EventKind` values) in order, in words, repeats counted:
    'deactivation ×2, activation, deactivation ×2' (the first ``shown`` groups; never the enum values)."""
    from relucheck.numerics.flows.events import EventKind  # here: the text helpers load no numerics on import

    groups = []
    for kind in kinds:
        word = EventKind(kind).words if kind in EventKind._value2member_map_ else str(kind).replace("_", " ")
        if groups and groups[-1][0] == word:
            groups[-1][1] += 1
        else:
            groups.append([word, 1])
    text = ", ".join(w if k == 1 else f"{w} ×{k}" for w, k in groups[:shown])
    return text + (", …" if len(groups) > shown else "")


def _plain_exact(text: str) -> str:
    """SymPy's str() of a closed-form number for a reader of plain text: 2*sqrt(30) → 2·√30, 15/4 stays."""
    text = re.sub(r"sqrt\((\d+)\)", r"√\1", text)
    text = text.replace("sqrt(", "√(").replace("**", "^").replace("*", "·")
    return re.sub(r"(?<=\S) - (?=\S)", " − ", text)


def _split_top(text: str) -> list[str]:
    """The comma-separated items of a bracketed list's inside, commas inside brackets or parentheses left alone."""
    items, depth, start = [], 0, 0
    for k, c in enumerate(text):
        depth += c in "[(" and 1 or (-1 if c in "])" else 0)
        if c == "," and depth == 0:
            items.append(text[start:k])
            start = k + 1
    return [t.strip() for t in items + [text[start:]] if t.strip()]


def plain_cell(value, limit: int = 6, tolerance=None) -> str:
    """A prediction, measurement or tolerance as plain text for a reader (report.md): numbers by `plain` (to the
    digits ``tolerance`` warrants, else 4), lists as their values (rows by "; ", at most ``limit`` shown), a dict as
    "name: value" with its key's underscores as spaces, SymPy's str() of an exact number with √ and ·, an interval
    rounded outward (`plain_interval`), a verdict pair without quotes, ">=" as ≥ — never a repr (results.json keeps
    every value as computed)."""
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')}: {plain_cell(v, 3, tolerance)}"
                         for k, v in list(value.items())[:limit]) + ("; …" if len(value) > limit else "")
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        items = list(value)
        if not items:
            return "none"
        nested = any(isinstance(v, (list, tuple)) or type(v).__name__ == "ndarray" for v in items)
        cells = [plain_cell(v, limit, tolerance) for v in items[:limit]]
        return ("; " if nested else ", ").join(cells) + (", …" if len(items) > limit else "")
    if value is None:
        return ""
    if isinstance(value, str):
        text = value.strip()
        if _ZERO_MATRIX.fullmatch(text):
            return "the zero matrix"
        m = _INTERVAL.match(text)
        if m and not (_INTEGER.fullmatch(m.group(1)) and _INTEGER.fullmatch(m.group(2))):  # [0, 1] is a list
            lo, hi = float(m.group(1)), float(m.group(2))
            digits = significant_digits(max(abs(lo), abs(hi)), tolerance) if tolerance is not None else None
            return plain_interval(m.group(1), m.group(2), digits)
        if len(text) > 1 and text[0] + text[-1] in ("[]", "()") and _EXACT_LIST_TEXT.fullmatch(text):
            items = _split_top(text[1:-1])
            inner = [f"({plain_cell(t, limit, tolerance)})" if t[:1] in "[(" else
                     plain_cell(t, limit, tolerance) for t in items[:limit]]
            return ", ".join(inner) + (", …" if len(items) > limit else "")
        f = as_float(text)
        if f is not None:
            return plain(f, significant_digits(abs(f), tolerance) if tolerance is not None else 4)
        pair = re.fullmatch(r"\(\s*'(\w+)'\s*,\s*'(\w+)'\s*\)", text.split("= ")[-1])
        if pair:
            text = text[:len(text) - len(text.split("= ")[-1])] + f"{pair.group(1)}, {pair.group(2)}"
        text = re.sub(r"'(\w[\w -]*)'", r"\1", text)
        text = re.sub(r"^>=\s*", "≥ ", re.sub(r"^<=\s*", "≤ ", text))
        if _EXACT.fullmatch(text) and _EXACT_SYNTAX.search(text):
            return _plain_exact(text)
        return text
    try:
        f = float(value)
    except (TypeError, ValueError):
        return str(value)
    if isinstance(value, bool) or type(value).__name__ == "bool_" or f != f or f in (math.inf, -math.inf) \
            or tolerance is None:
        return plain(value)
    return plain(value, significant_digits(abs(f), tolerance))


_INTEGER = re.compile(r"[-+]?\d+")
_EXACT_LIST_TEXT = re.compile(r"[\[(][0-9a-z+\-*/(). ,\[\]]*[\])]")  # a list or tuple of exact numbers, as text
