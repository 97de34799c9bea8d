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

import numpy as np

from sqlanon.checks.checker import Checker
from sqlanon.lattice import Lattice
from sqlanon.search.optimum import Optimum


def complete(lattice: Lattice, checker: Checker, anonymous: np.ndarray, optimum: Optimum) -> int:
    """Check every anonymous node that may beat the optimum; return how many were skipped.
    ``anonymous`` is a mask over the lattice's ids (``sqlanon/lattice/index.py``)."""
    index = lattice.index
    results = list(checker.results())
    ids = index.ids([r.node for r in results])  # one per checked node
    if checker.monotonic_metric and checker.monotonic_models:
        # Every unchecked anonymous node generalizes a checked anonymous one: its loss is no
        # lower and it comes later in the tie order, so none can win. Only count them.
        return int(np.count_nonzero(anonymous)) - int(np.count_nonzero(anonymous[ids]))
    checked = np.zeros(index.size, bool)
    checked[ids] = True
    # known[id]: the largest lower bound known for the node, from its own check or inherited
    # from its specializations; a last slot stands for "no specialization". float64 holds
    # integer bounds exactly below 2**53 (discernibility's sum of squares: ~95 M rows).
    known = np.full(index.size + 1, -np.inf)
    own = np.full(index.size, -np.inf)
    own[ids] = [r.bound for r in results]
    static = checker.static_bound(lattice.bottom) is not None
    skipped = 0
    # Level by level: a node's inherited bound reads only the level below, so a level's bounds
    # are computed at once; then its unchecked anonymous nodes are decided in traversal order.
    for level, below in zip(index.level_ids, index.level_down):
        inherited = known[below].max(axis=1)
        if static:
            bounds = (checker.static_bound(index.nodes[i]) for i in level.tolist())
            inherited = np.maximum(inherited, [-np.inf if b is None else b for b in bounds])
        known[level] = np.maximum(inherited, own[level])
        todo = np.flatnonzero(anonymous[level] & ~checked[level])
        candidates, values = level[todo].tolist(), inherited[todo]
        checks = 0
        start = 0
        while start < len(candidates):
            best = optimum.best
            # Only the nodes whose bound does not lose to this optimum beyond same_loss's
            # tolerance need a decision; until the optimum changes, the others are skipped.
            maybe = (
                range(start, len(candidates))
                if best is None
                else (start + np.flatnonzero(~_loses(values[start:], best.loss))).tolist()
            )
            start = len(candidates)
            # Until the optimum changes (then this pass breaks), which of them get checked is
            # known now: the engine may compute them together.
            batch = checker.batch(
                index.nodes[candidates[p]]
                for p in maybe
                if optimum.can_improve(float(values[p]), index.nodes[candidates[p]])
            )
            for position in maybe:
                node, bound = candidates[position], float(values[position])
                if optimum.can_improve(bound, index.nodes[node]):
                    result = batch.check(index.nodes[node])
                    checks += 1
                    optimum.offer(result)
                    known[node] = max(bound, result.bound)
                    if optimum.best is not best:
                        start = position + 1
                        break
        skipped += len(candidates) - checks
    return skipped


def _loses(bounds: np.ndarray, best: float) -> np.ndarray:
    """Where ``Optimum.can_improve`` is surely false: the bound is above ``best`` and not
    ``same_loss`` (math.isclose's test, vectorized; NaN and infinities never lose here)."""
    gap = bounds - best
    return (gap > 0) & (np.abs(gap) > np.maximum(1e-9 * np.maximum(np.abs(bounds), abs(best)), 1e-12))
