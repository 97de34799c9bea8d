"""Grouping code columns: the one data-proportional loop of a check in process.

A check regroups a class table at a coarser node: every QI code column is mapped through its
hierarchy (``up`` arrays), the columns are combined into one mixed-radix integer key, and the
rows are summed per key. In numpy that is a dozen passes over the table (a gather, a multiply
and an add per column, then a sort or a dense count over the key space), each paying its call
overhead; here it is one compiled pass (numba) that maps, combines and hashes each row, and
one pass that sums — a few microseconds for the ADULT tables a search regroups thousands of
times. The groups' codes (each group's first row, mapped) are a pass of their own
(``gather``): a check needs only the sizes to reach its verdict, and its codes only when its
table is kept as a snapshot, which an anonymous node's never is.

The groups come out in key order (the lexicographic order of their codes), as ``np.unique``
gives them, or for a check (``ordered=False``) in whichever order the pass found them. The
kernel's ``Grouper`` keeps the pass's scratch table between checks, resetting only the slots
a check used.

Keys that would overflow int64 (a product of the radices >= 2**62: many QIs with large
domains) fall back to ``np.unique`` over the stacked columns.

numba compiles on first use and caches the machine code beside this file (``cache=True``), so
the compile (about 2 s) is paid once per installation, not per run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

import numba
import numpy as np

OVERFLOW = 2**62

K = TypeVar("K", bound=Hashable)  # a map's key (the kernel's: QI and levels)


@numba.njit(cache=True, nogil=True)
def _keys(columns, maps, offsets, radices):  # pragma: no cover - compiled
    """Each row's mixed-radix key over its mapped codes (offset -1: the column as it is). A
    column of radix 1 holds code 0 only and adds nothing (a QI at its top, about a third of a
    search's columns); a column taken as it is needs no gather, so it runs its own loop."""
    m, rows = columns.shape
    key = np.zeros(rows, np.int64)
    for j in range(m):
        radix, offset = radices[j], offsets[j]
        if radix == 1:
            continue
        if offset >= 0:
            for r in range(rows):
                key[r] = key[r] * radix + maps[offset + columns[j, r]]
        else:
            for r in range(rows):
                key[r] = key[r] * radix + columns[j, r]
    return key


@numba.njit(cache=True, nogil=True)
def _group(matrix, maps, offsets, radices, space, weights, slots):  # pragma: no cover - compiled
    """One regrouping: (each group's first row, each row's group, the groups' sums of
    ``weights``, the groups' keys — empty when the groups are already in ascending key order).
    The groups' codes are the mapped codes of their first rows (``_gather``), left to the
    caller: a check whose table nobody keeps never needs them.

    A dense table over the key space while the space is small beside the rows (groups in key
    order), an open-addressing hash table otherwise (groups in order of appearance; Fibonacci
    hashing over a power-of-two table at most half full, a (key, group) pair per slot).
    ``slots`` is scratch that is all -1 on entry and is left so: only the slots used are reset,
    so a caller that keeps it pays for the rows, not for clearing a table per call."""
    key = _keys(matrix, maps, offsets, radices)
    rows = key.shape[0]
    inverse = np.empty(rows, np.int64)
    first = np.empty(rows, np.int64)
    count = 0
    if space <= 2 * rows + 1024:
        for r in range(rows):
            if slots[key[r]] == -1:
                slots[key[r]] = r
        for k in range(space):
            if slots[k] != -1:
                first[count] = slots[k]
                slots[k] = count
                count += 1
        sums = np.zeros(count, weights.dtype)
        for r in range(rows):
            g = slots[key[r]]
            inverse[r] = g
            sums[g] += weights[r]
        for g in range(count):
            slots[key[first[g]]] = -1
        keys = np.empty(0, np.int64)
    else:
        capacity, bits = 1, 0
        while capacity < 2 * rows:
            capacity *= 2
            bits += 1
        shift = np.uint64(64 - bits)
        golden = np.uint64(0x9E3779B97F4A7C15)
        mask = capacity - 1
        used = np.empty(rows, np.int64)
        sums = np.zeros(rows, weights.dtype)
        for r in range(rows):
            k = key[r]
            h = np.int64((np.uint64(k) * golden) >> shift)  # the product's top bits
            while slots[2 * h] != -1 and slots[2 * h] != k:
                h = (h + 1) & mask
            if slots[2 * h] == -1:
                slots[2 * h] = k
                slots[2 * h + 1] = count
                used[count] = h
                first[count] = r
                count += 1
            g = slots[2 * h + 1]
            inverse[r] = g
            sums[g] += weights[r]
        keys = np.empty(count, np.int64)
        for g in range(count):
            keys[g] = slots[2 * used[g]]
            slots[2 * used[g]] = -1
            slots[2 * used[g] + 1] = -1
        sums = sums[:count]
    return first[:count], inverse, sums, keys


@numba.njit(cache=True, nogil=True)
def _gather(matrix, maps, offsets, first):  # pragma: no cover - compiled
    """The groups' codes: row ``first[g]``'s codes, each mapped through its column's map."""
    m, count = matrix.shape[0], first.shape[0]
    out = np.empty((m, count), matrix.dtype)  # the caller chose the codes' width
    for j in range(m):
        offset = offsets[j]
        if offset >= 0:
            for g in range(count):
                out[j, g] = maps[offset + matrix[j, first[g]]]
        else:
            for g in range(count):
                out[j, g] = matrix[j, first[g]]
    return out


def scratch_size(rows: int) -> int:
    """Slots ``_group`` may touch for a table of ``rows`` rows: the dense space (at most
    2 rows + 1024) or the hash table's (key, group) pairs (at most 4 rows)."""
    return max(8 * rows, 2 * rows + 1024)


@numba.njit(cache=True, nogil=True)
def _sum(inverse, values, out):  # pragma: no cover - compiled
    for r in range(inverse.shape[0]):
        out[inverse[r]] += values[r]
    return out


def group(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[list[np.ndarray], np.ndarray]:
    """Distinct rows of the code columns, sorted lexicographically, and each row's group."""
    if not columns:
        return [], np.zeros(0, np.int64)
    matrix = np.ascontiguousarray(np.stack([np.asarray(c, np.int64) for c in columns]))
    distinct, inverse = regroup(matrix, radices, np.zeros(1, np.int64), np.full(len(columns), -1, np.int64))
    return list(distinct), inverse


class Maps(Generic[K]):
    """Code maps laid end to end in one array, each found by its key, so a compiled loop takes
    any subset of them by offset: built once per kernel, not per check. With ``build``, a key
    not given is built when ``offsets`` first names it and appended (the array grows by
    doubling; offsets already handed out stay valid, and ``values`` read before still holds
    them): a 5,001-level hierarchy has 12.5 M pairs of levels, a search reads a few of them."""

    def __init__(self, maps: dict[K, np.ndarray], build: Callable[[K], np.ndarray] | None = None):
        self.starts: dict[K, int] = {}
        self._build = build
        parts = [np.asarray(values, np.int64) for values in maps.values()]
        at = 0
        for key, part in zip(maps, parts):
            self.starts[key] = at
            at += len(part)
        self._buffer = np.concatenate(parts) if parts else np.zeros(1, np.int64)
        self._end = at

    @property
    def values(self) -> np.ndarray:
        """Every map built so far, end to end (one zero when there is none)."""
        return self._buffer[: self._end] if self._end else self._buffer[:1]

    def offsets(self, chosen: Sequence[K | None]) -> np.ndarray:
        """Per column, the start of the map keyed ``chosen[j]`` (None: the column as it is)."""
        return np.array([-1 if key is None else self._start(key) for key in chosen], np.int64)

    def _start(self, key: K) -> int:
        start = self.starts.get(key)
        if start is not None:
            return start
        if self._build is None:
            raise KeyError(key)
        part = np.asarray(self._build(key), np.int64)
        end = self._end + len(part)
        if end > len(self._buffer):
            grown = np.zeros(max(2 * len(self._buffer), end), np.int64)
            grown[: self._end] = self._buffer[: self._end]
            self._buffer = grown
        self._buffer[self._end : end] = part
        self.starts[key], self._end = self._end, end
        return self.starts[key]


class Grouper:
    """``regroup`` with its scratch table kept between calls (a kernel's: one per base table),
    so a check pays for its rows and not for clearing a table the size of the largest one."""

    def __init__(self, rows: int = 0):
        self.slots = np.full(scratch_size(rows), -1, np.int64)
        self._shapes: dict[tuple, tuple[int, np.ndarray]] = {}  # per radices: the key space, the radix array

    def regroup(
        self,
        matrix: np.ndarray,
        radices: Sequence[int],
        maps: np.ndarray,
        offsets: np.ndarray,
        weights: np.ndarray,
        ordered: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(distinct rows, each row's group, ``weights`` summed per group): see ``regroup``."""
        first, inverse, sums = self.group(matrix, radices, maps, offsets, weights, ordered)
        return gather(matrix, maps, offsets, first), inverse, sums

    def group(
        self,
        matrix: np.ndarray,
        radices: Sequence[int],
        maps: np.ndarray,
        offsets: np.ndarray,
        weights: np.ndarray,
        ordered: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As ``regroup``, each group's first row instead of its codes (``gather`` makes them)."""
        shape = self._shapes.get(radices) if isinstance(radices, tuple) else None
        if shape is None:
            shape = (math.prod(max(r, 1) for r in radices), np.array([max(r, 1) for r in radices], np.int64))
            if isinstance(radices, tuple):
                if len(self._shapes) >= 1 << 16:
                    self._shapes.clear()
                self._shapes[radices] = shape
        space, radix = shape
        if space >= OVERFLOW:
            first, inverse = _unique(matrix, maps, offsets)
            return first, inverse, total(inverse, weights, len(first))
        rows = matrix.shape[1]
        if len(self.slots) < scratch_size(rows):
            self.slots = np.full(scratch_size(rows), -1, np.int64)
        first, inverse, sums, keys = _group(matrix, maps, offsets, radix, space, weights, self.slots)
        if ordered and len(keys):
            # numpy's sort (SIMD) beats a compiled one several times over
            order = np.argsort(keys)
            rank = np.empty(len(order), np.int64)
            rank[order] = np.arange(len(order))
            first, inverse, sums = first[order], rank[inverse], sums[order]
        return first, inverse, sums


def gather(matrix: np.ndarray, maps: np.ndarray, offsets: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The codes of the groups whose first rows are ``first`` (from ``Grouper.group``), as a
    (columns x groups) matrix of ``matrix``'s type."""
    return _gather(matrix, maps, offsets, first)


def _unique(matrix: np.ndarray, maps: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The int64-overflow fallback: ``np.unique`` over the mapped rows (each distinct row's
    first occurrence, each row's group)."""
    mapped = np.stack([column if o < 0 else maps[o + column] for column, o in zip(matrix, offsets)], axis=1)
    _, first, inverse = np.unique(mapped, axis=0, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.ravel().astype(np.int64)


def regroup(
    matrix: np.ndarray, radices: Sequence[int], maps: np.ndarray, offsets: np.ndarray, ordered: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``group`` over a (columns x rows) int64 matrix, the distinct rows as a (columns x groups)
    matrix, column j first mapped through ``maps[offsets[j]:]`` (offset -1:
    as it is). Unless ``ordered``, the groups may come in any order (a check's verdicts do not
    depend on it, and sorting the groups is the dearest step of a regrouping): in key order
    when the dense table served, else in order of first appearance."""
    out, inverse, _ = Grouper(matrix.shape[1]).regroup(
        matrix, radices, maps, offsets, np.zeros(matrix.shape[1], np.int64), ordered
    )
    return out, inverse


def total(inverse: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """``values`` summed per group (int64 for integer values, float64 otherwise)."""
    out = np.zeros(groups, np.int64 if np.issubdtype(values.dtype, np.integer) else np.float64)
    return _sum(inverse, values.astype(out.dtype, copy=False), out)


@numba.njit(cache=True, nogil=True)
def summary(n, kept):  # pragma: no cover - compiled
    """One pass over a node's classes for the figures every check reports: (kept classes,
    suppressed rows, smallest kept class or -1, sum of kept squares, sum of all squares,
    smallest class or -1, kept classes of one row)."""
    kept_classes = suppressed = dm_kept = dm_all = uniques = 0
    min_kept = min_class = -1
    for c in range(n.shape[0]):
        size = n[c]
        dm_all += size * size
        if min_class == -1 or size < min_class:
            min_class = size
        if kept[c]:
            kept_classes += 1
            dm_kept += size * size
            if min_kept == -1 or size < min_kept:
                min_kept = size
            if size == 1:
                uniques += 1
        else:
            suppressed += size
    return kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class, uniques


@numba.njit(cache=True, nogil=True)
def weighted_sums(matrix, n, kept, maps, offsets):  # pragma: no cover - compiled
    """Per column j: the sum over kept groups of n * maps[offsets[j] + code] (the loss
    metric's rows under each kept class's value, per QI)."""
    m = matrix.shape[0]
    out = np.zeros(m, np.int64)
    weight = np.empty(n.shape[0], np.int64)
    for g in range(n.shape[0]):
        weight[g] = n[g] if kept[g] else 0  # no branch on the verdict in the loops below
    for j in range(m):
        offset, acc = offsets[j], 0
        for g in range(n.shape[0]):
            acc += weight[g] * maps[offset + matrix[j, g]]
        out[j] = acc
    return out


def warm() -> None:
    """Load every compiled function (compiling it on the first run after an installation):
    about 0.4 s of LLVM set-up per process, which a session pays in a background thread while
    its engine reads the input (the database releases the GIL), not before its first check.
    Any failure here is left to the first real call, which reports it where it matters."""
    try:
        _warm()
    except Exception:  # noqa: BLE001 - see above
        pass


def _warm() -> None:
    for codes in (np.int64, np.int32):  # the kernel's codes are int32 unless a domain is too wide
        matrix = np.zeros((1, 2), codes)
        for weights in (np.ones(2, np.int64), np.ones(2, np.float64)):
            for radix in (1, 1 << 12):  # the dense table, the hash table
                Grouper(2).regroup(matrix, [radix], np.zeros(1, np.int64), np.array([-1], np.int64), weights, False)
        weighted_sums(matrix, np.ones(2, np.int64), np.ones(2, bool), np.zeros(1, np.int64), np.zeros(1, np.int64))
        total(np.zeros(2, codes), np.ones(2, np.int64), 1)  # a suppressed class's codes, summed per code
    total(np.zeros(2, np.int64), np.ones(2, np.int64), 1)
    total(np.zeros(2, np.int64), np.ones(2, np.float64), 1)
    summary(np.ones(2, np.int64), np.ones(2, bool))
