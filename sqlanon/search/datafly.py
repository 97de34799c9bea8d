"""DataFly (Sweeney: "Guaranteeing Anonymity when Sharing Medical Data, the Datafly System",
AMIA 1997), as a full-domain walk up the lattice.

From the bottom, while the node is not anonymous, generalize by one level the QI that has the
most distinct values in the data at its current level; ties go to the QI whose name sorts
first. It stops at the first anonymous node, as published: a minimal anonymization, not an
optimal one. Suppression works as everywhere else (classes failing the models are suppressed
within the limit), which is where the original's "suppress the last few outliers" step went.
"""

from __future__ import annotations

from sqlanon.lattice import Node
from sqlanon.search.heuristic import HeuristicSearch, generalize


class DataFly(HeuristicSearch):
    name = "datafly"

    def explore(self) -> None:
        node = self.lattice.bottom
        while not self.evaluate(node).anonymous:
            choices = self.below_top(node)
            if not choices:
                return  # the top is not anonymous: nothing is
            node = generalize(node, self.choose(node, choices))

    def choose(self, node: Node, choices: list[int]) -> int:
        """The QI to generalize next."""
        return self.datafly_choice(node, choices)
