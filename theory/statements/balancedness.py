"""The balancedness invariant, stated in all three papers."""
import sympy as sp

from ..statement import Statement
from . import register

a_j, w_norm, t = sp.symbols("a_j \\|w_j\\| t", real=True)
_a = sp.Function("a_j")(t)
_w = sp.Function("\\|w_j\\|")(t)
CONSERVED = sp.Eq(sp.Derivative(_a**2 - _w**2, t), 0)

_HYP = ("two-layer ReLU network without biases", "gradient flow dθ/dt ∈ −∂L(θ) with any selection (σ'(0) = 0 included)")

register(
    Statement(
        id="A.lemF.1", paper="A", number="Lemma F.1", title="Balancedness",
        numbers={"v1": "Lemma 2", "v2": "Lemma F.1"}, hypotheses=_HYP, conclusion=CONSERVED,
        confidence="certain", source="spec A §1.7; seeds 000 (v1) and 001 (v2)",
        meaning="a_j(t)² − ‖w_j(t)‖² = a_j(0)² − ‖w_j(0)‖² for every neuron j and every t ≥ 0",
    ),
    Statement(
        id="B.lem1", paper="B", number="Lemma 1", title="Balancedness (Wojtowytsch 2020)",
        hypotheses=_HYP + ("output scaled by 1/p, time accelerated by p (B eqs. 1–3)",), conclusion=CONSERVED,
        confidence="verified numerically", source="spec B §2.1 and key finding 8; seed 002",
        meaning="conserved per neuron; gradient descent changes it by exactly η²(g_a² − ‖g_w‖²) per step",
    ),
    Statement(
        id="C.prop1", paper="C", number="Proposition 1", title="Balancedness (Du, Hu & Lee 2018)",
        hypotheses=_HYP + ("balanced initialization a_j(0) = s_j‖w_j(0)‖ (Assumption 3)",),
        conclusion=CONSERVED, confidence="certain", source="spec C §1.6; seed 003",
        meaning="a_j(t) = s_j‖w_j(t)‖ along the whole flow",
    ),
)
