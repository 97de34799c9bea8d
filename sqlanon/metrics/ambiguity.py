"""Ambiguity (Nergiz & Clifton 2007): the mean over records of the number of original QI
combinations a released record could stand for, prod_j |leaves under its value of QI j|; a
suppressed record could be any combination, prod_j |H_j|.

Not monotonic with suppression (keeping a class can cost less than suppressing it). Lower
bound for a node and its generalizations: the value with every class kept, since a record's
product only grows under generalization and a suppressed record costs the most.
"""

from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.sql import col
from sqlanon.metrics.base import Metric


def _product(d: int) -> exp.Expression:
    result: exp.Expression = exp.Cast(this=col("leaves0"), to=exp.DataType.build("DOUBLE"))
    for j in range(1, d):
        result = exp.Mul(this=result, expression=exp.Cast(this=col(f"leaves{j}"), to=exp.DataType.build("DOUBLE")))
    return exp.Mul(this=col("n"), expression=exp.Paren(this=result))


class Ambiguity(Metric):
    name = "ambiguity"
    needs = Need.LEAVES

    def stats_columns(self, d: int) -> dict[str, exp.Expression]:
        zero = exp.Literal.number(0)
        kept = exp.Case(ifs=[exp.If(this=col("kept"), true=_product(d))], default=zero)
        return {
            "ambiguity_kept": exp.Coalesce(this=exp.Sum(this=kept), expressions=[zero.copy()]),
            "ambiguity_all": exp.Coalesce(this=exp.Sum(this=_product(d)), expressions=[zero.copy()]),
        }

    def _domain(self, ctx) -> float:
        size = 1.0
        for rows in ctx.hierarchy_rows:
            size *= rows
        return size

    def value(self, stats, node, ctx):
        return (stats.figures["ambiguity_kept"] + stats.suppressed * self._domain(ctx)) / ctx.rows

    def bound(self, stats, node, ctx):
        return stats.figures["ambiguity_all"] / ctx.rows
