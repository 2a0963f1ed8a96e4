"""No import circle in `numerics.flows` (issue 22, item 7).

The graph has one node per module of the package (subpackages included) and an edge a → b when a's source imports b
anywhere, at the top or inside a function: a function-level import that closes a circle (result.py's
``from .events import bracketed_root`` against events.py's ``from .result import EventKind``, before) is a circle
too, only hidden. A module's implicit import of its own parent package (Python runs ``flows/__init__`` before any
submodule) is not an edge: every package has it.
"""
import ast
from pathlib import Path

import relucheck.numerics.flows

FLOWS = Path(relucheck.numerics.flows.__file__).parent


def module_name(root: Path, path: Path, prefix: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([prefix, *parts])


def import_graph(root: Path, prefix: str) -> dict[str, set[str]]:
    """module → modules of the same package it imports (absolute names under ``prefix``)."""
    files = {module_name(root, p, prefix): p for p in sorted(root.rglob("*.py"))}
    graph = {}
    for name, path in files.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                    if node.level else node.module
                # `from X import y`: y may be a submodule of X (then the edge goes to it) or a name defined in X
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            else:
                continue
            edges.update(t for t in targets if t in files and t != name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as [a, b, …, a], or None (depth-first search with colours)."""
    colour = dict.fromkeys(graph, 0)  # 0 unseen, 1 on the current path, 2 done
    path: list[str] = []

    def visit(node):
        colour[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if colour[nxt] == 1:
                return path[path.index(nxt):] + [nxt]
            if colour[nxt] == 0:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        colour[node] = 2
        return None

    for start in sorted(graph):
        if colour[start] == 0:
            found = visit(start)
            if found:
                return found
    return None


def test_graph_sees_the_package_modules_and_their_imports():
    graph = import_graph(FLOWS, "relucheck.numerics.flows")
    assert "relucheck.numerics.flows.engines.logscale" in graph
    assert "relucheck.numerics.flows.events" in graph["relucheck.numerics.flows.rest"]
    assert "relucheck.numerics.flows.registry" in graph["relucheck.numerics.flows.engines.logscale"]


def test_flows_package_has_no_import_circle():
    assert find_cycle(import_graph(FLOWS, "relucheck.numerics.flows")) is None


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    """The mutant: the circle this package had (events imports result at the top, result imports events inside a
    function) is seen."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .result import Kind\n")
    (pkg / "events.py").write_text("from .result import Kind\n\n\ndef root():\n    return Kind\n")
    (pkg / "result.py").write_text("Kind = 1\n\n\ndef jump():\n    from .events import root\n\n    return root()\n")
    cycle = find_cycle(import_graph(pkg, "pkg"))
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == ["pkg.events", "pkg.result"]
    (pkg / "result.py").write_text("Kind = 1\n")
    assert find_cycle(import_graph(pkg, "pkg")) is None


def test_submodule_imports_are_edges(tmp_path):
    """``from . import b`` and ``from .sub import c`` are edges to those modules; a module's parent package is not."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("from .sub import c\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from .. import b\n")
    graph = import_graph(pkg, "pkg")
    assert graph["pkg"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.sub.c"} and graph["pkg.sub.c"] == {"pkg.b"}
    assert find_cycle(graph) == ["pkg.b", "pkg.sub.c", "pkg.b"]
