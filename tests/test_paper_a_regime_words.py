"""The words of `RELUCHECK_SCALE=regime relucheck report --paper A` (proofs_checks/figures/paper_a_regime.py) for a
reader: run statuses and seed verdicts spelled out (not the journal's "s"/"b" letters or its "not"), and the alignment
caption (A §5.1, Fig. 3) saying per d where the paper's 91 % pattern appears, where it does not, and where it is not
tested (a d with decided points on one side of its bracket only). Pure functions on hand-made inputs: nothing trains."""
from __future__ import annotations

from relucheck.proofs_checks.figures import paper_a, paper_a_regime as pr


def _run(m, status, ratio, time):
    return dict(m=m, status=status, ratio=ratio, time=time, short=False, budget="base")


def test_evidence_spells_out_statuses_and_verdicts():
    v = {"seeds": {0: dict(verdict="not", reason="", evidence=[_run(16, "stationary", 0.306, 403.0),
                                                                 _run(64, "stationary", 0.306, 403.0)]),
                   1: dict(verdict="undecided", reason="", evidence=[_run(64, "stationary", 0.973, 403.0),
                                                                       _run(256, "budget", 0.174, 10880.0)]),
                   2: dict(verdict="interpolates", reason="", evidence=[_run(16, "interpolating", 2.4e-4, 81.0)])}}
    text = pr._evidence(v)
    assert "seed 0: does not interpolate [m = 16: 0.306 (stationary, t = 403)" in text
    assert "m = 256: 0.174 (moving at the budget, t = 10880)" in text
    assert "seed 2: interpolates [m = 16: 0.00024 (interpolating, t = 81)]" in text
    for letter in ("(s, ", "(b, ", "(i, ", ": not ["):  # the former internal forms
        assert letter not in text


def _al(d, n, side, neurons):
    return dict(d=d, n=n, side=side, neurons=neurons, weight=neurons, runs=3, m=[64], bracket=(None, None))


def test_alignment_caption_says_where_the_pattern_appears_is_refuted_and_is_untested():
    al = ([_al(2, n, "beyond", s) for n, s in ((4, 0.48), (64, 0.95), (96, 0.96))]
          + [_al(3, 6, "below", 0.22), _al(3, 8, "below", 0.29), _al(3, 64, "beyond", 0.10)]
          + [_al(4, n, "below", 0.05) for n in (8, 96)] + [_al(5, 12, "below", 0.0)])
    words = pr._pattern_words(al, [2, 3, 4, 5], paper_a.ALIGNMENT_CUT, paper_a.PAPER_ALIGNED)
    assert "reached only at d = 2, n = 64 and 96." in words
    assert "At d = 3, where both sides were decided, the share of aligned neurons beyond (10 %) is not above " \
           "the share below (22–29 %); beyond, it is at most the share below at n = 64: not the paper's pattern." \
           in words
    assert "At d = 4 and 5 no n beyond the threshold was decided, so the pattern is not tested there" in words
    assert "at d = 2 no n below the threshold was decided (no n interpolates)" in words
    # the caption can say the pattern appears: aligned beyond ≥ 91 % and above every share below
    shown = pr._pattern_words([_al(3, 6, "below", 0.2), _al(3, 64, "beyond", 0.93)], [3], paper_a.ALIGNMENT_CUT,
                              paper_a.PAPER_ALIGNED)
    assert "reached only at d = 3, n = 64." in shown and ": the paper's pattern." in shown
    assert "not tested" not in shown
    none = pr._pattern_words([_al(3, 6, "below", 0.2), _al(3, 64, "beyond", 0.5)], [3], paper_a.ALIGNMENT_CUT,
                             paper_a.PAPER_ALIGNED)
    assert "is reached at no point." in none and "is above the share below (20 %): not the paper's pattern." in none
