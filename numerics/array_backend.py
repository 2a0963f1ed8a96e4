"""Array libraries for the paper A and B simulators (issue 23 item 4): numpy by default, any Array API library else.

The simulators (`numerics.paper_a_training`, `numerics.paper_b_sim`) step through the batched GD core
(`numerics.flows.batched_gd`). With ``backend="numpy"`` (the default) that is the core's blocked numpy arithmetic,
unchanged. Another name runs the steps in that library through the Array API standard (`array-api-compat`'s
namespaces), on the array library's ``device`` (e.g. "cuda" for torch or cupy):

    numpy | array_api_strict | torch | cupy | jax

Each name is imported only when asked for; a name that is not installed, or unknown, is a `RelucheckInputError`
naming the option. The entry points take ``backend=None``, which reads ``RELUCHECK_ARRAY_BACKEND`` (and
``RELUCHECK_DEVICE``) from the environment, so that ``relucheck run`` and ``relucheck report`` reach them without a
command-line flag. Random draws are made in numpy (seeded: the same problems on every backend), moved to the
backend once; results come back as numpy arrays (float64 for the records).
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass

import numpy as np

from .errors import RelucheckInputError

BACKENDS = ("numpy", "array_api_strict", "torch", "cupy", "jax")
ENV_BACKEND, ENV_DEVICE = "RELUCHECK_ARRAY_BACKEND", "RELUCHECK_DEVICE"
_MODULES = {"numpy": "numpy", "array_api_strict": "array_api_strict", "torch": "torch", "cupy": "cupy",
            "jax": "jax.numpy"}


@dataclass(frozen=True)
class Backend:
    """An array library: its name, its Array API namespace (array-api-compat's wrapper) and a device (None: the
    library's default)."""

    name: str
    xp: object
    device: object = None

    @property
    def is_numpy(self) -> bool:
        return self.name == "numpy"

    def asarray(self, x, dtype=None):
        """A numpy array (or number) on this backend, in ``dtype`` (a numpy dtype: float64 or float32)."""
        x = np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
        if self.is_numpy:
            return x
        dt = None if dtype is None else getattr(self.xp, np.dtype(dtype).name)
        return self.xp.asarray(x, dtype=dt, device=self.device)


def resolve(backend=None, device=None) -> Backend:
    """The `Backend` named ``backend`` (default: $RELUCHECK_ARRAY_BACKEND, else numpy) on ``device`` (default:
    $RELUCHECK_DEVICE, else the library's default). A `Backend` is returned as is."""
    if isinstance(backend, Backend):
        return backend
    option = "backend" if backend is not None else ENV_BACKEND
    name = backend if backend is not None else os.environ.get(ENV_BACKEND, "numpy")
    name = str(name).strip().lower().replace("-", "_")
    if device is None:
        device = os.environ.get(ENV_DEVICE) or None
    if name not in _MODULES:
        raise RelucheckInputError(f"{option}={name!r}: unknown array library; choose one of {', '.join(BACKENDS)}")
    if name == "numpy":
        if device not in (None, "cpu"):
            raise RelucheckInputError(f"device={device!r}: numpy runs on the CPU only (device 'cpu')")
        return Backend("numpy", np, None)
    try:
        module = importlib.import_module(_MODULES[name])
    except ImportError as exc:
        raise RelucheckInputError(f"{option}={name!r}: the array library {name} is not installed ({exc}); "
                                  f"install it, or use {option}=numpy") from None
    from array_api_compat import array_namespace

    if name == "jax":  # float64 is what the records are made in: JAX defaults to float32
        import jax

        jax.config.update("jax_enable_x64", True)
    xp = array_namespace(module.asarray([0.0]))
    if device is not None and name == "torch":
        device = module.device(device)
    elif device is not None and name == "array_api_strict":
        device = {str(d): d for d in module.__array_namespace_info__().devices()}.get(str(device), device)
    return Backend(name, xp, device)


def to_numpy(x) -> np.ndarray:
    """A backend array as a numpy array on the host (a numpy array is returned as is)."""
    if isinstance(x, np.ndarray):
        return x
    module = type(x).__module__
    if module.startswith("torch"):
        return x.detach().cpu().numpy()
    if module.startswith("cupy"):
        return x.get()
    try:
        return np.from_dlpack(x)  # array_api_strict, JAX on the CPU
    except (TypeError, BufferError, RuntimeError):
        return np.asarray(x)
