"""Entropy l-diversity (Machanavajjhala et al. 2007): -sum_i p_i ln p_i >= ln l in every
class, and at least ceil(l) distinct values. Entropy is concave, so merging passing classes
passes (monotonic with generalization); merging a passing class with a failing one may fail,
so it is not monotonic with suppression (Lightning paper, appendix)."""

from __future__ import annotations

import math

from sqlglot import exp

from sqlanon.sql import col
from sqlanon.criteria.base import EPSILON, PrivacyModel, as_double
from sqlanon.sql import aggregate
from sqlanon.criteria.options import number_at_least


def entropy(counts) -> float:
    n = sum(counts)
    return -sum(c / n * math.log(c / n) for c in counts if c)


class EntropyLDiversity(PrivacyModel):
    name = "entropy-l-diversity"
    options = ("attribute", "l")
    monotonic_with_suppression = False

    def __init__(self, attribute: str, l: float):
        self.attribute = attribute
        self.l = number_at_least("l", l, self.name, 1.0)

    def class_columns(self, histogram, keys):
        f, n = as_double(col("f")), as_double(exp.Max(this=col("cn")))
        # H = ln n - (sum f ln f) / n
        h = exp.Sub(
            this=exp.Ln(this=n),
            expression=exp.Div(
                this=exp.Sum(this=exp.Mul(this=f, expression=exp.Ln(this=f.copy()))), expression=n.copy()
            ),
        )
        return aggregate(
            histogram, keys, {self.name_of("entropy"): h, self.name_of("distinct"): exp.Count(this=exp.Star())}
        )

    def class_condition(self, size):
        return exp.and_(
            exp.GTE(this=self.column("distinct"), expression=self.param("distinct")),
            exp.GTE(this=self.column("entropy"), expression=self.param("entropy")),
        )

    def parameters(self):
        return {self.name_of("distinct"): math.ceil(self.l), self.name_of("entropy"): math.log(self.l) - EPSILON}

    def describe(self):
        return {"model": self.name, "attribute": self.attribute, "l": self.l}

    def class_value(self, histogram, overall):
        """The largest l the class satisfies: exp(H) (never above its distinct values, so the
        distinct-value condition follows from the entropy one)."""
        return math.exp(entropy(histogram.values()))

    def class_holds(self, value):
        return math.log(value) >= math.log(self.l) - EPSILON
