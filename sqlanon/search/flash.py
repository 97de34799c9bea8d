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

import heapq

from sqlanon.lattice import Node
from sqlanon.search.base import SearchAlgorithm
from sqlanon.search.completion import complete
from sqlanon.tagging import Tags


class Flash(SearchAlgorithm):
    name = "flash"

    def traverse(self) -> None:
        lattice = self.lattice
        self.tags = Tags(lattice)
        self.heap: list[tuple[tuple, Node]] = []
        for level in range(lattice.height + 1):
            for node in lattice.ordered_level(level):
                if self.tags.known(node):
                    continue
                if self.hopeless(node):
                    self.tags.prune(node)
                    continue
                self._push(node)
                while self.heap:
                    _, head = heapq.heappop(self.heap)
                    if not self.tags.known(head):
                        self._check_path(self._find_path(head))
        self.counters["tagged"] = self.tags.predicted
        self.counters["pruned"] = self.tags.pruned
        self.counters["skipped_by_bound"] = complete(lattice, self.checker, self.tags.is_anonymous, self.optimum)

    def _push(self, node: Node) -> None:
        heapq.heappush(self.heap, (self.lattice.order_key(node), node))

    def _find_path(self, start: Node) -> list[Node]:
        path = [start]
        current = start
        while True:
            successors = sorted(self.lattice.successors(current), key=self.lattice.order_key)
            current = next((s for s in successors if not self.tags.known(s)), None)
            if current is None:
                return path
            path.append(current)

    def _check_path(self, path: list[Node]) -> None:
        low, high = 0, len(path) - 1
        while low <= high:
            mid = (low + high) // 2
            node = path[mid]
            if not self.tags.known(node) and self.hopeless(node):
                self.tags.prune(node)
            if not self.tags.known(node):
                result = self.checker.check(node)
                self.tags.record(node, result.anonymous)
                self.optimum.offer(result)
            if self.tags.state[node] is not False:  # anonymous or pruned: look lower
                high = mid - 1
            else:
                for up in self.lattice.successors(node):
                    if not self.tags.known(up):
                        self._push(up)
                low = mid + 1
