"""Loss (Iyengar 2002), as ARX 3.9 defines it ("Loss" with equal weight on generalization
and suppression, aggregated by geometric mean).

Per QI j: share(v, l) = rows of H_j under v / |H_j|; raw_j = sum over kept rows of the share of
their value + S (a suppressed row has share 1); L_j = max(0, (raw_j - N/|H_j|) / (N - N/|H_j|)),
truncated to 10 decimals; Loss = prod_j (1 + L_j)^(1/d) - 1. The engine returns
sum(kept rows * rows under the value) as an integer, so L_j is an exact fraction here.

With a gs factor other than 0.5 (ARX's ``createLossMetric(gsFactor)``, factors g and s as
``base.GSFactors`` splits it): a kept row adds g * its share, a suppressed one its
generalized share plus s times the rest up to 1 (just 1 when s = 1), and the minimum the sum
is normalized from is g * N/|H|. The suppressed rows' shares are the node's total
(``MetricContext.leaves_by_level``) less the kept rows': the engine needs no further figure.
"""

from fractions import Fraction

from sqlanon.core.needs import Need
from sqlanon.metrics.aggregate import combine
from sqlanon.metrics.base import Metric

#: ARX keeps 10 decimals of L_j, cutting the rest
DECIMALS = 10**10


def attribute_loss(leaves: int, suppressed: int, size: int, n: int) -> float:
    """L_j, truncated: (a/|H| + S - N/|H|) / (N - N/|H|), multiplied through by |H|. In
    integers: floor(share * 1e10) is an integer division, and int / int is correctly rounded,
    as float(Fraction) is (a Fraction costs more than a check)."""
    numerator = leaves + suppressed * size - n
    if size <= 1 or numerator <= 0:
        return 0.0
    return (numerator * DECIMALS // (n * (size - 1))) / DECIMALS


def weighted_attribute_loss(
    leaves: int, total: int, suppressed: int, size: int, n: int, g: Fraction, s: Fraction
) -> float:
    """L_j under factors g and s, multiplied through by |H| and truncated as above; 0 where
    ARX divides 0 by 0 (one hierarchy row and g = 1)."""
    hidden = total - leaves  # rows under the suppressed rows' generalized values
    spent = suppressed * size if s == 1 else hidden + s * (suppressed * size - hidden)
    low, high = g * n, n * size
    numerator = g * leaves + spent - low
    if high == low or numerator <= 0:
        return 0.0
    return float((numerator * DECIMALS // (high - low)) / DECIMALS)


def aggregate(losses) -> float:
    """Geometric mean of (1 + L_j), minus one: ARX's default for the loss."""
    return combine("geometric-mean", losses, [1.0] * len(losses))


def loss_of(leaves: tuple[int, ...], suppressed: int, ctx) -> float:
    return aggregate([attribute_loss(a, suppressed, size, ctx.rows) for a, size in zip(leaves, ctx.hierarchy_rows)])


class Loss(Metric):
    """With weights, each L_j is multiplied by its weight (largest weight 1) before aggregating."""

    name = "loss"
    needs = Need.LEAVES
    weighted = True
    takes_gs_factor = True
    default_aggregate = "geometric-mean"

    def value(self, stats, node, ctx):
        if self.weights is None and self.factors.plain and self.aggregate == "geometric-mean":
            return loss_of(stats.kept_leaves, stats.suppressed, ctx)
        return self.combined(
            [self._attribute(ctx, j, node[j], a, stats.suppressed) for j, a in enumerate(stats.kept_leaves)]
        )

    def _attribute(self, ctx, j, level, leaves, suppressed):
        size = ctx.hierarchy_rows[j]
        if self.factors.plain:
            return attribute_loss(leaves, suppressed, size, ctx.rows)
        g, s = self.factors.exact
        return weighted_attribute_loss(leaves, ctx.leaves_by_level[j][level], suppressed, size, ctx.rows, g, s)

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        # Without suppression every row keeps its generalized share; suppression only adds.
        return self.combined([self._unsuppressed(ctx, j, l) for j, l in enumerate(node)])

    def _unsuppressed(self, ctx, j, level):
        memo = self.__dict__.setdefault("_memo", {})
        if (j, level) not in memo:
            memo[(j, level)] = self._attribute(ctx, j, level, ctx.leaves_by_level[j][level], 0)
        return memo[(j, level)]
