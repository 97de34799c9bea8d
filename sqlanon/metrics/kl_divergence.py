"""KL-divergence (Kifer & Gehrke 2006, as a utility metric): the Kullback-Leibler divergence
of the released table's distribution over QI combinations from the input's.

The input puts p(x) = c_x / N on each original QI combination x. A released class E spreads
its |E| / N uniformly over the prod_j |leaves under its value of QI j| combinations its values
cover; the suppressed rows spread their S / N over every combination, prod_j |H_j|. So

    KL = sum_x (c_x / N) ln(c_x * prod_j leaves_j(E(x)) / |E(x)|)      (natural logarithm)

with |E(x)| = S and the leaves = |H_j| for a suppressed x. Per class the engine sums
c_x ln c_x (a column of the base class table, ``lnx`` = ln c_x, multiplied by the rows), so
the value is exact up to floating point. By Gibbs' inequality every class contributes >= 0.
Monotonic without suppression (merging classes spreads mass over a larger box). Suppressing
classes never lowers it either: for the suppressed classes E (sizes summing to S, disjoint
boxes inside the domain) the change is S * KL((|E|/S)_E || (box_E / prod |H_j|)_E) >= 0. So the
value with every class kept is a lower bound for the node and all its generalizations,
whatever they suppress; with suppression the metric is not monotonic.
"""

import math

from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.sql import col
from sqlanon.metrics.base import Metric


def _double(e):
    return exp.Cast(this=e, to=exp.DataType.build("DOUBLE"))


class KLDivergence(Metric):
    name = "kl-divergence"
    needs = Need.LEAVES | Need.LNX

    def stats_columns(self, d: int) -> dict[str, exp.Expression]:
        zero = exp.Literal.number(0)
        n = _double(col("n"))
        box: exp.Expression = exp.Ln(this=_double(col("leaves0")))
        for j in range(1, d):
            box = exp.Add(this=box, expression=exp.Ln(this=_double(col(f"leaves{j}"))))
        kept = exp.Sub(
            this=exp.Add(this=col("lnx"), expression=exp.Mul(this=n, expression=exp.Paren(this=box))),
            expression=exp.Mul(this=n.copy(), expression=exp.Ln(this=n.copy())),
        )
        return {
            "kl_kept": exp.Coalesce(
                this=exp.Sum(this=exp.Case(ifs=[exp.If(this=col("kept"), true=kept)], default=zero)),
                expressions=[zero.copy()],
            ),
            "kl_all": exp.Coalesce(this=exp.Sum(this=kept.copy()), expressions=[zero.copy()]),
            "kl_suppressed": exp.Coalesce(
                this=exp.Sum(this=exp.Case(ifs=[exp.If(this=col("kept"), true=zero.copy())], default=col("lnx"))),
                expressions=[zero.copy()],
            ),
        }

    def value(self, stats, node, ctx):
        total = stats.figures["kl_kept"]
        s = stats.suppressed
        if s:
            domain = sum(math.log(rows) for rows in ctx.hierarchy_rows)
            total += stats.figures["kl_suppressed"] + s * domain - s * math.log(s)
        return max(total / ctx.rows, 0.0)  # >= 0 in exact arithmetic; no rounding below it

    def bound(self, stats, node, ctx):
        return max(stats.figures["kl_all"] / ctx.rows, 0.0)
