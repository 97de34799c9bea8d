"""Predictive tagging (shared by Flash and the other optimal algorithms).

Privacy models here are monotonic: if a node is anonymous so is every generalization of it,
and if it is not, neither is any specialization. So a check tags in one direction: an
anonymous result propagates UP, a non-anonymous one propagates DOWN.

A third tag, *pruned*, marks nodes that cannot beat the optimum found so far (a lower bound on
their loss already loses); it propagates UP, since bounds only grow under generalization.
Their anonymity is never needed. A non-anonymous result still passes down through them.
"""

from __future__ import annotations

from sqlanon.lattice import Lattice, Node

PRUNED = None


class Tags:
    """Anonymity known for a node (True/False), or PRUNED."""

    def __init__(self, lattice: Lattice):
        self.lattice = lattice
        self.state: dict[Node, bool | None] = {}
        self.predicted = 0  # nodes tagged anonymous or not without a check
        self.pruned = 0  # nodes tagged PRUNED

    def known(self, node: Node) -> bool:
        return node in self.state

    def is_anonymous(self, node: Node) -> bool:
        return self.state.get(node) is True

    def record(self, node: Node, anonymous: bool) -> None:
        """Tag a checked node and everything its result implies."""
        self.state[node] = anonymous
        if anonymous:
            self._spread(node, self.lattice.successors, True, lambda other: other not in self.state)
        else:
            self._spread(node, self.lattice.predecessors, False, lambda other: self.state.get(other, 0) is not False)

    def prune(self, node: Node) -> None:
        """Tag a node that cannot become the optimum, and all its generalizations."""
        if node not in self.state:
            self.state[node] = PRUNED
            self.pruned += 1
        self._spread(node, self.lattice.successors, PRUNED, lambda other: other not in self.state)

    def _spread(self, node: Node, step, value, open_) -> None:
        # A node already tagged this way has had its own neighbours tagged.
        frontier = [node]
        while frontier:
            for other in step(frontier.pop()):
                if open_(other):
                    if value is PRUNED:
                        self.pruned += 1
                    else:
                        self.predicted += self.state.get(other, 0) is not PRUNED
                    self.state[other] = value
                    frontier.append(other)
