"""Mutation testing of the theory and the verdict code with mutmut: ``python -m bench.mutation [--workers N] [--only GLOB]``.

Optional (not part of the test suite or .ci/run); needs ``pip install 'relucheck[mutation]'`` (mutmut 3).
docs/mutation.md records the scope, the score and the survivors.

mutmut derives a mutant's module name from its file path, so it needs the files where their import names say
they are: ``relucheck/theory/…``. The repository keeps ``theory/`` at its root (installed as ``relucheck.theory``
by a package-dir mapping), so this script stages the package as it is installed, ``.mutation/relucheck/{theory,
numerics,proofs_checks,…}`` with the tests beside it, writes mutmut's configuration there, runs ``mutmut run`` in
it (mutmut puts the mutated tree first on sys.path), and prints killed / total from ``mutmut
export-cicd-stats``. A rerun after a change reuses mutmut's cache for unchanged functions.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / ".mutation"

# What is mutated: the symbolic and exact predictions (theory/) and the code that turns numbers into verdicts.
MUTATED = [
    "theory/limit_process.py", "theory/limit_process_exact.py", "theory/invariants.py", "theory/first_jump.py",
    "theory/paper_b_closed_form.py", "theory/paper_b_probability.py", "theory/paper_a_limits.py",
    "theory/interpolation_probability.py", "theory/high_precision_closed_forms.py", "theory/extremal_vectors.py",
    "theory/dyadic.py", "theory/ode_checker.py", "theory/ode_points.py", "theory/ode_integration.py",
    "theory/ode_problem.py", "theory/sup_deviation.py", "theory/statement.py",
    "proofs_checks/result.py",
]
# The tests that exercise them (the unit and property tests of theory/ and of the verdict helpers).
TESTS = [
    "tests/test_paper_c_algorithm.py", "tests/test_paper_c_statements.py", "tests/test_paper_b_theory.py",
    "tests/test_paper_a_extremal.py", "tests/test_paper_a_training.py", "tests/test_ode_checker.py",
    "tests/test_high_precision.py", "tests/test_decision_boundaries.py", "tests/test_statements.py",
    "tests/test_mutation_kills.py", "tests/test_theory_first_jump.py", "tests/test_theory_invariants.py",
    "tests/test_theory_paper_a_limits.py", "tests/test_theory_paper_b.py", "tests/test_theory_limit_process.py",
    "tests/test_theory_extremal_vectors.py", "tests/test_theory_ode_problem.py", "tests/test_theory_ode_checker.py",
    "tests/test_theory_mu_closed_form.py", "tests/test_theory_sup_deviation.py",
    "tests/test_mutation_extremal_arrangement.py", "tests/test_mutation_symbolic_proofs.py",
    "tests/test_mutation_ode_and_verdicts.py", "tests/test_mutation_exact_and_closed_forms.py",
]  # not tests/test_checks_framework.py: it runs the whole default suite (≈ 1 min) for every mutant it reaches
SUBPACKAGES = {"theory": "theory", "numerics": "numerics", "proofs_checks": "proofs_checks"}


def stage(timeout_multiplier: float | None = None, tree: Path = TREE) -> None:
    """Copy the package as installed (relucheck/ with its three subpackages) and the tests into TREE.

    ``timeout_multiplier`` (mutmut's default 15) scales the CPU-time limit of a mutant's tests, 2·k·(clean time + 1 s);
    a mutant beyond it counts as a timeout (detected). ``tree`` is the staging directory (mutmut's cache lives there)."""
    tree.mkdir(exist_ok=True)
    package = tree / "relucheck"
    if package.exists():
        shutil.rmtree(package)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "relucheck", package, ignore=ignore)
    for name, folder in SUBPACKAGES.items():
        shutil.copytree(ROOT / folder, package / name, ignore=ignore)
    for folder in ("tests", "examples", "docs"):  # tests read example files and the docs
        if (tree / folder).exists():
            shutil.rmtree(tree / folder)
        shutil.copytree(ROOT / folder, tree / folder, ignore=ignore)
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    lines = ["[tool.pytest.ini_options]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in pytest_options.items() if key != "testpaths"]
    lines += ["", "[tool.mutmut]", 'source_paths = ["."]',
              f"only_mutate = {json.dumps(['relucheck/' + f for f in MUTATED])}",
              f"pytest_add_cli_args_test_selection = {json.dumps(TESTS)}",
              'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-x"]']
    if timeout_multiplier is not None:
        lines.append(f"timeout_multiplier = {float(timeout_multiplier)!r}")
    lines.append("")
    (tree / "pyproject.toml").write_text("\n".join(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1, help="mutmut's parallel children (default 1)")
    parser.add_argument("--only", metavar="GLOB", action="append", default=[],
                        help="test only the mutants whose names match (fnmatch, e.g. 'relucheck.theory.first_jump*');"
                             " repeatable; the totals printed still count every mutant in scope")
    parser.add_argument("--timeout-multiplier", type=float, default=None,
                        help="mutmut's timeout_multiplier (default 15): a mutant whose tests take more than 2·k·(clean time"
                             " + 1 s) of CPU counts as a timeout")
    parser.add_argument("--tree", type=Path, default=TREE,
                        help="staging directory with mutmut's cache (default .mutation/); separate trees let"
                             " several runs go at once")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    stage(args.timeout_multiplier, tree)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg", "CI": "1"}
    run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.workers), *args.only],
                         cwd=tree, env=env)
    if run.returncode != 0:
        print(f"mutmut run exited {run.returncode}", file=sys.stderr)
        return run.returncode
    subprocess.run([sys.executable, "-m", "mutmut", "export-cicd-stats"], cwd=tree, env=env, check=True,
                   capture_output=True)
    stats = json.loads((tree / "mutants" / "mutmut-cicd-stats.json").read_text())
    killed, total = stats["killed"], stats["total"]
    print(json.dumps(stats, indent=1))
    print(f"mutation score: {killed}/{total} killed = {100 * killed / max(total, 1):.1f} % "
          f"(survived {stats['survived']}, timeouts {stats.get('timeout', 0)}, no tests {stats.get('no_tests', 0)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
