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
        return (f"targeted search (hypothesis target(), {self.examples} cases): tightest {unit} "
                f"{self.margin:.6g}")


def tightest_case(margin: Callable[[Any], float | None], strategy, *, seed: int,
                  max_examples: int = SEARCH_EXAMPLES) -> TightestCase:
    """Minimize ``margin`` over cases drawn from the hypothesis ``strategy`` (None: the case is outside the
    bound's hypotheses and is discarded). Returns the smallest finite margin found."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hypothesis_seed

    best = TightestCase(math.inf, None, 0)

    @hypothesis_seed(seed)
    @settings(max_examples=max_examples, database=None, deadline=None, phases=(Phase.generate, Phase.target),
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

    search()
    return best
