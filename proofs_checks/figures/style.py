"""One style for every figure of `proofs_checks.figures`: sized for a two-column paper, TrueType fonts,
a colour-blind-safe palette, 8 pt text, no titles (captions live in LaTeX and Markdown).

* Sizes: `COLUMN` = 3.25 in (one column of a two-column paper), `FULL` = 6.75 in (both columns).
  Figures are saved at exactly that size (constrained layout, no tight bounding box), so
  ``\\includegraphics`` at natural size prints 8 pt text.
* Fonts: ``pdf.fonttype = ps.fonttype = 42`` embeds TrueType (Type 42) fonts, never Type 3
  (tests/test_figures_style.py reads every produced PDF with ``pdffonts``).
* Palette: Okabe & Ito's eight colours (Color Universal Design, 2008), distinguishable under the
  common colour-vision deficiencies; yellow comes last (weak on white).
* Outputs: vector PDF and a 300 dpi PNG for every figure; `save` records the caption, which
  `caption_of` returns for the report's figure index and the LaTeX appendix.

Use::

    with style.context():
        fig, ax = style.subplots("column")
        ...
        paths = style.save(fig, out / "name", caption="…")
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

COLUMN = 3.25  # inches
FULL = 6.75  # inches
FONT_PT = 8
OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442")
PNG_DPI = 300

RC = {
    "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
    "font.family": "serif", "font.serif": ["DejaVu Serif"], "mathtext.fontset": "dejavuserif",
    "font.size": FONT_PT, "axes.titlesize": FONT_PT, "axes.labelsize": FONT_PT, "legend.fontsize": FONT_PT,
    "xtick.labelsize": FONT_PT, "ytick.labelsize": FONT_PT, "figure.titlesize": FONT_PT,
    "legend.title_fontsize": FONT_PT, "legend.frameon": False, "legend.handlelength": 1.6,
    "axes.linewidth": 0.6, "lines.linewidth": 1.1, "lines.markersize": 3.5, "errorbar.capsize": 1.5,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.minor.width": 0.4, "ytick.minor.width": 0.4,
    "figure.constrained_layout.use": True, "savefig.bbox": "standard", "figure.dpi": 100,
}

_CAPTIONS: dict[str, tuple[str, str]] = {}  # pdf path -> (caption, width name)


@contextmanager
def context():
    """Matplotlib settings of this style for everything drawn and saved inside the block."""
    import matplotlib as mpl

    with mpl.rc_context({**RC, "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO))}):
        yield


def colors(k: int) -> list[str]:
    """The first k palette colours (repeating past eight)."""
    return [OKABE_ITO[i % len(OKABE_ITO)] for i in range(k)]


def subplots(width: str = "column", *, aspect: float = 0.72, nrows: int = 1, ncols: int = 1, **kw):
    """A figure ``width`` ("column" or "full") wide and ``aspect`` × one column high per row of axes."""
    import matplotlib.pyplot as plt

    if width not in ("column", "full"):
        raise ValueError(f"width must be 'column' or 'full', got {width!r}")
    w = COLUMN if width == "column" else FULL
    return plt.subplots(nrows, ncols, figsize=(w, COLUMN * aspect * nrows), **kw)


def save(fig, stem, *, caption: str) -> list[Path]:
    """Write ``stem.pdf`` (vector) and ``stem.png`` (300 dpi), close the figure, remember the caption."""
    import matplotlib.pyplot as plt

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    pdf, png = stem.with_suffix(".pdf"), stem.with_suffix(".png")
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})  # no timestamps: reruns diff cleanly
    fig.savefig(png, dpi=PNG_DPI, metadata={"Software": None})
    plt.close(fig)
    width = "full" if fig.get_size_inches()[0] > COLUMN + 0.01 else "column"
    _CAPTIONS[str(pdf.resolve())] = (caption, width)
    return [pdf, png]


def caption_of(pdf) -> tuple[str, str] | None:
    """(caption, width) recorded by `save` for this PDF in this process, None if unknown."""
    return _CAPTIONS.get(str(Path(pdf).resolve()))


def plain_log_ticks(ax, axis: str = "x", ticks=None) -> None:
    """Label a log axis with plain numbers (12, 100, not 1.2×10¹) and no minor labels; ``ticks`` fixes the ticks
    (narrow ranges such as d = 3 … 6 otherwise get crowded minor labels)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    if ticks is not None:
        target.set_major_locator(FixedLocator(list(ticks)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())
