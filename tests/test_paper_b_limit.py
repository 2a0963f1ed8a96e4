"""B Theorem 2 against the extrapolated n → ∞ limit (`proofs_checks/checks/paper_b_limit.py`, issue 24): both checks
hold and their mutants are refuted; the first-order coefficient is the corrected derivation's; a ladder on which
the extrapolation does not settle gives inconclusive, never a verdict."""
import math

import mpmath
import pytest

from relucheck.proofs_checks.checks import paper_b_limit as b
from relucheck.proofs_checks.registry import Context, get_check
from relucheck.proofs_checks.result import Status
from relucheck.proofs_checks.runner import run_checks


@pytest.mark.parametrize("check_id", ["B.thm2.transition_time_limit", "B.thm2.transition_time_first_order"])
def test_holds_and_its_mutant_is_refuted(check_id):
    real, mutant = run_checks([get_check(check_id)], seed=0, mutate=True, progress=False)
    assert real.status is Status.VERIFIED, real.message
    assert mutant.status is Status.REFUTED and mutant.caught, f"mutant not caught: {mutant.message}"


def test_limits_are_one_over_norm_with_small_bars_and_the_coefficient_is_closed_form():
    """Every quantity concludes; the bars are those of a law a + C₁x with exponentially small rest (float64 rounding
    through the extrapolation: under 1e-12), and the fitted C₁ is the closed form within its bar."""
    data = b.ladders()
    for key, est in b._estimates().items():
        assert est.ok, est.reason
        assert abs(est.value - 1 / key[0]) <= est.error < 1e-12
        fitted, bar = b._coefficient(est, data[key][1])
        assert abs(fitted - float(b.first_order(*key))) <= bar < 1e-10
        assert key[1] == "1" or abs(fitted - float(b.first_order(*key, paper=True))) > 1e3 * bar


def test_first_order_law_holds_to_60_digits_at_log_np_300():
    """Beyond float64: at log(np) = 300 the 60-digit ratio is 1/‖D‖ + C₁/log(np) up to the rest O(ct/P) ≈
    300·e^{−150} ≈ 2e-63 and the 60-digit arithmetic (10^(5−60)): below 1e-50 for every quantity."""
    from relucheck.proofs_checks.checks.paper_b_transitions import _crossing

    L = 300
    with mpmath.workdps(b.DPS):
        n = mpmath.exp(L) / b.P_NEURONS
        t_n = mpmath.sqrt(n * b.P_NEURONS) / 4 * L
        for norm in b.NORMS:
            for rho0 in b.RHO0S:
                for level in b.LEVELS:
                    norm_, rho0_ = mpmath.mpf(norm), mpmath.mpf(rho0)
                    t = _crossing(mpmath.mpf(level) / 2 * norm_**2, n, b.P_NEURONS, norm_, rho0_, b.N0)
                    assert abs(t / t_n - 1 / norm_ - b.first_order(norm, rho0, level) / L) < 1e-50


def test_window_from_the_coefficients_is_the_corrected_constant():
    """C₁(ε) − C₁(1−ε) = (2/‖D‖) log C(ε) exactly in closed form (3.688 for ‖D‖ = 2, ε = 0.1)."""
    with mpmath.workdps(50):
        for norm in b.NORMS:
            diff = b.first_order(norm, "0.3", b.LEVELS[0]) - b.first_order(norm, "0.3", b.LEVELS[1])
            eps = mpmath.mpf(b.EPS)
            assert mpmath.almosteq(diff, b.window_constant_corrected(eps, mpmath.mpf(norm)), rel_eps=1e-45)
    out = b.transition_time_first_order(Context())
    for row in out.details["windows"].values():
        assert row["fitted_C1(ε) − C1(1−ε)"] == pytest.approx(row["corrected (2/‖D‖) log C(ε)"], abs=1e-9)


def test_unsettled_ladder_is_inconclusive(monkeypatch):
    """A ladder with a λ^c-like rest e^{−L/500} (not negligible on 10²…10⁴) does not settle: inconclusive, not a
    verdict, for the check and its mutant."""
    fake = {}
    for key in b.ladders():
        samples = [1 / key[0] + 1.5 / L + 0.3 * math.exp(-L / 500) for L in b.LADDER]
        fake[key] = (samples, [1e-16] * len(samples))
    monkeypatch.setattr(b, "ladders", lambda: fake)
    for fn in (b.transition_time_limit, b.transition_time_first_order):
        for mutate in (False, True):
            out = fn(Context(mutate=mutate))
            assert out.status is Status.INCONCLUSIVE, (fn.__name__, mutate, out.message)
