"""``--backend`` and ``--device``: the array library and device of the paper A and B simulators (issue 23 item 4).

``relucheck run`` and ``relucheck report`` take them. The simulators (`numerics.array_backend`) read the choice
from ``RELUCHECK_ARRAY_BACKEND`` and ``RELUCHECK_DEVICE``; the options set those for the duration of the command, so
that the worker processes (spawned, `numerics.executor`) inherit them, and give the previous values back after. An
option given wins over the environment; an option not given leaves the environment as it is.

Every bad choice is exit 2 with one line naming the option as typed, before anything is computed:

* a name that is not a library (argparse, at parse time): ``argument --backend: unknown array library 'nmupy'; …``;
* a device that is not ``cpu``, ``cuda`` or ``cuda:N`` (at parse time);
* a library that is not installed (``--backend torch: the array library torch is not installed …; install it: pip
  install torch …``), or a GPU the library cannot see (``--device cuda: no CUDA GPU is visible to jax …``):
  `numerics.array_backend.resolve`, called here before the command's work.

With a remote Dask scheduler (``--scheduler``) the workers do not inherit this process's environment: paper A's
threshold sweep sends the library's name with each task, other simulators read the workers' own environment.
Nothing here imports numpy or an array library at parse time (cold start of every command).
"""
from __future__ import annotations

import argparse
import os
import re
from contextlib import contextmanager

# numerics.array_backend.BACKENDS as typed on the command line (tests/test_device_option.py checks they agree)
NAMES = ("numpy", "torch", "cupy", "jax", "array-api-strict")
_DEVICE = re.compile(r"cpu|cuda(:\d+)?")


def backend_name(text: str) -> str:
    """``--backend NAME``: one of `NAMES` (``array_api_strict`` and upper case are accepted)."""
    name = text.strip().lower().replace("_", "-")
    if name not in NAMES:
        raise argparse.ArgumentTypeError(f"unknown array library {text!r}; choose one of {', '.join(NAMES)}")
    return name


def device_name(text: str) -> str:
    """``--device cpu|cuda|cuda:N``."""
    name = text.strip().lower()
    if not _DEVICE.fullmatch(name):
        raise argparse.ArgumentTypeError(f"must be cpu, cuda or cuda:N (N a GPU's index), got {text!r}")
    return name


def array_options(parser) -> None:
    """Add ``--backend`` and ``--device`` to a command that runs the paper A or B simulators."""
    parser.add_argument("--backend", type=backend_name, default=None, metavar="LIBRARY",
                        help=f"array library of the paper A and B simulators: {', '.join(NAMES)} (default numpy, or "
                             "$RELUCHECK_ARRAY_BACKEND); docs/scale_runs.md")
    parser.add_argument("--device", type=device_name, default=None, metavar="cpu|cuda[:N]",
                        help="device of that library (default: the library's, or $RELUCHECK_DEVICE); cuda needs "
                             "--backend torch, cupy or jax and a GPU")


@contextmanager
def array_library(args):
    """Check ``--backend``/``--device`` (exit 2 before any work, module docstring), then set them in the environment
    for the duration of the block."""
    backend, device = getattr(args, "backend", None), getattr(args, "device", None)
    if backend is None and device is None:
        yield
        return
    from relucheck.numerics.array_backend import ENV_BACKEND, ENV_DEVICE, resolve

    resolve(backend, device, options=("--backend", "--device"))  # None: the environment's value, named as such
    saved = {key: os.environ.get(key) for key in (ENV_BACKEND, ENV_DEVICE)}
    for key, value in ((ENV_BACKEND, backend), (ENV_DEVICE, device)):
        if value is not None:
            os.environ[key] = value.replace("-", "_") if key == ENV_BACKEND else value
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
