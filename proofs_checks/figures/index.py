"""The index of a paper report (``relucheck report --paper X``): which figures and tables it wrote, with the
figures' captions, as ``paper_x_index.json`` (read by the appendix), ``paper_x.md`` (figure index: file and
caption, then the tables) and ``paper_x.tex`` (a standalone document of the figures and tables).

A figure's entry in the index: ``pdf``, ``png``, ``csv`` (file names in the same folder), ``caption`` (plain
Unicode text), ``width`` ("column": one column, a ``figure``; "full": the text width, a ``figure*``), ``style`` (the
venue preset it was drawn in, `figures.style.STYLES`), ``width_in`` (its width in inches) and ``rel_width`` (its
width relative to the ``\\linewidth`` of its environment in that venue: ``\\includegraphics[width=rel_width
\\linewidth]`` prints it at its drawn size there, and scales it to fit anywhere else).
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import latex
from . import style


def _index_path(out: Path, paper: str) -> Path:
    return Path(out) / f"paper_{paper.lower()}_index.json"


def load_index(out, paper: str) -> dict | None:
    """The index a `report --paper` run wrote into ``out``, None if there is none."""
    path = _index_path(out, paper)
    return json.loads(path.read_text()) if path.exists() else None


def latex_body(out, index: dict, *, natural_size: bool = False) -> str:
    """The figures and the tables (fragments inlined) of a paper. A figure takes ``rel_width`` of the line: its
    printed size in the venue it was drawn for, the same share of the line elsewhere (an index written before
    rel_width existed, or ``natural_size``, gives the drawn size, shrunk to the line if wider: the standalone
    preview ``paper_x.tex``, whose one wide column would otherwise blow a two-column venue's figure up 2×)."""
    parts = []
    for fig in index["figures"]:
        parts.append(latex.figure(fig["pdf"], fig["caption"], label=f"fig:{Path(fig['pdf']).stem}",
                                  wide=fig["width"] == "full",
                                  rel_width=None if natural_size else fig.get("rel_width")))
    for name in index["tables"]:
        text = (Path(out) / name).read_text()
        parts.append("".join(line for line in text.splitlines(True) if not line.startswith("%")))
    return "\n".join(parts)


def write_index(out_dir, paper: str, paths: list[Path]) -> list[Path]:
    """Write the index, the Markdown figure index and the standalone LaTeX document of one paper report."""
    out = Path(out_dir)
    figures, tables = [], []
    for p in paths:
        recorded = style.figure_record(p) if p.suffix == ".pdf" else None
        if recorded:
            figures.append({"pdf": p.name, "png": p.with_suffix(".png").name, "csv": recorded.csv,
                            "caption": recorded.caption, "width": recorded.width, "style": recorded.style,
                            "width_in": round(recorded.width_in, 4), "rel_width": recorded.rel_width})
        elif p.suffix == ".tex":
            tables.append(p.name)
    index = {"paper": paper.upper(), "figures": figures, "tables": tables}
    stem = out / f"paper_{paper.lower()}"
    _index_path(out, paper).write_text(json.dumps(index, indent=1))

    md = [f"# Paper {paper.upper()}: figures and tables", "", "## Figure index", "", "| figure | caption |", "|---|---|"]
    md += [f"| [{fig['pdf']}]({fig['pdf']}) | {fig['caption']} |" for fig in figures]
    md += ["", "## Figures", ""]
    for k, fig in enumerate(figures, 1):
        md += [f"![{Path(fig['pdf']).stem}]({fig['png']})", "",
               f"**Figure {k}** ([PDF]({fig['pdf']}), [PNG]({fig['png']}), [data]({fig['csv']})). {fig['caption']}", ""]
    md += ["", "## Tables", ""]
    for name in tables:
        md += [f"### {Path(name).stem}", "", (out / name).with_suffix(".md").read_text(), ""]
    stem.with_suffix(".md").write_text("\n".join(md))
    stem.with_suffix(".tex").write_text(latex.document(f"Paper {paper.upper()}: figures and tables",
                                                       latex_body(out, index, natural_size=True)))
    return [_index_path(out, paper), stem.with_suffix(".md"), stem.with_suffix(".tex")]
