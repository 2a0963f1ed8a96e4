"""The two-layer ReLU network, its square loss and its gradient-flow field, written once.

    h_θ(x) = scale · Σ_j a_j σ(⟨w_j, x⟩),      σ(z) = max(z, 0),
    L(θ)   = 1/(2n) Σ_i r_i²,                  r_i = y_i − h_θ(x_i),
    dθ/dt  = −time_factor · ∇L(θ),             σ'(0) = 0.

Conventions (one `Convention` object carries them):

* papers A and C: scale = 1, time_factor = 1 (A eq. 1 and 4; C eqs. 2–4);
* paper B: scale = 1/p and time accelerated by p (B eqs. 1–3), p = width m.

The subgradient selection σ'(0) = 0 is the one of all three papers (C Assumption 2, B eq. 3,
A's D_j in eq. 4). The functions take numpy arrays of any dtype: float64 for the fast path and
``dtype=object`` arrays of mpmath ``mpf`` (or python-flint ``arb``) numbers for high precision; the
formulas below are the only copy (one definition, every backend).

Shapes: X (n, d) inputs as rows, y (n,), a (m,), W (m, d) hidden neurons as rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Convention",
    "PAPER_A",
    "PAPER_C",
    "paper_b",
    "preactivations",
    "pattern_residuals",
    "neuron_rates",
    "forward",
    "residuals",
    "loss",
    "field",
    "balancedness_defect",
]


@dataclass(frozen=True)
class Convention:
    """Output scale and time acceleration of a paper's gradient flow, kept as exact integers.

    width_divisor: the output is Σ_j a_j σ(⟨w_j,x⟩) / width_divisor (1 for A and C, p for B).
    time_factor: the flow is dθ/dt = −time_factor ∇L (1 for A and C, p for B).
    Integers keep the arithmetic exact in every backend: an mpmath or arb array divided by an int is
    correctly rounded at its own precision, where a float 1/p would carry float64's 1e-16 error.
    """

    width_divisor: int = 1
    time_factor: int = 1
    name: str = "unscaled"

    @property
    def scale(self) -> float:
        """The output scale 1/width_divisor as a float (exact for the integers in use)."""
        return 1.0 / self.width_divisor


PAPER_A = Convention(1, 1, "A/C: no output scaling")
PAPER_C = PAPER_A


def paper_b(p: int) -> Convention:
    """Paper B's mean-field convention: output scaled by 1/p, time accelerated by p (B eqs. 1–3)."""
    if int(p) != p or p < 1:
        raise ValueError(f"paper B width p must be a positive integer, got {p!r}")
    return Convention(int(p), int(p), f"B: output/{p}, time×{p}")


_HAS_VECDOT = hasattr(np, "vecdot")  # numpy ≥ 2.0


def preactivations(X, W, out=None):
    """⟨w_j, x_i⟩ as an (n, m) array (leading batch axes allowed: X (..., n, d), W (..., m, d)); ``out``: an
    optional array of the result's shape to write it into (the batched GD core's reused blocks). An ``out`` that is
    the (n, m) view of an (…, m, n) array receives the same products formed as W Xᵀ (fastest with X the (n, d) view
    of an (…, d, n) array): the core's layout, where BLAS's product with d inner terms runs 15–30 % faster."""
    if out is not None and not out.flags.c_contiguous and out.swapaxes(-1, -2).flags.c_contiguous:
        np.matmul(W, X.swapaxes(-1, -2), out=out.swapaxes(-1, -2))
        return out
    return np.matmul(X, W.swapaxes(-1, -2), out=out)


def _coefficient(convention: Convention, n):
    """(numerator, denominator) of scale·time_factor/n as exact integers (n may be a batch array)."""
    return convention.time_factor, convention.width_divisor * n


def pattern_residuals(y, a, Z, weights, convention: Convention = PAPER_A, *, out=None, work=None):
    """r_i = y_i − scale Σ_j weights_ij a_j Z_ij: the residuals with the activation pattern given as weights.

    ``weights`` is 1{Z > 0} for σ'(0) = 0; on a fixed segment of an event-aware flow it is the segment's
    pattern (components on a kink have Z = 0, so their weight does not matter here). Batch axes lead.
    Optional buffers (the batched GD core reuses them across steps instead of allocating (n, m) temporaries):
    ``work`` of Z's shape receives Z ⊙ weights (it may be Z itself, which is then overwritten), ``out`` of the
    residuals' shape receives r.
    """
    h = np.matmul(np.multiply(Z, weights, out=work), a[..., None], out=None if out is None else out[..., None])[..., 0]
    if convention.width_divisor != 1:
        h = np.divide(h, convention.width_divisor, out=out)
    return np.subtract(y, h, out=out)


def neuron_rates(X, V, a, W, convention: Convention = PAPER_A, D=None, n=None, weights: bool = True):
    """(da/dt, dW/dt) given the *effective residuals* V (n, m): linear in each neuron's own (a_j, w_j).

    da_j/dt = c ⟨w_j, D_j⟩, dw_j/dt = c a_j D_j with D_j = (1/n) Σ_i V_ij x_i and c = scale·time_factor
    (A eq. 4, B eqs. 13–14, C §1.4). With σ'(0) = 0, V_ij = 1{⟨w_j,x_i⟩ > 0} r_i; a neuron sliding on a kink
    carries its Filippov weights there, V_ij = η_ij r_i (`numerics.flows.filippov`). Given V the field is
    linear in θ_j = (a_j, w_j), which the log-scale engine uses (θ_j = e^{ρ_j} φ_j). Batch axes lead.
    ``D`` (m, d) = Σ_i V_ij x_i may be given when the caller has a cheaper product (data written in their own
    orthonormal basis, or accumulated over blocks of data); X is then unused. ``n`` is the number of data of each
    problem when stacked problems are padded with zero rows (an int or an array over the batch axes; default:
    the rows of V, which may then be None if D is given). ``weights=False``: da/dt only (dW/dt is None; `weight_rates`
    gives it later from the same D, with the same numbers).
    """
    num, den = _coefficient(convention, V.shape[-2] if n is None else n)
    D = V.swapaxes(-1, -2) @ X if D is None else D  # (m, d): Σ_i V_ij x_i
    if D.dtype == object:  # exact integer ratio for mpmath / arb numbers
        return (W * D).sum(-1) * num / den, (a[..., None] * D) * num / den
    coef = _float_coefficient(num, den, D)
    # ⟨w_j, D_j⟩ as one contraction: (W * D).sum(-1) makes a temporary and reduces along its short last axis, 3× slower
    dot = np.vecdot(W, D) if _HAS_VECDOT else np.einsum("...k,...k->...", W, D)  # numpy ≥ 2: the same sum, 1 µs less
    return dot * coef, ((coef * a)[..., None] * D if weights else None)


def _float_coefficient(num, den, D):
    coef = num / den
    if isinstance(coef, (np.ndarray, np.generic)):  # n from numpy (one per problem of a batch): D's arithmetic
        coef = np.asarray(coef, dtype=D.dtype)
        coef = coef[..., None] if coef.ndim else coef
    return coef


def weight_rates(a, D, n, convention: Convention = PAPER_A):
    """dW/dt of `neuron_rates` (float64 D), c a_j D_j, computed as there: for a caller that asked it for da/dt alone."""
    num, den = _coefficient(convention, n)
    return (_float_coefficient(num, den, D) * a)[..., None] * D


def forward(X, a, W, convention: Convention = PAPER_A):
    """h_θ(x_i) for every row x_i of X (eq. 2 of C, eq. 1 of B with scale 1/p)."""
    Z = preactivations(X, W)
    h = ((Z * (Z > 0)) @ a[..., None])[..., 0]
    return h if convention.width_divisor == 1 else h / convention.width_divisor


def residuals(X, y, a, W, convention: Convention = PAPER_A):
    """r_i = y_i − h_θ(x_i)."""
    return y - forward(X, a, W, convention)


def loss(X, y, a, W, convention: Convention = PAPER_A):
    """L(θ) = 1/(2n) Σ_i r_i² (the 1/(2n) normalization of all three papers)."""
    r = residuals(X, y, a, W, convention)
    return (r * r).sum(-1) / (2 * y.shape[-1])


def field(X, y, a, W, convention: Convention = PAPER_A, active=None):
    """The gradient-flow field (da/dt, dW/dt) = −time_factor ∇L with σ'(0) = 0.

    da_j/dt = c ⟨w_j, D_j⟩ and dw_j/dt = c a_j D_j with the dynamical vector
    D_j = (scale/n) Σ_i 1{⟨w_j,x_i⟩ > 0} r_i x_i and c = time_factor (A eq. 4, B eqs. 13–14,
    C §1.4): `pattern_residuals` then `neuron_rates`.

    ``active`` optionally fixes the activation pattern (an (n, m) boolean array); the event-aware
    integrators pass the pattern of the current segment so that the field is polynomial there.
    """
    Z = preactivations(X, W)
    act = (Z > 0) if active is None else active
    r = pattern_residuals(y, a, Z, act, convention)
    return neuron_rates(X, act * r[..., :, None], a, W, convention)


def balancedness_defect(a, W):
    """a_j² − ‖w_j‖² for every neuron j: conserved by the flow (A Lemma 2, B Lemma 1, C Prop. 1)."""
    return a * a - (W * W).sum(axis=1)
