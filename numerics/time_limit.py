"""A time limit on a computation that runs in this process: `time_limit(seconds)` raises `TimeLimitExceeded`
in the thread that runs the computation once ``seconds`` of wall time have passed.

In the main thread the limit is a real-time interval timer (``setitimer(ITIMER_REAL)``, SIGALRM): its handler
raises in the main thread, which also interrupts a blocking wait (``time.sleep``, ``select``). An enclosing
time limit or alarm (another `time_limit`, a test's own SIGALRM) is kept: the inner limit runs until the sooner
of the two deadlines, the outer handler fires at its own deadline, and the outer timer is re-armed with what is
left of it on exit. In any other thread (a Dask worker runs tasks in a thread pool) a timer thread raises the
exception asynchronously (``PyThreadState_SetAsyncExc``).

Either way the exception arrives only when the thread runs Python bytecode: a computation stuck inside C code
(a BLAS call, a C extension holding the GIL) is not stopped until it returns. Only a separate process can be
stopped there; `numerics.process_pool` kills a worker whose task overran its limit.
"""
from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time


class TimeLimitExceeded(BaseException):
    """The computation ran past its time limit. A BaseException, not an Exception, so that a computation's own
    ``except Exception`` cannot swallow it (as KeyboardInterrupt and SystemExit)."""


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise `TimeLimitExceeded` in this thread if the block is still running after ``seconds`` (None: no limit)."""
    if seconds is None:
        yield
    elif threading.current_thread() is threading.main_thread():
        with _alarm(float(seconds)):
            yield
    else:
        with _asynchronous(float(seconds)):
            yield


@contextlib.contextmanager
def _alarm(seconds: float):
    outer_handler = signal.getsignal(signal.SIGALRM)
    outer_left, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    outer_first = 0 < outer_left <= seconds  # an enclosing alarm is due before this limit
    outer_fired = False
    start = time.monotonic()

    def on_alarm(signum, frame):
        nonlocal outer_fired
        if not outer_first:
            raise TimeLimitExceeded(seconds)
        outer_fired = True  # the enclosing deadline came first: its handler decides
        signal.signal(signal.SIGALRM, outer_handler)
        if callable(outer_handler):
            outer_handler(signum, frame)
        else:  # SIG_DFL ends the process, as the enclosing alarm would have; SIG_IGN does nothing
            signal.raise_signal(signal.SIGALRM)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, outer_left if outer_first else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer_handler)
        if outer_left > 0 and not outer_fired:  # what is left of the enclosing alarm (due now if already past)
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - start), 1e-6), outer_interval)


_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


@contextlib.contextmanager
def _asynchronous(seconds: float):
    thread = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire():
        with lock:
            if not state["done"]:
                state["fired"] = True
                _set_async_exc(thread, TimeLimitExceeded)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["fired"]:  # raised already, or still pending: a pending one must not escape this block
                _set_async_exc(thread, ctypes.py_object())
