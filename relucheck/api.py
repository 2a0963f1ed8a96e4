"""The public entry points that are functions of their own: `flow`, `limit_process`, `load_instance`.

The rest of the public API (docs/api.md) is re-exported from where it lives: statements from `theory`,
checks and verdicts from `proofs_checks`, instances from `numerics`.
"""
from __future__ import annotations

from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import Instance, load_instance


def _instance(instance) -> Instance:
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, (str, Path)):
        return load_instance(instance)
    raise RelucheckInputError(f"instance must be a relucheck.Instance or the path of an instance file, "
                              f"got {type(instance).__name__}")


def flow(instance, lam, *, engine: str | None = None, horizon: float | None = None, times=None,
         max_horizon: float | None = None, **options):
    """The gradient flow of ``instance`` from C Assumption 3's balanced start at scale ``lam``, in accelerated
    time τ = t / ln(1/λ) (C eq. (5); A eq. (4) for the field, `numerics.network`).

    * ``instance``: an `Instance` or the path of an instance file (any data: orthonormal or not).
    * ``lam``: λ ∈ (0, 1) as a number or a decimal string ("1e-1000" is below float64's range and fine).
    * ``engine``: a name from `relucheck engines` ("float64", "mpmath", "gd"); None is "auto": float64, rerun with
      mpmath when float64 reports a sign decision below its precision (docs/engines.md).
    * ``horizon``: the final τ; None runs until the flow settles (at most ``max_horizon``, default 100) and at
      least to the last of ``times``.
    * ``times``: increasing τ at which the trajectory is reported (``result.trajectory.tau`` is exactly these);
      None reports the engine's own step ends.
    * ``options``: the engine's options (e.g. ``rtol`` for float64, ``digits`` for mpmath, ``step`` for gd) and
      the loop's (``max_steps``, ``max_events``, ``save_params``, ``budget`` seconds, ``progress`` a callback
      (t, end, events, steps)); an unknown one is a `RelucheckInputError`.
    * Without a horizon, with ``times``: a run that has not settled by the maximal horizon is still a success when
      every requested time was computed and vouched for (its message says it had not settled).

    Returns the engine contract's `FlowResult`: ``status`` (a `FlowStatus`; ``result.success`` is True for a
    trusted answer), ``message``, ``events``, ``jumps`` (τ, neuron, fitted data), ``plateaus``, ``trajectory``
    (``tau``, ``loss``), ``final_loss``, ``errors`` (the bound of every answer: `numerics.flows.vouch`), ``stats``.
    """
    from relucheck.numerics.flows import FlowProblem, solve

    inst = _instance(instance)
    times = None if times is None else _times(times, horizon)
    if max_horizon is None:
        max_horizon = FlowProblem.max_horizon
    if horizon is None and times:
        max_horizon = max(max_horizon, times[-1])

    def run(until):
        problem = FlowProblem.from_instance(inst, lam, horizon=until, save_at=times, max_horizon=max_horizon)
        return solve(problem, engine or "auto", **options)

    result = run(horizon)
    if horizon is None and times and result.success and result.end < times[-1]:
        result = run(times[-1])  # it settled before the last requested time: run exactly there
        result.stats["settled_before_last_time"] = True
    return _requested_times_answered(result, horizon, times)


def _times(times, horizon) -> tuple:
    """``times`` as floats: finite, increasing, in [0, horizon] (errors name ``times``, the argument as given)."""
    import math

    try:
        out = tuple(float(t) for t in times)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"times must be a sequence of numbers: {exc}") from exc
    if not out or not all(math.isfinite(t) and t >= 0 for t in out):
        raise RelucheckInputError(f"times must be a non-empty sequence of finite times ≥ 0, got {list(out)[:6]}")
    k = next((k for k in range(1, len(out)) if out[k] <= out[k - 1]), None)
    if k is not None:
        raise RelucheckInputError(f"times must be increasing, got {out[k - 1]!r} then {out[k]!r}")
    if horizon is not None and out[-1] > horizon:
        raise RelucheckInputError(f"times must be within the horizon {horizon:g}, got {out[-1]!r}")
    return out


def _requested_times_answered(result, horizon, times):
    """Without a horizon the flow runs until it settles; when it has not settled by the maximal horizon (status
    UNSETTLED) but every requested time was computed and vouched for by the check run (`numerics.flows.vouch`), the
    answer asked for is there: a success, whose message says that the flow had not settled."""
    from relucheck.numerics.flows import Status

    if (horizon is None and times and result.status is Status.UNSETTLED and result.errors.get("vouched")
            and len(result.trajectory.tau) == len(times)):
        result.status = Status.SUCCESS
        result.message = (f"every requested time computed and vouched for (τ ≤ {times[-1]:g}); the flow had not settled "
                          f"by τ = {result.end:g} ({result.message})")
    return result


def limit_process(instance, *, tie_rtol: float = 1e-12):
    """Paper C's Algorithm 1 (the λ → 0 limit of the flow in τ) for an instance with orthonormal inputs
    (C Assumption 1): jump times, fitted sets, plateaus, final weights (`theory.limit_process`). Non-orthonormal
    inputs raise `HypothesisViolation` (a `RelucheckInputError`) naming the assumption."""
    from relucheck.theory.limit_process import limit_process_of

    return limit_process_of(_instance(instance), tie_rtol=tie_rtol)


def limit(instance, *, ladder=None, engine: str = "float64", max_horizon: float | None = None,
          budget: float | None = None, progress=None, **options):
    """The λ → 0 limit of the flow's jump times and plateau losses on any data, each with an error bar or
    "inconclusive" (issue 24, docs/limit.md): flows from C Assumption 3's balanced start at λ = e^{−L} for each
    L = ln(1/λ) of ``ladder`` (default 100, 300, 1000, 3000), jumps matched across it, extrapolated in 1/ln(1/λ)
    under the law τ_k(λ) = τ_k* + C_k/ln(1/λ) + D_k/ln(1/λ)² + … (C's first-order correction, spec C §2.6).

    ``engine`` and ``options`` (e.g. ``rtol``) go to `numerics.flows.solve`; ``budget`` seconds bound the whole
    ladder; ``progress(L, seconds, flow_result)`` is called after each flow. Returns a
    `numerics.lambda_limit.LimitResult`: ``status`` (``success`` when every quantity has an error bar), ``message``,
    ``jumps`` and ``plateaus`` (each with ``value``, ``error``, ``status``, ``reason``, ``coefficients`` [τ*, C, D],
    ``predict(ln(1/λ))``), ``ladder``, ``to_json()``.
    """
    from relucheck.numerics.flows import FlowProblem
    from relucheck.numerics.lambda_limit import DEFAULT_LADDER, limit_of

    inst = _instance(instance)
    if max_horizon is None:
        max_horizon = FlowProblem.max_horizon

    def problem_of(lam):
        return FlowProblem.from_instance(inst, lam, max_horizon=max_horizon)

    return limit_of(problem_of, DEFAULT_LADDER if ladder is None else ladder, engine=engine, budget=budget,
                    progress=progress, **options)
