"""Paper A (Boursier & Flammarion, arXiv 2410.02348): the numbered statements of v1 and v2.

Ids use the v2 (ICML camera-ready) numbers; ``numbers`` records both versions (spec A §2.1 numbering
map). Lemma F.1 (balancedness, v1 Lemma 2) is registered in `balancedness.py`. Formulas are the
spec's reconstructions (seeds 000/001 lost every formula); the confidence tag is the spec's. The
``*_tex`` fields typeset each statement in the paper's notation (spec A §1–§3).

Symbols: n samples x_k ∈ ℝ^d with labels y_k; σ = ReLU; D_n(w) = (1/n) Σ_k 1{⟨w,x_k⟩>0} y_k x_k;
D_∞(w) = E[1{⟨w,x⟩>0} y x]; β̂_± the OLS estimators on S_± = {k : ±⟨β*, x_k⟩ > 0}.
"""
import sympy as sp

from ..statement import Statement
from . import register

n, d, C, lam = sp.symbols("n d C lambda", positive=True)
E_y2x2 = sp.Symbol("E[y^2 \\|x\\|^2]", positive=True)
sup_dev = sp.Symbol("E sup_w sup_{D in D_n(w)} \\|D - D_inf(w)\\|", nonnegative=True)
x = sp.Symbol("x")

_SEEDS = "seeds 000 (v1) and 001 (v2); spec A"
_DATA = "(x_k, y_k), k ∈ [n], i.i.d. from μ on ℝ^d × ℝ"
_DATA_TEX = r"$(x_k,y_k)$, $k\in[n]$, i.i.d.\ from a law $\mu$ on $\mathbb{R}^d\times\mathbb{R}$"
_FLOW = "subgradient flow dθ/dt ∈ −∂L(θ) (Clarke), L = (1/2n) Σ (h_θ(x_k) − y_k)² (eq. 1)"
_FLOW_TEX = (r"the subgradient flow $\dot\theta\in-\partial L(\theta)$ (Clarke) of "
             r"$L(\theta)=\frac{1}{2n}\sum_{k=1}^n\bigl(h_\theta(x_k)-y_k\bigr)^2$ (eq.~(1))")
_NET = "h_θ(x) = Σ_j a_j σ(⟨w_j, x⟩), no biases"
_NET_TEX = r"the network $h_\theta(x)=\sum_{j=1}^m a_j\,\sigma(\langle w_j,x\rangle)$, $\sigma=\operatorname{ReLU}$, no biases"
_LIN = "Assumption 4.1 (v1 Assumption 1): y = ⟨β*, x⟩ + η, x symmetric, continuous, margin, near-isotropic, sub-Gaussian"
_LIN_TEX = (r"Assumption~4.1 (v1: Assumption~1): $y=\langle\beta^\star,x\rangle+\eta$ with $x$ symmetric, continuous, "
            r"with a margin around $\beta^\star$, near-isotropic and sub-Gaussian")
_INIT8 = "initialization (8): a_j(0) = ±λ/√m, ‖w_j(0)‖ ≤ λ|a_j(0)| (strict domination)"
_INIT8_TEX = (r"the initialization~(8): $a_j(0)=\pm\lambda/\sqrt{m}$ and $\lVert w_j(0)\rVert\le\lambda\lvert a_j(0)\rvert$ "
              r"(strict domination)")
_CONTINUOUS_TEX = r"the law of $x$ is continuous with respect to the Lebesgue measure"
_SUP_DEV_TEX = r"\sup_{w\in\mathbb{S}^{d-1}}\,\sup_{D\in\mathcal{D}_n(w)}\lVert D-D_\infty(w)\rVert"

register(
    Statement(
        id="A.thm1.1", paper="A", number="Theorem 1.1", title="Informal main result: optimization threshold",
        numbers={"v2": "Theorem 1.1 (informal)"},
        hypotheses=(_DATA, "linear teacher with noise", _NET, "gradient flow from a small random initialization"),
        conclusion=sp.Implies(sp.Gt(n, C * d**3 * sp.log(d)), sp.Symbol("h_theta_inf ≈ two-piece OLS for every width m")),
        confidence="likely", source=f"{_SEEDS} §2.2; summary seed 004 ('n ≳ d³ log d')",
        meaning="beyond n ≳ d³ log d the network no longer interpolates: its limit is close to OLS, whatever the width",
        hypotheses_tex=(_DATA_TEX, r"a linear teacher with noise", _NET_TEX,
                        r"gradient flow from a small random initialization"),
        conclusion_tex=(r"If $n\gtrsim d^3\log d$, then for every width $m$ the learned function $h_{\theta^\infty}$ "
                        r"is close to the ordinary least squares solution (precisely: to the two-piece least squares "
                        r"estimator of Theorem~4.1); the network does not interpolate the data."),
    ),
    Statement(
        id="A.def2.1", paper="A", number="Definition 2.1", title="Extremal vector",
        numbers={"v1": "Definition 1", "v2": "Definition 2.1"},
        hypotheses=(_DATA, "G_n(w) = (1/n) Σ_k y_k σ(⟨w, x_k⟩) on the sphere (eq. 5)"),
        conclusion="D is extremal iff ∃ w ∈ S^{d−1}: D ∈ 𝒟_n(w) (Clarke set) and D ∈ ℝw "
                   "(D = 0, or w = D/‖D‖ 'max type', or w = −D/‖D‖ 'min type')",
        confidence="likely", source=f"{_SEEDS} §1.6",
        meaning="KKT points of G_n on the sphere: where positive (max) and negative (min) neurons align early",
        hypotheses_tex=(_DATA_TEX, r"$G_n(w)=\frac1n\sum_{k=1}^n y_k\,\sigma(\langle w,x_k\rangle)$ on the unit sphere "
                                   r"(eq.~(5))"),
        conclusion_tex=(r"A vector $D\in\mathbb{R}^d$ is \emph{extremal} if there is $w\in\mathbb{S}^{d-1}$ with "
                        r"$D\in\mathcal{D}_n(w)$, the Clarke subdifferential of $G_n$ at $w$, and $D\in\mathbb{R}w$; "
                        r"that is, $D=0$, or $w=D/\lVert D\rVert$ (max type), or $w=-D/\lVert D\rVert$ (min type)."),
    ),
    Statement(
        id="A.thm3.1", paper="A", number="Theorem 3.1", title="Uniform concentration of the Clarke sets 𝒟_n around D_∞",
        numbers={"v1": "Theorem 1", "v2": "Theorem 3.1"},
        hypotheses=(_DATA, "the law of x is continuous w.r.t. Lebesgue measure", "E[y²‖x‖²] < ∞"),
        conclusion=sp.Le(sup_dev, C * sp.sqrt(E_y2x2 * d * sp.log(n) / n)),
        constants={"C": "universal (lost)"}, confidence="likely", source=f"{_SEEDS} §2.2, eqs. (9)–(14)",
        meaning="the subgradient field of G_n is uniformly √(d log n / n)-close to ∇G_∞ on the whole sphere",
        title_tex=r"Uniform concentration of the Clarke sets $\mathcal{D}_n$ around $D_\infty$",
        hypotheses_tex=(_DATA_TEX, _CONTINUOUS_TEX, r"$\mathbb{E}[y^2\lVert x\rVert^2]<\infty$"),
        conclusion_tex=(r"For every $n\ge2$, with a universal constant $C$ and "
                        r"$D_\infty(w)=\mathbb{E}[\mathbf{1}_{\langle w,x\rangle>0}\,y\,x]$, "
                        r"\[ \begin{aligned} &\mathbb{E}\Bigl[" + _SUP_DEV_TEX + r"\Bigr]\\ &\qquad"
                        r"\le C\sqrt{\frac{\mathbb{E}[y^2\lVert x\rVert^2]\,d\log n}{n}}. \end{aligned} \]"),
    ),
    Statement(
        id="A.prop3.1", paper="A", number="Proposition 3.1", title="Finite-data extremal vectors concentrate",
        numbers={"v1": "Proposition 1", "v2": "Proposition 3.1"},
        hypotheses=(_DATA, "continuous law of x", "E[y⁴‖x‖⁴] < ∞"),
        conclusion="∀ε > 0 ∃ n_ε: ∀ n ≥ n_ε, with probability ≥ 1 − ε, every extremal vector D of the data has "
                   "an infinite-data extremal vector D* (eq. 6) with ‖D − D*‖ ≤ ε",
        confidence="likely", source=f"{_SEEDS} §2.2, eq. (16)",
        meaning="for large n the extremal vectors are close to the critical points of G_∞ on the sphere",
        hypotheses_tex=(_DATA_TEX, _CONTINUOUS_TEX, r"$\mathbb{E}[y^4\lVert x\rVert^4]<\infty$"),
        conclusion_tex=(r"For every $\varepsilon>0$ there is $n_\varepsilon$ such that for all $n\ge n_\varepsilon$, "
                        r"with probability at least $1-\varepsilon$, every extremal vector $D$ of the data has an "
                        r"infinite-data extremal vector $D^\star$ (eq.~(6)) with $\lVert D-D^\star\rVert\le\varepsilon$."),
    ),
    Statement(
        id="A.asm4.1", paper="A", number="Assumption 4.1", title="Linear data model",
        numbers={"v1": "Assumption 1", "v2": "Assumption 4.1"},
        hypotheses=("y_k = ⟨β*, x_k⟩ + η_k, η centered, independent of x (eq. 7)",),
        conclusion="1. x symmetric; 2. continuous; 3. margin |⟨x, β*⟩| ≥ c‖x‖‖β*‖ on supp μ_X; "
                   "4. near-isotropic E[xxᵀ] (≈ I_d); 5. x sub-Gaussian, E[η⁴] < ∞",
        confidence="likely", source=f"{_SEEDS} §3.2 (points 3 likely, 4 guess)",
        meaning="data under which exactly two extremal vectors exist (eq. 19)",
        not_checkable_reason="an assumption, not a claim: the data of the checks of Theorem 4.1 and Lemma F.2 are "
                             "drawn so that it holds",
        hypotheses_tex=(r"$y_k=\langle\beta^\star,x_k\rangle+\eta_k$ with $\eta$ centered and independent of $x$ "
                        r"(eq.~(7))",),
        conclusion_tex=(r"There is $c>0$ such that (1)~$x$ is symmetric, $x\overset{d}{=}-x$; (2)~the law of $x$ is "
                        r"continuous; (3)~margin: $\lvert\langle x,\beta^\star\rangle\rvert\ge c\,\lVert x\rVert\,"
                        r"\lVert\beta^\star\rVert$ for all $x\in\operatorname{supp}\mu_X$; (4)~near-isotropy: "
                        r"$\mathbb{E}[xx^\top]\approx I_d$; (5)~$x$ is sub-Gaussian and $\mathbb{E}[\eta^4]<\infty$."),
    ),
    Statement(
        id="A.thm4.1", paper="A", number="Theorem 4.1", title="Convergence to the two-piece OLS estimator",
        numbers={"v1": "Theorem 2", "v2": "Theorem 4.1"},
        hypotheses=(_LIN, _INIT8, _NET, _FLOW),
        conclusion=sp.Eq(sp.Function("h_{theta^infty}")(x),
                         sp.Max(0, sp.Symbol("<\\hat\\beta_+, x>")) - sp.Max(0, sp.Symbol("<-\\hat\\beta_-, x>"))),
        constants={"n*": "≍ d³ log d", "λ*": "independent of n and m", "probability": "1 − O(1/n) − 2^{1−m} (guess)"},
        confidence="likely", source=f"{_SEEDS} §2.2, §3.4",
        meaning="for λ ≤ λ*, any width m and n ≥ n*, θ(t) converges to a spurious local minimum whose function is "
                "the two-piece OLS estimator (not the global OLS, and not an interpolator)",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX, _NET_TEX, _FLOW_TEX),
        conclusion_tex=(r"There are $\lambda^\star>0$, independent of $n$ and $m$, and $n^\star\asymp d^3\log d$ such "
                        r"that for all $\lambda\le\lambda^\star$, every width $m$ and all $n\ge n^\star$, with probability "
                        r"$1-O(1/n)-2^{1-m}$ (this form of the probability is a guess), $\theta(t)$ converges to some "
                        r"$\theta^\infty$ and "
                        r"\[ h_{\theta^\infty}(x)=\sigma(\langle\hat\beta_+,x\rangle)-\sigma(\langle-\hat\beta_-,x\rangle) \]"
                        r"for all $x\in\operatorname{supp}\mu_X$, where $\hat\beta_\pm$ is the ordinary least squares estimator on the data "
                        r"$S_\pm=\{k:\pm\langle\beta^\star,x_k\rangle>0\}$."),
    ),
    Statement(
        id="A.lemC.1", paper="A", number="Lemma C.1", title="Clarke sets do not change the sup",
        numbers={"v1": "Lemma 1", "v2": "Lemma C.1"},
        hypotheses=("continuous law of x",),
        conclusion="sup_w sup_{D ∈ 𝒟_n(w)} ‖D − D_∞(w)‖ = sup_w ‖D_n(w) − D_∞(w)‖ almost surely",
        confidence="likely", source=f"{_SEEDS} §2.2",
        meaning="kinks of G_n do not matter for the uniform deviation (convex function on a Clarke segment)",
        hypotheses_tex=(_CONTINUOUS_TEX,),
        conclusion_tex=(r"Almost surely, \[ \begin{aligned} &" + _SUP_DEV_TEX
                        + r"\\ &\qquad=\sup_{w\in\mathbb{S}^{d-1}}\lVert D_n(w)-D_\infty(w)\rVert. \end{aligned} \]"),
    ),
    Statement(
        id="A.thmD.1", paper="A", number="Theorem D.1", title="Tail bound for the uniform deviation",
        numbers={"v1": "Theorem 3", "v2": "Theorem D.1"},
        hypotheses=("as Theorem 3.1",),
        conclusion="a bound on P(sup_w sup_{D ∈ 𝒟_n(w)} ‖D − D_∞(w)‖ > t) from symmetrization (15) and (14); "
                   "exact form lost",
        confidence="guess", source=f"{_SEEDS} §2.2, eq. (15)",
        meaning="high-probability version of Theorem 3.1",
        not_checkable_reason="its exact form is lost in extraction (our reconstruction is a guess); its consequence Corollary D.1 "
                             "is checked through the tail frequency of the deviation",
        hypotheses_tex=(r"the hypotheses of Theorem~3.1",),
        conclusion_tex=(r"For every $n$ and $t>0$, a bound on "
                        r"\[ \mathbb{P}\bigl(\sup_w\sup_{D\in\mathcal{D}_n(w)}\lVert D-D_\infty(w)\rVert>t\bigr), \]"
                        r"obtained from the symmetrization~(15) and the bound~(14); its exact form is lost."),
    ),
    Statement(
        id="A.corD.1", paper="A", number="Corollary D.1", title="Simplified tail bound (fourth moment)",
        numbers={"v1": "Corollary 1", "v2": "Corollary D.1"},
        hypotheses=("continuous law of x", "E[y⁴‖x‖⁴] < ∞"),
        conclusion="P(sup_w sup_D ‖D − D_∞(w)‖ > C √(E[y²‖x‖²] d log n / n)) ≤ (C'/n)(1 + E[y⁴‖x‖⁴]/E[y²‖x‖²]²)",
        confidence="guess", source=f"{_SEEDS} §2.2",
        meaning="the deviation exceeds its √(d log n/n) scale with probability O(1/n)",
        hypotheses_tex=(_CONTINUOUS_TEX, r"$\mathbb{E}[y^4\lVert x\rVert^4]<\infty$"),
        conclusion_tex=(r"There are universal constants $C$ and $C'$ such that for every $n\ge2$ "
                        r"\[ \begin{aligned} &\mathbb{P}\Bigl(" + _SUP_DEV_TEX + r"\\ &\qquad"
                        + r">C\sqrt{\frac{\mathbb{E}[y^2\lVert x\rVert^2]\,d\log n}{n}}\Bigr)\\ &\qquad"
                          r"\le\frac{C'}{n}\Bigl(1+\frac{\mathbb{E}[y^4\lVert x\rVert^4]}{\mathbb{E}[y^2\lVert x\rVert^2]^2}"
                          r"\Bigr). \end{aligned} \]"),
    ),
    Statement(
        id="A.lemF.2", paper="A", number="Lemma F.2", title="Phase 1: early alignment",
        numbers={"v1": "Lemma 3", "v2": "Lemma F.2"},
        hypotheses=(_LIN, _INIT8),
        conclusion="at τ = ε ln(1/λ): sign a_j unchanged, |a_j| ≤ λ^{−O(ε)}|a_j(0)|, ⟨w̄_j, D̄_+⟩ ≥ 1 − λ^κ (j ∈ N_+), "
                   "⟨w̄_j, D̄_−⟩ ≤ −1 + λ^κ (j ∈ N_−)",
        confidence="guess", source=f"{_SEEDS} §2.2, eqs. (17)–(22); time scales §3.6",
        meaning="all neurons align with the two extremal vectors D_± before their norms grow",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX),
        conclusion_tex=(r"There are $\lambda^\star$ and $n^\star$ such that for $\lambda\le\lambda^\star$ and "
                        r"$n\ge n^\star$, with high probability, at $\tau=\varepsilon\ln(1/\lambda)$ every $a_j$ has kept "
                        r"its sign, $\lvert a_j(\tau)\rvert\le\lambda^{-O(\varepsilon)}\lvert a_j(0)\rvert$, and, with "
                        r"$\bar u=u/\lVert u\rVert$ and some $\kappa>0$, "
                        r"\[ \begin{gathered} \langle\bar w_j(\tau),\bar D_+\rangle\ge1-\lambda^\kappa\ \ (j\in N_+),\\ "
                        r"\langle\bar w_j(\tau),\bar D_-\rangle\le-1+\lambda^\kappa\ \ (j\in N_-), \end{gathered} \]"
                        r"where $D_\pm$ are the two extremal vectors of eq.~(19)."),
    ),
    Statement(
        id="A.lemF.3", paper="A", number="Lemma F.3", title="Decoupled autonomous systems",
        numbers={"v1": "Lemma 4", "v2": "Lemma F.3"},
        hypotheses=(_LIN, _INIT8, "t ≥ τ (end of phase 1)"),
        conclusion="up to the first activation change, N_+ neurons evolve as a linear network fitted on S_+ and N_− "
                   "neurons on S_− (eq. 23)",
        confidence="likely", source=f"{_SEEDS} §2.2",
        meaning="inside the cones each side is a two-layer linear network",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX, r"$t\ge\tau$ (the end of phase~1)"),
        conclusion_tex=(r"Let $\tilde\theta$ solve the system~(23) from $\tilde\theta(\tau)=\theta(\tau)$: for $j\in N_+$, "
                        r"\[ \begin{gathered} \dot{\tilde a}_j=\langle\tilde w_j,\tilde D_+\rangle,\quad "
                        r"\dot{\tilde w}_j=\tilde a_j\tilde D_+,\\ "
                        r"\tilde D_+=\frac1n\sum_{k\in S_+}\bigl(y_k-\tilde h_+(x_k)\bigr)x_k, \end{gathered} \]"
                        r"with $\tilde h_+(x)=\sum_{j\in N_+}\tilde a_j\langle\tilde w_j,x\rangle$, and the same with "
                        r"$N_-$ and $S_-$. Up to the first change of activation $\tau_\infty$, $\theta=\tilde\theta$ on "
                        r"$[\tau,\tau_\infty]$ and $h_{\theta(t)}(x_k)=\tilde h_\pm(x_k)$ for $k\in S_\pm$: the neurons "
                        r"of $N_\pm$ evolve as a linear network fitted on $S_\pm$."),
    ),
    Statement(
        id="A.lemF.4", paper="A", number="Lemma F.4", title="Phase 2: slow growth inside the cones",
        numbers={"v1": "Lemma 5", "v2": "Lemma F.4"},
        hypotheses=(_LIN, _INIT8),
        conclusion=sp.Eq(sp.Symbol("T_esc"), sp.log(1 / lam) / sp.Symbol("\\|D_+\\|") + sp.Symbol("O(1)")),
        confidence="likely", source=f"{_SEEDS} §2.2, §3.6 (linearized solution)",
        meaning="the norms grow exponentially at rate ‖D_±‖ while the neurons stay in the cones; escape after "
                "ln(1/λ)/‖D_+‖",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX),
        conclusion_tex=(r"The neurons of $N_\pm$ stay mutually aligned inside the cone of $\pm\beta^\star$ while their "
                        r"norms grow exponentially at rate $\lVert D_\pm\rVert$; they leave the small-norm regime at "
                        r"\[ T_{\mathrm{esc}}=\frac{\ln(1/\lambda)}{\lVert D_+\rVert}+O(1). \]"),
    ),
    Statement(
        id="A.lemF.5", paper="A", number="Lemma F.5", title="Phase 3: fast growth",
        numbers={"v1": "Lemma 6", "v2": "Lemma F.5"},
        hypotheses=(_LIN, _INIT8),
        conclusion="v_+ = Σ_{N_+} a_j w_j → β̂_+ logistically (dv/dt = M Q_+ (β̂_+ − v)), neurons stay in the cone",
        confidence="likely", source=f"{_SEEDS} §2.2, eqs. (31)–(38)",
        meaning="the linear sub-networks fit their halves of the data",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX),
        conclusion_tex=(r"With $v_+=\sum_{j\in N_+}a_jw_j$, $Q_+=\frac1nX_+^\top X_+$ and "
                        r"$M=\sum_{j\in N_+}\bigl(a_j^2I+w_jw_j^\top\bigr)$, "
                        r"\[ \dot v_+=M\,Q_+\bigl(\hat\beta_+-v_+\bigr), \]"
                        r"so $v_+$ converges logistically to $\hat\beta_+$, and the neurons of $N_+$ stay in the cone "
                        r"(likewise for $N_-$)."),
    ),
    Statement(
        id="A.lemF.6", paper="A", number="Lemma F.6", title="Phase 4: final convergence (local PL)",
        numbers={"v1": "Lemma 7", "v2": "Lemma F.6"},
        hypotheses=(_LIN, _INIT8),
        conclusion=sp.Ge(sp.Symbol("\\|\\nabla L_+\\|^2"),
                         2 * sp.Symbol("lambda_min(Q_+)") * sp.Symbol("sum_j a_j^2") * sp.Symbol("(L_+ - L_+^*)")),
        confidence="likely", source=f"{_SEEDS} §2.2, eqs. (45)–(49)",
        meaning="local Polyak–Łojasiewicz inequality: exponential convergence, finite path, Σ_{N_±} a_j w_j → β̂_±",
        hypotheses_tex=(_LIN_TEX, _INIT8_TEX),
        conclusion_tex=(r"The local Polyak--\L{}ojasiewicz inequality (eq.~(45)) "
                        r"\[ \lVert\nabla L_+(\theta_+)\rVert^2\ge2\lambda_{\min}(Q_+)\Bigl(\sum_{j\in N_+}a_j^2\Bigr)"
                        r"\bigl(L_+(\theta_+)-L_+^\star\bigr) \]"
                        r"holds, so the loss converges exponentially, the path has finite length, the neurons stay in "
                        r"the cone and $\sum_{j\in N_\pm}a_j^\infty w_j^\infty=\hat\beta_\pm$."),
    ),
)
