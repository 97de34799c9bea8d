"""The released table as one query: every row generalized to the node (or bucketed into the
intervals of an ordered anonymization), its QIs masked or the row dropped when its class fails,
in input order or shuffled (sorted by a keyed hash of each row's position, ``shuffle_order``)."""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.sql.checks import class_query
from sqlanon.sql.layout import generalized, join_labels
from sqlanon.sql.trees import DATA, ROW, case, class_keys, col, cut_table, datatype, ident, param, qi, rank_table, table
from sqlanon.lattice import Node

#: the parameter holding a shuffle's secret key (sqlanon/engines/row_order.py)
ORDER_KEY = "order_key"
#: the hex digits of the keyed digest a shuffle sorts by (``shuffle_key``): 60 bits
KEY_DIGITS = 15


def shuffle_key(row: exp.Expression) -> exp.Expression:
    """The sort key of a shuffled release: the first ``KEY_DIGITS`` hex digits of SHA-256 of
    the bound secret ``$order_key`` followed by ``row``, the row's input position, as text, read
    as an integer. A keyed hash: without the key the sorted order is indistinguishable from a
    uniformly random one (sqlanon/engines/row_order.py).

    An 8-byte integer rather than the digest's 64 hex characters, which cost 2.5x ``random()``'s
    doubles to sort at 100 M rows (bench/README.md). 60 bits, so that the number is
    non-negative in every dialect's signed BIGINT and sorts alike on every engine: ``'x'`` and
    the digits is the text of a bit string, cast to BIT(60), then to BIGINT (DuckDB,
    PostgreSQL; Spark has no bit strings and reads the digits with CONV, ``dialects.render``).
    n rows hold n(n - 1) / 2^61 pairs of equal keys on average, 0.004 at 100 M rows; such a
    pair comes out in input order (``shuffle_order``), the one trace of that order left. Hex
    digits of one width sort as the numbers they spell, so the order is the whole digest's text
    but between rows whose keys are equal.

    >>> print(shuffle_key(col("__r")).sql("duckdb"))
    CAST(CAST('x' || SUBSTRING(SHA256($order_key || CAST("__r" AS TEXT)), 1, 15) AS BIT(60)) AS BIGINT)
    """
    text = exp.Cast(this=row, to=datatype("TEXT"))
    digest = exp.SHA2(this=exp.Concat(expressions=[param(ORDER_KEY), text]), length=exp.Literal.number(256))
    digits = exp.Substring(this=digest, start=exp.Literal.number(1), length=exp.Literal.number(KEY_DIGITS))
    bits = exp.DataType(
        this=exp.DataType.Type.BIT, expressions=[exp.DataTypeParam(this=exp.Literal.number(4 * KEY_DIGITS))]
    )
    bit_string = exp.Cast(this=exp.Concat(expressions=[exp.Literal.string("x"), digits]), to=bits)
    return exp.Cast(this=bit_string, to=datatype("BIGINT"))


def shuffle_order(row: exp.Expression) -> list[exp.Expression]:
    """The ORDER BY of a shuffled release: ``shuffle_key`` of ``row`` (the row's input
    position), then the position, so that rows whose keys collide still come out in an order
    the key alone decides, the same on every engine.

    >>> key, position = shuffle_order(col("__r"))
    >>> key == shuffle_key(col("__r")), position.sql("duckdb")
    (True, '"__r"')
    """
    return [shuffle_key(row), row.copy()]


def output_query(
    node: Node,
    keep_condition,
    columns: Sequence[tuple[str, str, int | None]],
    drop_suppressed: bool,
    verdicts: exp.Select | None = None,
    shuffled: bool = False,
) -> exp.Select:
    """The released table, in input order (``shuffled``: sorted by ``shuffle_order``).

    ``columns``: (output name, kind, index) with kind ``"qi"`` (index = QI position) or
    ``"pass"`` (index = passthrough position). ``keep_condition(size)`` returns the predicate
    for a class of ``size`` rows; suppressed rows get the bound ``$mask`` in every QI. When
    the models read more than the size, ``verdicts`` (``verdict_query``) decides per class.
    """
    gen = exp.select(col(ROW, "d")).from_(table(DATA, "d"))
    gen, codes, _ = generalized(gen, node, "d", projection=True)
    gen = gen.select(*(code.as_(ident(f"g{j}")) for j, code in enumerate(codes)))
    return _release(
        gen,
        len(node),
        keep_condition,
        columns,
        drop_suppressed,
        lambda query: join_labels(query, node, "o"),
        lambda j: col("label", f"v{j}"),
        verdicts,
        shuffled,
    )


def interval_output_query(
    dimensions: int,
    keep_condition,
    columns: Sequence[tuple[str, str, int | None]],
    drop_suppressed: bool,
    shuffled: bool = False,
) -> exp.Select:
    """The released table of an ordered-interval anonymization (K-Optimize), in input order
    (``shuffled``: sorted by ``shuffle_order``).

    ``sqlanon_rank_<j>(code, rank)`` gives each leaf code its rank in QI j's order and
    ``sqlanon_cut_<j>(lo, hi, label)`` the intervals of the cut set (ranks lo..hi). A range
    join puts every row in its interval; ``g<j>`` (the interval's first rank) is the GROUP BY-able
    bucket and ``t<j>`` its label. Otherwise as ``output_query``.
    """
    gen = exp.select(col(ROW, "d")).from_(table(DATA, "d"))
    for j in range(dimensions):
        rank, cut = f"r{j}", f"b{j}"
        gen = gen.join(table(rank_table(j), rank), on=exp.EQ(this=col(qi(j), "d"), expression=col("code", rank)))
        gen = gen.join(
            table(cut_table(j), cut), on=exp.Between(this=col("rank", rank), low=col("lo", cut), high=col("hi", cut))
        )
        gen = gen.select(col("lo", cut).as_(ident(f"g{j}")), col("label", cut).as_(ident(f"t{j}")))
    return _release(
        gen,
        dimensions,
        keep_condition,
        columns,
        drop_suppressed,
        lambda query: query,
        lambda j: col(f"t{j}", "o"),
        shuffled=shuffled,
    )


def _release(
    gen: exp.Select,
    dimensions: int,
    keep_condition,
    columns,
    drop_suppressed: bool,
    decode,
    label,
    verdicts: exp.Select | None = None,
    shuffled: bool = False,
) -> exp.Select:
    """Count each row's class (``g<j>`` columns) with a window, mask the QIs of rows in classes
    that fail ``keep_condition`` or, when given, the per-class ``verdicts`` (or drop them), and
    select the output columns in input order, or ``shuffled``."""
    gen = gen.select(*(col(f"p{i}", "d").as_(ident(f"p{i}")) for _, kind, i in columns if kind == "pass"))
    size = exp.Window(
        this=exp.Count(this=exp.Star()),
        partition_by=[col(f"g{j}") for j in range(dimensions)],
    )
    gen = exp.select(exp.Star(), size.as_(ident("__n"))).from_(gen.subquery(ident("gen")))
    query = exp.select().from_(gen.subquery(ident("o")))
    if verdicts is None:
        kept = keep_condition(col("__n", "o"))
    else:
        kept = col("__kept", "vd")
        query = query.join(
            verdicts.subquery(ident("vd")),
            on=exp.and_(*(exp.EQ(this=col(f"g{j}", "o"), expression=col(f"g{j}", "vd")) for j in range(dimensions))),
        )
    query = decode(query)
    selected = []
    for name, kind, index in columns:
        value: exp.Expression
        if kind == "qi":
            value = case(kept.copy(), label(index), param("mask"))
        else:
            value = col(f"p{index}", "o")
        selected.append(value.as_(ident(name)))
    query = query.select(*selected)
    if drop_suppressed:
        query = query.where(kept.copy())
    return query.order_by(*(shuffle_order(col(ROW, "o")) if shuffled else [col(ROW, "o")]))


def verdict_query(node: Node, keep: exp.Expression, lookup: str, figures: Sequence[exp.Select]) -> exp.Select:
    """Per class of the node: its codes ``g<j>`` and whether it is kept (``__kept``)."""
    cls = class_query(node, False, True, lookup, figures).subquery(ident("cls"))
    return exp.select(*(col(k) for k in class_keys(node)), keep.as_(ident("__kept"))).from_(cls)
