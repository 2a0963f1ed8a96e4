"""Paper B (Dana, Pillaud-Vivien & Bach, arXiv 2502.16977): its numbered statements as written.

Formulas are the paper's (seed 002, equation numbers of the seed) even where computation refutes
them; the refutations are findings recorded in docs/paper_b.md and checked in
proofs_checks/checks/paper_b_*.py. Confidence tags are spec B's: "verified symbolically",
"verified numerically", "error" (a formula or proof step found wrong), "unverified".
Lemma 1 (balancedness) lives in balancedness.py.

Symbols: n data, p neurons, d dimension; C_x^± = max/min ‖x_i‖, C_y^± = max/min |y_i|;
D_X = diag(‖x_i‖²); μ(t) = p‖∇L‖²/L the local-PL curvature; ⟨μ(t)⟩ = (1/t)∫_0^t μ.
"""
import sympy as sp

from ..statement import Statement
from . import register

t, u, n, p, d, eps = sp.symbols("t u n p d varepsilon", positive=True)
Cxm, Cxp, Cym, Cyp, Caw = sp.symbols("C_x^- C_x^+ C_y^- C_y^+ C_{a\\,w}", positive=True)
offdiag = sp.Symbol("\\|X^TX-D_X\\|", nonnegative=True)
mu = sp.Function("mu")
L = sp.Function("L")
mu_avg, mu_inf = sp.symbols("\\langle\\mu(t)\\rangle \\langle\\mu_\\infty\\rangle", positive=True)
P_I = sp.Symbol("\\mathbb{P}(\\mathcal{I})")
P_conv = sp.Symbol("\\mathbb{P}(L\\to0)")

# group dynamics (B eqs. 66–69, 80), with the paper's names: c = c_n^j, P = p_n √k_n ‖D_j^n‖,
# ρ = ⟨D̄_j^n, s_j w̄_j^+⟩, N = ‖w_j‖_+²
c, P, rho0, N0 = sp.symbols("c P rho_0 N_0", positive=True)
rho = sp.Function("rho")(t)
N = sp.Function("N")(t)
RHO_PAPER = (sp.sinh(c * t) + rho0 * sp.cosh(c * t)) / (sp.cosh(c * t) + rho0 * sp.sinh(c * t))  # (67)
N_PAPER = P * N0 * (sp.cosh(c * t) + rho0 * sp.sinh(c * t)) / (
    P + N0 * (sp.sinh(c * t) + rho0 * (sp.cosh(c * t) - 1)))  # (69)/(80)

_CY_SAME_SIGN = "all labels of group G_j share the sign s_j"
_GROUP = ("orthonormal inputs ⟨x_i, x_k⟩ = δ_ik", "group initialization (9): n = p_n k_n, neuron j active exactly on G_j",
          _CY_SAME_SIGN, "symmetric initialization |a_j(0)| = ‖w_j(0)‖")
_B = "output scaled by 1/p, time accelerated by p (B eqs. 1–3), σ'(0) = 0"
_B_TEX = r"output scaled by $1/p$, time accelerated by $p$ (eqs.~(1)--(3) of B), $\sigma'(0)=0$"
_GROUP_TEX = (r"orthonormal inputs, $\langle x_i,x_k\rangle=\delta_{ik}$",
              r"the group initialization~(9): $n=p_nk_n$, and neuron $j$ is active exactly on its group $G_j$",
              r"all labels of the group $G_j$ have the sign $s_j$",
              r"the symmetric initialization $\lvert a_j(0)\rvert=\lVert w_j(0)\rVert$")
_P_BOUND_TEX = r"$p\ge4\log({}n/\varepsilon)\bigl(1+(C_{{a,w}}C_x^+/C_y^+)^2\bigr)$"
_MISFIT_TEX = r"\Bigl\lvert1-\frac{r_i(t)}{y_i}\Bigr\rvert"

register(
    Statement(
        id="B.asm1", paper="B", number="Assumption 1", title="Asymmetric norm at initialization",
        conclusion=sp.Symbol("|a_j(0)|") >= sp.Symbol("\\|w_j(0)\\|"),
        confidence="verified numerically", source="seed 002 §3; spec B §1.5",
        meaning="for every neuron j; the proof of Theorem 1 needs the strict version a_j(0)² − ‖w_j(0)‖² > 0",
        not_checkable_reason="a hypothesis, not a claim: the initializations of paper B's checks are drawn so that it "
                             "holds strictly",
        conclusion_tex=r"For every neuron $j\in\{1,\dots,p\}$, $\lvert a_j(0)\rvert\ge\lVert w_j(0)\rVert$.",
    ),
    Statement(
        id="B.asm2", paper="B", number="Assumption 2", title="Low-correlated inputs",
        conclusion=sp.StrictLessThan(offdiag, Cxm**2 / (2 * sp.sqrt(n)) * Cym / Cyp),
        confidence="verified numerically", source="seed 002 eq. (4); spec B §1.6",
        meaning="the off-diagonal Gram matrix is small in operator norm",
        not_checkable_reason="a hypothesis on the data, not a claim: verified on every data draw of the checks of "
                             "Theorem 1 and Corollary 1",
        conclusion_tex=(r"The data satisfy (eq.~(4)) "
                        r"\[ \lVert X^\top X-D_X\rVert<\frac{(C_x^-)^2}{2\sqrt n}\,\frac{C_y^-}{C_y^+} \]"
                        r"where $D_X=\operatorname{diag}(\lVert x_i\rVert^2)$, $C_x^+=\max_i\lVert x_i\rVert$, "
                        r"$C_x^-=\min_i\lVert x_i\rVert$, $C_y^+=\max_i\lvert y_i\rvert$ and $C_y^-=\min_i\lvert y_i\rvert$."),
    ),
    Statement(
        id="B.lem2", paper="B", number="Lemma 2", title="Local-PL integral identity",
        hypotheses=(_B,),
        conclusion=sp.Eq(L(t), L(0) * sp.exp(-mu_avg * t)),
        constants={"⟨μ(t)⟩": "(1/t)∫_0^t μ(u) du", "μ": "p‖∇L‖²/L = −L'/L (eq. 5)"},
        confidence="verified numerically", source="seed 002 Lemma 2, eq. (5); spec B §2.2",
        meaning="μ is the instantaneous exponential decay rate of the loss (the proof omits the factor p)",
        hypotheses_tex=(_B_TEX,),
        conclusion_tex=(r"With the local-PL curvature $\mu(t)=p\lVert\nabla L(\theta_t)\rVert^2/L(\theta_t)$ (eq.~(5)) and "
                        r"its time average $\langle\mu(t)\rangle=\frac1t\int_0^t\mu(u)\,\mathrm{d}u$, "
                        r"\[ L(\theta_t)=L(\theta_0)\,e^{-\langle\mu(t)\rangle t}. \]"),
    ),
    Statement(
        id="B.thm1", paper="B", number="Theorem 1", title="Global convergence with p ≳ log n, rate ≥ C/n",
        hypotheses=(_B, "Assumption 1", "data fixed, satisfying Assumption 2",
                    "p ≥ 4 log(4n/ε)(1 + (C_{a,w} C_x^+/C_y^+)²)"),
        conclusion=sp.And(P_conv >= 1 - eps, mu_inf >= sp.Symbol("C") / n,
                          mu(t) >= sp.Symbol("C") / n * sp.Symbol("\\min_i|1-r_i(t)/y_i|")),
        constants={"C": sp.Rational(6, 5) * Cxm**2 / Cxp * Cym},
        confidence="verified numerically", source="seed 002 Theorem 1, eq. (6); spec B §2.3",
        meaning="about log n neurons interpolate weakly interacting data at any initialization scale; "
                "bound (6) is deterministic given Assumptions 1–2",
        title_tex=r"Global convergence with $p\gtrsim\log n$, rate at least $C/n$",
        hypotheses_tex=(_B_TEX, r"Assumption~1", r"the data are fixed and satisfy Assumption~2",
                        _P_BOUND_TEX.format(4) + r", where $C_{a,w}$ depends only on the law of $(a,w)$"),
        conclusion_tex=(r"With probability at least $1-\varepsilon$ over the initialization, the loss converges to $0$ "
                        r"with $\langle\mu_\infty\rangle\ge C/n$, where $C=6(C_x^-)^2C_y^-/(5C_x^+)$; moreover, for "
                        r"every $t\ge0$, \[ \mu(t)\ge\frac{C}{n}\min_i" + _MISFIT_TEX + r". \]"),
    ),
    Statement(
        id="B.lem3", paper="B", number="Lemma 3", title="Weak interaction of random high-dimensional data",
        hypotheses=("(x_i, y_i) i.i.d., compact support, E[x] = 0, E[xxᵀ] = (λ/d) I_d",),
        conclusion=sp.Implies(d >= sp.Symbol("C") * (n**2 + n * sp.log(1 / eps)),
                              sp.Symbol("\\mathbb{P}(\\mathrm{Assumption\\ 2})") >= 1 - eps),
        confidence="verified numerically", source="seed 002 Lemma 3, eq. (46); spec B §2.4",
        meaning="about √d data points are weakly interacting in dimension d (the text states the converse)",
        hypotheses_tex=(r"$(x_i,y_i)$ i.i.d.\ with compact support in $\mathbb{R}^*\times\mathbb{R}^*$, "
                        r"$\mathbb{E}[x]=0$ and $\mathbb{E}[xx^\top]=(\lambda/d)I_d$",),
        conclusion_tex=(r"There is $C>0$, depending only on $C_x^\pm$, $C_y^\pm$ and the initialization, such that if "
                        r"$d\ge C\bigl(n^2+n\log(1/\varepsilon)\bigr)$, then Assumption~2 holds with probability at least "
                        r"$1-\varepsilon$."),
    ),
    Statement(
        id="B.cor1", paper="B", number="Corollary 1", title="Convergence on random data",
        hypotheses=("Assumption 1", "i.i.d. data as in Lemma 3", "p ≥ 4 log(6n/ε)(1 + (C_{a,w}C_x^+/C_y^+)²)",
                    "d ≥ C(n² + n log(1/ε))"),
        conclusion=sp.And(P_conv >= 1 - eps, mu_inf >= sp.Symbol("C'") / n),
        confidence="verified numerically", source="seed 002 Corollary 1; spec B §2.5",
        meaning="Lemmas 3, 5, 6 each with ε/3, then Theorem 1",
        hypotheses_tex=(r"Assumption~1", r"i.i.d.\ data as in Lemma~3", _P_BOUND_TEX.format(6),
                        r"$d\ge C\bigl(n^2+n\log(1/\varepsilon)\bigr)$"),
        conclusion_tex=(r"With probability at least $1-\varepsilon$ over the initialization and the data, the loss "
                        r"converges to $0$ exponentially, at rate $\langle\mu_\infty\rangle\ge C'/n$."),
    ),
    Statement(
        id="B.prop1", paper="B", number="Proposition 1", title="Orthogonal data: upper bound on the curvature",
        hypotheses=(_B, "orthogonal inputs", "a_j(0)² − ‖w_j(0)‖² > Δ > 0 (the paper writes |a_j(0)| − ‖w_j(0)‖²)",
                    "d ≥ C log(p) log(np) log(1/ε)²"),
        conclusion=sp.Le(mu(t), sp.Symbol("C") * sp.sqrt(p / n) * sp.Symbol("\\max_i|1-r_i(t)/y_i|")
                         + sp.Symbol("C") / n),
        constants={"for": "t ≥ Cn, with probability ≥ 1 − ε"},
        confidence="error", source="seed 002 Proposition 1, eqs. (8), (62)–(65); spec B §2.6",
        meaning="the asymptotic rate on orthogonal data is O(√(p/n)); step (62) is false when d > n "
                "(corrected bound with frozen mass F_j, spec §2.6)",
        hypotheses_tex=(_B_TEX, r"orthogonal inputs",
                        r"$a_j(0)^2-\lVert w_j(0)\rVert^2>\Delta>0$ for every $j$ (the paper writes "
                        r"$\lvert a_j(0)\rvert-\lVert w_j(0)\rVert^2$)",
                        r"$d\ge C\log(p)\log(np)\log(1/\varepsilon)^2$"),
        conclusion_tex=(r"With probability at least $1-\varepsilon$ over the initialization, for all $t\ge Cn$, "
                        r"\[ \mu(t)\le C\sqrt{\frac{p}{n}}\,\max_i" + _MISFIT_TEX + r"+\frac{C}{n}. \]"),
    ),
    Statement(
        id="B.prop2", paper="B", number="Proposition 2", title="Any order n^-α, α ∈ [1/2, 1], is reachable",
        hypotheses=_GROUP + (_B, "k_n = n^{2(1−α)}, p_n = n^{2α−1}"),
        conclusion=sp.And(sp.Symbol("K_1") / n**sp.Symbol("alpha") <= mu(t),
                          mu(t) <= sp.Symbol("K_2") / n**sp.Symbol("alpha")),
        constants={"for": "t ≥ C n^{3α−1} log(Cn)", "K_1": "2C_y^- min_j ‖w_j(0)‖²/(2 + ‖w_j(0)‖²)",
                   "K_2": "4C_y^+", "step (73)": "‖w_j‖_+² ≥ P_j N_0/(2 + N_0) after time (1/c) log P"},
        confidence="error", source="seed 002 Proposition 2, eqs. (66)–(73); spec B §2.7",
        meaning="group initializations reach every order between 1/n and 1/√n; step (73) fails for the true "
                "dynamics (valid constant N_0/(4 + 1.8 N_0))",
        title_tex=r"Any order $n^{-\alpha}$, $\alpha\in[1/2,1]$, is reachable",
        hypotheses_tex=_GROUP_TEX + (_B_TEX, r"$k_n=n^{2(1-\alpha)}$ and $p_n=n^{2\alpha-1}$, with $\alpha\in[1/2,1]$"),
        conclusion_tex=(r"For $t\ge Cn^{3\alpha-1}\log(Cn)$, "
                        r"\[ \frac{K_1}{n^\alpha}\le\mu(t)\le\frac{K_2}{n^\alpha}, \]"
                        r"with \[ \begin{gathered} C=\max\bigl(\alpha C_y^-,(2C_y^-)^{-1/\alpha}\bigr),\\ "
                        r"K_1=\frac{2C_y^-\min_j\lVert w_j(0)\rVert^2}{2+\lVert w_j(0)\rVert^2} \end{gathered} \]"
                        r"and $K_2=4C_y^+$ (eq.~(10))."),
    ),
    Statement(
        id="B.conj1", paper="B", number="Conjecture 1", title="Typical asymptotic rate 1/√n on orthogonal data",
        hypotheses=("orthogonal inputs", "p ≥ C_1 log(n/ε)"),
        conclusion=sp.Eq(mu_inf, sp.Symbol("C_2") / sp.sqrt(n)),
        confidence="unverified", source="seed 002 Conjecture 1, eq. (11); spec B §2.8 and §3 Figure 6",
        meaning="supported only by Experiment 2, whose slopes are pre-asymptotic and init-dependent",
        not_checkable_reason="a conjecture: Figure 6's slopes are regenerated by `relucheck report --paper B` "
                             "(informative, not a verdict)",
        title_tex=r"Typical asymptotic rate $1/\sqrt{n}$ on orthogonal data",
        hypotheses_tex=(r"orthogonal inputs", r"$p\ge C_1\log(n/\varepsilon)$"),
        conclusion_tex=(r"There are $C_1,C_2>0$, depending only on the data and the initialization, such that with "
                        r"probability at least $1-\varepsilon$ over the initialization the loss converges to $0$ and "
                        r"\[ \langle\mu_\infty\rangle=\frac{C_2}{\sqrt n}. \]"),
    ),
    Statement(
        id="B.lem4", paper="B", number="Lemma 4", title="Curvature at initialization for large p",
        conclusion=sp.Symbol("\\sqrt{p}(n\\mu(0)-\\beta_0)\\to\\mathcal{N}(0,\\gamma_0^2)"),
        constants={"β_0": "2 Ỹᵀ M̄ Ỹ/‖Ỹ‖² (corrected; the paper's (75)–(79) drop ‖R‖²)"},
        confidence="verified numerically", source="seed 002 Lemma 4, eqs. (74)–(79); spec B §2.9",
        meaning="the early local-PL rate is of order 1/n",
        title_tex=r"Curvature at initialization for large $p$",
        conclusion_tex=(r"At initialization the local-PL curvature $\mu(0)$ is random, and "
                        r"\[ \sqrt p\,\bigl(n\mu(0)-\beta_0\bigr)\xrightarrow[p\to\infty]{}\mathcal{N}(0,\gamma_0^2), \]"
                        r"with $\beta_0$ and $\gamma_0$ depending only on the data and the law of the neurons."),
    ),
    Statement(
        id="B.thm2", paper="B", number="Theorem 2", title="Phase transitions in relative time 1/log n",
        hypotheses=_GROUP + (_B, "p fixed, k_n = n/p, ‖D_j^n‖ → ‖D_j^∞‖", "t_n = √(np)/4 · log(np)"),
        conclusion=sp.Symbol("\\frac{t_n^j(1-\\varepsilon)-t_n^j(\\varepsilon)}{t_n}\\sim"
                             "\\frac{1}{2\\|D_j^\\infty\\|}\\frac{\\log C^j(\\varepsilon)}{\\log n}"),
        constants={"C^j(ε) (87)": "(1−√ε)/(1+‖D‖(1−√ε)) · (1+‖D‖(1−√(1−ε)))/(1−√(1−ε))",
                   "transition times": "t^j = 1/‖D_j^∞‖ in units of t_n",
                   "L^j(t_n^j(ε))": "(ε/2)‖D_j^n‖²"},
        confidence="error", source="seed 002 Theorem 2, eqs. (12), (84)–(87); spec B §2.10",
        meaning="L_∞ is a staircase with transitions at 1/‖D_j‖; the window constant is wrong: the window is "
                "(2/‖D‖) log C(ε)/log n with C(ε) = (1−√ε)√(1−ε)/(√ε(1−√(1−ε)))",
        title_tex=r"Phase transitions in relative time $1/\log n$",
        hypotheses_tex=_GROUP_TEX + (_B_TEX, r"$p$ fixed, $k_n=n/p$, and $\lVert D_j^n\rVert\to\lVert D_j^\infty\rVert$",
                                     r"$t_n=\frac{\sqrt{np}}{4}\log(np)$"),
        conclusion_tex=(r"The limit $L_\infty(t)=\lim_n L\bigl(\theta(t\,t_n)\bigr)$ is piecewise constant with at most $p$ "
                        r"pieces and transitions at $t^j=1/\lVert D_j^\infty\rVert$. For every $\varepsilon\in(0,1)$ there "
                        r"are times $t_n^j(\varepsilon)$ with $L^j\bigl(t_n^j(\varepsilon)\bigr)=\frac{\varepsilon}{2}"
                        r"\lVert D_j^n\rVert^2$, $t_n^j(\varepsilon)/t_n^j(1-\varepsilon)\to1$ and "
                        r"\[ \frac{t_n^j(1-\varepsilon)-t_n^j(\varepsilon)}{t_n}\sim\frac{1}{2\lVert D_j^\infty\rVert}\,"
                        r"\frac{\log C^j(\varepsilon)}{\log n}, \]"
                        r"where $C^j(\varepsilon)>1$ depends on $\varepsilon$ and on the group $j$ (eq.~(12))."),
    ),
    Statement(
        id="B.lem5", paper="B", number="Lemma 5", title="Good initialization: log n neurons necessary and sufficient",
        hypotheses=("y_i ≠ 0", "𝓘: ∀i ∃j ⟨w_j(0), x_i⟩ > 0 and a_j(0) y_i > 0"),
        conclusion=sp.And(sp.Implies(p >= 4 * sp.log(n / eps), P_I >= 1 - eps),
                          sp.Implies(p <= 3 * sp.log(n / eps) - 2, P_I <= 1 - eps)),
        constants={"union bound": "P(𝓘) ≥ 1 − n(3/4)^p",
                   "exact (orthogonal)": "Σ_m C(p,m) 2^-p (1−2^-m)^{n+} (1−2^-(p−m))^{n−}"},
        confidence="error", source="seed 002 Lemma 5 and proof; spec B §2.11",
        meaning="both bullets hold numerically; the proof of the second bullet has a false inequality",
        title_tex=r"Good initialization: $\log n$ neurons necessary and sufficient",
        hypotheses_tex=(r"$y_i\neq0$ for every $i$",
                        r"the event $\mathcal{I}$: for every $i$ there is $j$ with $\langle w_j(0),x_i\rangle>0$ and "
                        r"$a_j(0)y_i>0$"),
        conclusion_tex=(r"For every $\varepsilon>0$: if $p\ge4\log(n/\varepsilon)$, then "
                        r"$\mathbb{P}(\mathcal{I})\ge1-\varepsilon$; if $p\le3\log(n/\varepsilon)-2$, then "
                        r"$\mathbb{P}(\mathcal{I})\le1-\varepsilon$."),
    ),
    Statement(
        id="B.lem6", paper="B", number="Lemma 6", title="Initial loss",
        hypotheses=("p ≥ (1/c) log(2/ε) max(z², z), z = ‖a⟨w, x̄⟩_+‖_ψ1 C_x^+/C_y^+",),
        conclusion=sp.Symbol("\\mathbb{P}(L(\\theta_0)\\le 2(C_y^+)^2)") >= 1 - eps,
        confidence="unverified", source="seed 002 Lemma 6; spec B §2.12",
        meaning="Bernstein for the average of sub-exponential a_j⟨w_j, x_I⟩_+ (a union bound over i is missing)",
        not_checkable_reason="the absolute Bernstein constant c is not explicit",
        hypotheses_tex=(r"$p\ge\frac1c\log(2/\varepsilon)\max(z^2,z)$, where "
                        r"$z=\lVert a\langle w,\bar x\rangle_+\rVert_{\psi_1}C_x^+/C_y^+$ and $c>0$ is a constant",),
        conclusion_tex=(r"The loss at initialization is bounded (eq.~(19)): \[ "
                        r"\mathbb{P}\bigl(L(\theta_0)\le2(C_y^+)^2\bigr)\ge1-\varepsilon. \]"),
    ),
    Statement(
        id="B.lem7", paper="B", number="Lemma 7", title="Two-sided curvature bounds",
        conclusion=sp.And(
            sp.Le(mu(t), 2 / n * Cxp**2 * sp.Symbol("\\max_i\\frac1p\\sum_j(a_j^2+\\|w_j\\|^2)1_{j,i}")),
            sp.Ge(mu(t), 2 / n * (Cxm**2 - offdiag) * sp.Symbol("\\min_i\\frac1p\\sum_ja_j^21_{j,i}"))),
        confidence="error", source="seed 002 Lemma 7, eq. (23); spec B §2.14",
        meaning="the lower bound holds for any X; the upper bound only for orthogonal X "
                "(counterexample x_1 = x_2 = e_1: μ = 4 > 2)",
        conclusion_tex=(r"For any parameters $\theta=(a_j,w_j)_{j=1}^p$, with "
                        r"$\mathbf{1}_{j,i}=\mathbf{1}_{\langle w_j,x_i\rangle>0}$ (eq.~(23)), "
                        r"\[ \begin{aligned} \mu(t)&\le\frac2n(C_x^+)^2\max_i\frac1p\sum_{j=1}^p\bigl(a_j^2+\lVert w_j\rVert^2"
                        r"\bigr)\mathbf{1}_{j,i},\\ \mu(t)&\ge\frac2n\bigl((C_x^-)^2-\lVert X^\top X-D_X\rVert\bigr)\min_i"
                        r"\frac1p\sum_{j=1}^pa_j^2\,\mathbf{1}_{j,i}. \end{aligned} \]"),
    ),
    Statement(
        id="B.lem8", paper="B", number="Lemma 8", title="Extinction of wrongly signed neurons",
        hypotheses=("orthogonal inputs, y_i ≠ 0", "a_j(0)² − ‖w_j(0)‖² ≥ Δ > 0", "event 𝓘"),
        conclusion=sp.Symbol("a_j(0)y_i<0\\Rightarrow\\langle w_j(t_n),x_i\\rangle_+=0"),
        constants={"t_n": "2n max_{j,i}⟨w_j(0), x_i⟩_+/(C_y^- C_x^- Δ) (√Δ in the corrected proof)"},
        confidence="error", source="seed 002 Lemma 8, eqs. (49)–(56); spec B §2.15",
        meaning="wrong-signed activations die out early; the proof's Δ should read √Δ",
        hypotheses_tex=(r"orthogonal inputs, and $y_i\neq0$ for every $i$",
                        r"$a_j(0)^2-\lVert w_j(0)\rVert^2\ge\Delta>0$ for every $j$", r"the event $\mathcal{I}$ of Lemma~5"),
        conclusion_tex=(r"If $d\ge\kappa\log(p)\log(np)\log(1/\varepsilon)^2$, then with probability at least "
                        r"$1-\varepsilon$, at "
                        r"\[ t_n=\frac{2n}{C_y^-C_x^-\Delta}\max_{j,i}\langle w_j(0),x_i\rangle_+ \]"
                        r"every wrongly signed activation has died while the others have not decreased (eq.~(47)): "
                        r"\[ \begin{aligned} a_j(0)y_i<0&\ \Rightarrow\ \langle w_j(t_n),x_i\rangle_+=0,\\ "
                        r"a_j(0)y_i>0&\ \Rightarrow\ \langle w_j(t_n),x_i\rangle_+\ge\langle "
                        r"w_j(0),x_i\rangle_+. \end{aligned} \]"),
    ),
    Statement(
        id="B.prop3", paper="B", number="Proposition 3", title="Collapse of the second layer without Assumption 1",
        hypotheses=("d = n = p = 2, canonical inputs, y_1 y_2 < 0", "|a_j(0)| ≤ δ small, y_1 large",
                    "√(8 max⟨w_j(0),x_i⟩/y_1) ≤ |y_2/y_1| ≤ min⟨w_j(0),x_i⟩/max⟨w_j(0),x_i⟩"),
        conclusion=sp.Symbol("\\lim_t L(\\theta_t)") >= sp.Symbol("y_2") ** 2 / 4,
        confidence="verified numerically", source="seed 002 Proposition 3, eq. (90); spec B §2.16",
        meaning="without Assumption 1 both output weights turn positive and x_2 is never fitted",
        hypotheses_tex=(r"$d=n=p=2$, $(x_1,x_2)$ the canonical basis of $\mathbb{R}^2$, and $y_1y_2<0$",
                        r"$\lvert a_j(0)\rvert\le\delta$ with $\delta$ small enough, and $y_1$ large enough",
                        r"$\sqrt{8\max_{j,i}\langle w_j(0),x_i\rangle/y_1}\le\lvert y_2/y_1\rvert\le"
                        r"\min_{j,i}\langle w_j(0),x_i\rangle/\max_{j,i}\langle w_j(0),x_i\rangle$ (eq.~(89))"),
        conclusion_tex=(r"The loss does not converge to $0$ (eq.~(90)): "
                        r"\[ \lim_{t\to\infty}L(\theta_t)\ge\frac{y_2^2}{4}>0. \]"),
    ),
    Statement(
        id="B.remC2", paper="B", number="Remark C.2", title="Non-uniqueness of the flow at the kink",
        conclusion=sp.Symbol("\\sigma'(0)=0\\Rightarrow\\langle w_j(t),x_i\\rangle=0\\ \\forall t\\ge t_0"),
        confidence="verified numerically", source="seed 002 Appendix C.2; spec B §2.17",
        meaning="at ⟨w_j, x_i⟩ = 0 with a_j r_i > 0 Filippov solutions may restart at any time; σ'(0) = 0 "
                "selects the one staying inactive (orthogonal data)",
        conclusion_tex=(r"The flow is not unique at the kink: where $\langle w_j,x_i\rangle=0$ and $a_jr_i>0$, solutions "
                        r"may leave the kink at any time. The selection $\sigma'(0)=0$, the limit of gradient descent with "
                        r"small steps, keeps such a neuron inactive on orthogonal data: $\langle w_j(t),x_i\rangle=0$ for all "
                        r"$t\ge t_0$."),
    ),
)

# the closed forms of the group dynamics, as written (used by theory/paper_b_closed_form.py)
GROUP_ODE_PAPER = (sp.Eq(sp.Derivative(rho, t), c / 2 * (1 - rho**2)),  # (66), as derived in the paper
                   sp.Eq(sp.Derivative(N, t), c * N * (rho - N / P)))
