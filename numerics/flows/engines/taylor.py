"""Engine "mpmath": the flow in mpmath at ``digits`` digits by high-order Taylor steps, any data, any λ > 0.

The state is the raw parameters θ_j = (a_j, w_j) and the pre-activations Z = X Wᵀ, as mpmath numbers at the working
precision; λ enters as a decimal string (θ_j(0) = λ·(â_j, ŵ_j), "1e-1000" and below are ordinary mpmath numbers).
A step is one Taylor step of the kernel `numerics.taylor` (coefficient recurrences within a Filippov segment, the
sliding components carrying the effective residuals V = `Pattern.effective_residuals`(r) of the one Filippov layer;
Jorba–Zou step of order K = 2·digits to relative accuracy 10^-digits per neuron). The one loop
(`numerics.flows.loop.integrate`) drives it: events are located on the step's Taylor polynomials, and so are the
jump times, on the polynomial of ‖θ_j‖² = 2a_j² − q_j (q_j = a_j² − ‖w_j‖² is conserved, A Lemma 2 / B Lemma 1 /
C Prop. 1, also while sliding), so `FlowResult.jumps[k].exact` and `Event.exact` are at working precision.

Bases and kernels: on orthonormal inputs (`FlowProblem.orthonormal`) the flow runs in the data basis — Z_:j are
w_j's data coordinates, G = I exactly, and w_j's part orthogonal to the data (frozen) is added back for W — where
``kernel="auto"`` picks the limb kernel (exact fixed-point sums on BLAS) if the output scale is a power of two;
otherwise, and on any other data, the arb kernel (python-flint). Options: ``digits`` (≥ 15, default 30), ``order``
(default 2·digits), ``kernel`` ("auto" | "arb" | "limbs"), ``guard`` (rerun at 2·digits: status GUARD_FAILED when
jump times or the final a differ beyond 10^-(digits − log10 ln(1/λ) − 5), `numerics.mp_arrays.required_digits`),
``exact_samples`` (trajectory samples of a and W as mpmath numbers instead of float64).
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...errors import RelucheckInputError
from ...network import pattern_residuals
from ..engine import Domain, Engine, Stepper, View, poll
from ..events import KINDS, EventKind
from ..filippov import Pattern
from ..registry import register
from . import taylor_guard

DEFAULT_DIGITS = 30
KERNELS = ("auto", "arb", "limbs")


def _load() -> None:
    """Import mpmath, python-flint (`numerics.mp_arrays`) and the Taylor kernel (`numerics.taylor`) into this module's
    names, once. Called by the engine's entry points (`_refuse`, `TaylorEngine.start`, `tolerances`; the review,
    `taylor_guard`, imports its own): registering the engine does not load them, so `relucheck engines` needs neither
    (issue 22, item 6)."""
    global mpmath, check_precision, flint_precision, to_arb, to_mp
    global ArbStep, LimbOverflow, TaylorProblem, fixed_format, horner, initial_time_unit, limb_kernel_refusal, limb_step
    global neuron_sizes, balance
    if "neuron_sizes" in globals():
        return
    import mpmath

    from . import balance

    from ...mp_arrays import check_precision, flint_precision, to_arb, to_mp
    from ...taylor import (ArbStep, LimbOverflow, TaylorProblem, fixed_format, horner, initial_time_unit,
                           limb_kernel_refusal, limb_step, neuron_sizes)


def _arb_effective(pattern: Pattern):
    """The segment's map r ↦ V in arb (`Pattern.effective_residuals` with its projections converted), or None if
    nothing slides (then V = act ∘ r)."""
    if not pattern.projections:
        return None
    arb_pattern = Pattern(pattern.act, pattern.slide,
                          {j: (S, A, to_arb(P)) for j, (S, A, P) in pattern.projections.items()})
    return arb_pattern.effective_residuals


def _polling(effective, act):
    """The segment's map r ↦ V (`_arb_effective`; act ∘ r where nothing slides, what the kernel computes without
    one) with the budget polled first: the kernel calls it once per Taylor order, and one step of order 2·digits is
    ≈ 1.5 K² n m arb products — minutes at 1000 digits on n = 6, m = 4 (issue 20, bounded work)."""
    actf = act.astype(object) * 1

    def effective_residuals(r):
        poll("a Taylor step")
        return r[:, None] * actf if effective is None else effective(r)

    return effective_residuals


class TaylorStepper(Stepper):
    def __init__(self, problem, *, digits: int, order: int | None, kernel: str, exact_samples: bool):
        self.problem, self.digits, self.exact_samples = problem, digits, exact_samples
        self.K = order if order is not None else max(12, 2 * digits)
        self.precision = f"mpmath {digits} digits"
        self.conv = problem.convention
        self.n, self.m = problem.n, problem.m
        with self.working_precision():
            lam = problem.init.scale.mpf()
            T = -mpmath.log(lam) if problem.time_unit == "tau" else mpmath.mpf(1)
            X = to_mp(problem.inputs)
            W_hat = to_mp(problem.init.W_hat)
            self.data_basis = problem.orthonormal()
            if self.data_basis:  # w_j = Σ_i Z_ij x_i + w_j^⊥ with w_j^⊥ frozen (dw_j ∈ span{x_i})
                C = W_hat @ X.T  # (m, n): ⟨ŵ_j, x_i⟩ at working precision
                self.X_inputs, self.W_perp = X, lam * (W_hat - C @ X)
                # ‖w_j^⊥‖² = ‖w_j(0)‖² − Σ_i Z_ij(0)², so that ‖w_j(0)‖ = λ‖ŵ_j‖ exactly (inputs orthonormal only to
                # float64 rounding make ‖W_perp_j‖² differ from it at that rounding; `arb_enclosure` uses the same)
                self.perp2 = np.array([lam * lam * (mpmath.fdot(w, w) - mpmath.fdot(c, c))
                                       for w, c in zip(W_hat, C, strict=True)], dtype=object)
                self.prob = TaylorProblem(np.eye(self.n), problem.labels, self.conv, T)
                self.W, self.Z = None, (lam * C).T.copy()
            else:
                self.prob = TaylorProblem(problem.inputs, problem.labels, self.conv, T)
                self.W = lam * W_hat
                self.Z = self.prob.X @ self.W.T
            self.a = lam * to_mp(problem.init.a_hat)
            self.signs = balance.balanced_signs(problem.init)  # s_j on a balanced start (C Assumption 3), else None
            self._hold_balance()  # a_j(0) = s_j‖w_j(0)‖ at working precision
            self.G = self.prob.G
            self.eps = mpmath.mpf(10) ** -digits
            self.t = self.t_old = mpmath.mpf(0)
            self.q0 = self._balance()
        self.use_limbs = kernel == "limbs" or (kernel == "auto" and limb_kernel_refusal(self.prob) is None)
        self.fmt = fixed_format(digits) if self.use_limbs else None
        self.h_exp = initial_time_unit(self.prob) if self.use_limbs else None
        self.pattern, self.effective, self.step = None, None, None
        self.start_state = None  # (a, Z, W) at the last step's start
        self.q = self.q0  # balancedness at the last step's start (the norm interpolants use it)
        self.kernel_steps = {"limbs": 0, "arb": 0}
        self._view = None

    def working_precision(self):
        stack = contextlib.ExitStack()
        stack.enter_context(mpmath.workdps(self.digits))
        stack.enter_context(flint_precision(self.digits))
        return stack

    # state ------------------------------------------------------------------------------------------------
    def _squared_w(self, Z, W):
        if self.data_basis:
            return np.array([mpmath.fdot(Z[:, j], Z[:, j]) + self.perp2[j] for j in range(self.m)], dtype=object)
        return np.array([mpmath.fdot(w, w) for w in W], dtype=object)

    def _balance(self, a=None, Z=None, W=None):
        """q_j = a_j² − ‖w_j‖² (conserved)."""
        a, Z, W = (self.a, self.Z, self.W) if a is None else (a, Z, W)
        return a * a - self._squared_w(Z, W)

    def _hold_balance(self):
        """a_j back on s_j‖w_j‖ on a balanced start (`balance`)."""
        if self.signs is not None:
            self.a = balance.balanced(self.signs, self._squared_w(self.Z, self.W))

    def _weights(self, Z, W):
        """W (m, d) in the inputs' basis."""
        return Z.T @ self.X_inputs + self.W_perp if self.data_basis else W

    def _changed(self):
        self._view = None

    def view(self) -> View:
        if self._view is None:
            pattern = self.pattern if self.pattern is not None else Pattern.of_signs(self.Z)
            a, Z = self.a, self.Z
            norm2 = a * a + self._squared_w(Z, self.W)
            norm = np.array([mpmath.sqrt(v) for v in norm2], dtype=object)
            r = pattern_residuals(self.prob.y, a, Z, pattern.act, self.conv)
            V = pattern.effective_residuals(r)
            da = (V * Z).sum(axis=0) * self.prob.cT  # da_j = T c Σ_i V_ij Z_ij (sliding components have Z_ij = 0)
            self._view = View(Z / norm[None, :], r, np.array([float(mpmath.sign(v)) for v in a]),
                              mpmath.fdot(r, r) / (2 * self.n),
                              np.array([mpmath.log(v) / 2 for v in norm2], dtype=object), 2 * a * da / norm2, a / norm)
        return self._view

    def snap(self, kink):
        """w_j minus its component in span{x_k : k on the kink}; those Z_kj are then exactly 0."""
        self._project(kink)
        self._hold_balance()
        self.step = None
        self._changed()

    def _project(self, kink):
        for j in np.flatnonzero(kink.any(axis=0)):
            K = np.flatnonzero(kink[:, j])
            if not self.data_basis:
                self.W[j] = _project_out(self.W[j], self.prob.X[K], self.eps)
                self.Z[:, j] = self.prob.X @ self.W[j]
            self.Z[K, j] = mpmath.mpf(0)

    def _hold_sliding(self):
        """Sliding components back onto their kinks after a step (z_kj = 0 in the flow; `balance`)."""
        if self.pattern is not None and self.pattern.slide.any():
            self._project(self.pattern.slide)

    def restart(self, pattern):
        self.pattern = pattern
        self.effective = _arb_effective(pattern)
        self.step = None
        self._changed()

    # steps ------------------------------------------------------------------------------------------------
    def _new_step(self):
        act = self.pattern.act
        tol = self.eps
        while True:
            if self.use_limbs and not self.pattern.slide.any():
                step, self.h_exp = limb_step(self.prob, self.a, self.Z, act, self.K, self.fmt, self.h_exp)
                return step, step.jorba_zou(tol, None)
            step = ArbStep(self.prob, self.a, self.Z, act, self.K, _polling(self.effective, act),
                           tuple(self.pattern.projections))
            return step, step.jorba_zou(tol, neuron_sizes(self.a, self.Z))

    def _state_at(self, step, s):
        """(h, a, Z, W) of ``step`` at offset s ≤ its length (h: s on the kernel's time grid)."""
        h, token = step.quantize(s)
        a, Z = step.state_at(token)
        if self.data_basis:
            return h, a, Z, None
        a0, Z0, W0 = self.start_state
        W = step.new_weights(W0, Z0, Z, token)
        return h, a, self.prob.X @ W.T, W

    def advance(self, t_stop):
        remaining = mpmath.mpf(t_stop) - self.t
        self.start_state, self.q = (self.a, self.Z, self.W), self._balance()
        for _ in range(40):
            step, h_jz = self._new_step()
            last = h_jz >= remaining
            try:
                h, a, Z, W = self._state_at(step, min(h_jz, remaining))
                break
            except LimbOverflow:  # the state outgrew the fixed format within the step: a smaller time unit
                self.h_exp -= 3
        else:
            return "the limb kernel's fixed format overflows at every time unit"
        if not h > 0:
            return f"Taylor step underflow at t = {mpmath.nstr(self.t, 12)} (Jorba–Zou step {mpmath.nstr(h_jz, 5)})"
        self.kernel_steps[step.kernel] += 1
        if step.kernel == "limbs":
            self.h_exp = step.next_time_unit()
        self.step, self.a, self.Z, self.W = step, a, Z, W
        self.t_old, self.t = self.t, (mpmath.mpf(t_stop) if last else self.t + h)
        self._changed()
        lost = self._balance_lost()
        self._hold_sliding()
        self._hold_balance()
        return lost

    def _balance_lost(self):
        """A failure message if a step changed an output weight's sign on a balanced start (`balance.sign_change`)."""
        if self.signs is None:
            return None
        return balance.sign_change(self.a, self.signs, self.t, "τ" if self.problem.time_unit == "tau" else "t")

    def truncate(self, t):
        h, self.a, self.Z, self.W = self._state_at(self.step, mpmath.mpf(t) - self.t_old)
        self.t = self.t_old + h
        self._hold_sliding()
        self._hold_balance()
        self._changed()

    def evaluator(self, watch):
        """t ↦ watched values on the step's polynomials: z_ij/‖θ_j‖ with ‖θ_j‖² = 2a_j² − q_j, and r_i, V_ij for
        sliding exits; only the rows' own polynomials are converted and evaluated."""
        step, t0, q = self.step, self.t_old, self.q
        exits = np.isin(watch.codes, [KINDS.index(EventKind.LEAVE_DOWN), KINDS.index(EventKind.LEAVE_UP)])
        zc = {(i, j): step.z_coefficients(i, j) for i, j, e in zip(watch.data, watch.neurons, exits, strict=True) if not e}
        ac = {j: step.a_coefficients().column(j) for j in set(watch.neurons.tolist())}
        rc = {i: step.r_coefficients(i) for i in set(watch.data[exits].tolist())}
        vc = {(i, j): step.v_coefficients(i, j) for i, j in zip(watch.data[exits], watch.neurons[exits], strict=True)}

        def values(t):
            s = mpmath.mpf(t) - t0
            norm = {j: mpmath.sqrt(2 * horner(c, s) ** 2 - q[j]) for j, c in ac.items()}
            Z = np.zeros((self.n, self.m), dtype=object)
            for (i, j), c in zc.items():
                Z[i, j] = horner(c, s) / norm[j]
            r, V = np.zeros(self.n, dtype=object), np.zeros((self.n, self.m), dtype=object)
            for i, c in rc.items():
                r[i] = horner(c, s)
            for (i, j), c in vc.items():
                V[i, j] = horner(c, s)
            return watch.values(Z, r, V)

        return values

    def watched(self, watch, t):
        """At the step's end from the state itself (`view`), inside the step on its polynomials (`evaluator`)."""
        if t == self.t:
            view = self.view()
            return watch.values(view.Z, view.r, self.pattern.effective_residuals(view.r))
        return self.evaluator(watch)(t)

    def sample(self, t, params):
        if self.step is None:
            a, Z, W = self.a, self.Z, self.W
        else:
            _, a, Z, W = self._state_at(self.step, mpmath.mpf(t) - self.t_old)
        act = (self.pattern if self.pattern is not None else Pattern.of_signs(Z)).act
        r = pattern_residuals(self.prob.y, a, Z, act, self.conv)
        log_norms = np.array([mpmath.log(v) / 2 for v in a * a + self._squared_w(Z, W)], dtype=object)
        out_a, out_W = (a.copy(), self._weights(Z, W)) if params else (None, None)
        if params and not self.exact_samples:
            out_a, out_W = _floats(out_a), _floats(out_W)
        return mpmath.fdot(r, r) / (2 * self.n), log_norms, out_a, out_W

    def final(self):
        return _floats(self.a), _floats(self._weights(self.Z, self.W))

    def norm_interpolant(self):
        """(t, j) ↦ ln‖θ_j(t)‖ on the last step: ½ ln(2 a_j(t)² − q_j) with a_j's Taylor polynomial."""
        if self.step is None:
            return None
        coefficients, t0, q = self.step.a_coefficients(), self.t_old, self.q
        return lambda t, j: mpmath.log(2 * horner(coefficients.column(j), mpmath.mpf(t) - t0) ** 2 - q[j]) / 2

    def stats(self):
        with self.working_precision():
            drift = max((abs(u - v) / (a * a + a * a - u) for u, v, a in zip(self._balance(), self.q0, self.a, strict=True)),
                        default=mpmath.mpf(0))
            return {"digits": self.digits, "order": self.K, "basis": "data" if self.data_basis else "inputs",
                    "kernel": "+".join(k for k, v in self.kernel_steps.items() if v) or "none",
                    "kernel_steps": dict(self.kernel_steps),
                    "a_final_mp": [mpmath.nstr(v, self.digits) for v in self.a],
                    "final_loss_mp": mpmath.nstr(self.view().loss, self.digits),
                    "balancedness_drift": float(drift)}


def _project_out(w, XK, eps):
    """w minus its orthogonal projection on span{rows of XK} (modified Gram–Schmidt, applied twice; rows within
    64·eps of the span of the previous ones are dependent: more kink data than dimensions is allowed)."""
    basis = []
    for x in XK:
        v = x.copy()
        for _ in range(2):
            for e in basis:
                v = v - e * mpmath.fdot(v, e)  # array × mpf: mpf × array converts the array first (repr, 0.1 ms)
        size = mpmath.sqrt(mpmath.fdot(v, v))
        if size > 64 * eps * mpmath.sqrt(mpmath.fdot(x, x)):
            basis.append(v / size)
    for _ in range(2):
        for e in basis:
            w = w - e * mpmath.fdot(w, e)
    return w


def _floats(arr):
    return np.array([float(v) for v in np.ravel(arr)]).reshape(np.shape(arr))


def _refuse(problem, options):
    _load()
    digits = options.get("digits", DEFAULT_DIGITS)
    try:
        check_precision(digits)
    except RelucheckInputError as exc:
        return str(exc)
    order = options.get("order")
    if order is not None and (not isinstance(order, (int, np.integer)) or isinstance(order, bool) or order < 4):
        return f"order must be an integer ≥ 4 (the Taylor order; default 2·digits), got {order!r}"
    kernel = options.get("kernel", "auto")
    if kernel not in KERNELS:
        return f"kernel must be one of {KERNELS}, got {kernel!r}"
    if kernel == "limbs":
        if not problem.orthonormal():
            return "kernel='limbs' needs orthonormal inputs (X Xᵀ = I up to float64 rounding); use kernel='arb'"
        divisor = problem.convention.width_divisor
        if divisor & (divisor - 1):
            return f"kernel='limbs' needs a power-of-two output scale, the convention divides by {divisor}; use kernel='arb'"
    for flag in ("guard", "exact_samples"):
        if not isinstance(options.get(flag, False), bool):
            return f"{flag} must be True or False, got {options[flag]!r}"
    return None


class TaylorEngine(Engine):
    name = "mpmath"
    precision = f"mpmath (option digits, default {DEFAULT_DIGITS})"
    domain = Domain("any data, any λ > 0 (a decimal string, used in mpmath), digits ≥ 15; limb kernel on orthonormal "
                    "inputs with a power-of-two output scale, arb kernel otherwise", _refuse)
    options = ("digits", "order", "kernel", "guard", "exact_samples")

    def start(self, problem, *, digits: int = DEFAULT_DIGITS, order: int | None = None, kernel: str = "auto",
              guard: bool = False, exact_samples: bool = False) -> TaylorStepper:
        _load()
        return TaylorStepper(problem, digits=digits, order=order, kernel=kernel, exact_samples=exact_samples)

    def tolerances(self, problem, *, digits: int = DEFAULT_DIGITS, order: int | None = None, kernel: str = "auto",
                   guard: bool = False, exact_samples: bool = False):
        _load()
        out = {"method": f"Taylor order {order or max(12, 2 * digits)}, Jorba–Zou step", "step_tolerance": f"1e-{digits}",
               "kink": f"|z_ij| ≤ 64·1e-{digits}·‖x_i‖ relative to ‖θ_j‖"}
        if guard:
            out["guard"] = taylor_guard.guard_tolerance(problem, digits)
        return out

    def review(self, result, problem, options, rerun):
        """Exact jump times into the stats; with ``guard`` the rerun at twice the digits, which also gives every answer
        its error bound (`numerics.flows.engines.taylor_guard`)."""
        return taylor_guard.review(result, problem, options, rerun, options.get("digits", DEFAULT_DIGITS))


register(TaylorEngine())
