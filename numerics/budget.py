"""Run a computation in a forked child process within a wall-clock and a memory budget (Linux).

SymPy's simplification and SciPy's integrators have no time limit of their own, and a large expression can
take gigabytes. `run_with_budget` runs ``fn(*args)`` in a child made by ``fork`` (the arguments are
inherited, not pickled), limits the child's address space (RLIMIT_AS: what it has at the fork plus
``memory_bytes``), and kills it with SIGKILL when ``seconds`` have passed. The child asks the kernel to
kill it when its parent dies (prctl PR_SET_PDEATHSIG), so nothing outlives the command: not a child whose
parent was killed (by ``timeout``, kill -9 or a test's timeout) and not a grandchild of a nested budget.
The child ignores SIGINT: Ctrl-C interrupts the parent, which kills the child. The value comes back
through a pipe; an exception raised in the child is raised again in the parent; running out of time or
memory raises `BudgetExceeded`.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal

PR_SET_PDEATHSIG = 1  # linux/prctl.h


class BudgetExceeded(Exception):
    """The computation did not finish within its budget; ``kind`` is "time" or "memory"."""

    def __init__(self, kind: str, detail: str):
        self.kind, self.detail = kind, detail
        super().__init__(kind, detail)  # both in args: the exception pickles through a nested budget

    def __str__(self) -> str:
        return self.detail


def _address_space_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return None


def _limit_memory(memory_bytes: int) -> None:
    current = _address_space_bytes()
    if current is None:  # pragma: no cover - not Linux
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + int(memory_bytes)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the forked child
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the parent's kill after the budget is all there is
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _child(conn, fn, args, memory_bytes, parent):  # pragma: no cover - runs in the forked child
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    try:
        if memory_bytes is not None:
            _limit_memory(memory_bytes)
        payload = ("ok", fn(*args))
    except MemoryError:
        payload = ("memory", None)
    except BaseException as exc:  # noqa: B036 - everything goes back to the parent, which decides
        payload = ("raised", exc)
    try:
        conn.send(payload)
    except Exception as exc:  # an unpicklable value or exception
        conn.send(("raised", RuntimeError(f"{type(exc).__name__} while returning the result: {exc}")))
    conn.close()


def run_with_budget(fn, args=(), *, seconds: float, memory_bytes: int | None = None):
    """``fn(*args)`` in a forked child; raises `BudgetExceeded` after ``seconds`` or beyond ``memory_bytes``."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, tuple(args), memory_bytes, os.getpid()))
    proc.start()
    send.close()
    try:
        if not receive.poll(seconds):
            raise BudgetExceeded("time", f"no result within the time budget of {seconds:g} s")
        try:
            kind, value = receive.recv()
        except EOFError:
            proc.join(1.0)
            raise BudgetExceeded("memory", f"the computation ended without a result (exit code {proc.exitcode}); "
                                 f"the memory budget of {_mib(memory_bytes)} is the likely cause") from None
        except Exception as exc:  # a value or exception that pickles but does not unpickle
            raise RuntimeError(f"the result of the budgeted computation could not be read back: {exc}") from exc
    finally:
        if proc.is_alive():
            proc.kill()  # its own children (a nested budget) die with it: PR_SET_PDEATHSIG
        proc.join()
        receive.close()
    if kind == "memory":
        raise BudgetExceeded("memory", f"the computation needed more than the memory budget of {_mib(memory_bytes)}")
    if kind == "raised":
        raise value
    return value


def _mib(memory_bytes) -> str:
    return "(none)" if memory_bytes is None else f"{memory_bytes / 2**20:g} MiB"
