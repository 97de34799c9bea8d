"""Hierarchical earth mover's distance (t-closeness with ``distance = "hierarchical"``, Li et
al. 2007), per class, compiled (numba) as one pass over the domain's values per hierarchy level,
over the histograms as pairs (``histogram_pairs.py``) or dense (``histogram_dense.py``).

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

from sqlanon.kernel.histogram_dense import trailing_zeros


class Tree:
    """The sensitive hierarchy as arrays: per level, each value's child, each child's parent."""

    def __init__(self, ancestors: list[np.ndarray]):
        height = len(ancestors) - 1
        values = len(ancestors[0])
        children, parents, self.weights = [], [], np.array([l / height for l in range(1, height + 1)], np.float64)
        for level in range(1, height + 1):
            pairs, child = np.unique(
                np.stack([ancestors[level - 1], ancestors[level]], axis=1), axis=0, return_inverse=True
            )
            children.append(child.ravel())
            parents.append(np.unique(pairs[:, 1], return_inverse=True)[1].ravel())
        widest = max((len(p) for p in parents), default=0)
        self.child = np.stack(children) if children else np.zeros((0, values), np.int64)
        self.parent = np.zeros((height, max(widest, 1)), np.int64)
        self.children = np.array([len(p) for p in parents], np.int64)
        self.parents = np.array([p.max() + 1 if len(p) else 0 for p in parents], np.int64)
        for l, p in enumerate(parents):
            self.parent[l, : len(p)] = p
        # for the dense pass: per level, each child's values and each parent's children in
        # ascending order, as rows of (bounds, members)
        self.child_bounds = np.zeros((height, values + 1), np.int64)
        self.child_values = np.zeros((height, values), np.int64)
        self.parent_bounds = np.zeros((height, values + 1), np.int64)
        self.parent_children = np.zeros((height, values), np.int64)
        for l in range(height):
            order = np.argsort(self.child[l], kind="stable")
            self.child_values[l] = order
            self.child_bounds[l, : self.children[l] + 1] = np.searchsorted(
                self.child[l][order], np.arange(self.children[l] + 1)
            )
            up = self.parent[l, : self.children[l]]
            order = np.argsort(up, kind="stable")
            self.parent_children[l, : len(order)] = order
            self.parent_bounds[l, : self.parents[l] + 1] = np.searchsorted(up[order], np.arange(self.parents[l] + 1))

    def distances(self, starts: np.ndarray, v: np.ndarray, share: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Per class (its histogram is ``v``/``share`` from ``starts[c]`` to ``starts[c + 1]``)."""
        return _distances(starts, v, share, q, self.child, self.parent, self.children, self.parents, self.weights)

    def dense_distances(self, counts: np.ndarray, held: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Per class, over a dense histogram (``counts``, masks ``held``, class sizes ``n``;
        at most 64 values, so a level's children and parents fit a mask too)."""
        if len(q) > 64:
            raise ValueError(f"a dense histogram holds at most 64 values, not {len(q)}")
        return _dense_distances(
            counts,
            held,
            n,
            q,
            self.child,
            self.parent,
            self.children,
            self.parents,
            self.weights,
            self.child_bounds,
            self.child_values,
            self.parent_bounds,
            self.parent_children,
        )


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
def _dense_distances(
    counts,
    held,
    n,
    q,
    child,
    parent,
    children,
    parents,
    weights,
    child_bounds,
    child_values,
    parent_bounds,
    parent_children,
):  # pragma: no cover - compiled
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
        single[x] = _emd(
            diff,
            one << np.uint64(x),
            parents,
            weights,
            parent_bit,
            empty_moved,
            parent_bounds,
            parent_children,
            child_bounds,
            child_values,
        )
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
        result[c] = _emd(
            diff,
            h,
            parents,
            weights,
            parent_bit,
            empty_moved,
            parent_bounds,
            parent_children,
            child_bounds,
            child_values,
        )
    return result


@numba.njit(cache=True, nogil=True, inline="always")
def _emd(
    diff, h, parents, weights, parent_bit, empty_moved, parent_bounds, parent_children, child_bounds, child_values
):  # pragma: no cover - compiled
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
