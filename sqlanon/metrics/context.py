"""Per-job constants for the metrics, computed once from the per-value counts."""

from __future__ import annotations

import math
from typing import Sequence

from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.metrics import MetricContext


def metric_context(rows: int, hierarchies: Sequence[EncodedHierarchy], value_counts: Sequence[Sequence[int]]) -> MetricContext:
    leaves_by_level, entropy_by_level, distinct_by_level = [], [], []
    for h, counts in zip(hierarchies, value_counts):
        levels = len(h.labels)
        leaves_by_level.append(tuple(
            sum(n * h.leaves[l][h.codes[v][l]] for v, n in enumerate(counts)) for l in range(levels)
        ))
        entropy = []
        for l in range(levels):
            generalized = [0] * len(h.labels[l])
            for v, n in enumerate(counts):
                generalized[h.codes[v][l]] += n
            entropy.append(sum(n * math.log2(generalized[h.codes[v][l]] / n) for v, n in enumerate(counts) if n))
        entropy_by_level.append(tuple(entropy))
        distinct_by_level.append(tuple(len({h.codes[v][l] for v, n in enumerate(counts) if n}) for l in range(levels)))
    return MetricContext(
        rows=rows,
        heights=tuple(len(h.labels) - 1 for h in hierarchies),
        hierarchy_rows=tuple(len(h.codes) for h in hierarchies),
        leaves_by_level=tuple(leaves_by_level),
        entropy_by_level=tuple(entropy_by_level),
        distinct_by_level=tuple(distinct_by_level),
    )
