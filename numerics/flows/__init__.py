"""The flow engine contract: one problem, one loop with one Filippov layer, one result, engines by name.

- `FlowProblem`, `Init` (`problem`): data, initialization θ_j(0) = λ·(â_j, ŵ_j) with λ a decimal string,
  convention, horizon, time unit (t or τ = t/ln(1/λ)), times to save.
- `solve(problem, engine="auto", **options)` (`registry`): the engine's domain is checked, then the loop
  (`loop.integrate`) runs it. `available_engines()` lists the registered engines.
- `FlowResult`, `Status`, `Jump`, `Trajectory` (`result`) and `Event`, `EventKind` (`events`): what every engine
  returns.
- `filippov`: per-neuron complementarity problem on the kinks (sliding on several kinks at once).
"""
from .events import Event, EventKind
from .problem import FlowProblem, Init
from .registry import available_engines, get_engine, solve
from .result import FlowResult, Jump, Status, Trajectory

__all__ = ["FlowProblem", "Init", "solve", "available_engines", "get_engine", "FlowResult", "Status", "Event", "EventKind",
           "Jump", "Trajectory"]
