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
* Work (float64 engine, `run_seconds`): a step is not a unit of work. Each computes ``EVALS_PER_STEP`` field
  evaluations, and an evaluation on general data computes X Φ_wᵀ and Vᵀ X, 2·n·d·m products (in the data basis of
  orthonormal inputs 2·n·m: no d-long dot products). And each event ends a step, so a run has at least as many steps
  as events; on general data the pre-activations z_ij cross their kinks often: ``EVENTS_PER_COMPONENT`` of the n·m
  of them is the smallest share measured. Seconds = (steps + events) × (``STEP_SECONDS`` + ``CHECK_RUNS`` ×
  EVALS_PER_STEP × products × the time of one product, timed here on one BLAS thread on a matrix product of the
  instance's sizes, at most TIMED_SIZE each). The smallest share and the fastest product make it an estimate from
  below: a request it refuses is not a quick one (measured: a product of the field costs 1.9·10⁻¹⁰ s of CPU in the
  run below, five times a bare 128³ product's 3.8·10⁻¹¹ s on one thread). A new user, session 32: n = d = m = 600
  at λ = 1e-10 was accepted without --budget (86 steps by the stiffness estimate, far below 10⁶), and ran 27 steps
  in 36 s of CPU, one event each, to τ = 2·10⁻⁴ (440 field evaluations, 1.3 s a step): its 90 000 estimated events
  take 13 hours by this estimate, and it is refused naming the instance file. The estimate is loose where the
  products are not the work: drawn n = d = m = 100 data ran 988 steps (1048 events, 16 evaluations a step) to
  τ = 0.135 in 84 s of CPU, 85 ms a step, against 1.7 ms a step of the run alone here; the rest is per pair (i, j)
  and per step (watches, event location), which a model would have to measure per kind of data (orthonormal inputs
  take ~1/60 of it per pair: 18.9 s for the n = 256, m = 64 race with its check run).
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
EVALS_PER_STEP = 16  # DOP853: 12 stages, 3 for the dense output, 1 at a restart; measured 16.3 (440 in 27 steps,
# n = d = m = 600), 17.1 and 17.4 (drawn n = 6, orthonormal n = 3, with their check runs)
EVENTS_PER_COMPONENT = 0.25  # events per pre-activation z_ij over a run, the smallest share measured: 0.25 (4068
# events, orthonormal n = 256, m = 64 to Algorithm 1's end), 0.58 (drawn n = 6, d = 3, m = 4, settled), 0.70 (drawn
# n = 64, d = 16, m = 16, 714 events to τ = 5)
STEP_SECONDS = 5e-4  # a step's own bookkeeping with its check run's (event location, the loop), the 0.5 ms of the
# command's 10⁶-step bound
CHECK_RUNS = 2  # the run and its check run at rtol/100 (event-limited: 66 932 and 69 134 field evaluations on the
# orthonormal n = 256, m = 64 race instance)
MAX_RUN_SECONDS = 600.0  # without a budget, a request estimated above 10 minutes is refused (the 10 minutes of the
# command's step bound and of engine auto's escalation)
TIMED_SIZE = 128  # the timed product is at most 128 × 128 × 128 (≈ 0.1 ms): a product's speed grows with its size


@dataclass(frozen=True)
class Cost:
    bytes: float  # memory the run needs at least
    steps: float  # integrator steps to reach the end for the stiffness alone (an estimate)
    sigma: float  # the stiffness scale σ (module docstring)
    events: float = 0.0  # events, each ending a step (EVENTS_PER_COMPONENT·n·m; 0 when unknown)
    field_products: float = 0.0  # products of one field evaluation (2·n·d·m, or 2·n·m on orthonormal data)
    sizes: tuple = ()  # (n, d, m): the sizes the timed product is taken at


def estimate(inputs: np.ndarray, labels: np.ndarray, m: int, log_inv_lambda: float, end: float) -> Cost:
    """The cost of a run to accelerated time ``end`` (module docstring). The memory part needs only the sizes; σ uses
    ‖X Xᵀ‖_F = ‖Xᵀ X‖_F (a d × d product, cheap when n is large)."""
    n, d = inputs.shape
    memory = BYTES * (n * n + NM_ARRAYS * n * m + STATE_ARRAYS * m * (d + 2)) + WATCH_BYTES * n * m
    small = inputs.T @ inputs if d <= n else inputs @ inputs.T
    sigma = float(np.linalg.norm(small)) * float(np.abs(labels).max()) / n
    orthonormal = d >= n and small.shape == (n, n) and np.allclose(small, np.eye(n), rtol=0.0, atol=1e-12)
    return Cost(float(memory), STEPS_PER_UNIT * log_inv_lambda * end * max(sigma, 1e-300), sigma,
                events=EVENTS_PER_COMPONENT * n * m, field_products=2.0 * n * m * (1 if orthonormal else d),
                sizes=(n, d, m))


def run_seconds(cost: Cost, seconds_per_product: float | None = None) -> float:
    """The float64 run and its check run in seconds (module docstring, Work): each of its steps for the stiffness
    and its events computes EVALS_PER_STEP field evaluations of ``cost.field_products`` products, timed here
    (`matmul_seconds`) unless given."""
    if seconds_per_product is None:
        seconds_per_product = matmul_seconds(*cost.sizes) if cost.sizes else 0.0
    per_step = STEP_SECONDS + CHECK_RUNS * EVALS_PER_STEP * cost.field_products * seconds_per_product
    return (cost.steps + cost.events) * per_step


def work_refusal(cost: Cost, where: str, end: float) -> str | None:
    """Why a float64 run and its check run are refused without a budget (`run_seconds` above MAX_RUN_SECONDS), naming
    ``where`` (the instance file) and the sizes, else None (a new user, session 32: n = d = m = 600 was accepted)."""
    seconds = run_seconds(cost)
    if seconds <= MAX_RUN_SECONDS:
        return None
    n, d, m = cost.sizes
    took = f"{about(seconds / 3600)} hours" if seconds >= 3600 else f"{about(seconds / 60)} minutes"
    return (f"{where}: n = {n} data, d = {d}, m = {m} neurons to τ = {end:g} take at least about {took} with the "
            f"check run (about {about(cost.events)} events, each ending an integrator step, and {about(cost.steps)} "
            f"steps for the flow's stiffness, each {EVALS_PER_STEP} field evaluations of {about(cost.field_products)} "
            f"products), at most {MAX_RUN_SECONDS / 60:g} minutes without --budget; give fewer data or neurons, or "
            "--budget SECONDS to run until then and stop inconclusive")


def about(value: float) -> str:
    """Two significant digits for a reader: 14, 90000, 4.3·10⁸."""
    v = float(f"{value:.2g}")
    if v < 1e6:
        return f"{v:.2g}" if v < 10 else f"{v:.0f}"
    k = int(math.floor(math.log10(v)))
    return f"{v / 10 ** k:.2g}·10" + str(k).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))


def matmul_seconds(n: int, d: int, m: int) -> float:
    """Seconds of one float64 multiply-add in a matrix product (n × d)(d × m) like the field's X Φ_wᵀ, each size at
    most TIMED_SIZE, on one BLAS thread (several threads on a loaded machine were 80 times slower at 256³); the
    fastest of 5 after a first product (the machine's load only slows it)."""
    import time

    from threadpoolctl import threadpool_limits

    a, b, c = (min(max(int(v), 1), TIMED_SIZE) for v in (n, d, m))
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((a, b)), rng.standard_normal((b, c))
    best = math.inf
    with threadpool_limits(1, user_api="blas"):
        x @ w
        for _ in range(5):
            start = time.perf_counter()
            x @ w
            best = min(best, time.perf_counter() - start)
    return best / (a * b * c)


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
