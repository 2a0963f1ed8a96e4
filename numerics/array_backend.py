"""Array libraries for the paper A and B simulators (issue 23 item 4): numpy by default, any Array API library else.

The simulators (`numerics.paper_a_training`, `numerics.paper_b_sim`) step through the batched GD core
(`numerics.flows.batched_gd`). With ``backend="numpy"`` (the default) that is the core's blocked numpy arithmetic,
unchanged. Another name runs the steps in that library through the Array API standard (`array-api-compat`'s
namespaces), on the array library's ``device`` (e.g. "cuda" for torch or cupy):

    numpy | array_api_strict | torch | cupy | jax

Each name is imported only when asked for; a name that is not installed, or unknown, is a `RelucheckInputError`
naming the option. The entry points take ``backend=None``, which reads ``RELUCHECK_ARRAY_BACKEND`` (and
``RELUCHECK_DEVICE``) from the environment, so that ``relucheck run`` and ``relucheck report`` reach them without a
command-line flag (``relucheck run`` and ``report`` also take ``--backend`` and ``--device``, which set them:
`proofs_checks.array_options`). A device is "cpu", "cuda" or "cuda:N"; a GPU the library cannot see (or a library
without one: numpy, array-api-strict) is an input error before any work. Random draws are made in numpy (seeded:
the same problems on every backend), moved to the backend once; results come back as numpy arrays (float64 for the
records).
"""
from __future__ import annotations

import importlib
import os
import re
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


# how to install each library, for the message of a library that is not installed
INSTALL = {"array_api_strict": "pip install array-api-strict",
           "torch": "pip install torch (for a GPU a CUDA build, pytorch.org/get-started)",
           "cupy": "pip install cupy-cuda12x (or cupy-cuda11x, matching the CUDA driver)",
           "jax": "pip install jax (for a GPU pip install 'jax[cuda12]')"}


def _shown(option: str, value) -> str:
    """An option as the user gave it: ``--backend torch`` on the command line, ``backend='torch'`` in Python,
    ``RELUCHECK_ARRAY_BACKEND='torch'`` from the environment."""
    return f"{option} {value}" if option.startswith("--") else f"{option}={value!r}"


def resolve(backend=None, device=None, *, options=("backend", "device")) -> Backend:
    """The `Backend` named ``backend`` (default: $RELUCHECK_ARRAY_BACKEND, else numpy) on ``device`` (default:
    $RELUCHECK_DEVICE, else the library's default). A `Backend` is returned as is.

    A device given as text is "cpu", "cuda" or "cuda:N" (array-api-strict also takes its own device names); a GPU
    that the library cannot see is an input error here, before any work, not a failure inside the first step.
    ``options`` names the two arguments in messages (the command line passes "--backend", "--device")."""
    if isinstance(backend, Backend):
        return backend
    backend_opt, device_opt = options
    option = backend_opt if backend is not None else ENV_BACKEND
    raw = backend if backend is not None else os.environ.get(ENV_BACKEND, "numpy")
    name = str(raw).strip().lower().replace("-", "_")
    dev_shown = _shown(device_opt if device is not None else ENV_DEVICE, device)
    if device is None:
        device = os.environ.get(ENV_DEVICE) or None
        dev_shown = _shown(ENV_DEVICE, device)
    if name not in _MODULES:
        raise RelucheckInputError(f"{_shown(option, raw)}: unknown array library; choose one of {', '.join(BACKENDS)}")
    if name == "numpy":
        if device not in (None, "cpu"):
            raise RelucheckInputError(f"{dev_shown}: numpy runs on the CPU only ({_shown(device_opt, 'cpu')}); a GPU needs "
                                      f"{_shown(backend_opt, 'torch')}, cupy or jax")
        return Backend("numpy", np, None)
    try:
        module = importlib.import_module(_MODULES[name])
    except ImportError as exc:
        raise RelucheckInputError(f"{_shown(option, raw)}: the array library {name} is not installed ({exc}); "
                                  f"install it: {INSTALL[name]}; or use {_shown(backend_opt, 'numpy')}") from None
    if name == "jax":  # float64 is what the records are made in: JAX defaults to float32
        import jax

        jax.config.update("jax_enable_x64", True)
    device = _device(name, module, device, dev_shown, _shown(device_opt, "cpu"))  # before the namespace: a missing GPU fails here
    from array_api_compat import array_namespace

    return Backend(name, array_namespace(module.asarray([0.0])), device)


def _device(name: str, module, device, shown: str, on_cpu: str):
    """The library's device object for ``device`` (None: its default; a non-text device is passed on as is)."""
    if not isinstance(device, str):
        return device
    text = device.strip().lower()
    text = re.sub(r"<cuda device (\d+)>", r"cuda:\1", text)  # str() of a cupy device (a sweep task sends str())
    kind, _, index = text.partition(":")
    if name == "array_api_strict":
        listed = module.__array_namespace_info__().devices()  # by name, and by str() (a sweep task sends that)
        devices = {str(getattr(d, "_device", d)).lower(): d for d in listed} | {str(d).lower(): d for d in listed}
        devices["cpu"] = devices.get("cpu_device", devices.get("cpu"))
        if devices.get(text) is not None:
            return devices[text]
        raise RelucheckInputError(f"{shown}: array-api-strict runs on the CPU only (device cpu, or one of its "
                                  f"test devices {', '.join(str(getattr(d, '_device', d)) for d in listed)})")
    if kind not in ("cpu", "cuda") or (index and not index.isdigit()):
        raise RelucheckInputError(f"{shown}: a device is cpu, cuda or cuda:N (N the GPU's index)")
    k = int(index or 0)
    if kind == "cpu":
        if name == "cupy":
            raise RelucheckInputError(f"{shown}: cupy runs on CUDA GPUs only; on the CPU use numpy")
        if name == "torch":
            return module.device("cpu")
        cpus = _jax_devices(shown, "cpu")  # "cpu:0" is str() of JAX's first
        if k >= len(cpus):
            raise RelucheckInputError(f"{shown}: JAX has {len(cpus)} CPU device{'s' if len(cpus) > 1 else ''}")
        return cpus[k]
    count, why = _gpu_count(name, module)
    if not count:
        raise RelucheckInputError(f"{shown}: no CUDA GPU is visible to {name} ({why}); run on the CPU instead "
                                  f"({on_cpu}, or the numpy backend)")
    if k >= count:
        raise RelucheckInputError(f"{shown}: {name} sees {count} CUDA GPU{'s' if count > 1 else ''} (indices 0…{count - 1})")
    if name == "torch":
        return module.device(f"cuda:{k}")
    if name == "cupy":
        return module.cuda.Device(k)
    return _jax_devices(shown, "gpu")[k]


def _gpu_count(name: str, module) -> tuple[int, str]:
    """How many CUDA GPUs ``name`` sees, and why none when none."""
    if name == "torch":
        if module.cuda.is_available():
            return int(module.cuda.device_count()), ""
        build = getattr(getattr(module, "version", None), "cuda", None)
        return 0, (f"torch.cuda.is_available() is False; torch {getattr(module, '__version__', '?')} is "
                   + (f"built for CUDA {build}" if build else "a CPU-only build"))
    if name == "cupy":
        try:
            return int(module.cuda.runtime.getDeviceCount()), "cupy.cuda.runtime.getDeviceCount() is 0"
        except Exception as exc:  # noqa: BLE001 - cupy's CUDARuntimeError (no driver, no device): no GPU here
            return 0, f"{type(exc).__name__}: {str(exc)[:120]}"
    import importlib.util

    if not any(importlib.util.find_spec(p) for p in ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_plugins")):
        return 0, "no JAX CUDA plugin is installed: pip install 'jax[cuda12]'"  # known without starting JAX's backends
    import jax

    try:
        return len(jax.devices("gpu")), ""
    except RuntimeError as exc:  # JAX without a GPU platform ("Unknown backend: 'gpu' requested, …")
        return 0, f"jax.devices('gpu'): {str(exc).split(', but')[0]}"


def _jax_devices(shown: str, platform: str) -> list:
    import jax

    try:
        return jax.devices(platform)
    except RuntimeError as exc:  # JAX without that platform ("Unknown backend: 'gpu' requested …")
        raise RelucheckInputError(f"{shown}: JAX has no {platform} device ({str(exc).split('.')[0]})") from None


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
