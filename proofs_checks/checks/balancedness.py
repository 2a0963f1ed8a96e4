"""Balancedness a_j² − ‖w_j‖²: symbolic proof, exact GD identity, and float64 flows across events."""
from __future__ import annotations

import numpy as np

from relucheck.numerics import datasets, initializations
from relucheck.numerics.flows.batched_gd import GDBatch, descend
from relucheck.numerics.instances import Instance
from relucheck.numerics.network import PAPER_A, paper_b
from relucheck.theory.invariants import gd_step_identity_residual, invariant_derivative

from ..registry import Context, check
from ..result import Outcome, Status, agree
from .flows_in_t import flow_in_t

EPS = np.finfo(float).eps
RTOL, ATOL = 1e-10, 1e-14


@check("A.lemF.1.symbolic", statement="A.lemF.1", precision="exact (SymPy)",
       mutant="claims a_j² − 2‖w_j‖² is conserved instead of a_j² − ‖w_j‖²")
def symbolic_proof(ctx: Context) -> Outcome:
    """SymPy: d/dt(a² − ‖w‖²) simplifies to 0 for any residuals, inputs and activation selection (n = d = 3)."""
    k = 2 if ctx.mutate else 1
    expr = invariant_derivative(3, 3, weight_on_w=k)
    status = Status.VERIFIED if expr == 0 else Status.REFUTED
    return Outcome(status, "0", str(expr)[:200], 0, "exact symbolic identity: the simplified derivative must be 0",
                   f"d/dt(a² − {'' if k == 1 else k}‖w‖²) simplifies to {'0' if expr == 0 else 'a non-zero expression'}")


@check("B.lem1.gd_step_identity", statement="B.lem1", precision="exact (SymPy) + float64",
       mutant="claims gradient descent conserves a_j² − ‖w_j‖² exactly (drops the η²(g_a² − ‖g_w‖²) term)")
def gd_identity(ctx: Context) -> Outcome:
    """Exact per-step identity of GD, symbolically, then along a float64 GD run on B's convention."""
    with_term = not ctx.mutate
    residual = gd_step_identity_residual(2, 2, with_second_order_term=with_term)
    rng = np.random.default_rng([ctx.seed, 11])
    n, d, p, lr = 10, 12, 6, 0.5
    X = datasets.gaussian_inputs(n, d, rng)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    conv = paper_b(p)
    a, W = initializations.paper_b_experiment(p, d, rng)
    worst, scale, before = 0.0, 0.0, {}

    def observe(_k, here, a, W):  # the state after k GD steps and its field (da = −time_factor·g_a)
        nonlocal worst, scale
        q = a**2 - (W**2).sum(1)
        if before:  # the step from the previous state to this one
            predicted = lr**2 * (before["da"] ** 2 - (before["dW"] ** 2).sum(1)) if with_term else 0.0
            worst = max(worst, float(np.max(np.abs((q - before["q"]) - predicted))))
        scale = max(scale, float(np.max(a**2 + (W**2).sum(1))))
        before.update(q=q, da=here.da, dW=here.dW)

    _, last = descend(GDBatch.shared(X, y, convention=conv), a, W, lr, 200, observe=observe)
    observe(200, last, a, W)
    tol = 16 * (d + 2) * EPS * scale
    sym_ok = residual == 0
    out = agree(0.0, worst, tol, "float64 rounding: each squared norm of d+1 terms carries ≤ (d+2)·eps relative error; "
                "×16 for the four squared quantities and their differences, relative to max(a² + ‖w‖²)",
                message=f"symbolic residual {'0' if sym_ok else 'non-zero'}; worst per-step discrepancy over 200 steps")
    return out.require(sym_ok, "the symbolic identity does not simplify to 0")


def _flow_defect_drift(ctx, X, y, a0, W0, t_end, conv):
    """Largest change of a_j² − k‖w_j‖² along the flow (engine "float64", every step end): k = 1 (the invariant),
    k = 2 for the mutant."""
    res = ctx.cached("flow", lambda: flow_in_t(X, y, a0, W0, t_end, conv, rtol=RTOL, atol=ATOL))
    a, W = res.trajectory.a, res.trajectory.W
    k = 2 if ctx.mutate else 1
    q = a**2 - k * (W**2).sum(2)
    drift = float(np.max(np.abs(q - q[0])))
    size = float(np.max(a**2 + (W**2).sum(2)))
    return res, drift, size


def _flow_outcome(ctx, res, drift, size, label):
    steps, events = res.stats["steps"], len(res.events)
    log_size = float(np.abs(res.trajectory.log_norms).max())
    tol = steps * size * (2 * (RTOL * log_size + ATOL) + 4 * (RTOL + ATOL)) + events * 256 * EPS * size
    if not res.success:
        return Outcome(Status.INCONCLUSIVE, 0.0, drift, tol, "", f"flow did not finish: {res.message}")
    return agree(0.0, drift, tol,
                 f"the engine integrates θ_j = e^{{ρ_j}} φ_j (‖φ_j‖ = 1) by DOP853 with local errors ≤ rtol·|ρ_j| + atol on "
                 f"ρ_j and ≤ rtol + atol on φ_j per step (rtol {RTOL:g}, atol {ATOL:g}); the defect e^{{2ρ_j}}(φ_a² − ‖φ_w‖²) "
                 "then moves by ≤ ‖θ_j‖²·(2(rtol·|ρ_j| + atol) + 4(rtol + atol)) per step, summed over the steps; each "
                 "event projects φ_j onto its kink, a change ≤ 64 ε relative (×2 for the square, ×2 margin)",
                 message=f"{label}: {events} activation events, {res.stats['nfev']} field evaluations, {steps} steps",
                 events=events, nfev=res.stats["nfev"])


@check("C.prop1.flow_across_events", statement="C.prop1",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def flow_orthonormal(ctx: Context) -> Outcome:
    """Float64 event-aware flow on orthonormal data with mixed signs: wrong-sign components deactivate (events)."""
    rng = np.random.default_rng([ctx.seed, 12])
    n, d, m = 8, 10, 5
    X = datasets.orthonormal_inputs(n, d, rng)
    y = rng.standard_normal(n)
    G, s = initializations.random_instance_directions(m, d, rng)
    inst = Instance(X, y, G, s)
    a0, W0 = initializations.balanced(inst, 0.3)
    res, drift, size = _flow_defect_drift(ctx, X, y, a0, W0, 60.0, PAPER_A)
    return _flow_outcome(ctx, res, drift, size, "orthonormal data, balanced init λ = 0.3")


@check("B.lem1.flow_across_events", statement="B.lem1",
       mutant="measures a_j² − 2‖w_j‖², which the flow does not conserve")
def flow_gaussian_b(ctx: Context) -> Outcome:
    """Float64 event-aware flow on weakly correlated Gaussian data, B's 1/p convention, B's init."""
    rng = np.random.default_rng([ctx.seed, 13])
    n, d, p = 12, 30, 5
    X = datasets.gaussian_inputs(n, d, rng)
    y = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
    a0, W0 = initializations.paper_b_experiment(p, d, rng)
    res, drift, size = _flow_defect_drift(ctx, X, y, a0, W0, 40.0, paper_b(p))
    return _flow_outcome(ctx, res, drift, size, "Gaussian data N(0, I/d), p = 5")
