"""Predictive tagging (shared by Flash and the other optimal algorithms).

Privacy models here are monotonic: if a node is anonymous so is every generalization of it,
and if it is not, neither is any specialization. So a check tags in one direction: an
anonymous result propagates UP, a non-anonymous one propagates DOWN.
"""

from __future__ import annotations

from sqlanon.lattice import Lattice, Node


class Tags:
    """Anonymity known for a node, either checked or inferred."""

    def __init__(self, lattice: Lattice):
        self.lattice = lattice
        self.anonymous: dict[Node, bool] = {}
        self.predicted = 0  # nodes tagged without a check

    def known(self, node: Node) -> bool:
        return node in self.anonymous

    def is_anonymous(self, node: Node) -> bool:
        return self.anonymous[node]

    def record(self, node: Node, anonymous: bool) -> None:
        """Tag a checked node and everything its result implies."""
        if node not in self.anonymous:
            self.anonymous[node] = anonymous
        step = self.lattice.successors if anonymous else self.lattice.predecessors
        frontier = [node]
        while frontier:
            current = frontier.pop()
            for other in step(current):
                # A node already tagged this way has had its own neighbours tagged.
                if other not in self.anonymous:
                    self.anonymous[other] = anonymous
                    self.predicted += 1
                    frontier.append(other)
