"""OLA, Optimal Lattice Anonymization (El Emam, Dankar, Issa et al.: "A Globally Optimal
k-Anonymity Method for the De-Identification of Health Data", JAMIA 2009).

Divide and conquer over sublattices (b, t): the nodes between b and t on the middle level
floor((level(b) + level(t)) / 2) are visited in turn; an untagged one is checked (and tagged
predictively: anonymous up, non-anonymous down); the search recurses into the lower
sublattice (b, m) when m is anonymous and into the upper one (m, t) otherwise. A sublattice of
height one or zero contributes its lowest anonymous node (b, else t) to the k-minimal set. Nodes are taken
in natural (lexicographic) order, or with ``stable`` in Flash's order (the Flash paper's
StableOLA). A sublattice already explored is not explored again.

The anonymity of every node follows from the k-minimal set (a node is anonymous iff it
generalizes a k-minimal node), so ``complete`` then makes the optimum exact for metrics that
are not monotonic; with a monotonic metric the optimum is a k-minimal node and it checks nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sqlanon.core.options import OLAOptions
from sqlanon.lattice import Node
from sqlanon.search.base import SearchAlgorithm
from sqlanon.search.completion import complete
from sqlanon.search.tagging import Tags


class OLA(SearchAlgorithm):
    name = "ola"
    Options = OLAOptions
    tags: Tags  # made by ``traverse`` before anything reads it

    def __init__(self, lattice, checker, stable: bool = False):
        super().__init__(lattice, checker)
        self.stable = stable

    def traverse(self) -> None:
        self.index = self.lattice.index
        self.tags = Tags(self.index)
        self.minimal: set[Node] = set()
        self.explored: set[tuple[Node, Node]] = set()
        self._kmin(self.lattice.bottom, self.lattice.top)
        # The anonymous nodes, given the k-minimal ones: they and all their generalizations.
        anonymous = self.index.upward_closure(self.index.id(n) for n in self.minimal)
        self.counters["tagged"] = self.tags.predicted
        padded = np.append(anonymous, False)  # the missing neighbour is not anonymous
        self.counters["k_minimal"] = sum(
            1 for n in self.minimal if not any(padded[p] for p in self.index.down[self.index.id(n)])
        )
        self.counters["skipped_by_bound"] = complete(self.lattice, self.checker, anonymous, self.optimum)

    def _anonymous(self, node: Node) -> bool:
        number = self.index.id(node)
        if not self.tags.known(number):
            result = self.checker.check(node)
            self.tags.record(number, result.anonymous)
            self.optimum.offer(result)
        return self.tags.is_anonymous(number)

    def _kmin(self, bottom: Node, top: Node) -> None:
        if (bottom, top) in self.explored:
            return
        self.explored.add((bottom, top))
        low, high = sum(bottom), sum(top)
        if high - low > 1:
            middle: Iterable[Node] = self.lattice.nodes_between(bottom, top, (low + high) // 2)
            if self.stable:
                middle = sorted(middle, key=self.lattice.order_key)
            for node in middle:
                if self._anonymous(node):
                    self._kmin(bottom, node)
                else:
                    self._kmin(node, top)
        else:
            # The published step takes t when b is tagged non-anonymous and b otherwise; b is
            # untagged only as the bottom of the whole lattice, and then t must be tried too.
            for node in dict.fromkeys((bottom, top)):
                if self._anonymous(node):
                    self.minimal.add(node)
                    break
