"""Random search, the KGen paper's baseline: nodes drawn uniformly from the lattice (each
QI's level uniform over its hierarchy), as many evaluations as the genetic algorithm gets
(``[search.genetic] max_evaluations``), the best anonymous one kept."""

from __future__ import annotations

from sqlanon.checks.checker import BATCH_NODES
from sqlanon.search.randomized import RandomizedSearch


class RandomSearch(RandomizedSearch):
    name = "random"

    def explore(self) -> None:
        while True:
            # The draws do not depend on any verdict: announce them a batch at a time (draws
            # beyond the budget change nothing, the search ends there).
            nodes = [self.random_node() for _ in range(BATCH_NODES)]
            batch = self.checker.batch(nodes)
            for node in nodes:
                self.fitness(node, batch)
