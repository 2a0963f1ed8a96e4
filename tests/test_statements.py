"""Statement records: validation and rendering (Markdown, LaTeX, notebooks)."""
import pytest
import sympy as sp

from relucheck.theory.statement import Statement
from relucheck.theory.statements import all_statements, get_statement


def test_rendering_of_a_formula_statement():
    st = get_statement("C.prop1")
    md = st.to_markdown(["C.prop1.flow_across_events"])
    assert "Proposition 1" in md and "$$" in md and "C.prop1.flow_across_events" in md
    tex = st.to_latex()
    assert "\\[" in tex and "Proposition 1" in tex
    assert st._repr_latex_().startswith("$")


def test_text_conclusion_is_escaped_in_latex():
    st = Statement(id="A.x", paper="A", number="Lemma X", title="t_1 & 50%", conclusion="a_j > 0 & b",
                   confidence="guess", numbers={"v1": "Lemma 9", "v2": "Lemma X"})
    tex = st.to_latex()
    assert "\\ensuremath{t _{1}} \\& 50\\%" in tex and "v1: Lemma 9" in tex  # t_1 as a math subscript


@pytest.mark.parametrize("kwargs, message", [
    (dict(id="D.x", paper="D"), "unknown paper .D.; papers are"),
    (dict(id="B.x", paper="A"), "must start with its paper"),
    (dict(id="A.x", paper="A", confidence="sure"), "unknown confidence tag"),
])
def test_invalid_statements(kwargs, message):
    base = dict(number="1", title="t")
    base.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Statement(**base)


def test_catalogue_ids_are_unique_and_prefixed():
    sts = all_statements()
    assert all(k == v.id and k.split(".")[0] == v.paper for k, v in sts.items())
    assert isinstance(sts["B.lem1"].conclusion, sp.Basic)
    with pytest.raises(KeyError, match="unknown statement id"):
        get_statement("Z.none")
