"""The best anonymous node a search has seen, in the optimum's order (the loss, then the
lattice's stable order among equal losses), and the trace of its improvements: what every
algorithm and the completion pass (``completion.py``) offer their checked nodes to."""

from __future__ import annotations

import math
import time

from sqlanon.checks.checker import CheckResult, Checker
from sqlanon.lattice import Lattice, Node


class Optimum:
    """The best anonymous node seen so far, and its history: ``trace`` holds one entry
    (seconds since the search started, checks so far, loss) each time the best loss drops."""

    def __init__(self, lattice: Lattice, checker: Checker | None = None):
        self.lattice = lattice
        self.checker = checker
        self.best: CheckResult | None = None
        self.started = time.perf_counter()
        self.trace: list[dict] = []

    def offer(self, result: CheckResult) -> None:
        if result.anonymous and (
            self.best is None or self.precedes(result.loss, result.node, self.best.loss, self.best.node)
        ):
            if self.best is None or not same_loss(result.loss, self.best.loss):
                self.trace.append(
                    {
                        "seconds": round(time.perf_counter() - self.started, 6),
                        "checks": self.checker.checks if self.checker else None,
                        "loss": result.loss,
                    }
                )
            self.best = result

    def can_improve(self, bound: float, node: Node) -> bool:
        """Can a node whose loss is at least ``bound`` still become the optimum?"""
        if self.best is None:
            return True
        return self.precedes(bound, node, self.best.loss, self.best.node)

    def precedes(self, loss: float, node: Node, other_loss: float, other: Node) -> bool:
        """Does (loss, node) come before (other_loss, other) in the optimum's order?"""
        if same_loss(loss, other_loss):
            return self.lattice.order_key(node) < self.lattice.order_key(other)
        return loss < other_loss


def same_loss(a: float, b: float) -> bool:
    """Losses equal up to float rounding. Sums such as KL-divergence reach mathematically
    equal values in different orders (the database aggregates in parallel), so an exact
    comparison would let the last bit, not the tie order, pick the optimum."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
