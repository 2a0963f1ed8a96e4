"""Shared pytest configuration: the `full` marker and hypothesis profiles.

Tests marked ``@pytest.mark.full`` are long; they are deselected (and counted as deselected in the
summary) unless ``--run-full`` is given. Hypothesis profiles: ``ci`` (derandomized: the same examples on every
run, the default, so that README's test command is reproducible) and ``dev`` (random, more examples: to search for
new failures); choose with HYPOTHESIS_PROFILE. (With random draws as the default, two clean CI runs in one session
hit draws that took minutes: a SymPy construction at 1.5 GB, and the GD-agreement test on drawn instances, still
running after 5 minutes — a failing draw that hypothesis was shrinking, for up to 300 s; that test no longer shrinks,
and its failing draws are judged as docs/engines.md says.) The session
fixture ``default_suite_run`` runs the default suite (checks and mutants) at most once per session.
"""
import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--run-full", action="store_true", default=False,
                     help="also run the long tests marked 'full' (deselected otherwise)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-full"):
        return
    selected, deselected = [], []
    for item in items:
        (deselected if item.get_closest_marker("full") else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def pytest_report_header(config):
    if not config.getoption("--run-full"):
        return "long tests marked 'full' are deselected; run them with --run-full"


class DefaultSuiteRun:
    """The default suite at seed 0, each check with its mutant (sharing its cache, as `relucheck run --mutate`).

    One run per test session: a pair is computed the first time a test asks for it and reused after that,
    so the per-check tests, the pinned-status table and the summary test together run every check once.
    """

    SEED = 0

    def __init__(self):
        from relucheck.proofs_checks.registry import select

        self.ids = [c.id for c in select("default")]
        self._pairs = {}

    def pair(self, check_id: str):
        """(the check's record, its mutant's record)."""
        if check_id not in self._pairs:
            from relucheck.proofs_checks.registry import get_check
            from relucheck.proofs_checks.runner import run_checks

            real, mutant = run_checks([get_check(check_id)], seed=self.SEED, mutate=True, progress=False)
            self._pairs[check_id] = (real, mutant)
        return self._pairs[check_id]

    def records(self) -> list:
        return [rec for cid in self.ids for rec in self.pair(cid)]


@pytest.fixture(scope="session")
def default_suite_run() -> DefaultSuiteRun:
    return DefaultSuiteRun()
