"""Paper A regime report: a stationary verdict whose confirmation (the run continued to (1 + CONFIRM) t_s) was cut
short by the budget is flagged per run, counted per point and printed (docs/paper_a.md, "Found on the way": 13 of the
journal's stationary runs had t_s > max_time / 4)."""
from relucheck.numerics import paper_a_regime as regime
from relucheck.numerics import paper_a_verdicts as V


def _runs():
    """Real runs at d = 2, m = 16 (0.6 s CPU): with max_time 300 and 3000 steps, n = 8, seed 2 is found stationary at
    t_s ≈ 252 and its confirmation ends at the budget, t = 300 < 4 t_s (docs/paper_a.md's short-budget case); with
    max_time 3000 and 30000 steps, n = 96, seed 0 and n = 4, seed 1 are confirmed to 4 t_s."""
    cut = regime.regime_batch(2, 16, [(8, 2)], max_steps=3000, max_time=300.0)
    full = regime.regime_batch(2, 16, [(96, 0), (4, 1)], max_steps=30000, max_time=3000.0)
    return cut, full


def test_short_confirmation_flag_per_run_and_per_point():
    cut, full = _runs()
    (c,) = cut
    assert c["status"] == "stationary" and c["time"] < (1 + regime.CONFIRM) * c["stationary_time"]
    assert V.short_confirmation(c)
    assert all(r["status"] == "stationary" and not V.short_confirmation(r) for r in full)
    # mutants of the flag: always False (the report before session 30) misses the cut run; always True, or reading
    # only the flow-time budget as the confirmation's end (t ≥ max_time), flags the confirmed runs (t < 3000)
    for mutant in (lambda r: False, lambda r: True, lambda r: r["status"] == "stationary" and r["time"] < 3000.0):
        assert [mutant(r) for r in cut + full] != [V.short_confirmation(r) for r in cut + full]
    # per point: two seeds stationary at both widths, one of the four deciding runs cut short
    rows = []
    for seed in (0, 1):
        for k, m in enumerate(V.ladder(2, 8)[:2]):
            base = full[0] if (seed, k) != (1, 1) else c
            rows.append({**base, "d": 2, "n": 8, "seed": seed, "m": m})
    v = V.point_verdicts(rows, (0, 1, 2))[(2, 8)]
    assert v["verdict"] == "not" and (v["short_confirmations"], v["deciding_runs"]) == (1, 4)
    assert "1 of its 4 deciding runs" in v["reason"]
    # an interpolating point has no stationary deciding run
    rows = [dict(d=2, n=6, seed=s, m=m, ratio=1e-4, status="interpolating", time=50.0, stationary_time=float("nan"))
            for s in (0, 1, 2) for m in V.ladder(2, 6)[:2]]
    v = V.point_verdicts(rows, (0, 1, 2))[(2, 6)]
    assert (v["short_confirmations"], v["deciding_runs"]) == (0, 6) and "cut short" not in v["reason"]


def test_report_prints_and_tabulates_the_count(tmp_path, capsys, monkeypatch):
    """The printed bracket end and the points table carry the count (journal prepared, nothing trained)."""
    import matplotlib

    matplotlib.use("Agg")
    from relucheck.proofs_checks.figures import paper_a, paper_a_regime
    from relucheck.proofs_checks.figures import style as figstyle

    cut, full = _runs()
    rows = [{**(full[0] if (s, m) != (1, V.ladder(2, 8)[1]) else cut[0]), "d": 2, "n": 8, "seed": s, "m": m}
            for s in (0, 1, 2) for m in V.ladder(2, 8)[:2]]
    monkeypatch.setattr(paper_a_regime, "regime_sweep",
                        lambda *a, **k: (rows, V.point_verdicts(rows, (0, 1, 2))))
    cfg = dict(ds_nmax={2: 8}, seeds=(0, 1, 2))
    with figstyle.context("article"):
        paper_a_regime.write_regime(tmp_path, 0, paper_a.ALIGNMENT_CUT, paper_a.PAPER_ALIGNED, paper_a.NEGLIGIBLE, cfg)
    printed = capsys.readouterr().out
    assert "n = 8, the smallest not interpolating (3 of 3 seeds; " in printed
    assert "): 1 of its 6 deciding runs had a confirmation cut short" in printed
    assert "confirmation cut short: stationary at t = 252" in printed
    table = (tmp_path / "paper_a_regime_points.md").read_text()
    assert "| 1 of 6 |" in table
