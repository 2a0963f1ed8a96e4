"""Signals that end a run: SIGINT (Ctrl-C), SIGTERM (``kill``, ``timeout``, a CI job's cancel) and SIGHUP (the
terminal closed) all become one exception, `Interrupted`, raised in the main thread, so that the code between
the signal and the exit (stopping the worker processes, writing the reports of the records so far) runs as it
does after Ctrl-C. `Interrupted` is a KeyboardInterrupt: everything that already treats Ctrl-C as "stop now and
keep what was journaled" treats SIGTERM and SIGHUP the same way, and no ``except Exception`` swallows it.

The exit status is a shell's for a process ended by that signal: 128 + its number (130 SIGINT, 143 SIGTERM,
129 SIGHUP), `exit_status`.

Once the exception has left the `ending_on_signals` block, the run is ending: a further signal (Ctrl-C pressed
twice, ``timeout`` following SIGTERM with another) is ignored, so that it cannot cut the clean-up short (the
block's caller stops the workers and writes the reports after it) and the exit status is the first signal's;
the handlers stay in place until the process exits, and the signals are ignored while it finalizes. Until then
every signal raises again, and the first one is sent again every `REDELIVER` s: its exception may have been
swallowed where Python ignores exceptions (a ``__del__``, a weakref callback) or by a check's own ``except
BaseException``, and the run must still end: `raise_if_swallowed` (called after each check) raises it again at
once, and a block that ends normally after a signal raises it as it ends. A check that swallows every exception
keeps running until the first signal is `FORCE_AFTER` seconds old (the process pool stops it at once: its worker
ignores the signals, and the main process kills it). A signal arriving more than `FORCE_AFTER` seconds
after the first (the redelivered one included) ends the process at once (``os._exit``): the clean-up is bounded far
below that, so only a clean-up stuck in the operating system or an interrupt swallowed for that long gets there;
worker processes die with their parent (PR_SET_PDEATHSIG, `numerics.process_pool`) and every finished record is
already on disk. It calls ``posix._exit``, which a guard against a check's ``os._exit`` does not replace.
A signal that was ignored when the process started (``nohup``; SIGINT of a background job) stays ignored.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import posix
import signal
import sys
import threading
import time

ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
FORCE_AFTER = 30.0  # s: a clean-up (workers killed within a few seconds, reports written) never takes this long
REDELIVER = 1.0  # s: the period at which a first signal whose exception has not yet left the block is sent again


class Interrupted(KeyboardInterrupt):
    """A signal asked the process to end; ``exit_code`` is 128 + the signal's number."""

    def __init__(self, signum: int):
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(signal.Signals(self.signum).name)


def exit_status(exc: BaseException) -> int:
    """The exit status for an interrupt: the signal's (`Interrupted`), else 130 (a plain KeyboardInterrupt)."""
    return getattr(exc, "exit_code", 128 + signal.SIGINT)


_swallowed = {"signal": None}  # the first signal of the open `ending_on_signals` block, until it leaves the block
_deferred = {"depth": 0, "pending": None}  # `deferred` blocks open in the main thread, and the signal they hold


@contextlib.contextmanager
def deferred():
    """A block that an interrupt does not cut: a signal arriving inside raises `Interrupted` when it ends (for a
    step that must be whole or not at all, e.g. starting a worker process that `terminate` must know of). Blocking
    the signal (pthread_sigmask) would not do: another thread (OpenBLAS' own) would take it and Python would still
    run the handler in the main thread."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers run in the main thread only
        yield
        return
    _deferred["depth"] += 1
    try:
        yield
    finally:
        _deferred["depth"] -= 1
        if _deferred["depth"] == 0 and _deferred["pending"] is not None:
            signum, _deferred["pending"] = _deferred["pending"], None
            raise Interrupted(signum)


def raise_if_swallowed() -> None:
    """Raise `Interrupted` if a signal arrived in the open `ending_on_signals` block and its exception has not left
    it: a check caught it (``except BaseException``) and went on. The runner calls this after each check."""
    if _swallowed["signal"] is not None:
        raise Interrupted(_swallowed["signal"])


def _ignore(signals) -> None:
    """At exit after an interrupt: the interpreter's finalization gives Python-level handlers back to SIG_DFL, so a
    second Ctrl-C then would kill the process (exit status -2 instead of 130); SIG_IGN is left alone."""
    for sig in signals:
        signal.signal(sig, signal.SIG_IGN)


@contextlib.contextmanager
def ending_on_signals(signals=ENDING_SIGNALS):
    """Within the block, each of ``signals`` raises `Interrupted` in the main thread (module docstring). Outside
    the main thread (where Python cannot install handlers) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    first: list = []  # (signal, time) of the first signal
    ending: list = []  # not empty once an interrupt has left the block: the run is ending
    left: list = []  # not empty once the block has ended, interrupted or not

    def redeliver(signum):
        """Until the interrupt has left the block: send the signal again every `REDELIVER` s (module docstring)."""
        while True:
            time.sleep(REDELIVER)
            if ending or left:
                return
            os.kill(os.getpid(), signum)

    def on_signal(signum, frame):
        if not first:
            first.append((signum, time.monotonic()))
            _swallowed["signal"] = signum
            threading.Thread(target=redeliver, args=(signum,), daemon=True, name="relucheck-interrupt").start()
        elif time.monotonic() - first[0][1] > FORCE_AFTER:  # checked first: code that swallows every exception
            # (a serial check's ``except BaseException`` in a loop) would otherwise keep the run alive for ever
            what = ("during a clean-up" if ending else "and the interrupt is still being swallowed (by a check running "
                    "in this process?)")
            print(f"relucheck: {signal.Signals(signum).name} {FORCE_AFTER:g} s after the first {what}: ending now; "
                  "the journal keeps every finished record (--resume)", file=sys.stderr, flush=True)
            posix._exit(128 + first[0][0])
        if not ending and _deferred["depth"]:
            _deferred["pending"] = first[0][0]  # raised when the `deferred` block ends
        elif not ending:  # also a second signal, should the first exception have been swallowed (a __del__ …)
            raise Interrupted(first[0][0])
        # else: the run is already ending; the clean-up finishes

    def unraisable(info):
        if not isinstance(info.exc_value, Interrupted):  # a swallowed interrupt is sent again: nothing to show
            previous_hook(info)

    previous_hook, sys.unraisablehook = sys.unraisablehook, unraisable
    previous = {}
    for sig in signals:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, on_signal)
    try:
        yield
        if first:  # a signal arrived and its exception was swallowed: the run still ends, as the signal asked
            raise Interrupted(first[0][0])
    except KeyboardInterrupt:
        ending.append(True)
        atexit.register(_ignore, tuple(previous))
        raise
    finally:
        left.append(True)
        _swallowed["signal"] = None
        sys.unraisablehook = previous_hook
        if not ending:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
