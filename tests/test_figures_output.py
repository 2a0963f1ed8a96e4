"""Every figure writer of `proofs_checks.figures` (papers A, B and C, at tiny sizes) in two venue presets: the
default ``article`` (one column, Computer Modern) and ``icml`` (two columns, Times). For every figure: a PDF, a
PNG and a CSV whose values include every plotted point; no DejaVu and no Type 3 font (``pdffonts``: a missing
pdffonts FAILS); the PDF exactly as wide as the preset's column or text width; no text or legend cut by the
figure's edge; no title and no spec citation inside; a caption without programming reprs. ``--style`` changes
size and fonts. Paper A's alignment caption says when the paper's 91 % is not reproduced, and only then.

The reports run at tiny scales (SCALES and sizes monkeypatched): the drawing code is the same as at the default
scale. The second preset reuses the first run's sweeps (copied), so it costs only the drawing.
"""
from __future__ import annotations

import csv
import math
import re
import shutil

import matplotlib
import numpy as np
import pytest

from relucheck.numerics.paper_a_training import THRESHOLD_PROTOCOL
from relucheck.proofs_checks.figures import c_norm_vs_n, paper_a, paper_b, paper_c, style
from relucheck.proofs_checks.figures.index import load_index, write_index
from tests.latex_tools import pdf_fonts, pdf_width_pt

TINY_A = dict(ds=(2, 3), n_seeds=1, protocol=dict(THRESHOLD_PROTOCOL, m=8, max_steps=2000, n_test=50))
TINY_B = {"fig3": {"d": 30, "n": [60, 120], "runs": 3},
          "fig4": {"p": 30, "d": [10, 20], "runs": 3, "n_per_d": [1, 5]},
          "fig5": {"d": 15, "p": [15, 30], "runs": 3, "n": [30, 90]},
          "fig6": {"d": 200, "n": [16, 32], "runs": 2}}
PRESETS = (style.DEFAULT_STYLE, "icml")
FIGURES = {"a": 3, "b": 5, "c": 2}
SPEC_CITATION = re.compile(r"§|\bspec\b", re.IGNORECASE)
REPR = re.compile(r"np\.float|array\(|Matrix\(|\bTrue\b|\bFalse\b|\bNone\b|\d\.\d{9,}|\de[-+]\d|\{'|\['")
SWEEPS = {"a": ["sweeps"], "b": ["sweeps"], "c": ["paper_c_flows.jsonl"]}


def _inspect(fig, stem, caption, data) -> dict:
    """What a reviewer checks, taken just before the figure is saved."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    outside = []  # an axes' tight box holds what it draws (labels, drawn tick labels, legend, texts)
    for label, artist in [(f"axes {k}", ax) for k, ax in enumerate(fig.axes) if ax.axison] + [
            ("figure legend", legend) for legend in fig.legends] + [(t.get_text(), t) for t in fig.texts]:
        ext = artist.get_tightbbox(renderer) if hasattr(artist, "axison") else artist.get_window_extent(renderer)
        if ext.x0 < box.x0 - 1 or ext.x1 > box.x1 + 1 or ext.y0 < box.y0 - 1 or ext.y1 > box.y1 + 1:
            outside.append(label)
    plotted = []
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_transform() == ax.transData and len(line.get_xdata()) >= 2:
                plotted += [float(v) for v in np.r_[line.get_xdata(), line.get_ydata()]]
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    titles = [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right") if ax.get_title(loc)]
    suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
    return {"outside": outside, "plotted": plotted, "texts": texts, "caption": caption, "columns": list(data),
            "titles": titles + ([suptitle] if suptitle else []), "size": tuple(fig.get_size_inches())}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """{preset: {paper: written paths}}, and {preset: {figure stem: inspection}}."""
    matplotlib.use("Agg")
    base = tmp_path_factory.mktemp("figures")
    seen = {name: {} for name in PRESETS}
    original = style.save

    def inspecting_save(fig, stem, *, caption, data):
        seen[style.active().name][stem.name] = _inspect(fig, stem, caption, data)
        return original(fig, stem, caption=caption, data=data)

    paths = {name: {} for name in PRESETS}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELUCHECK_SCALE", "reduced")
        mp.setitem(paper_a.SCALES, "reduced", TINY_A)
        mp.setitem(paper_b.SCALES, "reduced", TINY_B)
        mp.setattr(paper_c, "FIG1_LAMBDAS", ("1e-10", "1e-40"))
        mp.setattr(paper_c, "TABLE_LAMBDAS", ("1e-10",))
        mp.setattr(c_norm_vs_n, "FIG5_SIZES", (32, 64, 128))
        mp.setattr(c_norm_vs_n, "FIG5_SEEDS", 2)
        mp.setattr(style, "save", inspecting_save)
        for k, preset in enumerate(PRESETS):
            for name, module in (("a", paper_a), ("b", paper_b), ("c", paper_c)):
                out = base / preset / name
                if k:  # the sweeps of the first preset: this run only draws
                    out.mkdir(parents=True)
                    for item in SWEEPS[name]:
                        src = base / PRESETS[0] / name / item
                        (shutil.copytree if src.is_dir() else shutil.copy)(src, out / item)
                written = module.write_report(out, seed=0, style=preset)
                paths[preset][name] = written + write_index(out, name, written)
    return paths, seen


def _pdfs(paths, preset):
    return [p for ps in paths[preset].values() for p in ps if p.suffix == ".pdf"]


def test_every_figure_has_pdf_png_csv_and_caption(reports):
    paths, seen = reports
    for preset in PRESETS:
        for paper, count in FIGURES.items():
            assert len([p for p in paths[preset][paper] if p.suffix == ".pdf"]) == count, (preset, paper)
        for pdf in _pdfs(paths, preset):
            assert pdf.with_suffix(".png").exists() and pdf.with_suffix(".csv") in paths[preset][pdf.parent.name]
            record = style.figure_record(pdf)
            assert record.style == preset and record.csv == pdf.with_suffix(".csv").name and len(record.caption) > 40
        assert set(seen[preset]) == {p.stem for p in _pdfs(paths, preset)}


def test_csv_holds_every_plotted_point(reports):
    """The CSV's header is the data's columns and its numbers include every x and y of every data line."""
    paths, seen = reports
    for preset in PRESETS:
        for pdf in _pdfs(paths, preset):
            with pdf.with_suffix(".csv").open(newline="") as fh:
                rows = list(csv.reader(fh))
            info = seen[preset][pdf.stem]
            assert rows[0] == info["columns"] and len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)
            values = set()
            for cell in (c for r in rows[1:] for c in r):
                try:
                    values.add(float(f"{float(cell):.10g}"))
                except ValueError:
                    pass  # a text column (curve names)
            missing = [v for v in info["plotted"] if math.isfinite(v) and float(f"{v:.10g}") not in values]
            assert not missing, f"{preset} {pdf.name}: plotted but not in the CSV: {missing[:5]}"


def test_fonts_no_dejavu_no_type3(reports):
    paths, _ = reports
    for preset in PRESETS:
        for pdf in _pdfs(paths, preset):
            fonts = pdf_fonts(pdf)
            names = " ".join(name for name, _ in fonts)
            assert fonts, f"{pdf.name}: no embedded font (text drawn as paths?)"
            assert "DejaVu" not in names, f"{preset} {pdf.name}: {fonts}"
            assert not [f for f in fonts if f[1] == "Type 3"], f"{preset} {pdf.name}: Type 3 fonts {fonts}"
            times = any(t in names for t in ("STIX", "Times", "Nimbus", "Termes"))
            assert ("Cmr10" in names and not times) if preset == "article" else times, (preset, pdf.name, names)


def test_width_is_the_presets_column_or_text_width(reports):
    paths, seen = reports
    for preset in PRESETS:
        chosen = style.get(preset)
        for pdf in _pdfs(paths, preset):
            record = style.figure_record(pdf)
            assert abs(pdf_width_pt(pdf) - 72 * chosen.width_in(record.width)) < 0.05, (preset, pdf.name)
            assert seen[preset][pdf.stem]["size"][0] == chosen.width_in(record.width)
            line = chosen.text_in if record.width == "full" or not chosen.two_column else chosen.column_in
            assert math.isclose(record.rel_width, chosen.width_in(record.width) / line, abs_tol=1e-3)


def test_style_presets_change_size_and_font(reports):
    paths, _ = reports
    a, b = (sorted(_pdfs(paths, preset), key=lambda p: p.name) for preset in PRESETS)
    for one, other in zip(a, b, strict=True):
        assert one.name == other.name
        assert abs(pdf_width_pt(one) - pdf_width_pt(other)) > 10, one.name
        assert {n.split("+")[-1] for n, _ in pdf_fonts(one)} != {n.split("+")[-1] for n, _ in pdf_fonts(other)}


def test_nothing_cut_by_the_edge_no_titles_no_spec_citations(reports):
    _, seen = reports
    for preset in PRESETS:
        for name, info in seen[preset].items():
            assert not info["outside"], f"{preset} {name}: text beyond the figure's edge {info['outside']}"
            assert not info["titles"], f"{name}: titles inside the figure {info['titles']}"
            assert not [t for t in info["texts"] if SPEC_CITATION.search(t)], name


def test_captions_read_as_prose(reports):
    _, seen = reports
    for name, info in seen[style.DEFAULT_STYLE].items():
        assert not REPR.search(info["caption"]), f"{name}: {REPR.search(info['caption'])} in {info['caption']}"
        assert not re.search(r"\b(reduced|full|d10) scale\b|engine|RELUCHECK_|\.py\b|\.md\b", info["caption"]), name


def test_figure_index_lists_figures_with_data(reports):
    paths, seen = reports
    for paper in FIGURES:
        written = paths["icml"][paper]
        out = written[0].parent
        index = load_index(out, paper)
        md = (out / f"paper_{paper}.md").read_text()
        for fig in index["figures"]:
            assert fig["style"] == "icml" and fig["width"] in ("column", "full") and fig["rel_width"] == 1.0
            assert (out / fig["csv"]).exists() and f"[data]({fig['csv']})" in md
            assert seen["icml"][fig["pdf"][:-4]]["caption"] in md


def _alignment_rows(aligned_share: float, *, m: int = 100, seeds=(0, 1, 2)) -> list[dict]:
    """Synthetic paper A rows at d = 3: n = 8 interpolates, n = 64 does not; at n = 64 a share ``aligned_share`` of
    each run's m neurons sits at |cos| = 0.95, the rest at 0.3; two neurons of negligible weight (left out)."""
    rows = []
    for n, ratio in ((8, 1e-6), (64, 0.9)):
        for s in seeds:
            k = round(aligned_share * m) if n == 64 else 0
            cos = [0.95] * k + [0.3] * (m - k) + [0.99, 0.99]
            weight = [1.0 + 0.01 * j for j in range(m)] + [1e-9, 1e-9]
            rows.append(dict(d=3, n=n, seed=s, abs_cos=cos, weight=weight, status="stationary", ratio=ratio))
    return rows


@pytest.mark.parametrize("share, agrees", [(0.91, True), (0.92, True), (0.02, False), (0.6, False)])
def test_alignment_caption_says_when_the_paper_is_not_reproduced(tmp_path, monkeypatch, share, agrees):
    """The paper's statistic is the share of neurons (non-negligible weight) at |cos| ≥ 0.9; the caption says the
    paper's 91 % is not reproduced exactly when it lies outside the measured share's 95 % interval."""
    matplotlib.use("Agg")
    captured = {}

    def capture(fig, stem, *, caption, data):
        captured.update(caption=caption, data=data)
        matplotlib.pyplot.close(fig)
        return []

    monkeypatch.setattr(style, "save", capture)
    cfg = dict(ds=(3,), protocol=dict(THRESHOLD_PROTOCOL))
    with style.context():
        paper_a._alignment(tmp_path, _alignment_rows(share), cfg)
    caption, data = captured["caption"], captured["data"]
    assert f"{round(100 * share)} % of the neurons" in caption
    assert ("does not reproduce" in caption) is (not agrees) and ("agrees with the paper" in caption) is agrees
    assert ("Known reason" in caption) is (not agrees)
    at = [i for i, (n, what, lo, hi) in enumerate(zip(data["n"], data["statistic"], data["abs_cos_from"],
                                                      data["abs_cos_to"]))
          if n == 64 and what == "neurons" and (lo, hi) == (paper_a.ALIGNMENT_CUT, 1.0)]
    assert len(at) == 1 and math.isclose(data["share"][at[0]], round(share * 100) / 100)


def test_the_checks_can_fail():
    """A legend wider than the figure is seen as cut, and a plotted line missing from the data is seen."""
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    with style.context():
        fig, ax = style.subplots("column")
        ax.plot([1, 2], [3, 4], label="a label long enough to be wider than one column of the article preset")
        ax.plot([1, 2], [5, 6])
        fig.legend(loc="outside lower center", ncol=2)
        info = _inspect(fig, None, "", {"x": [1, 2], "y": [3, 4]})
        plt.close(fig)
    assert info["outside"] == ["figure legend"]
    assert [v for v in info["plotted"] if v not in (1, 2, 3, 4)] == [5, 6]


def test_latex_body_sizes_figures_relative_to_the_line(reports):
    """The appendix's figures: width = rel_width × \\linewidth (half the line for a column figure of a one-column
    preset, the whole line otherwise), so they print at their drawn size in that venue and fit in any other."""
    from relucheck.proofs_checks.figures.index import latex_body

    paths, _ = reports
    for preset in PRESETS:
        out = paths[preset]["b"][0].parent
        index = load_index(out, "b")
        body = latex_body(out, index)
        for fig in index["figures"]:
            expected = 0.5 if (fig["width"] == "column" and not style.get(preset).two_column) else 1.0
            assert fig["rel_width"] == expected
            assert re.search(rf"width={expected:g}\\linewidth\]{{[^}}]*{re.escape(fig['pdf'])}}}", body), fig["pdf"]


def test_standalone_preview_prints_figures_at_their_drawn_size(reports):
    """paper_x.tex (one wide column) shows each figure at its drawn size, not blown up to the line."""
    paths, _ = reports
    tex = (paths["icml"]["c"][0].parent / "paper_c.tex").read_text()
    assert "fig1_loss_vs_tau.pdf" in tex and not re.search(r"includegraphics\[width=", tex)


def test_figure_files_have_the_umask_permissions(reports):
    from relucheck.numerics.durable_files import process_umask

    paths, _ = reports
    expected = 0o666 & ~process_umask()
    for pdf in _pdfs(paths, style.DEFAULT_STYLE):
        for path in (pdf, pdf.with_suffix(".png"), pdf.with_suffix(".csv")):
            assert path.stat().st_mode & 0o777 == expected, (path.name, oct(path.stat().st_mode))


@pytest.mark.parametrize("limits", [{3: 8, 4: 16, 5: 32, 6: 96}, {3: 8, 4: 12, 5: 20, 6: 30}, {3: 6, 4: 24, 5: 64, 6: 200}])
def test_threshold_legend_covers_no_point(tmp_path, monkeypatch, limits):
    """Paper A's threshold figure: its legend (in the corner the rising points leave empty) covers none of the
    measured points; at lower right it covered the point d = 4, n = 16 of the default run (issue 21 review)."""
    matplotlib.use("Agg")
    covered = {}

    def capture(fig, stem, *, caption, data):
        fig.canvas.draw()
        ax = fig.axes[0]
        box = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
        points = ax.transData.transform(np.c_[data["d"], data["largest_interpolating_n"]])
        covered["points"] = [tuple(p) for p in points if box.contains(*p)]
        matplotlib.pyplot.close(fig)
        return []

    monkeypatch.setattr(style, "save", capture)
    monkeypatch.setattr(paper_a, "write_table", lambda *a, **k: [])
    rows = [dict(d=d, n=n, ratio=1e-6 if n <= top else 1.0) for d, top in limits.items() for n in (top, 2 * top)]
    with style.context():
        paper_a._threshold(tmp_path, rows, dict(ds=tuple(limits), protocol=dict(THRESHOLD_PROTOCOL)))
    assert covered["points"] == []


def test_jump_time_table_fits_an_article_column(tmp_path):
    """Paper C's jump-time table (extreme rows: λ = 1e-1000, two-digit τ_k, a negative error) compiled with pdflatex
    in the article class (345 pt text, the documented preamble line): no overfull box over 10 pt. With a
    ln(1/λ) column it was 29 pt too wide."""
    from relucheck.proofs_checks import latex
    from tests.latex_tools import compile_tex

    class _Jump:
        def __init__(self, neuron, tau):
            self.neuron, self.tau = neuron, tau

    class _Limit:
        jumps = [_Jump(0, 0.8), _Jump(1, 0.949341), _Jump(5, 14.0123)]

    rows = [{"point": {"instance": name, "lam": lam},
             "result": {"jumps": [(0.8603, 0), (0.9942, 1), (11.6874, 5)], "log_inv_lambda": 2.302585 * int(lam[2:])}}
            for name in ("golden", "random") for lam in ("1e-5", "1e-1000")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paper_c, "limit_process_of", lambda instance: _Limit())
        paper_c._error_table(tmp_path, {"golden": None, "random": None}, rows)
    doc = tmp_path / "article.tex"
    doc.write_text(f"\\documentclass{{article}}\n{latex.PREAMBLE_LINE}\n\\begin{{document}}\n"
                   "\\input{jump_time_errors.tex}\n\\end{document}\n")
    compile_tex(doc, "pdflatex", tmp_path / "pdf", overfull_pt=10.0)
