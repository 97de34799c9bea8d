"""The files sqlanon reads, checked before anything opens them: a regular file only, and a file
read whole into memory (the job, a manifest, a hierarchy) within a stated size.

A named pipe blocks the ``open`` until a writer comes (forever, for a run), and a device such
as ``/dev/zero`` never ends: both are refused by ``os.stat`` before any open. The job and a
manifest must be UTF-8 text (a byte-order mark is skipped); one saved as UTF-16 or a binary
file is said to be so, never handed to a parser as garbage.

A leaf module (it imports only ``sqlanon.errors``), so that the job, the hierarchies and the
engines all use it.
"""

from __future__ import annotations

import codecs
import glob
import os
import stat

from sqlanon.errors import DataError, SqlanonError

MIB = 1 << 20
#: the largest job file read (a TOML job is a few KiB; 10 MiB is no job)
JOB_LIMIT = 10 * MIB
#: the largest manifest (report.json) read; the demo's is 12 KiB
MANIFEST_LIMIT = 64 * MIB
#: the largest hierarchy file read: one row per distinct value, held in memory as Python strings
HIERARCHY_LIMIT = 512 * MIB

#: how paths in a job are read, said beside a file that is not found
RELATIVE = " (paths in a job file are relative to the job file)"
#: what to do with a pipe, a device or a socket
_NOT_REGULAR_FIX = (
    "sqlanon reads regular files only (a pipe or a device can block or never end): "
    "save the content to a file and give that file's path"
)

#: a file swapped for a pipe after the check must not block the open (POSIX has O_NONBLOCK)
_READ_FLAGS = os.O_RDONLY | (os.O_NONBLOCK if os.name == "posix" else 0)

#: the first bytes of compressed files, and the command that writes one's content to stdout
MAGIC = (
    (b"\x1f\x8b", "gzip", "gunzip -c"),
    (b"PK\x03\x04", "zip", "unzip -p"),
    (b"PK\x05\x06", "zip", "unzip -p"),
    (b"BZh", "bzip2", "bunzip2 -c"),
    (b"\xfd7zXZ\x00", "xz", "unxz -c"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd -c"),
)


def not_regular(path: str, mode: int) -> str:
    """What the file ``path`` of ``mode`` is when it is not a regular file, and what to do."""
    if stat.S_ISDIR(mode):
        return f"{path} is a folder; give the path of a file in it"
    for test, named in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return f"{path} is {named}; {_NOT_REGULAR_FIX}"
    return f"{path} is not a regular file; {_NOT_REGULAR_FIX}"


def regular_file(path: str, what: str, error: type[SqlanonError], missing: str | None = None) -> int:
    """The size of ``path``, a regular file (a symlink to one is one), checked without opening
    it. ``what`` names it in the messages ("input file", "hierarchy file for attribute 'age'");
    ``missing``: the whole message when it does not exist (default: "<what> not found: <path>")."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        raise error(missing or f"{what} not found: {path}{RELATIVE}") from None
    except OSError as failure:
        raise error(f"cannot read {what} {path}: {failure.strerror or failure}") from None
    if not stat.S_ISREG(found.st_mode):
        raise error(f"{what} is not a regular file: {not_regular(path, found.st_mode)}")
    return found.st_size


def read_limited(
    path: str, what: str, limit: int, error: type[SqlanonError], fix: str, missing: str | None = None
) -> bytes:
    """The bytes of the regular file ``path``, refused beyond ``limit`` bytes (``fix``: what to do
    then). Opened without blocking and checked again once open, so a file swapped for a pipe
    after the check is refused too; never more than ``limit`` + 1 bytes are read."""
    size = regular_file(path, what, error, missing)
    if size > limit:
        raise _too_large(path, what, size, limit, error, fix)
    try:
        descriptor = os.open(path, _READ_FLAGS)
        with os.fdopen(descriptor, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise error(f"{what} is not a regular file: {not_regular(path, mode)}")
            data = handle.read(limit + 1)
    except OSError as failure:
        raise error(f"cannot read {what} {path}: {failure.strerror or failure}") from None
    if len(data) > limit:  # it grew after the check
        raise _too_large(path, what, len(data), limit, error, fix)
    return data


def _too_large(path: str, what: str, size: int, limit: int, error: type[SqlanonError], fix: str) -> SqlanonError:
    most = f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit:,} bytes"
    return error(f"{what} {path} is too large: {size:,} bytes, more than the {most} sqlanon reads for one; {fix}")


def utf8_text(data: bytes, what: str, path: str, error: type[SqlanonError]) -> str:
    """``data`` (the file ``path``) as UTF-8 text, a leading byte-order mark dropped. Text in
    another encoding or a binary file is refused with what it looks like: UTF-16 (with or
    without a byte-order mark), compressed, or the first byte that is not UTF-8."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    looks = _not_utf8(data)
    if looks is None:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as failure:
            line, column = _position(data, failure.start)
            looks = f"byte 0x{data[failure.start]:02x} at line {line}, column {column} is not UTF-8"
    raise error(f"the {what} {path} is not UTF-8 text ({looks}): save it as UTF-8")


def _not_utf8(data: bytes) -> str | None:
    """What ``data`` is when it is plainly not UTF-8 text, else None."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "UTF-32: it starts with a UTF-32 byte-order mark"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "UTF-16: it starts with a UTF-16 byte-order mark"
    packed = compression(data)
    if packed is not None:
        return f"{packed[0]}-compressed data"
    nul = data.find(b"\x00")
    if nul < 0:
        return None
    head = data[:64]
    if len(head) >= 2 and (head[1::2].count(0) == len(head[1::2]) or head[0::2].count(0) == len(head[0::2])):
        return "UTF-16 without a byte-order mark: every other byte is 0"
    line, column = _position(data, nul)
    return f"binary: a NUL byte at line {line}, column {column}"


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """(line, column) of byte ``offset``, both from 1."""
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def compression(head: bytes) -> tuple[str, str] | None:
    """(format, the command that decompresses it to stdout) when ``head``, a file's first bytes, starts as a
    compressed file does, else None."""
    for magic, named, tool in MAGIC:
        if head.startswith(magic):
            return named, tool
    return None


def input_files(kind: str, path: str, folders: bool = False) -> list[str]:
    """The files of an input: a CSV or DuckDB file, or every file a Parquet glob matches (sorted),
    each a regular file (``folders``: a Parquet folder counts, for Spark, which reads one)."""
    if kind != "parquet":
        regular_file(path, "input file", DataError)
        return [path]
    matches = sorted(glob.glob(path))
    if not matches:
        raise DataError(f"no Parquet file matches {path}")
    for member in matches:
        if not (folders and os.path.isdir(member)):
            regular_file(member, "input file", DataError)
    return matches
