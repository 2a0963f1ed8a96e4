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
_ORTHO_TEX = r"Assumption~1: orthonormal inputs, $\langle x_i,x_k\rangle=\mathbf{1}_{i=k}$ (so $d\ge n$)"
_FROZEN_TEX = r"Assumption~2: a component with $\langle w_j,x_i\rangle\le0$ stays frozen (the selection $\sigma'(0)=0$)"
_INIT_TEX = (r"Assumption~3: $w_j(0)=\lambda\bar g_j$ with $\bar g_j$ uniform on the sphere, and $a_j(0)=s_j\lambda$ with "
             r"fair signs $s_j\in\{\pm1\}$")
_MASK_TEX = (r"Assumption~4: the rows and columns of the mask are non-zero and its columns distinct, $y_i\neq0$, and the "
             r"argmin of Algorithm~1 is unique")
_HYP1_TEX = r"Hypothesis~1 at $k$"
_TILDE_THETA_TEX = r"$\tilde\theta^\lambda(\tau)=\theta^\lambda(\tau\ln(1/\lambda))$"
_PROOF_PHASE = ("a proof-phase statement whose constants (ε, ζ, c_0, exit times) are guesses of the reconstruction; "
                "its observable content is covered by the paper-C flow checks of Theorem 2 and Lemmas 1, 3, 9")

_C = "C"
register(
    Statement(
        id="C.thm1", paper=_C, number="Theorem 1", title="Incremental learning (informal main result)",
        hypotheses=(_ORTHO, _INIT, "width m ≳ log n", "λ → 0"),
        conclusion="the accelerated flow converges to a piecewise-constant saddle-to-saddle process computed by "
                   "Algorithm 1; each transition creates one new non-zero neuron",
        confidence="likely", source="spec C §3 (Theorem 1), §2 (Algorithm 1)",
        meaning="incremental learning, and the limit is computable without training",
        hypotheses_tex=(_ORTHO_TEX, _INIT_TEX, r"width $m\gtrsim\log n$", r"$\lambda\to0$"),
        conclusion_tex=(r"In the accelerated time $\tau=t/\ln(1/\lambda)$, the gradient flow converges to a piecewise-constant "
                        r"saddle-to-saddle process, which Algorithm~1 computes without training; each transition creates one "
                        r"new non-zero neuron.")),
    Statement(
        id="C.thm2", paper=_C, number="Theorem 2", title="Convergence to the limit process (main theorem)",
        hypotheses=(_ORTHO, _FROZEN, _INIT, _MASK),
        conclusion="θ̃^λ(τ) = θ^λ(τ ln(1/λ)) → θ̄(τ) of Algorithm 1 uniformly on compact subsets of "
                   "[0, ∞) \\ {τ_1, …, τ_K}, at a polynomial rate λ^c",
        confidence="likely", source="spec C §3 (Theorem 2), §2.2 eqs. (9)–(14)",
        meaning="saddle-to-saddle with one neuron per saddle; each fitted neuron fits exactly its unfitted active points",
        hypotheses_tex=(_ORTHO_TEX, _FROZEN_TEX, _INIT_TEX, _MASK_TEX),
        conclusion_tex=(r"As $\lambda\to0$, "
                        r"\[ \tilde\theta^\lambda(\tau)=\theta^\lambda\bigl(\tau\ln(1/\lambda)\bigr)"
                        r"\longrightarrow\bar\theta(\tau) \]"
                        r"uniformly on the compact subsets of $[0,\infty)\setminus\{\tau_1,\dots,\tau_K\}$, at a polynomial "
                        r"rate $\lambda^c$, where $\bar\theta$ is the piecewise-constant process of Algorithm~1 with jump times "
                        r"$\tau_1<\dots<\tau_K$.")),
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
                "(form likely, constants guessed)",
        title_tex=r"Implicit bias: squared norm of order $\sqrt{n}$",
        hypotheses_tex=(_ORTHO_TEX, _INIT_TEX,
                        r"an upper restriction $\ln m\lesssim n^{1/2}/\operatorname{polylog}(n)$ (exact form lost)"),
        conclusion_tex=(r"Let $\delta\in(0,1)$, $q_\pm=(1\pm\delta)/2$ and $K_0=\lceil\ln n/(2\ln(1/q_+))\rceil$. Except on "
                        r"an event of probability at most $2K_0m^{K_0}\exp(-\delta^2q_-^{K_0-1}n/6)$ for each sign of the "
                        r"labels, the limit of the flow satisfies (eq.~(16)) "
                        r"\[ \lVert\theta_\infty\rVert^2\le C\,\lVert y\rVert_\infty\sqrt n,\qquad "
                        r"C=2\Bigl(\frac{\sqrt{q_+}}{1-\sqrt{q_+}}+1\Bigr) \]"
                        r"with $C\approx7.74$ for $\delta=0.1$. For comparison, "
                        r"$\lVert\theta_\infty\rVert^2=2\sum_{k=1}^K\lVert y_{S_k}\rVert$ (eq.~(15)) is at least the minimum "
                        r"norm $\lVert\theta^\star\rVert^2=2(\lVert y_+\rVert+\lVert y_-\rVert)$.")),
    Statement(
        id="C.thm4", paper=_C, number="Theorem 4", title="Existence of solutions of differential inclusions (Aubin–Cellina)",
        hypotheses=("H a Hilbert space, Ω ⊂ ℝ × H open containing (0, x_0)",
                    "F upper semicontinuous with non-empty closed convex values", "(t, x) ↦ m(F(t, x)) locally compact"),
        conclusion="there are T > 0 and an absolutely continuous x: [0,T] → H with x'(t) ∈ F(t, x(t)) a.e., x(0) = x_0 (eq. 18)",
        confidence="likely", source="spec C §3 (Theorem 4), eq. (18); Aubin & Cellina 1984, Thm 3 Ch. 2",
        meaning="the gradient-flow inclusion (4) has local solutions",
        not_checkable_reason="an existence theorem for set-valued maps in a Hilbert space (a cited classical result); "
                             "no finite computation tests it",
        hypotheses_tex=(r"$H$ a Hilbert space, and $\Omega\subset\mathbb{R}\times H$ an open set containing $(0,x_0)$",
                        r"$F$ upper semicontinuous on $\Omega$, with non-empty closed convex values",
                        r"$(t,x)\mapsto m(F(t,x))$ locally compact, $m(K)$ being the element of least norm of $K$"),
        conclusion_tex=(r"There are $T>0$ and an absolutely continuous $x\colon[0,T]\to H$ with $x'(t)\in F(t,x(t))$ for "
                        r"almost every $t$ and $x(0)=x_0$ (eq.~(18)).")),
    Statement(
        id="C.prop2", paper=_C, number="Proposition 2", title="Assumption 4 holds with high probability",
        hypotheses=(_INIT, "m, n ≥ 1"),
        conclusion=sp.Eq(sp.Symbol("P(all rows of M non-zero)"), PROP2_EXACT),
        constants={"(i) lower bound (spec's constants)": sp.sstr(PROP2_LOWER),
                   "(ii)": "for mask satisfying 4(i), label vectors violating 4(ii) have Lebesgue measure 0"},
        confidence="likely", source="spec C §3 (Proposition 2), §1.7, §6 item 4",
        meaning="m ≳ log n suffices for interpolation; ties in Algorithm 1 have probability zero for continuous labels",
        hypotheses_tex=(_INIT_TEX, r"$m,n\ge1$"),
        conclusion_tex=(r"Let $n_\pm$ be the numbers of positive and negative labels and $M$ the mask of Assumption~4. "
                        r"(i)~Every row of $M$ is non-zero with probability "
                        r"\[ \sum_{k=0}^m\binom{m}{k}2^{-m}\bigl(1-2^{-k}\bigr)^{n_+}\bigl(1-2^{-(m-k)}\bigr)^{n_-}, \]"
                        r"and Assumption~4(i) holds with probability at least "
                        r"\[ 1-n\bigl(\tfrac34\bigr)^m-\Bigl(m+\frac{m(m-1)}{4}\Bigr)2^{-\min(n_+,n_-)}. \]"
                        r"(ii)~For a mask satisfying "
                        r"Assumption~4(i), the label vectors violating Assumption~4(ii) form a set of Lebesgue measure zero.")),
    Statement(
        id="C.prop3", paper=_C, number="Proposition 3", title="Growth cap during the fast phase",
        hypotheses=("Hypothesis 1 at k", "ε, ζ, λ small enough"),
        conclusion="‖w̃_j(τ)‖ ≤ λ^{cζ} for every unfitted j ≠ j* on [T_1, T_1 + Δ], Δ = Θ(ζ n/‖y‖) (eq. 124)",
        confidence="guess", source="spec C §3 (Proposition 3), eqs. (119), (124)",
        meaning="the other neurons cannot catch up while the new neuron grows",
        not_checkable_reason=_PROOF_PHASE,
        hypotheses_tex=(_HYP1_TEX, r"$\varepsilon$, $\zeta$ and $\lambda$ small enough"),
        conclusion_tex=(r"For every unfitted neuron $j\neq j^\ast$, $\lVert\tilde w_j(\tau)\rVert\le\lambda^{c\zeta}$ on "
                        r"$[T_1,T_1+\Delta]$, with $\Delta=\Theta(\zeta n/\lVert y\rVert)$ (eq.~(124)).")),
    Statement(
        id="C.prop4", paper=_C, number="Proposition 4", title="Halving of the unfitted set along a fixed order",
        hypotheses=("positive labels and neurons", "π an injective order [K_0] → [m]", "δ ∈ (0, 1)"),
        conclusion=sp.Ge(sp.Symbol("P(E)"), 1 - 2 * K0 * sp.exp(-delta**2 * q_minus**(K0 - 1) * n / 6)),
        constants={"q_±": "(1 ± δ)/2", "K_0": sp.sstr(K0)},
        confidence="guess", source="spec C §3 (Proposition 4), eqs. (330)–(334)",
        meaning="each new neuron fits about half of the remaining data",
        hypotheses_tex=(r"positive labels and neurons", r"$\pi\colon[K_0]\to[m]$ an injective order", r"$\delta\in(0,1)$"),
        conclusion_tex=(r"Let $U_k$ be the data not yet fitted after the first $k$ neurons of the order $\pi$, "
                        r"$q_\pm=(1\pm\delta)/2$ and $K_0=\lceil\ln n/(2\ln(1/q_+))\rceil$. The event $E$ that "
                        r"$\bigl\lvert\lvert U_k\rvert-\lvert U_{k-1}\rvert/2\bigr\rvert\le\delta\lvert U_{k-1}\rvert/2$ "
                        r"for every $k\le K_0$ (eqs.~(332)--(333)) has "
                        r"\[ \mathbb{P}(E)\ge1-2K_0\exp\Bigl(-\frac{\delta^2q_-^{K_0-1}n}{6}\Bigr). \]")),
    Statement(
        id="C.prop5", paper=_C, number="Proposition 5", title="Norm of the first K_0 jumps",
        hypotheses=("event E of Proposition 4",),
        conclusion=sp.Le(2 * sp.Sum(y_S[k], (k, 1, K0)), 2 * y_inf * sp.sqrt(n) * sp.sqrt(q_plus) / (1 - sp.sqrt(q_plus))),
        confidence="guess", source="spec C §3 (Proposition 5), eq. (354)",
        meaning="geometric decay of the fitted sets bounds the early part of the norm",
        hypotheses_tex=(r"the event $E$ of Proposition~4",),
        conclusion_tex=(r"The first $K_0$ jumps add at most (eq.~(354)) \[ 2\sum_{k=1}^{K_0}\lVert "
                        r"y_{S_k}\rVert\le2\lVert y\rVert_\infty\sqrt n\,"
                        r"\frac{\sqrt{q_+}}{1-\sqrt{q_+}}. \]")),
    Statement(
        id="C.prop6", paper=_C, number="Proposition 6", title="Norm of the jumps after K_0",
        hypotheses=("event E of Proposition 4",),
        conclusion=sp.Le(2 * sp.Sum(y_S[k], (k, K0 + 1, K)), 2 * y_inf * q_plus**K0 * n),
        confidence="guess", source="spec C §3 (Proposition 6), eq. (358)",
        meaning="the few data left after K_0 jumps add at most O(‖y‖_∞√n)",
        hypotheses_tex=(r"the event $E$ of Proposition~4",),
        conclusion_tex=(r"The jumps after $K_0$ add at most (eq.~(358)) \[ 2\sum_{k=K_0+1}^{K}\lVert "
                        r"y_{S_k}\rVert\le2\lVert y\rVert_\infty\,q_+^{K_0}n. \]")),
    Statement(
        id="C.prop7", paper=_C, number="Proposition 7", title="Alignment gives coordinate-wise closeness",
        hypotheses=("ε ∈ (0, 1)", "unit vectors u, v with ⟨u, v⟩ ≥ 1 − ε", _ORTHO),
        conclusion=PROP7, confidence="certain", source="spec C §3 (Proposition 7), eq. (362)",
        meaning="Σ_i (u_i − v_i)² ≤ ‖u − v‖² = 2 − 2⟨u, v⟩",
        hypotheses_tex=(r"$\varepsilon\in(0,1)$", r"unit vectors $u$ and $v$ with $\langle u,v\rangle\ge1-\varepsilon$",
                        _ORTHO_TEX),
        conclusion_tex=(r"For every $i$ (eq.~(362)), "
                        r"\[ \lvert u_i-v_i\rvert=\lvert\langle u,x_i\rangle-\langle "
                        r"v,x_i\rangle\rvert\le\sqrt{2\varepsilon}. \]")),
    Statement(
        id="C.lem1", paper=_C, number="Lemma 1", title="No motion inside a plateau",
        hypotheses=("Hypothesis 1 for k",),
        conclusion="θ̃^λ → θ̄^{(k)} uniformly on [a, b] for all τ_k < a < b < τ_{k+1}",
        confidence="likely", source="spec C §3 (Lemma 1)", meaning="plateaus are flat in the limit",
        hypotheses_tex=(r"Hypothesis~1 for $k$",),
        conclusion_tex=(r"For all $\tau_k<a<b<\tau_{k+1}$, $\tilde\theta^\lambda\to\bar\theta^{(k)}$ uniformly on $[a,b]$ "
                        r"as $\lambda\to0$.")),
    Statement(
        id="C.lem2", paper=_C, number="Lemma 2", title="Induction step across one jump",
        hypotheses=("Hypothesis 1 for k < K",), conclusion="Hypothesis 1 holds for k + 1",
        confidence="likely", source="spec C §3 (Lemma 2), §6 item 7",
        meaning="the induction of the proof of Theorem 2",
        not_checkable_reason="an implication between proof invariants with unspecified ε/λ quantifiers; its "
                             "observable consequence (the flow near each saddle after each jump) is covered by Theorem 2's jump "
                             "and plateau checks",
        hypotheses_tex=(r"Hypothesis~1 for some $k<K$",),
        conclusion_tex=r"Hypothesis~1 holds for $k+1$."),
    Statement(
        id="C.lem3", paper=_C, number="Lemma 3", title="Base case: early alignment and sign decoupling",
        hypotheses=(_ORTHO, _FROZEN, _INIT, "t_0 ∈ (0, t̄), λ small enough"),
        conclusion="⟨w̄_j(t_0), w̄_j^{(0)}⟩ ≥ 1 − ε; |ũ_j(t_0) − (1 − t_0‖D_j^{(0)}‖)| ≤ ε; wrong-sign components ≤ 0",
        confidence="guess", source="spec C §3 (Lemma 3), eqs. (56)–(57)",
        meaning="alignment within o(1) accelerated time; the two sign classes evolve independently",
        hypotheses_tex=(_ORTHO_TEX, _FROZEN_TEX, _INIT_TEX, r"$t_0\in(0,\bar t)$ and $\lambda$ small enough"),
        conclusion_tex=(r"For both signs and every neuron $j$ of that sign: (1)~$\langle\bar w_j(t_0),\bar w_j^{(0)}\rangle\ge1-"
                        r"\varepsilon$; (2)~$\bigl\lvert\tilde u_j(t_0)-(1-t_0\lVert D_j^{(0)}\rVert)\bigr\rvert\le\varepsilon$; "
                        r"(3)~$\langle\tilde w_j(t_0),x_i\rangle\le0$ for every $i$ whose label has the other sign "
                        r"(eqs.~(56)--(57)).")),
    Statement(
        id="C.lem4", paper=_C, number="Lemma 4", title="Phase 1: slow growth",
        hypotheses=("Hypothesis 1 at k", "exit conditions (58)–(61)"),
        conclusion="T_1 → τ_{k+1} − ζ/‖D_{j*}^{(k)}‖; only exponents move, along the predicted slopes",
        confidence="guess", source="spec C §3 (Lemma 4), eqs. (58)–(61)",
        meaning="on a plateau only the exponents move", not_checkable_reason=_PROOF_PHASE,
        hypotheses_tex=(_HYP1_TEX, r"the exit conditions~(58)--(61)"),
        conclusion_tex=(r"The exit time satisfies $T_1\to\tau_{k+1}-\zeta/\lVert D_{j^\ast}^{(k)}\rVert$ (within "
                        r"$O(\varepsilon)$); until then only the norm exponents move, along the predicted slopes.")),
    Statement(
        id="C.lem5", paper=_C, number="Lemma 5", title="Phase 2a: growth to constant order",
        hypotheses=("end of Phase 1", "threshold c_0 of eq. (132)"),
        conclusion="T_2a − T_1 ≤ (ζ/‖D_{j*}^{(k)}‖)(1 + O(ε)) + o(1); fitted data stay fitted",
        confidence="guess", source="spec C §3 (Lemma 5), eqs. (132)–(169)",
        meaning="the new neuron grows to O(1) without disturbing fitted data", not_checkable_reason=_PROOF_PHASE,
        hypotheses_tex=(r"the end of Phase~1", r"the threshold $c_0$ of eq.~(132)"),
        conclusion_tex=(r"$T_{2a}-T_1\le\bigl(\zeta/\lVert D_{j^\ast}^{(k)}\rVert\bigr)\bigl(1+O(\varepsilon)\bigr)+o(1)$, and "
                        r"the data already fitted stay fitted.")),
    Statement(
        id="C.lem6", paper=_C, number="Lemma 6", title="Phase 2b: fitting",
        hypotheses=("end of Phase 2a",),
        conclusion="T_2b − T_2a = O(log(1/ε)/log(1/λ)); j* is ε-close to eqs. (13)–(14)",
        confidence="guess", source="spec C §3 (Lemma 6), eqs. (202)–(236), §6 item 8",
        meaning="the jump takes o(1) accelerated time",
        hypotheses_tex=(r"the end of Phase~2a",),
        conclusion_tex=(r"$T_{2b}-T_{2a}=O\bigl(\log(1/\varepsilon)/\log(1/\lambda)\bigr)$, and the neuron $j^\ast$ is "
                        r"$\varepsilon$-close to its final value, eqs.~(13) and~(14).")),
    Statement(
        id="C.lem7", paper=_C, number="Lemma 7", title="Phase 3: realignment",
        hypotheses=("end of Phase 2b",),
        conclusion="T_3 ∈ (τ_{k+1}, τ_{k+1} + O(ε)); unfitted neurons align with eq. (9) at saddle k+1",
        confidence="guess", source="spec C §3 (Lemma 7), eqs. (251)–(253)",
        meaning="the remaining neurons turn to their new directions right after the jump", not_checkable_reason=_PROOF_PHASE,
        hypotheses_tex=(r"the end of Phase~2b",),
        conclusion_tex=(r"$T_3\in\bigl(\tau_{k+1},\tau_{k+1}+O(\varepsilon)\bigr)$, and the unfitted neurons are aligned with "
                        r"their directions~(9) at saddle $k+1$.")),
    Statement(
        id="C.lem8", paper=_C, number="Lemma 8", title="Stable slow growth until the next jump",
        hypotheses=("end of Phase 3", "b ∈ (τ_{k+1}, τ_{k+2})"),
        conclusion="on [T_3, b]: alignment, fitted norms and |ũ_j − u_j| ≤ ε' persist",
        confidence="guess", source="spec C §3 (Lemma 8)",
        meaning="as Lemma 4 on the next plateau", not_checkable_reason=_PROOF_PHASE,
        hypotheses_tex=(r"the end of Phase~3", r"$b\in(\tau_{k+1},\tau_{k+2})$"),
        conclusion_tex=(r"On $[T_3,b]$ the alignment, the fitted norms and $\lvert\tilde u_j-u_j\rvert\le\varepsilon'$ "
                        r"persist.")),
    Statement(
        id="C.lem9", paper=_C, number="Lemma 9", title="Final saddle",
        hypotheses=("Hypothesis 1 items at some t_K ∈ (τ_K, τ_K + ε)",),
        conclusion="θ̃^λ → θ̄^{(K)} uniformly on [t_K, b] for every b > t_K; unfitted ‖w̃_j‖ ≤ λ^{ε/2}",
        confidence="likely", source="spec C §3 (Lemma 9)", meaning="nothing happens after the last jump",
        hypotheses_tex=(r"the items of Hypothesis~1 at some $t_K\in(\tau_K,\tau_K+\varepsilon)$",),
        conclusion_tex=(r"For every $b>t_K$, $\tilde\theta^\lambda\to\bar\theta^{(K)}$ uniformly on $[t_K,b]$, and the "
                        r"unfitted neurons satisfy $\lVert\tilde w_j\rVert\le\lambda^{\varepsilon/2}$.")),
    Statement(
        id="C.lem10", paper=_C, number="Lemma 10", title="Bihari/Grönwall-type bound",
        hypotheses=("f: [0, T] → [0, ∞) Lipschitz, f(0) = f_0", "f' ≤ α f + β √f a.e., α ∈ ℝ, β ≥ 0"),
        conclusion=LEM10_BOUND, constants={"α = 0": "√f(t) ≤ √f_0 + βt/2"},
        confidence="guess", source="spec C §3 (Lemma 10)", meaning="controls the loss on fitted data",
        hypotheses_tex=(r"$f\colon[0,T]\to[0,\infty)$ Lipschitz, with $f(0)=f_0$",
                        r"$f'\le\alpha f+\beta\sqrt f$ almost everywhere, with $\alpha\in\mathbb{R}$ and $\beta\ge0$"),
        conclusion_tex=(r"For all $t\in[0,T]$, "
                        r"\[ \sqrt{f(t)}\le e^{\alpha t/2}\sqrt{f_0}+\frac{\beta}{\alpha}\bigl(e^{\alpha t/2}-1\bigr), \]"
                        r"read as $\sqrt{f(t)}\le\sqrt{f_0}+\beta t/2$ when $\alpha=0$.")),
    Statement(
        id="C.cor1", paper=_C, number="Corollary 1", title="Halving for all orders (union bound)",
        hypotheses=("Proposition 4",),
        conclusion=sp.Ge(sp.Symbol("P(E for all orders)"), 1 - THM3_FAILURE_PROBABILITY),
        confidence="likely", source="spec C §3 (Corollary 1), eqs. (350)–(353), §6 items 3, 9",
        meaning="the event E holds for Algorithm 1's order; this union bound restricts m from above",
        hypotheses_tex=(r"Proposition~4",),
        conclusion_tex=(r"By a union bound over the at most $m^{K_0}$ injective orders "
                        r"(eqs.~(350)--(353)), the event $E$ holds for all orders "
                        r"at once, in particular for the order of Algorithm~1, with probability at least "
                        r"\[ 1-2K_0m^{K_0}\exp\Bigl(-\frac{\delta^2q_-^{K_0-1}n}{6}\Bigr). \]"
                        r"This union bound restricts $m$ from above.")),
    Statement(
        id="C.cor2", paper=_C, number="Corollary 2", title="Aligned neurons stay active on their set",
        hypotheses=("⟨w̄_j, w̄_j^{(k)}⟩ ≥ 1 − ε, ε small",),
        conclusion="⟨w̄_j, x_i⟩ ≥ |y_i|/‖y_{S_j^{(k)}}‖ − √(2ε) on S_j^{(k)} and Σ_{i∉S_j^{(k)}} ⟨w̄_j, x_i⟩² ≤ 2ε (eq. 367)",
        confidence="guess", source="spec C §3 (Corollary 2), eq. (367)",
        meaning="an aligned neuron stays active on its set and has little mass elsewhere",
        hypotheses_tex=(r"$\langle\bar w_j,\bar w_j^{(k)}\rangle\ge1-\varepsilon$ with $\varepsilon$ small",),
        conclusion_tex=(r"With $S=S_j^{(k)}$ (eq.~(367)), "
                        r"\[ \begin{gathered} \langle\bar w_j,x_i\rangle\ge\frac{\lvert y_i\rvert}{\lVert y_S\rVert}"
                        r"-\sqrt{2\varepsilon}\ \ (i\in S)\quad\text{and}\\ "
                        r"\sum_{i\notin S}\langle\bar w_j,x_i\rangle^2\le2\varepsilon. \end{gathered} \]")),
    Statement(
        id="C.asm1", paper=_C, number="Assumption 1", title="Orthonormal inputs",
        conclusion="⟨x_i, x_k⟩ = 1{i = k} for all i, k ∈ [n]", confidence="likely", source="spec C §1.2",
        meaning="the data form an orthonormal family (rotation invariance: x_i = e_i w.l.o.g.)",
        not_checkable_reason="a hypothesis on the input, not a claim: relucheck refuses an instance that violates it, "
                             "naming Assumption 1 (Algorithm 1's rotation invariance is tested with it)",
        conclusion_tex=r"$\langle x_i,x_k\rangle=\mathbf{1}_{i=k}$ for all $i,k\in[n]$."),
    Statement(
        id="C.asm2", paper=_C, number="Assumption 2", title="Frozen non-positive components",
        conclusion="⟨w_j(t), x_i⟩ ≤ 0 implies ⟨w_j(t'), x_i⟩ = ⟨w_j(t), x_i⟩ for all t' ≥ t",
        confidence="likely", source="spec C §1.4", meaning="a neuron never re-activates on a point",
        conclusion_tex=(r"A component that is not positive never moves again: if $\langle w_j(t),x_i\rangle\le0$, then "
                        r"\[ \langle w_j(t'),x_i\rangle=\langle w_j(t),x_i\rangle\quad\text{for all } t'\ge t. \]")),
    Statement(
        id="C.asm3", paper=_C, number="Assumption 3", title="Balanced small initialization",
        conclusion="w_j(0) = λ ḡ_j with ḡ_j ~ Unif(S^{d−1}); a_j(0) = s_j λ with s_j ~ Unif{±1} independent",
        confidence="likely", source="spec C §1.5",
        meaning="activation signs are uniform on {±1}^n, independent across neurons and of s",
        conclusion_tex=(r"$w_j(0)=\lambda\bar g_j$ with $\bar g_j$ uniform on the sphere $\mathbb{S}^{d-1}$, and "
                        r"$a_j(0)=s_j\lambda$ with $s_j$ uniform on $\{\pm1\}$, all independent.")),
    Statement(
        id="C.asm4", paper=_C, number="Assumption 4", title="Mask non-degeneracy and unique argmin",
        hypotheses=("mask M_ij = 1{⟨w_j(0), x_i⟩ > 0 and s_j y_i > 0}",),
        conclusion="(i) every row and column of M non-zero, columns pairwise distinct; (ii) y_i ≠ 0 and the argmin "
                   "of line 8 of Algorithm 1 is unique at every iteration",
        confidence="likely", source="spec C §3 (Assumption 4), §1.7, §6 item 4",
        meaning="rows give interpolation, columns a growth direction for every neuron, (ii) a well-defined order",
        hypotheses_tex=(r"the mask $M_{ij}=\mathbf{1}\{\langle w_j(0),x_i\rangle>0\text{ and }s_jy_i>0\}$",),
        conclusion_tex=(r"(i)~Every row and every column of $M$ is non-zero, and the columns are pairwise distinct; "
                        r"(ii)~$y_i\neq0$ for all $i$, and the argmin of line~8 of Algorithm~1 is unique at every iteration.")),
    Statement(
        id="C.def1", paper=_C, number="Definition 1", title="Clarke subdifferential",
        conclusion="∂f(θ) = conv{lim ∇f(θ_k) : θ_k → θ, θ_k ∈ Ω_f} (eq. 17)", confidence="certain",
        source="spec C §3 (Definition 1), eq. (17)",
        meaning="generalized gradient for ReLU networks; the flow is gradient descent's limit: σ'(0) = 0 off the kinks, "
                "Filippov sliding on them",
        conclusion_tex=(r"For a locally Lipschitz $f$ differentiable on $\Omega_f$ (eq.~(17)), "
                        r"\[ \partial f(\theta)=\operatorname{conv}\Bigl\{\lim_{k\to\infty}\nabla "
                        r"f(\theta_k):\theta_k\to\theta,\ "
                        r"\theta_k\in\Omega_f\Bigr\}. \]")),
    Statement(
        id="C.hyp1", paper=_C, number="Hypothesis 1", title="Inductive invariant just after jump k",
        hypotheses=("k ∈ {0, …, K}", "ε > 0, λ small enough"),
        conclusion="∃ t_k ∈ (τ_k, τ_k + ε): exponents ε-close to u_j, fitted neurons ε-close to θ̄^{(k)}, "
                   "loss on fitted data small, unfitted neurons aligned with eq. (9)",
        confidence="guess", source="spec C §3 (Hypothesis 1), §6 item 7",
        meaning="just after jump k the flow sits near saddle k, aligned, with the predicted exponents",
        hypotheses_tex=(r"$k\in\{0,\dots,K\}$", r"$\varepsilon>0$ and $\lambda$ small enough"),
        conclusion_tex=(r"There is $t_k\in(\tau_k,\tau_k+\varepsilon)$ at which: the norm exponents of the unfitted neurons are "
                        r"$\varepsilon$-close to $u_j$; the fitted neurons are $\varepsilon$-close to $\bar\theta^{(k)}$; "
                        r"the loss on the fitted data is small; and the unfitted neurons are aligned "
                        r"with their directions~(9).")),
)
