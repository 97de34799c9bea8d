"""What the randomized heuristics share: a seeded generator and an evaluation budget.

The seed is drawn when the job gives none and is always reported, so any run can be
repeated exactly. An *evaluation* is one fitness lookup of an individual (a node seen before
costs an evaluation but no check), the unit of the KGen paper's budget.
"""

from __future__ import annotations

import random
import secrets
from sqlanon.core.genetic import GeneticParams
from sqlanon.core.options import RandomizedOptions
from sqlanon.lattice import Node
from sqlanon.search.heuristic import BudgetExhausted, HeuristicSearch


class RandomizedSearch(HeuristicSearch):
    Options = RandomizedOptions

    def __init__(
        self,
        lattice,
        checker,
        time_limit=None,
        step_limit=None,
        seed: int | None = None,
        genetic: GeneticParams | None = None,
    ):
        super().__init__(lattice, checker, time_limit, step_limit)
        self.seed = secrets.randbits(32) if seed is None else seed
        self.params = genetic or GeneticParams()
        self.rng = random.Random(self.seed)
        self.counters.update(seed=self.seed, evaluations=0)

    def fitness(self, node: Node, batch=None):
        """One evaluation: the node's check result (checked once, looked up after that).
        ``batch``: the nodes this one was announced with (``Checker.batch``)."""
        if self.counters["evaluations"] >= self.params.max_evaluations:
            raise BudgetExhausted("max_evaluations")
        self.counters["evaluations"] += 1
        return self.evaluate(node, batch)

    def random_node(self, low: Node | None = None) -> Node:
        low = low or self.lattice.bottom
        return tuple(self.rng.randint(l, h) for l, h in zip(low, self.lattice.heights))
