"""Precision (Sweeney 2002), as ARX 3.9 defines it: the mean over QIs of the relative
level, where a suppressed row counts as fully generalized. Computed in exact fractions so a
bound never exceeds the value it bounds by a rounding error. With a gs factor other than 0.5
(``base.GSFactors``), a kept row's relative level weighs g and a suppressed row s."""

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


def _relatives(node, heights) -> list[Fraction]:
    """l_j / h_j per QI (0 for a QI of height 0)."""
    return [Fraction(l, h) if h else Fraction(0) for l, h in zip(node, heights)]


class Precision(Metric):
    """With weights w_j (largest 1): (1/d) sum_j w_j * precision_j."""

    name = "precision"
    weighted = True
    takes_gs_factor = True
    default_aggregate = "arithmetic-mean"

    def value(self, stats, node, ctx):
        n, s, d = ctx.rows, stats.suppressed, len(node)
        g, f = self.factors.exact
        if self.aggregate != "arithmetic-mean":
            return self.combined([float(((n - s) * g * r + f * s) / n) for r in _relatives(node, ctx.heights)])
        total_weight = d if self.weights is None else sum(Fraction(w) for w in self.weights)
        # mean_j w_j ((N - S) g l_j/h_j + S s) / N = ((N - S) g sum_j w_j l_j/h_j + S s sum_j w_j) / (N*d)
        relative = _relative_sum(node, ctx.heights, self.weights)
        return float(((n - s) * g * relative + f * total_weight * s) / (n * d))

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        # a row costs g * its relative level kept, s suppressed: the cheaper of the two bounds
        # the node and (levels only rise) every generalization; s < g * level below gs 0.5
        g, s = self.factors.exact
        if self.aggregate != "arithmetic-mean":
            return self.combined([float(min(g * r, s)) for r in _relatives(node, ctx.heights)])
        total_weight = len(node) if self.weights is None else sum(Fraction(w) for w in self.weights)
        return float(min(g * _relative_sum(node, ctx.heights, self.weights), s * total_weight) / len(node))


class PrecisionMonotonic(Precision):
    """Suppression not counted (ARX's ``MetricMDPrecision``): g times the mean relative level."""

    name = "precision-monotonic"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        g = self.factors.exact[0]
        if self.aggregate != "arithmetic-mean":
            return self.combined([float(g * r) for r in _relatives(node, ctx.heights)])
        return float(g * _relative_sum(node, ctx.heights, self.weights) / len(node))
