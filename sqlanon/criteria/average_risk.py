"""Average re-identification risk (prosecutor model, as ARX's AverageReidentificationRisk):
the mean of 1/|E| over the released records, i.e. kept classes / kept rows, must not exceed
``threshold``. Optionally ``max_risk`` bounds every record's risk 1/|E|, which is the per-class
condition |E| >= 1/max_risk (a class above it is suppressed like a class below k).

A whole-table model: it is evaluated on the classes kept after the per-class models have
suppressed theirs (ARX evaluates its sample-based models after the per-class ones too); a node
whose kept classes exceed the threshold is not anonymous. Nothing released means no risk.
Without suppression it is monotonic (merging classes lowers kept classes / N); with
suppression the kept rows change with the node, and it is treated as not monotonic.
"""

from __future__ import annotations

import math

from sqlglot import exp

from sqlanon.criteria.base import EPSILON, PrivacyModel
from sqlanon.criteria.options import fraction
from sqlanon.errors import ConfigError


class AverageRisk(PrivacyModel):
    name = "average-risk"
    options = ("threshold", "max_risk")
    whole_table = True
    monotonic_with_suppression = False
    worst = "max"

    def __init__(self, threshold: float, max_risk: float | None = None):
        self.threshold = fraction("threshold", threshold, self.name)
        self.max_risk = None if max_risk is None else fraction("max_risk", max_risk, self.name)
        if self.max_risk == 0:
            raise ConfigError("average-risk: max_risk must be above 0 (a risk of 0 would release nothing)")
        self.min_size = None if self.max_risk is None else max(1, math.ceil(1 / self.max_risk - EPSILON))

    def class_condition(self, size):
        if self.min_size is None:
            return exp.true()
        return exp.GTE(this=size, expression=self.param("min_size"))

    def parameters(self):
        return {} if self.min_size is None else {self.name_of("min_size"): self.min_size}

    def describe(self):
        d = {"model": self.name, "threshold": self.threshold}
        if self.max_risk is not None:
            d["max_risk"] = self.max_risk
        return d

    def class_holds(self, value):
        return self.min_size is None or value >= self.min_size

    def stats_value(self, stats, rows: int) -> float:
        kept = rows - stats.suppressed
        return stats.kept_classes / kept if kept else 0.0

    def table_value(self, kept_sizes):
        rows = sum(kept_sizes)
        return len(kept_sizes) / rows if rows else 0.0

    def table_holds(self, value):
        return value <= self.threshold + EPSILON
