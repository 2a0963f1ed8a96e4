"""Users' checks: files and modules given with ``--checks``, and installed plugins.

A plugin is Python code that registers papers, statements and checks through the public API
(`relucheck.register_paper`, `relucheck.register_statements`, `relucheck.check`; docs/api.md):

* ``relucheck run --checks my_checks.py`` (repeatable) imports the file;
* ``relucheck run --checks mypkg.checks`` imports the module (a name without ``.py`` that is not a file);
* an installed distribution declares ``[project.entry-points."relucheck.checks"] name = "mypkg.checks"``;
  every command imports those modules (an entry point that names a function calls it with no argument).

Whatever goes wrong while loading (a syntax error, a paper id that collides with A, B or C or with another
plugin, a check id registered twice, a check whose statement is unknown) is a `RelucheckInputError` that names
the file, module or entry point: ``relucheck`` exits 2 with that message, before anything is computed.

`plugin_fingerprint` (file or module, and the sha256 of its source) goes into the run journal's parameters,
so ``--resume`` refuses a journal written by a different version of a user's checks.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import sys
from importlib import metadata
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError

ENTRY_POINT_GROUP = "relucheck.checks"
_loaded: dict[str, dict] = {}  # spec (resolved path or module name) → fingerprint
_entry_points_loaded = False


def _module_name_for(path: Path) -> str:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    stem = "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    return f"relucheck_user_checks.{stem}_{digest}"


def _import_file(path: Path):
    name = _module_name_for(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RelucheckInputError(f"--checks {path}: not an importable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _already_imported(path: str) -> bool:
    """The file is already a module of this process (e.g. a test module did ``import my_checks``): importing it
    again under another name would register its checks twice."""
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if source and str(Path(source).resolve()) == path:
            return True
    return False


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _statement_problems(before: set[str]) -> list[str]:
    """Checks registered since ``before`` whose statement is not registered."""
    from relucheck.theory.statements import all_statements

    from .registry import all_checks

    statements = all_statements()
    return [f"check {c.id} refers to statement {c.statement!r}, which is not registered"
            for cid, c in sorted(all_checks().items()) if cid not in before and c.statement not in statements]


def _load_one(what: str, loader) -> None:
    """Run ``loader`` (an import) and turn any failure into a `RelucheckInputError` naming ``what``."""
    from .registry import all_checks

    before = set(all_checks())
    try:
        loader()
    except RelucheckInputError as exc:
        raise RelucheckInputError(f"{what}: {exc.args[0] if exc.args else exc}") from exc
    except SyntaxError as exc:
        raise RelucheckInputError(f"{what}: syntax error at line {exc.lineno}: {exc.msg}") from exc
    except Exception as exc:  # noqa: BLE001 - a user's code: any failure is reported as bad input, with its type
        raise RelucheckInputError(f"{what}: {type(exc).__name__}: {exc}") from exc
    problems = _statement_problems(before)
    if problems:
        raise RelucheckInputError(f"{what}: {'; '.join(problems)} (register it with relucheck.register_statements)")


def load_checks(specs) -> list[dict]:
    """Import each ``--checks`` spec once (a ``.py`` file or a module name); return their fingerprints."""
    out = []
    for spec in specs or ():
        text = str(spec)
        path = Path(text)
        if text.endswith(".py") or path.exists() or "/" in text:
            if not path.is_file():
                raise RelucheckInputError(f"--checks {text}: no such file" if not path.exists()
                                          else f"--checks {text}: not a file")
            key = str(path.resolve())
            if key not in _loaded:
                if not _already_imported(key):
                    _load_one(f"--checks {text}", functools.partial(_import_file, path.resolve()))
                _loaded[key] = {"file": key, "sha256": _sha256(path)}
        else:
            key = text
            if key not in _loaded:
                _load_one(f"--checks {text}", functools.partial(_import_module, text))
                module = sys.modules.get(text)
                source = getattr(module, "__file__", None)
                _loaded[key] = {"module": text, "sha256": _sha256(source) if source else None}
        out.append(_loaded[key])
    return out


def _import_module(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise RelucheckInputError(f"no file and no importable module named {name!r}") from None
        raise


def load_entry_points() -> None:
    """Import every installed plugin of the group ``relucheck.checks`` (once per process)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        def load(ep=ep):
            target = ep.load()
            if callable(target) and not isinstance(target, type(sys)):
                target()
        _load_one(f"plugin {ep.name!r} (entry point {ep.value} of group {ENTRY_POINT_GROUP})", load)
        _loaded[f"entry point {ep.name}"] = {"entry_point": ep.value, "distribution":
                                             getattr(ep.dist, "name", None), "version": getattr(ep.dist, "version", None)}


def plugin_fingerprint() -> list[dict]:
    """What every loaded plugin is (file or module, and its source's sha256), sorted."""
    return sorted(_loaded.values(), key=lambda d: sorted(map(str, d.items())))
