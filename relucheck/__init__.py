"""relucheck: symbolic–numeric verification of the theory of two-layer ReLU networks trained by gradient
flow from small initialization.

The repository keeps `theory/`, `numerics/` and `proofs_checks/` at its root; installed, they are the
subpackages `relucheck.theory`, `relucheck.numerics` and `relucheck.proofs_checks` (pyproject's
package-dir mapping). In a source checkout this package finds them beside its own directory.
"""
from __future__ import annotations

import os as _os

__version__ = "0.2.0"

_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_root, "pyproject.toml")) and _os.path.isfile(
        _os.path.join(_root, "numerics", "__init__.py")):
    __path__.append(_root)  # source checkout: relucheck.numerics is <root>/numerics
del _root
