"""What the heuristic (anytime) algorithms share: a budget of time and checks, and an
``evaluate`` that checks a node at most once, charges the budget and tracks the best node.

A heuristic never allocates the lattice: it holds the level vectors it visited (the
checker's cache) and whatever frontier it keeps itself. When the budget runs out in the
middle of a traversal, ``BudgetExhausted`` unwinds it and the best node found so far stands.
"""

from __future__ import annotations

import time

from sqlanon.checker import Batch, CheckResult
from sqlanon.lattice import Node
from sqlanon.search.base import SearchAlgorithm


class BudgetExhausted(Exception):
    """Raised by ``evaluate`` when the time or step limit is reached; ``reason`` names it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class HeuristicSearch(SearchAlgorithm):
    optimal = False
    options: tuple[str, ...] = ("time_limit", "step_limit")

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
