"""What the heuristic (anytime) algorithms share: a budget of time and checks, and an
``evaluate`` that checks a node at most once, charges the budget and tracks the best node.

A heuristic never allocates the lattice: it holds the level vectors it visited (the
checker's cache) and whatever frontier it keeps itself. When the budget runs out in the
middle of a traversal, ``BudgetExhausted`` unwinds it and the best node found so far stands.
"""

from __future__ import annotations

import time

from sqlanon.checks.checker import Batch, CheckResult
from sqlanon.core import options
from sqlanon.lattice import Node
from sqlanon.search.base import SearchAlgorithm


class BudgetExhausted(Exception):
    """Raised by ``evaluate`` when the time or step limit is reached; ``reason`` names it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class HeuristicSearch(SearchAlgorithm):
    optimal = False
    Options: type[options.Options] = options.HeuristicOptions

    def __init__(self, lattice, checker, time_limit: float | None = None, step_limit: int | None = None):
        super().__init__(lattice, checker)
        self.time_limit = time_limit
        self.step_limit = step_limit
        #: why the search ended: "done" (its own termination rule) or the limit that stopped it
        self.stopped = "done"
        #: True when the search covered every node that could beat its best (then it is optimal)
        self.exhausted = False

    def evaluate(self, node: Node, batch: Batch | None = None) -> CheckResult:
        """The node's check result, checking it (and charging the budget) if it is new.
        ``batch``: the nodes this one was announced with (``Checker.batch``)."""
        result = self.checker.checked(node)
        if result is not None:
            return result
        if self.step_limit is not None and self.checker.checks >= self.step_limit:
            raise BudgetExhausted("step_limit")
        if self.time_limit is not None and time.perf_counter() - self.optimum.started >= self.time_limit:
            raise BudgetExhausted("time_limit")
        result = (batch or self.checker).check(node)
        self.optimum.offer(result)
        return result

    def traverse(self) -> None:
        try:
            self.explore()
        except BudgetExhausted as stop:
            self.stopped = stop.reason
            self.exhausted = False
        self.counters["stopped"] = self.stopped
        if self.optimum.best is None:
            self.counters["fallback_checks"] = self.fall_back()

    def fall_back(self) -> int:
        """No anonymous node when the search ended (its budget, or its own rule): before
        saying there is no solution, check the lattice's top, outside the budget. If the top
        is anonymous and every model is monotonic, climb from the best non-anonymous node
        checked (fewest suppressed rows) along DataFly's path to the top (``climb``) and
        binary-search it for its first anonymous node: a few checks for a node usually far
        cheaper than the top. Returns the checks this took; the search has no solution only
        when the top fails. (Lightning with a 20 s budget on creditcard's QIs found nothing
        where DataFly found a node in seconds: issue 19.)"""
        checker, before = self.checker, self.checker.checks
        top = checker.check(self.lattice.top)  # the cached result if the search checked it
        self.optimum.offer(top)
        failing = [r for r in checker.results() if not r.anonymous]
        if not top.anonymous or not checker.monotonic_models or not failing:
            return checker.checks - before
        path = self.climb(min(failing, key=self._closeness).node)
        low, high = 1, len(path) - 1  # path[0] fails, path[-1] (the top) is anonymous
        while low < high:  # monotonic models: the path fails up to some node, then holds
            middle = (low + high) // 2
            result = checker.check(path[middle])
            self.optimum.offer(result)
            if result.anonymous:
                high = middle
            else:
                low = middle + 1
        return checker.checks - before

    def climb(self, start: Node) -> list[Node]:
        """DataFly's path from ``start`` to the top: one level at a time, of the QI it would
        generalize next (``preference``)."""
        path = [start]
        while path[-1] != self.lattice.top:
            node = path[-1]
            path.append(generalize(node, self.datafly_choice(node, self.below_top(node))))
        return path

    def below_top(self, node: Node) -> list[int]:
        """The QIs ``node`` can still generalize."""
        return [j for j in range(len(node)) if node[j] < self.lattice.heights[j]]

    def datafly_choice(self, node: Node, choices: list[int]) -> int:
        """The QI among ``choices`` DataFly generalizes next (``preference``)."""
        return min(choices, key=lambda j: self.preference(node, j))

    def preference(self, node: Node, j: int) -> tuple:
        """DataFly's sort key of QI j as the next to generalize (smallest first): most
        distinct values in the data at its current level, then the QI name order the lattice
        uses for ties everywhere."""
        return (-self.checker.ctx.distinct_by_level[j][node[j]], self.lattice.names_rank[j])

    def _closeness(self, result: CheckResult) -> tuple:
        """How near a non-anonymous node is to anonymity: suppressed rows, then loss, then
        the lattice's tie order."""
        return (result.stats.suppressed, result.loss, self.lattice.order_key(result.node))

    def explore(self) -> None:
        raise NotImplementedError

    def proven(self) -> bool:
        return self.exhausted

    def beaten(self, result: CheckResult) -> bool:
        """True when neither this node nor any generalization can beat the best found: its
        lower bound (with the lattice's tie order, which only grows upwards) already loses."""
        return not self.optimum.can_improve(result.bound, result.node)

    def hopeless_unchecked(self, node: Node) -> bool:
        """As ``beaten``, from the metric's static bound alone (no check needed)."""
        bound = self.checker.static_bound(node)
        return bound is not None and not self.optimum.can_improve(bound, node)


def generalize(node: Node, j: int) -> Node:
    """``node`` with QI j one level higher."""
    return node[:j] + (node[j] + 1,) + node[j + 1 :]
