"""The typesetting convention of statements' hand-written LaTeX (`theory.statement`'s docstring): the machine
check `latex_problems`, and `text_to_latex`, the safe fallback for plain text without hand-written LaTeX."""
from __future__ import annotations

import re
import unicodedata

from relucheck.proofs_checks.latex import escape as _latex_text

_MATH_ENVS = {"equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*"}
_TEXT_IN_MATH = {"text", "textup", "textrm", "textit", "textbf", "mbox", "emph", "operatorname", "mathrm"}
_CONTROL_WORD = re.compile(r"\\[A-Za-z]+")
_PROSE = re.compile(r"[A-Za-z]{4,}")


def _group(tex: str, start: int) -> int:
    """Index just after the brace group opening at ``tex[start] == '{'`` (len(tex) if unbalanced)."""
    depth, i = 0, start
    while i < len(tex):
        if tex[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(tex[i], 0)
        i += 1
        if depth == 0:
            return i
    return len(tex)


def latex_problems(tex: str) -> list[str]:
    """What breaks the typesetting convention of the module docstring in ``tex`` (empty: none).

    Finds non-ASCII characters, ``^`` or ``_`` outside math mode, a script whose braced argument holds prose
    (four letters in a row that are not a macro name, as in ``_{theta``), unbalanced braces or math
    delimiters, and ``$$``. Math mode is ``$…$``, ``\\(…\\)``, ``\\[…\\]``, ``\\ensuremath{…}`` and the amsmath
    display environments; ``\\text{…}`` and its kin return to text mode inside math.
    """
    problems: list[str] = []
    stack: list[tuple[str, bool]] = []  # (closer, math mode outside the group)
    math, i = False, 0
    while i < len(tex):
        c = tex[i]
        where = f"at {tex[max(0, i - 15):i + 15]!r}"
        if not c.isascii():
            problems.append(f"Unicode character {c!r} (U+{ord(c):04X}) {where}: write it as a macro")
            i += 1
        elif c == "\\":
            word = _CONTROL_WORD.match(tex, i)
            name = word.group()[1:] if word else tex[i + 1:i + 2]
            end = word.end() if word else i + 2
            if name in ("(", "["):
                stack.append(("\\)" if name == "(" else "\\]", math))
                math = True
            elif name in (")", "]"):
                if not stack or stack[-1][0] != "\\" + name:
                    problems.append(f"unmatched \\{name} {where}")
                else:
                    math = stack.pop()[1]
            elif name in ("begin", "end") and tex.startswith("{", end):
                close = _group(tex, end)
                env = tex[end + 1:close - 1]
                if env in _MATH_ENVS and name == "begin":
                    stack.append(("env:" + env, math))
                    math = True
                elif env in _MATH_ENVS:
                    if not stack or stack[-1][0] != "env:" + env:
                        problems.append(f"unmatched \\end{{{env}}} {where}")
                    else:
                        math = stack.pop()[1]
                end = close
            elif (name == "ensuremath" or name in _TEXT_IN_MATH) and tex.startswith("{", end):
                stack.append(("}", math))
                math = name == "ensuremath"
                end += 1
            i = end
        elif c == "$":
            if tex.startswith("$$", i):
                problems.append(f"$$ {where}: use \\[ … \\] for a display")
                i += 2
                continue
            if stack and stack[-1][0] == "$":
                math = stack.pop()[1]
            else:
                stack.append(("$", math))
                math = True
            i += 1
        elif c == "{":
            stack.append(("}", math))
            i += 1
        elif c == "}":
            if not stack or stack[-1][0] != "}":
                problems.append(f"unmatched }} {where}")
            else:
                math = stack.pop()[1]
            i += 1
        elif c in "^_":
            if not math:
                problems.append(f"raw {c} outside math mode {where}")
            elif tex.startswith("{", i + 1):
                argument = tex[i + 2:_group(tex, i + 1) - 1]
                prose = _PROSE.search(_CONTROL_WORD.sub(" ", argument))
                if prose:
                    problems.append(f"prose {prose.group()!r} in the script {c}{{{argument}}}")
            i += 1
        else:
            i += 1
    problems += [f"unclosed {closer!r}" for closer, _ in stack]
    return problems


_ASCII_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def text_to_latex(text) -> str:
    """Plain text (any Unicode) as safe text-mode LaTeX: no character is read as markup.

    ASCII special characters are escaped (``a_j`` prints as typed, with a literal underscore); every other
    character, with its accents, is typeset on its own by the project's escaper (``τ`` →
    ``\\ensuremath{\\tau}``), so no word can end up in a subscript. The fallback for statements without
    hand-written LaTeX.
    """
    clusters: list[str] = []
    for ch in unicodedata.normalize("NFD", str(text)):
        if clusters and unicodedata.combining(ch):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    out: list[str] = []
    math = "\\ensuremath{"
    for cluster in clusters:
        if len(cluster) == 1 and cluster.isascii():
            tex = _ASCII_SPECIAL.get(cluster, cluster)
        else:
            tex = _latex_text(unicodedata.normalize("NFC", cluster))
        if out and out[-1].startswith(math) and tex.startswith(math) and out[-1].endswith("}") and tex.endswith("}"):
            out[-1] = out[-1][:-1] + " " + tex[len(math):]  # one math group: τ² → \ensuremath{\tau ^{2}}
        else:
            out.append(tex)
    return "".join(out)
