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
        tail, order = self._prune(tail)
        tail.sort(key=order.__getitem__)
        while tail:
            v = tail.pop(0)
            heads.push(v)
            self._node(list(tail))
            heads.pop()
            tail, _ = self._prune(tail)

    def _prune(self, tail: list[int]) -> tuple[list[int], dict]:
        """The paper's PRUNE, repeated until the tail stops shrinking; also returns each kept
        value's sort key for the tail reordering."""
        while True:
            if not tail:
                return [], {}
            node_bound, values = self._examine(tail)
            if node_bound >= self.best:
                self.counters["pruned_nodes"] += 1
                return [], {}
            kept = [v for v in tail if values[v][0]]
            if len(kept) == len(tail):
                return kept, {v: values[v][1] for v in kept}
            tail = kept

    def _examine(self, tail: list[int]) -> tuple[float, dict]:
        """LB(H, H ∪ T), and per tail value whether it stays and its reordering key."""
        heads, cost, model = self.heads, self.cost, self.model
        k, sizes = cost.k, heads.sizes()
        allset = [sorted(c) for c in heads.cuts]
        for v in tail:
            j, r = model.alphabet[v]
            allset[j].append(r)
        class_of_row, count = partition(model, [sorted(c) for c in allset])
        row_bound = cost.row_bound(class_of_row, *class_figures(model, class_of_row, count))
        head_suppressed = sizes[heads.cls] < k
        suppressed_rows = int(sizes[sizes < k].sum())
        bound = float(self.row_suppressed[head_suppressed].sum() + row_bound[~head_suppressed].sum())
        row_delta = self.row_suppressed - row_bound  # what a row adds to the bound once suppressed
        class_delta = np.bincount(heads.cls, weights=row_delta, minlength=heads.count)
        sumsq = float((sizes.astype(np.float64) ** 2).sum())
        values = {}
        for position, v in enumerate(tail):
            p = heads.preview(v, row_delta)
            kept_before = p.sizes >= k
            low = p.sizes - p.moved
            up_out = kept_before & (p.moved < k)
            low_out = kept_before & (low < k)
            if self._useless(p.sizes):
                self.counters["useless_values"] += 1
                values[v] = (False, None)
                continue
            if suppressed_rows + int(p.moved[up_out].sum() + low[low_out].sum()) > cost.limit:
                self.counters["infeasible_values"] += 1
                values[v] = (False, None)
                continue
            child_bound = bound + float(p.moved_delta[up_out].sum() + (class_delta[p.split] - p.moved_delta)[low_out].sum())
            if child_bound >= self.best:
                self.counters["pruned_values"] += 1
                values[v] = (False, None)
                continue
            child_sumsq = sumsq - float((p.sizes.astype(np.float64) ** 2 - p.moved.astype(np.float64) ** 2 - low.astype(np.float64) ** 2).sum())
            values[v] = (True, (-len(p.split), child_sumsq, position))
        return bound, values

    def _useless(self, split_sizes: np.ndarray) -> bool:
        """Adding the value can never lower the cost (see the module docstring)."""
        k = self.cost.k
        if (split_sizes < k).all():
            return True
        if not self.broad_useless:
            return False
        if self.cost.name == "discernibility":
            return bool(((split_sizes < k) | ((split_sizes < 2 * k) & (2 * split_sizes <= self.cost.n))).all())
        return bool((split_sizes < 2 * k).all())

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

