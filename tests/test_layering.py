"""Layering and import cost: `numerics` imports nothing from `theory` or `proofs_checks` (issue 11, item 8), and the
command line does not load SymPy unless a command needs a symbolic result (item 7); a command imports only what it
needs (issue 22, item 6: `relucheck engines`, `relucheck flow --help`)."""
import argparse
import ast
import subprocess
import sys
from pathlib import Path

import relucheck.numerics

NUMERICS = Path(relucheck.numerics.__file__).parent
FORBIDDEN = ("relucheck.theory", "relucheck.proofs_checks")


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module imported anywhere in the file (function-level imports included)."""
    package = ["relucheck", "numerics", *path.relative_to(NUMERICS).parent.parts]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.add(module)
            if node.module is None:
                names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_relative_imports_resolve():
    inside = NUMERICS / "flows" / "engines" / "logscale.py"
    assert "relucheck.numerics.network" in imported_modules(inside)


def test_numerics_imports_nothing_from_theory_or_proofs_checks():
    violations = {}
    for path in sorted(NUMERICS.rglob("*.py")):
        bad = {m for m in imported_modules(path) if m.startswith(FORBIDDEN)}
        if bad:
            violations[str(path.relative_to(NUMERICS))] = bad
    assert violations == {}


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, timeout=120, check=True)
    return set(out.stdout.split())


def test_command_line_does_not_load_sympy():
    """`relucheck --help` builds every command's parser: none of them may import SymPy (0.2 s of every call)."""
    assert "sympy" not in _loaded_after("import relucheck.proofs_checks.cli\nrelucheck.proofs_checks.cli.build_parser()")


def test_flow_command_does_not_load_sympy(tmp_path):
    from relucheck.proofs_checks.checks.paper_c_instances import golden_instance

    path = tmp_path / "golden.json"
    golden_instance().save(path)
    code = ("import contextlib, io\nfrom relucheck.proofs_checks.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['flow', {str(path)!r}, '--lam', '1e-10']) == 0")
    assert "sympy" not in _loaded_after(code)


def _loaded_by_command(argv: list) -> set[str]:
    """Modules loaded by one command run in a fresh interpreter (its output swallowed; ``--help`` exits)."""
    code = ("import contextlib, io\nfrom relucheck.proofs_checks.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    try:\n        code = main({argv!r})\n    except SystemExit as exc:\n        code = exc.code\n"
            "assert code == 0 and out.getvalue(), (code, out.getvalue())")
    return _loaded_after(code)


HEAVY = ("sympy", "matplotlib", "scipy.optimize", "scipy.integrate")  # issue 22, item 6: scipy.integrate (which
# imports scipy.optimize) took 0.26–0.41 s to import on the 2-core machine (python -X importtime), SymPy 0.2 s


def test_engines_command_imports_only_what_it_needs():
    """`relucheck engines` lists the engines: it imports the engine modules, not what they need to run."""
    loaded = _loaded_by_command(["engines"])
    assert "relucheck.numerics.flows.engines.logscale" in loaded  # it did list the engines
    assert {m for m in HEAVY if m in loaded} == set()
    assert "relucheck.proofs_checks.report" not in loaded  # other commands' modules are not imported


def test_flow_help_imports_no_numerics():
    loaded = _loaded_by_command(["flow", "--help"])
    assert "relucheck.proofs_checks.commands.flow" in loaded
    assert {m for m in (*HEAVY, "numpy", "mpmath") if m in loaded} == set()


def test_the_lazy_imports_still_load_when_needed():
    """The probe sees a heavy module when it is used: scipy.optimize loads on the first float64 root."""
    code = ("from relucheck.numerics.flows.events import bracketed_root\n"
            "assert abs(bracketed_root(lambda t: t - 0.25, 0.0, 1.0) - 0.25) < 1e-15")
    assert "scipy.optimize" in _loaded_after(code)


def test_parser_of_one_command_equals_the_full_parsers():
    """`main` registers only the command it runs (`commands.register_commands`): each command's parser, and the core
    commands', is the one the full parser has."""
    from relucheck.proofs_checks import cli

    def subparsers(parser):
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices

    full = subparsers(cli.build_parser())
    assert {"engines", "flow", "report", "list", "run", "show"} <= set(full)
    for name, parser in full.items():
        one = subparsers(cli.build_parser(["--debug", name, "--help"]))
        assert name in one and one[name].format_help() == parser.format_help()
        assert set(one) <= set(full) and (len(one) == 4 or name in cli.CORE_COMMANDS)
    assert set(subparsers(cli.build_parser(["no-such-command"]))) == set(full)  # an error message lists them all
    assert set(subparsers(cli.build_parser(["--help"]))) == set(full)
