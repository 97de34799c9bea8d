"""delta-disclosure privacy (Brickell & Shmatikov 2008): for every class E and every sensitive
value s present in it, |ln(p(E, s) / p(T, s))| < delta, with p(T, s) the value's frequency in
the whole input. Not monotonic: merging a class with one that lacks s lowers p(E, s), and the
ratio can leave the band from below."""

from __future__ import annotations

import math

from sqlglot import exp

from sqlanon.sql import col
from sqlanon.criteria.base import PrivacyModel, share
from sqlanon.sql import aggregate
from sqlanon.criteria.options import number_at_least


class DeltaDisclosure(PrivacyModel):
    name = "delta-disclosure"
    options = ("attribute", "delta")
    monotonic_with_generalization = False
    monotonic_with_suppression = False
    worst = "max"

    def __init__(self, attribute: str, delta: float):
        self.attribute = attribute
        self.delta = number_at_least("delta", delta, self.name, 0.0, strict=True)

    def class_columns(self, histogram, keys):
        ratio = exp.Abs(this=exp.Ln(this=exp.Div(this=share(), expression=col("q"))))
        return aggregate(histogram, keys, {self.name_of("delta"): exp.Max(this=ratio)})

    def class_condition(self, size):
        return exp.LT(this=self.column("delta"), expression=self.param("delta"))

    def parameters(self):
        return {self.name_of("delta"): self.delta}

    def describe(self):
        return {"model": self.name, "attribute": self.attribute, "delta": self.delta}

    def class_value(self, histogram, overall):
        n = sum(histogram.values())
        return max(abs(math.log(c / n / overall[v])) for v, c in histogram.items() if c)

    def class_holds(self, value):
        return value < self.delta
