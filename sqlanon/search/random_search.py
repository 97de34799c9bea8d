"""Random search, the KGen paper's baseline: nodes drawn uniformly from the lattice (each
QI's level uniform over its hierarchy), as many evaluations as the genetic algorithm gets
(``[search.genetic] max_evaluations``), the best anonymous one kept."""

from __future__ import annotations

from sqlanon.search.randomized import RandomizedSearch


class RandomSearch(RandomizedSearch):
    name = "random"

    def explore(self) -> None:
        while True:
            self.fitness(self.random_node())
