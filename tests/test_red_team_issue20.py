"""Red team of issue 20 from a clean clone: the breaks found, each as a test that failed before its fix.

Every case runs the command line in process through `cli.main` (the console script's error boundary) or, where the
process itself matters (signals), as a subprocess in its own session (tests/test_interrupts.py's helper).
"""
import contextlib
import io
import json
from pathlib import Path

import pytest

from relucheck.proofs_checks import cli


def run_cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# -- check-ode: a declared name must not be read as a function or constant of the numerical integration ----------

@pytest.mark.parametrize("name", ["e", "pi_", "arcsin", "arctanh", "numpy", "builtins"])
def test_a_parameter_named_like_a_numpy_printer_name_is_not_identified_with_it(name, tmp_path):
    """numpy's lambdify printed E as ``e`` and asin as ``arcsin`` next to the declared names: a parameter named ``e``
    stood for Euler's number in the integration, and a true closed form came out inconclusive ("zero residual but
    the numerical integration disagrees", exit 3)."""
    ode = {"time": "t", "state": ["x"], "parameters": {name: [0.1, 0.5]},
           "equations": {"x": f"E*x + {name} + 0*asin({name})"}, "initial": {"x": "1"},
           "solution": {"x": f"(1 + {name}/E)*exp(E*t) - {name}/E"}, "time_span": [0, 2]}
    code, out, err = run_cli(["check-ode", _write(tmp_path, "ode.json", ode), "--json"])
    result = json.loads(out)
    assert (code, result["status"]) == (0, "verified"), (out, err)
    assert result["integration"]["draws"] == 3
    assert result["integration"]["max_discrepancy"] <= result["integration"]["tolerance"]


# -- run --executor dask: Ctrl-C in a terminal and closing it reach the whole process group ---------------------

def _interrupts_module():
    """tests/test_interrupts.py's helpers (its `_interrupt` runs a plugin's slow checks in a new session)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_red_team_interrupts", Path(__file__).with_name("test_interrupts.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP"])
def test_a_signal_to_the_whole_group_of_a_dask_run_prints_no_traceback(sig, tmp_path):
    """Ctrl-C (SIGINT to the foreground group) made each Dask worker print its KeyboardInterrupt traceback; closing
    the terminal (SIGHUP to the group) killed multiprocessing's resource tracker, whose relaunched copy printed a
    KeyError traceback per name. `_interrupt` asserts exit 130/129, no traceback, no process left, the reports."""
    import signal

    pytest.importorskip("distributed")
    _interrupts_module()._interrupt(tmp_path, "dask", "mid-run", (getattr(signal, sig),), whole_group=True)


# -- flow: an answer's stated error must cover where the run happened to stop -----------------------------------

ORTHONORMAL_3 = {"inputs": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                 "labels": [0.1257302210933933, -0.1321048632913019, 0.6404226504432821],
                 "directions": [[0.16021416297716448, -0.818128926665578, 0.5522648652001644],
                                [0.7415052042025201, 0.5385471155343273, -0.4001712589507583]],
                 "signs": [1, 1]}


def test_a_jump_time_does_not_move_beyond_its_stated_error_when_the_flow_runs_longer(tmp_path):
    """At λ = 1e-10 the default horizon (Algorithm 1's last jump + 0.5) ended before the jumping neuron settled: the
    jump time, read against half the final ‖θ_j‖², moved by 1.4e-3 against a stated error of 8e-10 when the same flow
    ran to τ = 30 (and the last plateau by 3.5e-6 against 7e-12). The check run now goes on until the loss and the
    grown norms are static (`numerics.flows.vouch.extends`), so the bounds cover where the run stopped."""
    path = _write(tmp_path, "orth3.json", ORTHONORMAL_3)
    answers = []
    for extra in ([], ["--horizon", "30"]):
        code, out, err = run_cli(["flow", path, "--lam", "1e-10", "--json", *extra])
        assert code == 0, err
        answers.append(json.loads(out))
    short, long = answers
    assert short["status"] == "success"
    for k, jump in enumerate(short["jumps"]):
        assert abs(jump["tau"] - long["jumps"][k]["tau"]) <= short["errors"]["jumps"][k] + long["errors"]["jumps"][k]
    for k, loss in enumerate(short["plateaus"]):
        assert abs(loss - long["plateaus"][k]) <= short["errors"]["plateaus"][k] + long["errors"]["plateaus"][k]


# -- an option given twice is refused, not silently the last one -------------------------------------------------

@pytest.mark.parametrize("argv, option", [
    (["flow", "{instance}", "--lam", "1e-10", "--lam", "0.5"], "--lam"),
    (["flow", "{instance}", "--lam=1e-10", "--times", "1", "--times=2"], "--times"),
    (["run", "--seed", "1", "--seed", "2", "--out", "{out}"], "--seed"),
    (["check-ode", "{ode}", "--budget", "30", "--budget", "5"], "--budget"),
])
def test_an_option_given_twice_is_refused_naming_it(argv, option, tmp_path):
    """``--lam 1e-10 --lam 0.5`` computed at λ = 0.5 and exited 0: the same silent last-one-wins as a duplicate JSON
    key, which the loaders refuse."""
    paths = {"instance": _write(tmp_path, "orth3.json", ORTHONORMAL_3), "out": tmp_path / "out",
             "ode": _write(tmp_path, "ode.json", {"time": "t", "state": ["x"], "parameters": {"r": [0.1, 3]},
                                                  "equations": {"x": "r*x"}, "initial": {"x": "1"},
                                                  "solution": {"x": "exp(r*t)"}, "time_span": [0, 2]})}
    code, out, err = run_cli([a.format(**paths) for a in argv])
    assert code == 2 and out == "", (out, err)
    assert err.startswith(f"relucheck: error: argument {option}: given twice") and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_options_meant_to_repeat_and_flags_still_may():
    code, out, err = run_cli(["list", "--json", "--json", "--paper", "A"])
    assert code == 0 and json.loads(out), err


# -- flow, engine auto: the rerun in mpmath is bounded like every other request ----------------------------------

def _force_float64_precision(monkeypatch):
    """As tests/test_engine_mpmath.py: no small natural instance ends float64 with PRECISION; its verdict is forced."""
    from relucheck.numerics.flows import get_engine
    from relucheck.numerics.flows.result import Status

    def precision(self, result, problem, options, rerun):
        result.status, result.message = Status.PRECISION, "forced by the test"
        return result

    monkeypatch.setattr(type(get_engine("float64")), "review", precision, raising=False)


def test_an_expensive_rerun_in_mpmath_is_not_started_without_a_budget(monkeypatch, tmp_path):
    """--rtol 1e-4 on general n = 64, d = 16, m = 16 data at λ = 1e-10 escalated to mpmath after 2 minutes and then
    ran unbounded (13 minutes for τ = 0.07 of a run to τ ≈ 10, one step per ~4 s). Here the bound is set to 0 s."""
    from relucheck.proofs_checks.commands import flow as flow_command

    _force_float64_precision(monkeypatch)
    monkeypatch.setattr(flow_command, "MAX_ESCALATION_SECONDS", 0.0)
    code, out, err = run_cli(["flow", _write(tmp_path, "orth3.json", ORTHONORMAL_3), "--lam", "1e-10", "--json"])
    result = json.loads(out)
    assert code == 3 and result["engine"] == "float64" and result["status"] == "precision", err
    assert "not rerun in engine mpmath" in result["message"] and "--budget" in result["message"]


def test_a_cheap_rerun_in_mpmath_still_runs(monkeypatch, tmp_path):
    _force_float64_precision(monkeypatch)
    code, out, err = run_cli(["flow", _write(tmp_path, "orth3.json", ORTHONORMAL_3), "--lam", "1e-10", "--json"])
    result = json.loads(out)
    assert result["engine"] == "mpmath" and result["stats"]["escalated_from"]["status"] == "precision", err
    assert code == (0 if result["status"] in ("success", "settled") else 3)


# -- limit: the ladder's total work is bounded, not only its finest rung's -----------------------------------------

def test_a_ladder_of_many_expensive_rungs_is_refused_before_computing(monkeypatch, tmp_path):
    """30 rungs at ln(1/λ) ≈ 9e4 on orthonormal n = 3 data (a 200-byte option) each passed the finest rung's cost check,
    and the ladder ran about 30 × 30 s with no estimate: the whole ladder's steps are now bounded without --budget."""
    import relucheck.api

    called = []

    def computing(*args, **kwargs):
        called.append(True)
        raise RuntimeError("the ladder was computed")

    monkeypatch.setattr(relucheck.api, "limit", computing)
    ladder = ",".join(str(90000 + k) for k in range(30))
    code, out, err = run_cli(["limit", _write(tmp_path, "orth3.json", ORTHONORMAL_3), "--ladder", ladder])
    assert called == [] and code == 2 and "--ladder" in err, err


# -- run: a plugin's thread cannot end the run while the main process waits for the pool ---------------------------

THREAD_EXIT_PLUGIN = '''
import multiprocessing, os, threading, time

from relucheck import Statement, agree, check, register_paper, register_statements

register_paper("Th", "a plugin whose thread calls os._exit")
register_statements(Statement(id="Th.one", paper="Th", number="1", title="t", conclusion="c"))
if multiprocessing.parent_process() is None:  # in relucheck's main process only, while it waits for the pool
    threading.Thread(target=lambda: (time.sleep(2), os._exit(0)), daemon=True).start()


@check("Th.one.quick", statement="Th.one", mutant="m")
def quick(ctx):
    return agree(1, 1, 0, "exact")


@check("Th.one.slow", statement="Th.one", mutant="m")
def slow(ctx):
    time.sleep(6)
    return agree(1, 1, 0, "exact")
'''


def test_a_plugin_thread_calling_os_exit_does_not_end_the_run_in_silent_success(tmp_path):
    """A thread started at import called os._exit(0) while the main process waited for its workers: exit 0, one
    journal record, no summary, no reports. os._exit is now refused for the whole run (one note on stderr)."""
    import subprocess
    import sys

    plugin = _write(tmp_path, "thread_exit.py", THREAD_EXIT_PLUGIN)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--checks", str(plugin), "--executor", "process",
                           "--workers", "2", "--quiet", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "run-summary.json").read_text())
    assert summary["complete"] and summary["records"] == 2, summary
    assert "called os._exit(0) during the run; refused" in proc.stderr and "Traceback" not in proc.stderr


def test_the_check_run_extends_only_past_an_end_in_motion():
    """`vouch.extends`: a run stopped while its jumped neuron still grew is checked past its end (and its bound covers
    the settled jump time); a run stopped at rest is checked to its own end, as before."""
    import numpy as np

    from relucheck.numerics.flows import FlowProblem, Init, solve

    inst = ORTHONORMAL_3
    X, y = np.array(inst["inputs"]), np.array(inst["labels"])
    init = Init.balanced(np.array(inst["directions"]), np.array(inst["signs"], dtype=float), "1e-10")
    moving = solve(FlowProblem(X, y, init, horizon=5.1), "float64")
    at_rest = solve(FlowProblem(X, y, init, horizon=30.0), "float64")
    assert moving.success and at_rest.success
    assert moving.stats["static_at_end"] is False and at_rest.stats["static_at_end"] is True
    assert moving.errors["check"]["extended_to"] > 5.1 and "extended_to" not in at_rest.errors["check"]
    (short,), (long,) = moving.jumps, at_rest.jumps
    assert abs(short.tau - long.tau) <= moving.errors["jumps"][0] + at_rest.errors["jumps"][0]
    assert at_rest.errors["jumps"][0] < 1e-8  # at rest, the bound is the tolerance's again


def test_differing_event_lists_are_shown_from_their_first_difference():
    """The message showed each list's first four events, which may be the same where the lists differ later."""
    from types import SimpleNamespace

    from relucheck.numerics.flows.events import Event, EventKind
    from relucheck.numerics.flows.vouch import _event_structure

    down, up = EventKind.DEACTIVATE, EventKind.ACTIVATE

    def events(kinds):
        return [Event(0.1 * k, 0, 1, kind) for k, kind in enumerate(kinds)]

    said = _event_structure(SimpleNamespace(events=events([down, up] * 3)), SimpleNamespace(events=events([down, up] * 2)))
    assert "from its event 5 on: deactivation, activation (6 in all) against none (4)" in said
    assert _event_structure(SimpleNamespace(events=events([down])), SimpleNamespace(events=events([down]))) is None
