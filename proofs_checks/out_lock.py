"""One writer per output folder: `relucheck run` holds an exclusive lock on ``DIR/run.lock`` for the whole run.

The lock is ``flock(LOCK_EX | LOCK_NB)`` on the open lock file, taken before the journal is read or written and
released after the reports are written. A second ``run`` (or ``run --resume``) on the same folder finds it held
and stops with exit 2, naming the folder and the holder (pid, host, start time: the lock file's content, written
by the holder). The kernel releases a flock when the holder's process ends, however it ends (``kill -9``
included), so a lock file left by a killed run never blocks: only a live process holds the lock. The file
itself stays in DIR (removing it would let two runs lock two different files of the same name).

The lock is the open file description's: the spawned worker processes of a process pool or Dask do not inherit
it (Python's file descriptors are not inheritable), and two locks taken in one process on one folder conflict
as between two processes. flock works on local file systems and on NFS (Linux emulates it with NFS byte-range
locks).

The lock file is DIR's own regular file or nothing: a symbolic link (to a file elsewhere, which writing the
holder's line would truncate), a hard link, a folder or a fifo in its place is exit 2 naming it (``lstat``, then
``open`` with ``O_NOFOLLOW``, then ``fstat`` of what was opened).
"""
from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import socket
import stat
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError

LOCK_NAME = "run.lock"


class OutDirLock:
    """``with OutDirLock(out, shown="--out DIR"):`` holds ``out/run.lock`` exclusively, or raises
    `RelucheckInputError` naming ``shown`` and the holder."""

    def __init__(self, out_dir, shown: str, shown_dir: str | None = None):
        self.path = Path(out_dir) / LOCK_NAME
        self.shown = shown
        self.shown_path = self.path if shown_dir is None else Path(shown_dir) / LOCK_NAME  # as the user typed it
        self._fd: int | None = None

    def _not_a_lock_file(self) -> RelucheckInputError:
        return RelucheckInputError(f"{self.shown}: {LOCK_NAME} is not a regular file (a symbolic link, a folder, a "
                                   f"fifo …); relucheck locks and writes only a file of its own: remove "
                                   f"{self.shown_path} or choose another --out")

    def acquire(self) -> "OutDirLock":
        """Open (never following a symbolic link, never another file than DIR's own lock file), lock, write the
        holder's line."""
        try:
            mode = os.lstat(self.path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise RelucheckInputError(f"{self.shown}: cannot open the lock file {self.shown_path} "
                                      f"({exc.strerror or exc})") from None
        if mode is not None and not stat.S_ISREG(mode):  # a symlink included: lstat does not follow it
            raise self._not_a_lock_file()
        try:  # O_NOFOLLOW: a symlink put there after the lstat fails (ELOOP); O_NONBLOCK: a fifo cannot hang us
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._not_a_lock_file() from None
            raise RelucheckInputError(f"{self.shown}: cannot open the lock file {self.shown_path} "
                                      f"({exc.strerror or exc})") from None
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_nlink > 1:  # replaced since the lstat, or a hard link to
            os.close(fd)  # another file, which writing the holder's line would truncate
            raise self._not_a_lock_file()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RelucheckInputError(f"{self.shown}: the folder is in use by another relucheck run ({self.holder()}); "
                                      "wait for it to end, or choose another --out") from None
        except OSError as exc:
            os.close(fd)
            raise RelucheckInputError(f"{self.shown}: cannot lock {self.shown_path} ({exc.strerror or exc})") from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder, sort_keys=True) + "\n").encode(), 0)
        self._fd = fd
        return self

    def holder(self) -> str:
        """The holder as its lock file describes it ("holder unknown" while it is still writing its line)."""
        try:
            info = json.loads(self.path.read_text(encoding="utf-8"))
            pid, host, started = int(info["pid"]), str(info["host"]), str(info["started"])
        except (OSError, ValueError, KeyError, TypeError):
            return f"holder unknown; lock file {self.shown_path}"
        where = "" if host == socket.gethostname() else f" on host {host}"
        return f"pid {pid}{where}, started {started}; lock file {self.shown_path}"

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "OutDirLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
