"""Lightning (Prasser, Bild, Eicher, Spengler, Kuhn: "Lightning: Utility-Driven Anonymization
of High-Dimensional Data", Transactions on Data Privacy 2016).

Best-first search from the bottom, ordered by information loss, which is measured for every
checked node, anonymous or not (with the node's failing classes suppressed). Popping a node
*expands* it: every successor not yet expanded is checked and queued. Every ``height``-th
expansion (``height`` = the level of the top node) turns into a greedy descent without
backtracking: from the popped node, repeatedly expand and move to the successor of lowest
loss; everything it checks stays in the global queue. A node whose lower bound (with the
lattice's tie order) already loses to the best anonymous node found is never expanded, and
nor is a successor whose static bound loses (ARX checks those anyway; skipping them only
saves checks). The search ends at the time or step limit, when the queue is empty (then the
best node is the optimum), or, with ``stop = "first"``, at the first anonymous node (the
minimal-anonymization variant of the paper's comparison with DataFly and IGreedy).
Deterministic: ties in the queue go to the lattice's traversal order.
"""

from __future__ import annotations

import heapq

from sqlanon.core.options import LightningOptions
from sqlanon.lattice import Node
from sqlanon.search.heuristic import HeuristicSearch


class Lightning(HeuristicSearch):
    name = "lightning"
    Options = LightningOptions

    def __init__(self, lattice, checker, time_limit=None, step_limit=None, stop: str = "best"):
        super().__init__(lattice, checker, time_limit, step_limit)
        self.stop = stop
        self.stepping = max(lattice.height, 1)

    def explore(self) -> None:
        self.queue: list[tuple[float, tuple, Node]] = []
        self.expanded: set[Node] = set()
        self.insufficient: set[Node] = set()
        self.counters["descents"] = 0
        self._visit(self.lattice.bottom)
        step = 0
        while self.queue and not self._done():
            _, _, node = heapq.heappop(self.queue)
            if self._prune(node):
                continue
            step += 1
            if step % self.stepping == 0:
                self._descend(node)
            else:
                self._expand(node)
        # An empty queue means every node that could beat the best was expanded or excluded.
        self.exhausted = not self.queue and self.stop == "best"
        self.counters["expanded"] = len(self.expanded)

    def _done(self) -> bool:
        return self.stop == "first" and self.optimum.best is not None

    def _visit(self, node: Node, batch=None):
        result = self.evaluate(node, batch)
        heapq.heappush(self.queue, (result.loss, self.lattice.order_key(node), node))
        return result

    def _prune(self, node: Node) -> bool:
        if node in self.expanded or node in self.insufficient:
            return True
        if self.optimum.best is not None:
            result = self.checker.checked(node)
            assert result is not None, "a node is checked when it is queued or expanded to"
            if self.beaten(result):
                self.insufficient.add(node)
                return True
        return False

    def _expand(self, node: Node) -> Node | None:
        """Check and queue the successors; return the one of lowest loss (None if none)."""
        best = None
        successors = list(self.lattice.successors(node))
        # The successors this loop may check, as far as the best node so far tells (a better one
        # found on the way can only exclude more): the engine may compute them together.
        batch = self.checker.batch(
            up
            for up in successors
            if up not in self.expanded
            and up not in self.insufficient
            and (self.optimum.best is None or not self.hopeless_unchecked(up))
        )
        for up in successors:
            if up in self.expanded or up in self.insufficient:
                continue
            if self.checker.checked(up) is None and self.optimum.best is not None and self.hopeless_unchecked(up):
                self.insufficient.add(up)
                continue
            result = self._visit(up, batch)
            if best is None or self.optimum.precedes(result.loss, up, best.loss, best.node):
                best = result
            if self._done():
                break
        self.expanded.add(node)
        return None if best is None else best.node

    def _descend(self, node: Node) -> None:
        self.counters["descents"] += 1
        current: Node | None = node
        while current is not None and not self._done():
            current = self._expand(current)
            if current is not None and self._prune(current):
                break
