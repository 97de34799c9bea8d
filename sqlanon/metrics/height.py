"""Height: the sum of the generalization levels (monotonic, needs no data)."""

from sqlanon.metrics.base import Metric


class Height(Metric):
    name = "height"
    always_monotonic = True

    def value(self, stats, node, ctx):
        return sum(node)

    def bound(self, stats, node, ctx):
        return sum(node)

    def static_bound(self, node, ctx):
        return sum(node)
