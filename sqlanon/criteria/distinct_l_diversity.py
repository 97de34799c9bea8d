"""Distinct l-diversity (Machanavajjhala et al. 2007): every class holds at least l distinct
sensitive values. Monotonic with generalization and with suppression: a class that passes
still passes when merged with others."""

from __future__ import annotations

from sqlglot import exp

from sqlanon.criteria.base import PrivacyModel
from sqlanon.sql import aggregate
from sqlanon.criteria.options import positive_int


class DistinctLDiversity(PrivacyModel):
    name = "distinct-l-diversity"
    options = ("attribute", "l")

    def __init__(self, attribute: str, l: int):
        self.attribute = attribute
        self.l = positive_int("l", l, self.name)

    def class_columns(self, histogram, keys):
        return aggregate(histogram, keys, {self.name_of("distinct"): exp.Count(this=exp.Star())})

    def class_condition(self, size):
        return exp.GTE(this=self.column("distinct"), expression=self.param("l"))

    def parameters(self):
        return {self.name_of("l"): self.l}

    def describe(self):
        return {"model": self.name, "attribute": self.attribute, "l": self.l}

    def class_value(self, histogram, overall):
        return float(sum(1 for c in histogram.values() if c))

    def class_holds(self, value):
        return value >= self.l
