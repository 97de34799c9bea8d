"""The kernel's tables: a class table as one code matrix (``Table``), a node's classes with their
verdicts (``Classes``), the sensitive histograms per class as pairs or a dense matrix, and the
maps from leaf codes to a level (``leaf_levels``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.kernel.histogram_dense import dense_pairs
from sqlanon.lattice import Node


@dataclass
class Table:
    """A class table: code rows (one integer matrix, a row per attribute, so the compiled
    grouping reads it without copying; the kernel's are int32 unless a domain is too wide),
    rows ``n``, the sum of n ln c_x (None unless the KL-divergence needs it), population rows
    (None without a research subset). As ``table`` builds it, the code rows are the QIs' at
    ``node``'s levels then the sensitive attributes'; the kernel keeps one row per QI class
    instead, with per sensitive attribute the classes' histograms (``Pairs`` or ``Dense``).
    A check's table may come without its code matrix (None) and ``gather``, which makes it:
    read it through ``codes()``."""

    node: Node
    matrix: np.ndarray | None
    n: np.ndarray
    nlnx: np.ndarray | None
    pop: np.ndarray | None = None
    histograms: list[Pairs | Dense] | None = None
    gather: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    def codes(self) -> np.ndarray:
        """The code matrix, made on first use: a check's verdict needs only the class sizes,
        and its codes are read only when its table becomes a snapshot (never an anonymous
        node's) or the leaves or suppressed codes are asked for, so most checks of a search
        with suppression never pay for them (a third of a regrouping)."""
        if self.matrix is None:
            assert self.gather is not None  # a table without its codes comes with what makes them
            self.matrix, self.gather = self.gather(), None
        return self.matrix


@dataclass
class Pairs:
    """One sensitive attribute's histogram per class: class c's value codes ``v`` and their
    counts ``f`` in positions ``bounds[c]:bounds[c + 1]`` (ascending codes, every count > 0),
    ``share`` = f / the class's rows."""

    bounds: np.ndarray
    v: np.ndarray
    f: np.ndarray
    share: np.ndarray


@dataclass
class Dense:
    """One sensitive attribute's histogram per class as a (classes x values) count matrix
    (``dense_type``) and per class the bit mask of the values it holds (see ``dense_fits``): merging
    classes adds rows and ors masks (``merge_dense``), and the models that read a class's
    counts in one pass (``dense_figures``) read its row; the others get the same histogram as
    ``Pairs`` (``pairs``)."""

    counts: np.ndarray
    held: np.ndarray

    def pairs(self, n: np.ndarray) -> Pairs:
        return Pairs(*dense_pairs(self.counts, self.held, n))


def dense_type(rows: int) -> type[np.uint16] | type[np.int32]:
    """The narrowest count type no class of a table of ``rows`` rows can overflow: a merge
    reads and writes the whole matrix, so its width is the merge's cost."""
    return np.uint16 if rows < 2**16 else np.int32


def dense_fits(values: int, classes: int, pairs: int, rows: int) -> bool:
    """Hold a histogram as a count matrix? When its values fit a 64-bit mask, its cells and
    masks cost at most twice the pairs (8-byte code, count and share per pair, a bound per
    class) and no count can pass int32."""
    cell = np.dtype(dense_type(rows)).itemsize
    return values <= 64 and rows < 2**31 and classes * (values * cell + 8) <= 2 * (24 * pairs + 8 * (classes + 1))


def table(
    node: Node,
    codes: Sequence[np.ndarray],
    sensitive: Sequence[np.ndarray],
    n: np.ndarray,
    nlnx: np.ndarray | None = None,
    pop: np.ndarray | None = None,
) -> Table:
    """A table from its code columns."""
    matrix = np.ascontiguousarray(np.stack([np.asarray(c, np.int64) for c in [*codes, *sensitive]]))
    return Table(tuple(node), matrix, n, nlnx, pop)


@dataclass
class Classes:
    """A node's classes: sizes, figure columns, verdicts, and the QI codes (a row per QI,
    ``matrix``) of its table's classes (those in ``live`` when some were dropped), made on
    first use."""

    table: Table
    n: np.ndarray
    columns: dict[str, np.ndarray]
    kept: np.ndarray
    live: np.ndarray | None = None
    #: classes of the population without subset rows (dropped from the others); None without a subset
    empty: int | None = None

    @cached_property
    def matrix(self) -> np.ndarray:
        codes = self.table.codes()
        return codes if self.live is None else codes[:, self.live]

    @property
    def codes(self) -> list[np.ndarray]:
        return list(self.matrix)


def size_table(sizes: np.ndarray) -> dict[int, int]:
    """Class size -> number of classes, by bincount over the sizes."""
    counts = np.bincount(sizes.astype(np.int64)) if len(sizes) else np.zeros(0, np.int64)
    return {int(s): int(counts[s]) for s in np.flatnonzero(counts)}


def leaf_levels(hierarchy: EncodedHierarchy, held: np.ndarray) -> list[np.ndarray]:
    """``up[l][leaf code]`` = the leaf's code at level l, for the leaf codes ``held`` (the
    base table's); the other entries are 0 and never read, since every table a kernel groups
    derives from its base table. One array per level, filled for the held leaves only: a
    1 M-row hierarchy under a table of 1,000 rows costs 1,000 rows, not a million."""
    levels = len(hierarchy.labels)
    rows = np.array([hierarchy.leaf(v) for v in held.tolist()], np.int64).reshape(len(held), levels)
    up = []
    for l in range(levels):
        mapping = np.zeros(len(hierarchy.labels[0]), np.int64)
        mapping[held] = rows[:, l]
        up.append(mapping)
    return up
