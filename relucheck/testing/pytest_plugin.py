"""relucheck's pytest plugin (entry point ``pytest11``; docs/api.md).

* Fixture ``relucheck_holds``: `relucheck.testing.assert_holds`, for tests that run a check by id or function.
* Option ``--relucheck-checks FILE.py`` (repeatable): the file's checks are loaded like ``relucheck run
  --checks`` (once, also when a test module imports the file) and added as test items: ``<check id>`` asserts
  the check holds, ``<check id>[mutant]`` that its mutant is refuted. ``--relucheck-seed N`` sets their seed
  (default 0).
"""
from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("relucheck")
    group.addoption("--relucheck-checks", action="append", default=[], metavar="FILE.py",
                    help="collect the checks this file registers (and their mutants) as test items")
    group.addoption("--relucheck-seed", type=int, default=0, help="seed of the collected checks (default 0)")


@pytest.fixture
def relucheck_holds():
    """`relucheck.testing.assert_holds`."""
    from . import assert_holds

    return assert_holds


def pytest_sessionstart(session):
    for path in session.config.getoption("relucheck_checks"):
        if not Path(path).is_file():
            raise pytest.UsageError(f"--relucheck-checks {path}: no such file")


def pytest_collection_modifyitems(session, config, items):
    """After the test modules are collected (a module of theirs may import the same file: it is loaded once),
    add one item per check of each ``--relucheck-checks`` file and one per mutant."""
    files = config.getoption("relucheck_checks")
    if not files:
        return
    from relucheck.proofs_checks.plugins import load_checks
    from relucheck.proofs_checks.registry import all_checks

    load_checks(files)
    wanted = {str(Path(f).resolve()) for f in files}
    for chk in sorted(all_checks().values(), key=lambda c: c.id):
        if str(Path(chk.fn.__code__.co_filename).resolve()) in wanted:
            items.append(CheckItem.from_parent(session, name=chk.id, check_id=chk.id, mutate=False))
            items.append(CheckItem.from_parent(session, name=f"{chk.id}[mutant]", check_id=chk.id, mutate=True))


class CheckItem(pytest.Item):
    """One check (or its mutant) of a user's file."""

    def __init__(self, *, check_id: str, mutate: bool, **kwargs):
        super().__init__(**kwargs)
        self.check_id, self.mutate = check_id, mutate

    def runtest(self):
        from . import assert_holds, assert_mutant_caught

        seed = self.config.getoption("relucheck_seed")
        (assert_mutant_caught if self.mutate else assert_holds)(self.check_id, seed)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, AssertionError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"relucheck check {self.name}"
