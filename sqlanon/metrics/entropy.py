"""Non-uniform entropy (Gionis & Tassa 2009; Prasser et al. 2016), as ARX 3.9 defines it.

G_j = sum over original values v of n(v) * log2(n_l(gen(v)) / n(v)), counted over all input
rows; for the suppressed rows, with c(w) the number of them whose level-l value is w,
T_j = sum_w c(w) * log2(S / c(w)). Each G_j + T_j is truncated to 10 decimals, then summed.
With a gs factor other than 0.5 (``base.GSFactors``): g * G_j + s * T_j, in ARX's doubles.
"""

import math

from sqlanon.core.needs import Need
from sqlanon.metrics.base import Metric, truncate


def suppression_entropy(histogram: tuple[int, ...], suppressed: int) -> float:
    return sum(c * math.log2(suppressed / c) for c in histogram if c)


class Entropy(Metric):
    """With weights w_j (largest 1): sum_j w_j * truncate(G_j + T_j)."""

    name = "entropy"
    needs = Need.SUPPRESSED_HISTOGRAMS
    weighted = True
    takes_gs_factor = True
    default_aggregate = "sum"

    def value(self, stats, node, ctx):
        g, s = self.factors.g, self.factors.s
        values = []
        for j, level in enumerate(node):
            extra = 0.0
            if stats.suppressed:
                extra = suppression_entropy(stats.suppressed_histograms[j], stats.suppressed) * s
            values.append(truncate(ctx.entropy_by_level[j][level] * g + extra))
        return self.combined(values)

    def bound(self, stats, node, ctx):
        return self.static_bound(node, ctx)

    def static_bound(self, node, ctx):
        memo = self.__dict__.setdefault("_memo", {})
        for j, level in enumerate(node):
            if (j, level) not in memo:
                memo[(j, level)] = truncate(ctx.entropy_by_level[j][level] * self.factors.g)
        return self.combined([memo[(j, level)] for j, level in enumerate(node)])


class EntropyMonotonic(Entropy):
    name = "entropy-monotonic"
    needs = Need.NONE
    always_monotonic = True

    def value(self, stats, node, ctx):
        return self.static_bound(node, ctx)
