"""Direct unit tests of `theory.invariants` (balancedness a² − ‖w‖², A Lemma F.1, B Lemma 1, C Prop. 1).

Every expression is rebuilt here from its own symbols and compared exactly with what the module returns.
"""
import pytest
import sympy as sp

from relucheck.theory import invariants as inv


def own_symbols(n, d):
    a = sp.Symbol("a", real=True)
    w = sp.Matrix([sp.Symbol(f"w{k}", real=True) for k in range(d)])
    X = [sp.Matrix([sp.Symbol(f"x{i}_{k}", real=True) for k in range(d)]) for i in range(n)]
    r = tuple(sp.Symbol(f"r{i}", real=True) for i in range(n))
    eta = tuple(sp.Symbol(f"eta{i}", nonnegative=True) for i in range(n))
    c, scale = sp.Symbol("c", positive=True), sp.Symbol("scale", positive=True)
    return a, w, X, r, eta, c, scale


def own_D(X, r, eta, scale):
    n, d = len(X), X[0].shape[0]
    return sp.Matrix([scale / n * sp.Add(*[eta[i] * r[i] * X[i][k] for i in range(n)]) for k in range(d)])


@pytest.mark.parametrize("n, d", [(1, 1), (2, 3), (3, 2)])
def test_neuron_symbols_names_assumptions_and_shapes(n, d):
    got = inv.neuron_symbols(n, d)
    want = own_symbols(n, d)
    a, w, X, r, eta, c, scale = got
    assert a == want[0] and w == want[1] and list(X) == want[2]
    assert tuple(r) == want[3] and tuple(eta) == want[4] and (c, scale) == want[5:]
    assert w.shape == (d, 1) and len(X) == n and all(x.shape == (d, 1) for x in X)
    assert a.is_real and all(e.is_real for e in w) and all(e.is_real for x in X for e in x) and all(e.is_real for e in r)
    assert all(e.is_nonnegative and not e.is_positive for e in eta)
    assert c.is_positive and scale.is_positive


@pytest.mark.parametrize("n, d", [(1, 1), (2, 3), (3, 2)])
def test_dynamical_vector_is_scale_over_n_times_the_sum(n, d):
    _, _, X, r, eta, _, scale = own_symbols(n, d)
    D = inv.dynamical_vector(X, r, eta, scale)
    assert D.shape == (d, 1)
    assert sp.expand(D - own_D(X, r, eta, scale)) == sp.zeros(d, 1)


def test_dynamical_vector_numerically():
    X = [sp.Matrix([1, 2]), sp.Matrix([3, -1]), sp.Matrix([0, 5])]
    D = inv.dynamical_vector(X, (2, 1, -1), (1, 0, 1), sp.Integer(6))
    # (6/3)·(2·(1, 2) + 0 + (−1)·(0, 5)) = 2·(2, −1)
    assert D == sp.Matrix([4, -2])


def test_flow_field_components():
    a, w, X, r, eta, c, scale = own_symbols(2, 2)
    da, dw = inv.flow_field(a, w, X, r, eta, c, scale)
    D = own_D(X, r, eta, scale)
    assert sp.expand(da - c * (w[0] * D[0] + w[1] * D[1])) == 0
    assert sp.expand(dw - c * a * D) == sp.zeros(2, 1)


@pytest.mark.parametrize("n, d", [(1, 1), (2, 2), (3, 3), (4, 2)])
def test_balancedness_is_conserved(n, d):
    assert inv.invariant_derivative(n, d) == 0


def test_invariant_derivative_defaults_and_the_mutant_weight():
    assert inv.invariant_derivative() == 0
    a, w, X, r, eta, c, scale = own_symbols(3, 3)
    D = own_D(X, r, eta, scale)
    wD = sum(w[k] * D[k] for k in range(3))
    for k in (0, 2, 3):
        # d/dt (a² − k‖w‖²) = 2ac⟨w,D⟩ − 2kca⟨w,D⟩ = 2(1 − k) a c ⟨w, D⟩: the default shape is n = d = 3
        got = inv.invariant_derivative(weight_on_w=k)
        assert sp.expand(got - 2 * (1 - k) * a * c * wD) == 0
        assert got != 0


@pytest.mark.parametrize("n, d", [(1, 1), (2, 2), (3, 2)])
def test_gd_step_identity_holds_exactly(n, d):
    assert inv.gd_step_identity_residual(n, d) == 0


def test_gd_step_without_the_second_order_term_leaves_it_as_residual():
    assert inv.gd_step_identity_residual() == 0
    a, w, X, r, eta, _, scale = own_symbols(2, 2)
    eps = sp.Symbol("epsilon", positive=True)
    D = own_D(X, r, eta, scale)
    g_a = -(w[0] * D[0] + w[1] * D[1])
    g_w = -a * D
    expected = eps**2 * (g_a**2 - g_w[0] ** 2 - g_w[1] ** 2)
    got = inv.gd_step_identity_residual(with_second_order_term=False)
    assert sp.expand(got - expected) == 0
    assert got == sp.expand(got) and got != 0  # returned expanded
    three = inv.gd_step_identity_residual(3, 1, with_second_order_term=False)
    a, w, X, r, eta, _, scale = own_symbols(3, 1)
    D = own_D(X, r, eta, scale)
    assert sp.expand(three - eps**2 * ((w[0] * D[0]) ** 2 - (a * D[0]) ** 2)) == 0
