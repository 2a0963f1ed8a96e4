"""Paper A in its own regime: runs whose verdict width and flow time no longer decide (issue 23, items 1–3).

Theorem 1.1 (A §1, §5, Fig. 2) says that beyond n ≳ d³ log d gradient flow from small initialization stops
interpolating *whatever the width*; §5.1 Fig. 3 that beyond it the neurons align with β̂_OLS. A run of fixed width
and flow time measures "interpolates with m neurons within time T" instead (`numerics.paper_a_training`,
THRESHOLD_PROTOCOL). Here one run is one (d, n, seed, m): the data and initialization of `threshold_problem` (the
data do not depend on m: they are drawn before the initialization), trained by `train_batch` until

* it interpolates (L ≤ 10⁻³ L_OLS, INTERPOLATION_RATIO; GD with the step-size control decreases L, so this is final), or
* it is stationary with ``horizon="elapsed"`` (`train_batch`): neither the last doubling of the flow time
  ([t/2, t]), nor the current rate over one more doubling, nor a frozen-field saddle escape over one more doubling
  moves L by more than REGIME_PROTOCOL["rel_tol"] = 1 % (reason at REGIME_PROTOCOL), or
* the flow-time budget ``max_time`` ends (undecided: "budget").

The width ladder and the verdicts are in `numerics.paper_a_verdicts`; this module only trains and journals.
Runs go to a resumable journal (`numerics.sweep.Sweep`) keyed by (d, n, seed, m, protocol) and by the hash of the
files the training depends on (`run_code`), not of the whole package: other modules change while a long sweep
runs, and a rerun must not lose finished runs to an edit that cannot change them.
"""
from __future__ import annotations

import ast
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

from .flows.batched_gd import GDBatch
from .paper_a_training import INTERPOLATION_RATIO, threshold_problem, train_batch

# Protocol of the regime runs. lam, sigma, n_test as THRESHOLD_PROTOCOL (A §5 base setup as reconstructed, spec A
# §4.1). lr 0.05 with the step-size control up to 16 × (`train_batch`: a window whose loss rises by > 0.1 % is undone
# and its step halved, so the iterates follow the flow's monotone descent; tests/test_paper_a_regime.py compares the
# final ratio with fixed-step GD at η = 0.02 to 1 %). Stationarity (`train_batch(horizon="elapsed")`):
# * rel_tol = 1 %: a run accepted as stationary at ratio ρ that kept losing 1 % per doubling of the flow time forever
#   would need ln(ρ / 10⁻³) / 0.01 doublings to reach the interpolation ratio 10⁻³ (230 doublings at ρ = 0.01: a
#   flow time 2²³⁰ times the one run), so the verdict "not interpolating" cannot be turned by a slow drift;
# * window = 4: L moved by ≤ 1 % over the last two doublings [t/4, t], the current rate moves it by ≤ 1 % over one
#   more doubling, and no small neuron can escape within one more doubling (`small_neuron_escape`);
# * then CONFIRM: the run goes on for 3 t_s (two more doublings, at most max_time) and must not lose more than 1 % of
#   L ("moved" otherwise: undecided) nor interpolate (then it is "interpolating"). Saddle plateaus last several
#   doublings (d = 3, n = 24, seed 1, m = 24: L/L_OLS = 0.679 from t = 800 to 6400, then 0.506 by 12800), so the
#   rule is an empirical one: it is how a plateau shorter than the run's own age is told from a limit.
# max_time 2·10⁴ (the runs: d = 5, n = 384 settles by t = 5000; n = 192 still moves at 34000) and 10⁶ steps
# per run bound the cost; a run that reaches either while moving is "budget", i.e. undecided, never a verdict.
REGIME_PROTOCOL = dict(lam=1e-3, sigma=1.0, n_test=2000, lr=0.05, lr_factor=16.0, check_every=200, dtype="float32",
                       rel_tol=1e-2, window=4.0, max_time=20_000.0, max_steps=1_000_000)
CONFIRM = 3.0  # a run stationary at t_s is continued to (1 + CONFIRM) t_s: two more doublings (see REGIME_PROTOCOL)
RUN_FILES = ("numerics/paper_a_regime.py", "numerics/paper_a_training.py", "numerics/flows/batched_gd.py",
             "numerics/network.py", "numerics/initializations.py")


# Top-level definitions of RUN_FILES that a regime run does not execute (they store runs, or run the other sweep of
# paper_a_training): left out of the code key, so that an edit of bookkeeping (33d731b removed a repair of cut lines
# from RegimeJournal and threshold_sweep) does not discard finished runs.
NOT_RUN_CODE = ("RegimeJournal", "run_code", "_code_of", "NOT_RUN_CODE", "threshold_sweep")


def _code_of(source: str) -> str:
    """The module's syntax tree without docstrings (comments are not in the tree) and without the top-level
    definitions of NOT_RUN_CODE: what computes a run, not how it reads or how it is stored."""
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if getattr(node, "name", None) not in NOT_RUN_CODE
                 and not (isinstance(node, ast.Assign) and any(getattr(t, "id", None) in NOT_RUN_CODE
                                                               for t in node.targets))]
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def run_code(read=None) -> dict:
    """The journal's code key: SHA-256 over the syntax trees (docstrings, comments and NOT_RUN_CODE left out) of the
    files a run depends on (RUN_FILES), not over the whole package: a rerun keeps its finished runs across edits
    elsewhere and edits of wording, and recomputes them after any change of these files' code. ``read(rel)``: the
    text of a file (default: the working tree), e.g. a file at an earlier commit, to tell whether a journal written
    then holds the runs of today's code (docs/scale_runs.md, paper A regime, the journal's key)."""
    root = Path(__file__).resolve().parent.parent
    read = read or (lambda rel: (root / rel).read_text(encoding="utf-8"))
    digest = hashlib.sha256()
    for rel in RUN_FILES:
        code = _code_of(read(rel)).encode()
        digest.update(f"{rel}\0{len(code)}\0".encode())
        digest.update(code)
    return {"paper_a_regime_ast_sha256": digest.hexdigest()}


def regime_batch(d: int, m: int, pairs, *, backend=None, device=None, **protocol) -> list[dict]:
    """Train every (n, seed) of ``pairs`` at dimension d and width m in one batch (sorted by decreasing n; a run's
    record is the one it has alone: `GDBatch` sums each problem over its own rows, and each run has its own step
    budget; tests/test_batch_independence.py) until interpolating, stationary (horizon "elapsed") or the budget. One
    dict per pair, in order: ratio L/L_OLS, status, flow time, steps, final step, test/OLS test, and per neuron
    |cos(w_j, β̂_OLS)| and |a_j|‖w_j‖ (A §5.1, Fig. 3). ``backend``/``device``: the array library GD's steps run on
    (`GDBatch.to`, `numerics.array_backend.resolve`: numpy by default, where the batch is used as is; issue 23 item
    4); the data, the decisions in float64 and the records stay numpy. A row of another library names it
    (``backend``); numpy rows are as before (tests/test_paper_a_regime_backend.py: the two libraries' records
    agree).
    """
    from .initializations import gaussian

    p = {**REGIME_PROTOCOL, **protocol}
    meta = []
    for n, s, *init in pairs:
        mt = threshold_problem(d, n, s, m=m, lam=p["lam"], sigma=p["sigma"], n_test=p["n_test"])
        if init and init[0]:  # another initialization of the same data (issue 23 item 2), from its own stream
            mt["a0"], mt["W0"] = gaussian(m, d, p["lam"], np.random.default_rng([s, n, d, m, init[0], 67]))
        mt["init"] = init[0] if init else 0
        meta.append(mt)
    order = sorted(range(len(meta)), key=lambda b: -meta[b]["n"])
    P = GDBatch.stack([(meta[b]["X"], meta[b]["y"]) for b in order], dtype=np.dtype(p["dtype"])).to(backend, device)
    library = {} if P.__class__ is GDBatch else {"backend": P.backend.name}
    ref = np.array([meta[b]["train_ols"] for b in order])
    B, cpu0 = len(meta), time.process_time()
    a_all, W_all = np.array([meta[b]["a0"] for b in order]), np.array([meta[b]["W0"] for b in order])
    loss, t_all, steps, lrs = np.zeros(B), np.zeros(B), np.zeros(B, int), np.full(B, p["lr"])
    status, ratio_s, time_s, rounds = ["budget"] * B, np.full(B, np.nan), np.full(B, np.nan), np.zeros(B, int)
    todo = np.arange(B)
    while todo.size:  # the rule, then its confirmation; a run that moved resumes the rule where it is
        left = np.maximum(p["max_steps"] - steps[todo], 1)  # each run's own steps (no batch-mate's budget)
        res = train_batch(P.take(todo), a_all[todo], W_all[todo], p["lr"], left, loss_ref=ref[todo],
                          interp_ratio=INTERPOLATION_RATIO, rel_tol=p["rel_tol"], check_every=p["check_every"],
                          max_lr_factor=p["lr_factor"], horizon="elapsed", max_time=p["max_time"], window=p["window"],
                          start_time=t_all[todo])
        a_all[todo], W_all[todo], loss[todo], t_all[todo], lrs[todo] = res.a, res.W, res.loss, res.time, res.lr
        steps[todo] += res.steps
        rounds[todo] += 1
        for i, k in enumerate(todo):
            status[k] = res.status[i]
        stat = todo[np.array(res.status) == "stationary"]
        todo = np.zeros(0, int)
        if not stat.size:
            break
        ratio_s[stat], time_s[stat] = loss[stat] / ref[stat], t_all[stat]
        left = np.maximum(p["max_steps"] - steps[stat], 1)
        conf = train_batch(P.take(stat), a_all[stat], W_all[stat], p["lr"], left, loss_ref=ref[stat],
                           interp_ratio=INTERPOLATION_RATIO, rel_tol=-1.0, check_every=p["check_every"],
                           max_lr_factor=p["lr_factor"], start_time=t_all[stat],
                           max_time=np.minimum((1 + CONFIRM) * t_all[stat], p["max_time"]))
        moved = []
        for i, k in enumerate(stat):
            before = loss[k]
            a_all[k], W_all[k], loss[k], t_all[k], lrs[k] = conf.a[i], conf.W[i], conf.loss[i], conf.time[i], conf.lr[i]
            steps[k] += conf.steps[i]
            if conf.status[i] == "interpolating":
                status[k] = "interpolating"
            elif conf.loss[i] < (1 - p["rel_tol"]) * before:
                status[k] = "moved"
                if t_all[k] < p["max_time"] * (1 - 1e-9) and steps[k] < p["max_steps"]:
                    moved.append(k)
        todo = np.array(moved, int)
    out = [None] * len(meta)
    for k, b in enumerate(order):
        mt = meta[b]
        a, W = a_all[k], W_all[k]
        ht = np.maximum(mt["Xt"] @ W.T, 0) @ a
        test = float(np.mean((mt["yt"] - ht) ** 2) / 2)
        norms = np.linalg.norm(W, axis=1)
        cos = np.abs(W @ mt["beta_ols"]) / (norms * np.linalg.norm(mt["beta_ols"]) + 1e-300)
        out[b] = dict(d=d, n=mt["n"], m=m, seed=mt["seed"], init=mt["init"], ratio=float(loss[k] / mt["train_ols"]),
                      status=status[k], time=float(t_all[k]), steps=int(steps[k]), lr=float(lrs[k]),
                      stationary_ratio=float(ratio_s[k]), stationary_time=float(time_s[k]), rounds=int(rounds[k]),
                      test_ratio=test / mt["test_ols"], cpu_seconds=(time.process_time() - cpu0) / len(meta),
                      abs_cos=np.round(cos, 5).tolist(), weight=[float(f"{w:.4g}") for w in np.abs(a) * norms],
                      **library)
    return out


def _task(task) -> list[dict]:
    d, m, pairs, proto = task
    return regime_batch(d, m, pairs, **proto)


class RegimeJournal:
    """The resumable store of regime runs: one JSON line per (d, n, seed, m, protocol) (`numerics.sweep.Sweep` with
    the code key `run_code`)."""

    def __init__(self, path, *, progress: bool = True, **protocol):
        from .sweep import Sweep

        self.proto = {**REGIME_PROTOCOL, **protocol}
        self.sweep = Sweep(path, progress=False, code=run_code())
        self.progress = progress

    def _point(self, d, n, seed, m, init=0) -> dict:
        return dict(d=d, n=n, seed=seed, m=m, **({"init": init} if init else {}), **self.proto)

    def rows(self, *, inits: bool = False) -> list[dict]:
        """Every finished run of this protocol and code; with ``inits`` also the extra initializations (init ≥ 1)."""
        from .jsonable import to_jsonable

        proto = to_jsonable(self.proto)
        return [row["result"] for row in self.sweep.done().values()
                if all(row["point"].get(k) == v for k, v in proto.items())
                and (inits or not row["point"].get("init"))]

    def ensure(self, requests, *, max_pairs: int | None = None) -> list[dict]:
        """Train the runs of ``requests`` ((d, n, seed, m) or (d, n, seed, m, init) tuples) not yet in the journal, one
        batch per (d, m) (of at most ``max_pairs`` runs: a stopped sweep loses only the batch under way) on the
        executor of `numerics.executor`, appending each batch's runs as it ends; return all rows of this protocol."""
        from .executor import current_executor
        from .sweep import point_key

        done = self.sweep.done()
        groups: dict = {}
        for d, n, seed, m, *init in requests:
            if point_key(self._point(d, n, seed, m, *init)) not in done:
                groups.setdefault((d, m), set()).add((n, seed, init[0] if init else 0))
        step = max_pairs or max(len(p) for p in groups.values()) if groups else 1
        tasks = [(d, m, sorted(pairs)[i:i + step], self.proto) for (d, m), pairs in sorted(groups.items())
                 for i in range(0, len(pairs), step)]
        for finished, (k, rows) in enumerate(current_executor().map_unordered(_task, tasks), 1):
            d, m, pairs = tasks[k][:3]
            for (n, s, i), row in zip(pairs, rows, strict=True):
                self.sweep.record(self._point(d, n, s, m, i), row)
            if self.progress:
                print(f"[regime {self.sweep.path.name}] batch {finished}/{len(tasks)}: d = {d}, m = {m}: "
                      + ", ".join(f"n={r['n']}/s{r['seed']} {r['status'][0]} {r['ratio']:.3g} t={r['time']:.0f}"
                                  for r in rows), file=sys.stderr, flush=True)
        return self.rows()
