"""The tightest case of a bound, searched with hypothesis' targeted property-based testing.

A bound check draws its cases at random; the tightest case is usually where random draws do not go. A search
with `hypothesis.target` steers the generation towards small margins (`margin(case)` ≥ 0 where the bound holds,
in the units of the check's own comparison): after the random phase, hypothesis mutates the best cases so far to
decrease the margin further (Löscher & Sagonas' targeted PBT, as implemented by hypothesis' ``Phase.target``).
The result is reported next to the check's verdict, and a negative margin found this way refutes the bound like
any other measured case.

Reproducible: the search is seeded by the check's seed (`hypothesis.seed`), keeps no example database, and the
hypothesis version is recorded with every result (`proofs_checks.result.versions`).
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, Callable

SEARCH_EXAMPLES = 300  # examples per search: each of the three searches costs well under a second


@dataclass
class TightestCase:
    """The smallest margin the search found, the case that has it, and how many valid cases it tried."""

    margin: float
    case: Any
    examples: int

    def describe(self, unit: str = "margin") -> str:
        return f"a targeted search (Hypothesis, {self.examples} cases) found the tightest {unit} {self.margin:.4g}"


def tightest_case(margin: Callable[[Any], float | None], strategy, *, seed: int,
                  max_examples: int = SEARCH_EXAMPLES) -> TightestCase:
    """Minimize ``margin`` over cases drawn from the hypothesis ``strategy`` (None: the case is outside the
    bound's hypotheses and is discarded). Returns the smallest finite margin found."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hypothesis_seed

    best = TightestCase(math.inf, None, 0)

    @hypothesis_seed(seed)
    @settings(max_examples=max_examples, database=None, deadline=None, phases=(Phase.generate, Phase.target),
              derandomize=False,  # the seed below decides, whatever settings profile is loaded (tests load "ci")
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(strategy)
    def search(case):
        value = margin(case)
        if value is None or not math.isfinite(value):
            return
        best.examples += 1
        target(-float(value), label="negative margin")
        if value < best.margin:
            best.margin, best.case = float(value), case

    with _no_local_constants():
        search()
    return best


@contextlib.contextmanager
def _no_local_constants():
    """Hypothesis (≥ 6.131) mixes literals found in the source of every loaded local module into its draws
    (`hypothesis.internal.conjecture.providers._get_local_constants`), so the same seeded search would depend on
    which modules the process happened to import (measured: the tightest B Lemma 7 gap 1.2e-6 in a fresh worker,
    1.5e-3 after the command line's imports). For records that are the same serial, parallel or on Dask, the search
    runs with that set empty; where the internal API differs, nothing is patched."""
    try:
        from hypothesis.internal.conjecture import providers
        empty = providers.Constants()
        cache = providers.CONSTANTS_CACHE
        original = providers._get_local_constants
    except (ImportError, AttributeError):  # pragma: no cover - another hypothesis version
        yield
        return
    cache.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()
