"""Property testing with relucheck (docs/api.md, docs/tutorial.md).

* `assert_holds(check_id_or_function, seed=0)`: run a check (a registered id, or the check function itself) and
  raise `AssertionError` with the outcome's message unless it is verified.
* `assert_mutant_caught(...)`: the same for the check's mutant, which must come out refuted.
* `relucheck.testing.strategies`: hypothesis strategies for instances, initializations and labels (needs
  hypothesis, a dependency of relucheck).
* `relucheck.testing.pytest_plugin`: the pytest plugin (entry point ``pytest11``), loaded automatically where
  relucheck is installed: the fixture ``relucheck_holds`` and the option ``--relucheck-checks FILE.py``, which
  collects a file's checks (and their mutants) as test items.
"""
from __future__ import annotations

from typing import Callable


def _check_of(check_id_or_function):
    from relucheck.proofs_checks.plugins import load_checks
    from relucheck.proofs_checks.registry import all_checks, get_check

    load_checks(())  # the installed plugins' checks too (entry points "relucheck.checks")
    if isinstance(check_id_or_function, str):
        try:
            return get_check(check_id_or_function)
        except KeyError as exc:
            raise LookupError(exc.args[0]) from None
    if callable(check_id_or_function):
        for chk in all_checks().values():
            if chk.fn is check_id_or_function:
                return chk
        return None
    raise TypeError(f"expected a check id or a check function, got {type(check_id_or_function).__name__}")


def _run(check_id_or_function, seed: int, mutate: bool):
    """The record of one run: a registered check through the runner; an unregistered function called directly."""
    from relucheck.proofs_checks.registry import Check
    from relucheck.proofs_checks.runner import run_check

    chk = _check_of(check_id_or_function)
    if chk is None:  # a plain function Context → Outcome, not registered (no mutant description)
        fn: Callable = check_id_or_function
        name = getattr(fn, "__qualname__", repr(fn))
        chk = Check(f"<unregistered>.{name}", "<unregistered>.statement", fn, "(unregistered)")
    return run_check(chk, seed, mutate=mutate)


def assert_holds(check_id_or_function, seed: int = 0, *, allow_inconclusive: bool = False):
    """Run the check and return its record; `AssertionError` with the outcome's message when it is refuted,
    errors, or (unless ``allow_inconclusive``) is inconclusive: an inconclusive check has not shown that the
    claim holds."""
    from relucheck.proofs_checks.result import Status

    rec = _run(check_id_or_function, seed, mutate=False)
    ok = rec.status is Status.VERIFIED or (allow_inconclusive and rec.status is Status.INCONCLUSIVE)
    if not ok:
        trace = rec.details.get("traceback", "") if rec.status is Status.ERROR else ""
        raise AssertionError(f"{rec.id} (seed {seed}): {rec.status.value}: {rec.message}"
                             + (f"\n{trace}" if trace else ""))
    return rec


def assert_mutant_caught(check_id_or_function, seed: int = 0):
    """Run the check's mutant and return its record; `AssertionError` unless the mutant is refuted (a check that
    cannot fail checks nothing)."""
    from relucheck.proofs_checks.result import Status

    rec = _run(check_id_or_function, seed, mutate=True)
    if rec.status is not Status.REFUTED:
        raise AssertionError(f"{rec.id} (seed {seed}): the mutant ({rec.mutation}) was not refuted: "
                             f"{rec.status.value}: {rec.message}")
    return rec


__all__ = ["assert_holds", "assert_mutant_caught"]
