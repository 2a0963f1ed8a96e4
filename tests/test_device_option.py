"""``--backend`` and ``--device`` of ``relucheck run`` and ``relucheck report`` (issue 23 item 4;
proofs_checks/array_options.py, numerics/array_backend.py).

Every bad choice exits 2 with one line naming the option as typed, before any computation: an unknown library or
device at parse time, a library that is not installed (with how to install it), a GPU that the library cannot see.
This machine has no GPU and no torch or cupy: the GPU paths run through the CPU backends (numpy, array-api-strict,
JAX where installed) and through stand-in modules whose ``cuda`` reports a chosen availability. A good choice reaches
the simulators in the worker processes (the options set $RELUCHECK_ARRAY_BACKEND / $RELUCHECK_DEVICE for the
command), and the environment is given back after.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from relucheck.numerics import array_backend
from relucheck.numerics.errors import RelucheckInputError
from relucheck.proofs_checks import array_options
from relucheck.proofs_checks.cli import main

HANG_GUARD = 180  # seconds; a guard against a hang, never a timing assertion
ENV = (array_backend.ENV_BACKEND, array_backend.ENV_DEVICE)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for key in ENV:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def no_report(monkeypatch):
    """paper A's report replaced by a recorder of the environment it runs in (it must not run on bad input)."""
    from relucheck.proofs_checks.figures import paper_a

    seen = []
    monkeypatch.setattr(paper_a, "write_report", lambda out, **kw: seen.append({k: os.environ.get(k) for k in ENV})
                        or [])
    return seen


def _report(tmp_path, capsys, *options) -> tuple[int, str]:
    code = main(["report", "--paper", "A", "--out", str(tmp_path / "out"), "--executor", "serial", *options])
    return code, capsys.readouterr().err


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("relucheck: error: ") and "Traceback" not in err, err
    return lines[0]


def test_names_match_the_libraries():
    assert set(n.replace("-", "_") for n in array_options.NAMES) == set(array_backend.BACKENDS)


@pytest.mark.parametrize("options, words", [
    (["--backend", "nmupy"], ["argument --backend", "'nmupy'", "numpy, torch, cupy, jax, array-api-strict"]),
    (["--device", "gpu"], ["argument --device", "'gpu'", "cpu, cuda or cuda:N"]),
    (["--device", "cuda:x"], ["argument --device", "'cuda:x'"]),
    (["--device", "cpu:0"], ["argument --device", "'cpu:0'"]),
    (["--device="], ["argument --device", "must not be empty"]),
    (["--backend", "torch", "--backend"], ["argument --backend", "expected one argument"]),
])
def test_bad_values_exit_2_at_parse_time(tmp_path, capsys, no_report, options, words):
    with pytest.raises(SystemExit) as exc:
        _report(tmp_path, capsys, *options)
    assert exc.value.code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert all(w in line for w in words), line
    assert not no_report and not (tmp_path / "out").exists()


def test_run_has_the_options_too(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--only", "B.lem5.*", "--backend", "nope", "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and "argument --backend: unknown array library 'nope'" in capsys.readouterr().err


def _missing_library() -> str | None:
    return next((b for b in ("torch", "cupy", "jax") if importlib.util.find_spec(b) is None), None)


def test_library_not_installed_names_it_and_how_to_install(tmp_path, capsys, no_report):
    name = _missing_library()
    if name is None:
        pytest.skip("torch, cupy and jax are all installed")
    code, err = _report(tmp_path, capsys, "--backend", name)
    line = _one_error_line(err)
    assert code == 2 and f"--backend {name}: the array library {name} is not installed" in line
    assert f"install it: {array_backend.INSTALL[name]}" in line and "--backend numpy" in line
    assert not no_report


def test_cuda_on_numpy_says_which_backends_run_on_a_gpu(tmp_path, capsys, no_report):
    code, err = _report(tmp_path, capsys, "--device", "cuda")
    assert code == 2 and no_report == []
    assert "--device cuda: numpy runs on the CPU only (--device cpu); a GPU needs --backend torch, cupy or jax" in \
        _one_error_line(err)


def test_cuda_on_array_api_strict(tmp_path, capsys, no_report):
    pytest.importorskip("array_api_strict")
    code, err = _report(tmp_path, capsys, "--backend", "array-api-strict", "--device", "cuda")
    assert code == 2 and "--device cuda: array-api-strict runs on the CPU only" in _one_error_line(err)
    assert no_report == []


JAX_NO_GPU = """
import importlib.util, sys
from relucheck.numerics import array_backend
cpu = array_backend.resolve("jax", "cpu").device  # str() of it (what a sweep task sends) resolves to it
assert array_backend.resolve("jax", str(cpu)).device == cpu, str(cpu)
if array_backend._gpu_count("jax", None)[0]:
    sys.exit(77)  # this JAX sees a GPU
if sys.argv[1] == "plugin":  # a CUDA plugin present but no device: JAX's own error is the reason
    real = importlib.util.find_spec
    importlib.util.find_spec = lambda n, *a: object() if n == "jax_cuda12_plugin" else real(n, *a)
from relucheck.proofs_checks.figures import paper_a
paper_a.write_report = lambda *a, **k: sys.exit(99)  # must not run
from relucheck.proofs_checks.cli import main
sys.exit(main(["report", "--paper", "A", "--backend", "jax", "--device", sys.argv[2], "--out", sys.argv[3]]))
"""


@pytest.mark.parametrize("variant, device, words", [
    ("none", "cuda", "--device cuda: no CUDA GPU is visible to jax ("),
    ("plugin", "cuda:1", "--device cuda:1: no CUDA GPU is visible to jax (jax.devices('gpu'):"),
])
def test_cuda_on_jax_without_gpu(tmp_path, variant, device, words):
    """In a subprocess: importing JAX registers a fork hook that warns (an error under this suite's warning filter)
    in every later test that forks (the budget's child processes)."""
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax not installed")
    proc = subprocess.run([sys.executable, "-c", JAX_NO_GPU, variant, device, str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=HANG_GUARD,
                          env={k: v for k, v in os.environ.items() if k not in ENV})
    if proc.returncode == 77:
        pytest.skip("this JAX sees a GPU")
    assert proc.returncode == 2 and words in _one_error_line(proc.stderr), proc.stderr


def _fake_torch(gpus: int, cuda_build: str | None = None):
    cuda = types.SimpleNamespace(is_available=lambda: gpus > 0, device_count=lambda: gpus)
    return types.SimpleNamespace(__version__="9.9+test", version=types.SimpleNamespace(cuda=cuda_build), cuda=cuda,
                                 device=lambda text: f"device<{text}>", asarray=None)


@pytest.mark.parametrize("gpus, build, device, words", [
    (0, None, "cuda", ["--device cuda: no CUDA GPU is visible to torch", "a CPU-only build", "--device cpu"]),
    (0, "12.4", "cuda", ["torch.cuda.is_available() is False", "built for CUDA 12.4"]),
    (1, "12.4", "cuda:1", ["--device cuda:1: torch sees 1 CUDA GPU (indices 0…0)"]),
])
def test_torch_gpu_availability_mocked(tmp_path, capsys, no_report, monkeypatch, gpus, build, device, words):
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(gpus, build))
    code, err = _report(tmp_path, capsys, "--backend", "torch", "--device", device)
    line = _one_error_line(err)
    assert code == 2 and all(w in line for w in words), line
    assert no_report == []


def test_torch_device_objects_mocked():
    torch = _fake_torch(2, "12.4")
    assert array_backend._device("torch", torch, "cuda", "--device cuda", "--device cpu") == "device<cuda:0>"
    assert array_backend._device("torch", torch, "cuda:1", "--device cuda:1", "--device cpu") == "device<cuda:1>"
    assert array_backend._device("torch", torch, "cpu", "--device cpu", "--device cpu") == "device<cpu>"


def test_cupy_mocked(monkeypatch, tmp_path, capsys, no_report):
    class CUDARuntimeError(RuntimeError):
        pass

    def no_device():
        raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    runtime = types.SimpleNamespace(getDeviceCount=no_device)
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime, Device=lambda k: f"gpu{k}"))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    code, err = _report(tmp_path, capsys, "--backend", "cupy", "--device", "cuda")
    assert code == 2 and "--device cuda: no CUDA GPU is visible to cupy (CUDARuntimeError: cudaErrorNoDevice" in \
        _one_error_line(err)
    code, err = _report(tmp_path, capsys, "--backend", "cupy", "--device", "cpu")
    assert code == 2 and "--device cpu: cupy runs on CUDA GPUs only" in _one_error_line(err)
    runtime.getDeviceCount = lambda: 2
    assert array_backend._device("cupy", cupy, "cuda:1", "--device cuda:1", "--device cpu") == "gpu1"
    assert no_report == []


def test_environment_named_when_the_choice_comes_from_it(tmp_path, capsys, no_report, monkeypatch):
    monkeypatch.setenv(array_backend.ENV_DEVICE, "cuda")
    code, err = _report(tmp_path, capsys, "--backend", "numpy")
    assert code == 2 and "RELUCHECK_DEVICE='cuda': numpy runs on the CPU only" in _one_error_line(err)
    with pytest.raises(RelucheckInputError, match="device='cuda:0': numpy runs on the CPU only"):
        array_backend.resolve("numpy", "cuda:0")


def test_good_choice_reaches_the_report_and_the_environment_is_given_back(tmp_path, capsys, no_report, monkeypatch):
    pytest.importorskip("array_api_strict")
    monkeypatch.setenv(array_backend.ENV_BACKEND, "numpy")
    code, _ = _report(tmp_path, capsys, "--backend", "Array_API_Strict", "--device", "cpu")
    assert code == 0 and no_report == [{ENV[0]: "array_api_strict", ENV[1]: "cpu"}]
    assert os.environ[ENV[0]] == "numpy" and ENV[1] not in os.environ
    assert array_backend.resolve().name == "numpy"
    code, _ = _report(tmp_path, capsys, "--device", "cpu")  # only --device: the backend stays the environment's
    assert code == 0 and no_report[-1] == {ENV[0]: "numpy", ENV[1]: "cpu"}


PLUGIN = """
    from relucheck import Statement, agree, check, register_paper, register_statements
    register_paper("DEV", "a paper of this test")
    register_statements(Statement(id="DEV.one", paper="DEV", number="1", title="one", conclusion="x = x"))

    @check("DEV.one.library", statement="DEV.one", mutant="another library")
    def library(ctx):
        import os
        import numpy as np
        from relucheck.numerics import paper_a_training as pa
        from relucheck.numerics.array_backend import resolve

        kw = dict(m=5, lam=1e-3, lr=0.05, max_steps=400, sigma=1.0, n_test=20, check_every=100)
        here = pa.threshold_batch(2, [6], [0], **kw)[0]["ratio"]  # on the library of the environment
        ref = pa.threshold_batch(2, [6], [0], **kw, backend="numpy")[0]["ratio"]
        seen = resolve().name + (":" + os.environ["RELUCHECK_DEVICE"] if "RELUCHECK_DEVICE" in os.environ else "")
        # 400 steps, sums of ≤ 6 terms: reordered float64 sums differ by ≤ 400·6·2⁻⁵³·κ (κ ≤ 10 away from interpolation)
        ok = seen == "array_api_strict:cpu" and abs(here - ref) <= 1e-10 * ref
        return agree(1.0, float(ok) + ctx.mutate, 0.0, "the worker sees the chosen library", message=seen)
"""


def _relucheck() -> list[str]:
    script = Path(sys.executable).with_name("relucheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relucheck"]


def test_worker_processes_run_on_the_chosen_library(tmp_path):
    """``run --backend array-api-strict --device cpu`` on a spawned worker: the check there sees the library and its
    simulator record equals numpy's; without the options the same check is refuted (it can fail)."""
    pytest.importorskip("array_api_strict")
    (tmp_path / "mine.py").write_text(textwrap.dedent(PLUGIN))
    env = {k: v for k, v in os.environ.items() if k not in ENV} | {"OPENBLAS_NUM_THREADS": "1"}

    def run(out, *options):
        return subprocess.run([*_relucheck(), "run", "--checks", "mine.py", "--quiet", "--executor", "process",
                               "--workers", "1", "--out", out, *options], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=HANG_GUARD)

    proc = run("a", "--backend", "array-api-strict", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    proc = run("b")
    assert proc.returncode == 1 and "DEV.one.library: refuted" in proc.stderr


def test_device_text_round_trips_as_a_sweep_task_sends_it(tmp_path):
    """`threshold_sweep` sends str(device) to its workers: that text resolves to the same device."""
    pytest.importorskip("array_api_strict")
    from relucheck.numerics import paper_a_training as pa

    for text in ("cpu", "device1"):
        dev = array_backend.resolve("array_api_strict", text).device
        assert array_backend.resolve("array_api_strict", str(dev)).device == dev
    runtime = types.SimpleNamespace(getDeviceCount=lambda: 2)
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime, Device=lambda k: f"<CUDA Device {k}>"))
    assert array_backend._device("cupy", cupy, "<CUDA Device 1>", "d", "c") == "<CUDA Device 1>"
    kw = dict(m=5, max_steps=200, n_test=20)
    on_strict = pa.threshold_sweep(tmp_path / "s.jsonl", [2], [0], scale="reduced", progress=False,
                                   backend="array_api_strict", device="cpu", **kw)
    on_numpy = pa.threshold_sweep(tmp_path / "n.jsonl", [2], [0], scale="reduced", progress=False, **kw)
    assert [r["status"] for r in on_strict] == [r["status"] for r in on_numpy]
    # the protocol's float32 field: S·K·u with S = 200 steps, K = 24 terms, u = 2⁻²⁴ (tests/test_array_api_backends.py's
    # bound); the losses are far from interpolation (ratios 0.4–2, measured), so the residuals' κ is O(1)
    tol = 200 * 24 * 2.0**-24
    assert all(abs(a["ratio"] - b["ratio"]) <= tol * b["ratio"] and b["ratio"] > 0.1 for a, b in zip(on_strict, on_numpy))
