"""K-Optimize (Bayardo & Agrawal, "Data Privacy through Optimal k-Anonymization", ICDE 2005).

A depth-first search of the set-enumeration tree over the alphabet Σ_all, from the most general
anonymization (the empty head set). A node is a head set H and a tail T (the values that may
still be added); its allset is H ∪ T. At each node (the paper's Figure 5):

1. the cost of H itself may improve the best cost c;
2. PRUNE, repeated until nothing changes: the node goes if its lower bound LB(H, H ∪ T) ≥ c;
   a tail value v goes if LB(H ∪ {v}, H ∪ T) ≥ c, if H ∪ {v} suppresses more rows than the
   limit (suppression only grows down the tree), or if v is *useless*: every head class it
   splits is smaller than k (the paper's rule: splitting suppressed rows changes nothing), or —
   the broader variant for DM and CM — smaller than 2k, because then one part is suppressed and
   the split cannot lower the cost (for DM when 2|E| <= |D|; see docs/koptimize.md);
3. the tail is reordered: values that split the most head classes first, ties by the smaller
   Σ|E|² of H ∪ {v}, then by alphabet order;
4. each tail value in turn is taken off the tail and becomes a child with the rest of the tail,
   and after each child PRUNE runs again with the (possibly lower) best cost.

Lower bounds: LB_DM charges |D| for each record the head already suppresses (a class smaller
than k only splits further) and max(|E_{A,t}|, k) for every other record, E_{A,t} its class
under the allset; LB_CM charges 1 for each suppressed record and the minority count of every
other allset class. Both come from ``costs.py``; the head classes are maintained incrementally
(``heads.py``). The search is anytime: every improvement is logged with its time and node
count, and a time or node limit returns the best so far with ``proven = False``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sqlanon.koptimize.costs import INFEASIBLE, Cost, class_figures, evaluate, partition
from sqlanon.koptimize.heads import HeadClasses


@dataclass
class Solution:
    """The outcome of a search over cut sets."""

    cuts: list[int] | None
    cost: float
    suppressed: int | None
    proven: bool
    seconds: float
    history: list[dict] = field(default_factory=list)  # every improvement: seconds, nodes, cost
    counters: dict = field(default_factory=dict)


class _Stop(Exception):
    """A time or node limit was reached."""


class KOptimize:
    name = "k-optimize"

    def __init__(self, cost: Cost, time_limit: float | None = None, step_limit: int | None = None,
                 upper_bound: Sequence[int] | None = None, broad_useless: bool = True):
        self.cost, self.model = cost, cost.model
        self.time_limit, self.step_limit = time_limit, step_limit
        self.upper_bound = upper_bound
        self.broad_useless = broad_useless
        self.heads = HeadClasses(self.model)
        self.row_suppressed = cost.row_suppressed()
        self.best = INFEASIBLE
        self.best_cuts: list[int] | None = None
        self.history: list[dict] = []
        self.counters = {"nodes": 0, "pruned_nodes": 0, "pruned_values": 0, "useless_values": 0, "infeasible_values": 0}

    def run(self) -> Solution:
        self.started = time.perf_counter()
        if self.upper_bound is not None:
            seeded, _ = evaluate(self.cost, self.upper_bound)
            if seeded < self.best:
                self._improve(seeded, sorted(self.upper_bound), "seed")
        proven = True
        try:
            self._node(list(range(len(self.model.alphabet))))
        except _Stop:
            proven = False
        suppressed = None if self.best_cuts is None else evaluate(self.cost, self.best_cuts)[1]
        return Solution(self.best_cuts, self.best, suppressed, proven, time.perf_counter() - self.started,
                        self.history, dict(self.counters))

    # -- the tree --------------------------------------------------------------------------
    def _node(self, tail: list[int]) -> None:
        self.counters["nodes"] += 1
        self._check_limits()
        heads = self.heads
        value, _ = self.cost.total(heads.sizes(), heads.labels())
        if value < self.best:
            self._improve(value, list(heads.head), "search")
        # Useless and infeasible values depend on the head alone: decided once per node.
        head = self._head()
        tail, order = self._filter(tail, head)
        tail = self._prune(tail, head)
        tail.sort(key=order.__getitem__)
        while tail:
            v = tail.pop(0)
            heads.push(v)
            self._node(list(tail))
            heads.pop()
            tail = self._prune(tail, head)

    def _head(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Head classes of at least k rows (the only ones a child can change): their ids'
        dense index per row of such a class, those rows, their sizes, and the suppressed rows."""
        heads, k = self.heads, self.cost.k
        sizes = heads.sizes()
        kept_ids = np.flatnonzero(sizes >= k)
        dense = np.full(heads.count, -1, dtype=np.int64)
        dense[kept_ids] = np.arange(len(kept_ids))
        per_row = dense[heads.cls]
        rows = np.flatnonzero(per_row >= 0)
        return per_row[rows], rows, sizes[kept_ids][:, None], int(sizes[sizes < k].sum())

    def _splits(self, tail: list[int], cls, rows, weights):
        """Per attribute with tail values: the values (rank, value, position) and a matrix
        (kept head classes × those values) of the weight each value moves out of each class:
        the rows at or above its rank (a class lies inside one head interval of the attribute)."""
        model = self.model
        by_attribute: dict[int, list[tuple[int, int, int]]] = {}
        for position, v in enumerate(tail):
            j, r = model.alphabet[v]
            by_attribute.setdefault(j, []).append((r, v, position))
        classes = int(cls.max()) + 1 if len(cls) else 0
        for j, items in by_attribute.items():
            items.sort()
            marks = np.zeros(model.domains[j].size, dtype=np.int64)
            marks[[r for r, _, _ in items]] = 1
            width = len(items) + 1
            key = cls * width + np.cumsum(marks)[model.ranks[j][rows]]  # tail ranks at or below
            yield items, [_suffix(np.bincount(key, weights=w, minlength=classes * width), width) for w in weights]

    def _filter(self, tail: list[int], head: tuple) -> tuple[list[int], dict]:
        """Drop useless values and values whose addition suppresses more rows than the limit
        (suppression only grows down the tree); the reordering key of the others."""
        k, limit = self.cost.k, self.cost.limit
        cls, rows, size, suppressed = head
        big = self._splits_matter(size)
        keep, order = [], {}
        for items, (moved,) in self._splits(tail, cls, rows, [self.model.weights[rows]]):
            low = size - moved
            split = (moved > 0) & (low > 0)
            useless = ~(split & big).any(axis=0)
            new_rows = (moved * (split & (moved < k))).sum(axis=0) + (low * (split & (low < k))).sum(axis=0)
            splits = split.sum(axis=0)
            sizef = size.astype(np.float64)
            change = ((sizef ** 2 - moved.astype(np.float64) ** 2 - low.astype(np.float64) ** 2) * split).sum(axis=0)
            for i, (_, v, position) in enumerate(items):
                if useless[i]:
                    self.counters["useless_values"] += 1
                elif suppressed + int(new_rows[i]) > limit:
                    self.counters["infeasible_values"] += 1
                else:
                    keep.append((position, v))
                    order[v] = (-int(splits[i]), -float(change[i]), position)
        return [v for _, v in sorted(keep)], order

    def _prune(self, tail: list[int], head: tuple) -> list[int]:
        """The paper's PRUNE, repeated until the tail stops shrinking: the node goes when
        LB(H, H ∪ T) >= c, a tail value v when LB(H ∪ {v}, H ∪ T) >= c."""
        heads, cost, model = self.heads, self.cost, self.model
        k = cost.k
        while tail:
            allset = [list(c) for c in heads.cuts]
            for v in tail:
                j, r = model.alphabet[v]
                allset[j].append(r)
            class_of_row, count = partition(model, [sorted(c) for c in allset])
            row_bound = cost.row_bound(class_of_row, *class_figures(model, class_of_row, count))
            sizes = heads.sizes()
            head_suppressed = sizes[heads.cls] < k
            bound = float(self.row_suppressed[head_suppressed].sum() + row_bound[~head_suppressed].sum())
            if bound >= self.best:
                self.counters["pruned_nodes"] += 1
                return []
            cls, rows, size, suppressed = head
            if suppressed >= cost.limit:
                return tail  # no child may suppress more: a child's bound equals the node's
            # A child adds, for each record it newly suppresses, its suppression cost minus
            # its share of the bound.
            row_delta = (self.row_suppressed - row_bound)[rows]
            class_delta = np.bincount(cls, weights=row_delta, minlength=len(size))[:, None]
            pruned = set()
            for items, (moved, moved_delta) in self._splits(tail, cls, rows, [model.weights[rows], row_delta]):
                low = size - moved
                split = (moved > 0) & (low > 0)
                child = (bound + (moved_delta * (split & (moved < k))).sum(axis=0)
                         + ((class_delta - moved_delta) * (split & (low < k))).sum(axis=0))
                pruned.update(v for i, (_, v, _) in enumerate(items) if child[i] >= self.best)
            if not pruned:
                return tail
            self.counters["pruned_values"] += len(pruned)
            tail = [v for v in tail if v not in pruned]
        return tail

    def _splits_matter(self, size: np.ndarray) -> np.ndarray:
        """Per head class of at least k rows: can splitting it lower the cost? A value that
        splits no such class is useless (see the module docstring)."""
        k = self.cost.k
        if not self.broad_useless:
            return np.ones_like(size, dtype=bool)
        if self.cost.name == "discernibility":
            return (size >= 2 * k) | (2 * size > self.cost.n)
        return size >= 2 * k

    # -- bookkeeping -----------------------------------------------------------------------
    def _improve(self, value: float, cuts: list[int], source: str) -> None:
        self.best, self.best_cuts = value, sorted(cuts)
        self.history.append({"seconds": round(time.perf_counter() - self.started, 6),
                             "nodes": self.counters["nodes"], "cost": value, "source": source})

    def _check_limits(self) -> None:
        if self.step_limit is not None and self.counters["nodes"] > self.step_limit:
            raise _Stop
        if self.time_limit is not None and time.perf_counter() - self.started > self.time_limit:
            raise _Stop



def _suffix(flat: np.ndarray, width: int) -> np.ndarray:
    """Per class, the sums of buckets 1.., 2.., …: rows at or above each tail rank."""
    matrix = flat.reshape(-1, width)
    return np.cumsum(matrix[:, ::-1], axis=1)[:, ::-1][:, 1:]
