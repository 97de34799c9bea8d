"""Precision (Sweeney 2002), as ARX 3.9 defines it: the mean over QIs of the relative
level, where a suppressed row counts as fully generalized. Computed in exact fractions so a
bound never exceeds the value it bounds by a rounding error."""

from fractions import Fraction
from math import lcm

from sqlanon.metrics.base import Metric


def _relative_sum(node, heights) -> Fraction:
    """sum_j l_j / h_j, exactly (integers over a common denominator)."""
    span = lcm(*(h for h in heights if h)) if any(heights) else 1
    return Fraction(sum(l * (span // h) for l, h in zip(node, heights) if h), span)


class Precision(Metric):
    name = "precision"

    def value(self, stats, node, ctx):
        n, s, d = ctx.rows, stats.suppressed, len(node)
        # mean_j ((N - S) * l_j/h_j + S) / N = ((N - S) * sum_j l_j/h_j + d*S) / (N*d)
        return float(((n - s) * _relative_sum(node, ctx.heights) + d * s) / (n * d))

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        return float(_relative_sum(node, ctx.heights) / len(node))


class PrecisionMonotonic(Precision):
    name = "precision-monotonic"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return self.static_bound(node, ctx)
