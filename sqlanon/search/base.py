"""What every search algorithm shares: the contract, the optimum and its tie order.

An algorithm holds the lattice and the checker, nothing else, and implements ``traverse``.
The optimum is the anonymous node with the lowest loss; ties go to the lowest sum of levels,
then to the first node in the lattice's traversal order (Flash's stable order), so every
algorithm returns the same node for the same job.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sqlanon.checks.checker import CheckResult, Checker
from sqlanon.core import options
from sqlanon.lattice import Lattice
from sqlanon.search.completion import complete
from sqlanon.search.optimum import Optimum

if TYPE_CHECKING:
    from sqlanon.search.tagging import Tags


@dataclass
class SearchOutcome:
    """``proven``: the optimum is the true optimum (always for optimal algorithms; for a
    heuristic only when it explored everything that could beat it)."""

    optimum: CheckResult | None
    counters: dict = field(default_factory=dict)
    trace: list = field(default_factory=list)
    proven: bool = True


class SearchAlgorithm:
    name = ""
    optimal = True
    #: the [search] keys the algorithm owns, taken by its constructor as keyword arguments
    #: (e.g. OLA's ``stable``; sqlanon/core/options.py)
    Options: type[options.Options] = options.Options
    #: the predictive tags of the optimal algorithms that keep them (search/tagging.py), read by
    #: the progress display; the heuristics' budget (search/heuristic.py)
    tags: Tags | None = None
    time_limit: float | None = None
    step_limit: int | None = None

    def __init__(self, lattice: Lattice, checker: Checker):
        self.lattice = lattice
        self.checker = checker
        self.optimum = Optimum(lattice, checker)
        # mostly counts; a heuristic adds why it stopped, the genetic search its minimum levels
        self.counters: dict[str, Any] = {}

    def traverse(self) -> None:
        raise NotImplementedError

    def traverse_without_tags(self) -> None:
        """The search when a privacy model is not monotonic for this suppression limit: a
        node's anonymity then says nothing about its neighbours, so no algorithm may tag
        (ARX disables predictive tagging likewise). Every node is visited bottom-up and
        checked unless the metric's lower bounds (static, or of a checked specialization,
        which hold whatever the models decide) show it cannot beat the optimum."""
        self.counters.update(tagged=0, pruned=0)
        everything = np.ones(self.lattice.index.size, bool)
        self.counters["skipped_by_bound"] = complete(self.lattice, self.checker, everything, self.optimum)

    def run(self) -> SearchOutcome:
        started = self.optimum.started = time.perf_counter()
        # Predictive tags need monotonic models; heuristics use none and always traverse.
        if self.checker.monotonic_models or not self.optimal:
            self.traverse()
        else:
            self.traverse_without_tags()
        counters = {"checks": self.checker.checks, **self.counters, "seconds": time.perf_counter() - started}
        return SearchOutcome(self.optimum.best, counters, self.optimum.trace, self.proven())

    def proven(self) -> bool:
        return self.optimal
