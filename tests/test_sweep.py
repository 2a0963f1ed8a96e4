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


def test_rows_of_other_code_are_recomputed_never_reused(tmp_path):
    """The cache key includes the package version and the hash of the package's code."""
    from relucheck.numerics.code_version import code_version

    path = tmp_path / "s.jsonl"
    calls = []

    def compute(p):
        calls.append(p["n"])
        return {"sq": p["n"] ** 2}

    points = [{"n": k} for k in range(3)]
    old = {"relucheck": "0.0.1", "code_sha256": "0" * 64}
    Sweep(path, progress=False, code=old).run(points, compute)
    rows = Sweep(path, progress=False).run(points, compute)  # the current code: nothing of the old code is reused
    assert calls == [0, 1, 2, 0, 1, 2]
    assert all(r["code"] == code_version() for r in rows)
    Sweep(path, progress=False).run(points, compute)
    Sweep(path, progress=False, code=old).run(points, compute)  # both versions' rows are kept in the file
    assert len(calls) == 6


def test_code_hash_covers_every_source_file_of_the_package():
    from relucheck.numerics import code_version as cv

    names = [name for name, _ in cv.source_files()]
    for expected in ("relucheck/__init__.py", "relucheck/numerics/sweep.py", "relucheck/theory/limit_process.py",
                     "relucheck/proofs_checks/registry.py", "relucheck/theory/statements/__init__.py"):
        assert expected in names
    assert not any("tests/" in n or n.endswith(".pyc") for n in names)
    assert len(cv.code_hash()) == 64 and cv.code_version()["code_sha256"] == cv.code_hash()
