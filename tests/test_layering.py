"""Layering and import cost: `numerics` imports nothing from `theory` or `proofs_checks` (issue 11, item 8), and the
command line does not load SymPy unless a command needs a symbolic result (item 7)."""
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
