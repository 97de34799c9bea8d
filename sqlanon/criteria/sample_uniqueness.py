"""Sample uniqueness: the fraction of released records that are unique in the released sample
(kept classes of one row / kept rows) must not exceed ``threshold``.

A whole-table model, evaluated like average-risk on the classes the per-class models keep
(0 when nothing is released). Monotonic without suppression (merging classes never creates a
unique record); with suppression treated as not monotonic.
"""

from __future__ import annotations

from sqlanon.core.needs import Need
from sqlanon.criteria.base import EPSILON, PrivacyModel
from sqlanon.criteria.options import fraction


class SampleUniqueness(PrivacyModel):
    name = "sample-uniqueness"
    options = ("threshold",)
    whole_table = True
    monotonic_with_suppression = False
    needs = Need.UNIQUES
    worst = "max"

    def __init__(self, threshold: float):
        self.threshold = fraction("threshold", threshold, self.name)

    def describe(self):
        return {"model": self.name, "threshold": self.threshold}

    def stats_value(self, stats, rows: int) -> float:
        kept = rows - stats.suppressed
        return stats.kept_uniques / kept if kept else 0.0

    def table_value(self, kept_sizes):
        rows = sum(kept_sizes)
        return sum(1 for n in kept_sizes if n == 1) / rows if rows else 0.0

    def table_holds(self, value):
        return value <= self.threshold + EPSILON
