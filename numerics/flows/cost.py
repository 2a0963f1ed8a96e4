"""What a flow request will cost, estimated from its sizes before anything is computed (issue 20: bounded work).

* Memory (float64 engine): the Gram matrix G = X Xᵀ (n² numbers) and about ``NM_ARRAYS`` arrays of n × m numbers
  (pre-activations, residual matrices, the pattern's masks and the loop's copies), 8 bytes each, plus the trajectory.
  A request above the memory the machine has available is refused before any of it is allocated.
* Steps: once a datum is fitted its residual decays at a rate ∝ ln(1/λ)·‖θ_j‖²·‖x_i‖²/n (τ units), a stiff mode an
  explicit integrator follows only with steps below its stability interval. With σ = ‖X Xᵀ‖_F ‖y‖_∞ / n (an upper
  bound of that rate's scale: ‖θ_j‖² ≲ ‖y‖_∞ on a plateau), the steps to reach τ are about
  ``STEPS_PER_UNIT`` · ln(1/λ) · τ · σ: measured 0.19 on a drawn n = 3 instance (σ = 1.12; 2 034 steps at λ = 1e-1000
  to τ = 4.78, 19 409 at λ = 1e-10000), the order of DOP853's real stability interval (≈ 6: 1/6 steps per unit).
  The estimate is for refusing absurd requests (λ = 1e-1e9, τ = 1e7), not a promise of run time.
* Memory beyond the n × m arrays: ``STATE_ARRAYS`` state-sized arrays (m·(d + 2) numbers: DOP853's 13 stages, its
  dense output's 7 rows and the event evaluator's copy of them, y, f, …) and ``WATCH_BYTES`` per watched component
  (every (i, j) can be watched). Before issue 20's fix the event evaluator gathered a (rows × d) copy of the dense
  output per crossing: 7.7 GB (tracemalloc peak) for the 108 639 crossings of the first event step at n = 2000,
  d = m = 800, λ = 1e-10; it is now bounded by n·m (`engines.logscale_step`, GATHER_LIMIT).
* Engine mpmath (`taylor_cost`): one Taylor step of order K = 2·digits computes 5 (K + 1) × n × m arrays of arb
  numbers (≈ 96 + digits·log2(10)/8 bytes each: measured 95 B at 30 digits, 430 B at 1000) with ≈ 1.5 K² n m + K n² m
  products; the time of one product at the digits is timed on the spot (``product_seconds``), not assumed.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

NM_ARRAYS = 12  # n × m arrays alive at once in the loop (Z, r-matrices, V, act, slide, kink masks, watch, copies)
STEPS_PER_UNIT = 0.19  # steps per unit of ln(1/λ) · τ · σ (module docstring, measured)
BYTES = 8
STATE_ARRAYS = 30  # state-sized arrays alive in a float64 run (module docstring)
WATCH_BYTES = 48  # a watched component: code, datum, neuron (int64), sign, floor and its value (float64)
ARB_BYTES = 96  # an arb number's fixed part (measured 95 B at 30 digits), plus digits·log2(10)/8 for its mantissa


@dataclass(frozen=True)
class Cost:
    bytes: float  # memory the run needs at least
    steps: float  # integrator steps to reach the end (an estimate)
    sigma: float  # the stiffness scale σ (module docstring)


def estimate(inputs: np.ndarray, labels: np.ndarray, m: int, log_inv_lambda: float, end: float) -> Cost:
    """The cost of a run to accelerated time ``end`` (module docstring). The memory part needs only the sizes; σ uses
    ‖X Xᵀ‖_F = ‖Xᵀ X‖_F (a d × d product, cheap when n is large)."""
    n, d = inputs.shape
    memory = BYTES * (n * n + NM_ARRAYS * n * m + STATE_ARRAYS * m * (d + 2)) + WATCH_BYTES * n * m
    small = inputs.T @ inputs if d <= n else inputs @ inputs.T
    sigma = float(np.linalg.norm(small)) * float(np.abs(labels).max()) / n
    return Cost(float(memory), STEPS_PER_UNIT * log_inv_lambda * end * max(sigma, 1e-300), sigma)


@dataclass(frozen=True)
class TaylorCost:
    bytes: float  # memory of one step's series
    products: float  # arb products of one step
    seconds: float  # their time at the digits (``product_seconds``), an estimate


def taylor_cost(n: int, m: int, digits: int, order: int | None = None, *, timed: bool = True) -> TaylorCost:
    """One step of engine mpmath at ``digits`` (module docstring); ``timed`` False skips the timing (seconds 0)."""
    K = order if order is not None else max(12, 2 * digits)
    memory = 5 * (K + 1) * n * m * (ARB_BYTES + digits * math.log2(10) / 8)
    products = 1.5 * K * K * n * m + K * n * n * m
    return TaylorCost(float(memory), float(products), products * product_seconds(digits) if timed else 0.0)


def product_seconds(digits: int) -> float:
    """Seconds of one arb multiply-add at ``digits``, timed on a 1000-product tensordot like the kernel's (the fastest
    of 3: the machine's load only slows it)."""
    import time

    from flint import arb

    from ..mp_arrays import flint_precision

    with flint_precision(digits):
        x = np.array([arb(k + 1).sqrt() for k in range(1000)], dtype=object).reshape(10, 10, 10)
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            np.tensordot(x, x, axes=([0, 2], [0, 1]))
            best = min(best, time.perf_counter() - start)
    return best / 10_000


def available_memory() -> float | None:
    """Bytes the machine can still give (MemAvailable of /proc/meminfo; else free pages), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def human_bytes(value: float) -> str:
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    k = min(int(math.log(max(value, 1.0), 1024)), len(units) - 1)
    return f"{value / 1024 ** k:.3g} {units[k]}"
