"""Paper C statements: every numbered statement is registered, tagged, renders, and its formulas evaluate."""
import pytest
import sympy as sp

from relucheck.theory.statements import all_statements
from relucheck.theory.statements.paper_c import (LEM10_BOUND, PROP2_EXACT, PROP2_LOWER, THM3_CONSTANT, delta, m, n,
                                       n_minus, n_plus)
from relucheck.theory.interpolation_probability import all_rows_nonzero_probability

EXPECTED = (["C.thm1", "C.thm2", "C.thm3", "C.thm4"] + [f"C.prop{i}" for i in range(1, 8)]
            + [f"C.lem{i}" for i in range(1, 11)] + ["C.cor1", "C.cor2"] + [f"C.asm{i}" for i in range(1, 5)]
            + ["C.def1", "C.hyp1"])


def test_every_numbered_statement_is_registered_with_a_spec_tag():
    statements = all_statements()
    for sid in EXPECTED:
        st = statements[sid]
        assert st.paper == "C" and st.confidence in {"certain", "likely", "guess"} and st.source.startswith("spec C")
        assert st.meaning and st.title
        assert st.to_markdown() and st.to_latex()
    assert {s for s in statements if s.startswith("C.")} == set(EXPECTED)


def test_statements_with_checks_have_no_reason_and_the_others_say_why():
    statements = all_statements()
    for sid in ("C.thm1", "C.thm2", "C.thm3", "C.lem1", "C.lem3", "C.lem9", "C.asm2", "C.prop7", "C.cor2", "C.hyp1", "C.def1"):
        assert statements[sid].not_checkable_reason == ""
    for sid in ("C.thm4", "C.lem4", "C.lem8"):     # C.lem6 has a check (logistic fit phase)
        assert statements[sid].not_checkable_reason


def test_theorem3_constant_matches_the_spec():
    assert float(THM3_CONSTANT.subs(delta, sp.Rational(1, 10))) == pytest.approx(7.7405, abs=1e-4)
    assert sp.simplify(sp.limit(THM3_CONSTANT, delta, 0) - 2 * (2 + sp.sqrt(2))) == 0


def test_prop2_formula_matches_the_exact_rational_and_bounds_it():
    for case in ((16, 16, 15), (3, 5, 4), (7, 0, 6)):
        symbolic = PROP2_EXACT.subs({n_plus: case[0], n_minus: case[1], m: case[2]}).doit()
        assert sp.nsimplify(symbolic) == sp.Rational(all_rows_nonzero_probability(*case))
        lower = PROP2_LOWER.subs({n: case[0] + case[1], n_plus: case[0], n_minus: case[1], m: case[2]})
        assert lower <= symbolic


def test_lemma10_bound_reduces_to_linear_growth_when_alpha_vanishes():
    alpha, beta, t, f0 = sp.symbols("alpha beta t f_0", real=True)
    assert sp.simplify(sp.limit(LEM10_BOUND.rhs, alpha, 0) - (sp.sqrt(f0) + beta * t / 2)) == 0
