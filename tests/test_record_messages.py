"""A check's message is read by a person (the terminal of `relucheck run`, report.md, results.json, `relucheck show`):
prose with rounded numbers, never a programme's repr (a dict, a list of dicts or tuples, np.float64(…), True/False,
a 17-digit float) or an internal name (a module path, an enum value, "tau"). `programme_text` finds such a fragment;
it is tested on reprs it must catch and on reader's texts it must pass, then run on the records of a cheap subset of
the default suite (checks and their mutants, in-process, a few seconds) whose messages used to carry reprs."""
import re

import numpy as np
import pytest

from relucheck.proofs_checks.reader_text import event_sequence, plain, plain_interval, plain_list
from relucheck.proofs_checks.registry import get_check
from relucheck.proofs_checks.result import Outcome, Status
from relucheck.proofs_checks.runner import run_checks

_PROGRAMME = [
    (re.compile(r"\{\s*['\"]"), "a dict repr"),
    (re.compile(r"\[\s*[\[({'\"]"), "a list of lists, tuples, dicts or strings"),
    (re.compile(r"\[[^\[\]]*,[^\[\]]*,[^\[\]]*\]"), "a list repr (an interval has two ends)"),
    (re.compile(r"\bnp\.|\barray\(|\bMatrix\(|\bmpf\(|\+/-"), "a NumPy, SymPy, mpmath or Arb repr"),
    (re.compile(r"\b(?:True|False|None)\b"), "True/False/None instead of words"),
    (re.compile(r"\btau\b"), "'tau' instead of τ"),
    (re.compile(r"\b(?:relucheck|theory|numerics|proofs_checks)\.[a-z_]+"), "a module name"),
    (re.compile(r"\b[a-z]{2,}_[a-z]{2,}\w*"), "a programme identifier (snake_case)"),
    (re.compile(r"\*\*|\w\*[\w(]|\b[a-z_]+\(\)"), "programme syntax (a*b, x**2, a call f())"),
]
_LONG_FLOAT = re.compile(r"(?<![\d.])\d+\.\d{12,}")  # a float64 repr: 0.7000000000000001, 0.051069782182961175


def programme_text(message: str) -> str | None:
    """The first fragment of ``message`` a programme wrote rather than an author, with what it is; None for prose.
    A float with 12 or more decimals is one, unless the message says its digits are the point ("… 25 digits")."""
    for pattern, what in _PROGRAMME:
        m = pattern.search(message)
        if m:
            return f"{what}: {m.group(0)!r}"
    m = _LONG_FLOAT.search(message)
    if m and "digits" not in message:
        return f"an unrounded float: {m.group(0)!r}"
    return None


@pytest.mark.parametrize("message", [
    "stopping statuses {'d=3,n=6': ['budget', 'interpolating']}",
    "L_OLS − L = [np.float64(0.001016059250572715), np.float64(0.002800093803962525)]",
    "runs [{'instance': 'golden', 'basis': 'data', 'steps': 78}]",
    "misalignment [[0.131171770877476, 0.7803040279577521], [0.0369, 0.655]]",
    "every wrong-sign component deactivated by an event: True",
    "theory.first_jump (float64) 0.700247258235891",
    "extinction at t = 0.7000000000000001, t̃ = 3.25",
    "median/(2√(n/d)) = [(5, 1000, 0.714), (5, 10000, 0.662)]",
    "E_n = [0.2786, 0.1716, 0.0849]",
    "5 events (['deactivate', 'deactivate', 'activate'])",
    "4 events: slide, leave_up",
    "E[1{⟨w,x⟩>0} x xᵀ] − ½ I = Matrix([[0, 0], [0, 0]])",
    "final loss ∈ [0.013164090077960537093 +/- 2.42e-22]",
    "at tau = 2.83",
    "array([1., 2.])",
    "(67) leaves the residual -c*(rho0**2 - 1)/(2*(rho0*sinh(c*t) + cosh(c*t))**2)",
    "targeted search (hypothesis target(), 66 cases)",
])
def test_programme_text_catches_reprs(message):
    assert programme_text(message) is not None, message


@pytest.mark.parametrize("message", [
    "min ratio L/L_OLS at (d, n) = (3, 6): 8.77e-05; at (2, 96), (3, 144): 0.979, 0.9247",
    "200/200 converged (95% CI [0.982, 1.000]), 198 in 𝓘, p = 24",
    "E[1{⟨w,x⟩>0} x xᵀ] − ½ I = 0 (the 2×2 zero matrix)",
    "C_1 = 0.7002472582358913765730808 (closed form) to 25 digits",
    "sup|ũ − u|·ln(1/λ) at λ = 1e-20, 1e-40, 1e-80: golden instance 0.304, 0.288, 0.288",
    "at iteration 1 neurons 0 and 1 tie at τ = 2⋅√2 ≈ 2.828",
    "max error 0 vs tolerance 1.38e-18. C_1 predicted 0.7737903086 vs measured 0.7737903087",
])
def test_programme_text_passes_prose(message):
    assert programme_text(message) is None, programme_text(message)


def test_a_fake_outcome_with_a_repr_is_caught_and_the_formatters_write_none():
    """The mutant: an outcome whose message is built the old way is caught; built with the formatters, it passes."""
    values = [np.float64(0.001016059250572715), np.float64(0.002800093803962525)]
    old = Outcome(Status.VERIFIED, 0.0, values, 1e-8, "reason", f"L_OLS − L = {values}; interpolates: {True}")
    assert programme_text(old.message) is not None
    new = Outcome(Status.VERIFIED, 0.0, values, 1e-8, "reason", f"L_OLS − L = {plain_list(values)}; interpolates: "
                  f"{plain(True)}")
    assert programme_text(new.message) is None and new.message == "L_OLS − L = 0.001016, 0.0028; interpolates: yes"
    assert plain(0.7000000000000001) == "0.7" and plain(12345.6) == "12350" and plain(np.int64(5)) == "5"
    assert plain_list([[0.131171770877476, 0.7803040279577521], [0.0369, 0.655]]) == "0.1312, 0.7803; 0.0369, 0.655"
    assert event_sequence(["deactivate", "deactivate", "activate", "leave_up"]) == \
        "deactivation ×2, activation, exit from sliding to the active side"


@pytest.mark.parametrize("lo, hi, text", [
    (1.66499880519031, 1.66499883055839, "[1.664998805, 1.664998831]"),  # outward: floor, ceiling
    ("0.926747913982190", "0.926747926580023", "[0.926747913, 0.926747927]"),
    (0.00121, 0.00398, "[0.001210, 0.003980]"),  # a float's shortest decimal is its value: not moved outward
    (0.982, 1.0, "[0.982, 1.000]"),
])
def test_plain_interval_rounds_outward_to_the_digits_its_width_warrants(lo, hi, text):
    assert plain_interval(lo, hi) == text


# Default checks whose messages carried reprs, each under ~1 s of CPU with its mutant (shared runs are cached).
# CPU seconds (check + mutant, registry loaded; 2-core machine at load ~4): A.thm4.1.two_piece_limit 0.3, C.lem9 1.0,
# B.lem1.mpmath_across_events 0.6, C.thm2.arb_certified_events 0.5, C.asm2 0.4, the others ≤ 0.35: about 4 s in all.
CHEAP = ["A.lemF.2.D_infinity", "A.lemF.5.logistic", "A.thm3.1.rate", "A.thm4.1.two_piece_limit", "C.lem3.early_phase",
         "C.asm2.frozen_components", "C.lem9.final_parameters", "B.lem1.mpmath_across_events",
         "B.prop2.group_closed_form_30_digits", "C.thm2.arb_certified_events"]


@pytest.fixture(scope="module")
def cheap_records():
    return run_checks([get_check(cid) for cid in CHEAP], seed=0, mutate=True, progress=False)


def test_cheap_default_checks_write_messages_for_a_reader(cheap_records):
    assert len(cheap_records) == 2 * len(CHEAP)
    found = {(r.check, "mutant" if r.mutant else "check"): programme_text(r.message) for r in cheap_records}
    bad = {k: v for k, v in found.items() if v}
    assert not bad, bad
    assert all(r.status is not Status.ERROR for r in cheap_records), [r.message for r in cheap_records]
