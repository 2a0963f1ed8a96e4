"""Flows from given parameters (a0, W0) in real time t, for the checks of papers A and B: one home for running them.

The flow is A eq. 4 / B eqs. 1–3 (the convention says which), with σ'(0) = 0 and Filippov sliding, solved by the
"float64" engine of `numerics.flows` (log-scale coordinates; exact data basis on orthonormal inputs).
"""
from __future__ import annotations

import numpy as np

from relucheck.numerics.flows import FlowProblem, Init, solve
from relucheck.numerics.flows.loop import KINK_ULPS


def flow_pattern(X, a, W):
    """(n, m) σ'(0) = 0 activation of a flow state: ⟨w_j, x_i⟩ above the flow engines' kink threshold
    64 ε ‖x_i‖ ‖θ_j‖ (`numerics.flows.loop.KINK_ULPS`); a component on its kink up to rounding is inactive."""
    theta = np.sqrt(a**2 + (W**2).sum(1))
    return X @ W.T > KINK_ULPS * np.finfo(float).eps * np.linalg.norm(X, axis=1)[:, None] * theta[None, :]


def flow_in_t(X, y, a0, W0, t_end, convention, **options):
    """The flow of B eqs. 1–3 (A eq. 4 for PAPER_A) from given (a0, W0) in real time t up to ``t_end``, engine
    "float64", with the parameters at every sample (``save_at`` times if given, else the engine's step ends)."""
    save_at = options.pop("save_at", None)
    problem = FlowProblem(X, y, Init.explicit(a0, W0), convention=convention, horizon=float(t_end), time_unit="t",
                          save_at=None if save_at is None else tuple(save_at))
    return solve(problem, "float64", save_params=True, **options)
