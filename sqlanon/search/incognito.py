"""Incognito (LeFevre, DeWitt, Ramakrishnan: "Incognito: Efficient Full-Domain
K-Anonymity", SIGMOD 2005).

For every subset of the QIs, of size 1, 2, ..., n in turn, the generalization lattice of that
subset is searched bottom-up breadth-first; an anonymous node tags its generalizations in the
subset lattice without a check. Candidates of size i+1 are built from the anonymous nodes of
size i (the a-priori step): a candidate survives only if every projection onto i of its QIs
was anonymous, because a projection is a generalization (the dropped QIs at their top level)
and anonymity, with suppression too, is kept under generalization. The anonymous nodes of the
last round are exactly the anonymous nodes of the full lattice.

A node of a subset lattice is checked as the full-lattice node with the absent QIs at their top
level: grouping by a column with one value is grouping by the others, so its class table is
the projection's. ``complete`` then makes the optimum exact for non-monotonic metrics.
"""

from __future__ import annotations

import itertools

import numpy as np

from sqlanon.lattice import Node
from sqlanon.search.base import SearchAlgorithm
from sqlanon.search.completion import complete

ABSENT = -1


class Incognito(SearchAlgorithm):
    name = "incognito"

    def traverse(self) -> None:
        lattice = self.lattice
        d = lattice.dimensions
        self.counters["tagged"] = 0
        self.counters["candidates"] = 0
        # Subset nodes checked; several map to one full-lattice node (the absent QIs at top),
        # and the checker answers a repeat from its cache, so "checks" can be lower than this.
        self.counters["evaluations"] = 0
        survivors: set[Node] = set()
        for size in range(1, d + 1):
            candidates = self._candidates(size, survivors)
            self.counters["candidates"] += len(candidates)
            survivors = self._search(candidates)
        # the last round's subsets are the full QI set: its anonymous nodes are full-lattice nodes
        anonymous = np.zeros(lattice.index.size, bool)
        anonymous[lattice.index.ids(survivors)] = True
        self.counters["skipped_by_bound"] = complete(lattice, self.checker, anonymous, self.optimum)

    def _candidates(self, size: int, previous: set[Node]) -> set[Node]:
        d, heights = self.lattice.dimensions, self.lattice.heights
        if size == 1:
            return {
                tuple(level if j == a else ABSENT for j in range(d))
                for a in range(d)
                for level in range(heights[a] + 1)
            }
        result = set()
        for node in previous:
            present = [j for j in range(d) if node[j] != ABSENT]
            for extra in range(present[-1] + 1, d):
                for level in range(heights[extra] + 1):
                    candidate = node[:extra] + (level,) + node[extra + 1 :]
                    # a-priori: every projection dropping one QI must have been anonymous
                    if all(candidate[:j] + (ABSENT,) + candidate[j + 1 :] in previous for j in present):
                        result.add(candidate)
        return result

    def _search(self, candidates: set[Node]) -> set[Node]:
        """Breadth-first from the bottom of each subset lattice; returns the anonymous nodes."""
        anonymous: set[Node] = set()
        order = sorted(candidates, key=lambda n: (sum(l for l in n if l != ABSENT), n))
        for _, group in itertools.groupby(order, key=_height):
            same_level = list(group)
            # A node tags only higher levels, so which nodes of this level get checked is
            # known once the levels below are done: the engine may compute them together.
            batch = self.checker.batch(self._full(n) for n in same_level if n not in anonymous)
            for node in same_level:
                if node in anonymous:
                    continue
                self.counters["evaluations"] += 1
                result = batch.check(self._full(node))
                self.optimum.offer(result)
                if result.anonymous:
                    anonymous.add(node)
                    self._tag_up(node, candidates, anonymous)
        return anonymous

    def _tag_up(self, node: Node, candidates: set[Node], anonymous: set[Node]) -> None:
        heights = self.lattice.heights
        frontier = [node]
        while frontier:
            current = frontier.pop()
            for j, level in enumerate(current):
                if level != ABSENT and level < heights[j]:
                    up = current[:j] + (level + 1,) + current[j + 1 :]
                    if up in candidates and up not in anonymous:
                        anonymous.add(up)
                        self.counters["tagged"] += 1
                        frontier.append(up)

    def _full(self, node: Node) -> Node:
        return tuple(h if level == ABSENT else level for level, h in zip(node, self.lattice.heights))


def _height(node: Node) -> int:
    """The level of a subset-lattice node (its present QIs' levels summed)."""
    return sum(l for l in node if l != ABSENT)
