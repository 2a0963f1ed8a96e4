"""One check's comparison for the appendix's reader (`appendix`): a sentence with the prediction, the measurement, the
tolerance and the difference, and a small table where a check compares several values (at most `MAX_TABLE_ROWS`
rows; every value is in results.json). Numbers go through `reader_text.num` with the digits the tolerance warrants;
a nested value is shown by its leaves, a bound by its interval.
"""
from __future__ import annotations

import math

from . import latex
from .reader_text import as_float as _as_float
from .reader_text import num, significant_digits
from .reader_text import value as value_tex

MAX_TABLE_ROWS = 8  # values shown in a check's table; all of them are in results.json

def _scalar_tolerance(tolerance) -> float | None:
    t = _as_float(tolerance)
    return abs(t) if t is not None and math.isfinite(t) else None


def _number(value: float, tolerance=None, reference: float | None = None) -> str:
    """A number with the digits that show it to the tolerance's scale (`reader_text.significant_digits`)."""
    scale = reference if reference not in (None, 0) else value
    return num(value, significant_digits(abs(scale), tolerance))


# A record's dict keys are the check's names for its values; a table row shows what they are (friction list, session
# 32: rows "tau", "u3 final", "min norm squared" — the keys of C Theorem 1's golden example with '_' made spaces).
# The words are the check's own (`paper_c_algorithm.golden_example_exact`'s message); a Greek letter's name anywhere
# in a key is its letter; other keys are read as words.
KEY_WORDS = {"tau": "τ (jump times)", "u3_final": "u₃ at the end", "squared_norm": "‖θ‖² at the end",
             "min_norm_squared": "the min-norm ‖θ‖²", "plateaus": "plateau losses", "fitted": "fitted data"}
GREEK = {name: chr(code) for name, code in (("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4),
                                            ("epsilon", 0x3B5), ("eta", 0x3B7), ("theta", 0x3B8), ("kappa", 0x3BA),
                                            ("lambda", 0x3BB), ("mu", 0x3BC), ("rho", 0x3C1), ("sigma", 0x3C3),
                                            ("tau", 0x3C4), ("phi", 0x3C6))}


def key_words(key) -> str:
    """A record's dict key as a table row's words (KEY_WORDS, else its parts with Greek names as letters)."""
    key = str(key)
    if key in KEY_WORDS:
        return KEY_WORDS[key]
    return " ".join(GREEK.get(part, part) for part in key.split("_"))


def _leaves(value, prefix: str = "") -> list[tuple[str, object]]:
    """(label, leaf) of a nested list/dict value, labels 1, 2, … for lists and the key's words for dicts."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            label = (prefix + " " if prefix else "") + key_words(k)
            out += _leaves(v, label) if isinstance(v, (list, dict)) else [(label, v)]
        return out
    if isinstance(value, list):
        out = []
        for k, v in enumerate(value, 1):
            label = f"{prefix}, {k}" if prefix else str(k)
            out += _leaves(v, label) if isinstance(v, (list, dict)) else [(label, v)]
        return out
    return [(prefix, value)]


def _shape(value) -> str:
    dims = []
    while isinstance(value, list) and value:
        dims.append(len(value))
        value = value[0]
    return r"\ensuremath{\times}".join(str(d) for d in dims)


def _intervals(tolerance, n: int) -> list[tuple[float, float]] | None:
    """Per-value intervals of a tolerance (a list of [low, high] pairs, or interval_low/interval_high lists)."""
    if isinstance(tolerance, dict) and {"interval_low", "interval_high"} <= set(tolerance):
        lows, highs = tolerance["interval_low"], tolerance["interval_high"]
        if isinstance(lows, list) and isinstance(highs, list) and len(lows) == len(highs) == n:
            pairs = list(zip(lows, highs))
        else:
            return None
    elif isinstance(tolerance, list) and len(tolerance) == n and all(isinstance(p, list) and len(p) == 2 for p in tolerance):
        pairs = [tuple(p) for p in tolerance]
    else:
        return None
    try:
        return [(float(a), float(b)) for a, b in pairs]
    except (TypeError, ValueError):
        return None


def _cell(value, tolerance) -> str:
    """A value as a table cell; a structure or an expression too long to typeset is left to the results file."""
    return value_tex(value, tolerance) or "(in the results file)"


def _value_table(label: str, rows: list[list[str]], header: list[str]) -> str:
    """A small float-free table (works in one and two columns), numbers right-aligned."""
    short = all(len(row[0]) <= 14 for row in rows)
    first = "l" if short else r">{\raggedright\arraybackslash}p{0.3\linewidth}"
    specs = "@{}" + first + "r" * (len(header) - 1) + "@{}"
    lines = [r"\par\smallskip{\footnotesize\noindent\begin{tabular}{" + specs + "}", r"\toprule",
             " & ".join(latex.escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}\par}\smallskip", ""]
    return "\n".join(lines)


def comparison(rec: dict) -> tuple[str, str]:
    """(the sentence with prediction, measurement, difference and tolerance; a table or '')."""
    pred, meas, tol = rec.get("prediction"), rec.get("measurement"), rec.get("tolerance")
    tol_scalar = _scalar_tolerance(tol)
    digits_scale = tol_scalar  # the scale the numbers are shown to: the tolerance, or an interval's half-width
    if isinstance(tol, list) and len(tol) == 2 and all(_as_float(t) is not None for t in tol):
        digits_scale = abs(float(tol[1]) - float(tol[0])) / 2 or None
    p_leaves = _leaves(pred) if isinstance(pred, (list, dict)) else None
    m_leaves = _leaves(meas) if isinstance(meas, (list, dict)) else None
    parts, table = [], ""
    p_flat = value_tex(pred, digits_scale) if p_leaves is None else None
    m_flat = value_tex(meas, digits_scale) if m_leaves is None else None
    pf, mf = _as_float(pred), _as_float(meas)
    if pf is not None and mf is not None:  # two numbers: the digits of the difference's scale, the difference
        ref = max(abs(pf), abs(mf))
        p_flat, m_flat = _number(pf, digits_scale, ref), _number(mf, digits_scale, ref)
    if p_leaves is None:
        parts.append(f"predicted {p_flat}" if p_flat else "the prediction is an exact expression")
    if m_leaves is None:
        same = isinstance(pred, str) and pred == meas
        parts.append("measured the same" if same and not m_flat else
                     f"measured {m_flat}" if m_flat else "the measurement is an exact expression")
    if pf is not None and mf is not None and pf != mf and pf != 0 and mf != 0:
        parts.append(f"a difference of {num(abs(pf - mf), 2)}")
    if p_leaves is not None or m_leaves is not None:
        table, note = _structured(pred, meas, p_leaves, m_leaves, tol, tol_scalar)
        parts.append(note)
    margin = (rec.get("details") or {}).get("margin") if isinstance(rec.get("details"), dict) else None
    if _as_float(margin) is not None and p_leaves is None:  # a bound (`within_bound`): the margin, not a difference
        parts = [p.replace("predicted", "bound", 1) for p in parts if not p.startswith("a difference")]
        if pf is not None and mf is not None and not tol_scalar and float(margin) != 0:  # digits of the margin's scale
            ref = max(abs(pf), abs(mf))
            parts[:2] = [f"bound {_number(pf, abs(float(margin)), ref)}", f"measured {_number(mf, abs(float(margin)), ref)}"]
        parts.append(f"margin {num(float(margin), 2)} at the tightest value")
        sentence = "; ".join(p for p in parts if p)
        return sentence + (f"; slack {num(tol_scalar, 2)}" if tol_scalar else ""), table
    sentence = "; ".join(p for p in parts if p)
    if tol_scalar is not None:
        sentence += f"; tolerance {num(tol_scalar, 2)}" if tol_scalar else "; compared exactly (tolerance 0)"
    elif isinstance(tol, list) and len(tol) == 2 and all(_as_float(t) is not None for t in tol):
        lo, hi = float(tol[0]), float(tol[1])
        sentence += rf"; allowed interval \ensuremath{{[}}{num(lo, 4)}, {num(hi, 4)}\ensuremath{{]}}"
    elif isinstance(tol, str) and tol.strip():
        text = value_tex(tol)
        sentence += f"; tolerance {text}" if text else ""
    return sentence, table


def _structured(pred, meas, p_leaves, m_leaves, tol, tol_scalar) -> tuple[str, str]:
    """The table of a check that compares several values, and the words that introduce it."""
    if p_leaves is not None and m_leaves is not None and [k for k, _ in p_leaves] == [k for k, _ in m_leaves]:
        intervals = _intervals(tol, len(m_leaves))
        header = ["value", "predicted", "measured"] + (["lower end", "upper end"] if intervals else [])
        rows, diffs = [], []
        for k, ((label, p), (_, m)) in enumerate(zip(p_leaves, m_leaves)):
            pf, mf = _as_float(p), _as_float(m)
            if pf is not None and mf is not None:
                ref = max(abs(pf), abs(mf))
                cells = [_number(pf, tol_scalar, ref), _number(mf, tol_scalar, ref)]
                diffs.append(abs(pf - mf))
            else:
                cells = [_cell(p, tol_scalar), "the same" if p == m else _cell(m, tol_scalar)]
            if intervals:
                cells += [num(intervals[k][0], 4), num(intervals[k][1], 4)]
            rows.append([latex.escape(label)] + cells)
        n = len(rows)
        words = f"{n} values compared" + (f" (a {_shape(pred)} array)" if isinstance(pred, list) and
                                           isinstance(pred[0] if pred else None, list) else "")
        if diffs and len(diffs) == n:
            words += f", largest difference {num(max(diffs), 2)}" if max(diffs) else ", all equal"
        if intervals:
            words += "; each measured value must lie in its interval"
    else:
        leaves = m_leaves if m_leaves is not None else p_leaves
        which = "measured" if m_leaves is not None else "predicted"
        intervals = _intervals(tol, len(leaves)) if m_leaves is not None else None
        header = ["value", which] + (["lower end", "upper end"] if intervals else [])
        rows = []
        for k, (label, v) in enumerate(leaves):
            row = [latex.escape(label), _cell(v, tol_scalar)]
            if intervals:
                row += [num(intervals[k][0], 4), num(intervals[k][1], 4)]
            rows.append(row)
        n = len(rows)
        words = f"{n} {which} values" + (", each to lie in its interval" if intervals else "")
        floats = [f for f in (_as_float(v) for _, v in leaves) if f is not None]
        if len(floats) == n and n > 1:
            low, high = min(floats), max(floats)
            ref = max(abs(low), abs(high))
            words += f" (from {_number(low, tol_scalar, ref)} to {_number(high, tol_scalar, ref)})"
    shown = rows[:MAX_TABLE_ROWS]
    if n > len(shown):
        words += f"; the table shows the first {len(shown)}, all are in the results file"
    return _value_table("", shown, header), words
