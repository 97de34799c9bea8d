"""Lightning top-down, as ARX 3.9.2 runs it (``BEST_EFFORT_TOP_DOWN``,
``LIGHTNINGTopDownAlgorithm``): the best-first search of Lightning (Prasser et al.,
Transactions on Data Privacy 2016) started from the top of the lattice and expanding
downwards.

The top is checked and queued. Polling the node of lowest loss *expands* it: each of its
predecessors not yet expanded, last QI first (ARX's order), is checked if new and queued
(again, if it was queued before). Nothing is pruned by a bound and no anonymity is inferred:
non-anonymous nodes are expanded too, with the loss of their failing classes suppressed, since
a specialization of one may hold again under a non-monotonic model or suppression. The search
ends at the time or step limit (checks, the top included) or when the queue is empty, when it
has checked every node and its best is the optimum. The queue breaks ties among equal losses as
``java.util.PriorityQueue``'s binary heap does (``JavaHeap``), so the same nodes are checked in
the same order as ARX's.
"""

from __future__ import annotations

from sqlanon.core.options import HeuristicOptions
from sqlanon.lattice import Node
from sqlanon.search.heuristic import HeuristicSearch


class JavaHeap:
    """A min-heap of (loss, node) by loss alone, sifting as ``java.util.PriorityQueue`` (JDK
    17) does: equal losses leave in the order that heap gives them, which is neither insertion
    nor node order."""

    def __init__(self) -> None:
        self.items: list[tuple[float, Node]] = []

    def __len__(self) -> int:
        return len(self.items)

    def offer(self, item: tuple[float, Node]) -> None:
        q = self.items
        q.append(item)
        k = len(q) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if item[0] >= q[parent][0]:
                break
            q[k] = q[parent]
            k = parent
        q[k] = item

    def poll(self) -> Node:
        q = self.items
        head = q[0]
        last = q.pop()
        n = len(q)
        if n:
            k, half = 0, n >> 1
            while k < half:
                child = 2 * k + 1
                if child + 1 < n and q[child][0] > q[child + 1][0]:
                    child += 1
                if last[0] <= q[child][0]:
                    break
                q[k] = q[child]
                k = child
            q[k] = last
        return head[1]


class LightningTopDown(HeuristicSearch):
    name = "lightning-top-down"
    Options = HeuristicOptions

    def explore(self) -> None:
        queue, expanded = JavaHeap(), set()
        top = self.lattice.top
        queue.offer((self.evaluate(top).loss, top))
        while queue:
            node = queue.poll()
            if node in expanded:
                continue  # queued again by another expansion
            for j in reversed(range(len(node))):
                if node[j] > 0:
                    below = node[:j] + (node[j] - 1,) + node[j + 1 :]
                    if below not in expanded:
                        queue.offer((self.evaluate(below).loss, below))
            expanded.add(node)
        # every node lies below the top: an empty queue means every node was checked
        self.exhausted = True
        self.counters["expanded"] = len(expanded)
