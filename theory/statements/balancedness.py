"""The balancedness invariant, stated in all three papers."""
import sympy as sp

from ..statement import Statement
from . import register

a_j, w_norm, t = sp.symbols("a_j \\|w_j\\| t", real=True)
_a = sp.Function("a_j")(t)
_w = sp.Function("\\|w_j\\|")(t)
CONSERVED = sp.Eq(sp.Derivative(_a**2 - _w**2, t), 0)
# two display lines: on one line it was 73 pt wider than a two-column paper's column
CONSERVED_TEX = (r"For every neuron $j$ and every $t\ge 0$, "
                 r"\[ \begin{gathered} \frac{\mathrm{d}}{\mathrm{d}t}\bigl(a_j(t)^2-\lVert w_j(t)\rVert^2\bigr)=0,"
                 r"\quad\text{so}\\ a_j(t)^2-\lVert w_j(t)\rVert^2=a_j(0)^2-\lVert w_j(0)\rVert^2. \end{gathered} \]")

_HYP = ("two-layer ReLU network without biases", "gradient flow dθ/dt ∈ −∂L(θ) with any selection (σ'(0) = 0 included)")
_HYP_TEX = (r"a two-layer ReLU network without biases",
            r"the gradient flow $\dot\theta\in-\partial L(\theta)$ with any selection of the derivative of the ReLU "
            r"($\sigma'(0)=0$ included)")

register(
    Statement(
        id="A.lemF.1", paper="A", number="Lemma F.1", title="Balancedness",
        numbers={"v1": "Lemma 2", "v2": "Lemma F.1"}, hypotheses=_HYP, conclusion=CONSERVED,
        confidence="certain", source="spec A §1.7; seeds 000 (v1) and 001 (v2)",
        meaning="a_j(t)² − ‖w_j(t)‖² = a_j(0)² − ‖w_j(0)‖² for every neuron j and every t ≥ 0",
        hypotheses_tex=_HYP_TEX, conclusion_tex=CONSERVED_TEX,
    ),
    Statement(
        id="B.lem1", paper="B", number="Lemma 1", title="Balancedness (Wojtowytsch 2020)",
        hypotheses=_HYP + ("output scaled by 1/p, time accelerated by p (B eqs. 1–3)",), conclusion=CONSERVED,
        confidence="verified numerically", source="spec B §2.1 and key finding 8; seed 002",
        meaning="conserved per neuron; gradient descent changes it by exactly η²(g_a² − ‖g_w‖²) per step",
        hypotheses_tex=_HYP_TEX + (r"output scaled by $1/p$, time accelerated by $p$ (eqs.~(1)--(3) of B)",),
        conclusion_tex=(r"For all $j\in\{1,\dots,p\}$ and all $t\ge 0$, "
                        r"\[ \lvert a_j(t)\rvert^2-\lVert w_j(t)\rVert^2=\lvert a_j(0)\rvert^2-\lVert w_j(0)\rVert^2, \]"
                        r"and thus, if $\lvert a_j(0)\rvert\ge\lVert w_j(0)\rVert$, then $a_j(t)$ keeps its sign "
                        r"and $\lvert a_j(t)\rvert\ge\lVert w_j(t)\rVert$."),
    ),
    Statement(
        id="C.prop1", paper="C", number="Proposition 1", title="Balancedness (Du, Hu & Lee 2018)",
        hypotheses=_HYP + ("balanced initialization a_j(0) = s_j‖w_j(0)‖ (Assumption 3)",),
        conclusion=CONSERVED, confidence="certain", source="spec C §1.6; seed 003",
        meaning="a_j(t) = s_j‖w_j(t)‖ along the whole flow",
        hypotheses_tex=_HYP_TEX + (r"the balanced initialization $a_j(0)=s_j\lVert w_j(0)\rVert$ (Assumption~3)",),
        conclusion_tex=CONSERVED_TEX[:-3] + r" \] In particular $a_j(t)=s_j\lVert w_j(t)\rVert$ for all $t\ge0$.",
    ),
)
