"""The statement catalogue: every module of this package registers its paper's statements.

Modules are discovered automatically (one per paper or topic, e.g. ``paper_c.py``); each calls
`register` at import time.
"""
from __future__ import annotations

import importlib
import pkgutil

from ..statement import Statement

_STATEMENTS: dict[str, Statement] = {}
_loaded = False


def register(*statements: Statement) -> None:
    for st in statements:
        if st.id in _STATEMENTS:
            raise ValueError(f"statement {st.id} registered twice")
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
