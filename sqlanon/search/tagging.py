"""Predictive tagging (shared by Flash and the other optimal algorithms).

Privacy models here are monotonic: if a node is anonymous so is every generalization of it,
and if it is not, neither is any specialization. So a check tags in one direction: an
anonymous result propagates UP, a non-anonymous one propagates DOWN.

A third tag, *pruned*, marks nodes that cannot beat the optimum found so far (a lower bound on
their loss already loses); it propagates UP, since bounds only grow under generalization.
Their anonymity is never needed, and no non-anonymous result reaches them (they lie above
untagged nodes only, below).

Nodes are the lattice's ids (``sqlanon/lattice/index.py``) and the tags one byte per node. A
spread walks the neighbours from the node, which costs what it tags; when the walk's frontier
grows past a few nodes, the rest is a few array operations on the node's box of the lattice
(its generalizations or specializations), which cost the same whatever the box holds. Both
tag the same nodes, because a node is checked, pruned or tagged only while untagged, and so

* the nodes tagged NOT_ANONYMOUS stay closed downwards: a walk down passes through every node
  not so tagged and stops only at one whose specializations all are;
* the nodes tagged ANONYMOUS or PRUNED stay closed upwards, likewise; and no node above an
  untagged one is NOT_ANONYMOUS (that node would be tagged too).

Hence a spread up reaches exactly the untagged nodes among the node's generalizations, and a
spread down exactly the nodes among its specializations not yet tagged NOT_ANONYMOUS. Those
are its untagged ones, too: below the node, untagged until its check, nothing is ANONYMOUS or
PRUNED (that node would be), and above it nothing is NOT_ANONYMOUS. So a box's new tags are
counted as its size less its nonzero bytes before the spread, and, while nothing has been
pruned, a box is filled whole: over a box (a strided view with one axis per QI) numpy counts
nonzero bytes and fills in about a microsecond, where a comparison or a masked assignment
costs 5-10. Once the process has loaded it (a session with local checks does, in its
background thread), a spread is instead one compiled walk through the untagged neighbours
(``sqlanon/search/tag_loops.py``), which costs what it tags, with no box: the same nodes again.
"""

from __future__ import annotations

import sys

import numpy as np

from sqlanon.lattice.index import LatticeIndex

UNKNOWN, ANONYMOUS, NOT_ANONYMOUS, PRUNED = 0, 1, 2, 3
#: a walk whose frontier outgrows this finishes on the box (measured: bench/README.md, "Search overhead")
WALK = 4


class Tags:
    """Per node id: UNKNOWN, ANONYMOUS, NOT_ANONYMOUS or PRUNED (``state``, one byte each)."""

    def __init__(self, index: LatticeIndex):
        self.index = index
        # one byte more: the missing neighbour (``index.size``) stays tagged, so walks stop there
        self.state = bytearray(index.size + 1)
        self.state[index.size] = NOT_ANONYMOUS
        # A box is a view of these bytes with one axis per QI (an id's byte is its offset,
        # a QI's stride its step): built directly, not by slicing a reshaped view, which
        # costs twice as much (nine slice objects, then numpy's parsing of them).
        self._nodes, self._shape, self._strides = index.nodes, index.shape, index.strides
        self.predicted = 0  # nodes tagged anonymous or not without a check
        self.pruned = 0  # nodes tagged PRUNED
        # The compiled walk once this process has loaded it (sqlanon/search/tag_loops.py), else the
        # Python walk and box below: they tag the same nodes.
        loops = sys.modules.get("sqlanon.search.tag_loops")
        self._walk = loops.spread if loops is not None and loops.READY else None
        if self._walk is not None:
            self._bytes = np.frombuffer(self.state, np.uint8)  # the same memory
            self._stack = np.empty(index.size + 1, np.int64)  # a node is pushed once, when tagged

    def known(self, node: int) -> bool:
        return self.state[node] != UNKNOWN

    def is_anonymous(self, node: int) -> bool:
        return self.state[node] == ANONYMOUS

    def anonymous(self) -> np.ndarray:
        """A mask over the ids: the nodes tagged anonymous."""
        return np.frombuffer(self.state, np.uint8, count=self.index.size) == ANONYMOUS

    def record(self, node: int, anonymous: bool) -> None:
        """Tag a checked node (untagged until now) and everything its result implies."""
        if anonymous:
            self.state[node] = ANONYMOUS
            self.predicted += self._spread_up(node, ANONYMOUS)
        else:
            self.state[node] = NOT_ANONYMOUS
            self._spread_down(node)

    def prune(self, node: int) -> None:
        """Tag an untagged node that cannot become the optimum, and all its generalizations."""
        self.state[node] = PRUNED
        self.pruned += 1 + self._spread_up(node, PRUNED)

    def _spread_up(self, node: int, value: int) -> int:
        """Tag ``value`` the untagged generalizations; return how many."""
        if self._walk is not None:
            return self._walk(self._bytes, self.index.up_array, node, value, self._stack)
        state, up = self.state, self.index.up
        frontier = [node]
        count = 0
        while frontier:
            for other in up[frontier.pop()]:
                if not state[other]:
                    state[other] = value
                    count += 1
                    frontier.append(other)
            if len(frontier) > WALK:
                above = self._above(node)
                if self.pruned or value != ANONYMOUS:
                    # PRUNED nodes may be above (or are being tagged): keep what is tagged
                    untagged = above == UNKNOWN
                    above[untagged] = value
                    return count + int(np.count_nonzero(untagged))
                # only UNKNOWN and ANONYMOUS above (see the module's docstring)
                count += above.size - int(np.count_nonzero(above))
                above.fill(ANONYMOUS)
                return count
        return count

    def _spread_down(self, node: int) -> None:
        """Tag NOT_ANONYMOUS the specializations not yet so: the untagged ones (see the
        module's docstring), each a prediction."""
        if self._walk is not None:
            self.predicted += self._walk(self._bytes, self.index.down_array, node, NOT_ANONYMOUS, self._stack)
            return
        state, down, tag = self.state, self.index.down, NOT_ANONYMOUS
        frontier = [node]
        predicted = 0
        while frontier:
            for other in down[frontier.pop()]:
                if not state[other]:
                    state[other] = tag
                    predicted += 1
                    frontier.append(other)
            if len(frontier) > WALK:
                below = self._below(node)
                predicted += below.size - int(np.count_nonzero(below))
                below.fill(tag)
                break
        self.predicted += predicted

    def _above(self, node: int) -> np.ndarray:
        """The node and its generalizations: a view of ``state``, one axis per QI."""
        shape = [top - level for top, level in zip(self._shape, self._nodes[node])]
        return np.ndarray(shape, np.uint8, self.state, node, self._strides)

    def _below(self, node: int) -> np.ndarray:
        """The node and its specializations (from id 0, the bottom)."""
        shape = [level + 1 for level in self._nodes[node]]
        return np.ndarray(shape, np.uint8, self.state, 0, self._strides)
