"""Average equivalence class size (LeFevre et al. 2006), as ARX 3.9 defines it: the
suppressed rows together count as one class.

With a gs factor other than 0.5 (``base.GSFactors``) ARX swaps the factors on purpose
(``MetricSDAECS``): the kept classes count s each and the class of the suppressed rows g, so
N / (kept * s + g); a count of 0 (gs factor 0, nothing suppressed) gives ARX's infinity."""

import math

from sqlanon.metrics.base import Metric


def _average(rows: int, classes: float) -> float:
    return rows / classes if classes else math.inf


class AECS(Metric):
    name = "aecs"
    takes_gs_factor = True

    def value(self, stats, node, ctx):
        if self.factors.plain:
            return ctx.rows / (stats.kept_classes + (1 if stats.suppressed else 0))
        g, s = self.factors.g, self.factors.s
        return _average(ctx.rows, stats.kept_classes * s + (g if stats.suppressed else 0.0))

    def bound(self, stats, node, ctx):
        # kept + (1 if any suppressed) <= all classes, and classes only merge upwards. Under
        # factors, kept * s + g <= classes * s + (g - s) when g > s: ARX's bound
        # N / (classes * s) omits that term and can exceed the value for a gs factor below 0.5.
        g, s = self.factors.g, self.factors.s
        return _average(ctx.rows, stats.classes * s + max(0.0, g - s))
