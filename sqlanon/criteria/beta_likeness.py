"""beta-likeness (Cao & Karras: "Publishing Microdata with a Robust Privacy Guarantee", PVLDB
2012), as ARX 3.9 defines it (``BasicBLikeness``, ``EnhancedBLikeness``): for every class E and
every sensitive value s present in it, the relative gain of s's frequency,
(p(E, s) - p(T, s)) / p(T, s), is at most beta (basic), or at most min(beta, -ln p(T, s))
(``enhanced = true``: a frequent value may gain less). p(T, s) is the value's frequency in the
whole input. A gain only counts upwards (a value rarer in the class than in the table is no
disclosure). Monotonic with generalization (a merged class's frequencies are averages of its
parts', and each bound is fixed per value), not with suppression (as ARX declares it).

Figures: ``gain``, the class's largest relative gain (basic), or ``excess``, its largest gain
above the value's bound (enhanced: the class holds when it is at most 0). The comparison is
ARX's, in doubles: a gain above the bound fails.
"""

from __future__ import annotations

import math

from sqlglot import exp

from sqlanon.criteria.base import PrivacyModel, number, share
from sqlanon.criteria.options import number_at_least
from sqlanon.errors import ConfigError
from sqlanon.sql import aggregate, col


class BetaLikeness(PrivacyModel):
    name = "beta-likeness"
    options = ("attribute", "beta", "enhanced")
    monotonic_with_generalization = True
    monotonic_with_suppression = False
    worst = "max"

    def __init__(self, attribute: str, beta: float, enhanced: bool = False):
        self.attribute = attribute
        self.beta = number_at_least("beta", beta, self.name, 0.0, strict=True)
        if not isinstance(enhanced, bool):
            raise ConfigError(f"the {self.name} model's enhanced must be true or false, got {enhanced!r}")
        self.enhanced = enhanced

    def _gain(self) -> exp.Expression:
        q = col("q")
        return exp.Div(this=exp.Paren(this=exp.Sub(this=share(), expression=q)), expression=q.copy())

    def class_columns(self, histogram, keys):
        if not self.enhanced:
            return aggregate(histogram, keys, {self.name_of("gain"): exp.Max(this=self._gain())})
        bound = exp.Least(this=self.param("beta"), expressions=[exp.Neg(this=exp.Ln(this=col("q")))])
        return aggregate(
            histogram, keys, {self.name_of("excess"): exp.Max(this=exp.Sub(this=self._gain(), expression=bound))}
        )

    def class_condition(self, size):
        if self.enhanced:
            return exp.LTE(this=self.column("excess"), expression=number(0))
        return exp.LTE(this=self.column("gain"), expression=self.param("beta"))

    def parameters(self):
        return {self.name_of("beta"): self.beta}

    def describe(self):
        return {"model": self.name, "attribute": self.attribute, "beta": self.beta, "enhanced": self.enhanced}

    def class_value(self, histogram, overall):
        n = sum(histogram.values())
        gains = {v: (c / n - overall[v]) / overall[v] for v, c in histogram.items() if c}
        if not self.enhanced:
            return max(gains.values())
        return max(g - min(self.beta, -math.log(overall[v])) for v, g in gains.items())

    def class_holds(self, value):
        return value <= 0 if self.enhanced else value <= self.beta
