"""Classification metric (Iyengar 2002, as Bayardo & Agrawal 2005 use it): a released record
costs 1 when its label (the job's ``search.label`` column) is not the majority label of its
class, a suppressed record costs 1; the value is the cost divided by N.

The majority count of each class is read from the label's per-class histogram, like the
sensitive histograms of the privacy models. Merging classes never lowers the misclassified
count, and a suppressed record costs at least what it would kept: the value with every class
kept is a lower bound for the node and its generalizations. Not monotonic with suppression.
"""

from sqlglot import exp

from sqlanon.sql import col
from sqlanon.metrics.base import Metric
from sqlanon.sql import aggregate


class Classification(Metric):
    name = "classification"
    needs_label = True
    attribute = None  # set from the label
    key = "mx"

    def __init__(self, weights=None, label=None, gs_factor=0.5, aggregate=None):
        super().__init__(weights, label, gs_factor, aggregate)
        self.attribute = label

    # a figure provider like the histogram models: the class's majority count
    def class_columns(self, histogram, keys):
        return aggregate(histogram, keys, {"mx_top": exp.Max(this=col("f"))})

    def stats_columns(self, d: int) -> dict[str, exp.Expression]:
        zero = exp.Literal.number(0)
        missed = exp.Sub(this=col("n"), expression=col("mx_top"))
        kept = exp.Case(ifs=[exp.If(this=col("kept"), true=missed)], default=zero)
        return {
            "misclassified_kept": exp.Coalesce(this=exp.Sum(this=kept), expressions=[zero.copy()]),
            "misclassified_all": exp.Coalesce(this=exp.Sum(this=missed.copy()), expressions=[zero.copy()]),
        }

    def value(self, stats, node, ctx):
        return (stats.figures["misclassified_kept"] + stats.suppressed) / ctx.rows

    def bound(self, stats, node, ctx):
        return stats.figures["misclassified_all"] / ctx.rows
