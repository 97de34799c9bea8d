"""Make an optimal search exact when the metric is not monotonic.

With suppression, most metrics can improve under generalization (fewer rows suppressed), so
the optimum need not be a minimal anonymous node. Once an algorithm knows the anonymity of
every node that may matter (checked, tagged, or implied by its k-minimal nodes), this pass visits the anonymous nodes that were never checked, bottom-up
in traversal order, and checks those that can still beat the optimum. A node is skipped when
a lower bound on its loss already loses: the metric's static bound (from its levels alone) or
the largest bound of any checked specialization (bounds only grow under generalization, e.g.
the sum of squared class sizes for discernibility).
"""

from __future__ import annotations

from typing import Callable

from sqlanon.checker import Checker
from sqlanon.lattice import Lattice, Node
from sqlanon.search.base import Optimum


def complete(lattice: Lattice, checker: Checker, is_anonymous: Callable[[Node], bool], optimum: Optimum) -> int:
    """Check every anonymous node that may beat the optimum; return how many were skipped."""
    if checker.monotonic_metric and checker.monotonic_models:
        # Every unchecked anonymous node generalizes a checked anonymous one: its loss is no
        # lower and it comes later in the tie order, so none can win. Only count them.
        return sum(1 for node in lattice.nodes() if checker.checked(node) is None and is_anonymous(node))
    inherited: dict = {}
    skipped = 0
    for node in lattice.nodes():
        bound = max(
            (_known_bound(p, checker, inherited) for p in lattice.predecessors(node)),
            default=float("-inf"),
        )
        static = checker.static_bound(node)
        if static is not None:
            bound = max(bound, static)
        inherited[node] = bound
        if checker.checked(node) is not None or not is_anonymous(node):
            continue
        if optimum.can_improve(bound, node):
            optimum.offer(checker.check(node))
        else:
            skipped += 1
    return skipped


def _known_bound(node, checker: Checker, inherited: dict) -> float:
    result = checker.checked(node)
    return inherited[node] if result is None else max(inherited[node], result.bound)
