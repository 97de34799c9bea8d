"""Discernibility metric (Bayardo & Agrawal 2005), as ARX 3.9 defines it.

``discernibility``: kept classes cost |E|^2, each suppressed row costs N.
``discernibility-star``: every class costs |E|^2, suppression ignored (monotonic).
"""

from sqlanon.metrics.base import Metric


class Discernibility(Metric):
    name = "discernibility"

    def value(self, stats, node, ctx):
        return stats.dm_kept + ctx.rows * stats.suppressed

    def bound(self, stats, node, ctx):
        # Merging classes only grows a sum of squares, and |E|^2 <= N*|E| for a suppressed class.
        return stats.dm_all


class DiscernibilityStar(Metric):
    name = "discernibility-star"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return stats.dm_all

    def bound(self, stats, node, ctx):
        return stats.dm_all
