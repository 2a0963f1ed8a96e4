"""LaTeX output: the one text escaper and the figure and document writers of every LaTeX file
relucheck writes (``report.tex`` of ``relucheck run``, the tables of ``relucheck report --paper``, the
appendix of ``relucheck report --appendix``).

Everything compiles with pdflatex and with lualatex (tests/test_latex.py) using Debian's
texlive-latex-recommended, texlive-science (siunitx) and texlive-luatex. Decisions:

* `escape` turns text into pure-ASCII LaTeX: the ten special characters are escaped, every Unicode
  symbol goes through math mode (Greek letters, relations, arrows, ‖·‖, super- and subscripts, math
  alphabets such as 𝓘 or ℝ) or a declared text command (§, –, —, …, Ł, accented letters). A script
  ``_x``, ``^x`` or ``_{…}`` after a math symbol or after a one-letter word is a math subscript or superscript
  (``τ_k``, ``ℝ^d``, ``a_j``, ``S^{d−1}``), while identifiers keep a literal underscore (``escape_time``,
  ``A.lemF.4``). A character in no mapping prints as ``\\texttt{U+XXXX}``: visible, still
  compiling (tests/test_latex.py requires every non-ASCII character of the package's sources to be mapped).
* Tables: `latex_tables` (siunitx-aligned numbers, widths that fit the page). Numbers and prose for a reader
  (the one number formatter, values, tolerance reasons): `reader_text`.
* Overfull boxes: the documents set ``\\emergencystretch``; tests/test_latex.py fails on any
  ``Overfull \\hbox`` wider than `OVERFULL_TOLERANCE_PT` (1 pt, below what a reader sees in print).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

OVERFULL_TOLERANCE_PT = 1.0

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}

# Unicode symbols typeset in math mode (amsmath + amssymb)
_MATH = {
    "‖": r"\|", "∥": r"\|", "−": "-", "±": r"\pm", "∓": r"\mp", "×": r"\times", "·": r"\cdot", "∘": r"\circ", "⊙": r"\odot",
    "µ": r"\mu",  # the micro sign (U+00B5) of "µs", typeset as the Greek letter
    "≤": r"\le", "≥": r"\ge", "≠": r"\neq", "≈": r"\approx", "≡": r"\equiv", "≍": r"\asymp", "∝": r"\propto",
    "≲": r"\lesssim", "≳": r"\gtrsim", "≪": r"\ll", "≫": r"\gg", "∼": r"\sim",
    "∈": r"\in", "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq", "⊃": r"\supset", "⊇": r"\supseteq",
    "∩": r"\cap", "∪": r"\cup", "∅": r"\emptyset", "∀": r"\forall", "∃": r"\exists", "∧": r"\wedge",
    "∨": r"\vee", "¬": r"\neg", "⊥": r"\perp", "⟂": r"\perp", "∠": r"\angle",
    "→": r"\to", "←": r"\leftarrow", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇐": r"\Leftarrow",
    "⇔": r"\Leftrightarrow", "⟺": r"\iff", "↦": r"\mapsto", "↓": r"\downarrow", "↑": r"\uparrow",
    "∞": r"\infty", "∇": r"\nabla", "∂": r"\partial", "∫": r"\int", "∑": r"\sum", "∏": r"\prod",
    "√": r"\surd", "⟨": r"\langle", "⟩": r"\rangle", "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor",
    "⌋": r"\rfloor", "½": r"\tfrac{1}{2}", "¼": r"\tfrac{1}{4}", "¾": r"\tfrac{3}{4}", "′": r"\prime",
    "ℓ": r"\ell", "°": r"^{\circ}", "ᵀ": r"^{\mathsf{T}}", "ϑ": r"\vartheta", "ϕ": r"\phi", "ϵ": r"\epsilon",
    "ϖ": r"\varpi", "ϱ": r"\varrho",
}
# Unicode characters with a text-mode command (output stays ASCII)
_TEXT = {
    "§": r"\S{}", "¶": r"\P{}", "–": "--", "—": "---", "…": r"\dots{}", "\u00a0": "~", "‘": "`", "’": "'",
    "“": "``", "”": "''", "Ł": r"\L{}", "ł": r"\l{}", "ß": r"\ss{}", "ø": r"\o{}", "Ø": r"\O{}", "æ": r"\ae{}",
    "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "å": r"\aa{}", "Å": r"\AA{}", "ı": r"\i{}", "©": r"\copyright{}",
    "•": r"\textbullet{}", "†": r"\dag{}", "‡": r"\ddag{}", "✓": "yes", "✗": "no",
}
# combining marks: (text accent, math accent); text accents only over ASCII letters of names (é, ö, ć)
_ACCENTS = {"\u0300": ("`", r"\grave"), "\u0301": ("'", r"\acute"), "\u0302": (None, r"\hat"),
            "\u0303": (None, r"\tilde"), "\u0304": (None, r"\bar"), "\u0306": ("u", r"\breve"),
            "\u0307": (None, r"\dot"), "\u0308": ('"', r"\ddot"), "\u030a": ("r", r"\mathring"),
            "\u030c": ("v", r"\check"), "\u0327": ("c", None)}
_DIGITS = "0123456789"
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵉ", list(_DIGITS) + ["+", "-", "=", "(", ")", "n", "i", "e"]))
_SUPERSCRIPTS.update({"¹": "1", "²": "2", "³": "3"})
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ", list(_DIGITS) + list("+-=()aeoxhklmnpst")))
_MATH_ALPHABETS = (("BOLD SCRIPT", r"\mathcal"), ("SCRIPT", r"\mathcal"), ("DOUBLE-STRUCK", r"\mathbb"),
                   ("BOLD FRAKTUR", r"\mathfrak"), ("FRAKTUR", r"\mathfrak"), ("BOLD ITALIC", r"\boldsymbol"),
                   ("BOLD", r"\mathbf"), ("ITALIC", r"\mathit"), ("SANS-SERIF", r"\mathsf"), ("MONOSPACE", r"\mathtt"))


_TEX_CAPITALS = {"gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega"}
_LATIN_CAPITALS = {"alpha": "A", "beta": "B", "epsilon": "E", "zeta": "Z", "eta": "H", "iota": "I", "kappa": "K",
                   "mu": "M", "nu": "N", "omicron": "O", "rho": "P", "tau": "T", "chi": "X"}
_SMALL_VARIANTS = {"final sigma": r"\varsigma", "epsilon": r"\varepsilon", "phi": r"\varphi", "omicron": "o"}


def _greek(ch: str) -> str | None:
    """A Greek letter as its TeX command (φ → \\varphi, ε → \\varepsilon: the shapes of U+03C6, U+03B5)."""
    m = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER ([A-Z ]+)", unicodedata.name(ch, ""))
    if not m:
        return None
    word = m.group(2).lower().replace("lamda", "lambda")
    if m.group(1) == "CAPITAL":
        return "\\" + word.capitalize() if word in _TEX_CAPITALS else _LATIN_CAPITALS.get(word)
    return _SMALL_VARIANTS.get(word, "\\" + word)


def _math_letter(ch: str) -> str | None:
    """A letter of a math alphabet (𝓘, 𝒟, ℝ, 𝐱, …) as its LaTeX alphabet command."""
    name = unicodedata.name(ch, "")
    if not (name.startswith("MATHEMATICAL ") or name.startswith("DOUBLE-STRUCK ") or name.startswith("SCRIPT ")
            or name.startswith("BLACK-LETTER ")):
        return None
    base = unicodedata.normalize("NFKC", ch)
    if len(base) != 1 or not base.isascii() or not base.isalpha():
        greek = _greek(base) if len(base) == 1 else None
        return greek
    if "BLACK-LETTER" in name:
        return rf"\mathfrak{{{base}}}"
    for key, command in _MATH_ALPHABETS:
        if key in name:
            return rf"{command}{{{base}}}"
    return base


def _symbol(ch: str) -> tuple[str, str] | None:
    """(kind, LaTeX) of one non-ASCII character: kind 'math' or 'text'; None if unmapped."""
    if ch in _TEXT:
        return "text", _TEXT[ch]
    if ch in _MATH:
        return "math", _MATH[ch]
    if ch in _SUPERSCRIPTS:
        return "math", "^{" + _SUPERSCRIPTS[ch] + "}"
    if ch in _SUBSCRIPTS:
        return "math", "_{" + _SUBSCRIPTS[ch] + "}"
    for convert in (_greek, _math_letter):
        tex = convert(ch)
        if tex is not None:
            return "math", tex
    if unicodedata.category(ch) == "Zs":
        return "text", " "
    if 0xFF01 <= ord(ch) <= 0xFF5E:  # fullwidth ASCII variants (ｅ, ｘ): their ASCII character
        plain = unicodedata.normalize("NFKC", ch)
        return "text", _SPECIAL.get(plain, plain)
    return None


def _clusters(text: str):
    """Split into (base character, combining marks) after canonical decomposition."""
    out: list[list] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and out:
            out[-1][1] += ch
        else:
            out.append([ch, ""])
    return out


def _token(base: str, marks: str) -> tuple[str, str]:
    composed = unicodedata.normalize("NFC", base + marks)
    if marks and len(composed) == 1 and (composed in _MATH or composed in _TEXT):  # ≠ = "=" + U+0338, ∉
        return _symbol(composed)
    if base.isascii():
        tex = _SPECIAL.get(base, base)
        kind = "text"
    elif marks and (base in _SUPERSCRIPTS or base in _SUBSCRIPTS):  # ₖ̂: the accent goes inside the script
        table, script = (_SUPERSCRIPTS, "^") if base in _SUPERSCRIPTS else (_SUBSCRIPTS, "_")
        kind, inner = _token(table[base], marks)
        return "math", script + "{" + (inner if kind == "math" else rf"\text{{{inner}}}") + "}"
    else:
        sym = _symbol(base)
        kind, tex = sym if sym else ("text", rf"\texttt{{U+{ord(base):04X}}}")
    letter = base.isascii() and base.isalpha()
    for mark in marks:
        text_acc, math_acc = _ACCENTS.get(mark, (None, None))
        if kind == "text" and text_acc:  # é, ö, ć (names)
            tex, letter = rf"\{text_acc}{{{tex}}}", False
        elif math_acc and (kind == "math" or letter):  # τ̂, ŷ, ḡ (math)
            kind, tex = "math", rf"{math_acc}{{{tex}}}"
        else:  # no accent command for this mark here: visible, never dropped
            code = rf"\texttt{{U+{ord(mark):04X}}}"
            tex += code if kind == "text" else rf"\text{{{code}}}"
    return kind, tex


_SCRIPT_WORD = re.compile(r"([A-Za-z0-9]+|[+*-]|\{[^{}]*\})", re.ASCII)


_WORD_START = " \t([{,;=+*/|"


def _script(word: str) -> str:
    """The argument of a sub- or superscript, in math mode (inside braces _ and ^ are scripts)."""
    out = []
    for c in unicodedata.normalize("NFC", word.strip("{}")):
        if c.isascii():
            out.append(c if c in "_^" or c.isalnum() or c in "+-*=,.()/ " else _SPECIAL.get(c, c))
        else:
            sym = _symbol(c)
            out.append(sym[1] + " " if sym and sym[0] == "math" else r"\text{" + escape(c) + "}")
    return "".join(out)


def escape(text) -> str:
    """Text (any Unicode) as pure-ASCII LaTeX for text mode; see the module docstring for the rules."""
    clusters = _clusters(str(text))
    parts: list[tuple[str, str]] = []
    i = 0
    while i < len(clusters):
        base, marks = clusters[i]
        nxt = clusters[i + 1] if i + 1 < len(clusters) else None
        if base in "_^" and not marks and nxt and not nxt[0].isascii() and (_symbol(nxt[0]) or ("", ""))[0] == "math":
            parts.append(("math", base + "{" + _token(*nxt)[1] + "}"))  # t_∞, x^⊥
            i += 2
            continue
        if base in "_^" and not marks and parts and parts[-1][0] == "math" and parts[-1][1][:1] in "_^":
            word = _SCRIPT_WORD.match("".join(b + m for b, m in clusters[i + 1:]))
            if word:  # a second script after a script: C_x^-, q_+^{k/2}, E_1^c
                parts.append(("math", base + "{" + _script(word.group(1)) + "}"))
                i += 1 + len(word.group(1))
                continue
        if (base in _SUPERSCRIPTS or base in _SUBSCRIPTS) and not marks:  # a run: ⁻³ → ^{-3}
            table, mark = (_SUPERSCRIPTS, "^") if base in _SUPERSCRIPTS else (_SUBSCRIPTS, "_")
            j = i
            while j < len(clusters) and clusters[j][0] in table and not clusters[j][1]:
                j += 1
            parts.append(("math", mark + "{" + "".join(table[b] for b, _ in clusters[i:j]) + "}"))
            i = j
            continue
        kind, tex = _token(base, marks)
        after_math = bool(parts) and parts[-1][0] == "math"
        if kind == "text" and base.isascii() and base.isalpha() and not marks and nxt and (
                (nxt[0] in "_^" and (after_math or i == 0 or clusters[i - 1][0] in _WORD_START))
                or (after_math and not nxt[0].isascii() and (_symbol(nxt[0]) or ("",))[0] == "math")):
            kind = "math"  # a one-letter variable: a_j, y_i, ‖x‖, ‖y_+‖ (ids like escape_time stay text)
        parts.append((kind, tex))
        i += 1
        if kind == "math" and nxt and nxt[0] in "_^" and not nxt[1]:
            word = _SCRIPT_WORD.match("".join(b + m for b, m in clusters[i + 1:]))
            if word:  # τ_k, ℝ^d, θ_{ij}, S^{d−1}
                parts.append(("math", nxt[0] + "{" + _script(word.group(1)) + "}"))
                i += 1 + len(word.group(1))
    out, math_run, scripted = [], [], set()
    for kind, tex in parts + [("text", "")]:
        if kind == "math":
            if tex[:1] in "_^":
                if tex[:1] in scripted:  # ℝ^d² → ^{d}{}^{2}: a second superscript of one nucleus is a TeX error
                    math_run.append("{}")
                    scripted = set()
                scripted.add(tex[:1])
            else:
                scripted = set()
            math_run.append(tex)
            continue
        if math_run:
            out.append(r"\ensuremath{" + " ".join(math_run) + "}")
            math_run, scripted = [], set()
        out.append(tex)
    return "".join(out)


def math_unicode(tex: str) -> str:
    """LaTeX math (e.g. `sympy.latex` of a symbol with a Unicode name) with its non-ASCII runs made ASCII."""
    return re.sub(r"[^\x00-\x7f]+", lambda m: r"\text{" + escape(m.group()) + "}", tex)


def identifier(text: str) -> "Tex":
    """A check or statement id as a table cell: typewriter type, breakable after '.' and '_' (ids are long)."""
    tex = escape(text).replace(".", r".\allowbreak{}").replace(r"\_", r"\_\allowbreak{}")
    pieces = re.split(r"[._]", text)
    return Tex(r"\texttt{" + tex + "}", len(text), max(len(p) for p in pieces) + 1)


@dataclass(frozen=True)
class Tex:
    """A table cell that is already LaTeX (not escaped): ``chars`` is its printed width in characters,
    ``word`` its longest unbreakable piece (0: the whole cell)."""

    source: str
    chars: int
    word: int = 0

    def __str__(self) -> str:
        return self.source


def figure(pdf: str, caption: str, *, label: str = "", wide: bool = False, rel_width: float | None = None) -> str:
    """A figure fragment; ``wide`` figures (full text width) go in ``figure*`` (both columns of a two-column paper).

    Size: ``rel_width`` (the figure's width relative to the ``\\linewidth`` of its environment in the venue it
    was drawn for) gives ``width=rel_width\\linewidth``, capped at ``\\linewidth``; without it, the PDF's natural
    (printed) size, scaled down to ``\\linewidth`` when the column is narrower. The path is
    ``\\relucheckfiledir``/name (`FRAGMENT_SETUP`), so the fragment works from any folder."""
    env = "figure*" if wide else "figure"
    name = Path(pdf).name
    if rel_width is not None and 0 < rel_width:
        graphic = rf"\includegraphics[width={min(float(rel_width), 1.0):.4g}\linewidth]{{\relucheckfiledir {name}}}"
    else:
        graphic = (rf"\sbox0{{\includegraphics{{\relucheckfiledir {name}}}}}"
                   r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi")
    lines = [rf"\begin{{{env}}}[htbp]", r"\centering", graphic,
             rf"\caption{{{escape(caption)}}}" + (rf"\label{{{label}}}" if label else ""), rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"


# The packages every fragment relucheck writes needs (tables, appendix sections, statements, figures). With
# pdflatex, T1 + Latin Modern are what keep every glyph (§ included) a Type 1 font, never a Type 3 bitmap.
PACKAGES = ["amsmath", "amssymb", "booktabs", "array", "tabularx", "siunitx", "graphicx"]
PREAMBLE_LINE = (r"\usepackage[T1]{fontenc}\usepackage{lmodern}\usepackage{" + ",".join(PACKAGES) + "}")
PREAMBLE_FILE = "relucheck-preamble.tex"
# At the top of every fragment: the folder of relucheck's files for \includegraphics, which is \relucheckdir
# when the author defines it, else the folder the fragment was \input from (LaTeX's \CurrentFilePath, 2021+).
FRAGMENT_SETUP = (r"\ifdefined\relucheckdir\edef\relucheckfiledir{\relucheckdir}\else"
                  r"\edef\relucheckfiledir{\ifdefined\CurrentFilePath\ifx\CurrentFilePath\empty\else"
                  r"\CurrentFilePath/\fi\fi}\fi")
# Local siunitx settings of every table and number of relucheck (no dependence on the author's \sisetup:
# 0.06431 must not print as "0.064 31").
SISETUP = r"\sisetup{group-digits=integer}"
PREAMBLE = "\n".join([
    r"\documentclass[10pt]{article}",
    r"\usepackage{iftex}",
    r"\ifPDFTeX\usepackage[T1]{fontenc}\usepackage[utf8]{inputenc}\fi",
    r"\usepackage{lmodern}",
    r"\usepackage[a4paper,margin=0.7in]{geometry}",  # text width 6.87 in: a 6.75 in full-width figure fits
    r"\usepackage{" + ",".join(PACKAGES + ["longtable"]) + "}",
    r"\sisetup{round-mode=none,group-digits=integer}",
    r"\newcommand{\relucheckfiledir}{}",
    r"\setlength{\parindent}{0pt}\setlength{\parskip}{0.6ex plus 0.3ex}",
    r"\setlength{\emergencystretch}{3em}",
    r"\setcounter{topnumber}{4}\setcounter{totalnumber}{6}\renewcommand{\topfraction}{0.9}",
    r"\renewcommand{\textfraction}{0.05}\renewcommand{\floatpagefraction}{0.8}",
])


def fragment_header(what: str) -> str:
    """The opening of an \\input-able fragment: what it is, the one preamble line it needs, and `FRAGMENT_SETUP`."""
    return (f"% {what}, written by relucheck. \\input it in a document whose preamble has the line\n"
            f"%   {PREAMBLE_LINE}\n"
            f"% (or \\input{{{PREAMBLE_FILE}}}, written beside it). Figures are found from any folder; to place\n"
            f"% them elsewhere, \\newcommand{{\\relucheckdir}}{{path/to/folder/}} before the first \\input.\n"
            + FRAGMENT_SETUP + "%\n")


def preamble_file() -> str:
    """The contents of `PREAMBLE_FILE`: the documented preamble line of every fragment, as a file to \\input."""
    return ("% relucheck-preamble.tex, written by relucheck: the packages that relucheck's LaTeX fragments need\n"
            "% (appendix_*.tex, table fragments, figures). \\input it in your preamble, or copy this line:\n"
            + PREAMBLE_LINE + "\n")


def document(title: str, body: str, *, page: str = "portrait") -> str:
    """A standalone document around ``body`` (already LaTeX); the title is escaped; ``page`` "landscape" for
    wide tables (the run report)."""
    if page not in ("portrait", "landscape"):
        raise ValueError(f"page must be 'portrait' or 'landscape', got {page!r}")
    preamble = PREAMBLE.replace("[a4paper,", "[a4paper,landscape,") if page == "landscape" else PREAMBLE
    return "\n".join([preamble, r"\begin{document}", rf"\section*{{{escape(title)}}}", body.rstrip(),
                      r"\end{document}", ""])
