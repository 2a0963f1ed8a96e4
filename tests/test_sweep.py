"""Resumable sweeps lose and repeat nothing across an interruption."""
import pytest

from relucheck.numerics.sweep import Sweep


def test_sweep_resumes_without_repeating(tmp_path):
    path = tmp_path / "s.jsonl"
    calls = []

    def compute(p):
        calls.append(p["n"])
        if p["n"] == 3 and calls.count(3) == 1:
            raise KeyboardInterrupt  # interrupted while computing the point n = 3
        return {"sq": p["n"] ** 2}

    points = [{"n": k} for k in range(5)]
    with pytest.raises(KeyboardInterrupt):
        Sweep(path, progress=False).run(points, compute)
    with path.open("a") as fh:
        fh.write('{"point": {"n": 9}, "res')  # a line cut mid-write
    rows = Sweep(path, progress=False).run(points, compute)
    assert [r["result"]["sq"] for r in rows] == [0, 1, 4, 9, 16]
    assert calls == [0, 1, 2, 3, 3, 4]  # 0, 1, 2 were not recomputed; 3 was retried once
    rows = Sweep(path, progress=False).run(points, compute)  # a third run reads everything back from disk
    assert [r["result"]["sq"] for r in rows] == [0, 1, 4, 9, 16] and len(calls) == 6
