"""Paper A regime sweep: single grid points beyond the swept grid (`regime_sweep(points=…)`, session 30) run the first
two widths only, and the points between are reported "not run", never inconclusive."""
import json

from relucheck.numerics import paper_a_verdicts as V


def test_single_points_run_two_widths_and_the_gap_is_not_run(tmp_path):
    path = tmp_path / "r.jsonl"
    proto = dict(max_time=300.0, max_steps=3000)
    rows, verdicts = V.regime_sweep(path, {2: 4}, (0,), progress=False, points={2: [8]}, **proto)
    run = sorted((r["n"], r["m"]) for r in rows)
    assert run == [(n, m) for n in (3, 4) for m in V.ladder(2, n)[:2]] + [(8, m) for m in V.ladder(2, 8)[:2]]
    assert (2, 6) not in verdicts and V.not_run(verdicts, 2, 4, [8]) == [6]
    assert V.not_run(verdicts, 2, 8) == [6]  # without the single points, the gap is the same
    lines = path.read_text().count("\n")
    again, _ = V.regime_sweep(path, {2: 4}, (0,), progress=False, points={2: [8]}, **proto)
    assert path.read_text().count("\n") == lines and len(again) == len(rows)  # from the journal: nothing trained
    # a seed whose two widths disagree asks for the third width in the grid's ladder, never for a single point
    split = [{**r, "ratio": 1e-4, "status": "interpolating"} if r["m"] == V.ladder(2, 8)[1] else r for r in rows
             if r["n"] == 8]
    assert V.seed_verdict(2, 8, {r["m"]: r for r in split})["want"] == V.ladder(2, 8)[2]
    assert V.requests(2, [8], (0,), split, V.POINT_DEPTH) == []
    assert all(json.loads(line)["point"]["n"] in (3, 4, 8) for line in path.read_text().splitlines())
