"""relucheck: symbolic–numeric verification of the theory of two-layer ReLU networks trained by gradient
flow from small initialization.

The public API (docs/api.md) is importable from here; each name is imported on first use, so that
``import relucheck`` stays cheap (SymPy loads only with a name that needs it)::

    from relucheck import (register_paper, register_statements, Statement, check, Context, Outcome, Status,
                           agree, within_bound, Instance, load_instance, flow, limit_process, limit)

The repository keeps `theory/`, `numerics/` and `proofs_checks/` at its root; installed, they are the
subpackages `relucheck.theory`, `relucheck.numerics` and `relucheck.proofs_checks` (pyproject's
package-dir mapping). In a source checkout this package finds them beside its own directory.
"""
from __future__ import annotations

import importlib as _importlib
import os as _os

__version__ = "0.2.0"

_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_root, "pyproject.toml")) and _os.path.isfile(
        _os.path.join(_root, "numerics", "__init__.py")):
    __path__.append(_root)  # source checkout: relucheck.numerics is <root>/numerics
del _root

_PUBLIC = {  # name → module that defines it
    "register_paper": "relucheck.theory.statement",
    "Statement": "relucheck.theory.statement",
    "register_statements": ("relucheck.theory.statements", "register"),
    "check": "relucheck.proofs_checks.registry",
    "Context": "relucheck.proofs_checks.registry",
    "Outcome": "relucheck.proofs_checks.result",
    "Status": "relucheck.proofs_checks.result",
    "agree": "relucheck.proofs_checks.result",
    "within_bound": "relucheck.proofs_checks.result",
    "Instance": "relucheck.numerics.instances",
    "load_instance": "relucheck.numerics.instances",
    "flow": "relucheck.api",
    "limit_process": "relucheck.api",
    "limit": "relucheck.api",
    "FlowStatus": ("relucheck.numerics.flows.result", "Status"),
    "RelucheckInputError": "relucheck.numerics.errors",
}
__all__ = sorted(_PUBLIC) + ["__version__"]


def __getattr__(name: str):
    try:
        where = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'relucheck' has no attribute {name!r}") from None
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(_importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
