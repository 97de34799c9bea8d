"""Precision (Sweeney 2002), as ARX 3.9 defines it: the mean over QIs of the relative
level, where a suppressed row counts as fully generalized. Computed in exact fractions so a
bound never exceeds the value it bounds by a rounding error."""

from fractions import Fraction
from math import lcm

from sqlanon.metrics.base import Metric


def _relative_sum(node, heights, weights=None) -> Fraction:
    """sum_j w_j l_j / h_j, exactly (integers over a common denominator; float weights are
    exact binary fractions)."""
    span = lcm(*(h for h in heights if h)) if any(heights) else 1
    if weights is None:
        return Fraction(sum(l * (span // h) for l, h in zip(node, heights) if h), span)
    return sum((Fraction(w) * l * (span // h) for l, h, w in zip(node, heights, weights) if h), Fraction(0)) / span


class Precision(Metric):
    """With weights w_j (largest 1): (1/d) sum_j w_j * precision_j."""

    name = "precision"
    weighted = True

    def value(self, stats, node, ctx):
        n, s, d = ctx.rows, stats.suppressed, len(node)
        total_weight = d if self.weights is None else sum(Fraction(w) for w in self.weights)
        # mean_j w_j ((N - S) * l_j/h_j + S) / N = ((N - S) * sum_j w_j l_j/h_j + S sum_j w_j) / (N*d)
        return float(((n - s) * _relative_sum(node, ctx.heights, self.weights) + total_weight * s) / (n * d))

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        return float(_relative_sum(node, ctx.heights, self.weights) / len(node))


class PrecisionMonotonic(Precision):
    name = "precision-monotonic"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return self.static_bound(node, ctx)
