"""Paper outputs: one module per paper (`paper_a`, `paper_b`, `paper_c`), each with

    write_report(out_dir: Path, seed: int) -> list[Path]

writing its figures (PNG and PDF) and tables (LaTeX and Markdown) into ``out_dir``.
"""
