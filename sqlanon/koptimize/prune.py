"""PRUNE of the compiled tree (``tree.dfs``), for both metrics: the node's bound over its
allset pieces and, with records left to suppress, each imaginary child's (search.py's
``_prune`` and ``_bound``, the same figures).

Rows here are a node's rows (class-table rows or merged pieces): ``weights`` records each,
``labels[c, i]`` of them with label c (classification only), ``cls`` their head class.
"""

from __future__ import annotations

import numba
import numpy as np

from sqlanon.koptimize.kernels import allset_pieces, child_delta, moved, pieces_bound, values_of

DM, CM = 0, 1  # the metric: discernibility, classification


@numba.njit(cache=True, nogil=True)
def kept(cls, size, k):  # pragma: no cover - compiled
    """The head classes of at least k rows: each row's index among them (-1: suppressed),
    their sizes, and the records the head suppresses."""
    count = size.shape[0]
    index = np.full(count, -1, np.int64)
    n_kept = 0
    suppressed = 0
    for c in range(count):
        if size[c] >= k:
            index[c] = n_kept
            n_kept += 1
        else:
            suppressed += size[c]
    kept_size = np.empty(n_kept, np.int64)
    for c in range(count):
        if index[c] >= 0:
            kept_size[index[c]] = size[c]
    dense = np.empty(cls.shape[0], np.int64)
    for i in range(cls.shape[0]):
        dense[i] = index[cls[i]]
    return dense, kept_size, suppressed


@numba.njit(cache=True, nogil=True)
def marks_of(tail, start, stop, pos, head_marks):  # pragma: no cover - compiled
    """The allset's cut ranks: the head's and the tail's ``tail[start:stop]``."""
    marks = head_marks.copy()
    for i in range(start, stop):
        marks[pos[tail[i]]] = 1
    return marks


@numba.njit(cache=True, nogil=True)
def _minorities(piece, pieces, weights, labels):  # pragma: no cover - compiled
    """Per piece: its records and the records not of its majority label."""
    size = np.zeros(pieces, np.int64)
    count = np.zeros((pieces, labels.shape[0]), np.int64)
    for i in range(weights.shape[0]):
        p = piece[i]
        size[p] += weights[i]
        for c in range(labels.shape[0]):
            count[p, c] += labels[c, i]
    minority = np.empty(pieces, np.int64)
    for p in range(pieces):
        top = 0
        for c in range(labels.shape[0]):
            top = max(top, count[p, c])
        minority[p] = size[p] - top
    return size, minority


@numba.njit(cache=True, nogil=True)
def cm_bound(piece, pieces, minority, weights, cls, size, k):  # pragma: no cover - compiled
    """LB_CM(H, A): 1 per record the head suppresses, and each kept head class's allset
    pieces' minorities (a class uniting pieces misclassifies at least the sum of theirs)."""
    total = 0
    seen = np.zeros(pieces, np.bool_)
    for i in range(weights.shape[0]):
        if size[cls[i]] < k:
            total += weights[i]
        elif not seen[piece[i]]:
            seen[piece[i]] = True
            total += minority[piece[i]]
    return float(total)


@numba.njit(cache=True, nogil=True)
def _row_delta(metric, piece, pieces, weights, minority, dense, k, n):  # pragma: no cover - compiled
    """Per row of a kept class: what its records add to the bound when a child suppresses
    them, their suppression cost less their share of the node's bound (for CM the first row
    of each piece carries the piece's minority)."""
    rows = weights.shape[0]
    out = np.zeros(rows, np.int64)
    if metric == DM:
        size = np.zeros(pieces, np.int64)
        for i in range(rows):
            size[piece[i]] += weights[i]
        for i in range(rows):
            if dense[i] >= 0:
                out[i] = weights[i] * n - weights[i] * min(max(size[piece[i]], k), n)
        return out
    carried = np.zeros(pieces, np.bool_)
    for i in range(rows):
        if dense[i] >= 0:
            out[i] = weights[i]
            if not carried[piece[i]]:
                carried[piece[i]] = True
                out[i] -= minority[piece[i]]
    return out


@numba.njit(cache=True, nogil=True)
def _child_bounds(metric, bound, tail, start, stop, alpha_j, alpha_r, dom_sizes, ranks, weights, minority, dense,
                  kept_size, piece, pieces, k, n):  # pragma: no cover - compiled
    """Per tail value v (``tail[start:stop]``), the bound of the imaginary child H ∪ {v} with
    the same allset: the node's, plus the growth from the records v newly suppresses."""
    classes = kept_size.shape[0]
    row_delta = _row_delta(metric, piece, pieces, weights, minority, dense, k, n)
    class_delta = np.zeros(classes, np.int64)
    for i in range(weights.shape[0]):
        if dense[i] >= 0:
            class_delta[dense[i]] += row_delta[i]
    out = np.empty(stop - start, np.float64)
    tail_j = alpha_j[tail[start:stop]]
    tail_r = alpha_r[tail[start:stop]]
    for j in range(dom_sizes.shape[0]):
        which, bucket = values_of(tail_j, tail_r, j, dom_sizes[j])
        count = which.shape[0]
        if count == 0:
            continue
        moved_w = moved(dense, ranks[j], weights, bucket, classes, count + 1)
        moved_delta = moved(dense, ranks[j], row_delta, bucket, classes, count + 1)
        delta = child_delta(moved_w, moved_delta, kept_size, class_delta, k)
        for i in range(count):
            out[which[i]] = bound + delta[i]
    return out


@numba.njit(cache=True, nogil=True)
def prune(metric, tail, start, stop, pos, head_marks, alpha_j, alpha_r, offsets, dom_sizes, ranks, weights, labels,
          cls, size, k, n, limit, best, slot_key, slot_id):  # pragma: no cover - compiled
    """The paper's PRUNE over ``tail[start:stop]``, repeated until the tail stops shrinking:
    the node goes when LB(H, H ∪ T) >= the best cost, a value v when LB(H ∪ {v}, H ∪ T) does
    (removed in place, the order kept). Returns the new stop (-1: the node goes), the rows'
    allset pieces for the final tail (-1 pieces: not computed) and the values pruned."""
    piece = np.empty(0, np.int64)
    pieces = -1
    dropped = 0
    if best[0] < 0:  # nothing to beat yet: the pieces only, for the merge
        marks = marks_of(tail, start, stop, pos, head_marks)
        piece, pieces = allset_pieces(ranks, marks, offsets, dom_sizes, slot_key, slot_id)
        return stop, piece, pieces, dropped
    dense, kept_size, suppressed = kept(cls, size, k)
    # no descendant may suppress another record: a child's bound is the node's, and (DM)
    # every kept head class is cut into parts of at least k rows (the class floor)
    no_more = suppressed >= limit
    while stop > start:
        marks = marks_of(tail, start, stop, pos, head_marks)
        piece, pieces = allset_pieces(ranks, marks, offsets, dom_sizes, slot_key, slot_id)
        if pieces < 0:
            return stop, piece, pieces, dropped
        minority = np.empty(0, np.int64)  # CM: per piece, for the bound and the children's
        if metric == DM:
            bound = pieces_bound(piece, pieces, weights, cls, size, k, n, no_more)
        else:
            _, minority = _minorities(piece, pieces, weights, labels)
            bound = cm_bound(piece, pieces, minority, weights, cls, size, k)
        if bound >= best[0]:
            return -1, piece, pieces, dropped
        if no_more:
            return stop, piece, pieces, dropped
        child = _child_bounds(metric, bound, tail, start, stop, alpha_j, alpha_r, dom_sizes, ranks, weights,
                              minority, dense, kept_size, piece, pieces, k, n)
        keep = start
        for t in range(start, stop):
            if child[t - start] >= best[0]:
                dropped += 1
            else:
                tail[keep] = tail[t]
                keep += 1
        if keep == stop:
            return stop, piece, pieces, dropped
        stop = keep
    return stop, piece, pieces, dropped
