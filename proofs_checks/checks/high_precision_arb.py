"""Validated enclosures (python-flint arb, `numerics.arb_enclosure`) against the flow engine "mpmath" run 10 digits
finer (its λ then lies inside the arb ball of λ, and its own error is below the enclosure's): the trajectory, a
certified jump time, and certified events (spec C §2.6, C.prop1, C.thm2)."""
from __future__ import annotations

import functools

import mpmath
import numpy as np
from flint import arb

from relucheck.numerics.arb_enclosure import certified_crossing, enclose_instance
from relucheck.numerics.flows import FlowProblem, solve
from relucheck.numerics.mp_arrays import _mpf_to_arb, flint_precision
from relucheck.theory.limit_process import limit_process_of

from ..registry import Context, check
from ..reader_text import plain_interval
from ..result import Outcome, Status
from .high_precision import mixed_sign_instance
from .paper_c_flow import golden_instance

LAM_ARB, DIGITS_ARB, ORDER_ARB, TAU_ARB = "1e-3", 30, 35, 1.3
SAMPLES = 33


def _enclosed_with_reference(inst, lam_text, tau_end, digits, order):
    """Arb enclosure of C's flow on ``inst`` to ``tau_end`` and an engine "mpmath" run 10 digits finer (data basis,
    a and W sampled exactly at `SAMPLES` equally spaced times)."""
    enc = enclose_instance(inst, lam_text, tau_end, digits=digits, order=order)
    problem = FlowProblem.from_instance(inst, lam_text, horizon=tau_end, save_at=tuple(np.linspace(0, tau_end, SAMPLES)))
    run = solve(problem, "mpmath", digits=digits + 10, exact_samples=True, save_params=True)
    return enc, run


def a_squared_crossing(run, neuron: int, level):
    """The run's first τ with a_j(τ)² ≥ ``level`` at working precision: ‖θ_j‖² = 2a_j² − q_j with q_j = 0 (the
    start a_j(0) = s_j λ‖ḡ_j‖ is balanced exactly and q_j is conserved, C Prop. 1), located on the engine's exact
    interpolant of ln‖θ_j‖ (`NormTrack.first_crossing`)."""
    with mpmath.workdps(run.stats["digits"]):
        return run.track.first_crossing(neuron, mpmath.log(2 * mpmath.mpf(level)) / 2)


@functools.cache
def _enclosure_and_reference():
    """The golden example at λ = 1e-3 on [0, 1.3] (`_enclosed_with_reference`); computed once per process for the
    two checks that read it (`runner.SHARED_RUNS`), which never change it."""
    inst = golden_instance()
    return (inst, *_enclosed_with_reference(inst, LAM_ARB, TAU_ARB, DIGITS_ARB, ORDER_ARB))


def _outside(enc, run, mutate: bool):
    """Samples of the mpmath run (a and Z = W, x_i = e_i) not contained in the enclosure; the mutant moves the middle
    sample's a_0 by three enclosure widths."""
    bad, widest = [], 0.0
    mid = len(run.trajectory.tau) // 2
    with flint_precision(DIGITS_ARB + 10), mpmath.workdps(DIGITS_ARB + 10):
        for k, (tau, a, W) in enumerate(zip(run.trajectory.tau, run.trajectory.a, run.trajectory.W, strict=True)):
            box_a, box_Z = enc.state_at(_mpf_to_arb(mpmath.mpf(float(tau))))
            widest = max(widest, max(float(x.rad()) for x in box_a))
            values = list(a)
            if mutate and k == mid:
                values[0] = values[0] + 3 * 2 * mpmath.mpf(float(box_a[0].rad())) + mpmath.mpf(10) ** -DIGITS_ARB
            points = [(box_a[j], values[j]) for j in range(len(values))]
            points += [(box_Z[i, j], W[j][i]) for i in range(box_Z.shape[0]) for j in range(box_Z.shape[1])]
            if not all(box.contains(_mpf_to_arb(v)) for box, v in points):
                bad.append(k)
    return bad, widest


def _ball(text: str) -> str:
    """Arb's ball '[0.0131640900779605 +/- 2.42e-22]' as 0.0131640900779605 ± 2.42e-22."""
    return text.strip().removeprefix("[").removesuffix("]").replace(" +/- ", " ± ")


@check("C.prop1.arb_certified_trajectory", statement="C.prop1", precision=f"arb {DIGITS_ARB} digits (validated)",
       mutant="one sample of the mpmath trajectory moved by three enclosure widths (outside the certified box)")
def arb_certified_trajectory(ctx: Context) -> Outcome:
    """Validated enclosure (golden, λ = 1e-3): the invariant's enclosure contains q_j(0) with width ≤ 10^-(digits−10)
    at every step end, the loss is enclosed, and every sample of an independent mpmath Taylor run lies inside."""
    inst, enc, run = ctx.cached("arb", _enclosure_and_reference)
    bad, widest = _outside(enc, run, ctx.mutate)
    inv_ok = all(b.contains(q0) for bal in enc.balance for b, q0 in zip(bal, enc.balance[0], strict=False))
    inv_width = max(float(b.rad()) for bal in enc.balance for b in bal)
    loss_width = max(float(v.rad()) for v in enc.losses)
    tol = 10.0 ** -(DIGITS_ARB - 10)
    status = Status.VERIFIED if not bad and inv_ok and inv_width <= tol else Status.REFUTED
    return Outcome(status, "all samples inside; q_j(0) ∈ enclosure of q_j(τ)", {"samples_outside": bad},
                   tol, f"containment is exact (interval arithmetic); the invariant's certified width must be ≤ "
                        f"10^-(digits−10) = {tol:g} to call the conservation certified at that accuracy",
                   f"{len(enc.steps)} validated steps of order {ORDER_ARB}; {len(run.trajectory.tau)} mpmath samples, "
                   f"{len(bad)} outside; widest a-enclosure radius {widest:.3g}; invariant width {inv_width:.3g}, "
                   f"loss width {loss_width:.3g}; final loss {_ball(enc.losses[-1].str(20, radius=True))} (a certified "
                   "ball, midpoint to 20 digits)",
                   f"arb {DIGITS_ARB} digits", {"steps": len(enc.steps), "invariant_width": inv_width,
                                               "loss_width": loss_width, "widest_a_radius": widest})


@check("C.thm2.arb_certified_jump_time", statement="C.thm2", precision=f"arb {DIGITS_ARB} digits (validated)",
       mutant="the mpmath half-fit time shifted by twice the certified bracket's width")
def arb_certified_jump_time(ctx: Context) -> Outcome:
    """Golden, λ = 1e-3: the first τ with a_{j1}² ≥ ‖y_S1‖/2 lies in a certified bracket, which must contain the
    mpmath engine's root of the same equation (spec C §2.6's half-fit rule with the limit value)."""
    inst, enc, run = ctx.cached("arb", _enclosure_and_reference)
    jp = limit_process_of(inst).jumps[0]
    level = arb(5) / 2  # ‖y_S1‖² = 3² + 4² exactly: half of ‖y_S1‖ = 5
    assert abs(jp.norm_y - 5.0) < 1e-12, "golden example: ‖y_S1‖ = 5"
    bracket = ctx.cached("bracket", lambda: certified_crossing(enc, jp.neuron, level))
    if bracket is None:
        return Outcome(Status.INCONCLUSIVE, None, None, None, "", "no certified bracket (crossing not transversal?)")
    lo, hi = bracket
    digits = run.stats["digits"]
    with mpmath.workdps(digits):
        tau = a_squared_crossing(run, jp.neuron, mpmath.mpf(5) / 2)
        width = mpmath.mpf(float((hi - lo).mid()))
        if ctx.mutate:
            tau = tau + 2 * width + mpmath.mpf(10) ** -DIGITS_ARB
        with flint_precision(digits):
            inside = bool(lo <= _mpf_to_arb(tau) and _mpf_to_arb(tau) <= hi)
    status = Status.VERIFIED if inside else Status.REFUTED
    return Outcome(status, [lo.str(20, radius=False), hi.str(20, radius=False)], mpmath.nstr(tau, 25), float(width),
                   "containment in a certified interval is exact; the bracket's width (h/32^4 pieces) is reported",
                   f"certified τ̂_1 ∈ {plain_interval(lo.str(25, radius=False), hi.str(25, radius=False))} (rounded "
                   f"outward; width {float(width):.3g}); mpmath: {mpmath.nstr(tau, 11)}; λ = {LAM_ARB}",
                   f"arb {DIGITS_ARB} digits",
                   {"bracket_width": float(width)})


# validated enclosure through deactivation events (mixed-sign instance)
LAM_EVENTS, DIGITS_EVENTS, ORDER_EVENTS = "1e-2", 30, 30


def _events_enclosure_and_reference(seed):
    """Arb enclosure of the mixed-sign instance through its deactivation events to τ_1 + 0.3 (λ = 1e-2), and an
    mpmath run 10 digits finer in the same data basis."""
    inst = mixed_sign_instance(seed)
    jp = limit_process_of(inst).jumps[0]
    return (inst, jp, *_enclosed_with_reference(inst, LAM_EVENTS, jp.tau + 0.3, DIGITS_EVENTS, ORDER_EVENTS))


@check("C.thm2.arb_certified_events", statement="C.thm2", precision=f"arb {DIGITS_EVENTS} digits (validated)",
       mutant="every mpmath event time shifted by twice its certified interval's width")
def arb_certified_events(ctx: Context) -> Outcome:
    """Validated enclosure across events (mixed-sign orthonormal instance, λ = 1e-2, to τ_1 + 0.3): each
    deactivation is certified inside an interval that must contain the mpmath engine's event (same neuron and
    datum, same order), the invariant q_j(0) lies in every enclosure of q_j(τ), and the first jump's half-fit time
    after the events lies in a certified bracket that must contain the mpmath root."""
    inst, jp, enc, run = ctx.cached(("arb-events", ctx.seed), lambda: _events_enclosure_and_reference(ctx.seed))
    certified = [(j, i) for _, _, j, i in enc.events]
    computed = [(e.neuron, e.datum) for e in run.events]
    if certified != computed:
        return Outcome(Status.REFUTED, certified, computed, 0, "the same events in the same order",
                       "the enclosure and the mpmath engine disagree on the events")
    digits = run.stats["digits"]
    level_mp = mpmath.mpf(jp.norm_y) / 2
    bracket = ctx.cached(("arb-events-bracket", ctx.seed),
                         lambda: certified_crossing(enc, jp.neuron, arb(mpmath.nstr(level_mp, 45))))
    if bracket is None:
        return Outcome(Status.INCONCLUSIVE, None, None, None, "", "no certified bracket of the half-fit time")
    inside, widths = [], []
    with mpmath.workdps(digits), flint_precision(digits):
        times = [e.exact for e in run.events] + [a_squared_crossing(run, jp.neuron, level_mp)]
        intervals = [(lo, hi) for lo, hi, _, _ in enc.events] + [bracket]
        for t, (lo, hi) in zip(times, intervals, strict=True):
            width = mpmath.mpf(float((hi - lo).mid()))
            widths.append(float(width))
            if ctx.mutate:
                t = t + 2 * width + mpmath.mpf(10) ** -DIGITS_EVENTS
            inside.append(bool(lo <= _mpf_to_arb(t) and _mpf_to_arb(t) <= hi))
    inv_ok = all(b.contains(q0) for bal in enc.balance for b, q0 in zip(bal, enc.balance[0], strict=True))
    status = Status.VERIFIED if all(inside) and inv_ok else Status.REFUTED
    lo, hi = bracket
    return Outcome(status, [f"[{a.str(12, radius=False)}, {b.str(12, radius=False)}]" for a, b in intervals],
                   [mpmath.nstr(t, 15) for t in times], max(widths),
                   "containment in a certified interval is exact; the widths of the event intervals (bisection to the "
                   "working precision) and of the bracket (h/32^4 pieces) are reported",
                   f"{len(enc.events)} certified events of widths {', '.join(f'{w:.2g}' for w in widths[:-1])}; "
                   f"half-fit τ ∈ {plain_interval(lo.str(25, radius=False), hi.str(25, radius=False))} (rounded outward); "
                   f"{len(enc.steps)} validated steps; "
                   + ("every mpmath time lies inside its certified interval" if all(inside) else
                      f"{len(inside) - sum(inside)} of {len(inside)} mpmath times lie outside their certified intervals")
                   + ("; q_j(0) lies in every enclosure of q_j(τ)" if inv_ok else "; q_j(0) leaves an enclosure of q_j(τ)")
                   + f"; λ = {LAM_EVENTS}",
                   f"arb {DIGITS_EVENTS} digits", {"events": len(enc.events), "widths": widths})
