"""``dfs`` runs K-Optimize's depth-first search (search.py's ``_node``) for either metric
entirely in compiled code: the head classes, the filter of useless and infeasible
values, the paper's tail order, and PRUNE with its bounds (the node's, and with records left to
suppress, each imaginary child's). Its state lives in arrays, so it pauses after a node budget
and resumes where it stopped: the caller checks its clock between calls.

**Rows shrink with depth.** Every descendant of a node uses only cuts of the node's allset
A = H ∪ T, and the records of one allset piece agree on the side of every such cut. So once a
node has filtered its tail, its rows are merged into its allset pieces (one row per piece, the
weights summed, any member's ranks), and its children and their subtrees work on those: on
ADULT a node's allset has a few hundred pieces where the class table has 19,502 rows. The
merge is the same hash pass as the bound's, and it changes no figure, so the tree is the one
``_node`` walks, node for node.

The pieces of each depth are a slice of one row buffer (a stack: a child's slice follows its
parent's), the head class sizes of each depth a slice of one size buffer. Each slice keeps the
head class of its rows under the node that made it (``pcls``); the child being evaluated
writes its own classes beside them (``ccls``), so going back up restores nothing.
"""

from __future__ import annotations

import numba
import numpy as np

from sqlanon.koptimize.kernels import tail_stats
from sqlanon.koptimize.pieces import copy_rows, merge_rows
from sqlanon.koptimize.prune import CM, DM, cm_enter, drop_one, kept, marks_of, prune

ENTER, LOOP, DONE, GROW = 0, 1, 2, 3
# registers: phase, depth, nodes, head length, best length, pruned nodes, useless values,
# infeasible values, best-found-at node, pruned values
(R_PHASE, R_DEPTH, R_NODES, R_HEAD, R_BEST_LEN, R_PRUNED, R_USELESS, R_INFEASIBLE, R_BEST_AT, R_PRUNED_VALUES) = range(
    10
)
REGISTERS = 10


@numba.njit(cache=True, nogil=True)
def _push(
    v,
    depth,
    alpha_j,
    alpha_r,
    pos,
    dom_sizes,
    head_marks,
    head_vals,
    regs,
    ranks,
    weights,
    labels,
    pcls,
    ccls,
    slice_start,
    slice_len,
    sizes,
    class_labels,
    size_start,
    counts,
    acc,
    acc_labels,
    new_of,
    touched,
):  # pragma: no cover - compiled
    """The child ``H ∪ {v}`` of the node at ``depth``: its head classes over the node's pieces
    (slice ``depth + 1``). A class of the node is split when v's cut falls inside its interval
    of v's attribute: its rows at or above v's rank (and below the next head cut) move to a
    new class. ``labels`` and ``class_labels`` have one row per label (classification; for
    discernibility one row of zeros, never read)."""
    j = alpha_j[v]
    r = alpha_r[v]
    off = pos[v] - r
    hi = dom_sizes[j]
    for q in range(r + 1, dom_sizes[j]):
        if head_marks[off + q] == 1:
            hi = q
            break
    L = labels.shape[0]
    child = depth + 1
    a = slice_start[child]
    b = a + slice_len[child]
    n_touched = 0
    for i in range(a, b):
        rank = ranks[j, i]
        if r <= rank < hi:
            c = pcls[i]
            if acc[c] == 0:
                touched[n_touched] = c
                n_touched += 1
            acc[c] += weights[i]
            for q in range(L):
                acc_labels[q, c] += labels[q, i]
    parent_start = size_start[depth]
    count = counts[depth]
    start = parent_start + count
    size_start[child] = start
    for c in range(count):
        sizes[start + c] = sizes[parent_start + c]
        for q in range(L):
            class_labels[q, start + c] = class_labels[q, parent_start + c]
    for t in range(n_touched):
        c = touched[t]
        if acc[c] < sizes[start + c]:
            new_of[c] = count
            sizes[start + count] = acc[c]
            sizes[start + c] -= acc[c]
            for q in range(L):
                class_labels[q, start + count] = acc_labels[q, c]
                class_labels[q, start + c] -= acc_labels[q, c]
            count += 1
    counts[child] = count
    for i in range(a, b):
        c = pcls[i]
        rank = ranks[j, i]
        if new_of[c] >= 0 and r <= rank < hi:
            ccls[i] = new_of[c]
        else:
            ccls[i] = c
    for t in range(n_touched):
        acc[touched[t]] = 0
        new_of[touched[t]] = -1
        for q in range(L):
            acc_labels[q, touched[t]] = 0
    head_marks[pos[v]] = 1
    head_vals[regs[R_HEAD]] = v
    regs[R_HEAD] += 1


@numba.njit(cache=True, nogil=True)
def dfs(
    budget,
    metric,
    k,
    n,
    limit,
    cm_ties,
    alpha_j,
    alpha_r,
    pos,
    offsets,
    dom_sizes,
    ranks,
    weights,
    labels,
    pcls,
    ccls,
    slice_start,
    slice_len,
    sizes,
    class_labels,
    size_start,
    counts,
    head_marks,
    head_vals,
    regs,
    best,
    best_vals,
    pool,
    frame_len,
    frame_pos,
    whole,
    acc,
    acc_labels,
    new_of,
    touched,
    slot_key,
    slot_id,
):  # pragma: no cover - compiled
    """Run until the tree is done (returns DONE), ``regs[R_NODES]`` reaches ``budget``
    (ENTER), or a buffer is too small for the next node (GROW: the caller enlarges ``ranks``,
    ``weights``, ``labels``, ``pcls``, ``ccls``, ``sizes`` or ``class_labels`` and calls
    again). ``metric``: DM or CM; ``limit``: the records a node may suppress; ``cm_ties``: 1 when
    CM breaks the tail order's ties by its own cost first, 0 for DM and for the paper's order. The node at depth
    d reads the rows ``slice_start[d]:+slice_len[d]`` (its classes in ``ccls``, their sizes
    ``sizes[size_start[d]:+counts[d]]``) and merges them into slice d + 1 for its children.
    ``pool[d]`` holds the tail of the node at depth d (``frame_len[d]`` values), ``frame_pos[d]``
    the next one to expand; ``best[0]`` the best cost (-1: none yet), ``best_vals`` its cuts;
    ``whole[d]`` is 1 when slice d holds one row per piece of its parent's allset."""
    capacity = weights.shape[0]
    while True:
        depth = regs[R_DEPTH]
        a = slice_start[depth]
        b = a + slice_len[depth]
        if regs[R_PHASE] == ENTER:
            # room for this node's pieces (at most its rows) and its children's class sizes
            # (at most twice its classes)
            if b + (b - a) > capacity or size_start[depth] + 3 * counts[depth] > sizes.shape[0]:
                return GROW
            if regs[R_NODES] >= budget:
                return ENTER
            regs[R_NODES] += 1
            s0 = size_start[depth]
            size = sizes[s0 : s0 + counts[depth]]
            rows_ranks = ranks[:, a:b]
            rows_weights = weights[a:b]
            rows_labels = labels[:, a:b]
            rows_cls = ccls[a:b]
            dense, kept_size, suppressed = kept(rows_cls, size, k)
            if metric == DM:
                value = n * suppressed
                for c in range(kept_size.shape[0]):
                    value += kept_size[c] * kept_size[c]
            else:
                value = suppressed
                for c in range(size.shape[0]):
                    if size[c] >= k:
                        top = 0
                        for q in range(class_labels.shape[0]):
                            top = max(top, class_labels[q, s0 + c])
                        value += size[c] - top
            feasible = suppressed <= limit
            if feasible and (best[0] < 0 or value < best[0]):
                best[0] = value
                for i in range(regs[R_HEAD]):
                    best_vals[i] = head_vals[i]
                regs[R_BEST_LEN] = regs[R_HEAD]
                regs[R_BEST_AT] = regs[R_NODES]
            length = frame_len[depth]
            if not feasible:
                length = 0  # suppression only grows down the tree
            if length > 0:
                # a value is useful when it splits a class that may profit (docs/koptimize.md)
                big = np.empty(kept_size.shape[0], np.bool_)
                for c in range(kept_size.shape[0]):
                    big[c] = kept_size[c] >= 2 * k or (metric == DM and 2 * kept_size[c] > n)
                tail = pool[depth, :length].copy()
                # CM breaks the order's ties by its own cost of H ∪ {v} first: the labels go in
                # (``cm_ties`` is 0 for DM, see KOptimize)
                splits, useful, new_rows, change, gain = tail_stats(
                    dense,
                    rows_ranks,
                    rows_weights,
                    rows_labels if cm_ties == 1 else rows_labels[:0],
                    kept_size,
                    big,
                    k,
                    alpha_j[tail],
                    alpha_r[tail],
                    dom_sizes,
                )
                chosen = np.empty(length, np.int64)
                keep = 0
                for i in range(length):
                    if not useful[i]:
                        regs[R_USELESS] += 1
                    elif suppressed + new_rows[i] > limit:
                        regs[R_INFEASIBLE] += 1
                    else:
                        # insertion sort: more classes split first, then (CM) the larger drop
                        # of the CM cost, then the larger drop of Σ|E|², then the tail's order
                        # (i grows, so ties keep their place)
                        q = keep
                        while q > 0:
                            o = chosen[q - 1]
                            if splits[o] != splits[i]:
                                if splits[o] > splits[i]:
                                    break
                            elif gain[o] != gain[i]:
                                if gain[o] > gain[i]:
                                    break
                            elif change[o] >= change[i]:
                                break
                            chosen[q] = o
                            q -= 1
                        chosen[q] = i
                        keep += 1
                for q in range(keep):
                    pool[depth, q] = tail[chosen[q]]
                length = keep
            frame_pos[depth] = 0
            regs[R_PHASE] = LOOP
            if length > 0:
                pieces = -2
                if metric == CM and limit == 0 and best[0] >= 0:
                    # the same PRUNE, row by row, stopping once the node is bound to go
                    marks = marks_of(pool[depth], 0, length, pos, head_marks)
                    piece, pieces = cm_enter(
                        rows_ranks, marks, offsets, dom_sizes, rows_weights, rows_labels, best, slot_key, slot_id
                    )
                    if pieces == -1:
                        length = -1
                if pieces == -2:
                    length, piece, pieces, dropped = prune(
                        metric,
                        pool[depth],
                        0,
                        length,
                        pos,
                        head_marks,
                        alpha_j,
                        alpha_r,
                        offsets,
                        dom_sizes,
                        rows_ranks,
                        rows_weights,
                        rows_labels,
                        rows_cls,
                        size,
                        k,
                        n,
                        limit,
                        best,
                        slot_key,
                        slot_id,
                    )
                    regs[R_PRUNED_VALUES] += dropped
                if length < 0:
                    regs[R_PRUNED] += 1
                elif length > 0:
                    if pieces >= 0:
                        merge_rows(piece, pieces, a, b, b, ranks, weights, labels, ccls, pcls)
                        slice_len[depth + 1] = pieces
                        whole[depth + 1] = 1
                    else:
                        copy_rows(a, b, ranks, weights, labels, ccls, pcls)
                        slice_len[depth + 1] = b - a
                        whole[depth + 1] = 0
                    slice_start[depth + 1] = b
            frame_len[depth] = max(length, 0)
            continue
        # LOOP
        i = frame_pos[depth]
        if i >= frame_len[depth]:
            if depth == 0:
                regs[R_PHASE] = DONE
                return DONE
            regs[R_DEPTH] = depth - 1
            regs[R_HEAD] -= 1
            head_marks[pos[head_vals[regs[R_HEAD]]]] = 0
            parent = depth - 1
            if best[0] < 0:
                whole[depth] = 0  # no PRUNE below: the rows stay the pieces of a larger allset
            if (
                frame_pos[parent] < frame_len[parent]
                and best[0] >= 0
                and metric == CM
                and limit == 0
                and whole[depth] == 1
            ):
                # PRUNE again, on the rows beside the cut just done only (``drop_one``)
                done = head_vals[regs[R_HEAD]]
                marks = marks_of(pool[parent], frame_pos[parent], frame_len[parent], pos, head_marks)
                left = drop_one(
                    alpha_j[done],
                    alpha_r[done],
                    marks,
                    offsets,
                    dom_sizes,
                    ranks[:, a:b],
                    weights[a:b],
                    labels[:, a:b],
                    pcls[a:b],
                    best,
                    slot_key,
                    slot_id,
                )
                if left == -1:
                    regs[R_PRUNED] += 1
                    frame_len[parent] = frame_pos[parent]
                    continue
                if left >= 0:
                    slice_len[depth] = left
                    continue
                whole[depth] = 0  # not its pieces after all: the whole PRUNE below
            if frame_pos[parent] < frame_len[parent] and best[0] >= 0:
                # PRUNE again: the parent's allset lost the value just done. Its pieces (slice
                # ``depth``, classes ``pcls``) refine the smaller allset.
                s0 = size_start[parent]
                stop, piece, pieces, dropped = prune(
                    metric,
                    pool[parent],
                    frame_pos[parent],
                    frame_len[parent],
                    pos,
                    head_marks,
                    alpha_j,
                    alpha_r,
                    offsets,
                    dom_sizes,
                    ranks[:, a:b],
                    weights[a:b],
                    labels[:, a:b],
                    pcls[a:b],
                    sizes[s0 : s0 + counts[parent]],
                    k,
                    n,
                    limit,
                    best,
                    slot_key,
                    slot_id,
                )
                regs[R_PRUNED_VALUES] += dropped
                if stop < 0:
                    regs[R_PRUNED] += 1
                frame_len[parent] = frame_pos[parent] if stop < 0 else stop
                if stop > frame_pos[parent] and 0 <= pieces < b - a:
                    # the parent's next children read fewer rows
                    merge_rows(piece, pieces, a, b, a, ranks, weights, labels, pcls, pcls)
                    slice_len[depth] = pieces
                whole[depth] = 1 if pieces >= 0 else 0
            continue
        v = pool[depth, i]
        frame_pos[depth] = i + 1
        _push(
            v,
            depth,
            alpha_j,
            alpha_r,
            pos,
            dom_sizes,
            head_marks,
            head_vals,
            regs,
            ranks,
            weights,
            labels,
            pcls,
            ccls,
            slice_start,
            slice_len,
            sizes,
            class_labels,
            size_start,
            counts,
            acc,
            acc_labels,
            new_of,
            touched,
        )
        child = depth + 1
        rest = frame_len[depth] - (i + 1)
        for q in range(rest):
            pool[child, q] = pool[depth, i + 1 + q]
        frame_len[child] = rest
        regs[R_DEPTH] = child
        regs[R_PHASE] = ENTER
