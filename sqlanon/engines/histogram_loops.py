"""Per-class figures of the sensitive histograms that numpy can only reach by sorting or
dense matrices, compiled (numba) as one loop over each class's values.

* Hierarchical earth mover's distance (t-closeness with ``distance = "hierarchical"``, Li et
  al. 2007): per class, one pass over the domain's values per hierarchy level.
* Recursive (c,l)-diversity: a class's largest count and the sum of its counts from rank l
  on (ranks by count, descending), which is the total minus the l - 1 largest counts.

The SQL of ``sqlanon/criteria/t_closeness.py`` and numpy both need a dense (classes x values)
matrix and a handful of reductions per level; with thousands of checks of a few thousand
classes each, the calls, not the arithmetic, were the cost (about 1 ms a check). Same
definition: for each level l >= 1 with weight l / height, the children are the (a_(l-1), a_l)
pairs; a child's extra is the sum of p - q over its values; each parent moves the smaller of
its children's positive and negative extras.
"""

from __future__ import annotations

import numba
import numpy as np


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


try:  # one instruction (cttz); a semi-internal module of numba, so lowest_bit stands in
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError:  # pragma: no cover - another numba
    trailing_zeros = lowest_bit


class Tree:
    """The sensitive hierarchy as arrays: per level, each value's child, each child's parent."""

    def __init__(self, ancestors: list[np.ndarray]):
        height = len(ancestors) - 1
        values = len(ancestors[0])
        children, parents, self.weights = [], [], np.array([l / height for l in range(1, height + 1)], np.float64)
        for level in range(1, height + 1):
            pairs, child = np.unique(np.stack([ancestors[level - 1], ancestors[level]], axis=1), axis=0, return_inverse=True)
            children.append(child.ravel())
            parents.append(np.unique(pairs[:, 1], return_inverse=True)[1].ravel())
        widest = max((len(p) for p in parents), default=0)
        self.child = np.stack(children) if children else np.zeros((0, values), np.int64)
        self.parent = np.zeros((height, max(widest, 1)), np.int64)
        self.children = np.array([len(p) for p in parents], np.int64)
        self.parents = np.array([p.max() + 1 if len(p) else 0 for p in parents], np.int64)
        for l, p in enumerate(parents):
            self.parent[l, :len(p)] = p
        # for the dense pass: per level, each child's values and each parent's children in
        # ascending order, as rows of (bounds, members)
        self.child_bounds = np.zeros((height, values + 1), np.int64)
        self.child_values = np.zeros((height, values), np.int64)
        self.parent_bounds = np.zeros((height, values + 1), np.int64)
        self.parent_children = np.zeros((height, values), np.int64)
        for l in range(height):
            order = np.argsort(self.child[l], kind="stable")
            self.child_values[l] = order
            self.child_bounds[l, :self.children[l] + 1] = np.searchsorted(self.child[l][order],
                                                                          np.arange(self.children[l] + 1))
            up = self.parent[l, :self.children[l]]
            order = np.argsort(up, kind="stable")
            self.parent_children[l, :len(order)] = order
            self.parent_bounds[l, :self.parents[l] + 1] = np.searchsorted(up[order], np.arange(self.parents[l] + 1))

    def distances(self, starts: np.ndarray, v: np.ndarray, share: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Per class (its histogram is ``v``/``share`` from ``starts[c]`` to ``starts[c + 1]``)."""
        return _distances(starts, v, share, q, self.child, self.parent, self.children, self.parents, self.weights)

    def dense_distances(self, counts: np.ndarray, held: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Per class, over a dense histogram (``counts``, masks ``held``, class sizes ``n``;
        at most 64 values, so a level's children and parents fit a mask too)."""
        if len(q) > 64:
            raise ValueError(f"a dense histogram holds at most 64 values, not {len(q)}")
        return _dense_distances(counts, held, n, q, self.child, self.parent, self.children, self.parents, self.weights,
                                self.child_bounds, self.child_values, self.parent_bounds, self.parent_children)


@numba.njit(cache=True, nogil=True)
def _distances(starts, v, share, q, child, parent, children, parents, weights):  # pragma: no cover - compiled
    classes = starts.shape[0] - 1
    values = q.shape[0]
    result = np.zeros(classes)
    diff = np.empty(values)
    positive = np.empty(parent.shape[1])
    negative = np.empty(parent.shape[1])
    extra = np.empty(values)  # a child holds at least one value
    for c in range(classes):
        for x in range(values):
            diff[x] = -q[x]
        for i in range(starts[c], starts[c + 1]):
            diff[v[i]] += share[i]
        cost = 0.0
        for l in range(weights.shape[0]):
            for x in range(children[l]):
                extra[x] = 0.0
            for x in range(values):
                extra[child[l, x]] += diff[x]
            for x in range(parents[l]):
                positive[x] = 0.0
                negative[x] = 0.0
            for x in range(children[l]):
                e = extra[x]
                if e > 0:
                    positive[parent[l, x]] += e
                else:
                    negative[parent[l, x]] -= e
            moved = 0.0
            for x in range(parents[l]):
                moved += min(positive[x], negative[x])
            cost += weights[l] * moved
        result[c] = cost
    return result


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
    out_bounds = np.empty(groups + 1, np.int64)
    out_v = np.empty(pairs, np.int64)
    out_f = np.empty(pairs, np.int64)
    out_share = np.empty(pairs, np.float64)
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


# -- dense histograms: a (classes x values) count matrix and a bit mask of the values held ------
# For a small sensitive domain (at most 64 values; ADULT's occupation: 14) a class's histogram
# as a row of int32 counts costs about what its (value, count, share) pairs cost, and merging
# classes becomes a row added to a row (contiguous, vectorised) and a mask or-ed into a mask,
# instead of a counting sort and a per-class pass over scattered pairs. The figures visit a
# class's values through its mask (lowest bit first: ascending codes, counts > 0), the values
# its pairs would hold in their order, computing each share as ``regroup_histograms`` does,
# so they return the same doubles as their sparse versions; scanning the whole row instead
# costs a division or a mispredicted branch per cell, most of them empty.


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
    bounds = np.empty(classes + 1, np.int64)
    v = np.empty(pairs, np.int64)
    f = np.empty(pairs, np.int64)
    share = np.empty(pairs, np.float64)
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
    passes down a descending list of them by ``max``/``min``, no branch, no sort (in two
    registers for l <= 3, the common case)."""
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


@numba.njit(cache=True, nogil=True)
def _dense_distances(counts, held, n, q, child, parent, children, parents, weights, child_bounds, child_values,
                     parent_bounds, parent_children):  # pragma: no cover - compiled
    """``_distances`` over a dense histogram, the same doubles: the same sums in the same
    order, but only under the parents the class's values reach. A parent none of whose values
    the class holds moves the mass it moves for every such class (its children's extras are
    0 minus the q of their values), computed once per call; under the others, each child's
    extra is summed over its values (ascending, as ``_distances`` adds them) in a register.
    Where ``_distances`` skips a term (the sign of a child's extra) this adds an exact zero
    (``max``/``min``). A class holding a single value has share 1 whatever its size: its
    distance is one of ``values`` computed once per call."""
    classes = counts.shape[0]
    values = q.shape[0]
    height = weights.shape[0]
    one = np.uint64(1)
    parent_bit = np.zeros((height, values), np.uint64)  # per value, its parent's bit
    empty_extra = np.zeros((height, values))
    empty_moved = np.zeros((height, values))
    for l in range(height):
        for x in range(values):
            parent_bit[l, x] = one << np.uint64(parent[l, child[l, x]])
        for k in range(children[l]):
            e = 0.0
            for i in range(child_bounds[l, k], child_bounds[l, k + 1]):
                e += -q[child_values[l, i]]
            empty_extra[l, k] = e
        for p in range(parents[l]):
            positive = 0.0
            negative = 0.0
            for i in range(parent_bounds[l, p], parent_bounds[l, p + 1]):
                e = empty_extra[l, parent_children[l, i]]
                positive += max(e, 0.0)
                negative -= min(e, 0.0)
            empty_moved[l, p] = min(positive, negative)
    diff = np.empty(values)
    # a class holding one value (share 1) costs what every such class holding it costs
    single = np.empty(values)
    for x in range(values):
        for y in range(values):
            diff[y] = -q[y]
        diff[x] += 1.0
        single[x] = _emd(diff, one << np.uint64(x), parents, weights, parent_bit, empty_moved, parent_bounds,
                         parent_children, child_bounds, child_values)
    result = np.zeros(classes)
    for c in range(classes):
        h = held[c]
        if h != 0 and h & (h - one) == 0:
            x = trailing_zeros(h)
            if counts[c, x] == n[c]:
                result[c] = single[x]
                continue
        size = np.float64(n[c])
        for x in range(values):
            diff[x] = -q[x]
        m = h
        while m:
            x = trailing_zeros(m)
            m &= m - one
            diff[x] += np.float64(counts[c, x]) / size
        result[c] = _emd(diff, h, parents, weights, parent_bit, empty_moved, parent_bounds, parent_children,
                         child_bounds, child_values)
    return result


@numba.njit(cache=True, nogil=True, inline="always")
def _emd(diff, h, parents, weights, parent_bit, empty_moved, parent_bounds, parent_children, child_bounds,
         child_values):  # pragma: no cover - compiled
    """One class's hierarchical EMD from its p - q (``diff``) and the mask of its values."""
    one = np.uint64(1)
    cost = 0.0
    for l in range(weights.shape[0]):
        touched = np.uint64(0)
        m = h
        while m:
            x = trailing_zeros(m)
            m &= m - one
            touched |= parent_bit[l, x]
        moved = 0.0
        for p in range(parents[l]):
            if (touched >> np.uint64(p)) & one:
                positive = 0.0
                negative = 0.0
                for i in range(parent_bounds[l, p], parent_bounds[l, p + 1]):
                    k = parent_children[l, i]
                    e = 0.0  # summed in a register, child by child: no store to reload
                    for j in range(child_bounds[l, k], child_bounds[l, k + 1]):
                        e += diff[child_values[l, j]]
                    positive += max(e, 0.0)
                    negative -= min(e, 0.0)
                moved += min(positive, negative)
            else:
                moved += empty_moved[l, p]
        cost += weights[l] * moved
    return cost
