"""The statement catalogue: every module of this package registers its paper's statements.

Modules are discovered automatically (one per paper or topic, e.g. ``paper_c.py``); each calls
`register` at import time. Users add their own statements with the same function, exported as
`relucheck.register_statements`.
"""
from __future__ import annotations

import importlib
import pkgutil

from ..statement import Statement

_STATEMENTS: dict[str, Statement] = {}
_loaded = False


def register(*statements: Statement) -> None:
    """Add statements to the catalogue (`relucheck.register_statements`); an id registered twice is an error."""
    _load()  # the built-in catalogue first, so that a user's id colliding with a built-in one is caught
    seen = set(_STATEMENTS)
    for st in statements:
        if not isinstance(st, Statement):
            raise TypeError(f"register_statements takes Statement objects, got {type(st).__name__}")
        if st.id in seen:
            raise ValueError(f"statement id {st.id!r} is already registered; statement ids must be unique")
        seen.add(st.id)
    for st in statements:
        _STATEMENTS[st.id] = st


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def all_statements() -> dict[str, Statement]:
    _load()
    return dict(_STATEMENTS)


def get_statement(statement_id: str) -> Statement:
    _load()
    try:
        return _STATEMENTS[statement_id]
    except KeyError:
        raise KeyError(f"unknown statement id {statement_id!r}; `relucheck list` shows the ids") from None
