"""Cold start (issue 22, item 6): `relucheck engines`, `relucheck flow --help` and `relucheck --help` import what they
need and nothing heavy. Each command runs in a fresh interpreter (the CLI's `main` with that argv, in-process) and the
modules it left in ``sys.modules`` are read: no timed test (the standard forbids them), a regression is an import.

`engines` imports every engine module, so numpy is its floor; the help texts need no numpy at all. The figures
(CPU and wall time against ``python -c "import numpy"``) and the command that measured them are in docs/engines.md,
"Cold start". The mutants: the same probe sees SymPy and SciPy after `relucheck list` (whose statements are SymPy
objects), and mpmath after `extremal-vectors` runs (its exact enumeration, imported only then)."""
import json

from test_layering import _loaded_after, _loaded_by_command

# Top-level packages none of the three commands needs: scientific stacks (SciPy, SymPy, mpmath and its gmpy2
# backend, python-flint), plotting, the optional array back ends and compilers, the test library.
HEAVY = ("scipy", "sympy", "mpmath", "gmpy2", "flint", "matplotlib", "dask", "hypothesis", "torch", "jax", "cupy",
         "array_api_strict", "numba", "heyoka", "pandas")


def _heavy(loaded: set[str]) -> set[str]:
    return {m for m in loaded if m.split(".")[0] in HEAVY}


def test_engines_loads_numpy_and_the_engines_only():
    loaded = _loaded_by_command(["engines"])
    assert {f"relucheck.numerics.flows.engines.{e}" for e in ("logscale", "gd", "taylor")} <= loaded  # it listed them
    assert _heavy(loaded) == set()


def test_flow_help_and_help_load_no_numpy():
    for argv in (["flow", "--help"], ["--help"]):
        loaded = _loaded_by_command(argv)
        assert "relucheck.proofs_checks.commands.flow" in loaded  # the flow command's parser was built
        assert _heavy(loaded) == set() and "numpy" not in loaded, argv


def test_import_relucheck_loads_no_numpy():
    """The public API is imported name by name on first use (relucheck.__getattr__); an error class needs no numpy."""
    loaded = _loaded_after("import relucheck\nassert relucheck.RelucheckInputError.__name__ == 'RelucheckInputError'")
    assert _heavy(loaded) == set() and "numpy" not in loaded


def test_the_probe_sees_heavy_modules_a_command_loads():
    """Mutant of the probe: `relucheck list` builds the statements (SymPy) and loads every check module (SciPy)."""
    assert {"sympy", "scipy"} <= {m.split(".")[0] for m in _heavy(_loaded_by_command(["list"]))}


def test_the_lazy_imports_of_a_command_load_when_it_runs(tmp_path):
    """`extremal-vectors` imports its exact enumeration (mpmath) when it runs, not when its parser is built."""
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"inputs": [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]], "labels": [1.0, -1.0, 0.5]}))
    loaded = _loaded_by_command(["extremal-vectors", str(data)])
    assert {"relucheck.theory.extremal_vectors", "mpmath"} <= loaded


def test_the_benchmark_runs(capsys):
    """`python -m bench.cold_start` (the figures of docs/engines.md) runs and names every command; it times, never
    asserts a time."""
    from bench.cold_start import main

    assert main(["--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert all(f"relucheck {c}" in out for c in ("engines", "flow --help", "--help")) and "× numpy" in out
