"""The genetic search's ``variant = "hybrid"``: KGen's loop with the parts the paper leaves
open designed for a check budget, and a local search (a memetic algorithm).

KGen as published spends most of a small budget on nodes that cannot win: specializations of
nodes already known to fail, nodes whose loss bound already loses, and it never refines its
best individual, so it comes near the optimum without reaching it (issue 19: on ADULT at
1,000 checks it reached the optimum in 99 of 180 configurations, 92 with seed 2016, ARX's
genetic algorithm in 121; this variant in all 180: bench/genetic_arx.py). What changes, and why:

* **Seeding from both lattice ends.** The first population holds the bottom, the top, and for
  each i the two "triangle" nodes (the first i QIs, in name order, at their top and the rest
  at the bottom, and the reverse), as ARX's genetic algorithm seeds one of its two
  populations; random nodes fill the rest. KGen's preprocessing (raising each QI's minimum
  level, s = 0 and monotonic models only) still runs first: where it applies, the seeds are
  built inside its box.
* **No check is spent on a node known to fail or known to lose.** With monotonic models, a
  node that generalizes to a checked non-anonymous node fails too; one whose metric's static
  lower bound already loses to the best anonymous node cannot win (``hopeless_unchecked``).
* **Repair of infeasible individuals.** A child known to fail is generalized one level at a
  time, in a QI drawn at random, until nothing checked says it fails; only then is it
  checked. A child that cannot win is dropped.
* **Suppression-aware fitness.** Anonymous individuals rank by loss; a non-anonymous one
  ranks behind them by the share of the suppression limit it overshoots, then by loss (KGen's
  survival penalty, measured against the limit so that s = 0 and s = 1 weigh alike).
* **Local search (the memetic step).** After each generation the fittest anonymous
  individual not yet refined is improved by first-improvement descent over its neighbours
  (each QI one level down or up, and one level moved from one QI to another: KGen's
  horizontal move), most promising first (by static bound), until no neighbour is better.
  The genetic loop finds the basin, the descent reaches its bottom: KGen's operators alone
  reach the optimum's neighbourhood but rarely the node itself.
* **Evaluations are checks.** A node seen before is looked up without being counted, so
  ``max_evaluations`` and ``step_limit`` both count distinct nodes. A generation that checks
  nothing new takes random immigrants; after ``STALL`` such generations in a row the search
  ends, and says its best is the optimum only when every node of its (small) box is checked,
  known to fail or unable to win.

Deterministic for a seed: every random draw comes from the search's seeded generator and
every tie goes to the lattice's order.
"""

from __future__ import annotations

from math import prod

import numpy as np

from sqlanon.checks.checker import CheckResult
from sqlanon.lattice import Node

#: generations in a row that check nothing new before the search gives up (every child and
#: immigrant already known, known to fail, or unable to win)
STALL = 10


class Hybrid:
    """One run of the hybrid variant on ``search`` (a ``Genetic``): its checker, budget,
    generator and optimum."""

    def __init__(self, search, low: Node):
        self.search = search
        self.lattice = search.lattice
        self.checker = search.checker
        self.rng = search.rng
        self.params = search.params
        self.low = low
        self.high = self.lattice.heights
        self.monotonic = self.checker.monotonic_models
        self.box = prod(h - l + 1 for l, h in zip(low, self.high))
        #: the maximal checked non-anonymous nodes, one per row (monotonic models)
        self.failing = np.empty((0, len(low)), dtype=np.int64)
        self._keys: dict[Node, tuple] = {}
        self.refined: set[Node] = set()
        self.counters = search.counters
        self.counters.update(generations=0, repaired=0, dropped=0, descents=0, immigrants=0)

    # ---------------------------------------------------------------- the loop
    def run(self) -> None:
        population = self._select(self._seeds(), [])
        stalled = 0
        while stalled < STALL:
            before = self.checker.checks
            children = []
            for _ in range(self.params.population):
                first, second = self._tournament(population), self._tournament(population)
                child = (
                    self.search._crossover(first, second) if self.rng.random() < self.params.crossover else first.node
                )
                if self.rng.random() < self.params.mutation:
                    child = self.search._mutate(child)
                if self.rng.random() < self.params.horizontal_mutation:
                    child = self.search._horizontal(child)
                children.append(child)
            population = self._select(children, population)
            self.counters["generations"] += 1
            best = next((r for r in population if r.anonymous and r.node not in self.refined), None)
            if best is not None:
                population = self._select([self._descend(best)], population)
            stalled = stalled + 1 if self.checker.checks == before else 0
            if stalled:
                immigrants = [self.search.random_node(self.low) for _ in range(max(1, self.params.population // 10))]
                self.counters["immigrants"] += len(immigrants)
                population = self._select(immigrants, population)
        self.search.exhausted = self._decided_everything()

    def _seeds(self) -> list[Node]:
        low, high, n = self.low, self.high, len(self.low)
        order = sorted(range(n), key=lambda j: self.lattice.names_rank[j])
        seeds = [low, high]
        for i in range(1, n):
            raised = set(order[:i])
            seeds.append(tuple(high[j] if j in raised else low[j] for j in range(n)))
            seeds.append(tuple(low[j] if j in raised else high[j] for j in range(n)))
        while len(seeds) < self.params.population:
            seeds.append(self.search.random_node(low))
        return seeds

    # ---------------------------------------------------------------- fitness and selection
    def _key(self, result: CheckResult) -> tuple:
        key = self._keys.get(result.node)
        if key is None:
            if result.anonymous:
                key = (0, result.loss, self.lattice.order_key(result.node))
            else:
                excess = (result.stats.suppressed - self.checker.limit_rows) / max(self.checker.limit_rows, 1)
                key = (1, excess, result.loss, self.lattice.order_key(result.node))
            self._keys[result.node] = key
        return key

    def _select(self, nodes: list[Node], population: list[CheckResult]) -> list[CheckResult]:
        """The fittest ``population`` distinct individuals of ``population`` and ``nodes``
        (each repaired, dropped or checked)."""
        results = {r.node: r for r in population}
        for node in nodes:
            result = self._evaluate(node)
            if result is not None:
                results[result.node] = result
        return sorted(results.values(), key=self._key)[: self.params.population]

    def _tournament(self, population: list[CheckResult]) -> CheckResult:
        return min((self.rng.choice(population) for _ in range(self.params.tournament)), key=self._key)

    def _evaluate(self, node: Node) -> CheckResult | None:
        """The node's result: looked up if checked, else repaired if known to fail, and
        checked unless it cannot win (then None)."""
        known = self.checker.checked(node)
        if known is not None:
            return known
        if self._fails(node):
            repaired = self._repair(node)
            if repaired is None:
                return None
            node = repaired
            known = self.checker.checked(node)
            if known is not None:
                return known
        if self.search.optimum.best is not None and self.search.hopeless_unchecked(node):
            self.counters["dropped"] += 1
            return None
        result = self.search.fitness(node)
        if not result.anonymous and self.monotonic:
            self._add_failing(node)
        return result

    def _fails(self, node: Node) -> bool:
        """Known to fail: it generalizes to a checked non-anonymous node (monotonic models)."""
        return bool(len(self.failing) and (np.asarray(node) <= self.failing).all(axis=1).any())

    def _add_failing(self, node: Node) -> None:
        """Keep only the maximal failing nodes: a node below another says nothing more."""
        levels = np.asarray(node)
        kept = self.failing[~(self.failing <= levels).all(axis=1)]
        self.failing = np.vstack([kept, levels[None, :]])

    def _repair(self, node: Node) -> Node | None:
        """Generalize a random QI one level at a time until nothing checked says the node
        fails (None if it reaches the top still failing: then nothing above it passes)."""
        self.counters["repaired"] += 1
        while self._fails(node):
            free = [j for j in range(len(node)) if node[j] < self.high[j]]
            if not free:
                return None
            j = self.rng.choice(free)
            node = node[:j] + (node[j] + 1,) + node[j + 1 :]
        return node

    # ---------------------------------------------------------------- local search
    def _neighbours(self, node: Node) -> list[Node]:
        n, low, high = len(node), self.low, self.high
        steps = [
            node[:j] + (node[j] + d,) + node[j + 1 :]
            for j in range(n)
            for d in (-1, 1)
            if low[j] <= node[j] + d <= high[j]
        ]
        moves = []
        for i in range(n):
            for j in range(n):
                if i != j and node[i] > low[i] and node[j] < high[j]:
                    levels = list(node)
                    levels[i] -= 1
                    levels[j] += 1
                    moves.append(tuple(levels))
        return steps + moves

    def _promise(self, node: Node) -> tuple:
        bound = self.checker.static_bound(node)
        return (0.0 if bound is None else bound, self.lattice.order_key(node))

    def _descend(self, start: CheckResult) -> Node:
        """First-improvement descent from an anonymous individual; returns where it ends."""
        self.counters["descents"] += 1
        current = start
        while True:
            self.refined.add(current.node)
            better = None
            for node in sorted(self._neighbours(current.node), key=self._promise):
                result = self._evaluate(node)
                if (
                    result is not None
                    and result.anonymous
                    and self.search.optimum.precedes(result.loss, result.node, current.loss, current.node)
                ):
                    better = result
                    break
            if better is None:
                return current.node
            current = better

    def _decided_everything(self) -> bool:
        """Every node of the box is checked, or known to fail, or cannot win (then the best
        is the optimum). Asked once, when the search stalls; only on small boxes (it walks them)."""
        if self.box > 4 * max(self.params.max_evaluations, 1):
            return False
        for flat in range(self.box):
            levels, rest = [], flat
            for l, h in zip(self.low, self.high):
                rest, offset = divmod(rest, h - l + 1)
                levels.append(l + offset)
            node = tuple(levels)
            if (
                self.checker.checked(node) is None
                and not self._fails(node)
                and not (self.search.optimum.best is not None and self.search.hopeless_unchecked(node))
            ):
                return False
        return True
