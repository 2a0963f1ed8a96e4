"""A user's code may not end relucheck's process: ``os._exit`` refused while a check runs or a plugin loads (issue 20).

``sys.exit`` raises `SystemExit`, which the runner and the plugin loader already turn into the check's error record or
an input error naming the file. ``os._exit`` ends the process without any exception: serially, a check calling it made
``relucheck run`` end with exit status 0, no summary and no reports; a plugin calling it at import made ``relucheck
list`` print nothing and exit 0. Inside `exit_refused`, ``os._exit`` raises `ProcessExitRefused` instead, in the process
that entered the block; a process forked inside it (SymPy's budgeted simplification, `numerics.budget`) still ends
with ``os._exit`` as it must. Code that calls ``posix._exit`` or kills its own process is not stopped: on the process
pool (the default) that is one check's lost worker and an error record; serially it ends the run, and the journal keeps
every finished record.
"""
from __future__ import annotations

import contextlib
import os


class ProcessExitRefused(BaseException):
    """``os._exit(code)`` was called where relucheck's process may not end (a BaseException, as SystemExit is)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def exit_refused():
    """``os._exit`` raises `ProcessExitRefused` in this process for the duration of the block (module docstring)."""
    real, pid = os._exit, os.getpid()

    def refused(code):
        if os.getpid() != pid:  # a child forked inside the block
            real(code)
        raise ProcessExitRefused(code)

    os._exit = refused
    try:
        yield
    finally:
        os._exit = real
