"""Numbered statements of the papers as data.

A `Statement` records where a claim comes from (paper, number in each version, equations), what it
assumes, what it concludes (a SymPy object where the conclusion is a formula), its constants, and
the confidence tag of the reconstructed specification (../shared/spec/): for A and C one of
``certain``, ``likely``, ``guess``; for B one of ``verified symbolically``, ``verified numerically``,
``error``, ``unverified``. Checks refer to statements by ``id`` (e.g. ``"C.thm2"``).
Papers other than A, B and C are added with `register_paper` (a user's own theorem: docs/api.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from relucheck.proofs_checks.latex import escape as _latex_text
from relucheck.proofs_checks.latex import math_unicode

BUILTIN_PAPERS = {
    "A": "Boursier & Flammarion, Simplicity bias and optimization threshold in two-layer ReLU networks (arXiv 2410.02348)",
    "B": "Dana, Pillaud-Vivien & Bach, Convergence of shallow ReLU networks on weakly interacting data (arXiv 2502.16977)",
    "C": "Town, Boursier, Lewis, Englert & Lazić, Mildly overparameterized ReLU networks on orthogonal data (arXiv 2605.27097)",
}
PAPERS: dict[str, str] = dict(BUILTIN_PAPERS)  # id → title; users add theirs with `register_paper`
_PAPER_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


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


CONFIDENCE_TAGS = {
    "certain", "likely", "guess",
    "verified symbolically", "verified numerically", "error", "unverified",
}


@dataclass(frozen=True)
class Statement:
    """One numbered statement (theorem, lemma, assumption, …) of a paper.

    ``numbers`` maps a version to the statement's number there, e.g. ``{"v1": "Lemma 2",
    "v2": "Lemma F.1"}`` for paper A; ``number`` is the display number (the newest version's).
    ``not_checkable_reason`` says why no computation covers it (empty when checks exist).
    """

    id: str
    paper: str
    number: str
    title: str
    hypotheses: tuple[str, ...] = ()
    conclusion: Any = ""
    constants: dict = field(default_factory=dict)
    confidence: str = "likely"
    source: str = ""
    meaning: str = ""
    numbers: dict = field(default_factory=dict)
    not_checkable_reason: str = ""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"statement {self.id}: unknown paper {self.paper!r}; papers are {sorted(PAPERS)} "
                             "(register yours with relucheck.register_paper)")
        if not self.id.startswith(self.paper + "."):
            raise ValueError(f"statement id {self.id!r} must start with its paper, '{self.paper}.'")
        if self.confidence not in CONFIDENCE_TAGS:
            raise ValueError(f"statement {self.id}: unknown confidence tag {self.confidence!r}")
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))

    # -- rendering -------------------------------------------------------------------------
    def conclusion_latex(self) -> str:
        if isinstance(self.conclusion, sympy.Basic):
            return math_unicode(sympy.latex(self.conclusion))
        return _latex_text(str(self.conclusion))

    def conclusion_text(self) -> str:
        if isinstance(self.conclusion, sympy.Basic):
            return sympy.sstr(self.conclusion)
        return str(self.conclusion)

    def version_numbers(self) -> str:
        return "; ".join(f"{v}: {n}" for v, n in self.numbers.items())

    def to_markdown(self, checks: list[str] | None = None) -> str:
        lines = [f"### {self.paper} {self.number}: {self.title}", ""]
        if self.numbers:
            lines.append(f"*Numbering:* {self.version_numbers()}  ")
        lines.append(f"*Confidence:* {self.confidence}  ")
        if self.source:
            lines.append(f"*Source:* {self.source}  ")
        if self.hypotheses:
            lines += ["", "*Hypotheses:*"] + [f"- {h}" for h in self.hypotheses]
        if isinstance(self.conclusion, sympy.Basic):
            lines += ["", "*Conclusion:*", "", f"$$ {self.conclusion_latex()} $$"]
        else:
            lines += ["", f"*Conclusion:* {self.conclusion_text()}"]
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
        parts = [f"\\paragraph{{{_latex_text(self.paper + ' ' + self.number)}: {_latex_text(self.title)}}}"]
        if self.numbers:
            parts.append(f"\\emph{{Numbering:}} {_latex_text(self.version_numbers())}.")
        parts.append(f"\\emph{{Confidence:}} {_latex_text(self.confidence)}.")
        if self.hypotheses:
            parts.append("\\begin{itemize}" + "".join(f"\\item {_latex_text(h)}" for h in self.hypotheses) + "\\end{itemize}")
        if isinstance(self.conclusion, sympy.Basic):
            parts.append(f"\\[ {self.conclusion_latex()} \\]")
        else:
            parts.append(self.conclusion_latex())
        return "\n".join(parts) + "\n"

    def _repr_latex_(self) -> str:
        head = f"\\text{{{self.paper} {self.number}}}"
        if isinstance(self.conclusion, sympy.Basic):
            return f"$\\displaystyle {head}:\\ {self.conclusion_latex()}$"
        return f"${head}$: {_latex_text(self.conclusion_text())}"
