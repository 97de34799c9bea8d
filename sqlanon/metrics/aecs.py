"""Average equivalence class size (LeFevre et al. 2006), as ARX 3.9 defines it: the
suppressed rows together count as one class."""

from sqlanon.metrics.base import Metric


class AECS(Metric):
    name = "aecs"

    def value(self, stats, node, ctx):
        return ctx.rows / (stats.kept_classes + (1 if stats.suppressed else 0))

    def bound(self, stats, node, ctx):
        # kept + (1 if any suppressed) <= all classes, and classes only merge upwards.
        return ctx.rows / stats.classes
