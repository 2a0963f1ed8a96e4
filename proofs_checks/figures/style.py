"""One style for every figure of `proofs_checks.figures`, in the voice of the paper it goes into: the venue's
widths, the body's fonts and sizes, TrueType fonts only, a colour-blind-safe palette, no titles (captions live
in LaTeX and Markdown), and beside each figure a CSV of the plotted data.

Presets (`STYLES`, ``relucheck report --style NAME``; the default is `DEFAULT_STYLE`):

==============  ==========================================  =======================  ===========================
name            venue                                       fonts                    widths (column / text)
==============  ==========================================  =======================  ===========================
article         LaTeX ``article`` class, 10 pt, one column  Computer Modern          ½ text / 345 pt (4.77 in)
article-times   the same with ``\\usepackage{times}``       Times, CM math           ½ text / 345 pt
neurips         NeurIPS 2024, one column                    Times, CM math           ½ text / 5.5 in
icml            ICML 2024, two columns                      Times, CM math           3.25 in / 6.75 in
iclr            ICLR 2024, one column                       Times, CM math           ½ text / 5.5 in
jmlr            JMLR, one column                            Computer Modern          ½ text / 6.0 in
tmlr            TMLR, one column                            Computer Modern          ½ text / 6.5 in
aistats         AISTATS 2025, two columns                   Computer Modern          3.25 in / 6.75 in
==============  ==========================================  =======================  ===========================

Why tueplots (not SciencePlots): tueplots has one bundle per venue with that venue's column and text widths
(`tueplots.figsizes`) and the font sizes derived from its body size (`tueplots.fontsizes`), so a venue preset is
a function call, not numbers copied here; its font settings have non-LaTeX variants (mathtext), so nothing
needs TeX at render time. SciencePlots ships matplotlib style sheets (looks such as "science", "ieee",
"nature") with one figure size each and no per-venue widths, and its default typesetting goes through
``text.usetex``, which needs a full TeX installation wherever figures are drawn.

* Sizes: the venue's widths from `tueplots.figsizes` (the LaTeX ``article`` class has no tueplots bundle: its
  ``\\textwidth`` is 345 pt at 10 pt, ``\\showthe\\textwidth``). A "column" figure is one column wide in a
  two-column venue, and half the text width in a one-column venue (the size of one panel of tueplots' default
  1 × 2 grid); a "full" figure is the text width. Font sizes from `tueplots.fontsizes` for the venue's body size
  (``article`` uses TMLR's, a 10 pt one-column Computer Modern venue), line widths from `tueplots.axes.lines`.
  Figures are saved at exactly that size (constrained layout, no tight bounding box), so ``\\includegraphics``
  at natural size (or at `Figure.rel_width` of ``\\linewidth``) prints the venue's sizes.
* Fonts, no TeX needed: Computer Modern is matplotlib's bundled BaKoMa ``cmr10`` TrueType (text) with
  mathtext ``cm`` (math): the design of Latin Modern, which only exists as OpenType/CFF and would not embed
  as TrueType. Times is the first installed TrueType of tueplots' Times-like list, else matplotlib's bundled
  STIX (a Times design). ``pdf.fonttype = 42`` embeds TrueType (Type 42), never Type 3; DejaVu is never
  named (tests/test_figures_output.py reads every PDF with ``pdffonts``). ``text.usetex`` stays off: a
  machine running relucheck need not have a full TeX.
* Palette: Okabe & Ito's eight colours (Color Universal Design, 2008), distinguishable under the common
  colour-vision deficiencies; yellow comes last (weak on white). Curves ordered by a parameter (λ, n) take a
  sequential colormap instead (`sequential`).
* Outputs: vector PDF, a 300 dpi PNG and the CSV of the plotted data (same basename; written atomically) for
  every figure; `save` records the caption and sizes, which `figure_record` returns for the figure index.

Use::

    with style.context("neurips"):
        fig, ax = style.subplots("column")
        ...
        paths = style.save(fig, out / "name", caption="…", data={"n": ns, "train_loss": losses})
"""
from __future__ import annotations

import contextvars
import csv
import io
import logging
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from relucheck.numerics.durable_files import atomic_write_text

STYLES = ("article", "article-times", "neurips", "icml", "iclr", "jmlr", "tmlr", "aistats")
DEFAULT_STYLE = "article"
OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442")
PNG_DPI = 300
POINTS_PER_INCH = 72.27  # TeX points (\textwidth is given in them)
ARTICLE_TEXTWIDTH_PT = 345.0  # \showthe\textwidth in \documentclass[10pt]{article} (letter and A4 paper alike)
ONE_COLUMN_SHARE = 0.5  # a "column" figure in a one-column venue: one panel of tueplots' default 1 × 2 grid
COMPUTER_MODERN = "cmr10"  # matplotlib's bundled BaKoMa Computer Modern Roman, TrueType
TIMES_FALLBACK = "STIXGeneral"  # matplotlib's bundled STIX, a Times design, TrueType


@dataclass(frozen=True)
class Style:
    """A venue preset: widths in inches and the matplotlib settings."""

    name: str
    venue: str
    column_in: float
    text_in: float
    two_column: bool
    rc: dict = field(repr=False)

    def width_in(self, width: str) -> float:
        if width not in ("column", "full"):
            raise ValueError(f"width must be 'column' or 'full', got {width!r}")
        return self.column_in if width == "column" else self.text_in


def _truetype_installed(families) -> list[str]:
    """The families of ``families`` that matplotlib finds as TrueType files (.ttf), in order."""
    from matplotlib import font_manager

    have = {f.name for f in font_manager.fontManager.ttflist if f.fname.lower().endswith(".ttf")}
    return [f for f in families if f in have]


def _computer_modern() -> dict:
    # cmr10 has no U+2212 minus: tick labels go through mathtext (cmsy10's minus), as matplotlib advises
    return {"text.usetex": False, "font.family": "serif", "font.serif": [COMPUTER_MODERN, TIMES_FALLBACK],
            "mathtext.fontset": "cm", "axes.formatter.use_mathtext": True}


def _times(tueplots_fonts: dict) -> dict:
    rc = dict(tueplots_fonts)  # Times text, CM math, usetex off (tueplots' non-TeX variant)
    rc["font.serif"] = _truetype_installed(rc["font.serif"]) + [TIMES_FALLBACK]
    return rc


def _build(name: str) -> Style:
    from tueplots import axes, figsizes, fonts, fontsizes

    def widths(half, full=None):
        if full is None:  # one-column venue: ``half`` is the text-width figsize function
            text = half(nrows=1, ncols=1)["figure.figsize"][0]
            return text * ONE_COLUMN_SHARE, text, False
        return half(nrows=1, ncols=1)["figure.figsize"][0], full(nrows=1, ncols=1)["figure.figsize"][0], True

    article = ARTICLE_TEXTWIDTH_PT / POINTS_PER_INCH
    table = {
        "article": ("LaTeX article class, 10 pt", (article * ONE_COLUMN_SHARE, article, False),
                    _computer_modern(), fontsizes.tmlr2023()),
        "article-times": ("LaTeX article class, 10 pt, Times", (article * ONE_COLUMN_SHARE, article, False),
                          _times(fonts.neurips2024()), fontsizes.tmlr2023()),
        "neurips": ("NeurIPS 2024", widths(figsizes.neurips2024), _times(fonts.neurips2024()), fontsizes.neurips2024()),
        "icml": ("ICML 2024", widths(figsizes.icml2024_half, figsizes.icml2024_full), _times(fonts.icml2024()),
                 fontsizes.icml2024()),
        "iclr": ("ICLR 2024", widths(figsizes.iclr2024), _times(fonts.iclr2024()), fontsizes.iclr2024()),
        "jmlr": ("JMLR", widths(figsizes.jmlr2001), _computer_modern(), fontsizes.jmlr2001()),
        "tmlr": ("TMLR", widths(figsizes.tmlr2023), _computer_modern(), fontsizes.tmlr2023()),
        "aistats": ("AISTATS 2025", widths(figsizes.aistats2025_half, figsizes.aistats2025_full), _computer_modern(),
                    fontsizes.aistats2025()),
    }
    venue, (column_in, text_in, two_column), font_rc, size_rc = table[name]
    small = size_rc["legend.fontsize"]
    rc = {
        **font_rc, **size_rc, **axes.lines(),
        "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
        "legend.title_fontsize": small, "figure.titlesize": size_rc["font.size"],
        "legend.frameon": False, "legend.handlelength": 1.8, "lines.markersize": 3.5, "errorbar.capsize": 1.5,
        "figure.constrained_layout.use": True, "savefig.bbox": "standard", "figure.dpi": 100,
    }
    return Style(name, venue, column_in, text_in, two_column, rc)


def get(name: str = DEFAULT_STYLE) -> Style:
    """The preset ``name`` (one of `STYLES`); ValueError naming the choices otherwise."""
    if name not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}, got {name!r}")
    return _build(name)


_ACTIVE: contextvars.ContextVar[Style | None] = contextvars.ContextVar("relucheck_figure_style", default=None)


def active() -> Style:
    """The style of the innermost `context` block (the default style outside any)."""
    return _ACTIVE.get() or get(DEFAULT_STYLE)


@contextmanager
def context(name: str = DEFAULT_STYLE):
    """Matplotlib settings of preset ``name`` for everything drawn and saved inside the block."""
    import matplotlib as mpl

    chosen = get(name)
    token = _ACTIVE.set(chosen)
    try:
        with mpl.rc_context({**chosen.rc, "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO))}):
            yield chosen
    finally:
        _ACTIVE.reset(token)


def colors(k: int) -> list[str]:
    """The first k palette colours (repeating past eight)."""
    return [OKABE_ITO[i % len(OKABE_ITO)] for i in range(k)]


def sequential(k: int) -> list:
    """k colours of a sequential colormap (viridis: perceptually uniform, readable in grey and under colour-vision
    deficiencies), dark to light, for curves ordered by a parameter; its light yellow end is left out (weak on
    white)."""
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return [cmap(0.85 * i / max(k - 1, 1)) for i in range(k)]


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))


def subplots(width: str = "column", *, aspect: float = 0.72, nrows: int = 1, ncols: int = 1, **kw):
    """A figure ``width`` ("column" or "full") of the active style wide and ``aspect`` × one column high per row."""
    import matplotlib.pyplot as plt

    chosen = active()
    return plt.subplots(nrows, ncols, figsize=(chosen.width_in(width), chosen.column_in * aspect * nrows), **kw)


@dataclass(frozen=True)
class Figure:
    """What `save` wrote: the caption, the width class, the style, and the width relative to the ``\\linewidth``
    of the environment it goes in (``figure`` for "column", ``figure*`` for "full")."""

    caption: str
    width: str
    style: str
    width_in: float
    rel_width: float
    csv: str


_RECORDS: dict[str, Figure] = {}  # resolved pdf path -> record


def csv_text(data: dict) -> str:
    """The CSV of equal-length columns ``data`` (header = the keys); floats at full precision (repr), NaN empty."""
    columns = {str(k): list(v) for k, v in data.items()}
    lengths = {len(v) for v in columns.values()}
    if not columns or len(lengths) != 1:
        raise ValueError(f"figure data: need columns of one length, got lengths {sorted(lengths)}")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in zip(*columns.values(), strict=True):
        writer.writerow([_cell(v) for v in row])
    return buf.getvalue()


def _cell(v):
    if isinstance(v, bool) or v is None:
        return "" if v is None else int(v)
    if isinstance(v, int | str):
        return v
    x = float(v)
    return "" if math.isnan(x) else repr(x)


def save(fig, stem, *, caption: str, data: dict) -> list[Path]:
    """Write ``stem.pdf`` (vector), ``stem.png`` (300 dpi) and ``stem.csv`` (``data``: the plotted values, columns
    named with their meaning and unit), close the figure, remember the caption."""
    import matplotlib.pyplot as plt

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    pdf, png, table = stem.with_suffix(".pdf"), stem.with_suffix(".png"), stem.with_suffix(".csv")
    text = csv_text(data)
    head_log = logging.getLogger("fontTools.ttLib.tables._h_e_a_d")
    level = head_log.level
    head_log.setLevel(logging.ERROR)  # the BaKoMa fonts' 1990s head timestamps: a warning per subset, harmless
    try:
        fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})  # no timestamps: reruns diff cleanly
    finally:
        head_log.setLevel(level)
    fig.savefig(png, dpi=PNG_DPI, metadata={"Software": None})
    atomic_write_text(table, text)
    width_in = float(fig.get_size_inches()[0])
    plt.close(fig)
    chosen = active()
    width = "full" if width_in > chosen.column_in + 0.01 else "column"
    line = chosen.text_in if width == "full" or not chosen.two_column else chosen.column_in
    _RECORDS[str(pdf.resolve())] = Figure(caption, width, chosen.name, width_in, round(width_in / line, 3), table.name)
    return [pdf, png, table]


def figure_record(pdf) -> Figure | None:
    """What `save` recorded for this PDF in this process, None if unknown."""
    return _RECORDS.get(str(Path(pdf).resolve()))


def caption_of(pdf) -> tuple[str, str] | None:
    """(caption, width) recorded by `save` for this PDF in this process, None if unknown."""
    record = figure_record(pdf)
    return (record.caption, record.width) if record else None


def plain_log_ticks(ax, axis: str = "x", ticks=None) -> None:
    """Label a log axis with plain numbers (12, 100, not 1.2×10¹) and no minor labels; ``ticks`` fixes the ticks
    (narrow ranges such as d = 3 … 6 otherwise get crowded minor labels)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    if ticks is not None:
        target.set_major_locator(FixedLocator(list(ticks)))
    target.set_major_formatter(FuncFormatter(lambda v, _: tick_label(v)))
    target.set_minor_formatter(NullFormatter())


def tick_label(v: float) -> str:
    """A tick value as mathtext: 12, 0.5, 4096 as written; 2·10⁵ and 10⁻⁴ for the very large and small."""
    text = f"{v:.4g}"
    if "e" not in text:
        return f"${text}$"
    mantissa, exponent = text.split("e")
    power = f"10^{{{int(exponent)}}}"
    return f"${power}$" if mantissa == "1" else rf"${mantissa} \cdot {power}$"
