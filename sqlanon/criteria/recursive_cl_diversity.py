"""Recursive (c, l)-diversity (Machanavajjhala et al. 2007): with r_1 >= r_2 >= .. >= r_m the
sorted counts of the sensitive values in a class, r_1 < c (r_l + r_(l+1) + .. + r_m), and at
least l distinct values. Monotonic with generalization, not with suppression (Lightning paper,
appendix)."""

from __future__ import annotations

from sqlglot import exp

from sqlanon.sql import col
from sqlanon.criteria.base import PrivacyModel, as_double, number
from sqlanon.sql import aggregate
from sqlanon.criteria.options import number_at_least, positive_int


class RecursiveCLDiversity(PrivacyModel):
    name = "recursive-cl-diversity"
    options = ("attribute", "c", "l")
    monotonic_with_suppression = False
    worst = "max"

    def __init__(self, attribute: str, c: float, l: int):
        self.attribute = attribute
        self.c = number_at_least("c", c, self.name, 0.0, strict=True)
        self.l = positive_int("l", l, self.name)

    def class_columns(self, histogram, keys):
        tail = exp.Case(
            ifs=[exp.If(this=exp.GTE(this=col("r"), expression=self.param("l")), true=col("f"))], default=number(0)
        )
        return aggregate(
            histogram,
            keys,
            {
                self.name_of("top"): exp.Max(this=col("f")),
                self.name_of("tail"): exp.Sum(this=tail),
                self.name_of("distinct"): exp.Count(this=exp.Star()),
            },
        )

    def class_condition(self, size):
        return exp.and_(
            exp.GTE(this=self.column("distinct"), expression=self.param("l")),
            exp.LT(
                this=as_double(self.column("top")),
                expression=exp.Mul(this=self.param("c"), expression=as_double(self.column("tail"))),
            ),
        )

    def parameters(self):
        return {self.name_of("l"): self.l, self.name_of("c"): self.c}

    def describe(self):
        return {"model": self.name, "attribute": self.attribute, "c": self.c, "l": self.l}

    def class_value(self, histogram, overall):
        """r_1 / (r_l + .. + r_m): the class passes iff c exceeds it (inf: fewer than l values)."""
        counts = sorted((c for c in histogram.values() if c), reverse=True)
        tail = sum(counts[self.l - 1 :])
        return counts[0] / tail if tail else float("inf")

    def class_holds(self, value):
        return value < self.c
