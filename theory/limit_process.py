"""Algorithm 1 of paper C (the limit saddle-to-saddle process), vectorized float64.

Paper C (Town et al., arXiv 2605.27097), Algorithm 1 with eqs. (9)–(15); reconstruction in spec C §2.
Conventions (spec C §1): L = (1/2n) Σ_i (h_θ(x_i) − y_i)², no output scaling, w_j(0) = λ ḡ_j,
a_j(0) = s_j λ, accelerated time τ = t / ln(1/λ), data indices 0-based.

Paper symbols: y labels (n,), s_j output signs (m,), act_ij = 1{⟨w_j(0), x_i⟩ > 0}, A_j the correct-sign
active set {i : act_ij and s_j y_i > 0}, U_k the unfitted data after k jumps, S_j^{(k)} = A_j ∩ U_k,
‖D_j^{(k)}‖ = c ‖y_{S_j^{(k)}}‖ with c = `rate_constant(n)`, u_j the norm exponents (u_j(0) = 1).

Cost: building the mask is O(nm); iteration k costs O(|U_k| m) because the rates are re-summed over the
still-unfitted rows only (exact sums, no cancellation), so a run costs O(nm) when |U_k| shrinks
geometrically, as it does for random masks (Proposition 4).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from relucheck.numerics.errors import HypothesisViolation, RelucheckInputError
from relucheck.numerics.instances import DATA_BOUND_REASON, DATA_MAX_ABS

RATE_CONSTANT_NOTE = "L = 1/(2n) Σ r² gives rate constant c = 1/n (spec C §1.3, caveat U1)"
NONZERO_LABELS = "Assumption 4(ii) (non-zero labels y_i ≠ 0)"


def rate_constant(n: int) -> float:
    """c in ‖D_j^{(k)}‖ = c ‖y_{S_j^{(k)}}‖ (spec C §2.3); the only place the loss normalization lives."""
    return 1.0 / n


def exact_rate_constant(n: int):
    """`rate_constant` as an exact rational (sympy.Rational), for `theory.limit_process_exact`."""
    import sympy  # only the exact variant needs it (0.2 s of every command-line call otherwise)

    return sympy.Rational(1, n)


@dataclass
class LimitJump:
    """Jump k of Algorithm 1: time τ_k, neuron j_k, fitted set S_k = S_{j_k}^{(k−1)}, ‖y_{S_k}‖, u_j(τ_k)."""

    tau: float
    neuron: int
    fitted: list[int]
    norm_y: float
    exponents: np.ndarray


@dataclass
class LimitProcess:
    """The output of Algorithm 1: jumps, saddle losses, final parameters θ_∞ and norms (eqs. 13–15)."""

    labels: np.ndarray
    signs: np.ndarray
    activation: np.ndarray
    jumps: list[LimitJump]
    plateaus: list[float]
    a: np.ndarray
    W_data: np.ndarray
    interpolates: bool
    squared_norm: float
    min_norm_squared: float
    ties: list[dict]
    # exponents u_j(τ_k) just after jump k (row k, k = 0..K) and the slopes ‖D_j^{(k)}‖ on (τ_k, τ_{k+1})
    segment_start: np.ndarray = field(repr=False, default=None)
    segment_rates: np.ndarray = field(repr=False, default=None)

    @property
    def taus(self) -> np.ndarray:
        return np.array([jp.tau for jp in self.jumps])

    def _segment(self, tau: float) -> int:
        if not np.isfinite(tau) or tau < 0:
            raise RelucheckInputError(f"accelerated time τ must be finite and ≥ 0, got {tau!r}")
        return bisect.bisect_right([jp.tau for jp in self.jumps], tau)

    def exponents_at(self, tau: float) -> np.ndarray:
        """u_j(τ), eq. (11): u_j(τ_k) − (τ − τ_k)‖D_j^{(k)}‖ on [τ_k, τ_{k+1}); 0 for fitted neurons."""
        k = self._segment(tau)
        start = self.jumps[k - 1].tau if k else 0.0
        return np.maximum(self.segment_start[k] - (tau - start) * self.segment_rates[k], 0.0)

    def flow_horizon(self, margin: float = 0.5) -> float:
        """Where a flow compared with this process stops: the last jump τ_K plus ``margin`` (1 + margin without a
        jump). At τ_K + 0.5 the last fitted neuron has settled to λ^{γ_K/2}-close (C Lemma 9, spec C14)."""
        return (self.jumps[-1].tau if self.jumps else 1.0) + margin

    def loss_at(self, tau: float) -> float:
        """The saddle loss L(θ̄^{(k)}) on [τ_k, τ_{k+1})."""
        return self.plateaus[self._segment(tau)]

    def weights(self, X: np.ndarray) -> np.ndarray:
        """Final hidden weights (m, d): w_j = Σ_i W_data[j, i] x_i for the data X (n, d)."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] != self.W_data.shape[1]:
            raise RelucheckInputError(f"X must have n = {self.W_data.shape[1]} rows, got shape {X.shape}")
        return self.W_data @ X

    def to_json(self) -> dict:
        return {
            "jumps": [{"tau": jp.tau, "neuron": jp.neuron, "fitted": jp.fitted, "norm_y": jp.norm_y}
                      for jp in self.jumps],
            "interpolates": self.interpolates,
            "squared_norm": self.squared_norm,
            "min_norm_squared": self.min_norm_squared,
            "loss_plateaus": list(self.plateaus),
            "ties": self.ties,
            "final": {"a": self.a.tolist(), "W_data": self.W_data.tolist()},
        }


def validate_inputs(labels, signs, activation):
    """Float labels (n,), ±1 signs (m,), boolean activation (n, m); errors name the bad argument."""
    y = np.asarray(labels, dtype=float)
    s = np.asarray(signs, dtype=float)
    act = np.asarray(activation)
    if y.ndim != 1 or y.size == 0:
        raise RelucheckInputError(f"labels must be a non-empty 1-D array, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise RelucheckInputError(f"labels must be finite; non-finite label at index {int(np.flatnonzero(~np.isfinite(y))[0])}")
    if np.max(np.abs(y)) > DATA_MAX_ABS:  # y² and ‖y_S‖² are formed below: overflow would give inf, not an answer
        k = int(np.argmax(np.abs(y)))
        raise RelucheckInputError(f"labels: |y_i| must be ≤ {DATA_MAX_ABS:g} ({DATA_BOUND_REASON}), got y_{k} = {y[k]:.6g}")
    if np.any(y == 0):
        raise HypothesisViolation(NONZERO_LABELS, f"label {int(np.flatnonzero(y == 0)[0])} is 0")
    if s.ndim != 1 or s.size == 0 or not np.all(np.isin(s, (-1.0, 1.0))):
        raise RelucheckInputError("signs must be a non-empty 1-D array of ±1")
    if act.shape != (y.size, s.size):
        raise RelucheckInputError(f"activation must have shape (n, m) = ({y.size}, {s.size}), got {act.shape}")
    if act.dtype != bool:
        if not np.all(np.isin(act, (0, 1))):
            raise RelucheckInputError("activation must be boolean (or 0/1)")
        act = act.astype(bool)
    return y, s, act


def correct_sign_mask(y: np.ndarray, s: np.ndarray, act: np.ndarray) -> np.ndarray:
    """M_ij = 1{i ∈ A_j} = act_ij ∧ (s_j y_i > 0) (spec C §1.7)."""
    return act & (np.outer(y, s) > 0)


def limit_process(labels, signs, activation, *, tie_rtol: float = 1e-12) -> LimitProcess:
    """Algorithm 1 (spec C §2.3). Ties of line 8 (Assumption 4(ii)) are recorded in ``ties``, never hidden:
    the hit times within ``tie_rtol``·hit of the minimum form a tie and the lowest index continues."""
    y, s, act = validate_inputs(labels, signs, activation)
    if not (np.isfinite(tie_rtol) and tie_rtol >= 0):
        raise RelucheckInputError(f"tie_rtol must be finite and ≥ 0, got {tie_rtol!r}")
    n, m = act.shape
    c = rate_constant(n)
    y2 = y * y
    A = correct_sign_mask(y, s, act)
    live = np.arange(n)                   # U_k as indices
    A_live, y2_live = A, y2               # rows of the mask and y² restricted to U_k
    u = np.ones(m)                        # u_j(τ_k)
    tau = 0.0
    a = np.zeros(m)
    W = np.zeros((m, n))
    jumps, ties, starts, slopes = [], [], [], []
    plateaus = [float(y2.sum() / (2 * n))]
    while True:
        count = A_live.sum(0)                                     # |S_j^{(k)}|
        rate = c * np.sqrt(y2_live @ A_live)                      # ‖D_j^{(k)}‖ = c‖y_{S_j^{(k)}}‖
        starts.append(u.copy())
        slopes.append(rate.copy())
        cand = count > 0                  # a fitted j (in F_k) has S_j^{(k)} = ∅, hence also rate 0: no record of F_k
        if not cand.any():
            break                                                 # stopping rule
        hit = np.full(m, np.inf)
        hit[cand] = u[cand] / rate[cand]                          # time to reach u_j = 0
        best = hit.min()
        tied = np.flatnonzero(hit <= best + tie_rtol * best)
        j = int(tied[0])
        dt = float(best)
        tau += dt
        if tied.size > 1:
            ties.append({"iteration": len(jumps) + 1, "neurons": tied.tolist(), "tau": tau})
        u = np.maximum(u - dt * rate, 0.0)                        # eq. (11); clip rounding of tied neurons
        u[j] = 0.0
        in_S = A_live[:, j]
        S = live[in_S]                                            # S_k = S_{j_k}^{(k−1)}
        norm_y = float(np.sqrt(y2_live[in_S].sum()))
        W[j, S] = np.abs(y[S]) / np.sqrt(norm_y)                  # eq. (13)
        a[j] = s[j] * np.sqrt(norm_y)                             # eq. (14)
        jumps.append(LimitJump(tau, j, S.tolist(), norm_y, u.copy()))
        keep = ~in_S
        live, A_live, y2_live = live[keep], A_live[keep], y2_live[keep]
        plateaus.append(float(y2_live.sum() / (2 * n)))
    min_norm_sq = 2.0 * (np.sqrt(np.sum(np.maximum(y, 0.0) ** 2)) + np.sqrt(np.sum(np.minimum(y, 0.0) ** 2)))
    return LimitProcess(
        labels=y, signs=s, activation=act, jumps=jumps, plateaus=plateaus, a=a, W_data=W,
        interpolates=live.size == 0, squared_norm=2.0 * sum(jp.norm_y for jp in jumps),
        min_norm_squared=float(min_norm_sq), ties=ties,
        segment_start=np.array(starts), segment_rates=np.array(slopes),
    )


def limit_process_of(instance, *, tie_rtol: float = 1e-12) -> LimitProcess:
    """Algorithm 1 for an `Instance` with orthonormal inputs (Assumption 1), act_ij = ⟨ḡ_j, x_i⟩ > 0."""
    instance.require_orthonormal()
    return limit_process(instance.labels, instance.signs, instance.activation(), tie_rtol=tie_rtol)
