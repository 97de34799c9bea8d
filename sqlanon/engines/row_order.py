"""The order of the released rows (``[output] order`` and ``seed``).

The input's order is a leak: whoever knows in which order the records were collected (admission
time, file order) links the released rows back to them (ARX fixed the same in 3.9.1). So every
engine releases the rows in a uniformly random order by default, drawn so that nothing released
can recompute it:

* each write draws a key of 256 bits from ``secrets`` (the operating system's CSPRNG); it is
  bound as a query parameter and dropped after the write: it is in no SQL text, report,
  manifest or HTML page;
* a SQL engine sorts the rows by the first 60 bits of SHA-256(key, the row's input position as
  text), as a BIGINT, then by the position (``compiler.shuffle_order``): a keyed hash, so
  without the key the order is indistinguishable from a uniformly random permutation (but for
  rows whose 60 bits coincide, 0.004 pairs on average at 100 M rows, which keep their input
  order), the same on DuckDB, PostgreSQL and Spark and on every number of threads;
* the in-memory engine sorts the positions by 64-bit keys read from SHAKE-256(key) (hashing
  each row in Python would cost a microsecond a row; ``permutation``).

Not DuckDB's ``random()`` or ``setseed``: pcg32 generators, which are not cryptographic (their
state follows from enough of their outputs) and are seeded per thread, so a seed reproduces no
order once a query runs on several threads. ``seed`` derives the key from its number instead,
for reproducible tests and comparisons: anyone who knows the seed can recompute the order, and
the report states it.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np

from sqlanon.core.specs import Output

#: rows per SHAKE-256 stream of ``permutation`` (CPython caps one digest below 2^29 bytes)
CHUNK = 1 << 24


def order_key(output: Output) -> str | None:
    """The key of the released order, as 64 hex digits: None for ``order = "input"``; from
    the seed when one is given; else drawn afresh (never stored: the caller holds it for one
    write)."""
    if output.order == "input":
        return None
    if output.seed is None:
        return secrets.token_hex(32)
    return hashlib.sha256(f"sqlanon release order, seed {output.seed}".encode("ascii")).hexdigest()


def permutation(rows: int, key: str) -> np.ndarray:
    """The released position of every row: ``range(rows)`` sorted by 64-bit keys read from
    SHAKE-256 streams of ``key`` (one per ``CHUNK`` rows), a uniformly random permutation that
    the key alone reproduces.

    >>> sorted(permutation(5, "k").tolist()) == [0, 1, 2, 3, 4]
    True
    >>> again, other = permutation(1000, "k") == permutation(1000, "k"), permutation(1000, "k") == permutation(1000, "l")
    >>> bool(again.all()), bool(other.all())
    (True, False)
    """
    parts = [
        np.frombuffer(hashlib.shake_256(f"{key}:{i}".encode("ascii")).digest(8 * min(CHUNK, rows - start)), "<u8")
        for i, start in enumerate(range(0, rows, CHUNK))
    ]
    keys = np.concatenate(parts) if parts else np.zeros(0, np.uint64)
    return np.argsort(keys, kind="stable")
