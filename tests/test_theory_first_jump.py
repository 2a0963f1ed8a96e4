"""Direct unit tests of `theory.first_jump` (paper C's first-jump constant, spec C §2.6).

The piecewise-linear system of the module docstring is integrated independently here with SciPy's DOP853 and
terminal events, and κ, C_1 and the event times are compared with that integration and with hand values.
"""
import math

import numpy as np
import pytest
import sympy
from scipy.integrate import solve_ivp

from relucheck.numerics.instances import Instance
from relucheck.theory import first_jump as fj
from relucheck.theory.limit_process import limit_process_of


def integrate_linear_system(g, y, s, t_end, *, settle=None):
    """dz_i/dt = (s y_i/n) α 1{z_i > 0}, dα/dt = (s/n) Σ y_i z_i 1{z_i > 0}, α(0) = 1, z(0) = g, by DOP853.

    A wrong-sign component (s y_i < 0) that reaches 0 is frozen there (terminal event, restart). With
    ``settle`` the run continues ``settle``/γ past the last event and also returns α(T) e^{−γT} (→ κ).
    """
    g, y = np.asarray(g, float), np.asarray(y, float)
    n = len(y)
    b = s * y / n
    active = g > 0
    state = np.concatenate([[1.0], g])
    t, events = 0.0, []
    while True:
        mask = active.copy()

        def rhs(_t, u, active=mask):
            z = u[1:]
            return np.concatenate([[b[active] @ z[active]], np.where(active, b * u[0], 0.0)])

        wrong = np.flatnonzero(active & (b < 0))
        hooks = []
        for i in wrong:
            def hit(_t, u, i=i):
                return u[1 + i]
            hit.terminal, hit.direction = True, -1
            hooks.append(hit)
        if wrong.size == 0 and settle is not None:
            gamma = float(np.linalg.norm(b[active]))
            t_end = t + settle / gamma
        sol = solve_ivp(rhs, (t, t_end), state, method="DOP853", rtol=1e-13, atol=1e-15, events=hooks or None)
        state = sol.y[:, -1].copy()
        t = float(sol.t[-1])
        if sol.status == 1:
            k = next(k for k, times in enumerate(sol.t_events) if len(times))
            i = int(wrong[k])
            state[1 + i] = 0.0
            active[i] = False
            events.append(t)
            continue
        if settle is not None:
            return state[0], state[1:], events, state[0] * math.exp(-gamma * t)
        return state[0], state[1:], events


# -- κ closed form ---------------------------------------------------------------------------------

def test_kappa_closed_form_by_hand():
    g = np.array([0.5, 0.9, 0.5, -0.2])
    y = np.array([3.0, -7.0, 4.0, 1.0])
    # S = {0, 2}: ‖y_S‖ = 5, Σ|y_i| g_i = 1.5 + 2 = 3.5, κ = (1 + 0.7)/2
    assert fj.kappa_closed_form(g, y, [0, 2]) == pytest.approx(0.85, abs=1e-15)
    # |y_i| not y_i: negative labels on S give the same κ
    assert fj.kappa_closed_form(g, -y, [0, 2]) == pytest.approx(0.85, abs=1e-15)
    assert fj.kappa_closed_form(g, y, (0,)) == pytest.approx(0.75, abs=1e-15)
    assert isinstance(fj.kappa_closed_form(g, y, np.array([0, 2])), float)


# -- the linear system -------------------------------------------------------------------------------

def test_linear_phase_at_infinity_without_wrong_sign_returns_the_start_and_kappa():
    g = np.array([0.6, 0.0, 0.8, -0.3])
    y = np.array([1.0, -2.0, 3.0, -4.0])
    phase = fj.linear_phase(g, y, 1.0)
    assert phase.alpha == 1.0 and phase.events == []
    np.testing.assert_array_equal(phase.z, g)
    assert phase.kappa == pytest.approx(fj.kappa_closed_form(g, y, [0, 2]), rel=1e-14)
    # the same neuron with s = −1 on the opposite labels
    other = fj.linear_phase(g, -y, -1.0)
    assert other.kappa == pytest.approx(phase.kappa, rel=1e-14)
    kappa, events = fj.kappa_linear_system(g, y, 1.0)
    assert (kappa, events) == (phase.kappa, [])


@pytest.mark.parametrize("t_end", [0.0, 0.3, 2.5])
def test_linear_phase_at_a_finite_time_matches_the_closed_form_and_the_integration(t_end):
    g = np.array([0.6, 0.0, 0.8, -0.3])
    y = np.array([1.0, 2.0, 3.0, -4.0])
    n = 4
    phase = fj.linear_phase(g, y, 1.0, t_end)
    assert math.isnan(phase.kappa) and phase.events == []
    b = np.array([1.0, 0.0, 3.0, 0.0]) / n
    beta = np.linalg.norm(b)
    v0 = (b / beta) @ g
    alpha = math.cosh(beta * t_end) + v0 * math.sinh(beta * t_end)
    z = g + b / beta * (math.sinh(beta * t_end) + v0 * (math.cosh(beta * t_end) - 1))
    assert phase.alpha == pytest.approx(alpha, rel=1e-14)
    np.testing.assert_allclose(phase.z, z, rtol=1e-14, atol=1e-15)
    assert phase.z[1] == 0.0 and phase.z[3] == -0.3
    a_ode, z_ode, events = integrate_linear_system(g, y, 1.0, t_end) if t_end > 0 else (1.0, g, [])
    assert events == []
    assert phase.alpha == pytest.approx(a_ode, rel=1e-11)
    np.testing.assert_allclose(phase.z, z_ode, rtol=1e-11, atol=1e-13)


WRONG_CASES = [  # (g, y, s): at least one correct-sign active component, wrong-sign ones that die
    ([0.6, 0.64, 0.48, 0.0], [2.0, -1.0, 1.0, -3.0], 1.0),
    ([0.3, 0.5, 0.2, 0.7, -0.1], [1.5, -0.4, -2.0, 0.7, 1.0], 1.0),
    ([0.3, 0.5, 0.2, 0.7, 0.2], [-1.5, 0.4, 2.0, -0.7, 0.3], -1.0),
    ([0.1, 0.9, 0.4], [3.0, -0.2, -0.5], 1.0),
]


@pytest.mark.parametrize("g, y, s", WRONG_CASES)
def test_wrong_sign_events_and_kappa_match_an_independent_integration(g, y, s):
    g, y = np.array(g), np.array(y)
    phase = fj.linear_phase(g, y, s)
    wrong = (g > 0) & (s * y < 0)
    alpha, _, events, kappa = integrate_linear_system(g, y, s, math.inf, settle=18.0)
    assert len(phase.events) == len(events) == int(wrong.sum())
    np.testing.assert_allclose(phase.events, events, rtol=1e-10)
    assert phase.kappa == pytest.approx(kappa, rel=1e-9)
    assert (phase.kappa, phase.events) == fj.kappa_linear_system(g, y, s)
    # just after the last event every wrong-sign component is frozen at 0, the others unchanged if inactive
    after = fj.linear_phase(g, y, s, events[-1] * (1 + 1e-9) + 1e-12)
    assert np.all(after.z[wrong] == 0.0)
    np.testing.assert_array_equal(after.z[g <= 0], g[g <= 0])
    assert after.events == pytest.approx(events, rel=1e-10)
    # before the first event nothing is frozen, and the state is the integration's
    half = events[0] / 2
    before = fj.linear_phase(g, y, s, half)
    a_ode, z_ode, ev = integrate_linear_system(g, y, s, half)
    assert before.events == [] == ev
    assert before.alpha == pytest.approx(a_ode, rel=1e-11)
    np.testing.assert_allclose(before.z, z_ode, rtol=1e-10, atol=1e-13)
    # between events: the state is the integration's
    mid = (events[0] + (events[1] if len(events) > 1 else 2 * events[0])) / 2
    a_mid, z_mid, ev_mid = integrate_linear_system(g, y, s, mid)
    inside = fj.linear_phase(g, y, s, mid)
    assert inside.events == pytest.approx(ev_mid, rel=1e-10)
    assert inside.alpha == pytest.approx(a_mid, rel=1e-10)
    np.testing.assert_allclose(inside.z, z_mid, rtol=1e-9, atol=1e-12)


def test_first_event_time_by_hand():
    # n = 2, x_i = e_i, y = (1, −1), s = 1, g = (0.6, 0.8): b = (1/2, −1/2), β = 1/√2, v0 = −0.2/√2.
    # z_1(t) = 0.8 − F(t)/√2 with F(t) = sinh βt + v0 (cosh βt − 1): the event solves F(t) = 0.8√2.
    g, y = np.array([0.6, 0.8]), np.array([1.0, -1.0])
    beta, v0 = 1 / math.sqrt(2), -0.2 / math.sqrt(2)
    t = sympy.Symbol("t", positive=True)
    F = sympy.sinh(beta * t) + v0 * (sympy.cosh(beta * t) - 1) - 0.8 * math.sqrt(2)
    t1 = float(sympy.nsolve(F, t, 1.5, prec=30))
    phase = fj.linear_phase(g, y, 1.0)
    assert phase.events == [pytest.approx(t1, rel=1e-13)]
    # after it only x_0 is left: β = 1/2, α and z_0 continue from the event state
    alpha_e = math.cosh(beta * t1) + v0 * math.sinh(beta * t1)
    z0_e = 0.6 + (1 / math.sqrt(2)) * (math.sinh(beta * t1) + v0 * (math.cosh(beta * t1) - 1))
    assert phase.kappa == pytest.approx(math.exp(-t1 / 2) * (alpha_e + z0_e) / 2, rel=1e-13)


def test_a_component_at_zero_is_inactive():
    # ⟨ḡ, x_1⟩ = 0 exactly: 1{z_1 > 0} = 0, so x_1 neither moves nor is a wrong-sign event
    g, y = np.array([0.6, 0.0]), np.array([1.0, -1.0])
    phase = fj.linear_phase(g, y, 1.0)
    assert phase.events == []
    assert phase.kappa == pytest.approx((1 + 0.6) / 2, rel=1e-15)
    later = fj.linear_phase(g, y, 1.0, 3.0)
    assert later.z[1] == 0.0


@pytest.mark.parametrize("g, y, s", [([-0.6, 0.0], [1.0, 2.0], 1.0),  # nothing active
                                     ([0.6, 0.8], [-1.0, -2.0], 1.0)])  # only wrong-sign components: they die
def test_no_growing_component_is_an_error(g, y, s):
    with pytest.raises(ValueError) as info:
        fj.linear_phase(g, y, s)
    assert str(info.value) == "no active component: the neuron does not grow"


def test_linear_phase_state_is_float_for_integer_input_and_a_zero_label_is_inert():
    phase = fj.linear_phase([1, 0], [2, 1], 1)
    assert phase.z.dtype == np.float64 and phase.kappa == pytest.approx(1.0, rel=1e-15)
    # y_1 = 0: b_1 = 0, so x_1 neither grows nor is a wrong-sign component
    inert = fj.linear_phase(np.array([0.6, 0.8]), np.array([1.0, 0.0]), 1.0)
    assert inert.events == [] and inert.kappa == pytest.approx((1 + 0.6) / 2, rel=1e-15)
    later = fj.linear_phase(np.array([0.6, 0.8]), np.array([1.0, 0.0]), 1.0, 2.0)
    assert later.z[1] == 0.8 and later.events == []


def test_an_event_exactly_at_the_horizon_is_not_reported():
    g, y = np.array([0.6, 0.8]), np.array([1.0, -1.0])
    t1 = fj.linear_phase(g, y, 1.0).events[0]
    at = fj.linear_phase(g, y, 1.0, t1)
    assert at.events == [] and abs(at.z[1]) < 1e-14
    past = fj.linear_phase(g, y, 1.0, np.nextafter(t1, np.inf))
    assert past.events == [t1] and past.z[1] == 0.0


def test_linear_phase_does_not_modify_its_input():
    g, y = np.array([0.6, 0.64, 0.48, 0.0]), [2.0, -1.0, 1.0, -3.0]
    copy = g.copy()
    fj.linear_phase(g, y, 1.0, 1.0)
    np.testing.assert_array_equal(g, copy)


# -- first_jump on instances -------------------------------------------------------------------------

def golden():
    directions = np.array([[0.5, 0.5, -0.5, -0.5], [0.0, 0.6, 0.8, 0.0], [-0.5, -0.5, 0.5, 0.5]])
    return Instance(np.eye(4), np.array([3.0, 4.0, 1.0, 2.0]), directions, np.ones(3))


def test_first_jump_on_a_hand_instance():
    inst = golden()
    lp = limit_process_of(inst)
    assert lp.jumps[0].neuron == 0 and lp.jumps[0].fitted == [0, 1]
    out = fj.first_jump(inst)
    assert out.neuron == 0 and out.fitted == [0, 1]
    assert out.norm_y == pytest.approx(5.0, rel=1e-15)
    assert out.gamma == pytest.approx(1.25, rel=1e-15)
    assert out.kappa == pytest.approx(0.85, abs=1e-15)  # (1 + (3·½ + 4·½)/5)/2
    assert out.constant == pytest.approx(math.log(math.sqrt(5) / 0.85) / 1.25, rel=1e-14)
    assert out.wrong_sign == 0 and out.events == []
    assert fj.first_jump(inst, lp) == out
    assert isinstance(out.fitted, list)


def test_first_jump_with_wrong_sign_components_and_a_zero_component():
    # one neuron, x_i = e_i, s = +1: S_1 = {0, 2}; x_1 is wrong-sign active, x_3 has ⟨ḡ, x_3⟩ = 0
    g = np.array([0.6, 0.64, 0.48, 0.0])
    y = np.array([2.0, -1.0, 1.0, -3.0])
    inst = Instance(np.eye(4), y, g[None, :], np.ones(1))
    out = fj.first_jump(inst)
    assert out.neuron == 0 and out.fitted == [0, 2]
    assert out.norm_y == pytest.approx(math.sqrt(5), rel=1e-15)
    assert out.gamma == pytest.approx(math.sqrt(5) / 4, rel=1e-15)
    assert out.wrong_sign == 1
    _, _, events, kappa = integrate_linear_system(g, y, 1.0, math.inf, settle=18.0)
    assert out.events == pytest.approx(events, rel=1e-10)
    assert out.kappa == pytest.approx(kappa, rel=1e-9)
    assert out.constant == pytest.approx(math.log(5**0.25 / kappa) / (math.sqrt(5) / 4), rel=1e-9)
    # the same instance with the opposite sign and labels
    mirrored = fj.first_jump(Instance(np.eye(4), -y, g[None, :], -np.ones(1)))
    assert mirrored.kappa == pytest.approx(out.kappa, rel=1e-13) and mirrored.wrong_sign == 1


def test_first_jump_uses_the_first_jumping_neuron_and_its_sign():
    # neuron 1 (s = −1) jumps first on the negative labels; neuron 0 is slower
    X = np.eye(3)
    y = np.array([1.0, -3.0, -4.0])
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]])
    out = fj.first_jump(Instance(X, y, directions, np.array([1.0, -1.0])))
    assert out.neuron == 1 and out.fitted == [1, 2]
    assert out.norm_y == pytest.approx(5.0) and out.gamma == pytest.approx(5 / 3)
    assert out.kappa == pytest.approx((1 + (3 * 0.6 + 4 * 0.8) / 5) / 2, rel=1e-14)


def test_first_jump_without_a_jump_is_an_error():
    inst = Instance(np.eye(2), np.array([1.0, 2.0]), np.array([[-0.6, -0.8]]), np.ones(1))
    with pytest.raises(ValueError) as info:
        fj.first_jump(inst)
    assert str(info.value) == "Algorithm 1 makes no jump on this instance: there is no first-jump constant"


def test_first_jump_uses_the_limit_process_it_is_given():
    from relucheck.theory.limit_process import limit_process

    inst = golden()
    # a process of the same labels in which neuron 1 (S = {1, 2}) jumps first instead of neuron 0
    act = inst.activation().copy()
    act[:, 0] = False
    other = limit_process(inst.labels, inst.signs, act)
    assert other.jumps[0].neuron == 1
    out = fj.first_jump(inst, other)
    assert out.neuron == 1 and out.fitted == [1, 2]
    assert out.norm_y == pytest.approx(math.sqrt(17), rel=1e-15)
    assert out.kappa == pytest.approx((1 + (4 * 0.6 + 1 * 0.8) / math.sqrt(17)) / 2, rel=1e-14)


def test_small_positive_labels_are_not_wrong_sign():
    # |y_i| < 1 with the right sign: active, correct sign
    inst = Instance(np.eye(2), np.array([0.5, 0.25]), np.array([[0.6, 0.8]]), np.ones(1))
    out = fj.first_jump(inst)
    assert out.wrong_sign == 0 and out.events == [] and out.fitted == [0, 1]
    assert out.kappa == pytest.approx((1 + (0.5 * 0.6 + 0.25 * 0.8) / math.hypot(0.5, 0.25)) / 2, rel=1e-14)


# -- the symbolic proofs ------------------------------------------------------------------------------

def test_the_symbolic_proofs_vanish():
    assert fj.logistic_fit_phase_proof() == 0
    assert fj.growth_phase_proof() == 0
    assert fj.half_fit_time_proof() == 0


# -- the same constant at any precision (theory.high_precision_closed_forms) ------------------------------------------

def test_first_jump_constant_at_high_precision_matches_float64_and_the_hand_value():
    import mpmath

    from relucheck.numerics.errors import HypothesisViolation
    from relucheck.theory.high_precision_closed_forms import first_jump_constant

    inst = golden()
    g = inst.inputs @ inst.directions[0]
    with mpmath.workdps(40):
        c1 = first_jump_constant(list(g), list(inst.labels), [0, 1], 1.0)
        exact = mpmath.log(mpmath.sqrt(5) / mpmath.mpf("0.85")) / mpmath.mpf("1.25")
        assert abs(c1 - exact) < mpmath.mpf(10) ** -35
    assert float(c1) == pytest.approx(fj.first_jump(inst).constant, rel=1e-14)
    # s = −1 on negative labels: the same constant
    with mpmath.workdps(40):
        assert abs(first_jump_constant(list(g), list(-inst.labels), [0, 1], -1.0) - c1) < mpmath.mpf(10) ** -35
    # n enters through γ = ‖y_S‖/n: four more inactive data double n and the constant
    with mpmath.workdps(40):
        wider = first_jump_constant(list(g) + [0.0] * 4, list(inst.labels) + [1.0] * 4, [0, 1], 1.0)
        assert abs(wider - 2 * c1) < mpmath.mpf(10) ** -35
    with pytest.raises(HypothesisViolation) as info:
        first_jump_constant([0.6, 0.64, 0.48, 0.0], [2.0, -1.0, 1.0, -3.0], [0, 2], 1.0)
    assert info.value.hypothesis == "closed-form κ (no wrong-sign active component of j_1, spec C §2.6)"
    assert info.value.detail == "data [1] are active with the wrong sign"
    with pytest.raises(HypothesisViolation) as info:
        first_jump_constant([0.6, 0.64, 0.48, 0.1], [2.0, -1.0, 1.0, -3.0], [0, 2], 1.0)
    assert info.value.detail == "data [1, 3] are active with the wrong sign"
    # ⟨ḡ, x_i⟩ = 0 is inactive, and a small positive label is of the right sign
    with mpmath.workdps(30):
        c = first_jump_constant([0.6, 0.8, 0.0], [0.5, 0.25, -3.0], [0, 1], 1.0)
        norm = mpmath.sqrt(mpmath.mpf("0.3125"))
        kappa = (1 + (mpmath.mpf("0.3") + mpmath.mpf("0.2")) / norm) / 2
        assert abs(c - mpmath.log(mpmath.sqrt(norm) / kappa) / (norm / 3)) < mpmath.mpf(10) ** -25
