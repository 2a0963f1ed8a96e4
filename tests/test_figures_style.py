"""`figures.style`: the venue presets (widths from tueplots, Computer Modern or Times, TrueType only), the CSV
writer, the colour scales and tick labels. The figures themselves (every writer, in two presets) are checked in
tests/test_figures_output.py.
"""
from __future__ import annotations

import csv
import io
import math

import matplotlib
import pytest

from relucheck.proofs_checks.figures import style
from tests.latex_tools import pdf_fonts, pdf_width_pt

matplotlib.use("Agg")


def test_presets_widths_come_from_tueplots():
    from tueplots import figsizes

    icml = style.get("icml")
    assert (icml.column_in, icml.text_in, icml.two_column) == (figsizes.icml2024_half()["figure.figsize"][0],
                                                               figsizes.icml2024_full()["figure.figsize"][0], True)
    neurips = style.get("neurips")
    assert neurips.text_in == figsizes.neurips2024()["figure.figsize"][0] and not neurips.two_column
    assert neurips.column_in == neurips.text_in * style.ONE_COLUMN_SHARE
    article = style.get("article")
    assert math.isclose(article.text_in * style.POINTS_PER_INCH, style.ARTICLE_TEXTWIDTH_PT)
    assert style.DEFAULT_STYLE in style.STYLES and len(set(style.STYLES)) == len(style.STYLES)


@pytest.mark.parametrize("name", style.STYLES)
def test_every_preset_is_truetype_without_tex_or_dejavu(name):
    rc = style.get(name).rc
    assert rc["pdf.fonttype"] == 42 and rc["text.usetex"] is False
    assert rc["font.family"] == "serif" and rc["mathtext.fontset"] == "cm"
    assert not [f for f in rc["font.serif"] if "DejaVu" in f]
    assert rc["font.serif"][-1] == style.TIMES_FALLBACK  # bundled with matplotlib: never a fallback to DejaVu


def test_unknown_preset_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="style must be one of article"):
        style.get("nature")
    with pytest.raises(ValueError, match="width must be"):
        style.get().width_in("half")


def test_context_sets_and_restores_the_active_style():
    assert style.active().name == style.DEFAULT_STYLE
    with style.context("icml") as chosen:
        assert style.active() == chosen and matplotlib.rcParams["font.size"] == chosen.rc["font.size"]
        fig, _ = style.subplots("full")
        assert fig.get_size_inches()[0] == chosen.text_in
        matplotlib.pyplot.close(fig)
    assert style.active().name == style.DEFAULT_STYLE


@pytest.mark.parametrize("name", ["article", "article-times"])
def test_fonts_in_the_pdf(tmp_path, name):
    """Computer Modern (cmr10/cmmi10) for article, a Times design for article-times; never DejaVu, never Type 3."""
    with style.context(name):
        fig, ax = style.subplots("column")
        ax.plot([1, 2], [-1, 1])
        ax.set_xlabel(r"accelerated time $\tau = t/\ln(1/\lambda)$")
        paths = style.save(fig, tmp_path / "f", caption="a test figure", data={"x": [1, 2], "y": [-1, 1]})
    fonts = pdf_fonts(paths[0])
    names = " ".join(n for n, _ in fonts)
    assert fonts and "DejaVu" not in names and not [f for f in fonts if f[1] == "Type 3"], fonts
    assert "Cmmi10" in names  # math in Computer Modern, as \usepackage{times} and the default article both do
    text_font = "Cmr10" if name == "article" else ("STIX", "Times", "Nimbus", "Termes")
    assert any(t in names for t in ((text_font,) if isinstance(text_font, str) else text_font)), names
    assert abs(pdf_width_pt(paths[0]) - 72 * style.get(name).column_in) < 0.05


def test_pdffonts_check_sees_type3(tmp_path):
    """The font check can fail: matplotlib's default (pdf.fonttype 3) gives Type 3 fonts."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"pdf.fonttype": 3}):
        fig, ax = plt.subplots()
        ax.set_xlabel("x")
        path = tmp_path / "t3.pdf"
        fig.savefig(path)
        plt.close(fig)
    assert any(kind == "Type 3" for _, kind in pdf_fonts(path))


def test_csv_text_round_trips_and_refuses_ragged_columns():
    text = style.csv_text({"n": [1, 2], "loss": [0.1, float("nan")], "label": ["a,b", "c"]})
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["n", "loss", "label"], ["1", "0.1", "a,b"], ["2", "", "c"]]
    with pytest.raises(ValueError, match="one length"):
        style.csv_text({"n": [1, 2], "loss": [0.1]})


def test_sequential_colours_darken_with_the_order():
    """Curves ordered by a parameter get colours of monotone lightness (a viridis ramp without its yellow end)."""
    cols = style.sequential(6)

    def luminance(c):
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    lum = [luminance(c) for c in cols]
    assert lum == sorted(lum) and len(set(lum)) == 6 and lum[-1] < luminance(matplotlib.colormaps["viridis"](1.0))


def test_plain_log_ticks_label_the_values_themselves():
    import matplotlib.pyplot as plt

    with style.context():
        fig, ax = plt.subplots()
        ax.loglog([15, 30, 60], [1, 2, 3])
        style.plain_log_ticks(ax, "x", ticks=[15, 30, 60])
        fig.canvas.draw()
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        minor = [t.get_text() for t in ax.xaxis.get_minorticklabels() if t.get_text()]
        plt.close(fig)
    assert labels == ["$15$", "$30$", "$60$"] and not minor


def test_tick_labels_of_large_and_small_values():
    assert [style.tick_label(v) for v in (4096, 0.5, 1e5, 2e-6, 12.0)] == [
        "$4096$", "$0.5$", "$10^{5}$", r"$2 \cdot 10^{-6}$", "$12$"]
