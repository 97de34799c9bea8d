"""Dense histograms: a (classes x values) count matrix and a bit mask of the values each class
holds, for a small sensitive domain (at most 64 values; ADULT's occupation: 14), compiled (numba).

A class's histogram as a row of int32 counts costs about what its (value, count, share) pairs
cost (``histogram_pairs.py``), and merging classes becomes a row added to a row (contiguous,
vectorised) and a mask or-ed into a mask, instead of a counting sort and a per-class pass over
scattered pairs. The figures visit a class's values through its mask (lowest bit first:
ascending codes, counts > 0), the values its pairs would hold in their order, computing each
share as ``regroup_histograms`` does, so they return the same doubles as their versions over
pairs; scanning the whole row instead costs a division or a mispredicted branch per cell, most
of them empty.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from sqlanon.kernel.histogram_pairs import pair_arrays


@numba.njit(cache=True, nogil=True, inline="always")
def lowest_bit(m):  # pragma: no cover - compiled
    """The position of the lowest set bit of a nonzero uint64, by halving: what the mask
    loops use when numba's ``trailing_zeros`` intrinsic is not where this numba keeps it."""
    x = 0
    for width in (32, 16, 8, 4, 2, 1):
        low = m & ((np.uint64(1) << np.uint64(width)) - np.uint64(1))
        if low == 0:
            m >>= np.uint64(width)
            x += width
    return x


#: an intrinsic or a jitted function, callable in compiled code only (the intrinsic's Python
#: signature is its typing's), so no Python callable type covers both
trailing_zeros: Any
try:  # one instruction (cttz); a semi-internal module of numba, so lowest_bit stands in
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError:  # pragma: no cover - another numba
    trailing_zeros = lowest_bit


@numba.njit(cache=True, nogil=True)
def merge_dense(counts, held, inverse, groups):  # pragma: no cover - compiled
    """Row r of ``counts`` added into row ``inverse[r]`` of a (groups x values) matrix, and
    mask ``held[r]`` or-ed into mask ``inverse[r]``."""
    values = counts.shape[1]
    out = np.zeros((groups, values), counts.dtype)
    mask = np.zeros(groups, np.uint64)
    for r in range(inverse.shape[0]):
        g = inverse[r]
        mask[g] |= held[r]
        for x in range(values):
            out[g, x] += counts[r, x]
    return out, mask


@numba.njit(cache=True, nogil=True)
def dense_masks(counts):  # pragma: no cover - compiled
    """Per row of a (classes x values <= 64) count matrix, the bit mask of its cells > 0."""
    classes, values = counts.shape
    held = np.zeros(classes, np.uint64)
    for c in range(classes):
        m = np.uint64(0)
        for x in range(values):
            if counts[c, x] != 0:
                m |= np.uint64(1) << np.uint64(x)
        held[c] = m
    return held


@numba.njit(cache=True, nogil=True)
def dense_pairs(counts, held, n):  # pragma: no cover - compiled
    """The pairs of a dense histogram, as ``regroup_histograms`` returns them: (bounds, v, f,
    share = f / n of the class), each class's values in ascending code order, counts > 0."""
    classes = counts.shape[0]
    pairs = 0
    for c in range(classes):
        m = held[c]
        while m:
            m &= m - np.uint64(1)
            pairs += 1
    bounds, v, f, share = pair_arrays(classes, pairs)
    at = 0
    for c in range(classes):
        bounds[c] = at
        size = np.float64(n[c])
        m = held[c]
        while m:
            x = trailing_zeros(m)
            m &= m - np.uint64(1)
            k = counts[c, x]
            v[at] = x
            f[at] = k
            share[at] = np.float64(k) / size
            at += 1
    bounds[classes] = at
    return bounds, v, f, share


@numba.njit(cache=True, nogil=True)
def recursive_dense(counts, held, l):  # pragma: no cover - compiled
    """``recursive`` over a dense histogram: per class (largest count, sum of the counts
    ranked l and below, distinct values), keeping only the l - 1 largest counts: each count
    passes down a descending list of them by ``max``/``min``, no branch, no sort. For l <= 3,
    the common case, the list is two registers: a loop of its own on purpose, the general
    loop's list in memory is a load and a store per count."""
    classes = counts.shape[0]
    top = np.zeros(classes, np.int64)
    tail = np.zeros(classes, np.int64)
    distinct = np.zeros(classes, np.int64)
    head = max(l - 1, 0)
    best = np.zeros(max(head, 1), np.int64)
    one = np.uint64(1)
    for c in range(classes):
        total, high, values, kept = 0, 0, 0, 0
        m = held[c]
        if head <= 2:
            b0, b1 = 0, 0
            while m:
                x = np.int64(counts[c, trailing_zeros(m)])
                m &= m - one
                values += 1
                total += x
                high = max(high, x)
                b1 = max(b1, min(b0, x))
                b0 = max(b0, x)
            kept = (b0 if head >= 1 else 0) + (b1 if head == 2 else 0)
        else:
            for j in range(head):
                best[j] = 0
            while m:
                x = np.int64(counts[c, trailing_zeros(m)])
                m &= m - one
                values += 1
                total += x
                high = max(high, x)
                for j in range(head):
                    b = best[j]
                    best[j] = max(b, x)
                    x = min(b, x)
            for j in range(head):
                kept += best[j]
        top[c] = high
        tail[c] = total - kept
        distinct[c] = values
    return top, tail, distinct


@numba.njit(cache=True, nogil=True)
def equal_dense(counts, held, n, q):  # pragma: no cover - compiled
    """``equal_distance`` over a dense histogram (the same doubles)."""
    classes = counts.shape[0]
    result = np.empty(classes)
    for c in range(classes):
        size = np.float64(n[c])
        gap = 0.0
        mass = 0.0
        m = held[c]
        while m:
            x = trailing_zeros(m)
            m &= m - np.uint64(1)
            gap += abs(np.float64(counts[c, x]) / size - q[x])
            mass += q[x]
        result[c] = 0.5 * (gap + (1 - mass))
    return result
