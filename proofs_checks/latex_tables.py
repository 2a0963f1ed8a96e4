"""LaTeX tables of every file relucheck writes (`proofs_checks.latex` escapes the text, writes the documents).

* Numbers: a column whose cells are all numbers (`report.fmt_number` output) is a siunitx ``S`` column
  with a ``table-format`` computed from its cells, so it is decimal-aligned and exponents print as
  ×10^k; a column that is mostly numbers is right-aligned; other columns are left-aligned text.
* Widths: a table fragment is a ``tabular``, or a ``tabularx`` at ``\\linewidth`` when a text column is
  long; it is a ``table*`` when its estimated width exceeds one column of a two-column paper (3.25 in),
  so that it spans both columns there, and is split into parts of at most `MAX_FLOAT_ROWS` rows (a float
  cannot break across pages). Long tables (the run report, the appendix) are ``longtable``s whose text
  columns share ``\\linewidth`` (paragraph columns, each at least as wide as its longest word).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from .latex import SISETUP, Tex, escape

COLUMN_WIDTH_PT = 234.0  # 3.25 in: one column of a two-column paper
NARROW_TEXT_PT = 396.0  # 5.5 in: the text width of a one-column paper (NeurIPS, ICLR)

_NUMBER = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?)(\d+))?$", re.IGNORECASE)
_NONFINITE = {"nan": "NaN", "inf": r"$\infty$", "-inf": r"$-\infty$", "+inf": r"$\infty$"}


def _number_parts(cell) -> tuple | None:
    if isinstance(cell, Tex):
        return None
    m = _NUMBER.match(str(cell).strip())
    if not m or not (m.group(2) or m.group(3)):
        return None
    return m.groups()


def _is_number(cell) -> bool:
    return _number_parts(cell) is not None or str(cell).strip().lower() in _NONFINITE


def is_number(cell) -> bool:
    """True when a (formatted) cell is a number that siunitx can typeset (`\\num`, ``S`` columns)."""
    return _number_parts(cell) is not None


def _table_format(cells) -> str:
    """siunitx options of a number column: a table-format covering every number (sign, digits, decimals,
    exponent). A column with an exponent anywhere prints every number in scientific notation, so 0.5 and
    1e-12 align as 5 × 10^-1 and 1 × 10^-12 instead of leaving a gap for the exponent on every row."""
    parts = [p for p in (_number_parts(c) for c in cells) if p]
    sign = "-" if any(p[0] == "-" for p in parts) else ""
    if not any(p[4] for p in parts):
        ints = max((len(p[1]) for p in parts), default=1) or 1
        decs = max((len(p[2] or "") for p in parts), default=0)
        return f"table-format={sign}{ints}" + (f".{decs}" if decs else "")
    decs, exps = [], []
    for c in cells:
        if _number_parts(c):
            x = Decimal(str(c).strip())
            decs.append(len(x.normalize().as_tuple().digits) - 1 if x else 0)
            exps.append(x.adjusted() if x else 0)
    dec = max(decs)
    esign = "-" if min(exps) < 0 else ""
    return (f"table-format={sign}1" + (f".{dec}" if dec else "") + f"e{esign}{len(str(max(abs(e) for e in exps)))}"
            + ",exponent-mode=scientific")


def _chars(cell) -> int:
    """Printed width of a cell in characters (a number with an exponent prints as 1.2 × 10^-4)."""
    if isinstance(cell, Tex):
        return cell.chars
    parts = _number_parts(cell)
    return len(str(cell)) + (4 if parts and parts[4] else 0)


_BREAK_AFTER = "=,;:/*"


def _pieces(text: str) -> list[str]:
    """Text cut after = , ; : / * outside braces: where a paragraph cell may break a long token
    (``zero_columns=400``, ``2*alpha*sqrt(f)``)."""
    pieces, depth, start = [], 0, 0
    for k, c in enumerate(text):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c in _BREAK_AFTER and depth == 0 and k + 1 < len(text) and not text[k + 1].isspace():
            pieces.append(text[start:k + 1])
            start = k + 1
    return pieces + [text[start:]]


def _word(cell) -> int:
    """Longest piece of a cell that a line cannot break."""
    if isinstance(cell, Tex):
        return cell.word or cell.chars
    if _number_parts(cell):
        return _chars(cell)
    return max([0] + [len(p) for w in str(cell).split() for p in _pieces(w)])


@dataclass
class _Column:
    kind: str  # "num" (siunitx S), "right" (mostly numbers), "text", "long" (paragraph)
    chars: int  # printed width of the widest cell, header included, in characters
    word: int  # longest unbreakable piece, header included
    fmt: str = ""  # siunitx options of a "num" column (table-format, exponent mode)
    cells: int = 0  # printed width of the widest cell, header excluded


MAX_FLOAT_ROWS = 40  # a float table with more rows is split into parts (a float cannot break across pages)
LONG_TEXT = 28  # characters: a text column with a longer cell becomes a paragraph column


def _columns(header, rows) -> list[_Column]:
    cols = []
    for j, head in enumerate(header):
        cells = [row[j] for row in rows if str(row[j]).strip()]
        chars = max([_chars(head)] + [_chars(c) for c in cells])
        word = max([_word(head)] + [_word(c) for c in cells])
        widest = max([0] + [_chars(c) for c in cells])
        numbers = [c for c in cells if _is_number(c)]
        if cells and len(numbers) == len(cells):
            cols.append(_Column("num", chars, word, _table_format(cells), widest))
        elif cells and 2 * len(numbers) >= len(cells) and widest <= LONG_TEXT:
            cols.append(_Column("right", chars, word, cells=widest))
        else:
            cols.append(_Column("long" if widest > LONG_TEXT else "text", chars, word, cells=widest))
    return cols


def _two_lines(head: str) -> tuple[str, str] | None:
    """A header cut at the space nearest its middle (None without a space)."""
    spaces = [k for k, c in enumerate(head) if c == " "]
    if not spaces:
        return None
    k = min(spaces, key=lambda k: abs(2 * k - len(head)))
    return head[:k], head[k + 1:]


def _wrap_headers(header, cols: list[_Column]) -> list:
    """Headers wider than their column's cells on two lines (a nested tabular, no package), and the columns'
    widths updated, so that a table of short numbers under long headers fits a narrow column."""
    out = []
    for j, (head, col) in enumerate(zip(header, cols)):
        parts = None if isinstance(head, Tex) or len(str(head)) <= max(col.cells, 6) else _two_lines(str(head))
        if parts is None:
            out.append(head)
            continue
        source = r"\begin{tabular}[b]{@{}c@{}}" + escape(parts[0]) + r"\\" + escape(parts[1]) + r"\end{tabular}"
        width = max(len(parts[0]), len(parts[1]))
        out.append(Tex(source, width, width))
        cols[j] = _Column(col.kind, max(col.cells, width), max(width, col.word if col.cells else 0), col.fmt, col.cells)
    return out


def _cell(cell, col: _Column) -> str:
    if isinstance(cell, Tex):
        return cell.source
    text = str(cell).strip()
    if text.lower() in _NONFINITE:
        return "{" + _NONFINITE[text.lower()] + "}" if col.kind == "num" else _NONFINITE[text.lower()]
    if col.kind == "num" or not text:
        return text
    if _number_parts(text):
        return rf"\num{{{text}}}"
    return r"\allowbreak{}".join(escape(p) for p in _pieces(text))


def _header_cell(head, col: _Column) -> str:
    tex = head.source if isinstance(head, Tex) else escape(head)

    return "{" + tex + "}" if col.kind == "num" else tex


_EM_PER_CHAR = 0.5  # a character's width in em (Latin Modern digits: 0.5 em; typewriter 0.525 em)
# \linewidth of `latex.document` (A4, 0.7 in margins) in \footnotesize em (8 pt): 6.87 in, 10.29 in landscape
LINE_WIDTH_EM = {"portrait": 61.0, "landscape": 92.0}


def _spec(col: _Column) -> str:
    return {"num": f"S[{col.fmt}]", "right": "r", "text": "l",
            "long": r">{\raggedright\arraybackslash}X"}[col.kind]


def _paragraph_widths(cols: list[_Column], line_em: float) -> list[float]:
    """Shares of the paragraph columns of a long table: each gets its longest word, the rest of the line is
    shared in proportion to what each still lacks (water filling), so the widest cells wrap the least."""
    free = line_em / _EM_PER_CHAR - sum(c.chars for c in cols if c.kind == "num") - 2 * len(cols)
    need = [c.chars if c.kind != "num" else 0 for c in cols]
    width = [c.word * 1.25 if c.kind != "num" else 0 for c in cols]
    for _ in range(len(cols)):
        spare = free - sum(width)
        short = [j for j, c in enumerate(cols) if c.kind != "num" and width[j] < need[j]]
        if spare <= 0 or not short:
            break
        lack = sum(need[j] - width[j] for j in short)
        for j in short:
            width[j] = min(need[j], width[j] + spare * (need[j] - width[j]) / lack)
    return width


def _long_specs(cols: list[_Column], line_em: float) -> list[str]:
    width = _paragraph_widths(cols, line_em)
    total = sum(width) or 1.0
    fixed = sum(c.chars for c in cols if c.kind == "num") * _EM_PER_CHAR
    specs = []
    for c, w in zip(cols, width):
        if c.kind == "num":
            specs.append(_spec(c))
            continue
        align = r"\raggedleft" if c.kind == "right" else r"\raggedright"
        share = max(1, round(1000 * w / total))
        specs.append(rf">{{{align}\arraybackslash}}p{{\dimexpr(\linewidth-{fixed:.1f}em-{2 * len(cols)}\tabcolsep)"
                     rf"*{share}/1000\relax}}")
    return specs


def estimated_width_pt(cols: list[_Column], font_pt: float = 9.0) -> float:
    """Rough printed width of a one-line-per-row table: characters × 0.5 em plus 12 pt of separation per column."""
    return sum(c.chars * _EM_PER_CHAR * font_pt + 12.0 for c in cols)


BREAKABLE_ROWS = 25  # rows per block of a `breakable` table (a page may break between blocks)
SHORT_TEXT = 16  # characters: a text column of a breakable table with shorter cells keeps its natural width


def _breakable_specs(cols: list[_Column]) -> str:
    """Columns of a ``tabularx`` at ``\\linewidth``: numbers aligned, short text at its natural width, longer text
    in X columns that share the rest in proportion to their widest cell (fits one and two columns)."""
    flexible = [c for c in cols if c.kind not in ("num", "right") and c.chars > SHORT_TEXT]
    total = sum(c.chars for c in flexible) or 1
    specs = []
    for c in cols:
        if c in flexible:
            share = len(flexible) * c.chars / total
            specs.append(rf">{{\raggedright\arraybackslash\hsize={share:.3f}\hsize}}X")
        else:
            specs.append(_spec(c) if c.kind in ("num", "right") else "l")
    return "".join(specs)


def table(header, rows, *, caption: str = "", label: str = "", long: bool = False, page: str = "portrait",
          breakable: bool = False) -> str:
    """A booktabs table as a fragment (no preamble; needs the packages of `latex.PACKAGES`).

    Cells are strings (numbers formatted by `report.fmt_number`); `Tex` cells pass verbatim.
    ``long=True`` gives a ``longtable`` (page breaks allowed, text columns sharing the line) for the
    standalone documents (``page`` as in `latex.document`); ``breakable=True`` the same columns as float-free
    ``tabular`` blocks of `BREAKABLE_ROWS` rows (for fragments: works in one- and two-column documents, where
    longtable fails; ``caption`` is a bold line above, ``label`` unused); otherwise floats of at most
    `MAX_FLOAT_ROWS` rows, ``table*`` when wider than one column of a two-column paper.
    """
    rows = [list(r) for r in rows]
    cols = _columns(header, rows)
    head = " & ".join(_header_cell(h, c) for h, c in zip(header, cols)) + r" \\"
    body = [" & ".join(_cell(x, c) for x, c in zip(row, cols)) + r" \\" for row in rows]
    cap = escape(caption)
    labelled = rf"\caption{{{cap}}}" + (rf"\label{{{label}}}" if label else "")
    if breakable:
        lines = [r"\par{\footnotesize" + SISETUP]
        if cap:
            lines.append(rf"\noindent\textbf{{{cap}}}\par\nopagebreak")
        specs = "@{}" + _breakable_specs(cols) + "@{}"
        blocks = [body[k:k + BREAKABLE_ROWS] for k in range(0, len(body), BREAKABLE_ROWS)] or [[]]
        for k, block in enumerate(blocks):
            lines += [r"\noindent\begin{tabularx}{\linewidth}{" + specs + "}", r"\toprule" if k == 0 else r"\midrule",
                      head, r"\midrule"] + block + [r"\bottomrule" if k == len(blocks) - 1 else "",
                                                    r"\end{tabularx}\par"]
        lines.append("}")
        return "\n".join(line for line in lines if line) + "\n"
    if long:
        lines = [r"{\footnotesize", r"\begin{longtable}{@{}" + "".join(_long_specs(cols, LINE_WIDTH_EM[page])) + "@{}}"]
        if cap:
            lines.append(labelled + r" \\")
        lines += [r"\toprule", head, r"\midrule", r"\endfirsthead", r"\toprule", head, r"\midrule", r"\endhead",
                  r"\bottomrule", r"\endlastfoot"] + body + [r"\end{longtable}}"]
        return "\n".join(lines) + "\n"
    wrapped = _wrap_headers(header, cols)
    head = " & ".join(_header_cell(h, c) for h, c in zip(wrapped, cols)) + r" \\"
    wide = estimated_width_pt(cols)
    env = "table*" if wide > COLUMN_WIDTH_PT else "table"
    size = r"\small" if wide <= NARROW_TEXT_PT else r"\footnotesize\setlength{\tabcolsep}{3pt}"
    specs = "".join(_spec(c) for c in cols)
    tabular = (rf"\begin{{tabularx}}{{\linewidth}}{{{specs}}}", r"\end{tabularx}") if "X" in specs else \
              (rf"\begin{{tabular}}{{{specs}}}", r"\end{tabular}")
    chunks = [body[k:k + MAX_FLOAT_ROWS] for k in range(0, len(body), MAX_FLOAT_ROWS)] or [[]]
    lines = []
    for k, chunk in enumerate(chunks, 1):
        part = f" (part {k} of {len(chunks)})" if len(chunks) > 1 else ""
        lines += [rf"\begin{{{env}}}[htbp]", r"\centering", size + SISETUP]
        if cap:
            lines.append(rf"\caption{{{cap}{part}}}" + (rf"\label{{{label}}}" if label and k == 1 else ""))
        lines += [tabular[0], r"\toprule", head, r"\midrule"] + chunk + [r"\bottomrule", tabular[1], rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"
