"""Paper C (Town, Boursier, Lewis, Englert & Lazić, arXiv 2605.27097): numbered statements as data.

Source: the reconstructed specification ../shared/spec/C-orthogonal-incremental.md (sections cited per
statement) and seed 003. Confidence tags are the spec's: certain [C], likely [L], guess [G]. Proposition 1
(balancedness) is registered in `theory.statements.balancedness`.

Symbols (the paper's): n data, m neurons, y labels, s_j output signs, λ initialization scale,
τ = t / ln(1/λ) accelerated time, u_j norm exponents, S_k the data fitted at jump k, K the number of jumps,
K_± the number of jumps of each sign, ‖y‖_∞ = max_i |y_i|.
"""
import sympy as sp

from ..statement import Statement
from . import register

# --- symbols -----------------------------------------------------------------------------------
n, m, k, K = sp.symbols("n m k K", positive=True, integer=True)
n_plus, n_minus = sp.symbols("n_+ n_-", nonnegative=True, integer=True)
y_plus, y_minus, y_inf = (sp.Symbol(name, nonnegative=True) for name in (r"\|y_{+}\|", r"\|y_{-}\|", r"\|y\|_{\infty}"))
K_plus, K_minus = sp.symbols("K_+ K_-", nonnegative=True, integer=True)
theta_inf_sq, theta_star_sq = (sp.Symbol(name, nonnegative=True) for name in (r"\|\theta_{\infty}\|^{2}", r"\|\theta^{*}\|^{2}"))
y_S = sp.IndexedBase(r"{\|y_{S}\|}")
C3, delta = sp.symbols("C delta", positive=True)
alpha, beta, t, f0 = sp.symbols("alpha beta t f_0", real=True)
f = sp.Function("f")
eps = sp.symbols("epsilon", positive=True)
q_plus = (1 + delta) / 2
q_minus = (1 - delta) / 2
K0 = sp.ceiling(sp.log(n) / (2 * sp.log(1 / q_plus)))

# eq. (15): squared norm of the limit, the minimum-norm interpolator, and the Cauchy–Schwarz upper bound
EQ15_NORM = sp.Eq(theta_inf_sq, 2 * sp.Sum(y_S[k], (k, 1, K)))
MIN_NORM = sp.Eq(theta_star_sq, 2 * (y_plus + y_minus))
EQ15_BOUNDS = sp.And(sp.Ge(theta_inf_sq, theta_star_sq),
                     sp.Le(theta_inf_sq, 2 * (sp.sqrt(K_plus) * y_plus + sp.sqrt(K_minus) * y_minus)))
# eq. (16), explicit constant re-derived in spec §2.5 (δ = 0.1 gives C ≈ 7.74)
THM3_CONSTANT = 2 * (sp.sqrt(q_plus) / (1 - sp.sqrt(q_plus)) + 1)
THM3_BOUND = sp.Le(theta_inf_sq, C3 * y_inf * sp.sqrt(n))
THM3_FAILURE_PROBABILITY = 2 * K0 * m**K0 * sp.exp(-delta**2 * q_minus**(K0 - 1) * n / 6)
# Proposition 2(i): exact probability that every row of the mask is non-zero, and the union lower bound
_kk = sp.symbols("k", integer=True, nonnegative=True)
PROP2_EXACT = sp.Sum(sp.binomial(m, _kk) * 2**(-m) * (1 - 2**(-_kk))**n_plus * (1 - 2**(-(m - _kk)))**n_minus,
                     (_kk, 0, m))
PROP2_LOWER = 1 - n * sp.Rational(3, 4)**m - (m + m * (m - 1) / 4) * 2**(-sp.Min(n_plus, n_minus))
# Lemma 10: Bihari/Grönwall bound
LEM10_BOUND = sp.Le(sp.sqrt(f(t)), sp.exp(alpha * t / 2) * sp.sqrt(f0) + beta / alpha * (sp.exp(alpha * t / 2) - 1))
# Proposition 7
u_i, v_i = sp.symbols("u_i v_i", real=True)
PROP7 = sp.Le(sp.Abs(u_i - v_i), sp.sqrt(2 * eps))

_ORTHO = "Assumption 1: orthonormal inputs ⟨x_i, x_k⟩ = 1{i = k} (so d ≥ n)"
_FROZEN = "Assumption 2: a component ⟨w_j, x_i⟩ ≤ 0 stays frozen (σ'(0) = 0 selection)"
_INIT = "Assumption 3: w_j(0) = λ ḡ_j, ḡ_j uniform on the sphere, a_j(0) = s_j λ, s_j fair ±1"
_MASK = "Assumption 4: mask rows/columns non-zero, columns distinct; y_i ≠ 0; unique argmin in Algorithm 1"
_PROOF_PHASE = ("a proof-phase statement whose constants (ε, ζ, c_0, exit times) are guesses of the spec (U2); "
                "its observable content is covered by the paper-C flow checks of Theorem 2 and Lemmas 1, 3, 9")

_C = "C"
register(
    Statement(
        id="C.thm1", paper=_C, number="Theorem 1", title="Incremental learning (informal main result)",
        hypotheses=(_ORTHO, _INIT, "width m ≳ log n", "λ → 0"),
        conclusion="the accelerated flow converges to a piecewise-constant saddle-to-saddle process computed by "
                   "Algorithm 1; each transition creates one new non-zero neuron",
        confidence="likely", source="spec C §3 (Theorem 1), §2 (Algorithm 1)",
        meaning="incremental learning, and the limit is computable without training"),
    Statement(
        id="C.thm2", paper=_C, number="Theorem 2", title="Convergence to the limit process (main theorem)",
        hypotheses=(_ORTHO, _FROZEN, _INIT, _MASK),
        conclusion="θ̃^λ(τ) = θ^λ(τ ln(1/λ)) → θ̄(τ) of Algorithm 1 uniformly on compact subsets of "
                   "[0, ∞) \\ {τ_1, …, τ_K}, at a polynomial rate λ^c",
        confidence="likely", source="spec C §3 (Theorem 2), §2.2 eqs. (9)–(14)",
        meaning="saddle-to-saddle with one neuron per saddle; each fitted neuron fits exactly its unfitted active points"),
    Statement(
        id="C.thm3", paper=_C, number="Theorem 3", title="Implicit bias: squared norm of order √n",
        hypotheses=(_ORTHO, _INIT, "upper restriction ln m ≲ n^{≈1/2}/polylog n (exact form lost)"),
        conclusion=THM3_BOUND,
        constants={"C (spec §2.5 reconstruction, δ = 0.1)": "7.74", "C(δ)": sp.sstr(THM3_CONSTANT),
                   "failure probability per sign": sp.sstr(THM3_FAILURE_PROBABILITY), "C as δ → 0": "2(2+√2) ≈ 6.83",
                   "eq. (15)": sp.sstr(EQ15_NORM), "minimum norm": sp.sstr(MIN_NORM),
                   "eq. (15) bounds": sp.sstr(EQ15_BOUNDS)},
        confidence="guess", source="spec C §2.5, eq. (16); Appendix E eqs. (330)–(361)",
        meaning="the learned interpolator has Θ(√n) squared norm, within a constant factor of ‖θ*‖² "
                "(form likely, constants guessed)"),
    Statement(
        id="C.thm4", paper=_C, number="Theorem 4", title="Existence of solutions of differential inclusions (Aubin–Cellina)",
        hypotheses=("H a Hilbert space, Ω ⊂ ℝ × H open containing (0, x_0)",
                    "F upper semicontinuous with non-empty closed convex values", "(t, x) ↦ m(F(t, x)) locally compact"),
        conclusion="there are T > 0 and an absolutely continuous x: [0,T] → H with x'(t) ∈ F(t, x(t)) a.e., x(0) = x_0 (eq. 18)",
        confidence="likely", source="spec C §3 (Theorem 4), eq. (18); Aubin & Cellina 1984, Thm 3 Ch. 2",
        meaning="the gradient-flow inclusion (4) has local solutions",
        not_checkable_reason="an existence theorem for set-valued maps in a Hilbert space (a cited classical result); "
                             "no finite computation tests it"),
    Statement(
        id="C.prop2", paper=_C, number="Proposition 2", title="Assumption 4 holds with high probability",
        hypotheses=(_INIT, "m, n ≥ 1"),
        conclusion=sp.Eq(sp.Symbol("P(all rows of M non-zero)"), PROP2_EXACT),
        constants={"(i) lower bound (spec's constants)": sp.sstr(PROP2_LOWER),
                   "(ii)": "for mask satisfying 4(i), label vectors violating 4(ii) have Lebesgue measure 0"},
        confidence="likely", source="spec C §3 (Proposition 2), §1.7, §6 item 4",
        meaning="m ≳ log n suffices for interpolation; ties in Algorithm 1 have probability zero for continuous labels"),
    Statement(
        id="C.prop3", paper=_C, number="Proposition 3", title="Growth cap during the fast phase",
        hypotheses=("Hypothesis 1 at k", "ε, ζ, λ small enough"),
        conclusion="‖w̃_j(τ)‖ ≤ λ^{cζ} for every unfitted j ≠ j* on [T_1, T_1 + Δ], Δ = Θ(ζ n/‖y‖) (eq. 124)",
        confidence="guess", source="spec C §3 (Proposition 3), eqs. (119), (124)",
        meaning="the other neurons cannot catch up while the new neuron grows",
        not_checkable_reason=_PROOF_PHASE),
    Statement(
        id="C.prop4", paper=_C, number="Proposition 4", title="Halving of the unfitted set along a fixed order",
        hypotheses=("positive labels and neurons", "π an injective order [K_0] → [m]", "δ ∈ (0, 1)"),
        conclusion=sp.Ge(sp.Symbol("P(E)"), 1 - 2 * K0 * sp.exp(-delta**2 * q_minus**(K0 - 1) * n / 6)),
        constants={"q_±": "(1 ± δ)/2", "K_0": sp.sstr(K0)},
        confidence="guess", source="spec C §3 (Proposition 4), eqs. (330)–(334)",
        meaning="each new neuron fits about half of the remaining data"),
    Statement(
        id="C.prop5", paper=_C, number="Proposition 5", title="Norm of the first K_0 jumps",
        hypotheses=("event E of Proposition 4",),
        conclusion=sp.Le(2 * sp.Sum(y_S[k], (k, 1, K0)), 2 * y_inf * sp.sqrt(n) * sp.sqrt(q_plus) / (1 - sp.sqrt(q_plus))),
        confidence="guess", source="spec C §3 (Proposition 5), eq. (354)",
        meaning="geometric decay of the fitted sets bounds the early part of the norm"),
    Statement(
        id="C.prop6", paper=_C, number="Proposition 6", title="Norm of the jumps after K_0",
        hypotheses=("event E of Proposition 4",),
        conclusion=sp.Le(2 * sp.Sum(y_S[k], (k, K0 + 1, K)), 2 * y_inf * q_plus**K0 * n),
        confidence="guess", source="spec C §3 (Proposition 6), eq. (358)",
        meaning="the few data left after K_0 jumps add at most O(‖y‖_∞√n)"),
    Statement(
        id="C.prop7", paper=_C, number="Proposition 7", title="Alignment gives coordinate-wise closeness",
        hypotheses=("ε ∈ (0, 1)", "unit vectors u, v with ⟨u, v⟩ ≥ 1 − ε", _ORTHO),
        conclusion=PROP7, confidence="certain", source="spec C §3 (Proposition 7), eq. (362)",
        meaning="Σ_i (u_i − v_i)² ≤ ‖u − v‖² = 2 − 2⟨u, v⟩"),
    Statement(
        id="C.lem1", paper=_C, number="Lemma 1", title="No motion inside a plateau",
        hypotheses=("Hypothesis 1 for k",),
        conclusion="θ̃^λ → θ̄^{(k)} uniformly on [a, b] for all τ_k < a < b < τ_{k+1}",
        confidence="likely", source="spec C §3 (Lemma 1)", meaning="plateaus are flat in the limit"),
    Statement(
        id="C.lem2", paper=_C, number="Lemma 2", title="Induction step across one jump",
        hypotheses=("Hypothesis 1 for k < K",), conclusion="Hypothesis 1 holds for k + 1",
        confidence="likely", source="spec C §3 (Lemma 2), §6 item 7",
        meaning="the induction of the proof of Theorem 2",
        not_checkable_reason="an implication between proof invariants with unspecified ε/λ quantifiers; its "
                             "observable consequence (the flow near each saddle after each jump) is covered by Theorem 2's jump "
                             "and plateau checks"),
    Statement(
        id="C.lem3", paper=_C, number="Lemma 3", title="Base case: early alignment and sign decoupling",
        hypotheses=(_ORTHO, _FROZEN, _INIT, "t_0 ∈ (0, t̄), λ small enough"),
        conclusion="⟨w̄_j(t_0), w̄_j^{(0)}⟩ ≥ 1 − ε; |ũ_j(t_0) − (1 − t_0‖D_j^{(0)}‖)| ≤ ε; wrong-sign components ≤ 0",
        confidence="guess", source="spec C §3 (Lemma 3), eqs. (56)–(57)",
        meaning="alignment within o(1) accelerated time; the two sign classes evolve independently"),
    Statement(
        id="C.lem4", paper=_C, number="Lemma 4", title="Phase 1: slow growth",
        hypotheses=("Hypothesis 1 at k", "exit conditions (58)–(61)"),
        conclusion="T_1 → τ_{k+1} − ζ/‖D_{j*}^{(k)}‖; only exponents move, along the predicted slopes",
        confidence="guess", source="spec C §3 (Lemma 4), eqs. (58)–(61)",
        meaning="on a plateau only the exponents move", not_checkable_reason=_PROOF_PHASE),
    Statement(
        id="C.lem5", paper=_C, number="Lemma 5", title="Phase 2a: growth to constant order",
        hypotheses=("end of Phase 1", "threshold c_0 of eq. (132)"),
        conclusion="T_2a − T_1 ≤ (ζ/‖D_{j*}^{(k)}‖)(1 + O(ε)) + o(1); fitted data stay fitted",
        confidence="guess", source="spec C §3 (Lemma 5), eqs. (132)–(169)",
        meaning="the new neuron grows to O(1) without disturbing fitted data", not_checkable_reason=_PROOF_PHASE),
    Statement(
        id="C.lem6", paper=_C, number="Lemma 6", title="Phase 2b: fitting",
        hypotheses=("end of Phase 2a",),
        conclusion="T_2b − T_2a = O(log(1/ε)/log(1/λ)); j* is ε-close to eqs. (13)–(14)",
        confidence="guess", source="spec C §3 (Lemma 6), eqs. (202)–(236), §6 item 8",
        meaning="the jump takes o(1) accelerated time"),
    Statement(
        id="C.lem7", paper=_C, number="Lemma 7", title="Phase 3: realignment",
        hypotheses=("end of Phase 2b",),
        conclusion="T_3 ∈ (τ_{k+1}, τ_{k+1} + O(ε)); unfitted neurons align with eq. (9) at saddle k+1",
        confidence="guess", source="spec C §3 (Lemma 7), eqs. (251)–(253)",
        meaning="the remaining neurons turn to their new directions right after the jump", not_checkable_reason=_PROOF_PHASE),
    Statement(
        id="C.lem8", paper=_C, number="Lemma 8", title="Stable slow growth until the next jump",
        hypotheses=("end of Phase 3", "b ∈ (τ_{k+1}, τ_{k+2})"),
        conclusion="on [T_3, b]: alignment, fitted norms and |ũ_j − u_j| ≤ ε' persist",
        confidence="guess", source="spec C §3 (Lemma 8)",
        meaning="as Lemma 4 on the next plateau", not_checkable_reason=_PROOF_PHASE),
    Statement(
        id="C.lem9", paper=_C, number="Lemma 9", title="Final saddle",
        hypotheses=("Hypothesis 1 items at some t_K ∈ (τ_K, τ_K + ε)",),
        conclusion="θ̃^λ → θ̄^{(K)} uniformly on [t_K, b] for every b > t_K; unfitted ‖w̃_j‖ ≤ λ^{ε/2}",
        confidence="likely", source="spec C §3 (Lemma 9)", meaning="nothing happens after the last jump"),
    Statement(
        id="C.lem10", paper=_C, number="Lemma 10", title="Bihari/Grönwall-type bound",
        hypotheses=("f: [0, T] → [0, ∞) Lipschitz, f(0) = f_0", "f' ≤ α f + β √f a.e., α ∈ ℝ, β ≥ 0"),
        conclusion=LEM10_BOUND, constants={"α = 0": "√f(t) ≤ √f_0 + βt/2"},
        confidence="guess", source="spec C §3 (Lemma 10)", meaning="controls the loss on fitted data"),
    Statement(
        id="C.cor1", paper=_C, number="Corollary 1", title="Halving for all orders (union bound)",
        hypotheses=("Proposition 4",),
        conclusion=sp.Ge(sp.Symbol("P(E for all orders)"), 1 - THM3_FAILURE_PROBABILITY),
        confidence="likely", source="spec C §3 (Corollary 1), eqs. (350)–(353), §6 items 3, 9",
        meaning="the event E holds for Algorithm 1's order; this union bound restricts m from above"),
    Statement(
        id="C.cor2", paper=_C, number="Corollary 2", title="Aligned neurons stay active on their set",
        hypotheses=("⟨w̄_j, w̄_j^{(k)}⟩ ≥ 1 − ε, ε small",),
        conclusion="⟨w̄_j, x_i⟩ ≥ |y_i|/‖y_{S_j^{(k)}}‖ − √(2ε) on S_j^{(k)} and Σ_{i∉S_j^{(k)}} ⟨w̄_j, x_i⟩² ≤ 2ε (eq. 367)",
        confidence="guess", source="spec C §3 (Corollary 2), eq. (367)",
        meaning="an aligned neuron stays active on its set and has little mass elsewhere"),
    Statement(
        id="C.asm1", paper=_C, number="Assumption 1", title="Orthonormal inputs",
        conclusion="⟨x_i, x_k⟩ = 1{i = k} for all i, k ∈ [n]", confidence="likely", source="spec C §1.2",
        meaning="the data form an orthonormal family (rotation invariance: x_i = e_i w.l.o.g.)",
        not_checkable_reason="a hypothesis on the input, not a claim: `Instance.require_orthonormal` refuses a "
                             "violating instance with a HypothesisViolation naming Assumption 1 (tested in "
                             "tests/test_paper_c_algorithm.py, with the rotation invariance of Algorithm 1)"),
    Statement(
        id="C.asm2", paper=_C, number="Assumption 2", title="Frozen non-positive components",
        conclusion="⟨w_j(t), x_i⟩ ≤ 0 implies ⟨w_j(t'), x_i⟩ = ⟨w_j(t), x_i⟩ for all t' ≥ t",
        confidence="likely", source="spec C §1.4", meaning="a neuron never re-activates on a point"),
    Statement(
        id="C.asm3", paper=_C, number="Assumption 3", title="Balanced small initialization",
        conclusion="w_j(0) = λ ḡ_j with ḡ_j ~ Unif(S^{d−1}); a_j(0) = s_j λ with s_j ~ Unif{±1} independent",
        confidence="likely", source="spec C §1.5",
        meaning="activation signs are uniform on {±1}^n, independent across neurons and of s"),
    Statement(
        id="C.asm4", paper=_C, number="Assumption 4", title="Mask non-degeneracy and unique argmin",
        hypotheses=("mask M_ij = 1{⟨w_j(0), x_i⟩ > 0 and s_j y_i > 0}",),
        conclusion="(i) every row and column of M non-zero, columns pairwise distinct; (ii) y_i ≠ 0 and the argmin "
                   "of line 8 of Algorithm 1 is unique at every iteration",
        confidence="likely", source="spec C §3 (Assumption 4), §1.7, §6 item 4",
        meaning="rows give interpolation, columns a growth direction for every neuron, (ii) a well-defined order"),
    Statement(
        id="C.def1", paper=_C, number="Definition 1", title="Clarke subdifferential",
        conclusion="∂f(θ) = conv{lim ∇f(θ_k) : θ_k → θ, θ_k ∈ Ω_f} (eq. 17)", confidence="certain",
        source="spec C §3 (Definition 1), eq. (17)",
        meaning="generalized gradient for ReLU networks; the flow is gradient descent's limit: σ'(0) = 0 off the kinks, "
                "Filippov sliding on them"),
    Statement(
        id="C.hyp1", paper=_C, number="Hypothesis 1", title="Inductive invariant just after jump k",
        hypotheses=("k ∈ {0, …, K}", "ε > 0, λ small enough"),
        conclusion="∃ t_k ∈ (τ_k, τ_k + ε): exponents ε-close to u_j, fitted neurons ε-close to θ̄^{(k)}, "
                   "loss on fitted data small, unfitted neurons aligned with eq. (9)",
        confidence="guess", source="spec C §3 (Hypothesis 1), §6 item 7",
        meaning="just after jump k the flow sits near saddle k, aligned, with the predicted exponents"),
)
