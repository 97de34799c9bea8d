"""Per-class figures of the sensitive histograms held as pairs, compiled (numba) as one loop
over each class's values: a class's histogram is its (value code ``v``, count ``f``, share)
pairs from ``bounds[c]`` to ``bounds[c + 1]``, ascending by code.

* Recursive (c,l)-diversity: a class's largest count and the sum of its counts from rank l
  on (ranks by count, descending), which is the total minus the l - 1 largest counts.
* Equal-distance t-closeness: half of the sum of |p - q|, plus the mass of the values a class
  lacks.
* The histograms of merged classes (``regroup_histograms``), a pass linear in the pairs.

numpy reaches these only by sorting or dense matrices; with thousands of checks of a few
thousand classes each, the calls, not the arithmetic, were the cost (about 1 ms a check). The
hierarchical distance is ``histogram_emd.py``'s; the same figures over a small domain's count
matrix are ``histogram_dense.py``'s.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def pair_arrays(classes, pairs):  # pragma: no cover - compiled
    """Empty (bounds, v, f, share) arrays for ``classes`` classes holding ``pairs`` pairs in
    all: the layout every histogram as pairs comes in."""
    return (
        np.empty(classes + 1, np.int64),
        np.empty(pairs, np.int64),
        np.empty(pairs, np.int64),
        np.empty(pairs, np.float64),
    )


@numba.njit(cache=True, nogil=True)
def recursive(starts, counts, l):  # pragma: no cover - compiled
    """Per class: (largest count, sum of the counts ranked l and below, distinct values)."""
    classes = starts.shape[0] - 1
    top = np.zeros(classes, np.int64)
    tail = np.zeros(classes, np.int64)
    distinct = np.zeros(classes, np.int64)
    best = np.zeros(max(l - 1, 1), np.int64)  # the l - 1 largest counts, descending
    for c in range(classes):
        kept, total = 0, 0
        for i in range(starts[c], starts[c + 1]):
            x = counts[i]
            total += x
            if x > top[c]:
                top[c] = x
            # insert x among the l - 1 largest
            j = kept if kept < l - 1 else l - 2
            if j >= 0 and (kept < l - 1 or x > best[j]):
                while j > 0 and best[j - 1] < x:
                    best[j] = best[j - 1]
                    j -= 1
                best[j] = x
                if kept < l - 1:
                    kept += 1
        head = 0
        for i in range(kept):
            head += best[i]
        tail[c] = total - head
        distinct[c] = starts[c + 1] - starts[c]
    return top, tail, distinct


@numba.njit(cache=True, nogil=True)
def regroup_histograms(bounds, v, f, inverse, groups, values, n):  # pragma: no cover - compiled
    """The sensitive histograms of ``groups`` classes that merge source classes: source class
    r (its pairs ``bounds[r]:bounds[r + 1]`` of value codes ``v`` and counts ``f``, every
    count > 0) joins class ``inverse[r]``. Returns the classes' (bounds, v, f, share = f / n
    of the class), each class's values in ascending code order.

    A counting sort of the source classes by class, then per class one pass over its pairs
    into a counter per value: linear in the pairs (plus the values a class holds, sorted by
    insertion while they are few beside the domain, by a scan of the counters otherwise),
    where regrouping the (class, value) pairs as rows costs a hash pass over all of them."""
    sources = inverse.shape[0]
    start = np.zeros(groups + 1, np.int64)
    for r in range(sources):
        start[inverse[r] + 1] += 1
    for g in range(groups):
        start[g + 1] += start[g]
    fill = start[:groups].copy()
    order = np.empty(sources, np.int64)
    for r in range(sources):
        order[fill[inverse[r]]] = r
        fill[inverse[r]] += 1
    acc = np.zeros(values, np.int64)
    held = np.empty(values, np.int64)
    pairs = v.shape[0]
    out_bounds, out_v, out_f, out_share = pair_arrays(groups, pairs)
    at = 0
    for g in range(groups):
        out_bounds[g] = at
        k = 0
        for i in range(start[g], start[g + 1]):
            r = order[i]
            for p in range(bounds[r], bounds[r + 1]):
                x = v[p]
                if acc[x] == 0:
                    held[k] = x
                    k += 1
                acc[x] += f[p]
        size = np.float64(n[g])
        if k * k > values:
            for x in range(values):
                if acc[x] != 0:
                    out_v[at] = x
                    out_f[at] = acc[x]
                    out_share[at] = np.float64(acc[x]) / size
                    acc[x] = 0
                    at += 1
        else:
            for a in range(1, k):  # insertion sort: a class holds few values
                x = held[a]
                b = a - 1
                while b >= 0 and held[b] > x:
                    held[b + 1] = held[b]
                    b -= 1
                held[b + 1] = x
            for a in range(k):
                x = held[a]
                out_v[at] = x
                out_f[at] = acc[x]
                out_share[at] = np.float64(acc[x]) / size
                acc[x] = 0
                at += 1
    out_bounds[groups] = at
    return out_bounds, out_v[:at], out_f[:at], out_share[:at]


@numba.njit(cache=True, nogil=True)
def equal_distance(bounds, v, share, q):  # pragma: no cover - compiled
    """Per class, t-closeness's equal-distance EMD: half of (the sum over its values of
    |p - q| plus the mass q of the values it lacks). Summed in the class's value order, as
    numpy's ``bincount`` sums, so both give the same doubles."""
    classes = bounds.shape[0] - 1
    result = np.empty(classes)
    for c in range(classes):
        gap = 0.0
        held = 0.0
        for i in range(bounds[c], bounds[c + 1]):
            gap += abs(share[i] - q[v[i]])
            held += q[v[i]]
        result[c] = 0.5 * (gap + (1 - held))
    return result
