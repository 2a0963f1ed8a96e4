"""Tests written against the surviving mutants of docs/mutation.md (issue 12); each compares with an independent computation.

Modules: theory/limit_process.py and limit_process_exact.py (paper C, Algorithm 1 and `exact_sign`),
high_precision_closed_forms.py (paper B, C's first-jump constant), interpolation_probability.py (C, Proposition 2(i)),
sup_deviation.py (paper A, Theorem 3.1's sup over the circle) and statement.py (statements as data)."""
import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from relucheck.numerics.errors import HypothesisViolation
from relucheck.theory import statement as st_mod
from relucheck.theory.high_precision_closed_forms import first_jump_constant
from relucheck.theory.interpolation_probability import all_rows_nonzero_probability
from relucheck.theory.limit_process import correct_sign_mask, limit_process
from relucheck.theory.limit_process_exact import exact_sign, limit_process_exact
from relucheck.theory.statement import Statement, register_paper
from relucheck.theory.sup_deviation import sup_deviation_2d


# -- exact_sign ------------------------------------------------------------------------------------------------

def _tiny(k):
    """sqrt(10^(2k) + 1) − 10^k = 1/(sqrt(10^(2k) + 1) + 10^k) ∈ (10^-k/2 − 10^-3k, 10^-k/2): positive, ≈ 5·10^-(k+1)."""
    return sp.sqrt(sp.Integer(10) ** (2 * k) + 1) - sp.Integer(10) ** k


@pytest.mark.parametrize("k", [150, 250])
def test_exact_sign_of_a_value_beyond_the_working_precision(k):
    """Defect (fixed): a non-strict evalf(60) of _tiny(150) is −0.e-40 (all digits lost to cancellation) and the
    old 10^-50 screen returned −1. The sign is +1 by the identity in `_tiny`. k = 250 also exhausts the first
    retry's working precision (400 digits) and needs the doubling."""
    assert exact_sign(_tiny(k)) == 1
    assert exact_sign(-_tiny(k)) == -1
    assert exact_sign(3 * _tiny(k) - sp.Rational(3, 2) * sp.Integer(10) ** -k) == -1   # 3·tiny < 1.5·10^-k


def test_exact_sign_of_zeros_in_disguise_and_of_plain_numbers():
    # (√2 + √3)² = 5 + 2√6, and (1 + √2)² = 3 + 2√2 (zeros evalf cannot certify: the minimal polynomial decides)
    assert exact_sign(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6))) == 0
    assert exact_sign(1 + sp.sqrt(2) - sp.sqrt(3 + 2 * sp.sqrt(2))) == 0
    assert exact_sign(sp.Rational(-2, 7)) == -1 and exact_sign(sp.Rational(1, 2**2000)) == 1
    assert exact_sign(sp.sqrt(3) - sp.Rational(17320508075688772935, 10**19)) == 1      # √3 = 1.73205080756887729352…


# -- Algorithm 1 (float and exact) -----------------------------------------------------------------------------

def test_correct_sign_mask_by_its_definition_with_a_zero_label():
    """M_ij = act_ij ∧ (s_j y_i > 0): a zero label has s_j y_i = 0, so its row is empty (spec C §1.7)."""
    y = np.array([0.0, 1.5, -2.0, 0.0])
    s = np.array([1.0, -1.0, 1.0])
    act = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 0], [0, 1, 1]], bool)
    want = np.array([[act[i, j] and s[j] * y[i] > 0 for j in range(3)] for i in range(4)])
    assert np.array_equal(correct_sign_mask(y, s, act), want)
    assert not correct_sign_mask(y, s, act)[[0, 3]].any()


def test_min_norm_squared_with_labels_below_one():
    """2(‖y_+‖ + ‖y_−‖) from SymPy with the labels' own signs: y = (1/2, −1/3, 2, −1/4) gives
    2(√(1/4 + 4) + √(1/9 + 1/16)) = √17 + 5/6 (labels below 1 in size separate y² from max(y, 1)² etc.)."""
    labels = ["1/2", "-1/3", "2", "-1/4"]
    act = np.ones((4, 2), bool)
    want = sp.sqrt(17) + sp.Rational(5, 6)
    ex = limit_process_exact(labels, [1, -1], act)
    assert sp.simplify(ex.min_norm_squared - want) == 0
    fl = limit_process([0.5, -1 / 3, 2.0, -0.25], [1, -1], act)
    assert fl.min_norm_squared == pytest.approx(float(want), rel=4e-16)   # a few roundings of O(1) sums
    # one jump per sign class: the fitted neurons have S = ∅ afterwards, so exactly two jumps, then the stop
    assert [jp.neuron for jp in fl.jumps] == [jp.neuron for jp in ex.jumps] and len(ex.jumps) == 2
    assert ex.plateaus[0] == (sp.Rational(1, 4) + sp.Rational(1, 9) + 4 + sp.Rational(1, 16)) / 8   # Σy²/(2n)


def test_fitted_neurons_keep_a_zero_exponent_while_others_go_on():
    """Three neurons: 0 fits {0}, then 1 fits {1, 2}; neuron 2 never has a correct-sign datum (rate 0).
    Hand values (c = 1/3): hit times 1/(c·1) = 3 for neuron 0 and 1/(c·√5) for neuron 1, so neuron 1 jumps
    first at τ₁ = 3/√5; then u₀ = 1 − τ₁/3 = 1 − 1/√5 and neuron 0 jumps at τ₂ = τ₁ + 3(1 − 1/√5) = 3.
    After each jump the fitted neuron's exponent stays 0 and neuron 2's stays 1."""
    labels, signs = ["1", "1", "2"], [1, 1, -1]
    act = np.array([[1, 0, 1], [0, 1, 1], [0, 1, 1]], bool)
    ex = limit_process_exact(labels, signs, act)
    assert [jp.neuron for jp in ex.jumps] == [1, 0]
    assert sp.simplify(ex.jumps[0].tau - 3 / sp.sqrt(5)) == 0 and sp.simplify(ex.jumps[1].tau - 3) == 0
    assert sp.simplify(ex.jumps[0].exponents[0] - (1 - 1 / sp.sqrt(5))) == 0
    assert ex.jumps[0].exponents[1:] == [0, 1] and ex.jumps[1].exponents == [0, 0, 1]
    fl = limit_process([1.0, 1.0, 2.0], signs, act)
    assert [jp.neuron for jp in fl.jumps] == [1, 0]
    assert fl.jumps[1].exponents.tolist() == [0.0, 0.0, 1.0]
    assert fl.segment_rates[2].tolist() == [0.0, 0.0, 0.0]          # after both jumps nothing moves
    assert fl.exponents_at(10.0).tolist() == [0.0, 0.0, 1.0]


# -- C's first-jump constant (mpmath) --------------------------------------------------------------------------

def test_first_jump_constant_with_an_active_zero_label():
    """A zero label is not a wrong-sign component (s·y_i = 0, not < 0): with ḡ-values (1/2, 1/4, 1/2) on labels
    (3, 4, 0), S = {0, 1}: ‖y_S‖ = 5, cos = (1/2·3 + 1/4·4)/5 = 1/2, κ = 3/4, γ = 5/3, so C₁ = (3/5) ln(√5/(3/4))."""
    with mpmath.workdps(40):
        got = first_jump_constant([0.5, 0.25, 0.5], [3, 4, 0], [0, 1], 1)
        want = mpmath.mpf(3) / 5 * mpmath.log(mpmath.sqrt(5) * 4 / 3)
        assert abs(got - want) < mpmath.mpf(10) ** -38
    with pytest.raises(HypothesisViolation):                     # the same datum with label −1 is wrong-sign
        first_jump_constant([0.5, 0.25, 0.5], [3, 4, -1], [0, 1], 1)


# -- Proposition 2(i) by brute force ---------------------------------------------------------------------------

@pytest.mark.parametrize("n_plus, n_minus, m", [(0, 1, 1), (1, 0, 2), (0, 2, 2), (2, 1, 2), (1, 1, 3), (3, 0, 1)])
def test_all_rows_nonzero_probability_by_enumeration(n_plus, n_minus, m):
    """Every output sign vector s ∈ {±1}^m and activation pattern in {0,1}^{n×m} is equally likely (Assumption 3):
    count the configurations whose mask M_ij = act_ij ∧ (s_j y_i > 0) has no zero row."""
    y = [1] * n_plus + [-1] * n_minus
    n = len(y)
    good = total = 0
    for s in itertools.product((1, -1), repeat=m):
        for bits in itertools.product((0, 1), repeat=n * m):
            total += 1
            good += all(any(bits[i * m + j] and s[j] * y[i] > 0 for j in range(m)) for i in range(n))
    assert all_rows_nonzero_probability(n_plus, n_minus, m) == Fraction(good, total)


# -- statements as data (theory/statement.py) ------------------------------------------------------------------

X_ = sp.Symbol("x")


def _full(**over):
    kw = dict(id="A.t", paper="A", number="Theorem 1", title="T", hypotheses=["h1", "h2"], conclusion=X_**2,
              constants={"c": 2, "d": "1/2"}, confidence="certain", source="p. 3", meaning="M",
              numbers={"v1": "Lemma 2", "v2": "Lemma F.1"}, not_checkable_reason="R")
    kw.update(over)
    return Statement(**kw)


def test_statement_markdown_with_every_field():
    """The Markdown layout: heading, numbering/confidence/source lines with a hard break, blank-line-separated
    blocks; a formula conclusion as display math; the checks, or else the reason why there are none."""
    head = ("### A Theorem 1: T\n\n*Numbering:* v1: Lemma 2; v2: Lemma F.1  \n*Confidence:* certain  \n"
            "*Source:* p. 3  \n\n*Hypotheses:*\n- h1\n- h2\n\n*Conclusion:*\n\n$$ x^{2} $$\n\n"
            "*Constants:* c = 2, d = 1/2\n\n*Meaning:* M\n\n")
    st = _full()
    assert st.to_markdown() == head + "*Not checked numerically:* R\n"
    assert st.to_markdown(["C.a", "C.b"]) == head + "*Checks:* `C.a`, `C.b`\n"
    assert st.version_numbers() == "v1: Lemma 2; v2: Lemma F.1"
    assert st.conclusion_text() == "x**2"
    assert st.hypotheses == ("h1", "h2") and isinstance(st.hypotheses, tuple)   # a list given is stored as a tuple


def test_statement_markdown_and_latex_of_a_text_conclusion():
    st = Statement(id="A.t", paper="A", number="Theorem 1", title="T", conclusion="50% & more")
    assert st.to_markdown() == "### A Theorem 1: T\n\n*Confidence:* unstated  \n\n*Conclusion:* 50% & more\n"
    assert st.conclusion_text() == "50% & more"
    assert st.conclusion_latex() == "50\\% \\& more"
    assert st.to_latex() == "\\paragraph{A Theorem 1: T}\n\\emph{Confidence:} unstated.\n50\\% \\& more\n"
    assert st._repr_latex_() == "$\\text{A Theorem 1}$: 50\\% \\& more"
    assert Statement(id="A.u", paper="A", number="1", title="t", conclusion=7).conclusion_latex() == "7"


def test_statement_latex_with_every_field():
    st = _full()
    assert st.to_latex() == ("\\paragraph{A Theorem 1: T}\n\\emph{Numbering:} v1: Lemma 2; v2: Lemma F.1.\n"
                             "\\emph{Confidence:} certain.\n\\begin{itemize}\\item h1\\item h2\\end{itemize}\n"
                             "\\[ x^{2} \\]\n")
    assert st._repr_latex_() == "$\\displaystyle \\text{A Theorem 1}:\\ x^{2}$"
    assert _full(confidence="verified numerically").to_latex().split("\n")[2] == "\\emph{Confidence:} verified numerically."


def test_statement_validation_messages():
    with pytest.raises(ValueError) as info:
        Statement(id="Q.x", paper="Q", number="1", title="t")
    assert str(info.value) == (f"statement Q.x: unknown paper 'Q'; papers are {sorted(st_mod.PAPERS)} "
                               "(register yours with relucheck.register_paper)")
    with pytest.raises(ValueError) as info:
        Statement(id="AB.x", paper="A", number="1", title="t")
    assert str(info.value) == "statement id 'AB.x' must start with its paper, 'A.'"
    with pytest.raises(ValueError) as info:
        Statement(id="A.x", paper="A", number="1", title="t", confidence="sure")
    assert str(info.value) == "statement A.x: unknown confidence tag 'sure'"


@pytest.fixture
def papers(monkeypatch):
    """A private copy of the paper table, so registrations do not leak into other tests."""
    table = dict(st_mod.PAPERS)
    monkeypatch.setattr(st_mod, "PAPERS", table)
    return table


def test_register_paper(papers):
    assert register_paper("My-paper_2", "  A title  ") == "My-paper_2"
    assert papers["My-paper_2"] == "A title"                                 # stripped
    st = Statement(id="My-paper_2.thm", paper="My-paper_2", number="Theorem 1", title="t")
    assert st.to_markdown().startswith("### My-paper_2 Theorem 1: t\n")
    with pytest.raises(ValueError) as info:
        register_paper("My-paper_2", "other")
    assert str(info.value) == "paper id 'My-paper_2' is already registered (A title); choose another id"
    with pytest.raises(ValueError) as info:
        register_paper("B", "other")
    assert str(info.value) == f"paper id 'B' is a built-in paper ({st_mod.BUILTIN_PAPERS['B']}); choose another id"
    assert papers["B"] == st_mod.BUILTIN_PAPERS["B"]


@pytest.mark.parametrize("bad", ["1A", "A.b", "", "A b", "Ab!", 5, None])
def test_register_paper_rejects_bad_ids(papers, bad):
    before = set(papers)
    with pytest.raises(ValueError) as info:
        register_paper(bad, "t")
    assert str(info.value) == f"paper id must be a letter followed by letters, digits, '_' or '-', got {bad!r}"
    assert set(papers) == before


@pytest.mark.parametrize("bad", ["", "   ", 3, None])
def test_register_paper_rejects_empty_titles(papers, bad):
    with pytest.raises(ValueError) as info:
        register_paper("Mine", bad)
    assert str(info.value) == f"paper Mine: the title must be a non-empty string, got {bad!r}"
    assert "Mine" not in papers


# -- sup_w ‖D_n(w) − t‖ over the circle, exactly (theory/sup_deviation.py) -----------------------------------------

U = 2.0**-53


def sup_exact_squared(X, y, target):
    """max over the open arcs of ‖D_n(w) − t‖², in rationals (float inputs are dyadic). The arcs are bounded by the
    directions ±x_k^⊥; the sum u + v of two consecutive boundary directions (angle < π apart) lies inside their
    arc, and when all inputs are collinear (two arcs of angle π) ±x_k do. So the candidates u + v (all pairs) and
    ±x_k that lie on no boundary line are points of arcs, and every arc holds one of them."""
    X = [(Fraction(a), Fraction(b)) for a, b in X]
    y = [Fraction(v) for v in y]
    t = [Fraction(v) for v in target]
    n = len(y)
    nz = [x for x in X if x != (0, 0)]
    if not nz:
        return t[0] ** 2 + t[1] ** 2
    dirs = [(b, -a) for a, b in nz] + [(-b, a) for a, b in nz]
    cands = [(u[0] + v[0], u[1] + v[1]) for u in dirs for v in dirs] + nz + [(-a, -b) for a, b in nz]
    best = None
    for w in cands:
        dots = [w[0] * a + w[1] * b for a, b in X]
        if any(d == 0 for d, x in zip(dots, X) if x != (0, 0)) or w == (0, 0):
            continue
        D = [sum((y[k] * X[k][c] for k in range(n) if dots[k] > 0), Fraction(0)) / n for c in (0, 1)]
        val = (D[0] - t[0]) ** 2 + (D[1] - t[1]) ** 2
        best = val if best is None else max(best, val)
    return best


def tolerance(X, y, target):
    """value0 sums ≤ n terms and the sweep adds ≤ 2n steps y_k x_k/n, so each component of an arc value errs by
    ≤ 3n·u·2S (S = Σ|y_k|‖x_k‖/n bounds each of the two sums' absolute terms; Higham §4.2, first order); the target
    adds u‖t‖ and the norm 2u relative: √2·(6n + 4)·u·(S + ‖t‖) ≤ 8(n + 2)·u·(S + ‖t‖)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    S = np.sum(np.abs(y) * np.linalg.norm(X, axis=1)) / len(y)
    return 8 * (len(y) + 2) * U * (S + np.linalg.norm(target))


def check_sup(X, y, target):
    sq = sup_exact_squared(X, y, target)
    with mpmath.workdps(40):                                   # then one rounding to float64: ≤ u·want
        want = float(mpmath.sqrt(mpmath.mpf(sq.numerator) / sq.denominator))
    got = sup_deviation_2d(np.array(X, float), np.array(y, float), target)
    assert abs(got - want) <= tolerance(X, y, target) + 2 * U * want, (got, want)


# angle offsets far below CLUSTER = 1e-12: E50 is below the 3e-15 error bound of the float angles, E55 below one
# ulp of an angle near π/2 (2.2e-16), so the float angles of two events tie and only the exact order is right
E44, E50, E55 = 2.0**-44, 2.0**-50, 2.0**-55


@pytest.mark.parametrize("eps", [E50, E55])
@pytest.mark.parametrize("X, y", [
    # a nearly antiparallel pair (angle 2^-50, float angles equal or misordered), in both row orders and
    # both orientations: on the tiny arc where both are active D = ((1, 0) + (1, −2^-50))/2, ‖D‖ ≈ 1
    ([[1.0, 0.0], [-1.0, E50]], [1.0, -1.0]),
    ([[-1.0, E50], [1.0, 0.0]], [-1.0, 1.0]),
    ([[-1.0, 0.0], [1.0, -E50]], [1.0, -1.0]),
    ([[1.0, -E50], [-1.0, 0.0]], [-1.0, 1.0]),
    ([[0.0, 1.0], [E50, -1.0]], [1.0, -1.0]),
    ([[E50, -1.0], [0.0, 1.0]], [-1.0, 1.0]),
    # nearly parallel pairs: a tiny arc where only one of them is active (value ½, the rest ≤ ¼)
    ([[1.0, 0.0], [1.0, E50]], [1.0, -0.5]),
    ([[1.0, E50], [1.0, 0.0]], [-0.5, 1.0]),
    ([[1.0, 0.0], [1.0, -E50]], [1.0, -0.5]),
    ([[1.0, -E50], [1.0, 0.0]], [-0.5, 1.0]),
    # three events at one point with a fourth 2^-50 away, and a parallel/antiparallel mix at 2^-44
    ([[1.0, 0.0], [2.0, 0.0], [-1.0, E50]], [1.0, 1.0, -2.0]),
    ([[-1.0, E50], [2.0, 0.0], [1.0, 0.0]], [-2.0, 1.0, 1.0]),
    ([[-3.0, 0.0], [1.0, 0.0], [1.0, E50], [1.0, -E50]], [1.0, 1.0, -1.0, 2.0]),
    ([[1.0, 0.0], [-1.0, E44], [1.0, E44], [-2.0, 0.0], [0.0, 1.0]], [1.0, -1.0, 0.5, 2.0, -1.0]),
])
def test_sup_deviation_of_near_coincident_events_against_exact_arcs(X, y, eps):
    X = [[a if abs(a) != E50 else np.sign(a) * eps, b if abs(b) != E50 else np.sign(b) * eps] for a, b in X]
    for target in ([0.0, 0.0], [0.5, -0.25]):
        check_sup(X, y, target)
        check_sup([[-a, -b] for a, b in X], y, target)


offsets = st.sampled_from([0.0, E55, -E55, E50, -E50, E44, -E44])
coord = st.tuples(st.integers(-3, 3), offsets).map(lambda p: p[0] + p[1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coord, coord, st.integers(-3, 3).map(lambda v: v / 2)), min_size=1, max_size=6),
       st.tuples(st.integers(-2, 2), st.integers(-2, 2)).map(lambda p: [p[0] / 4, p[1] / 4]))
def test_sup_deviation_against_exact_arcs(rows, target):
    """Integer inputs perturbed by 2^-50 or 2^-44: parallel, antiparallel and float-indistinguishable events."""
    check_sup([r[:2] for r in rows], [r[2] for r in rows], target)
