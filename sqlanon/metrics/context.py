"""Per-job constants for the metrics, computed once from the per-value counts."""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import compress
from typing import Sequence

from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.metrics import MetricContext


def metric_context(
    rows: int, hierarchies: Sequence[EncodedHierarchy], value_counts: Sequence[Sequence[int]]
) -> MetricContext:
    """Every sum runs over the leaves some row holds, in code order: a leaf no row holds adds
    nothing to any of them, and a 1 M-row hierarchy over 1,000 rows costs 1,000 terms per
    level, not a million."""
    leaves_by_level, entropy_by_level, distinct_by_level = [], [], []
    for h, counts in zip(hierarchies, value_counts):
        held = list(compress(range(len(counts)), counts))
        n = [counts[v] for v in held]
        rows_held = [h.leaf(v) for v in held]
        leaves, entropy, distinct = [], [], []
        for l in range(len(h.labels)):
            codes = [row[l] for row in rows_held]
            under = h.leaves[l]
            leaves.append(sum(x * under[code] for x, code in zip(n, codes)))
            generalized: defaultdict[int, int] = defaultdict(int)
            for x, code in zip(n, codes):
                generalized[code] += x
            entropy.append(sum(x * math.log2(generalized[code] / x) for x, code in zip(n, codes)))
            distinct.append(len(generalized))
        leaves_by_level.append(tuple(leaves))
        entropy_by_level.append(tuple(entropy))
        distinct_by_level.append(tuple(distinct))
    return MetricContext(
        rows=rows,
        heights=tuple(len(h.labels) - 1 for h in hierarchies),
        hierarchy_rows=tuple(h.size for h in hierarchies),
        leaves_by_level=tuple(leaves_by_level),
        entropy_by_level=tuple(entropy_by_level),
        distinct_by_level=tuple(distinct_by_level),
    )
