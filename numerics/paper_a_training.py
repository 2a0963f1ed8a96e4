"""Paper A's simulator: many (n, seed) problems trained at once by full-batch GD, with stopping rules.

Paper A §5 trains one network per sample size n and reads the train and test losses "at convergence".
Here B problems of one dimension d and width m are stacked (`numerics.flows.batched_gd.GDBatch.stack`: padded
with zero rows, per-problem n) and stepped together by the batched GD core (`descend`): the explicit Euler
scheme of A eq. (4) with L = 1/(2n) Σ r² and σ'(0) = 0. Continuous time is Σ η per problem.

Stopping (per problem; a stopped problem is frozen and drops out of the arithmetic):

* ``interpolating``: L ≤ ``interp_ratio`` · L_OLS. Full-batch GD with η below 2/smoothness decreases
  L monotonically, so once the ratio threshold is crossed the classification "interpolates" is final.
* ``stationary``: after the initial plateau (L ≤ ½ L(0)), two conditions at two consecutive checks
  ``check_every`` steps apart, with T_left the flow time left in the budget (η₀ · max_steps − t):

  1. the measured rate: the flow changes L at rate dL/dt = −‖∂L‖² (minimal-norm Clarke subgradient,
     Filippov sliding included), measured as the loss decrease over the last window divided by its flow
     time (the σ'(0) = 0 selection's gradient is not used: at a kink where neurons slide along a data
     hyperplane it stays large while L does not move); require rate · T_left ≤ ``rel_tol`` · L;
  2. no escape from a saddle within the budget: a neuron j with dynamical vector D_j grows at most like
     the frozen-field solution of A eq. (4), (|a_j|, ‖w_j‖) ≤ s_j e^{‖D_j‖t}, and lowers L at rate
     ⟨w_j,D_j⟩² + a_j²‖D_j‖² ≤ 2 s_j² ‖D_j‖² e^{2‖D_j‖t}; over T_left that is at most
     s_j² ‖D_j‖ e^{2‖D_j‖T_left}. Require Σ_j of it ≤ ``rel_tol`` · L (s_j = max(|a_j|, ‖w_j‖)).

  Both hold at a limit with a local PL inequality (A Lemma F.6, eq. 45), where D_j → 0; condition 2
  is what keeps a plateau near a saddle (small neurons still aligning, D_j ≠ 0) from being mistaken
  for convergence, as long as the residual stays frozen while L does not move.
* ``budget``: the step budget ran out (reported as such, never silently).

Step-size control: GD tracks the flow only while η is below 2/sharpness; interpolating networks grow
large weights (sharpness ≈ Σ_j a_j² ‖x‖²/n), and a fixed η then oscillates. When a problem's loss
at a check exceeds its value at the previous check by more than INSTABILITY_RISE (chattering of
neurons across a data hyperplane moves L by far less) or overflows, the window is undone and its η
halved (per problem). With ``max_lr_factor`` > 1 an accepted window multiplies η by STEP_GROWTH, up to
a ceiling: max_lr_factor · η₀ at first, CEILING_AFTER_RISE times the last step that made L rise after a
rejection, relaxed by CEILING_RELAX per accepted window. The sharpness grows as a network fits (d = 10, n = 256:
plain GD at 2η₀ turns unstable at t ≈ 350, at η₀ it stays stable); the ceiling keeps η below the last unstable
step instead of growing back into it every other window (measured: 30 % fewer steps than without it). A flow
integrator with step-size control, which spends its steps where the flow is stiff. The continuous time
t = Σ η of each problem is recorded; the budget is in flow time.

Precision: the steps use the stack's arithmetic (``GDBatch.dtype``; float32 halves the cost of the (n, m) work,
the state stays float64); every decision above (losses, rates, escape bounds) is taken on a float64 evaluation
at the window's end.
"""
from __future__ import annotations

import bisect
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .array_backend import to_numpy  # the escape bound reads one problem's data on the host (any backend)
from .errors import RelucheckInputError
from .flows.batched_gd import GDBatch, descend

INSTABILITY_RISE = 1e-3  # a rise of L by more than 0.1 % over a window is step-size instability, not kink chattering
STEP_GROWTH = 1.5  # η × 1.5 after an accepted window (with max_lr_factor > 1) …
CEILING_AFTER_RISE = 0.8  # … up to a ceiling: 0.8 × the last step that made L rise …
CEILING_RELAX = 1.02  # … which relaxes by 2 % per accepted window (the sharpness changes as the network fits)


@dataclass
class BatchResult:
    a: np.ndarray  # (B, m)
    W: np.ndarray  # (B, m, d)
    loss: np.ndarray  # (B,) final training loss 1/(2n) Σ r²
    grad_sq: np.ndarray  # (B,) final ‖∇L‖² of the σ'(0) = 0 selection
    steps: np.ndarray  # (B,) steps taken
    time: np.ndarray  # (B,) continuous time Σ η reached
    lr: np.ndarray  # (B,) final step size
    status: list[str]  # per problem: interpolating / stationary / budget
    seconds: float
    history: list = field(default_factory=list)  # (step, loss (B,)) every check


def train_batch(P: GDBatch, a0, W0, lr: float, max_steps, *, loss_ref=None, interp_ratio: float = 1e-4,
                rel_tol: float = 1e-3, check_every: int = 500, min_steps: int = 0,
                max_lr_factor: float = 1.0, horizon: str = "budget", max_time: float | None = None,
                window: float = 2.0, start_time=None) -> BatchResult:
    """Run batched GD with the stopping rules of the module docstring.

    ``loss_ref`` (B,) is the reference of the interpolation rule (the OLS training loss); without it
    only the stationarity and budget rules apply. The budget is the flow time T = lr · max_steps
    (and at most max_steps steps), or ``max_time`` when given (a number, or one per problem). ``max_steps`` one per
    problem (an array): every window is ``check_every`` steps and a problem stops ("budget") at the first window end
    at which it has taken its own number or more, so that no problem's windows depend on another's budget. ``max_lr_factor`` > 1
    lets a problem's step grow by 1.5 per accepted window up to max_lr_factor · lr (step-size control of the module
    docstring). ``start_time`` (a number or one per problem): the flow time the run resumes at (the budget
    ``max_time`` is then absolute; the elapsed horizon's window needs history back to t/window, so a resumed run
    can be stationary from window · start_time on).

    ``horizon``: the flow time T_left over which the stationarity rule asks the loss not to move. "budget" (the
    module docstring): what is left of the budget, so "stationary" means "for this budget". "elapsed": T_left = t,
    the flow time reached (one more doubling of t), which does not depend on the budget; the rule then also asks
    that L moved by at most rel_tol · L over the window [t/window, t] (the loss at the first check at or after
    t/window), and replaces the frozen-field escape bound by the small neurons already growing, extrapolated at their
    measured rate over one more doubling: a run is stationary when neither its last log2(window) doublings, nor its
    current rate, nor an escape under way moves L by more than rel_tol (`numerics.paper_a_regime`).
    """
    if not lr > 0 or np.any(np.asarray(max_steps) < 1) or check_every < 1:
        raise RelucheckInputError(f"need lr > 0, max_steps ≥ 1, check_every ≥ 1; got {lr}, {max_steps}, {check_every}")
    if horizon not in ("budget", "elapsed"):
        raise RelucheckInputError(f"horizon must be 'budget' or 'elapsed', got {horizon!r}")
    a, W = np.array(a0, float), np.array(W0, float)
    budget = np.broadcast_to(lr * max_steps if max_time is None else np.asarray(max_time, float), a.shape[:1]).copy()
    t0 = time.perf_counter()
    exact = P if P.dtype == np.float64 else P.with_dtype(np.float64)  # the decisions' arithmetic
    B = a.shape[0]
    lrs = np.full(B, float(lr))
    ceiling = np.full(B, lr * max_lr_factor)
    t_flow = np.zeros(B) if start_time is None else np.broadcast_to(np.asarray(start_time, float), (B,)).copy()
    live = np.arange(B)
    steps = np.zeros(B, int)
    status = ["budget"] * B
    loss0 = exact.evaluate(a, W).loss()
    left_plateau = np.zeros(B, bool)
    # the initial plateau is left at L ≤ ½ L(0); with the elapsed horizon, halfway from L(0) to the reference L_OLS
    # instead (with noisy labels L_OLS can be above ½ L(0): d = 2, n = 96, σ = 1 stays above it at OLS)
    plateau_exit = (0.5 * (loss0 + np.asarray(loss_ref, float)) if horizon == "elapsed" and loss_ref is not None
                    else 0.5 * loss0)
    slow_before = np.zeros(B, bool)
    history = [(0, loss0.copy())]
    next_escape_check = np.zeros(B)
    past_t, past_L = [[float(t)] for t in t_flow], [[float(v)] for v in loss0]  # per problem, for the window
    loss_all, grad_all = loss0.copy(), np.zeros(B)
    sub, sub_exact = P, exact
    step = 0
    own_steps = np.ndim(max_steps) > 0
    step_cap = np.broadcast_to(np.asarray(max_steps), a.shape[:1])
    while live.size and (own_steps or step < max_steps):
        block = check_every if own_steps else min(check_every, max_steps - step)
        la, lW, eta = a[live], W[live], lrs[live]
        saved_a, saved_W = la.copy(), lW.copy()
        with np.errstate(all="ignore"):  # an unstable window overflows: undone below
            _, F = descend(sub, la, lW, eta, block)
            F = F if sub is sub_exact else sub_exact.evaluate(la, lW)
            loss = F.loss()
        step += block
        previous = loss_all[live].copy()
        rejected = ~(loss <= previous * (1 + INSTABILITY_RISE))  # a rise (or overflow): undo the window, halve η
        if rejected.any():
            la[rejected], lW[rejected] = saved_a[rejected], saved_W[rejected]
            F = sub_exact.evaluate(la, lW)
            loss = F.loss()
        dW = F.dW
        t_flow[live] += np.where(rejected, 0.0, block * eta)
        a[live], W[live] = la, lW
        loss_all[live], grad_all[live], steps[live] = loss, F.grad_sq(), step
        history.append((step, loss_all.copy()))
        left_plateau[live] |= loss <= plateau_exit[live]
        ceiling[live] = np.where(rejected, np.minimum(ceiling[live], CEILING_AFTER_RISE * eta),
                                 np.minimum(ceiling[live] * CEILING_RELAX, lr * max_lr_factor))
        lrs[live] = np.where(rejected, 0.5 * eta, np.minimum(eta * (STEP_GROWTH if max_lr_factor > 1 else 1.0),
                                                              ceiling[live]))
        rate = np.where(rejected, np.inf, np.maximum(previous - loss, 0.0) / (block * eta))
        t_left = np.maximum(budget[live] - t_flow[live], 0.0) if horizon == "budget" else t_flow[live].copy()
        with np.errstate(invalid="ignore"):  # a rejected window (rate inf) at t_left = 0: NaN, which is not ≤ anything
            drift = rate * t_left  # how far the current rate moves L over the horizon
        window_ok = np.ones(live.size, bool)
        if horizon == "elapsed":
            for i, b in enumerate(live):
                past_t[b].append(float(t_flow[b]))
                past_L[b].append(float(loss[i]))
                k = bisect.bisect_left(past_t[b], t_flow[b] / window)
                # the history must reach back to t/window (a run resumed at start_time: from 4 start_time on)
                window_ok[i] = past_t[b][0] <= t_flow[b] / window and past_L[b][k] - loss[i] <= rel_tol * loss[i]
        size2 = np.maximum(la**2, (lW**2).sum(2))
        d_norm = np.sqrt((dW**2).sum(2)) / np.maximum(np.abs(la), 1e-300)  # ‖D_j‖ = ‖ẇ_j‖/|a_j|
        if horizon == "budget":
            escape = (size2 * d_norm * np.exp(np.minimum(2 * d_norm * t_left[:, None], 700.0))).sum(1)
        else:  # the small neurons' escape over one more doubling, after each climbs to its local max of G
            escape = np.zeros(live.size)
            cheap = left_plateau[live] & (drift <= rel_tol * loss) & window_ok & (step >= min_steps)
            for i in np.flatnonzero(cheap & (t_flow[live] >= next_escape_check[live])):
                b = live[i]
                small = size2[i] <= rel_tol * np.sqrt(loss[i])
                escape[i] = small_neuron_escape(to_numpy(sub_exact.X[i, ...]), to_numpy(F.r[i, ...]), int(exact.n[b])
                                                if np.ndim(exact.n) else int(exact.n), la[i][small], lW[i][small],
                                                t_left[i])
                if escape[i] > rel_tol * loss[i]:
                    next_escape_check[b] = ESCAPE_RECHECK * t_flow[b]
            escape = np.where(cheap & (t_flow[live] < next_escape_check[live]), np.inf, escape)
        slow = (left_plateau[live] & (drift <= rel_tol * loss) & (escape <= rel_tol * loss) & window_ok
                & (step >= min_steps))
        done = np.zeros(live.size, bool)
        if loss_ref is not None:
            interp = loss <= interp_ratio * np.asarray(loss_ref, float)[live]
            for i in np.flatnonzero(interp):
                status[live[i]] = "interpolating"
            done |= interp
        stat = slow & slow_before[live] & ~done
        for i in np.flatnonzero(stat):
            status[live[i]] = "stationary"
        done |= stat | (t_flow[live] >= budget[live] * (1 - 1e-12))  # flow-time budget spent
        if own_steps:
            done |= step >= step_cap[live]
        slow_before[live] = slow
        if done.any():
            live = live[~done]
            sub = P.take(live)
            sub_exact = sub if exact is P else exact.take(live)
    return BatchResult(a, W, loss_all, grad_all, steps, t_flow, lrs, status, time.perf_counter() - t0, history)


ESCAPE_RECHECK = 1.25  # after an escape bound fails at flow time t, it is not recomputed before 1.25 t
ASCENT_STEPS = 60


def small_neuron_escape(X, r, n: int, a, W, horizon: float) -> float:
    """Bound on how much the small neurons (a_j, w_j) can lower L within ``horizon``, the residual r frozen.

    A small neuron moves in the field of the residual: ẇ = a D(w), ȧ = ⟨w, D(w)⟩ with D(w) = (1/n) Σ_i r_i
    1{⟨w, x_i⟩ > 0} x_i (A eq. 4, §3). Its direction u climbs G(u) = ⟨D(u), u⟩ (a > 0; descends for a < 0) on the
    sphere and its size s² = max(a², ‖w‖²) grows at most at rate 2 G at the local extremum it reaches (A Lemma F.4's
    escape, from any starting direction). Each neuron's direction is moved to its local extremum by ASCENT_STEPS
    projected steps of the frozen field (the time to get there is not counted: an upper bound); a neuron whose
    extremum has sign(a) G = g > 0 lowers L by at most s² g e^{2 g T} within T. Returns Σ_j of it (0 with no small
    neuron or no g > 0). The bound ignores the change of r by the neurons' own growth, valid while they stay small.
    """
    if a.size == 0:
        return 0.0
    rows = np.flatnonzero(np.any(X != 0, axis=1))  # padding rows (zero inputs) contribute nothing
    X, r = X[rows], r[rows]
    norms = np.linalg.norm(W, axis=1)
    U = W / np.maximum(norms, 1e-300)[:, None]
    sign = np.where(a >= 0, 1.0, -1.0)
    scale = max(float(np.abs(r) @ np.linalg.norm(X, axis=1)) / n, 1e-300)  # ≥ ‖D(u)‖ for every u
    g = np.full(a.size, -np.inf)
    for _ in range(ASCENT_STEPS):
        D = ((X @ U.T > 0) * r[:, None]).T @ X / n
        G = sign * (D * U).sum(1)
        g = np.maximum(g, G)
        U = U + (0.5 / scale) * sign[:, None] * (D - (D * U).sum(1)[:, None] * U)
        U /= np.linalg.norm(U, axis=1)[:, None]
    size2 = np.maximum(a**2, norms**2)
    return float(np.where(g > 0, size2 * g * np.exp(np.minimum(2 * np.maximum(g, 0) * horizon, 700.0)), 0.0).sum())


# -- the optimization threshold (A §5, Fig. 2; spec N12–N14) ------------------------------------------
THRESHOLD_PROTOCOL = dict(m=100, lam=1e-3, lr=0.05, max_steps=100_000, sigma=1.0, n_test=2000, lr_factor=16.0,
                          check_every=200, dtype="float32")
INTERPOLATION_RATIO = 1e-3  # L_train / L_OLS,train below this counts as interpolation (spec N12)


def threshold_grid(d: int, scale: str = "full") -> list[int]:
    """Sample sizes per d: a geometric grid (ratio ≈ 1.5) from 2d to well beyond the threshold.

    "full": up to min(24 d², 256) (the d = 2 … 5 calibration); "d10": up to min(24 d², 4096), far enough beyond the
    d = 10 threshold of this protocol (between 256 and 1024, docs/paper_a.md); otherwise (reduced) up to 6 d².
    """
    base = [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
    hi = {"full": min(24 * d**2, 256), "d10": min(24 * d**2, 4096)}.get(scale, 6 * d**2)
    return [n for n in base if 2 * d <= n <= hi]


def threshold_problem(d: int, n: int, seed: int, *, m: int, lam: float, sigma: float, n_test: int) -> dict:
    """One (d, n, seed) problem of the threshold experiment: S_G(d, σ) data (x ~ N(0, I_d), y = x_1 + σξ, A §5),
    a test set of n_test points, OLS on both, and the IG(λ, m) initialization (a0, W0), from one seeded stream."""
    from .initializations import gaussian

    rng = np.random.default_rng([seed, n, d, 61])
    X = rng.standard_normal((n, d))
    y = X[:, 0] + sigma * rng.standard_normal(n)
    Xt = rng.standard_normal((n_test, d))
    yt = Xt[:, 0] + sigma * rng.standard_normal(n_test)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    r, rt = y - X @ beta, yt - Xt @ beta
    a0, W0 = gaussian(m, d, lam, rng)
    return dict(d=d, n=n, seed=seed, X=X, y=y, a0=a0, W0=W0, beta_ols=beta, Xt=Xt, yt=yt,
                train_ols=float(r @ r / (2 * n)), test_ols=float(rt @ rt / (2 * n_test)))


def threshold_batch(d: int, ns, seeds, *, m: int, lam: float, lr: float, max_steps: int, sigma: float,
                    n_test: int, lr_factor: float = 1.0, check_every: int = 1000, dtype: str = "float64",
                    backend=None, device=None) -> list[dict]:
    """Train every (n, seed) of one d in one batch (`threshold_problem`), GD with the stopping rules and step-size
    control (η ≤ lr_factor · lr, checks every ``check_every`` steps, the field in ``dtype``) of `train_batch`,
    flow-time budget lr · max_steps; losses in the 1/(2n) convention. The stack is sorted by decreasing n (each
    problem's sums run over its own rows: `GDBatch`). ``backend``/``device``: the array library the steps run on
    (`numerics.array_backend.resolve`: numpy by default, or $RELUCHECK_ARRAY_BACKEND); the data are drawn in numpy.

    Returns one dict per (n, seed): train and test losses of the network and of OLS, the ratio
    L_train/L_OLS, the stopping status, and |cos(w_j, β̂_OLS)| of every neuron (v2 Fig. 3).
    """
    meta = [threshold_problem(d, n, seed, m=m, lam=lam, sigma=sigma, n_test=n_test) for n in ns for seed in seeds]
    order = sorted(range(len(meta)), key=lambda b: -meta[b]["n"])
    P = GDBatch.stack([(meta[b]["X"], meta[b]["y"]) for b in order], dtype=np.dtype(dtype)).to(backend, device)
    ref = np.array([meta[b]["train_ols"] for b in order])
    res = train_batch(P, np.array([meta[b]["a0"] for b in order]), np.array([meta[b]["W0"] for b in order]), lr,
                      max_steps, loss_ref=ref, interp_ratio=0.1 * INTERPOLATION_RATIO, check_every=check_every,
                      max_lr_factor=lr_factor)
    out = [None] * len(meta)
    for k, b in enumerate(order):
        mt = meta[b]
        a, W = res.a[k], res.W[k]
        ht = np.maximum(mt["Xt"] @ W.T, 0) @ a
        test = float(np.mean((mt["yt"] - ht) ** 2) / 2)
        cos = np.abs(W @ mt["beta_ols"]) / (np.linalg.norm(W, axis=1) * np.linalg.norm(mt["beta_ols"]) + 1e-300)
        out[b] = dict(d=d, n=mt["n"], seed=mt["seed"], train=float(res.loss[k]), train_ols=mt["train_ols"],
                      test=test, test_ols=mt["test_ols"], ratio=float(res.loss[k] / mt["train_ols"]),
                      status=res.status[k], steps=int(res.steps[k]), time=float(res.time[k]),
                      seconds=res.seconds / len(meta), abs_cos=np.round(cos, 6).tolist(),
                      weight=np.round(np.abs(a) * np.linalg.norm(W, axis=1), 12).tolist())
    return out


def _threshold_task(task) -> list[dict]:
    """One batch of the threshold sweep: (d, n, seeds, protocol, array library) → one row per seed (module-level for
    workers)."""
    d, n, seeds, proto, (backend, device) = task
    return threshold_batch(d, [n], seeds, **proto, backend=backend, device=device)


def threshold_sweep(path, d_values, seeds, *, scale: str = "full", progress: bool = True, backend=None, device=None,
                    **protocol) -> list[dict]:
    """The threshold experiment as a resumable sweep (`numerics.sweep.Sweep`, one JSON line per (d, n, seed)).

    Points still missing are trained in batches of one (d, n) with all its seeds, one task each on the executor
    of `numerics.executor` (serial, a process pool or Dask); each row is appended as its batch finishes, so an
    interruption loses at most the batches being trained, and a rerun skips every finished point. ``backend`` and
    ``device`` (`threshold_batch`) are not part of a point's key: the records agree across array libraries within
    the tolerance of tests/test_array_api_backends.py.
    """
    from .array_backend import resolve
    from .executor import current_executor
    from .sweep import Sweep, point_key

    proto = {**THRESHOLD_PROTOCOL, **protocol}
    bk = resolve(backend, device)  # checked here, before any work; the workers get the names
    library = (bk.name, None if bk.device is None else str(bk.device))
    sweep = Sweep(path, progress=progress)
    points = [dict(d=d, n=n, seed=s, **proto) for d in d_values for n in threshold_grid(d, scale) for s in seeds]
    done = sweep.done()
    tasks = []
    for d in d_values:
        for n in threshold_grid(d, scale):
            todo = [s for s in seeds if point_key(dict(d=d, n=n, seed=s, **proto)) not in done]
            if todo:
                tasks.append((d, n, todo, proto, library))
    for finished, (k, rows) in enumerate(current_executor().map_unordered(_threshold_task, tasks), 1):
        d, n, todo = tasks[k][:3]
        for s, row in zip(todo, rows, strict=True):
            sweep.record(dict(d=d, n=n, seed=s, **proto), row)
        if progress:
            print(f"[sweep {sweep.path.name}] batch {finished}/{len(tasks)}: d = {d}, n = {n}, seeds {todo}",
                  file=sys.stderr)
    done = sweep.done()
    return [done[point_key(p)]["result"] for p in points]


def interpolation_limit(rows, d: int) -> int | None:
    """Largest n of the grid whose median ratio L_train/L_OLS over seeds is below INTERPOLATION_RATIO."""
    by_n = {}
    for r in rows:
        if r["d"] == d:
            by_n.setdefault(r["n"], []).append(r["ratio"])
    ok = [n for n, v in by_n.items() if np.median(v) < INTERPOLATION_RATIO]
    return max(ok) if ok else None


def fit_exponent(ds, limits) -> float:
    """Slope of log n_interp against log d (the paper: about 3, from n ≳ d³ log d)."""
    return float(np.polyfit(np.log(np.asarray(ds, float)), np.log(np.asarray(limits, float)), 1)[0])
