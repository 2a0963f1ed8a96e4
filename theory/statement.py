"""Numbered statements of the papers as data.

A `Statement` records where a claim comes from (paper, number in each version, equations), what it
assumes, what it concludes (a SymPy object where the conclusion is a formula that something computes or
proves with, else text), its constants, and the confidence tag of the reconstructed specification
(../shared/spec/): for A and C one of ``certain``, ``likely``, ``guess``; for B one of ``verified
symbolically``, ``verified numerically``, ``error``, ``unverified`` (`CONFIDENCE_EXPLANATIONS` says each in
words for a reader). Checks refer to statements by ``id`` (e.g. ``"C.thm2"``). Papers other than A, B and C
are added with `register_paper` (a user's own theorem: docs/api.md).

Typeset statements (issue 21): ``conclusion_tex`` and ``hypotheses_tex`` hold LaTeX written by hand for the
statement, in this convention:

* **text-mode LaTeX**, one paragraph that can follow ``\\item`` or a heading: prose with inline math ``$…$``
  and display math ``\\[…\\]`` (no ``$$``, no equation environments, no labels, no blank lines);
* **pure ASCII**: every symbol is a macro (``\\theta``, ``\\langle w,x\\rangle``, ``\\mathbb{R}``);
* only the packages of `LATEX_PACKAGES` (amsmath, amssymb) are needed; no macro of relucheck's own;
* a display fits a 5.5 in column (tests/test_statement_latex.py compiles every statement and checks this),
  and ``^``/``_`` appear only in math mode, never around prose.

`latex_problems` is the machine check of the last points. A statement without ``conclusion_tex`` (a user's
plugin statement) still renders: `conclusion_latex` then typesets a SymPy conclusion with ``sympy.latex`` when
its LaTeX passes `latex_problems`, and otherwise writes the text safely (`text_to_latex`: special
characters escaped, ``_`` and ``^`` literal, Unicode symbols as macros), never prose in a subscript.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.printing.latex import greek_letters_set, other_symbols

from relucheck.proofs_checks.latex import escape as _latex_text

from .statement_latex import _CONTROL_WORD, _PROSE, latex_problems, text_to_latex  # noqa: F401 - latex_problems and text_to_latex re-exported

BUILTIN_PAPERS = {
    "A": "Boursier & Flammarion, Simplicity bias and optimization threshold in two-layer ReLU networks (arXiv 2410.02348)",
    "B": "Dana, Pillaud-Vivien & Bach, Convergence of shallow ReLU networks on weakly interacting data (arXiv 2502.16977)",
    "C": "Town, Boursier, Lewis, Englert & Lazić, Mildly overparameterized ReLU networks on orthogonal data (arXiv 2605.27097)",
}
PAPERS: dict[str, str] = dict(BUILTIN_PAPERS)  # id → title; users add theirs with `register_paper`
_PAPER_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_STATEMENT_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,199}\Z")

# The LaTeX packages that `conclusion_tex`, `hypotheses_tex` and `title_tex` need (the preamble line of a paper
# that inputs relucheck's statements: \usepackage{amsmath,amssymb}).
LATEX_PACKAGES = ("amsmath", "amssymb")


def register_paper(paper_id: str, title: str) -> str:
    """Make ``paper_id`` available to `Statement` (a user's paper; A, B and C are built in).

    The id is a letter followed by letters, digits, ``_`` or ``-`` (no dot: statement ids are
    ``<paper>.<name>``). Registering an id twice is an error, whether built in or not.
    """
    if not isinstance(paper_id, str) or not _PAPER_ID.match(paper_id):
        raise ValueError(f"paper id must be a letter followed by letters, digits, '_' or '-', got {paper_id!r}")
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"paper {paper_id}: the title must be a non-empty string, got {title!r}")
    if paper_id in PAPERS:
        kind = "a built-in paper" if paper_id in BUILTIN_PAPERS else "already registered"
        raise ValueError(f"paper id {paper_id!r} is {kind} ({PAPERS[paper_id]}); choose another id")
    PAPERS[paper_id] = title.strip()
    return paper_id


# Each tag in words, for a reader's legend (spec A §0, spec B "Tags used in this note", spec C §0).
CONFIDENCE_EXPLANATIONS = {
    "certain": "the formula survives in the paper's text, or is forced by the surviving proof together with an "
               "exact derivation",
    "likely": "the paper's formula was lost in text extraction; this form is reconstructed from the surviving "
              "prose, proofs and standard notation and agrees with numerical checks, but the paper's exact "
              "constants or notation may differ",
    "guess": "only the role of this statement survives in the paper's text; the exact form and the constants "
             "are our reconstruction, not a quotation of the paper",
    "verified symbolically": "the statement is legible in the paper and its formula was confirmed by an exact "
                             "symbolic computation",
    "verified numerically": "the statement is legible in the paper and was confirmed by numerical computation",
    "error": "the statement is legible in the paper, but a formula or a step of its proof was found to be wrong "
             "(the checks and findings say which)",
    "unverified": "the statement is legible in the paper but was not verified independently when the "
                  "specification was written",
    "unstated": "the statement's author gave no confidence tag, so nothing is claimed about its reconstruction",
}
CONFIDENCE_TAGS = frozenset(CONFIDENCE_EXPLANATIONS)


def confidence_explanation(tag: str) -> str:
    """One sentence (no final period) saying what a confidence tag means, for a reader."""
    try:
        return CONFIDENCE_EXPLANATIONS[tag]
    except KeyError:
        raise ValueError(f"unknown confidence tag {tag!r}; tags are {sorted(CONFIDENCE_TAGS)}") from None


# Which version of each built-in paper the numbers refer to, in words (DEVELOPERS.md "Adding things").
PAPER_NUMBERING = {
    "A": "Paper A is numbered as in its second arXiv version (v2, the ICML camera-ready version); where the "
         "first version (v1) numbers a statement differently, the v1 number is given as well",
    "B": "Paper B is numbered as in the arXiv text relucheck was built from (arXiv 2502.16977)",
    "C": "Paper C is numbered as in the arXiv text relucheck was built from (arXiv 2605.27097)",
}


def numbering_explanation(paper: str) -> str:
    """Which version of ``paper`` its statement numbers refer to, in one sentence (no final period)."""
    if paper in PAPER_NUMBERING:
        return PAPER_NUMBERING[paper]
    return f"Paper {paper} is numbered as its statements were registered"


_SYMBOL_NAME = re.compile(r"[A-Za-z0-9_^*'{}\\|+-]+\Z")  # one token: no space, no bracket
_NAMED_SYMBOLS = greek_letters_set | other_symbols | {"infty", "min", "max", "sup", "inf", "log", "exp"}


def _plain_symbol_name(name: str) -> bool:
    """A SymPy name that ``sympy.latex`` typesets as a formula: one token whose words of four letters or more
    are Greek letters or macros (``lambda_1``, ``\\|w_j\\|``), never prose (``h_theta_inf``, ``two-piece OLS``)."""
    words = _PROSE.findall(_CONTROL_WORD.sub(" ", name))
    return bool(_SYMBOL_NAME.match(name)) and all(word in _NAMED_SYMBOLS for word in words)


def _sympy_display(expr: sympy.Basic) -> str | None:
    """``sympy.latex(expr)`` when every name in it is a plain symbol (`_plain_symbol_name`) and the result
    passes `latex_problems` in math mode; None when a name is prose."""
    names = {s.name for s in expr.atoms(sympy.Symbol)}
    names |= {type(f).__name__ for f in expr.atoms(sympy.core.function.AppliedUndef)}
    if not all(_plain_symbol_name(name) for name in names):
        return None
    tex = sympy.latex(expr)
    return None if latex_problems(f"${tex}$") else tex


def _markdown_math(tex: str) -> str:
    """Text-mode LaTeX of the convention as Markdown with MathJax: displays as ``$$ … $$`` paragraphs."""
    for command, char in (("\\L{}", "Ł"), ("--", "–"), ("~", " ")):
        tex = tex.replace(command, char)
    tex = re.sub(r"\s*\\\[\s*", "\n\n$$ ", tex)
    return re.sub(r"\s*\\\]\s*", " $$\n\n", tex).strip()


_RELATIONS = {"==": "=", "!=": "≠", "<=": "≤", ">=": "≥", "<": "<", ">": ">"}


def _sympy_words(expr) -> str:
    """A SymPy conclusion whose names are prose, as text: ``lhs = rhs`` for a relation, else ``sstr``."""
    if isinstance(expr, sympy.core.relational.Relational) and expr.rel_op in _RELATIONS:
        return f"{sympy.sstr(expr.lhs)} {_RELATIONS[expr.rel_op]} {sympy.sstr(expr.rhs)}"
    return sympy.sstr(expr)


@dataclass(frozen=True)
class Statement:
    """One numbered statement (theorem, lemma, assumption, …) of a paper.

    ``numbers`` maps a version to the statement's number there, e.g. ``{"v1": "Lemma 2",
    "v2": "Lemma F.1"}`` for paper A; ``number`` is the display number (the newest version's;
    `numbering_explanation` says which version in words). ``not_checkable_reason`` says why no computation
    covers it (empty when checks exist).

    ``conclusion_tex``, ``hypotheses_tex`` (one per hypothesis, or empty) and ``title_tex`` are the statement
    typeset by hand, in the convention of the module docstring: text-mode LaTeX, inline ``$…$`` and display
    ``\\[…\\]``, pure ASCII, packages `LATEX_PACKAGES` (amsmath, amssymb). Empty means "render the plain
    fields safely" (`conclusion_latex`, `hypotheses_latex`, `title_latex`). ``conclusion`` and ``hypotheses``
    stay the machine-readable content: a SymPy conclusion is what checks and proofs compute with.
    """

    id: str
    paper: str
    number: str
    title: str
    hypotheses: tuple[str, ...] = ()
    conclusion: Any = ""
    constants: dict = field(default_factory=dict)
    confidence: str = "unstated"  # a user's statement without a tag claims none (it read "likely": session 31)
    source: str = ""
    meaning: str = ""
    numbers: dict = field(default_factory=dict)
    not_checkable_reason: str = ""
    conclusion_tex: str = ""
    hypotheses_tex: tuple[str, ...] = ()
    title_tex: str = ""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"statement {self.id}: unknown paper {self.paper!r}; papers are {sorted(PAPERS)} "
                             "(register yours with relucheck.register_paper)")
        if not isinstance(self.id, str) or not _STATEMENT_ID.match(self.id):
            raise ValueError(f"statement id must be ASCII letters, digits, '.', '_' or '-' (at most 200 characters), "
                             f"got {self.id!r}")
        if not self.id.startswith(self.paper + "."):
            raise ValueError(f"statement id {self.id!r} must start with its paper, '{self.paper}.'")
        if self.confidence not in CONFIDENCE_TAGS:
            raise ValueError(f"statement {self.id}: unknown confidence tag {self.confidence!r}")
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))
        object.__setattr__(self, "hypotheses_tex", tuple(self.hypotheses_tex))
        if self.hypotheses_tex and len(self.hypotheses_tex) != len(self.hypotheses):
            raise ValueError(f"statement {self.id}: hypotheses_tex has {len(self.hypotheses_tex)} entries for "
                             f"{len(self.hypotheses)} hypotheses; give one per hypothesis, or none")
        for name in ("conclusion_tex", "title_tex"):
            self._check_tex(name, getattr(self, name))
        for k, tex in enumerate(self.hypotheses_tex):
            self._check_tex(f"hypotheses_tex[{k}]", tex)

    def _check_tex(self, name: str, tex) -> None:
        if not isinstance(tex, str):
            raise ValueError(f"statement {self.id}: {name} must be a string of LaTeX, got {type(tex).__name__}")
        problems = latex_problems(tex)
        if problems:
            raise ValueError(f"statement {self.id}: {name}: {problems[0]} (convention: relucheck.theory.statement)")

    # -- rendering -------------------------------------------------------------------------
    def conclusion_latex(self) -> str:
        """The conclusion as text-mode LaTeX: ``conclusion_tex``, else a SymPy conclusion as a display
        ``\\[ … \\]`` (when its names are plain symbols), else the text, escaped safely (`text_to_latex`)."""
        if self.conclusion_tex:
            return self.conclusion_tex
        if isinstance(self.conclusion, sympy.Basic):
            tex = _sympy_display(self.conclusion)
            if tex is not None:
                return f"\\[ {tex} \\]"
            return text_to_latex(_sympy_words(self.conclusion))
        return text_to_latex(self.conclusion_text())

    def hypotheses_latex(self) -> tuple[str, ...]:
        """One text-mode LaTeX paragraph per hypothesis (``hypotheses_tex``, else the text escaped safely)."""
        return self.hypotheses_tex or tuple(text_to_latex(h) for h in self.hypotheses)

    def title_latex(self) -> str:
        """The title as text-mode LaTeX (``title_tex``, else the title through the project's escaper)."""
        return self.title_tex or _latex_text(self.title)

    def conclusion_text(self) -> str:
        if isinstance(self.conclusion, sympy.Basic):
            return sympy.sstr(self.conclusion)
        return str(self.conclusion)

    def version_numbers(self) -> str:
        return "; ".join(f"{v}: {n}" for v, n in self.numbers.items())

    def number_in_words(self) -> str:
        """The number with the other versions' numbers in words: "Theorem 4.1 (Theorem 2 in v1)",
        "Theorem 1.1 (new in v2)"; the plain number when the paper has one version."""
        if not self.numbers:
            return self.number
        current = [v for v, n in self.numbers.items() if n.split(" (")[0] == self.number.split(" (")[0]]
        others = [f"{n} in {v}" for v, n in self.numbers.items() if v not in current]
        if others:
            return f"{self.number} ({'; '.join(others)})"
        if self.paper in PAPER_NUMBERING and len(self.numbers) == 1 and current:
            return f"{self.number} (new in {current[0]})"
        return self.number

    def _markdown_conclusion(self, terminal: bool = False) -> list[str]:
        if terminal and isinstance(self.conclusion, sympy.Basic):  # a terminal shows no MathJax: SymPy's 2-D Unicode
            return ["", "*Conclusion:*", "", sympy.pretty(self.conclusion, use_unicode=True).replace("\\|", "‖")]
        if self.conclusion_tex and isinstance(self.conclusion, sympy.Basic):  # displays as $$ … $$ (MathJax)
            return ["", "*Conclusion:*", "", _markdown_math(self.conclusion_tex)]
        if isinstance(self.conclusion, sympy.Basic):
            tex = _sympy_display(self.conclusion)
            if tex is not None:
                return ["", "*Conclusion:*", "", f"$$ {tex} $$"]
        return ["", f"*Conclusion:* {self.conclusion_text()}"]

    def to_markdown(self, checks: list[str] | None = None, *, terminal: bool = False) -> str:
        """The statement as Markdown (docs, report.md: formulas as $$ … $$); ``terminal``: its conclusion as SymPy's
        2-D Unicode rendering instead (`relucheck show`)."""
        lines = [f"### {self.paper} {self.number}: {self.title}", ""]
        if self.numbers:
            lines.append(f"*Numbering:* {self.version_numbers()}  ")
        lines.append(f"*Confidence:* {self.confidence}  ")
        if self.source:
            lines.append(f"*Source:* {self.source}  ")
        if self.hypotheses:
            lines += ["", "*Hypotheses:*"] + [f"- {h}" for h in self.hypotheses]
        lines += self._markdown_conclusion(terminal)
        if self.constants:
            lines += ["", "*Constants:* " + ", ".join(f"{k} = {v}" for k, v in self.constants.items())]
        if self.meaning:
            lines += ["", f"*Meaning:* {self.meaning}"]
        if checks:
            lines += ["", "*Checks:* " + ", ".join(f"`{c}`" for c in checks)]
        elif self.not_checkable_reason:
            lines += ["", f"*Not checked numerically:* {self.not_checkable_reason}"]
        return "\n".join(lines) + "\n"

    def to_latex(self) -> str:
        """A paragraph heading, numbering, confidence, hypotheses as a list and the conclusion (text mode)."""
        parts = [f"\\paragraph{{{_latex_text(self.paper + ' ' + self.number)}: {self.title_latex()}}}"]
        if self.numbers:
            parts.append(f"\\emph{{Numbering:}} {_latex_text(self.version_numbers())}.")
        parts.append(f"\\emph{{Confidence:}} {_latex_text(self.confidence)}.")
        if self.hypotheses:
            parts.append("\\begin{itemize}" + "".join(f"\\item {h}" for h in self.hypotheses_latex()) + "\\end{itemize}")
        parts.append(self.conclusion_latex())
        return "\n".join(parts) + "\n"

    def _repr_latex_(self) -> str:
        head = f"\\text{{{self.paper} {self.number}}}"
        if not self.conclusion_tex and isinstance(self.conclusion, sympy.Basic):
            tex = _sympy_display(self.conclusion)
            if tex is not None:
                return f"$\\displaystyle {head}:\\ {tex}$"
        return f"${head}$: {self.conclusion_latex()}"
