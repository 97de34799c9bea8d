"""The lattice numbered, for the optimal algorithms' bookkeeping.

A node's id is its level vector read as a mixed-radix number (the last QI varies fastest), so
ids follow the lexicographic order of the level vectors, a direct generalization along QI j is
``id + strides[j]``, and an array over the ids reshaped to ``shape`` (one axis per QI) holds
the generalizations of a node as the slice from its levels to the top, its specializations as
the slice from the bottom to its levels. Tags, known bounds and the traversal order then live
in flat arrays instead of dicts and sets of tuples: with a check at a fraction of a
millisecond, building and hashing tuples per neighbour would cost more than the checks.

Built once per lattice, only by the optimal algorithms (their lattices are bounded by
``max_lattice_size``); heuristics keep the implicit, tuple-based lattice.
"""

from __future__ import annotations

from itertools import chain, product
from typing import Protocol

import numpy as np

from sqlanon.core.node import Node


class Numbered(Protocol):
    """What the index reads of the lattice it numbers (``space.Lattice``, which builds its
    index on first use, so this module does not import it)."""

    heights: tuple[int, ...]

    @property
    def size(self) -> int: ...

    @property
    def height(self) -> int: ...

    def order_terms(self) -> tuple: ...

    def order_key(self, node: Node) -> tuple: ...


#: the types of the neighbour arrays the compiled walk reads (``up_array``, ``down_array``)
WALK_IDS = (np.uint16, np.int64)

_INT64 = 2**62  # headroom for the exact integer order keys


class LatticeIndex:
    def __init__(self, lattice: Numbered):
        heights = np.array(lattice.heights, np.int64)
        d = len(heights)
        self.size = n = lattice.size
        self.shape: tuple[int, ...] = tuple(h + 1 for h in lattice.heights)
        self.strides: tuple[int, ...] = tuple(int(np.prod(self.shape[j + 1 :], dtype=np.int64)) for j in range(d))
        #: nodes[id]: the level vector (itertools.product runs in id order)
        self.nodes: list[Node] = list(product(*(range(r) for r in self.shape)))
        ids = np.arange(n, dtype=np.int64)
        stride = self._stride = np.array(self.strides, np.int64)
        matrix = ids[:, None] // stride % np.array(self.shape, np.int64) if d else np.zeros((n, 0), np.int64)
        level_of = matrix.sum(axis=1)
        # The traversal order (Flash's stable order, Lattice.order_key), whole and per level.
        order = self._order(lattice, matrix, level_of)
        #: order[r]: the id at position r of the traversal; rank[id]: its position
        self.order: list[int] = order.tolist()
        rank = np.empty(n, np.int64)
        rank[order] = ids
        self.rank: list[int] = rank.tolist()
        cuts = np.searchsorted(level_of[order], np.arange(lattice.height + 2))
        #: level_ids[l]: the ids of level l in traversal order (levels[l]: the same as a list)
        self.level_ids: list[np.ndarray] = [order[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
        self.levels: list[list[int]] = [level.tolist() for level in self.level_ids]
        # Neighbours, a missing one as ``size``: a padding slot that every array over the ids
        # read through them has one more of (Tags keep it tagged, so no walk passes it). Whole
        # rows, not cut to their length: tuples per node would cost more than the walks save.
        up = np.where(matrix < heights, ids[:, None] + stride, n)
        up = np.take_along_axis(up, np.argsort(np.append(rank, n)[up], axis=1, kind="stable"), axis=1)
        #: up[id]: the direct generalizations, in traversal order (Flash's path takes the first untagged)
        self.up: list[list[int]] = up.tolist()
        # the same as arrays for the compiled walk (sqlanon/search/tag_loops.py): 16-bit ids while
        # they fit, so ADULT's 12,960 x 9 neighbours take 233 KB, not 933 (a walk reads d of
        # them per node it tags, and in a search the kernel's checks have evicted them from the
        # cache: s = 0's searches went from 22-25 % outside their checks to 19-22 %); else 64-bit
        narrow = WALK_IDS[0] if n <= np.iinfo(WALK_IDS[0]).max else WALK_IDS[1]
        self.up_array = up.astype(narrow)
        down = np.where(matrix > 0, ids[:, None] - stride, n)
        #: down[id]: the direct specializations, QI by QI (as Lattice.predecessors)
        self.down: list[list[int]] = down.tolist()
        self.down_array = down.astype(narrow)
        #: level_down[l]: (nodes of level l, QIs) array of their direct specializations
        self.level_down: list[np.ndarray] = [down[level] for level in self.level_ids]

    @staticmethod
    def _order(lattice: Numbered, matrix: np.ndarray, level_of: np.ndarray) -> np.ndarray:
        """The ids sorted by Lattice.order_key: (level, relative height, lost distinct values,
        the levels in the QIs' name order), as exact integers when they fit in int64."""
        weights, kept_by_level, kept_total, canonical = lattice.order_terms()
        largest = max(
            kept_total,
            max(weights, default=0) * max(lattice.height, 1),
            max((x for row in kept_by_level for x in row), default=0) * max(len(kept_by_level), 1),
        )
        if largest >= _INT64:  # beyond int64: Python's integers, node by node
            return np.array(
                sorted(range(lattice.size), key=lambda i: lattice.order_key(tuple(matrix[i].tolist()))), np.int64
            )
        relative = matrix @ np.array(weights, np.int64)
        kept = np.zeros(len(matrix), np.int64)
        for j, row in enumerate(kept_by_level):
            kept += np.array(row, np.int64)[matrix[:, j]]
        # np.lexsort: the last key sorts first
        keys = [matrix[:, j] for j in reversed(canonical)] + [kept_total - kept, relative, level_of]
        return np.lexsort(keys)

    def id(self, node: Node) -> int:
        return sum(l * s for l, s in zip(node, self.strides))

    def ids(self, nodes) -> np.ndarray:
        """The ids of many level vectors at once."""
        nodes = nodes if isinstance(nodes, list) else list(nodes)
        d = len(self.strides)
        if not nodes or not d:
            return np.zeros(len(nodes), np.int64)
        # the levels read as one flat run (np.array over a list of tuples converts each tuple
        # on its own, several times slower)
        levels = np.fromiter(chain.from_iterable(nodes), np.int64, len(nodes) * d)
        return levels.reshape(len(nodes), d) @ self._stride

    def generalizations(self, node: int) -> tuple[slice, ...]:
        """The slice of an array over the ids, reshaped to ``shape``, that holds the node and
        all its generalizations."""
        return tuple([slice(l, None) for l in self.nodes[node]])

    def specializations(self, node: int) -> tuple[slice, ...]:
        """As ``generalizations``, the node and all its specializations."""
        return tuple([slice(0, l + 1) for l in self.nodes[node]])

    def upward_closure(self, ids) -> np.ndarray:
        """A mask over the ids: the given nodes and all their generalizations."""
        mask = np.zeros(self.size, bool)
        box = mask.reshape(self.shape)
        for node in ids:
            box[self.generalizations(node)] = True
        return mask
