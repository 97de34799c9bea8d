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

    def distances(self, starts: np.ndarray, v: np.ndarray, share: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Per class (its histogram is ``v``/``share`` from ``starts[c]`` to ``starts[c + 1]``)."""
        return _distances(starts, v, share, q, self.child, self.parent, self.children, self.parents, self.weights)


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
