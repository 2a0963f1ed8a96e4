"""What `relucheck flow` prints without ``--json`` (`proofs_checks.commands.flow`)."""
from __future__ import annotations


def print_human(result, limit, note) -> None:
    """The flow's answer for a reader: the run, its jumps beside Algorithm 1's (orthonormal data), plateaus, the error
    bounds and what they cover, the work done."""
    from .report import fmt_number  # here: `relucheck flow --help` does not import the report writer (numpy)

    p = result.problem
    step = result.tolerances.get("step_t")
    what = (f"gradient descent, step η = {fmt_number(step, 4)} in t (not the flow: within O(η) of it)"
            if result.engine == "gd" and step is not None else "gradient flow")
    print(f"{what}, engine {result.engine} ({result.precision}), n = {p['n']}, d = {p['d']}, m = {p['m']}, "
          f"λ = {p['lambda']}, ln(1/λ) = {fmt_number(p['log_inv_lambda'], 8)}; τ = t / ln(1/λ); data indices 0-based")
    print(f"status: {result.status.name.lower()} — {result.message}")
    if limit is None:
        print(f"Algorithm 1: not shown — it does not apply: {note}")
        print(f"{'k':>3}  {'τ (flow)':>22}  {'neuron':>6}  fitted (flow)")
        for k, jp in enumerate(result.jumps, start=1):
            print(f"{k:>3}  {_jump_time(result, k - 1):>22}  {jp.neuron:>6}  {fitted_set(jp.fitted)}")
    else:
        predicted = {jp.neuron: jp for jp in limit.jumps}
        L = result.log_inv_lambda
        print(f"{'k':>3}  {'τ (flow)':>22}  {'τ (Alg. 1)':>14}  {'(diff)·ln(1/λ)':>15}  {'neuron':>6}  "
              "fitted (flow) / (Alg. 1)")
        for k, jp in enumerate(result.jumps, start=1):
            lim = predicted.get(jp.neuron)
            tau_lim = fmt_number(lim.tau, 10) if lim else "-"
            scaled = fmt_number((jp.tau - lim.tau) * L, 6) if lim else "-"
            print(f"{k:>3}  {_jump_time(result, k - 1):>22}  {tau_lim:>14}  {scaled:>15}  {jp.neuron:>6}  "
                  f"{fitted_set(jp.fitted)} / {fitted_set(lim.fitted) if lim else '-'}")
        seen = {jp.neuron for jp in result.jumps}
        for jp in limit.jumps:
            if jp.neuron not in seen:
                print(f"  Algorithm 1 jump of neuron {jp.neuron} at τ = {fmt_number(jp.tau, 10)} not seen in the flow")
        print("saddle losses (Alg. 1): " + ", ".join(fmt_number(v) for v in limit.plateaus))
    ties = _ties(result)
    shown = ["— (tie)" if k in ties else fmt_number(v) for k, v in enumerate(result.plateaus)]
    print("plateau losses (flow):  " + ", ".join(shown))
    if ties:
        pairs = ", ".join(f"{k} and {k + 1}" for k in sorted(ties))
        print(f"  jumps {pairs} are at the same τ within their bounds (a tie): the loss between them is a point on one "
              "drop, not a plateau, and is not shown")
    bound = result.errors.get("squared_norm")
    print(f"final loss {fmt_number(result.final_loss)}, interpolates: {'yes' if result.interpolates else 'no'}, "
          f"squared norm "
          f"{fmt_number(result.squared_norm, 8)}" + (f" ± {fmt_number(bound, 2)}" if bound is not None else "")
          + (f" (Alg. 1: {fmt_number(limit.squared_norm, 8)})" if limit else ""))
    errors = result.errors
    if errors.get("jumps") is not None and errors.get("plateaus") is not None:
        print(f"error bounds ({'vouched for by a check run' if errors.get('vouched') else 'not checked'}: "
              f"{errors.get('method')}): "
              + (f"jump times ≤ {fmt_number(max(errors['jumps']), 3)}" if result.jumps else "no jumps")
              + f", plateau losses ≤ {fmt_number(max(errors['plateaus'], default=0.0), 3)}, "
              + ("no events" if not result.events else
                 f"event times ≤ {fmt_number(errors['events'], 3)}" if errors.get("events") is not None
                 else errors.get("events_reason", "event times not vouched for")))
        check = errors.get("check", {})
        rest = check if "extended_to" in check else errors.get("rest", {})  # float64's check run, or mpmath's rerun
        if "extended_to" in rest:
            given = result.problem.get("horizon") is not None
            print(("the run stopped at its horizon" if given else "the run settled by its own rule")
                  + " before the flow was at rest, which moves the jump times (half ‖θ_j‖² at rest) and the last "
                  f"plateau: {'the check run' if rest is check else 'a rerun'} went on to τ = "
                  f"{fmt_number(rest['extended_to'], 4)}, where it was at rest, and the bounds cover the difference"
                  + ("; a longer --horizon gives tighter ones" if given else ""))
    elif errors.get("jumps_reason"):
        print(f"error bounds: {errors['jumps_reason']}; saved losses ≤ "
              f"{fmt_number(max(errors.get('trajectory') or [0.0]), 3)}, final loss ≤ {fmt_number(errors['final_loss'], 3)}")
    elif errors.get("reason"):
        print(f"error bounds: none ({errors['reason']})")
    stats = result.stats
    print(f"events: {len(result.events)}; work: {stats.get('steps', '-')} steps, {stats.get('nfev', '-')} field "
          "evaluations, "
          f"{fmt_number(stats.get('wall_seconds'), 3)} s")
    if "guard_digits" in stats:
        print(f"precision: {stats['digits']} digits; the {stats['guard_digits']}-digit rerun differs by "
              f"{fmt_number(stats['guard_discrepancy'])} (tolerance {fmt_number(stats['guard_tolerance'])})")
    if "escalated_from" in stats:
        first = stats["escalated_from"]
        print(f"escalated from engine {first['engine']} ({first['status']}: {first['message']})")


def _jump_time(result, k: int) -> str:
    """Jump k's time with its vouched bound, to the digits the bound warrants (one below its first): 4.97937 ± 9e-6;
    10 digits, as computed, where no bound was vouched for (the output says why)."""
    from .reader_text import significant_digits
    from .report import fmt_number

    tau, bounds = result.jumps[k].tau, result.errors.get("jumps")
    if not bounds or bounds[k] is None or not bounds[k] > 0:
        return fmt_number(tau, 10)
    return f"{fmt_number(tau, significant_digits(tau, bounds[k], low=2, high=12))} ± {fmt_number(bounds[k], 2)}"


def fitted_set(indices) -> str:
    """The data a jump fits as the paper writes a set (S_k of C's Algorithm 1): {0, 3}, or ∅ — not a Python list."""
    items = sorted(int(i) for i in indices)
    return "{" + ", ".join(str(i) for i in items) + "}" if items else "∅"


def _ties(result) -> set:
    """Indices k of the plateaus between two jumps (k and k + 1, 1-based) whose times are the same within their
    bounds (without bounds: within 1e-9 relative): the loss there is read on one drop (a new user, session 31: 0.1251,
    0.161 and 0.1311 for the same tie at three tolerances, each within its own bound)."""
    taus = [jp.tau for jp in result.jumps]
    bounds = result.errors.get("jumps") or [0.0] * len(taus)
    return {k + 1 for k in range(len(taus) - 1)
            if abs(taus[k + 1] - taus[k]) <= bounds[k] + bounds[k + 1] + 1e-9 * max(1.0, abs(taus[k]))}
