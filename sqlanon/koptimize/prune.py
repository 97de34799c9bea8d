"""PRUNE of the compiled tree (``tree.dfs``), for both metrics: the node's bound over its
allset pieces and, with records left to suppress, each imaginary child's (search.py's
``_prune`` and ``_bound``, the same figures).

Rows here are a node's rows (class-table rows or merged pieces): ``weights`` records each,
``labels[c, i]`` of them with label c (classification only), ``cls`` their head class.
"""

from __future__ import annotations

import numba
import numpy as np

from sqlanon.koptimize.kernels import (
    allset_pieces,
    child_delta,
    interval_keys,
    interval_lookup,
    moved,
    pieces_bound,
    slot_of,
    table_mask,
    values_of,
)

DM, CM = 0, 1  # the metric: discernibility, classification
BLOCK = 64  # cm_enter's rows per block of keys: most nodes that go stop within a few blocks


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
def _minority_sum(weights, labels):  # pragma: no cover - compiled
    """The records of all rows that are not of their own row's majority label."""
    total = 0
    for i in range(weights.shape[0]):
        top = 0
        for c in range(labels.shape[0]):
            top = max(top, labels[c, i])
        total += weights[i] - top
    return total


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
def _child_bounds(
    metric,
    bound,
    tail,
    start,
    stop,
    alpha_j,
    alpha_r,
    dom_sizes,
    ranks,
    weights,
    minority,
    dense,
    kept_size,
    piece,
    pieces,
    k,
    n,
):  # pragma: no cover - compiled
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
def prune(
    metric,
    tail,
    start,
    stop,
    pos,
    head_marks,
    alpha_j,
    alpha_r,
    offsets,
    dom_sizes,
    ranks,
    weights,
    labels,
    cls,
    size,
    k,
    n,
    limit,
    best,
    slot_key,
    slot_id,
):  # pragma: no cover - compiled
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
        child = _child_bounds(
            metric,
            bound,
            tail,
            start,
            stop,
            alpha_j,
            alpha_r,
            dom_sizes,
            ranks,
            weights,
            minority,
            dense,
            kept_size,
            piece,
            pieces,
            k,
            n,
        )
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


@numba.njit(cache=True, nogil=True)
def drop_one(
    j, r, marks, offsets, dom_sizes, ranks, weights, labels, pcls, best, slot_key, slot_id
):  # pragma: no cover - compiled
    """CM's PRUNE after a child when no record may be suppressed (limit 0), done on the rows
    the child's cut (rank r of attribute j) touches. The rows are the pieces of an allset A,
    one row each, and ``marks`` marks A without that cut. A piece can only merge with the piece
    across the cut that agrees on every other attribute, so the rows outside the two intervals
    beside the cut stay pieces and keep their minorities: the bound moves by what each merged
    pair adds (LB_CM with every head class kept is the sum of the pieces' minorities). This is
    ``prune``'s figure and merge, node for node, on a fraction of the rows.

    Returns the rows left (the pairs merged in place, the order of their first members kept:
    what ``allset_pieces`` and ``_merge`` give), -1 when the bound reaches the best cost (rows
    untouched), or -2 when this does not apply (the key would overflow int64, or the rows are
    not A's pieces): then the caller runs ``prune``."""
    d, rows = ranks.shape
    L = labels.shape[0]
    off = offsets[j]
    lo = 0
    for q in range(r - 1, -1, -1):
        if marks[off + q] == 1:
            lo = q
            break
    hi = dom_sizes[j]
    for q in range(r + 1, dom_sizes[j]):
        if marks[off + q] == 1:
            hi = q
            break
    # the key of every attribute but j (there the two intervals are one now)
    lookup, radices, space = interval_lookup(marks, offsets, dom_sizes)
    space /= radices[j]
    radices[j] = 1
    if space >= 4.0e18:
        return -2
    total = _minority_sum(weights, labels)
    mask = table_mask(slot_id, rows)
    used = np.empty(rows, np.int64)
    partner = np.full(rows, -1, np.int64)  # a pair's first row -> its second
    n_used = 0
    pairs = 0
    delta = 0
    clash = False
    for i in range(rows):
        x = ranks[j, i]
        if x < lo or x >= hi:
            continue
        key = 0
        for q in range(d):
            if radices[q] > 1:
                key = key * radices[q] + lookup[offsets[q] + ranks[q, i]]
        s = slot_of(key, mask, slot_key, slot_id)
        if slot_id[s] == -1:
            slot_id[s] = i
            slot_key[s] = key
            used[n_used] = s
            n_used += 1
            continue
        f = slot_id[s]
        if partner[f] >= 0 or (ranks[j, f] < r) == (x < r):
            clash = True  # a third row, or two on one side: not A's pieces
        else:
            partner[f] = i
            pairs += 1
            top_f = 0
            top_i = 0
            top_u = 0
            for c in range(L):
                top_f = max(top_f, labels[c, f])
                top_i = max(top_i, labels[c, i])
                top_u = max(top_u, labels[c, f] + labels[c, i])
            delta += top_f + top_i - top_u  # minority(union) - both minorities
    for t in range(n_used):
        slot_id[used[t]] = -1
    if clash:
        return -2
    if float(total + delta) >= best[0]:
        return -1
    if pairs == 0:
        return rows
    gone = np.zeros(rows, np.bool_)
    for f in range(rows):
        g = partner[f]
        if g >= 0:
            weights[f] += weights[g]
            for c in range(L):
                labels[c, f] += labels[c, g]
            gone[g] = True
    keep = 0
    for i in range(rows):
        if not gone[i]:
            if keep != i:
                for q in range(d):
                    ranks[q, keep] = ranks[q, i]
                weights[keep] = weights[i]
                pcls[keep] = pcls[i]
                for c in range(L):
                    labels[c, keep] = labels[c, i]
            keep += 1
    return keep


@numba.njit(cache=True, nogil=True)
def cm_enter(ranks, marks, offsets, dom_sizes, weights, labels, best, slot_key, slot_id):  # pragma: no cover - compiled
    """CM's PRUNE on entering a node when no record may be suppressed (limit 0): the rows'
    allset pieces under ``marks`` (what ``allset_pieces`` gives: numbered in order of first
    appearance) and the bound, stopping as soon as the node is bound to go.

    With every head class kept, LB_CM is the sum of the pieces' minorities. After any number
    of rows, the pieces so far misclassify ``part`` and each row not yet read will add at
    least its own minority to whichever piece it joins (Claim 5.3 of the paper), so
    ``part`` plus those rows' minorities bounds the final figure from below: once it reaches
    the best cost the node goes, whatever the rest of the rows. Most nodes that go do so
    after about a third of their rows (adult_fine, k = 5).

    Returns the pieces and their number; -1 pieces when the node goes, -2 when the key would
    overflow int64 (the caller runs ``prune``)."""
    rows = ranks.shape[1]
    L = labels.shape[0]
    lookup, radices, space = interval_lookup(marks, offsets, dom_sizes)
    if space >= 4.0e18:
        return np.empty(0, np.int64), -2
    rest = _minority_sum(weights, labels)  # the minorities of the rows not yet read
    mask = table_mask(slot_id, rows)
    out = np.empty(rows, np.int64)
    used = np.empty(rows, np.int64)
    count = np.empty((rows, L), np.int64)  # per piece, its records of each label
    keys = np.empty(BLOCK, np.int64)
    pieces = 0
    part = 0
    gone = False
    for i in range(rows):
        if i % BLOCK == 0:  # the keys of the next block of rows, attribute by attribute
            interval_keys(ranks, lookup, offsets, radices, i, min(i + BLOCK, rows), keys)
        key = keys[i % BLOCK]
        top_i = 0
        for c in range(L):
            top_i = max(top_i, labels[c, i])
        rest -= weights[i] - top_i
        s = slot_of(key, mask, slot_key, slot_id)
        if slot_id[s] == -1:
            slot_id[s] = pieces
            slot_key[s] = key
            used[pieces] = s
            out[i] = pieces
            for c in range(L):
                count[pieces, c] = labels[c, i]
            part += weights[i] - top_i
            pieces += 1
        else:
            p = slot_id[s]
            out[i] = p
            before = 0
            after = 0
            for c in range(L):
                before = max(before, count[p, c])
                count[p, c] += labels[c, i]
                after = max(after, count[p, c])
            part += weights[i] - (after - before)  # size grows by w, the top by after - before
        if part + rest >= best[0]:
            gone = True
            break
    for p in range(pieces):
        slot_id[used[p]] = -1
    if gone:
        return out, -1
    return out, pieces
