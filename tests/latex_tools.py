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


def compile_tex(tex: Path, engine: str, out_dir: Path) -> Path:
    """Compile ``tex`` (in its own directory, so relative figure paths resolve) into ``out_dir``.

    Fails on a LaTeX error, an ``Overfull \\hbox`` wider than OVERFULL_TOLERANCE_PT, any overfull \\vbox,
    a float too large for the page, or a character missing from a font (lualatex only logs those).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([require(engine), "-halt-on-error", "-interaction=nonstopmode", f"-output-directory={out_dir}",
                           tex.name], cwd=tex.parent, capture_output=True, text=True, errors="replace", timeout=600)
    log_path = out_dir / (tex.stem + ".log")
    log = log_path.read_text(errors="replace") if log_path.exists() else proc.stdout
    assert proc.returncode == 0, f"{engine} failed on {tex.name}:\n" + "\n".join(log.splitlines()[-30:])
    problems = [f"Overfull \\hbox {w} pt" for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)
                if float(w) > OVERFULL_TOLERANCE_PT]
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
