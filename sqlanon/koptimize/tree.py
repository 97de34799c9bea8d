"""``dfs`` runs K-Optimize's depth-first search (search.py's ``_node``) for the discernibility
metric when no record may be suppressed, entirely in compiled code: the head classes (split
on push, restored from an undo stack on pop), the filter of useless and infeasible values,
the paper's tail order and the bound. Its state lives in arrays (``DfsState``), so it pauses
after a node budget and resumes where it stopped: the caller checks its clock between calls.
"""

from __future__ import annotations

import numba
import numpy as np

from sqlanon.koptimize.kernels import dm_bound, tail_stats

ENTER, LOOP, DONE = 0, 1, 2
# registers: phase, depth, nodes, count (head classes), head length, best length, pruned
# nodes, useless values, infeasible values, undo pointer, split pointer, best-found-at node
R_PHASE, R_DEPTH, R_NODES, R_COUNT, R_HEAD, R_BEST_LEN, R_PRUNED, R_USELESS, R_INFEASIBLE, R_UNDO, R_SPLIT, R_BEST_AT = range(12)


@numba.njit(cache=True, nogil=True)
def _push(v, alpha_j, alpha_r, pos, offsets, dom_sizes, by_rank, starts, weights, cls, size, head_marks,
          head_vals, regs, undo_rows, undo_old, split_ids, split_moved, depth_undo, depth_split, depth_count,
          acc, new_of, touched):  # pragma: no cover - compiled
    j = alpha_j[v]
    r = alpha_r[v]
    off = offsets[j]
    hi = dom_sizes[j]
    for q in range(r + 1, dom_sizes[j]):
        if head_marks[off + q] == 1:
            hi = q
            break
    depth = regs[R_DEPTH]
    depth_undo[depth] = regs[R_UNDO]
    depth_split[depth] = regs[R_SPLIT]
    depth_count[depth] = regs[R_COUNT]
    a, b = starts[j, r], starts[j, hi]
    n_touched = 0
    for i in range(a, b):
        row = by_rank[j, i]
        c = cls[row]
        if acc[c] == 0:
            touched[n_touched] = c
            n_touched += 1
        acc[c] += weights[row]
    count = regs[R_COUNT]
    sp = regs[R_SPLIT]
    for t in range(n_touched):
        c = touched[t]
        if acc[c] < size[c]:
            new_of[c] = count
            size[count] = acc[c]
            size[c] -= acc[c]
            split_ids[sp] = c
            split_moved[sp] = acc[c]
            sp += 1
            count += 1
    up = regs[R_UNDO]
    for i in range(a, b):
        row = by_rank[j, i]
        c = cls[row]
        if new_of[c] >= 0:
            undo_rows[up] = row
            undo_old[up] = c
            up += 1
            cls[row] = new_of[c]
    for t in range(n_touched):
        acc[touched[t]] = 0
        new_of[touched[t]] = -1
    regs[R_COUNT] = count
    regs[R_SPLIT] = sp
    regs[R_UNDO] = up
    head_marks[pos[v]] = 1
    head_vals[regs[R_HEAD]] = v
    regs[R_HEAD] += 1


@numba.njit(cache=True, nogil=True)
def _pop(pos, cls, size, head_marks, head_vals, regs, undo_rows, undo_old, split_ids, split_moved, depth_undo,
         depth_split, depth_count):  # pragma: no cover - compiled
    depth = regs[R_DEPTH]
    for i in range(depth_undo[depth], regs[R_UNDO]):
        cls[undo_rows[i]] = undo_old[i]
    for i in range(depth_split[depth], regs[R_SPLIT]):
        size[split_ids[i]] += split_moved[i]
    regs[R_UNDO] = depth_undo[depth]
    regs[R_SPLIT] = depth_split[depth]
    regs[R_COUNT] = depth_count[depth]
    regs[R_HEAD] -= 1
    head_marks[pos[head_vals[regs[R_HEAD]]]] = 0


@numba.njit(cache=True, nogil=True)
def _bound_of(tail, start, stop, pos, head_marks, ranks, offsets, dom_sizes, weights, cls, size, count, k, n,
              slot_key, slot_id):  # pragma: no cover - compiled
    marks = head_marks.copy()
    for i in range(start, stop):
        marks[pos[tail[i]]] = 1
    return dm_bound(ranks, marks, offsets, dom_sizes, weights, cls, size[:count], k, n, True, slot_key, slot_id)


@numba.njit(cache=True, nogil=True)
def dfs(budget, k, n, ranks, weights, alpha_j, alpha_r, pos, offsets, dom_sizes, by_rank, starts, cls, size,
        head_marks, head_vals, regs, best, best_vals, pool, frame_len, frame_pos, undo_rows, undo_old, split_ids,
        split_moved, depth_undo, depth_split, depth_count, acc, new_of, touched, slot_key, slot_id):  # pragma: no cover - compiled
    """Run until the tree is done (returns DONE) or ``regs[R_NODES]`` reaches ``budget``.
    ``pool[d]`` holds the tail of the node at depth d (``frame_len[d]`` values), ``frame_pos[d]``
    the next one to expand; ``best[0]`` the best cost (-1: none yet), ``best_vals`` its cuts."""
    V = alpha_j.shape[0]
    while True:
        depth = regs[R_DEPTH]
        if regs[R_PHASE] == ENTER:
            if regs[R_NODES] >= budget:
                return ENTER
            regs[R_NODES] += 1
            count = regs[R_COUNT]
            value = 0
            feasible = True
            for c in range(count):
                if size[c] < k:
                    feasible = False
                value += size[c] * size[c]
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
                big = np.empty(count, np.bool_)
                for c in range(count):
                    big[c] = size[c] >= 2 * k or 2 * size[c] > n
                tail = pool[depth, :length].copy()
                splits, useful, new_rows, change = tail_stats(cls, ranks, weights, size[:count], big, k,
                                                              alpha_j[tail], alpha_r[tail], dom_sizes)
                chosen = np.empty(length, np.int64)
                keep = 0
                for i in range(length):
                    if not useful[i]:
                        regs[R_USELESS] += 1
                    elif new_rows[i] > 0:
                        regs[R_INFEASIBLE] += 1
                    else:
                        # insertion sort: more classes split first, then the larger drop of
                        # Σ|E|², then the tail's order (i grows, so ties keep their place)
                        q = keep
                        while q > 0:
                            o = chosen[q - 1]
                            if splits[o] > splits[i] or (splits[o] == splits[i] and change[o] >= change[i]):
                                break
                            chosen[q] = o
                            q -= 1
                        chosen[q] = i
                        keep += 1
                for q in range(keep):
                    pool[depth, q] = tail[chosen[q]]
                length = keep
            frame_len[depth] = length
            frame_pos[depth] = 0
            regs[R_PHASE] = LOOP
            if length > 0 and best[0] >= 0:
                bound = _bound_of(pool[depth], 0, length, pos, head_marks, ranks, offsets, dom_sizes, weights, cls,
                                  size, regs[R_COUNT], k, n, slot_key, slot_id)
                if bound >= 0 and bound >= best[0]:
                    regs[R_PRUNED] += 1
                    frame_len[depth] = 0
            continue
        # LOOP
        i = frame_pos[depth]
        if i >= frame_len[depth]:
            if depth == 0:
                regs[R_PHASE] = DONE
                return DONE
            regs[R_DEPTH] = depth - 1
            _pop(pos, cls, size, head_marks, head_vals, regs, undo_rows, undo_old, split_ids, split_moved,
                 depth_undo, depth_split, depth_count)
            parent = depth - 1
            if frame_pos[parent] < frame_len[parent]:
                bound = _bound_of(pool[parent], frame_pos[parent], frame_len[parent], pos, head_marks, ranks, offsets,
                                  dom_sizes, weights, cls, size, regs[R_COUNT], k, n, slot_key, slot_id)
                if bound >= 0 and best[0] >= 0 and bound >= best[0]:
                    regs[R_PRUNED] += 1
                    frame_pos[parent] = frame_len[parent]
            continue
        v = pool[depth, i]
        frame_pos[depth] = i + 1
        _push(v, alpha_j, alpha_r, pos, offsets, dom_sizes, by_rank, starts, weights, cls, size, head_marks,
              head_vals, regs, undo_rows, undo_old, split_ids, split_moved, depth_undo, depth_split, depth_count,
              acc, new_of, touched)
        child = depth + 1
        rest = frame_len[depth] - (i + 1)
        for q in range(rest):
            pool[child, q] = pool[depth, i + 1 + q]
        frame_len[child] = rest
        regs[R_DEPTH] = child
        regs[R_PHASE] = ENTER
