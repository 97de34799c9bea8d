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
   Σ|E|² of H ∪ {v} (the paper's), then by the tail's order; for CM, ties are first broken by
   the smaller CM cost of H ∪ {v} (the paper allows a strategy tailored to the metric);
4. each tail value in turn is taken off the tail and becomes a child with the rest of the tail,
   and after each child PRUNE runs again with the (possibly lower) best cost.

Lower bounds: LB_DM charges |D| for each record the head already suppresses (a class smaller
than k only splits further) and max(|E_{A,t}|, k) for every other record, E_{A,t} its class
under the allset; LB_CM charges 1 for each suppressed record and the minority count of every
other allset class. Both come from ``costs.py``; the head classes are maintained incrementally
(``heads.py``). With no suppression left, LB_DM also bounds each kept head class as a whole
(``Cost.class_floor``). The whole tree runs compiled (``tree.dfs`` through ``walker``, the
same tree node for node, on rows merged into each node's allset pieces); ``_node`` below is
the reference it is tested against (``compiled=False``). The search is anytime: every improvement is logged with its time and node
count, and a time or node limit returns the best so far with ``proven = False``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sqlanon.koptimize.costs import INFEASIBLE, Cost, class_figures, evaluate, partition
from sqlanon.koptimize import kernels, walker
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

    def __init__(
        self,
        cost: Cost,
        time_limit: float | None = None,
        step_limit: int | None = None,
        upper_bound: Sequence[int] | None = None,
        broad_useless: bool = True,
        compiled: bool = True,
        class_floor: bool = True,
        threads: int = 1,
        paper_order: bool = False,
    ):
        self.cost, self.model = cost, cost.model
        self.time_limit, self.step_limit = time_limit, step_limit
        # threads > 1: the compiled tree's top is cut into subtrees that threads walk (walker.py)
        self.threads = threads
        self.upper_bound = upper_bound
        self.broad_useless = broad_useless
        # CM: each class-table row's label counts (labels × rows), so that the tail order breaks
        # its ties by CM's own cost of H ∪ {v} first; no rows of labels for DM, or with
        # ``paper_order`` (the paper's generic order for both metrics, to compare)
        self.cm_ties = int(cost.name == "classification" and not paper_order)
        if self.cm_ties:
            self._label_rows = np.ascontiguousarray(self.model.label_rows.T)
        else:
            self._label_rows = np.zeros((0, self.model.ranks.shape[1]), dtype=np.int64)
        self.heads = HeadClasses(self.model)
        # Arrays for the compiled loops (``kernels``): each value's attribute and rank, and its
        # place in the marks over all attributes' ranks.
        self._dom_sizes = np.asarray([d.size for d in self.model.domains], dtype=np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(self._dom_sizes)[:-1]]).astype(np.int64)
        self._marks_size = int(self._dom_sizes.sum())
        self._tail_j = np.asarray([j for j, _ in self.model.alphabet], dtype=np.int64)
        self._tail_r = np.asarray([r for _, r in self.model.alphabet], dtype=np.int64)
        self._pos = self._offsets[self._tail_j] + self._tail_r
        self._table = kernels.hash_table(self.model.ranks.shape[1])
        # LB_DM in one compiled call (``kernels.dm_bound``); False: the general path in numpy.
        # ``class_floor``: with no suppression left, bound each kept head class as a whole
        # (``Cost.class_floor``); False only to measure what it prunes.
        self.class_floor = class_floor
        self.compiled = compiled and class_floor and broad_useless
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
        if self.compiled and self.model.rows >= self.cost.k:
            proven = self._run_compiled()
        else:
            try:
                self._node(list(range(len(self.model.alphabet))))
            except _Stop:
                proven = False
        suppressed = None if self.best_cuts is None else evaluate(self.cost, self.best_cuts)[1]
        return Solution(
            self.best_cuts,
            self.best,
            suppressed,
            proven,
            time.perf_counter() - self.started,
            self.history,
            dict(self.counters),
        )

    # -- the tree, compiled ----------------------------------------------------------------
    _CHUNK = 500  # nodes per call of the compiled search, between looks at the clock
    _ROOM = 4  # the row and size buffers start at this many times the class table's rows

    def _run_compiled(self) -> bool:
        """``tree.dfs`` over the whole tree (``walker.walk``); True when it finished. With one
        thread the same tree as ``_node`` (same order, filter and bound), so the same counters;
        an improvement's logged time is that of the end of its chunk."""
        return walker.walk(self, self.threads, self._CHUNK)

    def _hash_table(self) -> tuple[np.ndarray, np.ndarray]:
        return kernels.hash_table(self.model.ranks.shape[1])

    # -- the tree in Python (the reference the compiled tree is tested against) ------------
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
        """Head classes of at least k rows (the only ones a child can change): per row its
        class's dense index (-1 for a suppressed row), the rows of such classes, their sizes,
        and the suppressed rows."""
        heads, k = self.heads, self.cost.k
        sizes = heads.sizes()
        kept_ids = np.flatnonzero(sizes >= k)
        dense = np.full(heads.count, -1, dtype=np.int64)
        dense[kept_ids] = np.arange(len(kept_ids))
        per_row = dense[heads.cls]
        return per_row, np.flatnonzero(per_row >= 0), sizes[kept_ids], int(sizes[sizes < k].sum())

    def _splits(self, tail: list[int], per_row, classes: int, weights):
        """Per attribute with tail values: the values (rank, value, position) and, for each
        of ``weights``, a matrix (kept head classes × those values) of the weight each value
        moves out of each class (``kernels.moved``)."""
        model = self.model
        by_attribute: dict[int, list[tuple[int, int, int]]] = {}
        for position, v in enumerate(tail):
            j, r = model.alphabet[v]
            by_attribute.setdefault(j, []).append((r, v, position))
        for j, items in by_attribute.items():
            items.sort()
            marks = np.zeros(model.domains[j].size, dtype=np.int64)
            marks[[r for r, _, _ in items]] = 1
            bucket = np.cumsum(marks)  # tail ranks at or below each rank
            yield items, [kernels.moved(per_row, model.ranks[j], w, bucket, classes, len(items) + 1) for w in weights]

    def _filter(self, tail: list[int], head: tuple) -> tuple[list[int], dict]:
        """Drop useless values and values whose addition suppresses more rows than the limit
        (suppression only grows down the tree); the reordering key of the others."""
        k, limit = self.cost.k, self.cost.limit
        per_row, _, size, suppressed = head
        values = np.asarray(tail, dtype=np.int64)
        splits, useful, new_rows, change, gain = kernels.tail_stats(
            per_row,
            self.model.ranks,
            self.model.weights,
            self._label_rows,
            size,
            self._splits_matter(size),
            k,
            self._tail_j[values],
            self._tail_r[values],
            self._dom_sizes,
        )
        keep, order = [], {}
        for position, v in enumerate(tail):
            if not useful[position]:
                self.counters["useless_values"] += 1
            elif suppressed + int(new_rows[position]) > limit:
                self.counters["infeasible_values"] += 1
            else:
                keep.append(v)
                order[v] = (-int(splits[position]), -int(gain[position]), -float(change[position]), position)
        return keep, order

    def _prune(self, tail: list[int], head: tuple) -> list[int]:
        """The paper's PRUNE, repeated until the tail stops shrinking: the node goes when
        LB(H, H ∪ T) >= c, a tail value v when LB(H ∪ {v}, H ∪ T) >= c."""
        cost, model, k = self.cost, self.model, self.cost.k
        per_row, rows, size, suppressed = head
        # No descendant may suppress another record: then a child's bound equals the node's
        # and every kept head class is cut into parts of at least k rows (``class_floor``).
        no_more = suppressed >= cost.limit
        while tail:
            bound, row_bound = self._bound(tail, no_more)
            if bound >= self.best:
                self.counters["pruned_nodes"] += 1
                return []
            if no_more:
                return tail
            # A child adds, for each record it newly suppresses, its suppression cost minus
            # its share of the bound.
            row_delta = (self.row_suppressed - row_bound) * (per_row >= 0)
            class_delta = np.bincount(per_row[rows], weights=row_delta[rows], minlength=len(size)).astype(np.int64)
            pruned: set[int] = set()
            for items, (moved, moved_delta) in self._splits(tail, per_row, len(size), [model.weights, row_delta]):
                child = bound + kernels.child_delta(moved, moved_delta, size, class_delta, k)
                pruned.update(v for i, (_, v, _) in enumerate(items) if child[i] >= self.best)
            if not pruned:
                return tail
            self.counters["pruned_values"] += len(pruned)
            tail = [v for v in tail if v not in pruned]
        return tail

    def _bound(self, tail: list[int], no_more: bool) -> tuple[float, np.ndarray | None]:
        """LB(H, H ∪ T), and each row's share of it when a child's bound is needed."""
        heads, cost, model, k = self.heads, self.cost, self.model, self.cost.k
        if self.compiled and no_more and cost.name == "discernibility":
            marks = np.zeros(self._marks_size, dtype=np.int64)
            marks[self._pos[heads.head]] = 1
            marks[self._pos[tail]] = 1
            bound = kernels.dm_bound(
                model.ranks,
                marks,
                self._offsets,
                self._dom_sizes,
                model.weights,
                heads.cls,
                heads.sizes(),
                k,
                cost.n,
                True,
                *self._table,
            )
            if bound >= 0:
                return bound, None
        allset = [list(c) for c in heads.cuts]
        for v in tail:
            j, r = model.alphabet[v]
            allset[j].append(r)
        class_of_row, count = self._partition(allset)
        figures = class_figures(model, class_of_row, count)
        row_bound = cost.row_bound(class_of_row, *figures)
        sizes = heads.sizes()
        head_suppressed = sizes[heads.cls] < k
        if no_more and self.class_floor:
            per_class = np.bincount(heads.cls, weights=row_bound, minlength=heads.count)
            head_of_piece = np.empty(count, dtype=np.int64)
            head_of_piece[class_of_row] = heads.cls
            floor = cost.class_floor(head_of_piece, figures[0], sizes)
            kept = sizes >= k
            return float(
                self.row_suppressed[head_suppressed].sum() + np.maximum(per_class, floor)[kept].sum()
            ), row_bound
        return float(self.row_suppressed[head_suppressed].sum() + row_bound[~head_suppressed].sum()), row_bound

    def _partition(self, cuts: list[list[int]]) -> tuple[np.ndarray, int]:
        """Each row's class under per-attribute cut ranks (compiled hashing; ``partition``
        when the mixed-radix key would overflow)."""
        model = self.model
        lookup, radices, space = [], [], 1
        for j, ranks in enumerate(cuts):
            marks = np.zeros(model.domains[j].size, dtype=np.int64)
            marks[ranks] = 1
            lookup.append(np.cumsum(marks))
            radices.append(len(ranks) + 1)
            space *= len(ranks) + 1
        if space >= kernels.OVERFLOW:
            return partition(model, [sorted(c) for c in cuts])
        return kernels.allset_classes(
            model.ranks, np.concatenate(lookup), self._offsets, np.asarray(radices, dtype=np.int64), *self._table
        )

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
    def _improve(self, value: float, cuts: list[int], source: str, nodes: int | None = None) -> None:
        self.best, self.best_cuts = value, sorted(cuts)
        self.history.append(
            {
                "seconds": round(time.perf_counter() - self.started, 6),
                "nodes": self.counters["nodes"] if nodes is None else nodes,
                "cost": value,
                "source": source,
            }
        )

    def _check_limits(self) -> None:
        if self.step_limit is not None and self.counters["nodes"] > self.step_limit:
            raise _Stop
        if self.time_limit is not None and time.perf_counter() - self.started > self.time_limit:
            raise _Stop
