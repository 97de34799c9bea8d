"""A lean check's answer read in arrays: the node's class-size histogram
(``compiler.size_histogram_query``) reduced to the figures of ``ClassStats``."""

from __future__ import annotations

import numpy as np

from sqlanon.kernel.evaluate import compiled
from sqlanon.core.stats import ClassStats

#: while the largest class times the number of classes stays below this, every sum of
#: squared class sizes (at most largest² × classes < 3e9 × largest < 9e18) fits in 64 bits
_EXACT_ROWS = 3_000_000_000


def from_size_histogram(
    size: np.ndarray, count: np.ndarray, kept: np.ndarray, uniques: bool = False, sizes: bool = False
) -> ClassStats:
    """The figures of a check whose models read class sizes only, from the node's class-size
    histogram: per distinct class size, the classes of that size and their verdict. Exactly
    what the aggregates of ``compiler.lean_stats_query`` compute, with ``kept_uniques`` and
    ``kept_sizes`` when asked for."""
    size = np.asarray(size).astype(
        np.int64, copy=False
    )  # DuckDB hands SUM's HUGEINT over as float64: exact below 2**53
    count = np.asarray(count).astype(np.int64, copy=False)
    kept = np.asarray(kept, dtype=bool)
    if len(size) and int(size.max()) * int(count.sum()) >= _EXACT_ROWS:
        size, count = size.astype(object), count.astype(object)  # Python integers: no overflow
    rows = size * count
    squares = rows * size
    kept_size = size[kept]
    unique_count = int(count[kept & (size == 1)].sum()) if uniques else None
    return ClassStats(
        classes=int(count.sum()),
        kept_classes=int(count[kept].sum()),
        suppressed=int(rows[~kept].sum()),
        min_kept=int(kept_size.min()) if len(kept_size) else None,
        dm_kept=int(squares[kept].sum()),
        dm_all=int(squares.sum()),
        kept_uniques=unique_count,
        min_class=int(size.min()) if len(size) else None,
        kept_sizes=dict(zip(kept_size.tolist(), count[kept].tolist())) if sizes else None,
    )


def from_class_sizes(sizes: np.ndarray, keep, params: dict, uniques: bool = False, wanted: bool = False) -> ClassStats:
    """``from_size_histogram`` of a node's class sizes (``compiler.class_sizes_query``): the
    histogram counted here, each distinct size decided by the models' predicate evaluated in
    numpy (``kernel/evaluate.py``, the kernel's evaluator of the same sqlglot trees)."""
    size, count = _distinct(np.asarray(sizes).astype(np.int64, copy=False))  # DuckDB's SUM arrives as float64
    kept = compiled(keep).keep({"n": size}, params)
    return from_size_histogram(size, count, kept, uniques, wanted)


def _countable(sizes: np.ndarray) -> bool:
    """Counting (a table indexed by size) beats sorting while the sizes are few beside the classes."""
    return bool(len(sizes)) and int(sizes.max()) <= 4 * len(sizes) + 1024


def _distinct(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct class sizes, ascending, and how many classes have each."""
    if _countable(sizes):
        counts = np.bincount(sizes)
        size = np.flatnonzero(counts)
        return size, counts[size]
    return np.unique(sizes, return_counts=True)


def _verdicts(sizes: np.ndarray, keep, params: dict) -> np.ndarray:
    """Each class's verdict, the models' predicate evaluated once per distinct size: spread
    back through a table indexed by size where the sizes are few (``_countable``), else
    through ``np.unique``'s inverse; a binary search per class cost a third of reading a
    batch."""
    if _countable(sizes):
        size = np.flatnonzero(np.bincount(sizes))
        verdict = np.zeros(int(size[-1]) + 1, bool)
        verdict[size] = compiled(keep).keep({"n": size}, params)
        return verdict[sizes]
    size, inverse = np.unique(sizes, return_inverse=True)
    return compiled(keep).keep({"n": size}, params)[inverse]


def from_batch_sizes(
    tags: np.ndarray, sizes: np.ndarray, nodes: int, keep, params: dict, uniques: bool = False, wanted: bool = False
) -> list[ClassStats] | None:
    """``from_class_sizes`` of every node of a batch at once, from the batch's class sizes and
    each one's node (``tags``, in order): each figure is one segmented numpy reduction over
    the whole result and the models' predicate is evaluated once over the batch's distinct
    sizes, instead of a dozen numpy calls per node (a batch's Python cost per node was a
    fifth of DuckDB's, bench/sql_checks.py). None when a node has no class (an empty table)
    or when a sum of squares could leave 64 bits: then ``from_class_sizes`` per node."""
    sizes = np.asarray(sizes).astype(np.int64, copy=False)  # DuckDB's SUM arrives as float64 (exact below 2**53)
    tags = np.asarray(tags)
    starts = np.searchsorted(tags, np.arange(nodes))
    ends = np.append(starts[1:], len(tags))
    if not len(sizes) or bool(np.any(starts >= ends)):
        return None
    rows = np.add.reduceat(sizes, starts)
    if (
        int(sizes.max()) * int(rows.max()) >= 2**63
    ):  # a node's sum of squares is at most its largest class times its rows
        return None
    kept = _verdicts(sizes, keep, params)
    squares = sizes * sizes
    kept_squares = np.where(kept, squares, 0)
    none = np.iinfo(np.int64).max
    smallest_kept = np.minimum.reduceat(np.where(kept, sizes, none), starts)
    figures = zip(
        (ends - starts).tolist(),  # classes
        np.add.reduceat(kept.astype(np.int64), starts).tolist(),  # kept classes
        np.add.reduceat(np.where(kept, 0, sizes), starts).tolist(),  # suppressed rows
        smallest_kept.tolist(),
        np.add.reduceat(kept_squares, starts).tolist(),
        np.add.reduceat(squares, starts).tolist(),
        np.minimum.reduceat(sizes, starts).tolist(),
        (np.add.reduceat((kept & (sizes == 1)).astype(np.int64), starts).tolist() if uniques else [None] * nodes),
    )
    found = []
    for i, (classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class, unique_count) in enumerate(
        figures
    ):
        kept_sizes = None
        if wanted:  # population uniqueness: the kept classes' size histogram, per node
            size, count = np.unique(sizes[starts[i] : ends[i]][kept[starts[i] : ends[i]]], return_counts=True)
            kept_sizes = dict(zip(size.tolist(), count.tolist()))
        found.append(
            ClassStats(
                classes=classes,
                kept_classes=kept_classes,
                suppressed=suppressed,
                min_kept=None if min_kept == none else min_kept,
                dm_kept=dm_kept,
                dm_all=dm_all,
                kept_uniques=unique_count,
                min_class=min_class,
                kept_sizes=kept_sizes,
            )
        )
    return found
