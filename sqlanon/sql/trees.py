"""The building blocks of every query: quoted identifiers, columns, tables and placeholders,
and the names of sqlanon's internal tables and of their columns (``sqlanon/sql``
lists the tables)."""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.lattice import Node


DATA = "sqlanon_data"
DISTINCT = "sqlanon_distinct"
CLASSES = "sqlanon_classes"
WIDE = "sqlanon_wide"
INPUT = "sqlanon_input"
ROW = "__row"


def datatype(kind: str) -> exp.DataType:
    """A plain SQL type (``INT``, ``VARCHAR``...), built without parsing its name."""
    return exp.DataType(this=exp.DataType.Type[kind], nested=False)


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(ident(name), table=ident(table) if table else None)


def table(name: str, alias: str | None = None) -> exp.Table:
    t = exp.Table(this=ident(name))
    if alias:  # what ``as_`` does to a table, kept typed as the table
        t.set("alias", ident(alias))
    return t


def hier_table(j: int) -> str:
    return f"sqlanon_hier_{j}"


def label_table(j: int) -> str:
    return f"sqlanon_label_{j}"


def qi(j: int) -> str:
    return f"q{j}"


def param(name: str) -> exp.Placeholder:
    return exp.Placeholder(this=name)


def case(condition: exp.Expr, then: exp.Expression, default: exp.Expression) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=default)


def total(e: exp.Expression) -> exp.Expression:
    return exp.Coalesce(this=exp.Sum(this=e), expressions=[exp.Literal.number(0)])


def wide_column(j: int, level: int | str) -> str:
    return f"q{j}_{level}"


def wide_leaves(j: int, level: int | str) -> str:
    return f"c{j}_{level}"


def sval_table(i: int) -> str:
    return f"sqlanon_sval_{i}"


def sensitive(i: int) -> str:
    return f"s{i}"


def class_keys(node: Node) -> list[str]:
    return [f"g{j}" for j in range(len(node))]


def pair_column(j: int, level: int | str, partner: int | str) -> str:
    """``p<j>_<l>_<l'>``: QI j's code at level l and QI j+1's at level l' in one key (``with_pairs``)."""
    return f"p{j}_{level}_{partner}"


def distinct_text(j: int) -> str:
    """``sqlanon_distinct``'s column of QI j's text."""
    return f"t{j}"


def distinct_sensitive(i: int) -> str:
    """``sqlanon_distinct``'s column of sensitive attribute i's text."""
    return f"u{i}"


def as_text(e: exp.Expression) -> exp.Expression:
    """A QI value as the text its hierarchy lists; NULL reads as '' (an empty first field)."""
    return exp.Coalesce(this=exp.Cast(this=e, to=datatype("VARCHAR")), expressions=[exp.Literal.string("")])


def rank_table(j: int) -> str:
    return f"sqlanon_rank_{j}"


def cut_table(j: int) -> str:
    return f"sqlanon_cut_{j}"


def aggregate(histogram: exp.Query, keys: Sequence[str], figures: dict[str, exp.Expression]) -> exp.Select:
    """``SELECT keys, figure AS name .. FROM histogram GROUP BY keys``."""
    columns = [col(k) for k in keys] + [e.as_(ident(name)) for name, e in figures.items()]
    return exp.select(*columns).from_(histogram.subquery(ident("h"))).group_by(*(col(k) for k in keys))


def create_temp_table(name: str, query: exp.Expression) -> exp.Create:
    """CREATE TEMPORARY TABLE name AS query."""
    return exp.Create(
        this=table(name),
        kind="TABLE",
        expression=query,
        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
    )
