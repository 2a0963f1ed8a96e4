"""Engines by name, and `solve`: pick an engine, check its domain, run the one loop, escalate when asked.

    from relucheck.numerics.flows import FlowProblem, solve
    result = solve(FlowProblem.from_instance(instance, "1e-40", horizon=3.0))        # engine "auto"
    result.status, result.message, result.events, result.jumps, result.trajectory.loss

``engine="auto"`` runs "float64" and, when its status is PRECISION (a sign decision below float64's
resolution) or CHATTER (events of zero length repeating, a sliding mode float64 cannot resolve: measured at
λ = 1e-1000 on general data, where mpmath resolves it), reruns with "mpmath" at ``escalation_digits`` (default 30)
and reports both in the stats.
"""
from __future__ import annotations

import importlib
import pkgutil
import time

from ..errors import RelucheckInputError
from .engine import Engine
from .loop import integrate
from .result import FlowResult, Status
from .settle import later_growth

_ENGINES: dict[str, Engine] = {}
LOOP_OPTIONS = ("max_steps", "max_events", "save_params", "settle_rtol", "budget", "deadline", "progress", "static_after")
ESCALATE_ON = (Status.PRECISION, Status.CHATTER, Status.TOLERANCE)  # float64 statuses that "auto" reruns in mpmath


def register(engine: Engine) -> Engine:
    if engine.name in _ENGINES:
        raise ValueError(f"engine {engine.name!r} registered twice")
    _ENGINES[engine.name] = engine
    return engine


def available_engines() -> dict[str, Engine]:
    """Every registered engine (the modules of `numerics.flows.engines` register theirs on import)."""
    package = importlib.import_module(f"{__package__}.engines")
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(_ENGINES)


def get_engine(name: str) -> Engine:
    available = available_engines()
    if name not in available:
        raise RelucheckInputError(f"unknown engine {name!r}; available: {', '.join(sorted(available))} (or 'auto')")
    return available[name]


def _past(deadline) -> bool:
    return deadline is not None and time.perf_counter() > deadline


def solve(problem, engine: str = "auto", *, escalation_digits: int = 30, **options) -> FlowResult:
    """Solve a `FlowProblem` with the named engine (module docstring). Options are the engine's own
    (`Engine.options`) and the loop's (max_steps, max_events, save_params, settle_rtol); an unknown option or a
    problem outside the engine's domain is a `RelucheckInputError` naming it."""
    budget = options.pop("budget", None)
    if budget is not None:  # seconds for the whole solve (escalation and check runs included): one deadline
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
            raise RelucheckInputError(f"budget must be a number of seconds > 0, got {budget!r}")
        options["deadline"] = time.perf_counter() + float(budget)
    if engine == "auto":
        result = solve(problem, "float64", **options)
        if result.status in ESCALATE_ON and "mpmath" in available_engines() and not _past(options.get("deadline")):
            first = result
            result = solve(problem, "mpmath", digits=escalation_digits,
                           **{k: v for k, v in options.items() if k in LOOP_OPTIONS})
            result.stats["escalated_from"] = {"engine": first.engine, "status": first.status.name.lower(),
                                              "message": first.message}
        return result
    eng = get_engine(engine)
    unknown = sorted(set(options) - set(eng.options) - set(LOOP_OPTIONS))
    if unknown:
        raise RelucheckInputError(f"engine {eng.name!r} has no option(s) {unknown}; its options: "
                                  f"{sorted(eng.options) + list(LOOP_OPTIONS)}")
    for name in ("max_steps", "max_events"):
        value = options.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RelucheckInputError(f"{name} must be a positive integer, got {value!r}")
    reason = eng.domain.reason(problem, options)
    if reason:
        raise RelucheckInputError(f"engine {eng.name!r} cannot solve this problem: {reason}")
    loop_options = {k: v for k, v in options.items() if k in LOOP_OPTIONS}
    engine_options = {k: v for k, v in options.items() if k not in LOOP_OPTIONS}
    result = integrate(eng, problem, **loop_options, **engine_options)
    def rerun(problem=problem, **changes):
        loop = {**loop_options, **{k: v for k, v in changes.items() if k in LOOP_OPTIONS}}
        engine = {**engine_options, **{k: v for k, v in changes.items() if k not in LOOP_OPTIONS}}
        return integrate(eng, problem, **loop, **engine)

    result = eng.review(result, problem, engine_options, rerun)
    if result.status in (Status.SETTLED, Status.SUCCESS):
        later_growth(result, problem)
    return result
