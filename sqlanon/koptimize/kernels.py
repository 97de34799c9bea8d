"""The compiled loops of K-Optimize's node evaluation (numba).

A node looks at every tail value's split of the head classes and at the allset's classes.
In numpy each of those is a dozen passes with their temporaries (2–3 ms a node on ADULT);
here each is one or two passes over the class-table rows:

* ``moved``: per kept head class and per tail value of one attribute, the weight the value
  moves out of the class (the rows at or above its rank: a class lies inside one head interval
  of the attribute, so those are exactly the rows that go to the new class);
* ``split_stats``: from that matrix, per value, the classes it truly splits, whether one of
  them may profit from the split, the rows it newly suppresses and the change of Σ|E|²;
* ``cm_gain``: for CM, per value the drop of the head's CM cost, which breaks the tail order's
  ties before Σ|E|² (from one more ``moved`` matrix per label but the last);
* ``child_delta``: per value, what the newly suppressed records add to the node's bound;
* ``allset_classes``: each row's allset class (a mixed-radix key of its interval indices,
  grouped by an open-addressing hash table), the classes in order of first appearance.

numba compiles on first use and caches the machine code beside this file (``cache=True``).
"""

from __future__ import annotations

import numba
import numpy as np

OVERFLOW = 2**62


@numba.njit(cache=True, nogil=True)
def moved(dense, ranks_j, weights, bucket, classes, width):  # pragma: no cover - compiled
    """(classes, width - 1): weight of class c's rows whose bucket (the number of tail ranks
    at or below the row's rank) exceeds i — the rows at or above the i-th tail value.
    ``dense[row]`` is the row's kept head class, -1 for a suppressed row."""
    counts = np.zeros((classes, width), np.int64)
    for i in range(dense.shape[0]):
        c = dense[i]
        if c >= 0:
            counts[c, bucket[ranks_j[i]]] += weights[i]
    out = np.empty((classes, width - 1), np.int64)
    for c in range(classes):
        acc = 0
        for b in range(width - 1, 0, -1):
            acc += counts[c, b]
            out[c, b - 1] = acc
    return out


@numba.njit(cache=True, nogil=True)
def split_stats(matrix, size, big, k):  # pragma: no cover - compiled
    """Per value (column of ``matrix``): classes split, useful (splits a class in ``big``),
    rows newly suppressed (parts smaller than k), change of Σ|E|² (float: no overflow)."""
    classes, values = matrix.shape
    splits = np.zeros(values, np.int64)
    useful = np.zeros(values, np.bool_)
    new_rows = np.zeros(values, np.int64)
    change = np.zeros(values, np.float64)
    for c in range(classes):
        s = size[c]
        fs = float(s)
        for v in range(values):
            mv = matrix[c, v]
            low = s - mv
            if mv > 0 and low > 0:
                splits[v] += 1
                if big[c]:
                    useful[v] = True
                if mv < k:
                    new_rows[v] += mv
                if low < k:
                    new_rows[v] += low
                change[v] += fs * fs - float(mv) * float(mv) - float(low) * float(low)
    return splits, useful, new_rows, change


@numba.njit(cache=True, nogil=True)
def child_delta(moved_w, moved_delta, size, class_delta, k):  # pragma: no cover - compiled
    """Per value: the sum, over the classes it splits, of the bound's growth from the parts
    it suppresses (each newly suppressed record's suppression cost minus its bound share)."""
    classes, values = moved_w.shape
    out = np.zeros(values, np.float64)
    for c in range(classes):
        s = size[c]
        for v in range(values):
            mv = moved_w[c, v]
            low = s - mv
            if mv > 0 and low > 0:
                if mv < k:
                    out[v] += moved_delta[c, v]
                if low < k:
                    out[v] += class_delta[c] - moved_delta[c, v]
    return out


@numba.njit(cache=True, nogil=True)
def table_mask(slot_id, rows):  # pragma: no cover - compiled
    """The mask of the part of the hash table ``slot_id`` that ``rows`` keys probe: its first
    power of two (at least 64) at least twice the rows, so a few hundred keys stay in cache."""
    size = min(64, slot_id.shape[0])
    while size < 2 * rows and size < slot_id.shape[0]:
        size *= 2
    return size - 1


@numba.njit(cache=True, nogil=True)
def interval_keys(ranks, lookup, offsets, radices, start, stop, key):  # pragma: no cover - compiled
    """The mixed-radix keys of rows ``start:stop`` (interval index ``lookup[offsets[j] + r]``
    of rank r in attribute j, radix ``radices[j]``; attributes of one interval skipped) into
    ``key[:stop - start]``."""
    key[: stop - start] = 0
    for j in range(ranks.shape[0]):
        radix = radices[j]
        if radix == 1:
            continue
        off = offsets[j]
        for r in range(start, stop):
            key[r - start] = key[r - start] * radix + lookup[off + ranks[j, r]]


@numba.njit(cache=True, nogil=True, inline="always")  # once per row in the hot loops: no call
def slot_of(key, mask, slot_key, slot_id):  # pragma: no cover - compiled
    """The slot of ``key`` in the open-addressing table (``slot_id`` -1 marks an empty slot):
    the one that holds it, or the empty one where it goes. Only the part under ``mask`` is
    probed (``table_mask``)."""
    s = ((key * np.int64(-7046029254386353131)) >> np.int64(20)) & mask
    while slot_id[s] != -1 and slot_key[s] != key:
        s = (s + 1) & mask
    return s


@numba.njit(cache=True, nogil=True)
def allset_classes(ranks, lookup, offsets, radices, slot_key, slot_id):  # pragma: no cover - compiled
    """Each row's class under the cut set whose interval index of rank r in attribute j is
    ``lookup[offsets[j] + r]`` (radix ``radices[j]``), numbered in order of first appearance;
    and the number of classes. The key space fits int64 (the caller checks). ``slot_key``,
    ``slot_id``: an open-addressing table (a power of two, at least twice the class table's
    rows) that is all -1 in ``slot_id`` on entry and is left so — only the slots used are
    reset. Only its first power of two at least twice ``rows`` is used, so a node's few
    hundred pieces probe a table that stays in cache."""
    rows = ranks.shape[1]
    key = np.empty(rows, np.int64)
    interval_keys(ranks, lookup, offsets, radices, 0, rows, key)
    mask = table_mask(slot_id, rows)
    out = np.empty(rows, np.int64)
    used = np.empty(rows, np.int64)
    count = 0
    for r in range(rows):
        s = slot_of(key[r], mask, slot_key, slot_id)
        if slot_id[s] == -1:
            slot_id[s] = count
            slot_key[s] = key[r]
            used[count] = s
            count += 1
        out[r] = slot_id[s]
    for c in range(count):
        slot_id[used[c]] = -1
    return out, count


def hash_table(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Scratch for ``allset_classes`` over ``rows`` rows."""
    size = 1
    while size < 2 * rows:
        size *= 2
    return np.empty(size, np.int64), np.full(size, -1, np.int64)


@numba.njit(cache=True, nogil=True)
def dm_floor(head_of_piece, piece_size, head_size, k):  # pragma: no cover - compiled
    """Per head class of at least k rows, a lower bound on Σ|F|² over its records in any
    descendant that suppresses none of them: the class is cut into parts F of at least k rows,
    each a union of allset pieces (``piece_size``, in head class ``head_of_piece``).

    Pieces of at least k rows ("big") cost at least their square however they are grouped
    ((a + b)² ≥ a² + b²). The small pieces' mass s goes partly (x) into parts made of small
    pieces only — at most floor(x / k) parts, so at least x² / floor(x / k) — and the rest into
    parts holding a big piece B ≥ a_min, where each such record adds at least 2·a_min
    ((B + y)² - B² ≥ 2·B·y). The floor is Σ big² + the least of those over x in {0} ∪ [k, s]
    (x = s when there is no big piece), and at least S² / floor(S / k) for the whole class.
    Floats: each class's figure is rounded down after a relative margin, so it stays a bound."""
    heads = head_size.shape[0]
    big_sq = np.zeros(heads, np.float64)
    small = np.zeros(heads, np.int64)
    amin = np.full(heads, -1, np.int64)
    for p in range(piece_size.shape[0]):
        h = head_of_piece[p]
        a = piece_size[p]
        if a >= k:
            big_sq[h] += float(a) * float(a)
            if amin[h] < 0 or a < amin[h]:
                amin[h] = a
        else:
            small[h] += a
    out = np.zeros(heads, np.int64)
    for h in range(heads):
        S = head_size[h]
        if S < k:
            continue
        s = small[h]
        whole = float(S) * float(S) / float(S // k)
        if s == 0:
            best = 0.0
        elif amin[h] < 0:
            best = float(s) * float(s) / float(s // k)
        else:
            two_a = 2.0 * float(amin[h])
            best = two_a * float(s)  # x = 0
            for q in range(1, s // k + 1):
                lo = float(q * k)
                hi = float(min(q * k + k - 1, s))
                x = min(max(two_a * q / 2.0, lo), hi)  # vertex of x²/q - 2a·x
                f = x * x / q + two_a * (float(s) - x)
                if f < best:
                    best = f
        value = max(big_sq[h] + best, whole)
        out[h] = np.int64(np.floor(value * (1.0 - 1e-12))) - 1
    return out


@numba.njit(cache=True, nogil=True)
def values_of(tail_j, tail_r, j, dom_size):  # pragma: no cover - compiled
    """The tail values of attribute j (their places in the tail, by rank) and the bucket
    ``moved`` needs: per rank, the number of those values' ranks at or below it. None of
    them: an empty array."""
    count = 0
    for t in range(tail_j.shape[0]):
        if tail_j[t] == j:
            count += 1
    which = np.empty(count, np.int64)
    c = 0
    for t in range(tail_j.shape[0]):
        if tail_j[t] == j:
            which[c] = t
            c += 1
    which = which[np.argsort(tail_r[which])]
    bucket = np.zeros(dom_size, np.int64)
    for i in range(count):
        bucket[tail_r[which[i]]] += 1
    for r in range(1, dom_size):
        bucket[r] += bucket[r - 1]
    return which, bucket


@numba.njit(cache=True, nogil=True)
def cm_gain(matrix, per_label, totals, size, k):  # pragma: no cover - compiled
    """Per value (column of ``matrix``): the drop of the head's CM cost when it is added, summed
    over the classes it splits: the class's minority before, minus each part's cost after (its
    minority, or all its rows when it is smaller than k and suppressed). ``per_label[q]``: like
    ``matrix``, the rows of label q the value moves, for every label but the last (whose count
    is what is left); ``totals[q, c]``: class c's rows of label q."""
    classes, values = matrix.shape
    n_labels = totals.shape[0]
    gain = np.zeros(values, np.int64)
    for c in range(classes):
        s = size[c]
        whole = 0
        for q in range(n_labels):
            whole = max(whole, totals[q, c])
        for v in range(values):
            mv = matrix[c, v]
            low = s - mv
            if mv > 0 and low > 0:
                moved_top = 0
                kept_top = 0
                rest = mv
                for q in range(n_labels):
                    if q < n_labels - 1:
                        m = per_label[q, c, v]
                        rest -= m
                    else:
                        m = rest
                    moved_top = max(moved_top, m)
                    kept_top = max(kept_top, totals[q, c] - m)
                after = mv if mv < k else mv - moved_top
                after += low if low < k else low - kept_top
                gain[v] += s - whole - after
    return gain


@numba.njit(cache=True, nogil=True)
def tail_stats(dense, ranks, weights, labels, size, big, k, tail_j, tail_r, dom_sizes):  # pragma: no cover - compiled
    """``split_stats`` of every tail value (``tail_j``, ``tail_r``: attribute and rank, in tail
    order) in one call: per attribute, ``moved`` over its tail values, then the figures.

    ``labels`` (labels × rows) is given for CM and has no rows for DM: with labels, ``gain`` is
    each value's drop of the head's CM cost (``cm_gain``), which breaks the tail order's ties
    before the drop of Σ|E|²; without, it is all zeros."""
    n_tail = tail_j.shape[0]
    splits = np.zeros(n_tail, np.int64)
    useful = np.zeros(n_tail, np.bool_)
    new_rows = np.zeros(n_tail, np.int64)
    change = np.zeros(n_tail, np.float64)
    gain = np.zeros(n_tail, np.int64)
    classes = size.shape[0]
    n_labels = labels.shape[0]
    totals = np.zeros((n_labels, classes), np.int64)
    if n_labels > 0:
        for i in range(dense.shape[0]):
            c = dense[i]
            if c >= 0:
                for q in range(n_labels):
                    totals[q, c] += labels[q, i]
    for j in range(dom_sizes.shape[0]):
        which, bucket = values_of(tail_j, tail_r, j, dom_sizes[j])
        count = which.shape[0]
        if count == 0:
            continue
        matrix = moved(dense, ranks[j], weights, bucket, classes, count + 1)
        s_, u_, n_, c_ = split_stats(matrix, size, big, k)
        if n_labels > 0:
            per_label = np.empty((n_labels - 1, classes, count), np.int64)
            for q in range(n_labels - 1):
                per_label[q] = moved(dense, ranks[j], labels[q], bucket, classes, count + 1)
            g_ = cm_gain(matrix, per_label, totals, size, k)
            for i in range(count):
                gain[which[i]] = g_[i]
        for i in range(count):
            t = which[i]
            splits[t] = s_[i]
            useful[t] = u_[i]
            new_rows[t] = n_[i]
            change[t] = c_[i]
    return splits, useful, new_rows, change, gain


@numba.njit(cache=True, nogil=True)
def interval_lookup(marks, offsets, dom_sizes):  # pragma: no cover - compiled
    """Under the cut ranks marked 1 in ``marks``: each rank's interval index (``lookup``, from
    ``offsets[j]`` for attribute j), each attribute's number of intervals (the key's radix)
    and their product as a float (the key space, to check against int64)."""
    d = offsets.shape[0]
    lookup = np.empty(marks.shape[0], np.int64)
    radices = np.empty(d, np.int64)
    space = 1.0
    for j in range(d):
        acc = 0
        off = offsets[j]
        for r in range(dom_sizes[j]):
            acc += marks[off + r]
            lookup[off + r] = acc
        radices[j] = acc + 1
        space *= acc + 1
    return lookup, radices, space


@numba.njit(cache=True, nogil=True)
def allset_pieces(ranks, marks, offsets, dom_sizes, slot_key, slot_id):  # pragma: no cover - compiled
    """Each row's allset piece (``allset_classes``) under the cut ranks marked 1 in ``marks``
    (attribute j's ranks from ``offsets[j]``), and the number of pieces; -1 pieces when the
    mixed-radix key would overflow int64 (the caller falls back)."""
    lookup, radices, space = interval_lookup(marks, offsets, dom_sizes)
    if space >= 4.0e18:
        return np.empty(0, np.int64), -1
    return allset_classes(ranks, lookup, offsets, radices, slot_key, slot_id)


@numba.njit(cache=True, nogil=True)
def pieces_bound(piece, count, weights, head_cls, head_size, k, n, no_more):  # pragma: no cover - compiled
    """LB_DM(H, A) from each row's allset piece (``allset_pieces``) and head class. A record
    the head suppresses costs n; any other max(|E_A|, k) (at most n); with ``no_more`` (no
    descendant may suppress another record) each kept head class costs at least ``dm_floor``
    of its allset pieces."""
    rows = piece.shape[0]
    piece_size = np.zeros(count, np.int64)
    head_of_piece = np.empty(count, np.int64)
    for r in range(rows):
        piece_size[piece[r]] += weights[r]
        head_of_piece[piece[r]] = head_cls[r]
    heads = head_size.shape[0]
    per_class = np.zeros(heads, np.int64)
    suppressed = 0
    for r in range(rows):
        h = head_cls[r]
        if head_size[h] < k:
            suppressed += weights[r]
        else:
            a = piece_size[piece[r]]
            per_class[h] += weights[r] * min(max(a, k), n)
    total = float(suppressed) * float(n)
    if no_more:
        floor = dm_floor(head_of_piece, piece_size, head_size, k)
        for h in range(heads):
            if head_size[h] >= k:
                total += float(max(per_class[h], floor[h]))
    else:
        for h in range(heads):
            total += float(per_class[h])
    return total


@numba.njit(cache=True, nogil=True)
def dm_bound(
    ranks, marks, offsets, dom_sizes, weights, head_cls, head_size, k, n, no_more, slot_key, slot_id
):  # pragma: no cover - compiled
    """LB_DM(H, A) in one call (``pieces_bound`` of ``allset_pieces``), or -1.0 when the
    allset's key would overflow int64 (the caller falls back)."""
    piece, count = allset_pieces(ranks, marks, offsets, dom_sizes, slot_key, slot_id)
    if count < 0:
        return -1.0
    return pieces_bound(piece, count, weights, head_cls, head_size, k, n, no_more)
