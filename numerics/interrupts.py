"""Signals that end a run: SIGINT (Ctrl-C), SIGTERM (``kill``, ``timeout``, a CI job's cancel) and SIGHUP (the
terminal closed) all become one exception, `Interrupted`, raised in the main thread, so that the code between
the signal and the exit (stopping the worker processes, writing the reports of the records so far) runs as it
does after Ctrl-C. `Interrupted` is a KeyboardInterrupt: everything that already treats Ctrl-C as "stop now and
keep what was journaled" treats SIGTERM and SIGHUP the same way, and no ``except Exception`` swallows it.

The exit status is a shell's for a process ended by that signal: 128 + its number (130 SIGINT, 143 SIGTERM,
129 SIGHUP), `exit_status`.

After the first signal the run is ending: a second one (Ctrl-C pressed twice, ``timeout`` following SIGTERM
with another) is ignored, so that it cannot cut the clean-up short and leave worker processes behind or the
reports unwritten; the handlers stay in place until the process exits. A signal arriving more than
`FORCE_AFTER` seconds after the first ends the process at once (``os._exit``): the clean-up is bounded far
below that, so only a clean-up stuck in the operating system would get there; worker processes die with their
parent (PR_SET_PDEATHSIG, `numerics.process_pool`) and every finished record is already on disk.
A signal that was ignored when the process started (``nohup``; SIGINT of a background job) stays ignored.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
FORCE_AFTER = 30.0  # s: a clean-up (workers killed within a few seconds, reports written) never takes this long


class Interrupted(KeyboardInterrupt):
    """A signal asked the process to end; ``exit_code`` is 128 + the signal's number."""

    def __init__(self, signum: int):
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(signal.Signals(self.signum).name)


def exit_status(exc: BaseException) -> int:
    """The exit status for an interrupt: the signal's (`Interrupted`), else 130 (a plain KeyboardInterrupt)."""
    return getattr(exc, "exit_code", 128 + signal.SIGINT)


@contextlib.contextmanager
def ending_on_signals(signals=ENDING_SIGNALS):
    """Within the block, each of ``signals`` raises `Interrupted` in the main thread (module docstring). Outside
    the main thread (where Python cannot install handlers) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    first: list = []  # (signal, time) of the first signal

    def on_signal(signum, frame):
        if not first:
            first.append((signum, time.monotonic()))
            raise Interrupted(signum)
        if time.monotonic() - first[0][1] > FORCE_AFTER:
            print(f"relucheck: {signal.Signals(signum).name} again during a clean-up of over {FORCE_AFTER:g} s: "
                  "ending now", file=sys.stderr, flush=True)
            os._exit(128 + first[0][0])
        # else: the run is already ending; the clean-up finishes

    previous = {}
    for sig in signals:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, on_signal)
    try:
        yield
    finally:
        if not first:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
