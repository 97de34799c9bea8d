"""The compiled loops of local checks (sqlanon/kernel/grouping.py, histogram_*.py)
against plain numpy definitions, on random tables that reach every branch: the dense count,
the hash table (ordered and not, one scratch table kept across both), the int64-overflow
fallback, empty and one-row tables, the sensitive histograms merged per class, as pairs and as
dense count matrices (whose figures must be the very doubles of the pairs' figures)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlanon.kernel.grouping import Grouper, Maps, group, regroup, summary, total, weighted_sums
from sqlanon.kernel.histogram_dense import (
    dense_masks,
    dense_pairs,
    equal_dense,
    lowest_bit,
    merge_dense,
    recursive_dense,
)
from sqlanon.kernel.histogram_emd import Tree
from sqlanon.kernel.histogram_pairs import equal_distance, recursive, regroup_histograms


def reference(columns):
    distinct, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    return [distinct[:, j] for j in range(len(columns))], inverse.ravel()


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 300), st.lists(st.integers(1, 40), min_size=1, max_size=5), st.integers(0, 2**31))
def test_group_is_numpy_unique(rows, radices, seed):
    rng = np.random.default_rng(seed)
    columns = [rng.integers(0, r, rows) for r in radices]
    if rows == 0:
        return
    distinct, inverse = group(columns, radices)
    expected, expected_inverse = reference(columns)
    assert [d.tolist() for d in distinct] == [e.tolist() for e in expected]
    assert inverse.tolist() == expected_inverse.tolist()


@pytest.mark.parametrize("radices", [[3, 4], [10**5, 10**5], [2**31, 2**31, 4]])  # dense, hash, overflow
@pytest.mark.parametrize("ordered", [True, False])
def test_regroup_through_maps(radices, ordered):
    rng = np.random.default_rng(7)
    rows = 5_000
    matrix = np.stack([rng.integers(0, min(r, 50), rows) for r in radices]).astype(np.int64)
    # column 0 coarsened through a map (code -> code // 2), the others as they are
    up = np.arange(50, dtype=np.int64) // 2
    maps = Maps({0: up})
    offsets = maps.offsets([0] + [None] * (len(radices) - 1))
    out, inverse = regroup(matrix, radices, maps.values, offsets, ordered)
    mapped = [up[matrix[0]]] + list(matrix[1:])
    expected, _ = reference(mapped)
    got = sorted(zip(*out.tolist())) if not ordered else list(zip(*out.tolist()))
    assert got == list(zip(*[e.tolist() for e in expected]))
    # every row lands in the group with its codes
    for j, column in enumerate(mapped):
        assert (out[j][inverse] == column).all()


def test_one_row_and_sums():
    out, inverse = regroup(np.array([[5]], np.int64), [6], np.zeros(1, np.int64), np.array([-1]))
    assert out.tolist() == [[5]] and inverse.tolist() == [0]
    assert total(np.array([0, 1, 0]), np.array([2, 3, 4]), 2).tolist() == [6, 3]
    assert total(np.array([0, 1, 0]), np.array([0.5, 3.0, 4.0]), 2).tolist() == [4.5, 3.0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50), st.booleans()), min_size=1, max_size=40))
def test_summary(classes):
    n = np.array([c[0] for c in classes], np.int64)
    kept = np.array([c[1] for c in classes])
    kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class, uniques = summary(n, kept)
    assert kept_classes == kept.sum() and suppressed == n[~kept].sum()
    assert min_kept == (n[kept].min() if kept.any() else -1) and min_class == n.min()
    assert dm_kept == (n[kept] ** 2).sum() and dm_all == (n**2).sum()
    assert uniques == ((n == 1) & kept).sum()


def test_weighted_sums():
    matrix = np.array([[0, 1, 2], [1, 1, 0]], np.int64)
    n = np.array([3, 4, 5], np.int64)
    kept = np.array([True, False, True])
    maps = Maps({0: np.array([10, 20, 30]), 1: np.array([7, 9])})
    sums = weighted_sums(matrix, n, kept, maps.values, maps.offsets([0, 1]))
    assert sums.tolist() == [3 * 10 + 5 * 30, 3 * 9 + 5 * 7]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(1, 9), min_size=1, max_size=8), min_size=1, max_size=6), st.integers(1, 6))
def test_recursive_ranks(classes, l):
    counts = np.array([x for c in classes for x in c], np.int64)
    starts = np.r_[0, np.cumsum([len(c) for c in classes])].astype(np.int64)
    top, tail, distinct = recursive(starts, counts, l)
    for c, values in enumerate(classes):
        ranked = sorted(values, reverse=True)
        assert (top[c], tail[c], distinct[c]) == (ranked[0], sum(ranked[l - 1 :]), len(values))


def matrix_distance(ancestors, diff):
    """The hierarchical EMD as 0/1 matrix products (the formulation the SQL follows)."""
    height = len(ancestors) - 1
    total_cost = np.zeros(len(diff))
    for level in range(1, height + 1):
        pairs, child = np.unique(
            np.stack([ancestors[level - 1], ancestors[level]], axis=1), axis=0, return_inverse=True
        )
        to_child = np.zeros((len(ancestors[0]), len(pairs)))
        to_child[np.arange(len(ancestors[0])), child.ravel()] = 1
        parents = np.unique(pairs[:, 1], return_inverse=True)[1].ravel()
        to_parent = np.zeros((len(pairs), parents.max() + 1))
        to_parent[np.arange(len(pairs)), parents] = 1
        extra = diff @ to_child
        positive, negative = np.maximum(extra, 0) @ to_parent, np.maximum(-extra, 0) @ to_parent
        total_cost += np.minimum(positive, negative).sum(axis=1) * level / height
    return total_cost


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31))
def test_hierarchical_distance(seed):
    rng = np.random.default_rng(seed)
    values = int(rng.integers(2, 12))
    # a random three-level tree over the values: leaves -> groups -> one root
    groups = rng.integers(0, max(values // 2, 1), values)
    ancestors = [np.arange(values), groups, np.zeros(values, np.int64)]
    q = rng.random(values)
    q /= q.sum()
    classes = int(rng.integers(1, 6))
    cls, v, share = [], [], []
    for c in range(classes):
        present = np.sort(rng.choice(values, int(rng.integers(1, values + 1)), replace=False))
        counts = rng.integers(1, 10, len(present))
        cls += [c] * len(present)
        v += present.tolist()
        share += (counts / counts.sum()).tolist()
    cls, v, share = np.array(cls), np.array(v, np.int64), np.array(share)
    starts = np.r_[np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]), len(cls)].astype(np.int64)
    diff = np.zeros((classes, values))
    diff[cls, v] = share
    diff -= q
    got = Tree([a.astype(np.int64) for a in ancestors]).distances(starts, v, share, q)
    assert np.allclose(got, matrix_distance(ancestors, diff), rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 400), st.lists(st.integers(1, 40), min_size=1, max_size=4), st.booleans(), st.booleans()
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(0, 2**31),
    st.sampled_from([np.int64, np.int32]),
)
def test_grouper_keeps_its_scratch_clean(calls, seed, codes):
    """One Grouper over a sequence of regroupings that switch between the dense table and the
    hash table (they share the scratch): each is ``np.unique`` with ``np.bincount``'s sums, and
    the scratch is all -1 after each; the codes keep their width (the kernel's are int32)."""
    rng = np.random.default_rng(seed)
    grouper = Grouper()
    for rows, radices, ordered, floats in calls:
        radices = [r**4 if rng.random() < 0.3 else r for r in radices]  # some spaces far beyond the rows
        matrix = np.stack([rng.integers(0, min(r, 40), rows) for r in radices]).astype(codes)
        weights = rng.random(rows) if floats else rng.integers(0, 9, rows).astype(np.int64)
        out, inverse, sums = grouper.regroup(
            matrix,
            tuple(radices) if rng.random() < 0.5 else radices,
            np.zeros(1, np.int64),
            np.full(len(radices), -1, np.int64),
            weights,
            ordered,
        )
        assert (grouper.slots == -1).all() and out.dtype == codes
        if rows == 0:
            assert out.shape == (len(radices), 0) and len(sums) == 0
            continue
        expected, _ = reference(list(matrix))
        got = list(zip(*out.tolist()))
        assert (got if ordered else sorted(got)) == list(zip(*[e.tolist() for e in expected]))
        for j in range(len(radices)):
            assert (out[j][inverse] == matrix[j]).all()
        assert sums.dtype == weights.dtype
        assert np.array_equal(sums, np.bincount(inverse, weights=weights, minlength=out.shape[1]).astype(weights.dtype))


def histograms_reference(bounds, v, f, inverse, groups, n):
    """``regroup_histograms`` as numpy: every (class, value) pair summed, sorted by class then value."""
    source = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    cls = inverse[source]
    keys, sums = np.unique(cls * (v.max() + 1 if len(v) else 1) + v, return_inverse=True)
    counts = np.bincount(sums.ravel(), weights=f).astype(np.int64)
    width = v.max() + 1 if len(v) else 1
    out_cls, out_v = keys // width, keys % width
    return (
        np.searchsorted(out_cls, np.arange(groups + 1)),
        out_v,
        counts,
        counts.astype(np.float64) / n[out_cls].astype(np.float64),
    )


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 60), st.integers(1, 25), st.integers(1, 30), st.integers(0, 2**31))
def test_regroup_histograms_is_numpy(sources, values, groups, seed):
    """Per class the counts of its source classes' values added, ascending value codes, share
    = count / class size: both the insertion sort (few values) and the scan (many) branches."""
    rng = np.random.default_rng(seed)
    groups = min(groups, sources)
    inverse = np.r_[np.arange(groups), rng.integers(0, groups, sources - groups)].astype(np.int64)
    rng.shuffle(inverse)
    runs = [np.sort(rng.choice(values, int(rng.integers(1, values + 1)), replace=False)) for _ in range(sources)]
    v = np.concatenate(runs).astype(np.int64)
    f = rng.integers(1, 20, len(v)).astype(np.int64)
    bounds = np.r_[0, np.cumsum([len(r) for r in runs])].astype(np.int64)
    n = np.bincount(inverse, weights=np.add.reduceat(f, bounds[:-1]), minlength=groups).astype(np.int64)
    got = regroup_histograms(bounds, v, f, inverse, groups, values, n)
    for mine, theirs in zip(got, histograms_reference(bounds, v, f, inverse, groups, n)):
        assert np.array_equal(mine, theirs)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(1, 9), min_size=1, max_size=8), min_size=1, max_size=6), st.integers(0, 2**31))
def test_equal_distance_is_the_bincount_sums(classes, seed):
    """The same doubles as numpy's 0.5 * (bincount(|p - q|) + (1 - bincount(q)))."""
    rng = np.random.default_rng(seed)
    q = rng.random(12)
    q /= q.sum()
    v = np.concatenate([rng.choice(12, len(c), replace=False) for c in classes]).astype(np.int64)
    counts = np.array([x for c in classes for x in c], np.float64)
    cls = np.repeat(np.arange(len(classes)), [len(c) for c in classes])
    share = counts / np.array([sum(c) for c in classes], np.float64)[cls]
    bounds = np.r_[0, np.cumsum([len(c) for c in classes])].astype(np.int64)
    expected = 0.5 * (np.bincount(cls, weights=np.abs(share - q[v])) + (1 - np.bincount(cls, weights=q[v])))
    assert equal_distance(bounds, v, share, q).tolist() == expected.tolist()


def random_dense(rng, classes, values, fill, dtype):
    """A (classes x values) count matrix (the kernel's two count types), about ``fill`` of its
    cells > 0, every class holding at least one value, its masks and class sizes."""
    counts = np.where(rng.random((classes, values)) < fill, rng.integers(1, 50, (classes, values)), 0).astype(dtype)
    counts[np.arange(classes), rng.integers(0, values, classes)] += rng.integers(1, 9, classes).astype(dtype)
    return counts, dense_masks(counts), counts.sum(axis=1, dtype=np.int64)


dense_cases = st.tuples(
    st.integers(1, 40),
    st.integers(1, 64),
    st.sampled_from([0.0, 0.1, 0.5, 1.0]),
    st.integers(0, 2**31),
    st.sampled_from([np.uint16, np.int32]),
)


@settings(max_examples=150, deadline=None)
@given(dense_cases, st.integers(1, 40))
def test_merge_dense_and_its_masks_are_numpy(case, groups):
    """Rows added per group (``np.add.at``), masks or-ed, each mask the bits of its cells > 0,
    up to a 64-value domain (bit 63)."""
    classes, values, fill, seed, dtype = case
    rng = np.random.default_rng(seed)
    counts, held, _ = random_dense(rng, classes, values, fill, dtype)
    expected_held = [sum(1 << x for x in range(values) if row[x] > 0) for row in counts.tolist()]
    assert held.dtype == np.uint64 and [int(m) for m in held] == expected_held
    groups = min(groups, classes)
    inverse = np.r_[np.arange(groups), rng.integers(0, groups, classes - groups)].astype(np.int64)
    rng.shuffle(inverse)
    merged, mask = merge_dense(counts, held, inverse, groups)
    expected = np.zeros((groups, values), np.int64)
    np.add.at(expected, inverse, counts)
    assert merged.dtype == dtype and np.array_equal(merged, expected)
    assert np.array_equal(mask, dense_masks(expected))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(dense_cases, st.integers(1, 6))
def test_dense_figures_are_the_pairs_figures(case, l):
    """``dense_pairs`` gives what numpy finds (ascending codes, counts > 0, share = count / n,
    as ``regroup_histograms`` divides), and the dense recursive, equal-distance figures are
    exactly (``==``, not approximately) those of the pairs; recursive also against a sort."""
    classes, values, fill, seed, dtype = case
    rng = np.random.default_rng(seed)
    counts, held, n = random_dense(rng, classes, values, fill, dtype)
    bounds, v, f, share = dense_pairs(counts, held, n)
    cls, codes = np.nonzero(counts)
    assert np.array_equal(bounds, np.searchsorted(cls, np.arange(classes + 1)))
    assert np.array_equal(v, codes) and np.array_equal(f, counts[cls, codes])
    assert np.array_equal(share, counts[cls, codes].astype(np.float64) / n[cls].astype(np.float64))
    top, tail, distinct = recursive_dense(counts, held, l)
    assert [a.tolist() for a in (top, tail, distinct)] == [a.tolist() for a in recursive(bounds, f, l)]
    for c, row in enumerate(counts.tolist()):
        ranked = sorted((x for x in row if x), reverse=True)
        assert (top[c], tail[c], distinct[c]) == (ranked[0], sum(ranked[l - 1 :]), len(ranked))
    q = rng.random(values)
    q /= q.sum()
    assert equal_dense(counts, held, n, q).tolist() == equal_distance(bounds, v, share, q).tolist()


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(dense_cases, st.integers(1, 4))
def test_dense_hierarchical_distance_is_the_pairs_distance(case, height):
    """The hierarchical EMD over a dense histogram: exactly the doubles of ``_distances`` over
    the same classes' pairs (its skipped terms become exact zeros), and the matrix formulation
    within rounding, on random trees of 1 to 4 levels above the leaves."""
    classes, values, fill, seed, dtype = case
    rng = np.random.default_rng(seed)
    counts, held, n = random_dense(rng, classes, values, fill, dtype)
    ancestors, level = [np.arange(values)], np.arange(values)
    for _ in range(height - 1):  # each level merges random groups of the one below
        level = rng.integers(0, max(int(level.max()) // 2, 1), int(level.max()) + 1)[level]
        ancestors.append(level)
    ancestors.append(np.zeros(values, np.int64))
    q = rng.random(values)
    q /= q.sum()
    tree = Tree([a.astype(np.int64) for a in ancestors])
    bounds, v, _, share = dense_pairs(counts, held, n)
    got = tree.dense_distances(counts, held, n, q)
    assert got.tolist() == tree.distances(bounds, v, share, q).tolist()
    diff = counts / n[:, None].astype(np.float64) - q
    assert np.allclose(got, matrix_distance(ancestors, diff), rtol=1e-12, atol=1e-12)


def test_lowest_bit_stands_in_for_trailing_zeros():
    """The mask loops' fallback for numba's semi-internal ``trailing_zeros``."""
    for bit in range(64):
        for above in (0, 1, 0xFFFF, 2**63 - 1):
            m = np.uint64(((above << (bit + 1)) | (1 << bit)) & (2**64 - 1))
            assert lowest_bit(m) == bit
