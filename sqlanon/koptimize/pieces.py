"""The row buffer of K-Optimize's compiled search (``tree.py``): a node's rows merged into its
allset pieces (one row per piece, the weights summed), and a slice copied to a new place."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def merge_rows(piece, count, a, b, to, ranks, weights, labels, cls, pcls):  # pragma: no cover - compiled
    """Rows ``a:b`` merged into their ``count`` pieces, written from row ``to`` on (``b``: a
    new slice; ``a``: in place): each piece's first row's ranks, the summed weights and
    labels, and that row's head class ``cls`` as ``pcls``. Pieces are numbered in order of
    first appearance, so piece p's first row is ``a + p`` or later: in place, a row is read
    before it is overwritten."""
    d = ranks.shape[0]
    L = labels.shape[0]
    summed = np.zeros(count, np.int64)
    summed_labels = np.zeros((L, count), np.int64)
    seen = 0
    for i in range(a, b):
        p = piece[i - a]
        if p == seen:
            for j in range(d):
                ranks[j, to + p] = ranks[j, i]
            pcls[to + p] = cls[i]
            seen += 1
        summed[p] += weights[i]
        for q in range(L):
            summed_labels[q, p] += labels[q, i]
    for p in range(count):
        weights[to + p] = summed[p]
        for q in range(L):
            labels[q, to + p] = summed_labels[q, p]


@numba.njit(cache=True, nogil=True)
def copy_rows(a, b, ranks, weights, labels, cls, pcls):  # pragma: no cover - compiled
    """Rows ``a:b`` copied from ``b`` on, unmerged (the allset key would overflow int64)."""
    d = ranks.shape[0]
    for i in range(a, b):
        for j in range(d):
            ranks[j, b + i - a] = ranks[j, i]
        for q in range(labels.shape[0]):
            labels[q, b + i - a] = labels[q, i]
        weights[b + i - a] = weights[i]
        pcls[b + i - a] = cls[i]
