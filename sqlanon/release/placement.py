"""The file operations of a publication, each relative to a folder descriptor.

A path is looked up again by every call that takes it, so a folder renamed or swapped for a
symlink while a run works would redirect a path-based write. Every operation here takes the
descriptor of a folder opened once, when the run reserved its targets, and a bare name in it:
whatever happens to the folder's path afterwards, the files land in the folder that was
checked. The final placement of a new file is atomic and never replaces anything
(``renameat2`` with ``RENAME_NOREPLACE``, or a hard link, which fails on an existing name):
a file that appears at the target while the run works is kept, and the publication fails.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
import stat

from sqlanon.errors import OutputError

#: a run's private folder beside its targets: ``.sqlanon-<16 hex digits>``, mode 0700
STAGING_PREFIX = ".sqlanon-"
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_RENAME_NOREPLACE = 1
_libc = None


def open_folder(path: str) -> int:
    """A descriptor of the folder ``path`` (symlinks in it resolved now, once)."""
    return os.open(path, _DIRECTORY)


def open_subfolder(folder: int, name: str) -> int:
    """A descriptor of ``name`` in ``folder``, which must be a real folder (not a symlink)."""
    return os.open(name, _DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)


def staging_name() -> str:
    """A name nobody can guess: planting a symlink there in advance is not possible."""
    return STAGING_PREFIX + secrets.token_hex(8)


def make_staging(folder: int, name: str) -> int:
    """Create the private folder ``name`` in ``folder`` (exclusively: ``mkdir`` fails on any
    existing name, a symlink included) and return its descriptor."""
    os.mkdir(name, 0o700, dir_fd=folder)
    return open_subfolder(folder, name)


def through(folder: int, name: str) -> str | None:
    """A path to ``name`` in the folder behind the descriptor, for writers that take a path
    (DuckDB's COPY, pyarrow): ``/proc/self/fd/N/name`` resolves through the descriptor, not
    through the folder's path. None where the process has no /proc."""
    link = f"/proc/self/fd/{folder}"
    return f"{link}/{name}" if os.path.isdir(link) else None


def create_text(folder: int, name: str, text: str) -> None:
    """Write ``text`` to a new file ``name`` in ``folder``: created exclusively, never through
    a symlink (``O_EXCL | O_NOFOLLOW``), flushed to disk before it counts as written."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    try:
        data = text.encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def identity(folder: int, name: str) -> tuple[int, int] | None:
    """(device, inode) of ``name`` in ``folder`` itself (a symlink is not followed), or None."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def exists(folder: int, name: str) -> bool:
    return identity(folder, name) is not None


def place_new(source: int, name: str, folder: int, target: str) -> None:
    """Move ``name`` from the folder ``source`` to ``target`` in ``folder``, atomically and only
    if nothing is there (``FileExistsError`` otherwise, with nothing moved)."""
    try:
        _renameat2(source, name, folder, target)
        return
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    # no renameat2 here (an old kernel, a file system without it): a hard link also fails on
    # an existing name; the source name goes once the link stands
    os.link(name, target, src_dir_fd=source, dst_dir_fd=folder, follow_symlinks=False)
    os.unlink(name, dir_fd=source)


def place_over(source: int, name: str, folder: int, target: str) -> None:
    """Move ``name`` to ``target``, replacing what is there (atomically: ``rename``)."""
    os.rename(name, target, src_dir_fd=source, dst_dir_fd=folder)


def keep(folder: int, target: str, staging: int, backup: str) -> None:
    """Keep the file about to be replaced as ``backup`` in the run's private folder: a hard
    link (no copy, the same bytes), or a copy where the file system has no links."""
    try:
        os.link(target, backup, src_dir_fd=folder, dst_dir_fd=staging, follow_symlinks=False)
        return
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
    source = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    try:
        copy = os.open(
            backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=staging
        )
        try:
            while chunk := os.read(source, 1 << 20):
                os.write(copy, chunk)
            os.fsync(copy)
        finally:
            os.close(copy)
    finally:
        os.close(source)


def remove(folder: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        pass


def remove_tree(folder: int, name: str) -> None:
    """Remove ``name`` in ``folder`` and everything below it, never following a symlink
    (``shutil.rmtree`` with a descriptor is the symlink-attack-safe variant)."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        remove(folder, name)
        return
    shutil.rmtree(name, dir_fd=folder)


def sync(folder: int) -> None:
    """Flush a folder's entries (a rename is durable only once its folder is)."""
    try:
        os.fsync(folder)
    except OSError:
        pass


def refuse(what: str, path: str, error: OSError, verb: str = "write") -> OutputError:
    """The one line for a folder the run cannot use (read-only, full, not permitted)."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    reason = error.strerror or str(error)
    return OutputError(
        f"cannot {verb} the {what} {path}: the folder {folder} refuses it ({reason}); choose a folder you can write"
    )


def _renameat2(source: int, name: str, folder: int, target: str) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    try:
        call = _libc.renameat2
    except AttributeError:  # a C library without it (glibc before 2.28, musl before 1.2.4)
        raise OSError(errno.ENOSYS, "renameat2 is not available") from None
    if call(source, os.fsencode(name), folder, os.fsencode(target), _RENAME_NOREPLACE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), target)
