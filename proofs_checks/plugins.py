"""Users' checks: files and modules given with ``--checks``, and installed plugins.

A plugin is Python code that registers papers, statements and checks through the public API
(`relucheck.register_paper`, `relucheck.register_statements`, `relucheck.check`; docs/api.md):

* ``relucheck run --checks my_checks.py`` (repeatable) imports the file;
* ``relucheck run --checks mypkg.checks`` imports the module (a name without ``.py`` that is not a file);
* an installed distribution declares ``[project.entry-points."relucheck.checks"] name = "mypkg.checks"``;
  every command imports those modules (an entry point that names a function calls it with no argument).

Whatever goes wrong while loading (a missing file, a file that is not ``.py``, a syntax error, any exception,
``sys.exit`` or another `BaseException` but Ctrl-C, a paper id that collides with A, B or C or with another plugin,
a check id registered twice, a check whose statement is unknown) is a `RelucheckInputError` that names the file,
module or entry point: ``relucheck`` exits 2 with that message, before anything is computed. What a plugin
prints while it loads goes to stderr (Python's ``sys.stdout`` and file descriptor 1 both), so that stdout carries
only relucheck's own output (``list --json`` stays JSON).

`load_checks` loads the installed plugins first, then the ``--checks`` specs, and remembers which checks each
spec registered (`checks_of_specs`: ``run --checks FILE`` runs only those unless ``--with-builtin``). This module
imports `proofs_checks.registry`, never the reverse: the registry knows only the built-in checks and what was
registered through `relucheck.check`.

A plugin may add checks, never change the built-in ones: `load_checks` takes a snapshot of the built-in checks
(id → function object, statement, mutant, suites) before the first plugin loads, and after each plugin verifies
that every one of them is still registered with the same values; a plugin that replaced, altered or deleted one
(``registry._CHECKS[...]``, ``object.__setattr__`` on a frozen `Check`) is a `RelucheckInputError` naming it.
That is a comparison of a few hundred tuples per plugin. It does not stop a check that tampers with the registry
while it runs (in a pool worker, that changes only the worker's copy).

`plugin_fingerprint` (file or module, and the sha256 of its source) goes into the run journal's parameters,
so ``--resume`` refuses a journal written by a different version of a user's checks.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
from importlib import metadata
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError

from .exit_guard import ProcessExitRefused, exit_refused
from .registry import all_checks

ENTRY_POINT_GROUP = "relucheck.checks"
_loaded: dict[str, dict] = {}  # spec (resolved path or module name) → fingerprint
_check_ids: dict[str, frozenset[str]] = {}  # spec → the ids of the checks it registered
_spec_keys: dict[str, str] = {}  # a ``--checks`` value as given → its spec
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

    statements = all_statements()
    return [f"check {c.id} refers to statement {c.statement!r}, which is not registered"
            for cid, c in sorted(all_checks().items()) if cid not in before and c.statement not in statements]


def _flush(stream) -> None:
    try:
        stream.flush()
    except (OSError, ValueError):  # a closed or broken stream: nothing to keep apart
        pass


@contextlib.contextmanager
def _stdout_to_stderr():
    """Send a plugin's output to stderr while it loads: ``sys.stdout`` and, for what bypasses it (``os.system``, C
    code), file descriptor 1 (pointed at descriptor 2 and back; skipped when either is closed)."""
    _flush(sys.stdout)
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _flush(sys.stderr)
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _identity(chk) -> tuple:
    """What a plugin may not change in a built-in check: its function object, statement, mutant and suites."""
    return (chk.fn, chk.statement, chk.mutant, chk.suites)


@functools.cache
def _builtin_checks() -> dict:
    """The built-in checks (those of `proofs_checks.checks`), taken before any plugin loads: id → `_identity`."""
    from . import checks

    prefix = checks.__name__ + "."
    return {cid: _identity(c) for cid, c in all_checks().items() if c.fn.__module__.startswith(prefix)}


def _builtin_changes() -> list[str]:
    """The built-in checks that are no longer registered as in `_builtin_checks`."""
    from .registry import _CHECKS

    changed = []
    for cid, identity in _builtin_checks().items():
        now = _CHECKS.get(cid)
        if now is None:
            changed.append(f"deleted the built-in check {cid}")
        elif any(a is not b and a != b for a, b in zip(_identity(now), identity)):
            changed.append(f"changed the built-in check {cid}")
    return changed


def _load_one(what: str, loader) -> frozenset[str]:
    """Run ``loader`` (an import) with its output on stderr; any failure is a `RelucheckInputError` naming ``what``.
    Returns the ids of the checks it registered."""
    _builtin_checks()
    before = set(all_checks())
    try:
        with _stdout_to_stderr(), exit_refused():
            loader()
    except KeyboardInterrupt:
        raise
    except RelucheckInputError as exc:
        raise RelucheckInputError(f"{what}: {exc.args[0] if exc.args else exc}") from exc
    except SyntaxError as exc:
        raise RelucheckInputError(f"{what}: syntax error at line {exc.lineno}: {exc.msg}") from exc
    except (SystemExit, ProcessExitRefused) as exc:  # a plugin may not end relucheck, least of all with a silent exit 0
        call = "sys.exit" if isinstance(exc, SystemExit) else "os._exit"
        raise RelucheckInputError(f"{what}: called {call}({exc.code!r}) while loading; a checks file may only "
                                  "register papers, statements and checks") from None
    except BaseException as exc:  # noqa: BLE001 - a user's code: any failure is reported as bad input, with its type
        raise RelucheckInputError(f"{what}: {type(exc).__name__}: {exc}") from exc
    tampered = _builtin_changes()
    if tampered:
        raise RelucheckInputError(f"{what}: {'; '.join(tampered[:3])}{' …' if len(tampered) > 3 else ''} (a checks "
                                  "file may add papers, statements and checks, never change the built-in ones)")
    problems = _statement_problems(before)
    if problems:
        raise RelucheckInputError(f"{what}: {'; '.join(problems)} (register it with relucheck.register_statements)")
    return frozenset(all_checks()) - before


def _checks_defined_in(path: str) -> frozenset[str]:
    """The checks whose function is written in the file ``path`` (a file imported before `load_checks` saw it)."""
    return frozenset(cid for cid, c in all_checks().items()
                     if str(Path(c.fn.__code__.co_filename).resolve()) == path)


def _checks_of_module(name: str) -> frozenset[str]:
    return frozenset(cid for cid, c in all_checks().items()
                     if c.fn.__module__ == name or c.fn.__module__.startswith(name + "."))


def _file_problem(path: Path) -> str | None:
    """Why ``--checks TEXT`` is not a Python file that can be imported (None when it is one)."""
    try:
        path.stat()
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:  # a symlink loop, a path through a file, no permission
        return f"cannot be read ({exc.strerror or exc})"
    if not path.is_file():
        return "not a file"
    if path.suffix != ".py":
        return "not a .py file (give a Python file of checks, or the name of an importable module)"
    return None


def load_checks(specs) -> list[dict]:
    """Load the installed plugins, then import each ``--checks`` spec once (a ``.py`` file or a module name);
    return the specs' fingerprints."""
    _builtin_checks()  # before any plugin loads
    load_entry_points()
    out = []
    for spec in specs or ():
        text = str(spec)
        path = Path(text)
        if text.endswith(".py") or os.path.lexists(text) or "/" in text:
            problem = _file_problem(path)
            if problem:
                raise RelucheckInputError(f"--checks {text}: {problem}")
            key = str(path.resolve())
            if key not in _loaded:
                ids = (_checks_defined_in(key) if _already_imported(key)
                       else _load_one(f"--checks {text}", functools.partial(_import_file, path.resolve())))
                _loaded[key], _check_ids[key] = {"file": key, "sha256": _sha256(path)}, ids
        else:
            key = text
            if key not in _loaded:
                ids = _load_one(f"--checks {text}", functools.partial(_import_module, text)) | _checks_of_module(text)
                module = sys.modules.get(text)
                source = getattr(module, "__file__", None)
                _loaded[key], _check_ids[key] = {"module": text, "sha256": _sha256(source) if source else None}, ids
        _spec_keys[text] = key
        out.append(_loaded[key])
    return out


def checks_of_specs(specs) -> frozenset[str]:
    """The ids of the checks that the ``--checks`` specs registered (after `load_checks` of the same specs)."""
    return frozenset().union(*(_check_ids[_spec_keys[str(s)]] for s in specs or ()))


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
