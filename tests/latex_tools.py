"""Helpers of the LaTeX and figure tests: compile with pdflatex or lualatex and read a PDF's fonts.

A missing tool is a FAILURE that says what to install (CI installs it in .ci/run), never a skip.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from relucheck.proofs_checks.latex import OVERFULL_TOLERANCE_PT

ENGINES = ("pdflatex", "lualatex")
INSTALL = ("install TeX Live and poppler from Debian: apt-get install --no-install-recommends texlive-latex-recommended "
           "texlive-science texlive-luatex lmodern poppler-utils (.ci/run does this)")


def require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is not installed: {INSTALL}")
    return path


def compile_tex(tex: Path, engine: str, out_dir: Path, *, overfull_pt: float = OVERFULL_TOLERANCE_PT) -> Path:
    """Compile ``tex`` (in its own directory, so relative figure paths resolve) into ``out_dir``.

    Fails on a LaTeX error, an ``Overfull \\hbox`` wider than ``overfull_pt``, any overfull \\vbox,
    a float too large for the page, or a character missing from a font (lualatex only logs those).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([require(engine), "-halt-on-error", "-interaction=nonstopmode", f"-output-directory={out_dir}",
                           tex.name], cwd=tex.parent, capture_output=True, text=True, errors="replace", timeout=600)
    log_path = out_dir / (tex.stem + ".log")
    log = log_path.read_text(errors="replace") if log_path.exists() else proc.stdout
    assert proc.returncode == 0, f"{engine} failed on {tex.name}:\n" + "\n".join(log.splitlines()[-30:])
    problems = [f"Overfull \\hbox {w} pt" for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)
                if float(w) > overfull_pt]
    problems += re.findall(r"Overfull \\vbox[^\n]*", log) + re.findall(r"Float too large[^\n]*", log)
    problems += re.findall(r"Missing character[^\n]*", log)
    assert not problems, f"{engine} on {tex.name}: {problems[:10]}"
    pdf = out_dir / (tex.stem + ".pdf")
    assert pdf.stat().st_size > 0
    return pdf


def pdf_fonts(pdf: Path) -> list[tuple[str, str]]:
    """(name, type) of every font in a PDF, read with poppler's pdffonts."""
    proc = subprocess.run([require("pdffonts"), str(pdf)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) >= 2 and lines[0].startswith("name"), proc.stdout
    spans, pos = [], 0  # column spans from the rule line "---- ---- ..."
    for dashes in lines[1].split(" "):
        spans.append((pos, pos + len(dashes)))
        pos += len(dashes) + 1
    return [(line[slice(*spans[0])].strip(), line[slice(*spans[1])].strip()) for line in lines[2:] if line.strip()]


def pdf_width_pt(pdf: Path) -> float:
    proc = subprocess.run([require("pdfinfo"), str(pdf)], capture_output=True, text=True, timeout=60)
    m = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", proc.stdout)
    assert m, proc.stdout
    return float(m.group(1))


# ---- a reader's text: what no .tex relucheck writes may contain (issue 21) ----------------------------------
READER_PATTERNS = {
    "numpy repr": r"np\.(float|int|bool|array|str)",
    "SymPy repr": r"Matrix\(",
    "list of dicts": r"\[\s*\{",
    "dict dump": r"\{\s*['\"]\w",
    "list of lists": r"\[\s*\[",
    "Python boolean or None": r"\b(True|False|None)\b",
    "float of 10 or more digits": r"\d\.\d{9,}",
    "raw exponent": r"(?<![\w.])\d+(\.\d+)?[eE][-+]?\d",
    "literal caret": r"\\textasciicircum",
    "en dash before an option": r"(?<![-{])--(mutate|resume|only|out|results|paper|appendix|style)\b",
    "spec label": r"\bspec\s+([A-Z]\s*)?(§|\\S\{\}|\d|[A-Z]\d|key finding|tag|\([A-Z]\d)",
    "the spec": r"\b(the\s+)?spec['’]s\b|\bthe\s+spec\b",
    "identifier in prose": r"(?<!\\)\b[a-z]{3,}_[a-z]{3,}|\b[A-C]\.(thm|lem|cor|prop|asm|def|rem)[A-Za-z]*\d",
    "issue number": r"\bissue\s+\d",
    "confidence tag": r"Confidence",
    "module path": r"\b(theory|numerics|proofs_checks)\.[a-z_]+",
}


def _strip_allowed(tex: str) -> str:
    """The .tex with what may legitimately hold such characters removed: comments, siunitx numbers (\\num{…}
    and whole numeric table cells), display-math delimiters, labels, graphics paths and record ids."""
    tex = "\n".join(line for line in tex.splitlines() if not line.lstrip().startswith("%"))
    tex = tex.replace("\\[", " ").replace("\\]", " ")
    tex = re.sub(r"\\num\{[^{}]*\}", " ", tex)
    tex = re.sub(r"\\(label|ref|includegraphics|input)(\[[^\]]*\])?\{[^{}]*\}", " ", tex)
    tex = re.sub(r"\\texttt\{(?:[^{}]|\{[^{}]*\})*\}", " ", tex)
    tex = re.sub(r"S\[[^\]]*\]", "S", tex)  # siunitx column options (table-format=1.2e-3)
    cell = r"[-+]?\d+(\.\d{1,8})?([eE][-+]?\d+)?"
    return re.sub(rf"(^|&)\s*{cell}\s*(?=&|\\\\)", r"\1", tex, flags=re.M)


def reader_problems(tex: str) -> list[str]:
    """What in a .tex file reads like a log rather than a text for a reader (empty: nothing)."""
    text = _strip_allowed(tex)
    found = []
    for name, pattern in READER_PATTERNS.items():
        for m in re.finditer(pattern, text):
            found.append(f"{name}: …{text[max(0, m.start() - 40):m.end() + 40]!r}…")
            break
    return found


def default_run(tmp_path_factory) -> tuple[Path, str]:
    """(folder, printed summary line) of ONE `relucheck run` of the default suite followed by
    `relucheck report --appendix`, shared by the test files of a session through a marker file (the run takes
    about a minute on two cores)."""
    import contextlib
    import io
    import json as _json

    from relucheck.proofs_checks.cli import main

    out = tmp_path_factory.getbasetemp() / "default-run"
    marker = out / "summary-line.json"
    if not marker.exists():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["run", "--quiet", "--out", str(out)])
        assert code in (0, 1, 3), buf.getvalue()
        line = next(s for s in buf.getvalue().splitlines() if s.startswith("summary: "))[len("summary: "):]
        assert main(["report", "--appendix", "--results", str(out / "results.json"), "--out", str(out)]) == 0
        marker.write_text(_json.dumps(line))
    import json as _json2

    return out, _json2.loads(marker.read_text())
