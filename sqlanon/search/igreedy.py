"""IGreedy (Babu, Reddy, Kumar, Sreenivas: "Achieving k-anonymity Using Improved Greedy
Heuristics for Very Large Relational Databases", Transactions on Data Privacy 2013).

From the bottom, while the node is not anonymous, check every direct generalization and move
to the one whose smallest equivalence class is largest (suppressed classes included); ties
are broken as DataFly breaks them (most distinct values at the current level, then QI name).
It stops at the first anonymous node, as published.
"""

from __future__ import annotations

from sqlanon.lattice import Node
from sqlanon.search.datafly import DataFly
from sqlanon.search.heuristic import generalize


class IGreedy(DataFly):
    name = "igreedy"

    def choose(self, node: Node, choices: list[int]) -> int:
        batch = self.checker.batch(generalize(node, j) for j in choices)  # all checked before any choice
        smallest = {j: self.evaluate(generalize(node, j), batch).stats.min_class or 0 for j in choices}
        return min(choices, key=lambda j: (-smallest[j], self.preference(node, j)))
