"""`relucheck limit-process INSTANCE.json [--exact] [--json]`: Algorithm 1 of paper C on an instance file.

The instance must have orthonormal inputs (paper C, Assumption 1); activation = ⟨ḡ_j, x_i⟩ > 0. Output:
the jumps (τ_k, neuron j_k, fitted data S_k, ‖y_{S_k}‖), the saddle losses, whether the limit interpolates,
‖θ_∞‖² (eq. 15) and ‖θ*‖², the ties of Assumption 4(ii) (with a warning) and the final parameters.
``--exact`` runs the SymPy version (exact algebraic values, as strings with their float values).
"""
from __future__ import annotations

import json
import sys


def _exact_json(instance) -> dict:
    from relucheck.theory.limit_process_exact import limit_process_exact

    instance.require_orthonormal()
    return limit_process_exact(instance.labels.tolist(), instance.signs.tolist(), instance.activation()).to_json()


def _value(x):
    return x["value"] if isinstance(x, dict) else x


def _print_table(result: dict, exact: bool) -> None:
    from relucheck.theory.limit_process import RATE_CONSTANT_NOTE

    from ..report import fmt_number

    print(f"Algorithm 1 (paper C), convention: {RATE_CONSTANT_NOTE}; τ = t / ln(1/λ); data indices 0-based")
    print(f"{'k':>3}  {'tau_k':>14}  {'neuron':>6}  {'||y_S||':>12}  {'loss after':>12}  fitted data")
    plateaus = result["loss_plateaus"]
    print(f"{0:>3}  {fmt_number(0.0):>14}  {'-':>6}  {'-':>12}  {fmt_number(_value(plateaus[0])):>12}")
    for k, jp in enumerate(result["jumps"], start=1):
        tau = jp["tau"]["exact"] if exact else fmt_number(jp["tau"], 10)
        print(f"{k:>3}  {tau:>14}  {jp['neuron']:>6}  {fmt_number(_value(jp['norm_y'])):>12}  "
              f"{fmt_number(_value(plateaus[k])):>12}  {jp['fitted']}")
    sq, mn = result["squared_norm"], result["min_norm_squared"]
    print(f"interpolates: {result['interpolates']}")
    print(f"squared norm ||theta_inf||^2 = {sq['exact'] + ' = ' if exact else ''}{fmt_number(_value(sq), 10)}")
    print(f"minimum norm ||theta*||^2 = {mn['exact'] + ' = ' if exact else ''}{fmt_number(_value(mn), 10)}"
          f"  (ratio {fmt_number(_value(sq) / _value(mn), 6)})")


def _run(args) -> int:
    from relucheck.numerics.instances import load_instance  # imported here: `relucheck --help` loads no numpy (issue 22)
    from relucheck.numerics.schema import naming
    from relucheck.theory.limit_process import limit_process_of

    instance = load_instance(args.instance, orthonormal=True)
    with naming(f"instance file {args.instance}"):  # Algorithm 1's hypotheses (Assumption 4) are the file's too
        result = _exact_json(instance) if args.exact else limit_process_of(instance).to_json()
    for tie in result["ties"]:
        print(f"relucheck: warning: Assumption 4(ii) violated: tie between neurons "
              f"{', '.join(str(j) for j in tie['neurons'])} at jump {tie['iteration']} (τ = {_value(tie['tau'])}); "
              f"continuing with neuron {tie['neurons'][0]}",
              file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _print_table(result, args.exact)
    return 0


def register(sub) -> None:
    p = sub.add_parser("limit-process", help="Algorithm 1 of paper C (the limit saddle-to-saddle process) on an instance")
    p.add_argument("instance", help="instance JSON file with orthonormal inputs (paper C, Assumption 1)")
    p.add_argument("--exact", action="store_true", help="exact SymPy arithmetic (small instances)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
