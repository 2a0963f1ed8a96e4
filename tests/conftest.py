"""Shared pytest configuration: the `full` marker and hypothesis profiles.

Tests marked ``@pytest.mark.full`` are long; they are deselected (and counted as deselected in the
summary) unless ``--run-full`` is given. Hypothesis profiles: ``ci`` (derandomized, the default
when CI is set) and ``dev`` (random, more examples); choose with HYPOTHESIS_PROFILE.
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


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
