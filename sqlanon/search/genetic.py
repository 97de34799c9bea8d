"""A genetic algorithm after KGen (De Pascale, Cascavilla, Tamburri, Van Den Heuvel:
"Real-world K-Anonymity Applications: the KGen approach and its evaluation in Fraudulent
Transactions", Information Systems 2023).

An individual is a node (one level per QI). The steps, with the choices we made where the
paper leaves room:

* **Preprocessing** (only when no row may be suppressed and the models are monotonic): each
  QI's minimum level is raised to the lowest level at which that column alone is anonymous,
  found by binary search on the nodes that keep every other QI at its top level. With
  suppression, or a model that is not monotonic, this is unsound (a column that fails alone
  may pass together with the others), so it is skipped.
* **Fitness** with the *survival penalty*: anonymous individuals rank by loss; every
  non-anonymous one ranks behind all of them, by how many rows it suppresses beyond the limit,
  then by loss. The population is the ``population`` best distinct individuals of parents and
  children (missing places are filled with random immigrants).
* **Selection**: tournaments of ``tournament`` individuals drawn at random; the fittest wins.
* **Crossover** (probability ``crossover``), three cases: both parents anonymous: per QI the
  lower level (towards less loss); neither anonymous: per QI the higher level (towards
  anonymity); one of each: per QI a random level between the two. Without crossover the
  child copies the first parent.
* **Mutation** (probability ``mutation``): one QI set to a random other level.
  **Horizontal mutation** (probability ``horizontal_mutation``): one level moves from one QI
  to another, so the child stays on the same lattice level with a different shape.
* The search stops after ``max_evaluations`` evaluations (default 5000) or at the time or
  step limit.

This is ``variant = "kgen"`` (the default). ``variant = "hybrid"`` runs the same loop with the
changes described in ``sqlanon/search/genetic_hybrid.py`` (seeding from both lattice ends,
no check on nodes known to fail or to lose, repair, a local search): after the preprocessing
above, ``explore`` hands over to it.
"""

from __future__ import annotations

from math import prod

from sqlanon.checks.checker import CheckResult
from sqlanon.lattice import Node
from sqlanon.search.genetic_hybrid import Hybrid
from sqlanon.search.randomized import RandomizedSearch


class Genetic(RandomizedSearch):
    name = "genetic"

    def explore(self) -> None:
        p = self.params
        low = self._minimum_levels()
        if low is None:
            return  # the top is not anonymous: no node is
        self.low = low
        if p.variant == "hybrid":
            Hybrid(self, self.low).run()
            return
        self._box = prod(h - l + 1 for l, h in zip(self.low, self.lattice.heights))
        population = self._select([self.random_node(self.low) for _ in range(p.population)])
        self.counters["generations"] = 0
        while True:
            children = []
            for _ in range(p.population):
                first, second = self._tournament(population), self._tournament(population)
                child = self._crossover(first, second) if self.rng.random() < p.crossover else first.node
                if self.rng.random() < p.mutation:
                    child = self._mutate(child)
                if self.rng.random() < p.horizontal_mutation:
                    child = self._horizontal(child)
                children.append(child)
            population = self._select([r.node for r in population] + children)
            self.counters["generations"] += 1

    def _key(self, result: CheckResult) -> tuple:
        if result.anonymous:
            return (0, result.loss, self.lattice.order_key(result.node))
        excess = result.stats.suppressed - self.checker.limit_rows
        return (1, excess, result.loss, self.lattice.order_key(result.node))

    def _select(self, nodes: list[Node]) -> list[CheckResult]:
        """The fittest ``population`` distinct individuals, topped up with immigrants."""
        results = {}
        batch = self.checker.batch(nodes)  # parents and children, known before any verdict
        for node in nodes:
            if node not in results:
                results[node] = self.fitness(node, batch)
        while len(results) < min(self.params.population, self._box):
            node = self.random_node(self.low)
            if node not in results:
                results[node] = self.fitness(node)
        return sorted(results.values(), key=self._key)[: self.params.population]

    def _tournament(self, population: list[CheckResult]) -> CheckResult:
        return min((self.rng.choice(population) for _ in range(self.params.tournament)), key=self._key)

    def _crossover(self, a: CheckResult, b: CheckResult) -> Node:
        if a.anonymous and b.anonymous:
            return tuple(map(min, a.node, b.node))
        if not a.anonymous and not b.anonymous:
            return tuple(map(max, a.node, b.node))
        return tuple(self.rng.randint(min(x, y), max(x, y)) for x, y in zip(a.node, b.node))

    def _mutate(self, node: Node) -> Node:
        free = [j for j in range(len(node)) if self.lattice.heights[j] > self.low[j]]
        if not free:
            return node
        j = self.rng.choice(free)
        level = self.rng.choice([l for l in range(self.low[j], self.lattice.heights[j] + 1) if l != node[j]])
        return node[:j] + (level,) + node[j + 1 :]

    def _horizontal(self, node: Node) -> Node:
        down = [j for j in range(len(node)) if node[j] > self.low[j]]
        up = [j for j in range(len(node)) if node[j] < self.lattice.heights[j]]
        pairs = [(i, j) for i in down for j in up if i != j]
        if not pairs:
            return node
        i, j = self.rng.choice(pairs)
        levels = list(node)
        levels[i] -= 1
        levels[j] += 1
        return tuple(levels)

    def _minimum_levels(self) -> Node | None:
        top = self.lattice.top
        if self.checker.limit_rows > 0 or not self.checker.monotonic_models:
            return self.lattice.bottom
        if not self.fitness(top).anonymous:
            return None
        low = []
        for j, height in enumerate(top):
            lo, hi = 0, height  # hi: lowest level known to be anonymous alone
            while lo < hi:
                mid = (lo + hi) // 2
                if self.fitness(top[:j] + (mid,) + top[j + 1 :]).anonymous:
                    hi = mid
                else:
                    lo = mid + 1
            low.append(hi)
        self.counters["minimum_levels"] = list(low)
        return tuple(low)
