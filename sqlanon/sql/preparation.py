"""The preparation's queries: the input encoded as leaf codes (``sqlanon_data``), read once
and grouped by its text (``sqlanon_distinct``), the base class table built from either, the
values no hierarchy holds, and the rows per leaf code."""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.sql.trees import (
    CLASSES,
    DATA,
    DISTINCT,
    INPUT,
    ROW,
    as_text,
    col,
    datatype,
    distinct_sensitive,
    distinct_text,
    ident,
    label_table,
    qi,
    sensitive,
    sval_table,
    table,
)
from sqlanon.sql.dialects import render


def base_classes_query(dimensions: int, sensitives: int = 0, lnx: bool = False) -> exp.Select:
    """Compress the encoded data once: distinct QI code combinations (and sensitive codes,
    when models read them) with their counts. With ``lnx`` each row also carries ln c_x, c_x
    the rows of its QI combination (for the KL-divergence)."""
    keys = [col(qi(j)) for j in range(dimensions)] + [col(sensitive(i)) for i in range(sensitives)]
    query = exp.select(*keys, exp.Count(this=exp.Star()).as_(ident("n"))).from_(table(DATA)).group_by(*keys)
    return with_lnx(query, dimensions) if lnx else query


def with_lnx(classes: exp.Select, dimensions: int) -> exp.Select:
    """The base class table with ln c_x on every row (c_x: the rows of its QI combination)."""
    combination = exp.Window(this=exp.Sum(this=col("n")), partition_by=[col(qi(j)) for j in range(dimensions)])
    ln = exp.Ln(this=exp.Cast(this=combination, to=exp.DataType.build("DOUBLE")))
    return exp.select(exp.Star(), ln.as_(ident("lnx"))).from_(classes.subquery(ident("b")))


def distinct_query(relation: str, qis: Sequence[str], sensitives: Sequence[str] = (), dialect: str = "duckdb") -> str:
    """``sqlanon_distinct``'s rows over the source ``relation`` (SQL text): each QI's and each
    read sensitive attribute's text (as the hierarchies and value tables list it) with the rows
    holding it. Grouped first by the columns as they are (the bare GROUP BY a scan costs), then
    by their text over those few groups (values of one text, NULL and '' say, merge there)."""
    names = [*qis, *sensitives]
    raw = [col(name).as_(ident(f"c{i}")) for i, name in enumerate(names)]
    inner = (
        f"SELECT {', '.join(render(e, dialect) for e in raw)}, COUNT(*) AS {render(ident('n'), dialect)} "
        f"FROM {relation} GROUP BY {', '.join(str(i + 1) for i in range(len(names)))}"
    )
    aliases = [distinct_text(j) for j in range(len(qis))] + [distinct_sensitive(i) for i in range(len(sensitives))]
    texts = [as_text(col(f"c{i}")).as_(ident(alias)) for i, alias in enumerate(aliases)]
    rows = exp.Cast(this=exp.Sum(this=col("n")), to=datatype("BIGINT")).as_(ident("n"))
    return (
        f"SELECT {', '.join(render(e, dialect) for e in [*texts, rows])} FROM ({inner}) AS {render(ident('g'), dialect)} "
        f"GROUP BY {', '.join(str(i + 1) for i in range(len(names)))}"
    )


def value_counts_query(dimensions: int) -> exp.Expression:
    """Rows per leaf code of every QI over the base class table, in one query: ``(j, code,
    rows)``, and ``(-1, NULL, all rows)`` (which, short of the input's rows, means a value
    fell out of the encoding: see ``missing_values_query``)."""
    total = exp.select(
        exp.Literal.number(-1).as_(ident("j")),
        exp.Cast(this=exp.Null(), to=datatype("INT")).as_(ident("code")),
        exp.Sum(this=col("n")).as_(ident("rows")),
    ).from_(table(CLASSES))
    per = [
        exp.select(
            exp.Literal.number(j).as_(ident("j")),
            col(qi(j)).as_(ident("code")),
            exp.Sum(this=col("n")).as_(ident("rows")),
            copy=False,
        )
        .from_(table(CLASSES), copy=False)
        .group_by(col(qi(j)), copy=False)
        for j in range(dimensions)
    ]
    return exp.union(total, *per, distinct=False, copy=False)


def distinct_classes_query(dimensions: int, sensitives: int = 0, lnx: bool = False) -> exp.Select:
    """The base class table from ``sqlanon_distinct``: each text replaced by its code (QIs
    through their level-0 labels, sensitive attributes through their value tables), the rows
    summed per code combination. The same table ``base_classes_query`` builds from the rows."""
    query = exp.select().from_(table(DISTINCT, "s"), copy=False)
    keys = []
    for j in range(dimensions):
        alias = f"d{j}"
        query = query.join(
            table(label_table(j), alias),
            on=exp.and_(
                exp.EQ(this=col("level", alias), expression=exp.Literal.number(0)),
                exp.EQ(this=col("label", alias), expression=col(distinct_text(j), "s")),
            ),
            copy=False,
        )
        keys.append((col("code", alias), qi(j)))
    for i in range(sensitives):
        alias = f"e{i}"
        query = query.join(
            table(sval_table(i), alias),
            on=exp.EQ(this=col("label", alias), expression=col(distinct_sensitive(i), "s")),
            copy=False,
        )
        keys.append((col("code", alias), sensitive(i)))
    rows = exp.Cast(this=exp.Sum(this=col("n", "s")), to=datatype("BIGINT"))
    query = query.select(*(key.as_(ident(name)) for key, name in keys), rows.as_(ident("n")), copy=False)
    query = query.group_by(*(key.copy() for key, _ in keys), copy=False)
    return with_lnx(query, dimensions) if lnx else query


def labelled_classes_query(dimensions: int, label: str | None) -> exp.Select:
    """Distinct QI code combinations with their counts, split by the text of the ``label``
    column of the input when one is given (the class table K-Optimize searches in memory)."""
    keys: list[exp.Expression] = [col(qi(j), "d") for j in range(dimensions)]
    query = exp.select(*keys).from_(table(DATA, "d"))
    if label is not None:
        text = as_text(col(label, "i"))
        query = query.join(table(INPUT, "i"), on=exp.EQ(this=col(ROW, "d"), expression=col("rowid", "i")))
        query = query.select(text.as_(ident("label")))
        keys = [*keys, text.copy()]
    return query.select(exp.Count(this=exp.Star()).as_(ident("n"))).group_by(*(key.copy() for key in keys))


def encode_query(qis: Sequence[str], passthrough: Sequence[str], sensitives: Sequence[str] = ()) -> exp.Select:
    """``sqlanon_data``: every input row with its QIs replaced by leaf codes, in input order
    (and the code ``s<i>`` of each sensitive attribute a model reads)."""
    query = exp.select(col("rowid", "s").as_(ident(ROW))).from_(table(INPUT, "s"))
    for j, name in enumerate(qis):
        alias = f"d{j}"
        query = query.join(
            table(label_table(j), alias),
            on=exp.and_(
                exp.EQ(this=col("level", alias), expression=exp.Literal.number(0)),
                exp.EQ(this=col("label", alias), expression=as_text(col(name, "s"))),
            ),
        ).select(col("code", alias).as_(ident(qi(j))))
    for i, name in enumerate(passthrough):
        query = query.select(col(name, "s").as_(ident(f"p{i}")))
    for i, name in enumerate(sensitives):
        alias = f"e{i}"
        query = query.join(
            table(sval_table(i), alias),
            on=exp.EQ(this=col("label", alias), expression=as_text(col(name, "s"))),
        ).select(col("code", alias).as_(ident(sensitive(i))))
    return query


def missing_values_query(j: int, name: str, source: str = INPUT) -> exp.Select:
    """Values of QI ``name`` absent from its hierarchy, most frequent first. ``source``: the
    input's rows, or ``sqlanon_distinct`` (``name`` its text column, whose rows ``n`` counts)."""
    value = as_text(col(name, "s"))
    rows = exp.Count(this=exp.Star()) if source == INPUT else exp.Sum(this=col("n", "s"))
    return (
        exp.select(value.as_(ident("value")), rows.as_(ident("rows")))
        .from_(table(source, "s"))
        .join(
            table(label_table(j), "d"),
            on=exp.and_(
                exp.EQ(this=col("level", "d"), expression=exp.Literal.number(0)),
                exp.EQ(this=col("label", "d"), expression=value.copy()),
            ),
            join_type="left",
        )
        .where(exp.Is(this=col("code", "d"), expression=exp.Null()))
        .group_by(value.copy())
        .order_by(exp.Ordered(this=col("rows"), desc=True), col("value"))
    )
