"""Every figure of `proofs_checks.figures` follows `figures.style`: no Type 3 font (read with pdffonts: a missing
pdffonts FAILS), one-column or full width, a PDF and a 300 dpi PNG, no title and no spec citation inside, a
caption recorded for the figure index of paper_x.md.

The papers' reports run here at tiny scales (the SCALES and sizes monkeypatched): the drawing code is the
same as at the default scale, the sweeps are small.
"""
from __future__ import annotations

import re

import matplotlib
import pytest

from relucheck.numerics.paper_a_training import THRESHOLD_PROTOCOL
from relucheck.proofs_checks.figures import c_norm_vs_n, paper_a, paper_b, paper_c, style
from relucheck.proofs_checks.figures.index import write_index
from tests.latex_tools import pdf_fonts, pdf_width_pt

TINY_A = dict(ds=(2, 3), n_seeds=1, protocol=dict(THRESHOLD_PROTOCOL, m=8, max_steps=2000, n_test=50))
TINY_B = {"fig3": {"d": 30, "n": [60, 120], "runs": 3},
          "fig4": {"p": 30, "d": [10, 20], "runs": 3, "n_per_d": [1, 5]},
          "fig5": {"d": 15, "p": [15, 30], "runs": 3, "n": [30, 90]},
          "fig6": {"d": 200, "n": [16, 32], "runs": 2}}
SPEC_CITATION = re.compile(r"§|\bspec\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Paper A, B and C reports at tiny scales; every figure is inspected just before it is saved."""
    matplotlib.use("Agg")
    base = tmp_path_factory.mktemp("figures")
    seen = {}
    original = style.save

    def inspecting_save(fig, stem, *, caption):
        texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        titles = [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right") if ax.get_title(loc)]
        suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
        seen[stem.name] = {"titles": titles + ([suptitle] if suptitle else []), "texts": texts, "caption": caption,
                           "size": tuple(fig.get_size_inches())}
        return original(fig, stem, caption=caption)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELUCHECK_SCALE", "reduced")
        mp.setitem(paper_a.SCALES, "reduced", TINY_A)
        mp.setitem(paper_b.SCALES, "reduced", TINY_B)
        mp.setattr(paper_c, "FIG1_LAMBDAS", ("1e-10", "1e-40"))
        mp.setattr(paper_c, "TABLE_LAMBDAS", ("1e-10",))
        mp.setattr(c_norm_vs_n, "FIG5_SIZES", (32, 64, 128))
        mp.setattr(c_norm_vs_n, "FIG5_SEEDS", 2)
        mp.setattr(style, "save", inspecting_save)
        paths = {}
        for name, module in (("a", paper_a), ("b", paper_b), ("c", paper_c)):
            out = base / name
            written = module.write_report(out, seed=0)
            paths[name] = written + write_index(out, name, written)
    return paths, seen


def test_every_figure_has_a_pdf_png_and_caption(reports):
    paths, seen = reports
    pdfs = [p for ps in paths.values() for p in ps if p.suffix == ".pdf"]
    assert {p.stem for p in pdfs} == set(seen) and len(pdfs) == 3 + 5 + 2
    for pdf in pdfs:
        assert pdf.with_suffix(".png").exists()
        caption, width = style.caption_of(pdf)
        assert len(caption) > 40 and width in ("column", "full")


def test_no_type3_fonts_and_paper_sizes(reports):
    paths, _ = reports
    for pdf in (p for ps in paths.values() for p in ps if p.suffix == ".pdf"):
        fonts = pdf_fonts(pdf)
        assert fonts, f"{pdf.name}: no embedded font (text drawn as paths?)"
        assert not [f for f in fonts if f[1] == "Type 3"], f"{pdf.name}: Type 3 fonts {fonts}"
        assert min(abs(pdf_width_pt(pdf) - 72 * w) for w in (style.COLUMN, style.FULL)) < 0.5, pdf.name


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


def test_no_titles_and_no_spec_citations(reports):
    _, seen = reports
    for name, info in seen.items():
        assert not info["titles"], f"{name}: titles inside the figure {info['titles']}"
        cited = [t for t in info["texts"] if SPEC_CITATION.search(t)]
        assert not cited, f"{name}: text citing the spec {cited}"
        assert info["size"][0] in (style.COLUMN, style.FULL), name


def test_figure_index_in_markdown(reports):
    paths, seen = reports
    for name, written in paths.items():
        md = next(p for p in written if p.name == f"paper_{name}.md").read_text()
        figures = [p for p in written if p.suffix == ".pdf"]
        assert "## Figure index" in md
        for pdf in figures:
            assert f"[{pdf.name}]({pdf.name})" in md and seen[pdf.stem]["caption"] in md
            assert f"({pdf.with_suffix('.png').name})" in md

