"""The version of the code that computes a result, for keying caches and journals.

`code_version()` is ``{"relucheck": <package version>, "code_sha256": <hash>}``. The hash is SHA-256 over
every ``*.py`` source file of the installed package: ``relucheck/__init__.py`` and all ``*.py`` files under
the subpackages ``relucheck.theory``, ``relucheck.numerics`` and ``relucheck.proofs_checks`` (in a source
checkout: the repository's theory/, numerics/ and proofs_checks/), each entered as its path relative to the
package followed by its bytes, in sorted path order. Tests, docs, benchmarks and compiled caches are not
hashed; the versions of numpy, scipy, … are recorded separately in every result. Any edit of the package's
code therefore invalidates every cached result, which is deliberately conservative: a cache cannot tell
which function a result depends on. Computed once per process.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
from pathlib import Path

SUBPACKAGES = ("relucheck.theory", "relucheck.numerics", "relucheck.proofs_checks")


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # imports the parent package only, not the subpackage
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package {name} not found")
    return Path(list(spec.submodule_search_locations)[0])


def source_files() -> list[tuple[str, Path]]:
    """(name relative to the package, path) of every hashed source file, sorted by name."""
    import relucheck

    files = [("relucheck/__init__.py", Path(relucheck.__file__))]
    for name in SUBPACKAGES:
        root = _package_dir(name)
        prefix = name.replace(".", "/")
        files += [(f"{prefix}/{p.relative_to(root).as_posix()}", p) for p in root.rglob("*.py")
                  if "__pycache__" not in p.parts]
    return sorted(files)


@functools.lru_cache(maxsize=None)
def code_hash() -> str:
    """SHA-256 (hex) of the package's source files (see the module docstring)."""
    digest = hashlib.sha256()
    for rel, path in source_files():
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def code_version() -> dict:
    """{"relucheck": package version, "code_sha256": `code_hash()`}."""
    import relucheck

    return {"relucheck": relucheck.__version__, "code_sha256": code_hash()}
