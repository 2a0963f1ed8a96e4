"""Engine "float64": the flow in float64 at any λ on any data, with θ_j = e^{ρ_j} φ_j, ‖φ_j‖ = 1.

Given the residuals r and the pattern, the field is linear in each neuron's own θ_j = (a_j, w_j)
(`numerics.network.neuron_rates`: dθ_j/dt = M_j θ_j with M_j = c [[0, D_jᵀ], [D_j, 0]]). Writing
θ_j = e^{ρ_j} φ_j with a unit φ_j is therefore exact:

    dρ_j/ds = T φ_jᵀ M_j φ_j,    dφ_j/ds = T (M_j φ_j − (φ_jᵀ M_j φ_j) φ_j),    s = t / T,

and the residuals need only e^{2ρ_j} φ_j,a (φ_j,w · x_i): r_i = y_i − scale Σ_j η_ij e^{2ρ_j} φ_j,a z_ij with
z_ij = ⟨φ_j,w, x_i⟩. λ enters through ρ_j(0) = −ln(1/λ) + ln‖θ̂_j‖ only, so λ = 1e-1000 and beyond is an
ordinary float64 run (e^{2ρ_j} underflows to an exact 0 for neurons far below the labels' scale, where their
contribution is below every rounding of r). The pre-activations z_ij are relative to the neuron's own norm:
event and kink thresholds are relative to each neuron's scale whatever λ is.

Bases: on orthonormal data (X Xᵀ = I up to float64 rounding, `FlowProblem.orthonormal`) the state is written in
the data basis — φ_j,w = (⟨φ_j,w, x_1⟩, …, ⟨φ_j,w, x_n⟩, q_j) with q_j the norm of the part orthogonal to the
data, which never turns — so G = I exactly: the exact fast path of paper C (C eq. 7 in its (ũ, w̄) form), with
no products by X at all. Otherwise the inputs are used as given (``basis="inputs"`` forces that on orthonormal
data too).

The unit sphere of φ_j is unstable where a neuron shrinks (d‖φ‖²/ds = 2g(1 − ‖φ‖²), g < 0), so the formulas read
φ_j/‖φ_j‖: the radial part of the field is then exactly 0 and no drift of ‖φ_j‖ feeds back. A balanced initialization
(|â_j| = ‖ŵ_j‖, C Assumption 3) stays balanced exactly, since the state then holds ψ_j = w_j/‖w_j‖ alone with
a_j = s_j‖w_j‖: the defect a_j² − ‖w_j‖², conserved by the flow but relatively amplified by e^{-2ρ_j} as a neuron
shrinks, is never created by rounding.

Integrator: scipy's DOP853 stepped one step at a time (rtol 1e-10, atol 1e-12 by default); its dense output
(three extra field evaluations, only for steps with a crossing or a requested time) locates events (`logscale_step`).
"""
from __future__ import annotations

import numpy as np

from ...network import neuron_rates, pattern_residuals, weight_rates
from ..basis import Basis
from ..engine import Domain, Engine, Stepper, View, poll
from ..registry import register
from ..vouch import CHECK_FACTOR, review_by_rerun
from .active_set import ActiveSet, eligible
from .logscale_step import StepReading

RTOL, ATOL = 1e-10, 1e-12
# The residual of a fitted datum decays at a rate ∝ ln(1/λ)·‖θ_j‖², a stiff mode that an explicit step keeps at the
# edge of its stability region: r_i then carries an error of some rtol·(|y_i| + Σ_j |a_j z_ij|). Measured on paper
# C's golden example at λ = 1e-1000: 75 times that (|r_1| ≈ 6e-8 alternating in sign where the flow has r_1 → 0⁺);
# 10³ keeps a margin. Pushes below it are not resolved (`numerics.flows.loop`, precision policy).
STIFF_NOISE = 1e3
SQRT2 = np.sqrt(2.0)  # (a constant: np.sqrt of a Python float is a ufunc call, ~0.5 µs, in every evaluation)
BALANCED_TOLERANCE = 1e-9  # |â_j| = ‖ŵ_j‖ to this (the instance format's unit-vector tolerance): balanced exactly
EXP_CAP = 700.0  # e^{2ρ} capped at e^700: only rejected trial stages of an oversized step go there
# rtol bounds (a tolerance is a promise, `numerics.flows.vouch`): every answer is checked by a rerun at rtol/R
# (R = CHECK_FACTOR = 100), and DOP853 in float64 takes no rtol below 100 ε ≈ 2.2e-14 (scipy raises it to that), so
# rtol ≥ R · 100 ε rounded up: 1e-12.
MIN_RTOL = 1e-12
# Above 1e-4 the engine's error on the residuals, STIFF_NOISE·rtol·(|y_i| + …) ≥ 10 % of the labels, leaves the sign
# decisions that make the pattern unresolvable, and the check run 100× tighter can take the same wrong branch: measured
# on drawn general data (n = 6, d = 3, m = 5, λ = 1e-10), rtol 1e-2 vouched for by its rerun at 1e-4 and 5.6e6 times
# its reported error away from rtol 1e-12.
MAX_RTOL = 1e-4
_MAX_RTOL_REASON = (f"above {MAX_RTOL:g} the error on the residuals ({STIFF_NOISE:g}·rtol of the labels) is ≥ 10 % of "
                    "the labels: sign decisions cannot be resolved, and a rerun 100 times tighter may take the same wrong "
                    "branch (docs/engines.md)")


class LogScaleStepper(StepReading, Stepper):
    def __init__(self, problem, basis: Basis, rho0, Phi0, *, rtol, atol, max_step, balanced_signs=None, compress=True):
        self.problem, self.basis = problem, basis
        self.balanced = balanced_signs is not None  # then the state holds ρ_j and ψ_j = w_j/‖w_j‖ only (docstring)
        if self.balanced:
            self.half_signs = balanced_signs / SQRT2  # φ_j,a = s_j/√2
            Phi0 = Phi0[:, 1:] * SQRT2  # ψ_j = √2 φ_j,w
        self.m, self.n = problem.m, problem.n
        self.T = problem.time_scale
        self.conv = problem.convention
        self.y_data = problem.labels
        self.G, self.eps = basis.G, float(np.finfo(float).eps)
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        self.y = np.concatenate([rho0, Phi0.ravel()])
        self.t = self.t_old = 0.0
        self.pattern = None
        self.solver = None
        self.dense = None
        self.last_h = None
        self.nfev = 0
        self.dense_outputs = 0
        self._last = self._view = self._pre = (None, None, None)
        self._on_kinks = {}
        self._slide = None  # pattern.slide of the last `restart` (its projectors are kept)
        self.active = None  # the segment's compressed form (`active_set`), when it applies
        self.compress = compress

    # state ------------------------------------------------------------------------------------------------
    def _parts(self, y):
        """(ρ, φ_a, φ_w) with φ_j = (φ_j,a, φ_j,w) read on the unit sphere; balanced problems: (s_j, ψ_j/‖ψ_j‖)/√2."""
        with np.errstate(over="ignore", invalid="ignore"):  # only a rejected trial stage overflows; the loop
            return self._parts_raw(y)                       # turns a non-finite accepted state into SOLVER_FAILED

    def _parts_raw(self, y):
        m = self.m
        if self.balanced:
            psi = y[m:].reshape(m, self.basis.dim)
            norm = np.sqrt(np.einsum("ij,ij->i", psi, psi))
            return y[:m], self.half_signs, psi * (1.0 / (SQRT2 * norm))[:, None]
        Phi = y[m:].reshape(m, 1 + self.basis.dim)
        inv = 1.0 / np.sqrt(np.einsum("ij,ij->i", Phi, Phi))
        return y[:m], Phi[:, 0] * inv, Phi[:, 1:] * inv[:, None]

    def _split(self, y):
        """(ρ, Φ) with Φ_j = φ_j = (φ_j,a, φ_j,w) (`_parts` as one array)."""
        rho, pa, pw = self._parts(y)
        return rho, np.concatenate([pa[:, None], pw], axis=1)

    def _offset(self) -> tuple[int, int]:
        """(width, start of φ_j,w) of one neuron in the state vector."""
        return (self.basis.dim, 0) if self.balanced else (1 + self.basis.dim, 1)

    def _residuals(self, rho, phi_a, Z, act):
        with np.errstate(over="ignore", invalid="ignore"):  # only a rejected trial stage can overflow (EXP_CAP)
            return self._residuals_raw(rho, phi_a, Z, act)

    def _residuals_raw(self, rho, phi_a, Z, act):
        return pattern_residuals(self.y_data, np.exp(np.minimum(2.0 * rho, EXP_CAP)) * phi_a, Z, act, self.conv)

    def _rates(self, y, pattern, weights: bool = True):
        """Z (n, m), r, V, g = φ_jᵀ M_j φ_j, and (u_a, u_w) = M_j φ_j without its zero complement coordinate;
        ``weights=False``: u_w is None (the views need g only; the field `_rhs` needs u_w).

        The last evaluation is kept: DOP853's last stage is the field at the step's end (first same as last), which
        the loop's watch and view then reuse instead of evaluating it again; a view's evaluation gets its u_w when
        the field asks for it at the same state (DOP853's first stage after a restart)."""
        if y is self._last[0] and pattern is self._last[1]:
            out = self._last[2]
            if weights and out[5] is None:
                phi_a, _, D = out[6]
                out = (*out[:5], weight_rates(phi_a, D, self.n, self.conv), out[6])
                self._last = (y, pattern, out)
            return out
        out = self._evaluate(y, pattern, weights)
        self._last = (y, pattern, out)
        return out

    def _pre_state(self, y, pattern):
        """(ρ, φ_a, φ_w, k, Z): the state read on the unit sphere (sliding neurons on their kinks) and the
        pre-activations, all that a watch of pre-activation rows reads (`StepReading.watched`)."""
        if y is self._pre[0] and pattern is self._pre[1]:
            return self._pre[2]
        with np.errstate(over="ignore", invalid="ignore"):  # (as `_parts`)
            return self._pre_state_raw(y, pattern)

    def _pre_state_raw(self, y, pattern):
        """`_pre_state` without its context; the last one is kept (the loop reads a watch, then the view there)."""
        if y is self._pre[0] and pattern is self._pre[1]:
            return self._pre[2]
        sliding = pattern is self.pattern and self._on_kinks
        if sliding and self._all_kinks:  # each neuron is normalised after its projection (`_onto_kinks`): read
            m = self.m                   # the state as it is, not normalised twice
            rho, phi_a, phi_w = (y[:m], self.half_signs, y[m:].reshape(m, self.basis.dim)) if self.balanced else \
                (y[:m], y[m::1 + self.basis.dim], y[m:].reshape(m, 1 + self.basis.dim)[:, 1:])
        else:
            rho, phi_a, phi_w = self._parts_raw(y)
        if sliding:
            phi_a, phi_w = self._onto_kinks(phi_a, phi_w)
        k = self.basis.n if self.basis.identity else self.basis.dim  # coordinates that data touch
        out = (rho, phi_a, phi_w, k, self.basis.pre(phi_w[:, :k]))
        self._pre = (y, pattern, out)
        return out

    def _residual_state(self, y, pattern):
        """(Z, r, V, φ_a, φ_w, k): the first half of `_evaluate`, all that the sliding exits' watch reads."""
        with np.errstate(over="ignore", invalid="ignore"):  # (`_parts`, `_residuals`: one context for both)
            rho, phi_a, phi_w, k, Z = self._pre_state_raw(y, pattern)
            r = self._residuals_raw(rho, phi_a, Z, pattern.act_float)
        return Z, r, pattern.effective_residuals(r), phi_a, phi_w, k

    def _evaluate(self, y, pattern, weights: bool = True):
        Z, r, V, phi_a, phi_w, k = self._residual_state(y, pattern)
        D = V.T if self.basis.identity else V.T @ self.basis.X
        ua, uw = neuron_rates(None, V, phi_a, phi_w[:, :k], self.conv, D=D, weights=weights)
        g = 2.0 * phi_a * ua  # ⟨φ_w, u_w⟩ = φ_a ⟨φ_w, c D⟩ = φ_a u_a, so φᵀMφ = 2 φ_a u_a
        return Z, r, V, g, ua, uw, (phi_a, phi_w, D)

    def _rhs(self, _t, y):
        poll("a DOP853 step")  # one field evaluation is n·d·m products: 12 of them a step take seconds at n·m = 10⁶
        self.nfev += 1
        _, _, _, g, ua, uw, (phi_a, phi_w, _) = self._rates(y, self.pattern)
        out = np.empty_like(y)
        T = self.T
        np.multiply(g, T, out=out[:self.m])
        k = uw.shape[1]
        # (each part written once: the −g φ_w term into the output, then the data's u_w added where they touch)
        if self.balanced:  # dψ/ds = √2 dφ_w/ds = T(√2 u_w − g ψ̂); dφ_a/ds = T(u_a − 2φ_a² u_a) = 0 exactly
            scale = SQRT2 * T
            dpsi = out[self.m:].reshape(self.m, self.basis.dim)
            np.multiply(phi_w, (-scale * g)[:, None], out=dpsi)
            dpsi[:, :k] += scale * uw
            return out
        dPhi = out[self.m:].reshape(self.m, 1 + self.basis.dim)
        dPhi[:, 0] = T * (ua - g * phi_a)
        np.multiply(phi_w, (-T * g)[:, None], out=dPhi[:, 1:])  # the complement coordinate: only this term
        dPhi[:, 1:1 + k] += T * uw
        return out

    def view(self) -> View:
        pattern = self.pattern
        if pattern is None:  # before the first decision: the σ'(0) = 0 pattern
            from ..filippov import Pattern

            _, _, phi_w = self._parts(self.y)
            pattern = Pattern.of_signs(self.basis.pre(phi_w))
        if self._view[0] is self.y and self._view[1] is pattern:  # the loop asks several times per step
            return self._view[2]
        Z, r, _, g, _, _, (phi_a, _, _) = self._rates(self.y, pattern, weights=False)
        rho = self.y[:self.m]
        sizes = np.abs(Z * pattern.act_float) @ (np.exp(np.minimum(2.0 * rho, EXP_CAP)) * np.abs(phi_a))
        r_error = STIFF_NOISE * self.rtol * (np.abs(self.y_data) + sizes)
        view = View(Z, r, np.sign(phi_a), float(r @ r) / (2 * self.n), rho.copy(), self.T * g, np.array(phi_a), r_error)
        self._view = (self.y, pattern, view)
        return view

    # segment ----------------------------------------------------------------------------------------------
    def snap(self, kink):
        """The kink components put exactly on their kinks (`Basis.project_out`), each neuron renormalised, for all the
        neurons with a kink component at once (the same products and norms as one neuron at a time: a stacked matmul
        and `np.vecdot` are BLAS's gemv and dot per row)."""
        rho, Phi = self._split(self.y.copy())
        J = np.flatnonzero(kink.any(axis=0))
        if len(J):
            if self.basis.identity:  # data coordinates set to 0 (the complement coordinate never is)
                w = Phi[J, 1:]
                w[:, :self.n][kink[:, J].T] = 0.0
            else:
                sliding = self._slide if self._slide is not None else np.zeros_like(kink)
                same = (kink[:, J] == sliding[:, J]).all(axis=0)  # kinks = the segment's sliding set: its projector
                projectors = np.stack([self._on_kinks[int(j)] if same[q] else self.basis.projector(np.flatnonzero(kink[:, j]))
                                       for q, j in enumerate(J)])
                w = np.matmul(Phi[J, 1:][:, None, :], projectors)[:, 0, :]
            if self.balanced:  # ‖w_j‖ and |a_j| change together: balancedness stays exact
                norm = SQRT2 * np.sqrt(np.vecdot(w, w))
                Phi[J, 1:] = w / norm[:, None]
            else:
                Phi[J, 1:] = w
                full = Phi[J]
                norm = np.sqrt(np.vecdot(full, full))
                Phi[J] = full / norm[:, None]
            rho[J] += np.log(norm)
        self.y = np.concatenate([rho, (Phi[:, 1:] * SQRT2 if self.balanced else Phi).ravel()])
        self.solver = None
        self.dense = None

    def restart(self, pattern):
        self.pattern = pattern
        self.solver = None
        self.dense = None
        old = self._slide
        if old is not None and np.array_equal(pattern.slide, old):  # the same sliding components: the same projectors
            return
        self._slide = pattern.slide.copy()
        same = (pattern.slide == old).all(axis=0) if old is not None else np.zeros(self.m, dtype=bool)
        previous, self._on_kinks = self._on_kinks, {}  # sliding neuron j -> projector onto its kinks' intersection {z_S = 0}
        for j in np.flatnonzero(pattern.slide.any(axis=0)):  # (a neuron whose kinks did not change keeps its projector)
            self._on_kinks[int(j)] = previous[int(j)] if same[j] else self.basis.projector(np.flatnonzero(pattern.slide[:, j]))
        if self._on_kinks:  # stacked once for `_onto_kinks`
            self._kink_neurons = np.fromiter(self._on_kinks, dtype=int)
            self._kink_projectors = np.stack(list(self._on_kinks.values()))
            self._all_kinks = len(self._kink_neurons) == self.m

    def _onto_kinks(self, phi_a, phi_w):
        """(φ_a, φ_w) with each sliding neuron's φ_w on its kinks' intersection, renormalised. The sliding field holds
        z_S at 0 only there; a drift off it (the integrator's error) would grow where the neuron shrinks
        (dz_S/ds = −T g z_S with g < 0), so the field is read on the constraint: the drift does not feed back."""
        if self._all_kinks:  # every neuron slides (common on general data): no gather and scatter
            on = np.matmul(phi_w[:, None, :], self._kink_projectors)[:, 0, :]
            w_norm = np.sqrt(np.add.reduce(on * on, axis=1))
            if self.balanced:
                return phi_a, on / (SQRT2 * w_norm)[:, None]
            norm = np.hypot(phi_a, w_norm)
            return phi_a / norm, on / norm[:, None]
        J = self._kink_neurons
        if not self.balanced:  # (φ_a, φ_w are fresh arrays of `_parts`; the balanced φ_a is shared and not written)
            phi_a = np.array(phi_a, dtype=float)
        on = np.matmul(phi_w[J][:, None, :], self._kink_projectors)[:, 0, :]
        w_norm = np.sqrt(np.add.reduce(on * on, axis=1))
        if self.balanced:
            phi_w[J] = on / (SQRT2 * w_norm)[:, None]
        else:
            norm = np.hypot(phi_a[J], w_norm)
            phi_a[J], phi_w[J] = phi_a[J] / norm, on / norm[:, None]
        return phi_a, phi_w

    def advance(self, t_stop):
        if self.solver is None:
            from scipy.integrate import DOP853  # here: listing the engines does not import scipy.integrate (0.3 s)

            first = min(self.last_h, t_stop - self.t) if self.last_h else None
            self.active = ActiveSet(self, self.pattern, EXP_CAP) if self.compress and eligible(self, self.pattern) else None
            fun, y0 = (self.active.rhs, self.active.compress(self.y)) if self.active else (self._rhs, self.y)
            self.solver = DOP853(fun, self.t, y0, t_stop, rtol=self.rtol, atol=self.atol, max_step=self.max_step,
                                 first_step=first)
        message = self.solver.step()
        if self.solver.status == "failed":
            return message or "step size became too small"
        self.t_old, self.t = self.solver.t_old, self.solver.t
        self.last_h = self.t - self.t_old
        self.y = self.active.expand(self.solver.y) if self.active else self.solver.y
        self.dense = None
        return None

    def _params(self, y):
        rho, Phi = self._split(y)
        size = np.exp(rho)
        a = size * Phi[:, 0]
        if self.basis.identity:
            W = size[:, None] * (Phi[:, 1:self.n + 1] @ self.problem.inputs + Phi[:, -1:] * self.complement)
        else:
            W = size[:, None] * Phi[:, 1:]
        return a, W

    def final(self):
        return self._params(self.y)

    def stats(self):
        return {"nfev": self.nfev, "dense_outputs": self.dense_outputs, "basis": "data" if self.basis.identity else "inputs"}


def _tolerance_refusal(options) -> str | None:
    rtol, atol = options.get("rtol", RTOL), options.get("atol", ATOL)
    for name, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            return f"{name} must be a finite number, got {value!r}"
    if not MIN_RTOL <= rtol <= MAX_RTOL:
        return (f"rtol must be in [{MIN_RTOL:g}, {MAX_RTOL:g}], got {rtol!r}: every answer is vouched for by a rerun "
                f"at rtol/{CHECK_FACTOR:g}, and DOP853 takes no rtol below 100 ε ≈ 2.2e-14; {_MAX_RTOL_REASON}")
    if not 0 < atol <= MAX_RTOL:
        return f"atol must be in (0, {MAX_RTOL:g}], got {atol!r} (the state's components are O(1): atol acts as rtol)"
    return None


def _refuse(problem, options):
    reason = _tolerance_refusal(options)
    if reason:
        return reason
    if options.get("basis", "auto") not in ("auto", "inputs", "data"):
        return f"basis must be 'auto', 'inputs' or 'data', got {options['basis']!r}"
    if options.get("basis") == "data" and not problem.orthonormal():
        return "basis='data' needs orthonormal inputs (C Assumption 1: X Xᵀ = I up to float64 rounding)"
    return None


class LogScaleEngine(Engine):
    name = "float64"
    precision = "float64"
    domain = Domain("any data, any λ > 0 (ln(1/λ) only); exact data basis on orthonormal inputs", _refuse)
    options = ("rtol", "atol", "max_step", "basis")

    def start(self, problem, *, rtol: float = RTOL, atol: float = ATOL, max_step: float = np.inf,
              basis: str = "auto") -> LogScaleStepper:
        X = problem.inputs
        identity = basis == "data" or (basis == "auto" and problem.orthonormal())
        b = Basis(X, identity)
        a_hat, W_hat = problem.init.a_hat, problem.init.W_hat
        if identity:
            C = W_hat @ X.T  # (m, n) data coordinates of ŵ_j
            perp = W_hat - C @ X
            q = np.linalg.norm(perp, axis=1)
            Phi_w = np.concatenate([C, q[:, None]], axis=1)
        else:
            Phi_w = W_hat.copy()
        w_norms = np.linalg.norm(Phi_w, axis=1)
        balanced = bool(np.all(np.abs(np.abs(a_hat) - w_norms) <= BALANCED_TOLERANCE * w_norms))
        if balanced:  # C Assumption 3 (within the instance format's unit-vector tolerance): exactly balanced
            Phi_w = Phi_w * (np.abs(a_hat) / w_norms)[:, None]
        Phi = np.concatenate([a_hat[:, None], Phi_w], axis=1)
        norms = np.linalg.norm(Phi, axis=1)
        rho0 = np.log(norms) - problem.log_inv_lambda
        stepper = LogScaleStepper(problem, b, rho0, Phi / norms[:, None], rtol=rtol, atol=atol, max_step=max_step,
                                  balanced_signs=np.sign(a_hat) if balanced else None)
        if identity:
            stepper.complement = np.divide(perp, q[:, None], out=np.zeros_like(perp), where=q[:, None] > 0)
        return stepper

    def tolerances(self, problem, *, rtol: float = RTOL, atol: float = ATOL, max_step: float = np.inf, basis: str = "auto"):
        return {"method": "DOP853 on (ρ_j, φ_j), or (ρ_j, ψ_j) for balanced initializations", "rtol": rtol, "atol": atol,
                "max_step": max_step,
                "kink": "|z_ij| ≤ 64 ε ‖x_i‖ relative to ‖θ_j‖"}


    def review(self, result, problem, options, rerun):
        """Every answer's error bound from a check run at rtol/100, atol/100, or at rtol 1e-12 when the run recorded
        near ties (`numerics.flows.vouch`)."""
        rtol, atol = options.get("rtol", RTOL), options.get("atol", ATOL)
        factor = CHECK_FACTOR
        if result.stats.get("near_ties"):  # fragile: a decision within the floor may be shared by a check only 100×
            factor = max(CHECK_FACTOR, rtol / MIN_RTOL)  # tighter; check at the tightest rtol (vouch docstring)
        changes = {"rtol": max(rtol / factor, 100 * np.finfo(float).eps), "atol": atol / factor}
        return review_by_rerun(result, problem, rerun, changes, eps=float(np.finfo(float).eps),
                               method=f"float64 run at rtol {rtol:g} against a check run at rtol {changes['rtol']:g}",
                               rtol=rtol)


register(LogScaleEngine())
