"""Plain JSON values from the numbers this project computes (numpy, mpmath, flint, sympy, enums).

Used by every writer of JSON: result records (`proofs_checks.result`), sweeps (`numerics.sweep`) and the
run journal (`proofs_checks.journal`).
"""
from __future__ import annotations

import enum
import math

import numpy as np


def to_jsonable(value):
    """numpy, mpmath, sympy and enum values to plain JSON types (non-finite floats to strings)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.dtype != object else [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    mod = type(value).__module__
    if mod.startswith("mpmath") or mod.startswith("flint"):
        return str(value)
    if mod.startswith("sympy"):
        try:
            return float(value) if value.is_number and value.is_real else str(value)
        except TypeError:
            return str(value)
    return str(value)
