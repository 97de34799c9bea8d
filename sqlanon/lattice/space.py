"""The generalization lattice, kept implicit: a node is a tuple of levels, one per QI.

Nothing here allocates the whole lattice; successors, predecessors and the nodes of one
level are computed on demand (the optimal algorithms number the whole lattice, ``index``). The traversal order is Flash's stable order (Kohlmayer et al.
2012): c(n) = (level, mean l_j/h_j, 1 - mean distinct_j(l_j)/distinct_j(0)), then the level
vector read in the order of the QIs' names, so every algorithm breaks ties the same way and
permuting the columns of a job changes nothing.
"""

from __future__ import annotations

import gc
from functools import lru_cache
from math import lcm, prod
from operator import ge
from typing import Iterator, Sequence

from sqlanon.core.node import Node
from sqlanon.lattice.index import LatticeIndex


def generalizes(node: Node, other: Node) -> bool:
    """Is ``node`` a generalization of ``other`` (or equal): at least its level on every QI?"""
    return all(map(ge, node, other))


class Lattice:
    """Full-domain generalization lattice over ``heights`` (top level of each QI)."""

    def __init__(
        self,
        heights: Sequence[int],
        distinct: Sequence[Sequence[int]] | None = None,
        names: Sequence[str] | None = None,
    ):
        self.heights: tuple[int, ...] = tuple(heights)
        # The last tie-break reads the levels in the order of the QIs' names, so the traversal
        # (and Flash's checks) does not depend on the order of the columns in the job.
        self._canonical = (
            tuple(sorted(range(len(self.heights)), key=lambda j: names[j]))
            if names
            else tuple(range(len(self.heights)))
        )
        #: names_rank[j]: position of QI j in name order (a column-order-free tie-break)
        self.names_rank = tuple(self._canonical.index(j) for j in range(len(self.heights)))
        # distinct[j][l]: number of distinct values of QI j at level l (for the order only).
        self.distinct = tuple(tuple(d) for d in distinct) if distinct else tuple((1,) * (h + 1) for h in self.heights)
        # Exact integer form of the two means: scale by common denominators.
        span = lcm(*(h for h in self.heights if h)) if any(self.heights) else 1
        self._relative = tuple(span // h if h else 0 for h in self.heights)
        base = lcm(*(d[0] for d in self.distinct))
        self._kept = tuple(tuple(base // d[0] * x for x in d) for d in self.distinct)
        self._kept_total = base * len(self.heights)
        self.order_key = lru_cache(maxsize=None)(self._order_key)
        self._levels: dict[int, list[Node]] = {}
        self._index = None

    @property
    def index(self):
        """The lattice numbered (``sqlanon/lattice/index.py``), built on first use: only the
        optimal algorithms, whose lattices are bounded by max_lattice_size, ask for it."""
        if self._index is None:
            # Tens of thousands of small lists at once would run the cyclic garbage collector
            # over the whole heap (the engine's, too) several times: pause it meanwhile.
            enabled = gc.isenabled()
            gc.disable()
            try:
                self._index = LatticeIndex(self)
            finally:
                if enabled:
                    gc.enable()
        return self._index

    @property
    def dimensions(self) -> int:
        return len(self.heights)

    @property
    def size(self) -> int:
        return prod(h + 1 for h in self.heights)

    @property
    def height(self) -> int:
        """The level of the top node (sum of all heights)."""
        return sum(self.heights)

    @property
    def bottom(self) -> Node:
        return (0,) * len(self.heights)

    @property
    def top(self) -> Node:
        return self.heights

    @staticmethod
    def level(node: Node) -> int:
        return sum(node)

    def successors(self, node: Node) -> list[Node]:
        """Direct generalizations: one QI one level up."""
        return [node[:j] + (node[j] + 1,) + node[j + 1 :] for j in range(len(node)) if node[j] < self.heights[j]]

    def predecessors(self, node: Node) -> list[Node]:
        """Direct specializations: one QI one level down."""
        return [node[:j] + (node[j] - 1,) + node[j + 1 :] for j in range(len(node)) if node[j] > 0]

    def nodes_on_level(self, level: int) -> Iterator[Node]:
        """Every node whose levels sum to ``level``, in lexicographic order."""
        return self.nodes_between(self.bottom, self.top, level)

    def nodes_between(self, low: Node, high: Node, level: int) -> Iterator[Node]:
        """Nodes n with low <= n <= high (per QI) whose levels sum to ``level``, lexicographic."""
        rest = [sum(high[j] for j in range(i, len(high))) for i in range(len(high))] + [0]
        floor = [sum(low[j] for j in range(i, len(low))) for i in range(len(low))] + [0]

        def build(j: int, remaining: int, prefix: tuple[int, ...]) -> Iterator[Node]:
            if j == len(high):
                if remaining == 0:
                    yield prefix
                return
            start = max(low[j], remaining - rest[j + 1])
            stop = min(high[j], remaining - floor[j + 1])
            for value in range(start, stop + 1):
                yield from build(j + 1, remaining - value, prefix + (value,))

        if sum(low) <= level <= sum(high):
            yield from build(0, level, ())

    def nodes(self) -> Iterator[Node]:
        """Every node, bottom-up, each level in traversal order."""
        for level in range(self.height + 1):
            yield from self.ordered_level(level)

    def ordered_level(self, level: int) -> list[Node]:
        """The nodes of one level in traversal order, computed once (only optimal algorithms,
        whose lattices are bounded by max_lattice_size, enumerate levels)."""
        found = self._levels.get(level)
        if found is None:
            nodes = self.index.nodes
            found = self._levels[level] = [nodes[i] for i in self.index.levels[level]]
        return found

    def order_terms(self) -> tuple:
        """The integer terms of ``order_key``, for a vectorized sort of many nodes: per QI the
        weight of a level in the relative height, per QI and level the distinct values kept
        (scaled), their most, and the QIs in name order."""
        return self._relative, self._kept, self._kept_total, self._canonical

    def _order_key(self, node: Node) -> tuple:
        relative = sum(l * r for l, r in zip(node, self._relative))
        kept = sum(d[l] for l, d in zip(node, self._kept))
        return (sum(node), relative, self._kept_total - kept, tuple(node[j] for j in self._canonical))
