"""The lean check's answer read in arrays (``kernel/size_histogram.py``) against a plain
reading of the same rows, one Python value at a time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlanon.criteria.conditions import Conditions
from sqlanon.criteria import KAnonymity
from sqlanon.engines.sql.fetched import fetched_bytes, text_bytes
from sqlanon.kernel.size_histogram import from_batch_sizes, from_class_sizes, from_size_histogram
from sqlanon.core.stats import ClassStats


def plain(rows, uniques: bool, sizes: bool) -> ClassStats:
    """The figures of rows (size, classes, kept), read as ``lean_stats_query`` defines them."""
    kept = [(s, n) for s, n, k in rows if k]
    return ClassStats(
        classes=sum(n for _, n, _ in rows),
        kept_classes=sum(n for _, n in kept),
        suppressed=sum(s * n for s, n, k in rows if not k),
        min_kept=min((s for s, _ in kept), default=None),
        dm_kept=sum(s * s * n for s, n in kept),
        dm_all=sum(s * s * n for s, n, _ in rows),
        kept_uniques=sum(n for s, n in kept if s == 1) if uniques else None,
        min_class=min((s for s, _, _ in rows), default=None),
        kept_sizes=dict(kept) if sizes else None,
    )


histograms = st.dictionaries(st.integers(1, 10**6), st.tuples(st.integers(1, 5000), st.booleans()), max_size=60)


@settings(max_examples=300, deadline=None)
@given(histograms, st.booleans(), st.booleans(), st.sampled_from([np.int64, np.float64]))
def test_figures_from_arrays_equal_the_plain_reading(histogram, uniques, sizes, size_type):
    rows = [(s, n, k) for s, (n, k) in histogram.items()]
    size = np.array([r[0] for r in rows], dtype=size_type)  # DuckDB hands SUM over as float64
    count = np.array([r[1] for r in rows], dtype=np.int64)
    kept = np.array([r[2] for r in rows], dtype=bool)
    assert from_size_histogram(size, count, kept, uniques, sizes) == plain(rows, uniques, sizes)


def test_huge_classes_do_not_overflow():
    size, count = np.array([3 * 10**9, 5]), np.array([2, 1])
    stats = from_size_histogram(size, count, np.array([True, False]))
    assert stats.dm_all == 2 * (3 * 10**9) ** 2 + 25 and stats.dm_kept == 2 * (3 * 10**9) ** 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-(10**15), 10**15), st.booleans(), st.integers(0, 10**6)), max_size=50))
def test_text_bytes_count_what_fetched_bytes_counts(rows):
    columns = {
        "a": np.array([r[0] for r in rows], dtype=np.int64),
        "b": np.array([r[1] for r in rows], dtype=bool),
        "n": np.array([r[2] for r in rows], dtype=np.float64),
    }
    assert text_bytes(columns) == fetched_bytes(rows)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10**5), max_size=300), st.integers(1, 50), st.sampled_from([np.int64, np.float64]))
def test_class_sizes_give_the_histogram_of_their_sizes(sizes, k, kind):
    """``from_class_sizes`` (counting or sorting, by the sizes' spread) against the plain
    reading of the histogram, k-anonymity deciding each size."""
    keep = Conditions([KAnonymity(k)])
    rows = [(size, sizes.count(size), size >= k) for size in sorted(set(sizes))]
    assert from_class_sizes(np.array(sizes, dtype=kind), keep, {"k": k}, True, True) == plain(rows, True, True)


batches = st.lists(st.lists(st.integers(1, 10**5), min_size=1, max_size=40), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(batches, st.integers(1, 50), st.booleans(), st.booleans(), st.sampled_from([np.int64, np.float64]))
def test_a_batch_read_at_once_equals_each_node_read_alone(nodes, k, uniques, wanted, kind):
    """``from_batch_sizes`` (segmented reductions over the whole batch) against
    ``from_class_sizes`` node by node, for every figure."""
    keep = Conditions([KAnonymity(k)])
    tags = np.repeat(np.arange(len(nodes)), [len(sizes) for sizes in nodes])
    sizes = np.concatenate([np.array(s, dtype=kind) for s in nodes])
    found = from_batch_sizes(tags, sizes, len(nodes), keep, {"k": k}, uniques, wanted)
    assert found == [from_class_sizes(np.array(s, dtype=kind), keep, {"k": k}, uniques, wanted) for s in nodes]


def test_a_batch_with_a_node_without_classes_is_read_node_by_node():
    keep = Conditions([KAnonymity(2)])
    assert from_batch_sizes(np.array([0, 0, 2]), np.array([3, 1, 4]), 3, keep, {"k": 2}) is None
    huge = np.array([4 * 10**9, 4 * 10**9, 3 * 10**9])  # a sum of squares past 64 bits
    assert from_batch_sizes(np.array([0, 0, 1]), huge, 2, keep, {"k": 2}) is None


@pytest.mark.parametrize("largest", [7, 10**6])
def test_a_batch_decides_each_class_by_its_size_whether_the_sizes_are_counted_or_sorted(largest):
    """The verdicts spread back by a table indexed by size (few sizes) or by np.unique's
    inverse (a size far past the number of classes): the same classes suppressed either way."""
    keep = Conditions([KAnonymity(3)])
    tags = np.array([0, 0, 0, 1, 1, 2])
    sizes = np.array([1, 3, largest, 2, 5, 2])
    first, second, third = from_batch_sizes(tags, sizes, 3, keep, {"k": 3})
    assert (first.suppressed, first.kept_classes, first.min_kept) == (1, 2, 3)
    assert (second.suppressed, second.kept_classes, second.min_kept) == (2, 1, 5)
    assert (third.suppressed, third.kept_classes, third.min_kept) == (2, 0, None)
