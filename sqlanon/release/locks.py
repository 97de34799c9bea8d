"""One lock per target, held from its reservation to the end of the run.

The lock is ``.<name>.sqlanon.lock`` beside the target, locked with ``flock``: the kernel
releases it when the process ends, however it ends, so a lock left by a killed run is free
and the next run takes it over (and recovers what the dead run left, ``journal.recover``).
The file says which process holds it (for the message of a second run) and where that run
stages its files (for the recovery). A second run aimed at a target that is locked exits at
once, naming the first one's process; it never waits and never interleaves with it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat

from sqlanon.errors import OutputError
from sqlanon.release.placement import identity

SUFFIX = ".sqlanon.lock"
_LIMIT = 1 << 16  # a lock record is a few hundred bytes; anything longer is not ours


def lock_name(target: str) -> str:
    return f".{target}{SUFFIX}"


class TargetLock:
    """The lock of ``target`` in the folder ``folder`` (a descriptor)."""

    def __init__(self, folder: int, target: str):
        self.folder = folder
        self.name = lock_name(target)
        self.fd: int | None = None

    def acquire(self, what: str, path: str) -> dict:
        """Take the lock, or raise ``OutputError`` naming the run that holds it. Returns what
        the previous holder recorded ({} when the lock is new): a run that was killed."""
        for _ in range(8):
            try:
                fd = os.open(
                    self.name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=self.folder
                )
            except OSError as error:
                if error.errno != errno.ELOOP:
                    raise
                raise OutputError(
                    f"the lock {self.name} beside the {what} {path} is a symlink, which sqlanon "
                    "never follows: remove it"
                ) from None
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                os.close(fd)
                raise OutputError(f"the lock {self.name} beside the {what} {path} is not a file: remove it")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read(fd).get("pid")
                os.close(fd)
                who = f"process {holder}" if isinstance(holder, int) else "another process"
                raise OutputError(
                    f"the {what} {path} is being written by another sqlanon run ({who}): "
                    "wait for it to end, or choose another path"
                ) from None
            # the holder before us may have removed the file as it released it: then the lock
            # we hold is on a name nobody else will open; take the one at the name now
            if identity(self.folder, self.name) != (st.st_dev, st.st_ino):
                os.close(fd)
                continue
            self.fd = fd
            return _read(fd)
        raise OutputError(
            f"the lock {self.name} beside the {what} {path} keeps changing: another run is starting on it; try again"
        )

    def record(self, content: dict) -> None:
        """Say who holds the lock and where it stages (one small write: no partial record)."""
        assert self.fd is not None
        data = json.dumps(content, sort_keys=True).encode("utf-8")
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)
        os.fsync(self.fd)

    def release(self) -> None:
        """Remove the lock's file, then let go of it (in this order: a run that opened the old
        file before the removal finds it gone and opens the new one)."""
        if self.fd is None:
            return
        try:
            os.unlink(self.name, dir_fd=self.folder)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def _read(fd: int) -> dict:
    data = os.pread(fd, _LIMIT, 0)
    try:
        content = json.loads(data.decode("utf-8")) if data else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    return content if isinstance(content, dict) else {}
