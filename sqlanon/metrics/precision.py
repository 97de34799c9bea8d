"""Precision (Sweeney 2002), as ARX 3.9 defines it: the mean over QIs of the relative
level, where a suppressed row counts as fully generalized. Computed in exact fractions so a
bound never exceeds the value it bounds by a rounding error."""

from fractions import Fraction

from sqlanon.metrics.base import Metric


def _relative(node, heights):
    return [Fraction(l, h) if h else Fraction(0) for l, h in zip(node, heights)]


class Precision(Metric):
    name = "precision"

    def value(self, stats, node, ctx):
        n, s = ctx.rows, stats.suppressed
        terms = [((n - s) * r + s) / n for r in _relative(node, ctx.heights)]
        return float(sum(terms, Fraction(0)) / len(node))

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        return float(sum(_relative(node, ctx.heights), Fraction(0)) / len(node))


class PrecisionMonotonic(Precision):
    name = "precision-monotonic"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return self.static_bound(node, ctx)
