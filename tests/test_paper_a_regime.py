"""Paper A in its regime (issue 23): stationarity with the elapsed horizon, the small-neuron escape bound, the journal's
code key, the width ladder's verdicts and brackets, the width-dependence statistic."""
import numpy as np
import pytest

from relucheck.numerics import paper_a_regime as regime
from relucheck.numerics import paper_a_verdicts as V
from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.paper_a_training import small_neuron_escape, threshold_problem, train_batch


def _row(d, n, seed, m, ratio, status, time=100.0, init=0):
    return dict(d=d, n=n, seed=seed, m=m, ratio=ratio, status=status, time=time, init=init)


def test_base_width_counts_parameters():
    for d in (2, 3, 4, 10):
        for n in (4, 17, 96, 1000):
            m = V.base_width(d, n)
            assert m * (d + 1) >= 4 * n and m >= V.MIN_WIDTH and m & (m - 1) == 0
            assert m == V.MIN_WIDTH or (m // 2) * (d + 1) < 4 * n  # the smallest such power of two
    assert V.ladder(3, 48) == [64, 256, 1024]


def test_seed_verdicts():
    d, n = 3, 48
    m0, m1, m2 = V.ladder(d, n)
    agree = {m0: _row(d, n, 0, m0, 0.8, "stationary"), m1: _row(d, n, 0, m1, 0.79, "stationary")}
    assert V.seed_verdict(d, n, agree)["verdict"] == "not"
    interp = {m0: _row(d, n, 0, m0, 1e-4, "interpolating"), m1: _row(d, n, 0, m1, 5e-4, "interpolating")}
    assert V.seed_verdict(d, n, interp)["verdict"] == "interpolates"
    split = {m0: _row(d, n, 0, m0, 0.3, "stationary"), m1: _row(d, n, 0, m1, 1e-4, "interpolating")}
    v = V.seed_verdict(d, n, split)
    assert v["verdict"] == "undecided" and v["want"] == m2 and "disagree" in v["reason"]
    split[m2] = _row(d, n, 0, m2, 2e-4, "interpolating")
    assert V.seed_verdict(d, n, split)["verdict"] == "interpolates"  # the two widest agree
    moving = {m0: _row(d, n, 0, m0, 0.3, "stationary"), m1: _row(d, n, 0, m1, 0.2, "budget", 2e4)}
    v = V.seed_verdict(d, n, moving)
    assert v["verdict"] == "undecided" and v["want"] is None and "still moving" in v["reason"]
    moved = {m0: _row(d, n, 0, m0, 0.3, "stationary"), m1: _row(d, n, 0, m1, 0.2, "moved")}
    assert V.seed_verdict(d, n, moved)["verdict"] == "undecided"


def test_point_verdicts_majority_requests_and_bracket():
    d, seeds = 2, (0, 1, 2)
    rows = []
    for n, outcome in ((4, "i"), (6, "i"), (8, "mixed"), (12, "n"), (16, "n")):
        for s in seeds:
            for m in V.ladder(d, n)[:2]:
                if outcome == "i" or (outcome == "mixed" and s == 0):
                    rows.append(_row(d, n, s, m, 1e-4, "interpolating"))
                elif outcome == "mixed" and s == 1:
                    rows.append(_row(d, n, s, m, 0.5, "budget"))
                else:
                    rows.append(_row(d, n, s, m, 0.9, "stationary"))
    pv = V.point_verdicts(rows, seeds)
    assert [pv[(d, n)]["verdict"] for n in (4, 6, 8, 12, 16)] == ["interpolates", "interpolates", "inconclusive",
                                                                   "not", "not"]
    b = V.bracket(pv, d)
    assert (b["lo"], b["hi"], b["crossed"], b["inconclusive_between"]) == (6, 12, False, [8])
    assert V.requests(d, [4, 6, 8, 12, 16], seeds, rows) == []
    assert V.requests(d, [24], (0,), rows) == [(d, 24, 0, m) for m in V.ladder(d, 24)[:2]]
    # a crossed bracket: an interpolating n beyond a non-interpolating one
    rows += [_row(d, 24, s, m, 1e-4, "interpolating") for s in seeds for m in V.ladder(d, 24)[:2]]
    b = V.bracket(V.point_verdicts(rows, seeds), d)
    assert b["crossed"] and (b["lo"], b["hi"]) == (24, 12)


def test_width_dependence_statistic():
    rows = []
    for s in (0, 1):
        for m in (64, 256, 1024):
            for init, wiggle in ((0, 1.0), (1, 1.02)):
                rows.append(_row(3, 192, s, m, 0.9 * wiggle, "stationary", init=init))
    flat = V.width_dependence(rows, 3, 192)
    assert flat["deviation"] < 1e-12 and abs(flat["init_noise"] - np.log(1.02)) < 1e-12 and flat["span"] == 16
    assert abs(V.width_dependence(rows, 3, 192, exponent=0.5)["deviation"] - 0.5 * np.log(16)) < 1e-12


def test_small_neuron_escape():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    r = X[:, 0].copy()  # the residual of the zero network on y = x_1: D(u) → E[1{⟨u,x⟩>0} x x_1] has G > 0 at e_1
    W = 1e-4 * np.array([[0.0, 1.0], [1.0, 0.0]])
    a = 1e-4 * np.ones(2)
    b = small_neuron_escape(X, r, 40, a, W, 10.0)
    D = ((X @ np.array([1.0, 0.0]) > 0) * r) @ X / 40
    g = D[0]  # G(e_1) = ⟨D(e_1), e_1⟩, the local max the neuron at e_2 climbs to
    assert b >= 2e-8 * g * np.exp(2 * g * 10.0) * 0.99  # both neurons reach G(e_1) or more
    assert small_neuron_escape(X, np.zeros(40), 40, a, W, 10.0) == 0.0
    assert small_neuron_escape(X, r, 40, np.zeros(0), np.zeros((0, 2)), 10.0) == 0.0
    # G(u) = (1/n) Σ_i r_i σ(⟨u, x_i⟩): with r ≤ 0 no positive neuron can grow (G ≤ 0 everywhere), a negative one can
    assert small_neuron_escape(X, -np.abs(r), 40, a, W, 10.0) == 0.0
    assert small_neuron_escape(X, -np.abs(r), 40, -a, W, 10.0) > 0.0


def test_elapsed_horizon_statuses_and_input_errors():
    rows = regime.regime_batch(2, 16, [(4, 2), (96, 0)], max_time=3000.0)
    by_n = {r["n"]: r for r in rows}
    assert by_n[96]["status"] == "stationary" and by_n[96]["ratio"] > 0.9  # far beyond the threshold: OLS-like
    assert by_n[96]["time"] >= (1 + regime.CONFIRM) * by_n[96]["stationary_time"] * 0.99 or \
        by_n[96]["time"] >= 3000.0  # confirmed over two more doublings (or to the budget)
    assert abs(by_n[96]["ratio"] - by_n[96]["stationary_ratio"]) <= 1e-2 * by_n[96]["stationary_ratio"]
    P = GDBatch.stack([(np.ones((2, 2)), np.ones(2))])
    with pytest.raises(RelucheckInputError, match="horizon"):
        train_batch(P, np.zeros((1, 1)), np.zeros((1, 1, 2)), 0.1, 10, horizon="forever")


def test_step_size_control_tracks_fixed_small_step_gd():
    """The regime runs take steps up to 16 × 0.05, undone and halved when L rises (`train_batch`): on a problem
    beyond the threshold (d = 2, n = 96) the stationary ratio equals fixed-step GD's at η = 0.02 (40× smaller than the
    largest step) run to the same flow time, to the rule's 1 % (GD tracks the flow: L moves by < 0.1 % between the two
    step sizes' limits)."""
    r = regime.regime_batch(2, 16, [(96, 1)], max_time=2000.0)[0]
    mt = threshold_problem(2, 96, 1, m=16, lam=1e-3, sigma=1.0, n_test=10)
    a, W = mt["a0"][None].copy(), mt["W0"][None].copy()
    P = GDBatch.stack([(mt["X"], mt["y"])])
    _, F = descend(P, a, W, 0.02, int(r["time"] / 0.02))
    plain = float(F.loss()[0] / mt["train_ols"])
    assert abs(plain - r["ratio"]) <= 1e-2 * plain, (plain, r["ratio"])


def test_journal_resumes_and_code_key_ignores_wording(tmp_path, monkeypatch):
    calls = []
    original = regime.regime_batch

    def counting(d, m, pairs, **kw):
        calls.append((d, m, tuple(pairs)))
        return original(d, m, pairs, **kw)

    monkeypatch.setattr(regime, "regime_batch", counting)
    j = regime.RegimeJournal(tmp_path / "r.jsonl", progress=False, max_time=200.0, max_steps=2000)
    rows = j.ensure([(2, 4, 0, 16), (2, 6, 0, 16), (2, 4, 0, 16, 1)])
    assert len(calls) == 1 and len(rows) == 2 and len(j.rows(inits=True)) == 3
    j.ensure([(2, 4, 0, 16), (2, 6, 0, 16), (2, 4, 0, 16, 1)])
    assert len(calls) == 1  # nothing trained again
    src = '"""Doc."""\nimport os\n\n\ndef f(x):\n    """Doc."""\n    return x + 1  # comment\n'
    same = '"""Other words."""\nimport os\n\n\ndef f(x):\n    """More."""\n    return x + 1\n'
    assert regime._code_of(src) == regime._code_of(same)
    assert regime._code_of(src) != regime._code_of(src.replace("x + 1", "x + 2"))


def test_width_independence_check_and_its_mutant(tmp_path, monkeypatch):
    """The check on a small case that runs settle fast (d = 2, n = 96, one seed, two initializations, widths m₀ and 4m₀,
    flow time ≤ 10⁴; no interpolating n exists at d = 2, so no "below" point): verified, and its mutant
    (L/L_OLS ∝ m^(−1/2)) refuted: ½ ln 4 = 0.69 against a tolerance of a few 0.01."""
    from relucheck.proofs_checks.checks import paper_a_threshold as chk
    from relucheck.proofs_checks.registry import Context
    from relucheck.proofs_checks.result import Status

    monkeypatch.setenv("RELUCHECK_SWEEP_DIR", str(tmp_path))
    monkeypatch.setattr(chk, "WIDTH_CASE", dict(beyond=(2, 96), below=None, n_seeds=1, inits=2, depth=2,
                                                protocol=dict(max_time=10000.0)))
    real = chk.width_independence(Context(seed=1))
    assert real.status is Status.VERIFIED, real.message
    mutant = chk.width_independence(Context(seed=1, mutate=True))
    assert mutant.status is Status.REFUTED, mutant.message
    # the part below the threshold can fail: at d = 2 no n interpolates, so a "below" point there is refuted
    monkeypatch.setattr(chk, "WIDTH_CASE", dict(beyond=(2, 96), below=(2, 8), n_seeds=1, inits=2, depth=2,
                                                protocol=dict(max_time=10000.0)))
    wrong_below = chk.width_independence(Context(seed=1))
    assert wrong_below.status is Status.REFUTED and "below the threshold" in wrong_below.message


def test_regime_report_tables_figures_and_printed_brackets(tmp_path, capsys):
    """`RELUCHECK_SCALE=regime relucheck report --paper A` at a tiny size: per d a printed bracket with its evidence,
    the two tables, the ratio figure and the alignment figure whose caption names chance and the paper's shares."""
    import matplotlib

    matplotlib.use("Agg")
    from relucheck.proofs_checks.figures import paper_a, paper_a_regime
    from relucheck.proofs_checks.figures import style as figstyle

    cfg = dict(ds_nmax={2: 6, 3: 8}, seeds=(0, 1), protocol=dict(max_time=1500.0, max_steps=20_000))
    with figstyle.context("article"):
        paths = paper_a_regime.write_regime(tmp_path, 0, paper_a.ALIGNMENT_CUT, paper_a.PAPER_ALIGNED,
                                            paper_a.NEGLIGIBLE, cfg)
    names = {p.name for p in paths}
    for stem in ("paper_a_regime_threshold", "paper_a_regime_points"):
        assert {stem + ".md", stem + ".tex"} <= names
    for stem in ("paper_a_regime_ratio", "paper_a_alignment"):
        assert {stem + ".pdf", stem + ".png"} <= names
    printed = capsys.readouterr().out
    assert "d = 2: threshold bracket" in printed and "d = 3: threshold bracket" in printed
    caption = (tmp_path / "paper_a_regime_threshold.md").read_text()
    assert "strict majority of seeds" in caption
    assert abs(paper_a_regime.chance_aligned(3, 0.9) - 0.1) < 1e-12
    assert abs(paper_a_regime.chance_aligned(2, 0.9) - 2 / np.pi * np.arccos(0.9)) < 1e-12
    for stem in ("paper_a_regime_threshold", "paper_a_regime_points"):  # one cell per column in every row
        lines = [ln for ln in (tmp_path / f"{stem}.md").read_text().splitlines() if ln.startswith("|")]
        assert len({ln.count("|") for ln in lines}) == 1
