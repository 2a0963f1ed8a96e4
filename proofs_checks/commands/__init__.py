"""The command line's commands besides ``list``, ``run`` and ``show``: one module each, with ``register(subparsers)``.

`register_commands` imports only the module of the command being run (issue 22, item 6: each module imports what it
needs — numpy, the flow engines, the report writer — and ``relucheck engines`` should not wait for all of them).
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil


def register_commands(sub, command: str | None = None) -> None:
    """Register the commands on ``sub``: for ``command`` only the module named after it (``flow-x`` → ``flow_x``),
    when that module registers it. Otherwise — no command, ``--help``, a typo, a module that registers another name —
    every module, in name order, so that help and error messages list every command, as before."""
    modules = sorted(info.name for info in pkgutil.iter_modules(__path__))
    guess = command.replace("-", "_") if command else None
    if guess in modules:
        module = importlib.import_module(f"{__name__}.{guess}")
        trial = argparse.ArgumentParser(prog="relucheck").add_subparsers()
        module.register(trial)
        if command in trial.choices:
            module.register(sub)
            return
    for name in modules:
        importlib.import_module(f"{__name__}.{name}").register(sub)
