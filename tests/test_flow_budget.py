"""Bounded work in `relucheck flow` (issue 20, item 7; red team defects D4 and D5): a request whose cost is above
the machine's memory or, without --budget, above the time bounds is refused before computing (exit 2, naming the
option and the reason), and --budget is polled inside the long phases of a step — event location among many
crossings, a DOP853 step's field evaluations, a Taylor step's recurrences — ending with status BUDGET (exit 3).
No timed assertions: statuses and exit codes only.
"""
import argparse
import contextlib
import io
import json
import time
from types import SimpleNamespace

import numpy as np
import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.flows import FlowProblem, Status, solve
from relucheck.numerics.flows import cost
from relucheck.numerics.flows.engine import BudgetSpent, deadline_of, poll
from relucheck.numerics.flows.events import Watch, first_crossing
from relucheck.proofs_checks import cli
from relucheck.proofs_checks.commands import flow as flow_command

GEN6 = {"inputs": [[0.0781, 0.9015, -1.2175], [1.6674, 0.4827, -0.5258], [1.2173, 0.1027, 1.1583],
                   [2.3231, 0.7685, -0.5267], [-0.4257, 0.5826, 0.2879], [-0.8330, -0.6681, 0.6658]],
        "labels": [2.3467, -2.6304, 0.7239, -0.2110, 0.7794, 0.8677],
        "directions": [[0.030573683900257952, -0.5878724419141828, -0.8083756811598324],
                       [-0.8339449348479183, 0.5439016717849496, -0.09331032671166688],
                       [-0.36733864616531264, -0.18882435528257893, -0.9107182230995235],
                       [0.1722373323998071, 0.7456295370606688, 0.6437164708087646]],
        "signs": [-1, -1, -1, 1]}


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _lazy_instance(n, d, m):
    """The red team's sizes (n = 2000, d = m = 800) as broadcast views: nothing of size n·m or n² is allocated."""
    return SimpleNamespace(inputs=np.broadcast_to(np.float64(0.03), (n, d)), labels=np.broadcast_to(np.float64(1.0), (n,)),
                           directions=np.broadcast_to(np.float64(0.035), (m, d)))


def _args(**kw):
    base = dict(instance="big.json", lam="1e-10", horizon=1.0, max_horizon=None, budget=None, engine=None,
                precision=None, rtol=None, step=None, times=None)
    return argparse.Namespace(**{**base, **kw})


def test_memory_estimate_counts_the_watch_and_the_state(monkeypatch):
    """D4: n = 2000, d = m = 800 (the 30 MB file that took 8 GB) is estimated with its watch (48 B per component)
    and its state-sized arrays; with 300 MiB available it is refused before computing, naming the sizes."""
    n, d, m = 2000, 800, 800
    c = cost.estimate(_lazy_instance(n, d, m).inputs, np.ones(n), m, 23.0, 1.0)
    assert c.bytes >= cost.WATCH_BYTES * n * m + cost.BYTES * (n * n + cost.NM_ARRAYS * n * m + cost.STATE_ARRAYS * m * d)
    monkeypatch.setattr(cost, "available_memory", lambda: 300 * 2.0 ** 20)
    with pytest.raises(RelucheckInputError, match="n = 2000 data and m = 800 neurons need at least .*available"):
        flow_command.check_cost(_lazy_instance(n, d, m), _args(), None, memory_only=True)
    monkeypatch.setattr(cost, "available_memory", lambda: 64 * 2.0 ** 30)
    flow_command.check_cost(_lazy_instance(n, d, m), _args(), None, memory_only=True)  # fits in 64 GiB


def test_precision_memory_refused_before_computing(monkeypatch):
    """D5's other half: 1000 digits on n = 64, m = 16 need 5 (K + 1) n m arb numbers of ≈ 500 B (GBs): refused."""
    monkeypatch.setattr(cost, "available_memory", lambda: 2.0 ** 30)
    with pytest.raises(RelucheckInputError, match="--precision: 1000 digits .* more than the"):
        flow_command.check_cost(_lazy_instance(64, 16, 16), _args(precision=1000), None, memory_only=True)


def test_precision_1000_refused_without_budget(tmp_path):
    """D5: n = 6, d = 3, m = 4 at --precision 1000 ran past 120 s in silence; one Taylor step of order 2000 and its
    guard's at 4000 are estimated at minutes (timed products), so without --budget it is refused naming --precision."""
    path = tmp_path / "gen6.json"
    path.write_text(json.dumps(GEN6))
    code, out, err = _run(["flow", str(path), "--lam", "1e-10", "--precision", "1000"])
    assert code == 2, err
    assert "--precision" in err and "--budget" in err and out == ""


def test_precision_1000_with_a_budget_ends_budget(tmp_path):
    """D5 with --budget: the budget is polled inside the Taylor step, which ends with status budget, exit 3. The budget,
    5 s from the command's start, is well past the setup (reading, the cost estimate, imports: under 1 s idle) and far
    below one Taylor step of order 2000 (minutes): with 0.5 s the budget could run out before the first step on a loaded
    machine (red team, issue 20: flaky), and the message then named no Taylor step."""
    path = tmp_path / "gen6.json"
    path.write_text(json.dumps(GEN6))
    code, out, err = _run(["flow", str(path), "--lam", "1e-10", "--precision", "1000", "--budget", "5", "--json"])
    assert code == 3, err
    result = json.loads(out)
    assert result["status"] == "budget" and "a Taylor step" in result["message"]
    assert "one Taylor step" in err  # the note that it runs long


def test_first_crossing_polls_the_budget():
    """Event location among many crossings polls the deadline (D4: 108 639 crossings, seconds per bisection)."""
    rows = np.arange(50)
    watch = Watch(np.zeros(50, dtype=int), rows, np.zeros(50, dtype=int), np.ones(50), np.zeros(50))
    evaluator = lambda sub: (lambda t: 0.5 - t - 0.001 * sub.data)  # noqa: E731 (every row crosses in [0, 1])
    assert first_crossing(evaluator, watch, rows, 0.0, 1.0)[1] == 49  # the earliest: the largest offset
    with deadline_of(time.perf_counter() - 1.0), pytest.raises(BudgetSpent, match="locating an event"):
        first_crossing(evaluator, watch, rows, 0.0, 1.0)
    with deadline_of(None):
        poll("never")  # no deadline: nothing raised


def _general_problem(n=40, d=6, m=8, seed=3, horizon=3.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    D = rng.standard_normal((m, d))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    from relucheck.numerics.flows import Init

    return FlowProblem(X, rng.standard_normal(n), Init.balanced(D, rng.choice([-1.0, 1.0], m), "1e-10"), horizon=horizon)


def test_dop853_step_polls_the_budget():
    """A DOP853 step polls inside its field evaluations (D4: 12 evaluations of n·d·m products a step)."""
    from relucheck.numerics.flows.registry import get_engine

    problem = _general_problem()
    stepper = get_engine("float64").start(problem)
    with stepper.working_precision(), deadline_of(time.perf_counter() - 1.0), pytest.raises(BudgetSpent):
        stepper.advance(problem.end)


@pytest.mark.parametrize("engine", ["float64", "auto", "gd"])
def test_tiny_budget_ends_budget(engine):
    """solve(..., budget=tiny): status BUDGET, never success, whichever phase the deadline falls in."""
    result = solve(_general_problem(), engine, budget=1e-9)
    assert result.status is Status.BUDGET and not result.success


def test_budget_counts_from_the_command_start(tmp_path, monkeypatch):
    """--budget is the whole command's: time spent reading the file is taken from it (D4: 5 s of 30 MB JSON)."""
    path = tmp_path / "gen6.json"
    path.write_text(json.dumps(GEN6))
    real = flow_command.solve_instance
    seen = {}

    def spy(instance, args, limit, started=None):
        seen["started"] = started
        return real(instance, args, limit, started - 100.0)  # as if reading had taken 100 s
    monkeypatch.setattr(flow_command, "solve_instance", spy)
    code, out, err = _run(["flow", str(path), "--lam", "1e-10", "--budget", "50", "--json"])
    assert seen["started"] is not None
    assert code == 3 and json.loads(out)["status"] == "budget", err


def test_a_large_request_says_so_counting_the_dimension(monkeypatch, capsys):
    """The red team's n = 2000, d = m = 800 ran for hours with a note that counted n·m products a step: a step computes
    X Wᵀ, n·m·d products. The note names that count (here at λ = 1e-100: about 31 steps by the estimate, 4e10
    products); a small d keeps the same n below the threshold, with nothing said."""
    monkeypatch.setattr(cost, "available_memory", lambda: 64 * 2.0 ** 30)
    monkeypatch.setattr(flow_command, "_check_taylor", lambda *a: None)
    flow_command.check_cost(_lazy_instance(2000, 800, 800), _args(budget=60.0, lam="1e-100"), None)
    assert f"n·m·d = {2000 * 800 * 800}" in capsys.readouterr().err
    small = _lazy_instance(2000, 1, 20)
    assert cost.estimate(small.inputs, small.labels, 20, 23.0, 1.0).steps * 2000 * 20 < flow_command.LARGE_WORK
    flow_command.check_cost(small, _args(budget=60.0), None)
    assert capsys.readouterr().err == ""
