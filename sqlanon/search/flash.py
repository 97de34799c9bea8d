"""Flash (Kohlmayer, Prasser, Eckert, Kemper, Kuhn: "Flash: Efficient, Stable and Optimal
K-Anonymity", PASSAT 2012).

Bottom-up over the levels, in the stable order c(n); from each untagged node a greedy
depth-first path to the top is built from untagged successors, and a binary search on it
finds the lowest anonymous node. Every result is tagged predictively (anonymous upwards,
non-anonymous downwards). The successors of non-anonymous nodes go into a min-heap (by c(n))
and are expanded before the next node of the level. As in ARX, a node whose lower bound
already loses to the optimum found so far is tagged pruned (with its generalizations) instead
of being checked. Once every node's anonymity is known or pruned,
``complete`` checks the anonymous nodes that could still beat the optimum: none when the
metric is monotonic, those not excluded by lower bounds when it is not.
"""

from __future__ import annotations

from heapq import heappop, heappush

import numpy as np

from sqlanon.search.base import SearchAlgorithm
from sqlanon.search.completion import complete
from sqlanon.search.tagging import NOT_ANONYMOUS, Tags


class Flash(SearchAlgorithm):
    name = "flash"
    tags: Tags  # made by ``traverse`` before anything reads it

    # Nodes are the lattice's ids (sqlanon/lattice/index.py); the heap holds their ranks in
    # the traversal order, which is the order c(n) of the paper.
    def traverse(self) -> None:
        index = self.index = self.lattice.index
        self.tags = Tags(index)
        known = self.tags.state  # nonzero: tagged
        #: bounds[id]: the metric's lower bound from the node's check, None until checked
        self.bounds: list = [None] * (index.size + 1)
        order = index.order
        # metrics without a static bound (discernibility) answer None for every node
        self.static = self.checker.static_bound(self.lattice.bottom) is not None
        tagged = np.frombuffer(known, np.uint8)
        for level in index.level_ids:
            # Tags are only ever added, so the nodes untagged now are the only ones that can be
            # untagged when the loop reaches them: one array pass instead of a Python test per
            # node (most of the lattice is tagged long before its level comes).
            for node in level[tagged[level] == 0].tolist():
                if known[node]:
                    continue
                if self.hopeless(node):
                    self.tags.prune(node)
                    continue
                heap = self.heap = [index.rank[node]]
                while heap:
                    head = order[heappop(heap)]
                    if not known[head]:
                        self._check_path(self._find_path(head))
        self.counters["tagged"] = self.tags.predicted
        self.counters["pruned"] = self.tags.pruned
        self.counters["skipped_by_bound"] = complete(self.lattice, self.checker, self.tags.anonymous(), self.optimum)

    def _find_path(self, start: int) -> list[int]:
        """From ``start``, repeatedly the first untagged successor in traversal order."""
        known, up = self.tags.state, self.index.up
        path = [start]
        current = start
        while True:
            for successor in up[current]:
                if not known[successor]:
                    path.append(successor)
                    current = successor
                    break
            else:
                return path

    def _check_path(self, path: list[int]) -> None:
        # Run once per check, so the lookups are hoisted (once per path), and ``hopeless`` is
        # asked only when the metric lets it answer anything but False.
        known, rank, up, nodes, bounds, heap = (
            self.tags.state,
            self.index.rank,
            self.index.up,
            self.index.nodes,
            self.bounds,
            self.heap,
        )
        check, record, offer = self.checker.check, self.tags.record, self.optimum.offer
        may_prune = not self.checker.monotonic_metric
        low, high = 0, len(path) - 1
        while low <= high:
            mid = (low + high) // 2
            node = path[mid]
            if not known[node]:
                if may_prune and self.hopeless(node):
                    self.tags.prune(node)
                else:
                    result = check(nodes[node])
                    bounds[node] = result.bound
                    record(node, result.anonymous)
                    offer(result)
            if known[node] != NOT_ANONYMOUS:  # anonymous or pruned: look lower
                high = mid - 1
            else:
                for successor in up[node]:
                    if not known[successor]:
                        heappush(heap, rank[successor])
                low = mid + 1

    def hopeless(self, node: int) -> bool:
        """True when a lower bound shows ``node`` (and so any generalization) cannot become
        the optimum: the static bound, or the bound of a checked direct specialization."""
        if self.optimum.best is None or self.checker.monotonic_metric:
            # Monotonic: the optimum is a minimal anonymous node, and checking a node tags
            # its specializations, which pruning it would not; ARX does the same.
            return False
        levels = self.index.nodes[node]
        bound = self.checker.static_bound(levels) if self.static else None
        for below in self.index.down[node]:
            known = self.bounds[below]
            if known is not None and (bound is None or known > bound):
                bound = known
        return bound is not None and not self.optimum.can_improve(bound, levels)
