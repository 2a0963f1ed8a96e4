"""A check cannot end the run (issue 20, item 4): SystemExit and any other BaseException but KeyboardInterrupt
become the check's ERROR record, serially, on the process pool and on Dask; on the pool, a check that ends its
worker (os._exit, a segmentation fault) or is stuck in C code past its time limit is an ERROR record and the run
goes on. Every record runs under a time limit (`--check-timeout`), and BLAS on one thread."""
import json
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from relucheck.numerics.time_limit import TimeLimitExceeded, time_limit
from relucheck.proofs_checks.registry import Check
from relucheck.proofs_checks.result import Outcome, Status
from relucheck.proofs_checks.runner import (DEFAULT_TIME_LIMIT, FULL_SUITE_TIME_LIMIT, run_check, run_checks,
                                            time_limit_of)

PLUGIN = textwrap.dedent('''
    """Checks that misbehave on purpose (tests/test_check_isolation.py)."""
    import ctypes
    import os
    import signal
    import sys
    import time

    from relucheck import Outcome, Statement, Status, agree, check, register_paper, register_statements

    register_paper("Iso", "checks that misbehave")
    register_statements(Statement(id="Iso.s", paper="Iso", number="1", title="misbehaviour", conclusion="none"))


    @check("Iso.s.safe_exit", statement="Iso.s", mutant="none")
    def safe_exit(ctx):
        sys.exit(0)


    @check("Iso.s.safe_base_exception", statement="Iso.s", mutant="none")
    def safe_base_exception(ctx):
        raise GeneratorExit("not an Exception")


    @check("Iso.s.safe_swallowing_loop", statement="Iso.s", mutant="none")
    def safe_swallowing_loop(ctx):
        while True:  # Python code that catches every Exception: the time limit still ends it
            try:
                time.sleep(0.01)
            except Exception:
                pass


    @check("Iso.s.safe_fine", statement="Iso.s", mutant="none")
    def safe_fine(ctx):
        return agree(1.0, 1.0, 0.0, "exact")


    @check("Iso.s.safe_swallowing_everything", statement="Iso.s", mutant="none")
    def safe_swallowing_everything(ctx):
        start = time.monotonic()
        while time.monotonic() - start < 2:  # catches the time limit too, then returns past it
            try:
                time.sleep(0.05)
            except BaseException:
                pass
        return agree(1.0, 1.0, 0.0, "exact")


    @check("Iso.s.safe_self_referential_value", statement="Iso.s", mutant="none")
    def safe_self_referential_value(ctx):
        value = {}
        value["a"] = value
        return Outcome(Status.VERIFIED, value, 1.0, 0.0, "exact")


    @check("Iso.s.crash_keyboard_interrupt", statement="Iso.s", mutant="none")
    def crash_keyboard_interrupt(ctx):  # serially it would end the run (as Ctrl-C): the pool only
        raise KeyboardInterrupt


    @check("Iso.s.safe_os_exit", statement="Iso.s", mutant="none")
    def safe_os_exit(ctx):  # refused while a check runs (exit_guard): serially it ended the run with exit 0
        os._exit(0)


    @check("Iso.s.crash_posix_exit", statement="Iso.s", mutant="none")
    def crash_posix_exit(ctx):  # not refused: it ends the process that runs it
        import posix
        posix._exit(0)


    @check("Iso.s.crash_segfault", statement="Iso.s", mutant="none")
    def crash_segfault(ctx):
        ctypes.string_at(0)


    @check("Iso.s.crash_stuck_outside_python", statement="Iso.s", mutant="none")
    def crash_stuck_outside_python(ctx):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # as C code that never returns to Python
        time.sleep(120)
''')
TIMEOUT = "1"  # s, --check-timeout of the runs below: the slow checks run until it, the others take milliseconds
EXPECTED = {  # record id → (status, start of its message)
    "Iso.s.safe_exit": ("error", "SystemExit: the check called sys.exit(0)"),
    "Iso.s.safe_base_exception": ("error", "GeneratorExit: not an Exception"),
    "Iso.s.safe_swallowing_loop": ("error", f"exceeded the time limit of {TIMEOUT} s"),
    "Iso.s.safe_fine": ("verified", ""),
    "Iso.s.safe_swallowing_everything": ("error", f"exceeded the time limit of {TIMEOUT} s (--check-timeout) and "
                                                  "swallowed the stop"),
    "Iso.s.safe_self_referential_value": ("error", "RecursionError"),
    "Iso.s.crash_keyboard_interrupt": ("error", "KeyboardInterrupt: the check raised it in its worker process"),
    "Iso.s.safe_os_exit": ("error", "ProcessExitRefused: the check called os._exit(0); a check returns an Outcome"),
    "Iso.s.crash_posix_exit": ("error", "the check ended the process that ran it: its worker process died (exit "
                                        "status 0)"),
    "Iso.s.crash_segfault": ("error", "the check ended the process that ran it: its worker process died (killed by "
                                      "signal SIGSEGV)"),
    "Iso.s.crash_stuck_outside_python": ("error", f"exceeded the time limit of {TIMEOUT} s (--check-timeout): its "
                                                  "worker process was still running it"),
}


def _run(tmp_path, only: str, *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    plugin = tmp_path / "misbehaving.py"
    plugin.write_text(PLUGIN)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--checks", str(plugin), "--only", only,
                           "--check-timeout", TIMEOUT, "--quiet", "--out", str(out), *options],
                          capture_output=True, text=True, timeout=300)  # hang guard
    records = {r["id"]: r for r in json.loads((out / "results.json").read_text())} if proc.returncode == 2 else {}
    return proc, records


def _assert_expected(proc, records, ids):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)  # errors, and the run reached its end
    assert "summary:" in proc.stdout and "Traceback" not in proc.stderr, proc.stderr
    assert sorted(records) == sorted(ids)
    for rid in ids:
        status, message = EXPECTED[rid]
        assert records[rid]["status"] == status, records[rid]
        assert records[rid]["message"].startswith(message), records[rid]["message"]


def test_serially_exit_and_time_limit_are_the_checks_errors(tmp_path):
    proc, records = _run(tmp_path, "Iso.s.safe_*", "--executor", "serial")
    _assert_expected(proc, records, [rid for rid in EXPECTED if rid.startswith("Iso.s.safe_")])


def test_on_the_process_pool_a_crash_or_a_stuck_worker_is_the_checks_error_and_the_run_goes_on(tmp_path):
    proc, records = _run(tmp_path, "Iso.s.*", "--executor", "process", "--workers", "2")
    _assert_expected(proc, records, list(EXPECTED))


def test_on_dask_exit_and_time_limit_are_the_checks_errors(tmp_path):
    """A Dask worker runs tasks in a thread: the time limit is raised there asynchronously."""
    proc, records = _run(tmp_path, "Iso.s.safe_*", "--executor", "dask", "--workers", "2")
    _assert_expected(proc, records, [rid for rid in EXPECTED if rid.startswith("Iso.s.safe_")])


def _check(fn, suites=("default", "full")) -> Check:
    return Check("C.prop1.isolation", "C.prop1", fn, "none", suites=suites)


def test_keyboard_interrupt_passes_through_a_check():
    def interrupted(ctx):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_check(_check(interrupted))


def test_a_check_returning_no_outcome_is_an_error():
    rec = run_check(_check(lambda ctx: 1.0))
    assert rec.status is Status.ERROR and "returned float, expected Outcome" in rec.message


def test_default_time_limits_by_suite_and_the_override():
    assert time_limit_of(_check(None)) == DEFAULT_TIME_LIMIT
    assert time_limit_of(_check(None, suites=("full",))) == FULL_SUITE_TIME_LIMIT
    assert time_limit_of(_check(None, suites=("full",)), 2.5) == 2.5


def test_a_check_runs_with_one_blas_thread():
    from threadpoolctl import threadpool_info

    seen = []

    def inspect(ctx):
        seen.extend(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas")
        return Outcome(Status.VERIFIED, 1, 1, 0, "exact", "")

    assert run_check(_check(inspect)).status is Status.VERIFIED
    assert len(seen) >= 2 and set(seen) == {1}  # numpy's and SciPy's OpenBLAS


def test_run_checks_serially_passes_the_time_limit():
    def slow(ctx):
        time.sleep(60)

    (rec,) = run_checks([_check(slow)], progress=False, check_timeout=0.2)
    assert rec.status is Status.ERROR and rec.message.startswith("exceeded the time limit of 0.2 s")


def _alarm_raises(signum, frame):
    raise TimeoutError("outer alarm")


def test_an_enclosing_alarm_that_is_due_first_fires_inside():
    previous = signal.signal(signal.SIGALRM, _alarm_raises)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(TimeoutError, match="outer alarm"), time_limit(30):
            time.sleep(30)
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # fired, not re-armed
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_enclosing_alarm_due_later_is_kept():
    previous = signal.signal(signal.SIGALRM, _alarm_raises)
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        with pytest.raises(TimeLimitExceeded), time_limit(0.1):
            time.sleep(30)
        assert signal.getsignal(signal.SIGALRM) is _alarm_raises
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30  # re-armed with what is left
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_time_limit_in_another_thread_raises_there_and_nothing_stays_pending():
    outcome = []

    def worker():
        try:
            with time_limit(0.1):
                while True:
                    sum(range(100))
        except TimeLimitExceeded:
            outcome.append("stopped")
        with time_limit(30):  # a limit that does not expire leaves nothing behind
            pass
        for _ in range(10**5):  # an exception still pending would surface here
            pass
        outcome.append("clean")

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(60)
    assert outcome == ["stopped", "clean"]


def test_in_a_worker_a_keyboard_interrupt_raised_by_the_check_is_its_error():
    def interrupted(ctx):
        raise KeyboardInterrupt

    rec = run_check(_check(interrupted), in_worker=True)
    assert rec.status is Status.ERROR and rec.message.startswith("KeyboardInterrupt"), rec.message


def test_a_value_that_cannot_be_written_as_json_is_the_checks_error():
    def self_referential(ctx):
        value = {}
        value["a"] = value
        return Outcome(Status.VERIFIED, value, 1.0, 0.0, "exact")

    rec = run_check(_check(self_referential))
    assert rec.status is Status.ERROR and rec.message.startswith("RecursionError"), rec.message


def test_a_check_that_switches_its_alarm_off_is_an_error_past_its_limit():
    def alarm_off(ctx):
        signal.setitimer(signal.ITIMER_REAL, 0)
        time.sleep(0.3)
        return Outcome(Status.VERIFIED, 1.0, 1.0, 0.0, "exact")

    rec = run_check(_check(alarm_off), check_timeout=0.1)
    assert rec.status is Status.ERROR and "swallowed the stop" in rec.message, rec.message


SWALLOWING = textwrap.dedent('''
    import os
    import time

    from relucheck import Statement, agree, check, register_paper, register_statements

    register_paper("Sw", "a check that swallows every exception")
    register_statements(Statement(id="Sw.s", paper="Sw", number="1", title="swallow", conclusion="none"))


    @check("Sw.s.swallow", statement="Sw.s", mutant="none")
    def swallow(ctx):
        open(os.environ["SWALLOW_MARK"], "w").close()
        start = time.monotonic()
        while time.monotonic() - start < 3:
            try:
                time.sleep(0.05)
            except BaseException:
                pass
        return agree(1.0, 1.0, 0.0, "exact")
''')


def test_serially_a_swallowed_sigterm_still_ends_the_run_after_the_check(tmp_path):
    plugin, mark = tmp_path / "swallowing.py", tmp_path / "started"
    plugin.write_text(SWALLOWING)
    proc = subprocess.Popen([sys.executable, "-m", "relucheck", "run", "--checks", str(plugin), "--executor",
                             "serial", "--quiet", "--check-timeout", "60", "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**__import__("os").environ, "SWALLOW_MARK": str(mark)})
    while not mark.exists() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)  # hang guard
    assert proc.returncode == 143, (out, err)
    assert "interrupted" in err and "Traceback" not in err, err


TAMPERING = textwrap.dedent('''
    from relucheck.proofs_checks import registry
    from relucheck.proofs_checks.result import Outcome, Status

    object.__setattr__(registry._CHECKS["C.thm3.min_norm_formula"], "fn",
                       lambda ctx: Outcome(Status.VERIFIED, 1, 1, 0, "tampered"))
''')


def test_a_plugin_that_changes_a_built_in_check_is_refused(tmp_path):
    plugin = tmp_path / "tampering.py"
    plugin.write_text(TAMPERING)
    proc = subprocess.run([sys.executable, "-m", "relucheck", "run", "--checks", str(plugin), "--with-builtin",
                           "--only", "C.thm3.min_norm_formula", "--quiet", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)  # hang guard
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert f"--checks {plugin}: changed the built-in check C.thm3.min_norm_formula" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


def test_os_exit_is_refused_in_the_checks_process_only():
    import os

    from relucheck.proofs_checks.exit_guard import ProcessExitRefused, exit_refused

    real = os._exit
    with exit_refused(), pytest.raises(ProcessExitRefused):
        os._exit(3)
    assert os._exit is real
    with exit_refused():  # a child forked inside the block still ends with os._exit
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 7


SWALLOWING_FOR_EVER = textwrap.dedent('''
    import os, signal, sys, time
    from relucheck.numerics import interrupts
    interrupts.FORCE_AFTER = 2.0  # 30 s in relucheck
    with interrupts.ending_on_signals():
        open(sys.argv[1], "w").close()
        while True:  # a serial check that swallows every exception, the redelivered signal included
            try:
                time.sleep(0.05)
            except BaseException:
                pass
''')


def test_an_interrupt_swallowed_for_ever_still_ends_the_process(tmp_path):
    mark = tmp_path / "started"
    proc = subprocess.Popen([sys.executable, "-c", SWALLOWING_FOR_EVER, str(mark)], stderr=subprocess.PIPE, text=True)
    while not mark.exists() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)  # hang guard; it ends FORCE_AFTER s after the signal
    assert proc.returncode == 143, err
    assert "still being swallowed" in err and "--resume" in err, err
