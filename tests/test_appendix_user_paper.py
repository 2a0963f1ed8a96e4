"""`relucheck report --appendix` on a run of a user's own theorem writes that paper's section (given its --checks),
and refuses, naming the paper and the option, when the statements are not loaded (new user, session 31: the
appendix held 24 pages of papers A, B and C with "no check" and none of the user's statement)."""
from __future__ import annotations

import subprocess
import sys

PLUGIN = '''
from relucheck import register_paper, register_statements, Statement, check, agree

register_paper("X", "My note on one third")
register_statements(Statement(id="X.s", paper="X", number="Lemma 1", title="one third", conclusion="x = 1/3",
                              confidence="certain"))


@check("X.s.value", statement="X.s", mutant="0.3 in place of 1/3")
def value(ctx):
    return agree(0.3 if ctx.mutate else 1 / 3, 0.3333333333333333, 1e-12, "float64 rounding of 1/3")
'''


def _relucheck(cwd, *args):
    return subprocess.run([sys.executable, "-m", "relucheck", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_the_appendix_of_a_users_run_is_that_papers(tmp_path):
    (tmp_path / "mine.py").write_text(PLUGIN, encoding="utf-8")
    assert _relucheck(tmp_path, "run", "--checks", "mine.py", "--only", "X.*", "--mutate", "--out", "o").returncode == 0
    refused = _relucheck(tmp_path, "report", "--appendix", "--results", "o/results.json", "--out", "a")
    assert refused.returncode == 2 and "paper X" in refused.stderr and "--checks" in refused.stderr
    done = _relucheck(tmp_path, "report", "--appendix", "--results", "o/results.json", "--checks", "mine.py",
                      "--out", "b")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "b").glob("appendix*.tex")) == ["appendix.tex", "appendix_x.tex"]
    text = (tmp_path / "b" / "appendix.tex").read_text(encoding="utf-8")
    assert r"\section{Paper X: machine verification}" in text and "one third" in text
    assert "Paper A" not in text and "statements of paper X by relucheck" in text
