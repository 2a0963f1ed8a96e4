"""Paper C's flows for the checks: one home for running them (spec C §1.9, §2.6).

The flow is C eqs. (2)–(4) from C Assumption 3's balanced start w_j(0) = λ ḡ_j, a_j(0) = s_j λ, in accelerated time
τ = t / ln(1/λ), solved by the "float64" engine of `numerics.flows` (log-scale coordinates, any λ; exact data basis
on orthonormal inputs, ``basis="inputs"`` for the inputs as given). It runs to Algorithm 1's last jump + 0.5
(`LimitProcess.flow_horizon`) unless told otherwise. Runs of the named instances are memoized per (instance, λ,
horizon, basis) so that checks sharing a run pay for it once.

Jumps, plateaus and the trajectory come from the `FlowResult` (one rule for every engine:
`numerics.flows.result.jumps_of`). A balanced start stays balanced (a_j² = ‖w_j‖², C Prop. 1), so a_j² = ‖θ_j‖²/2
and the norm exponent of C eq. (11) is ũ_j = −ln(a_j²)/(2 ln(1/λ)).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.flows.norm_track import NormTrack
from relucheck.numerics.flows.result import jumps_of
from relucheck.theory.limit_process import limit_process_of

from .paper_c_instances import instance_of, limit_of

ENGINE = "float64"


def run_flow(instance, lam: str, horizon: float | None = None, *, basis: str = "auto", **options):
    """The flow of ``instance`` at scale λ to ``horizon`` (default Algorithm 1's τ_K + 0.5) as a `FlowResult`."""
    if horizon is None:
        horizon = limit_process_of(instance).flow_horizon()
    return solve(FlowProblem.from_instance(instance, lam, horizon=horizon), ENGINE, basis=basis, **options)


@lru_cache(maxsize=None)
def flow_of(name: str, seed: int, lam: str, horizon: float | None = None, basis: str = "auto"):
    """`run_flow` on a named instance (`paper_c_instances.instance_of`), memoized."""
    return run_flow(instance_of(name, seed), lam, horizon if horizon is not None else limit_of(name, seed).flow_horizon(),
                    basis=basis)


def squared_outputs(result) -> np.ndarray:
    """a_j(τ)² = ‖θ_j(τ)‖²/2 at the trajectory's samples, (T, m) (underflows to 0 for neurons below ~1e-154)."""
    return 0.5 * np.exp(2.0 * result.trajectory.log_norms)


def exponents(result) -> np.ndarray:
    """ũ_j(τ) = −ln(a_j²)/(2 ln(1/λ)) = (ln 2/2 − ln‖θ_j‖)/ln(1/λ) at the trajectory's samples, (T, m); finite at any λ."""
    return (0.5 * math.log(2.0) - result.trajectory.log_norms) / result.log_inv_lambda


def jump_errors(name: str, seed: int, lams) -> np.ndarray:
    """(τ̂_k − τ_k) per λ (rows) and jump k (columns), matching jumps by neuron; nan when a jump is missing."""
    lp = limit_of(name, seed)
    out = np.full((len(lams), len(lp.jumps)), np.nan)
    for r, lam in enumerate(lams):
        by_neuron = {jp.neuron: jp.tau for jp in flow_of(name, seed, lam).jumps}
        for k, jp in enumerate(lp.jumps):
            if jp.neuron in by_neuron:
                out[r, k] = by_neuron[jp.neuron] - jp.tau
    return out


def sampled_jump_times(taus, squared) -> dict[int, float]:
    """{neuron: τ} of sampled a_j² (T, m) (gradient descent's steps) by the flows' jump rule (`jumps_of`): ln|a_j| is
    ln‖θ_j‖ − ln 2/2 for a balanced network, so it crosses its final value − ln 2/2 where ‖θ_j‖² halves; linear in
    ln|a_j| between samples. Fitted sets are not computed here."""
    track = NormTrack()
    with np.errstate(divide="ignore"):
        log_sizes = 0.5 * np.log(np.asarray(squared, dtype=float))
    for t, values in zip(taus, log_sizes, strict=True):
        track.append(float(t), values)
    m = log_sizes.shape[1]
    no_data = np.zeros((0, 1)), np.zeros(0), np.zeros(m), np.zeros((m, 1))  # fitted sets: none asked
    return {jp.neuron: jp.tau for jp in jumps_of(track, *no_data)}
