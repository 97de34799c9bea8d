"""A node's check queries: its class table with the models' figures, the figures reduced to one
row (``stats_query``) or, when sizes are all the models and metric read, the lean shapes over
the wide form; and the queries that answer several nodes in one statement (``batch_query``)."""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.sql.layout import join_labels, node_source, group_key_names
from sqlanon.sql.template import KEYS, TAG
from sqlanon.sql.trees import (
    WIDE,
    case,
    class_keys,
    col,
    ident,
    param,
    sensitive,
    sval_table,
    table,
    total,
    wide_leaves,
)
from sqlanon.lattice import Node


def class_query(
    node: Node,
    with_leaves: bool = False,
    projection: bool = True,
    lookup: str = "wide",
    figures: Sequence[exp.Select] = (),
    lnx: bool = False,
) -> exp.Select:
    """The node's class table: generalized codes ``g<j>``, size ``n`` (and ``leaves<j>``), and
    the columns of every per-class ``figures`` query (keyed by ``g<j>``) joined to it."""
    query, codes, leaves = node_source(node, projection, lookup)
    columns = [code.as_(ident(f"g{j}")) for j, code in enumerate(codes)]
    columns.append(exp.Sum(this=col("n", "c")).as_(ident("n")))
    if with_leaves:
        # Functionally dependent on the group key; MAX just carries it through the GROUP BY.
        columns += [exp.Max(this=e).as_(ident(f"leaves{j}")) for j, e in enumerate(leaves)]
    if lnx:  # sum over the class of c_x ln c_x
        columns.append(exp.Sum(this=exp.Mul(this=col("n", "c"), expression=col("lnx", "c"))).as_(ident("lnx")))
    query = query.select(*columns, copy=False).group_by(*(x.copy() for x in codes), copy=False)
    if not figures:
        return query
    joined = exp.select(exp.Star()).from_(query.subquery(ident("base")), copy=False)
    for i, figure in enumerate(figures):
        alias = f"f{i}"
        using = tuple(ident(k) for k in class_keys(node))
        joined = joined.join(figure.subquery(ident(alias)), using=using, copy=False)
    return joined


def histogram_query(node: Node, i: int, projection: bool = True, lookup: str = "wide") -> exp.Select:
    """Per class and value of sensitive attribute ``i``: ``(g<j>.., v, f, cn, r, q)`` = the
    value's code and count in the class, the class size, the value's rank in the class by
    count (1 = most frequent) and its frequency in the whole input."""
    query, codes, _ = node_source(node, projection, lookup)
    value = col(sensitive(i), "c")
    counts = query.select(
        *(code.as_(ident(f"g{j}")) for j, code in enumerate(codes)),
        value.as_(ident("v")),
        exp.Sum(this=col("n", "c")).as_(ident("f")),
        copy=False,
    ).group_by(*(x.copy() for x in codes), value.copy(), copy=False)
    keys = [col(k, "x") for k in class_keys(node)]
    size = exp.Window(this=exp.Sum(this=col("f", "x")), partition_by=keys)
    rank = exp.Window(
        this=exp.RowNumber(),
        partition_by=[k.copy() for k in keys],
        order=exp.Order(expressions=[exp.Ordered(this=col("f", "x"), desc=True), exp.Ordered(this=col("v", "x"))]),
    )
    return (
        exp.select(
            exp.Column(this=exp.Star(), table=ident("x")),
            size.as_(ident("cn")),
            rank.as_(ident("r")),
            col("q", "sv").as_(ident("q")),
        )
        .from_(counts.subquery(ident("x")))
        .join(table(sval_table(i), "sv"), on=exp.EQ(this=col("code", "sv"), expression=col("v", "x")))
    )


def population_query(node: Node, projection: bool = True, lookup: str = "wide") -> exp.Select:
    """Per class with rows of the research subset (delta-presence): its population count
    ``pop``. Joined to the class table like a model's figures, it also drops the classes of the
    population without subset rows (``empty_population_query`` counts them; see
    ``sqlanon/criteria/population.py``)."""
    query, codes, _ = node_source(node, projection, lookup)
    return (
        query.select(
            *(code.as_(ident(f"g{j}")) for j, code in enumerate(codes)),
            exp.Sum(this=col("pop", "c")).as_(ident("pop")),
            copy=False,
        )
        .group_by(*(x.copy() for x in codes), copy=False)
        .having(exp.GT(this=exp.Sum(this=col("n", "c")), expression=exp.Literal.number(0)), copy=False)
    )


def empty_population_query(node: Node, projection: bool = True, lookup: str = "wide") -> exp.Select:
    """The number of the node's population classes without a row of the research subset
    (``SUM(n) = 0``), which ``population_query`` drops: delta-presence with dmin > 0 fails on
    each of them, and no suppression removes them (see ``sqlanon/criteria/delta_presence.py``)."""
    query, codes, _ = node_source(node, projection, lookup)
    empty = (
        query.select(exp.Literal.number(1).as_(ident("one")), copy=False)
        .group_by(*(x.copy() for x in codes), copy=False)
        .having(exp.EQ(this=exp.Sum(this=col("n", "c")), expression=exp.Literal.number(0)), copy=False)
    )
    return exp.select(exp.Count(this=exp.Star())).from_(empty.subquery(ident("e")), copy=False)


def stats_query(
    node: Node,
    keep: exp.Expression,
    with_leaves: bool,
    projection: bool = True,
    lookup: str = "wide",
    figures: Sequence[exp.Select] = (),
    uniques: bool = False,
    sums: dict | None = None,
    lnx: bool = False,
    empty: exp.Select | None = None,
) -> exp.Select:
    """One row of reduced figures for a node (see ``ClassStats``); ``empty``
    (``empty_population_query``) adds the last column, ``empty_classes``."""
    n = col("n")
    kept = col("kept")
    flagged = exp.select(exp.Star(), keep.as_(ident("kept"), copy=False)).from_(
        class_query(node, with_leaves, projection, lookup, figures, lnx).subquery(ident("cls"), copy=False), copy=False
    )
    zero = exp.Literal.number(0)
    columns = [
        exp.Count(this=exp.Star()).as_(ident("classes")),
        total(case(kept, exp.Literal.number(1), zero)).as_(ident("kept_classes")),
        total(case(kept, zero, n)).as_(ident("suppressed")),
        exp.Min(this=case(kept, n, exp.Null())).as_(ident("min_kept")),
        total(case(kept, exp.Mul(this=n, expression=n), zero)).as_(ident("dm_kept")),
        total(exp.Mul(this=n, expression=n)).as_(ident("dm_all")),
        exp.Min(this=n).as_(ident("min_class")),
    ]
    if with_leaves:
        columns += [
            total(case(kept, exp.Mul(this=n, expression=col(f"leaves{j}")), zero)).as_(ident(f"leaves{j}"))
            for j in range(len(node))
        ]
    if uniques:
        unique = exp.and_(kept.copy(), exp.EQ(this=n.copy(), expression=exp.Literal.number(1)))
        columns.append(total(case(unique, exp.Literal.number(1), zero)).as_(ident("uniques")))
    columns += [e.as_(ident(name)) for name, e in (sums or {}).items()]
    if empty is not None:  # a scalar subquery: the empty classes are in no row of the class table
        columns.append(exp.Subquery(this=empty).as_(ident("empty_classes")))
    return exp.select(*columns).from_(flagged.subquery(ident("f"), copy=False), copy=False)


def class_size_query(
    node: Node,
    keep: exp.Expression | None = None,
    projection: bool = True,
    lookup: str = "wide",
    figures: Sequence[exp.Select] = (),
) -> exp.Select:
    """The node's class-size frequency table: ``SELECT n AS size, COUNT(*) AS classes FROM
    (class query) GROUP BY n``; with ``keep``, over the kept classes only (a class whose
    condition is NULL counts as suppressed, as in ``stats_query``). The risk analysis reads it.
    """
    classes = class_query(node, False, projection, lookup, figures).subquery(ident("cls"), copy=False)
    query = exp.select(col("n").as_(ident("size")), exp.Count(this=exp.Star()).as_(ident("classes"))).from_(
        classes, copy=False
    )
    if keep is not None:
        query = query.where(exp.Is(this=exp.Paren(this=keep), expression=exp.true()), copy=False)
    return query.group_by(col("n"), copy=False).order_by(col("size"), copy=False)


def _grouped(
    query: exp.Select, node: Node, alike: Sequence[bool], pairs: Sequence[int] = (), slot: bool = False
) -> exp.Select:
    """GROUP BY ``group_key_names`` (``slot``: the one slot column ``KEYS``, for a template);
    with none left the rows are one class (none when there are no rows, as a GROUP BY would
    have it)."""
    names = [KEYS] if slot else group_key_names(node, alike, pairs)
    if names:
        return query.group_by(*(col(name, "c") for name in names))
    return query.having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(0)))


def lean_stats_query(
    node: Node,
    keep: exp.Expression,
    with_leaves: bool,
    uniques: bool = False,
    alike: Sequence[bool] = (),
    pairs: Sequence[int] = (),
    slot: bool = False,
) -> exp.Select:
    """``stats_query`` for jobs whose models and metric read only class sizes (and leaf
    counts), over the wide form: one nesting level, FILTER aggregates, no group keys in the
    inner projection. DuckDB binds and plans it in about half the time (bench/check_overhead.py).
    ``keep`` is over the class size ``n``; a class whose condition is NULL counts as suppressed,
    as in ``stats_query``."""
    n = col("n")
    inner = [exp.Sum(this=col("n", "c")).as_(ident("n"))]
    if with_leaves:
        inner += [exp.Max(this=col(wide_leaves(j, l), "c")).as_(ident(f"leaves{j}")) for j, l in enumerate(node)]
    classes = _grouped(exp.select(*inner).from_(table(WIDE, "c")), node, alike, pairs, slot)

    def only(aggregate: exp.Expression, condition: exp.Expr) -> exp.Filter:
        return exp.Filter(this=aggregate, expression=exp.Where(this=condition))

    kept = exp.Paren(this=keep)
    surely_kept = exp.Paren(this=exp.Is(this=kept.copy(), expression=exp.true()))
    zero = exp.Literal.number(0)
    columns = [
        exp.Count(this=exp.Star()).as_(ident("classes")),
        only(exp.Count(this=exp.Star()), kept.copy()).as_(ident("kept_classes")),
        exp.Coalesce(this=only(exp.Sum(this=n.copy()), exp.Not(this=surely_kept)), expressions=[zero.copy()]).as_(
            ident("suppressed")
        ),
        only(exp.Min(this=n.copy()), kept.copy()).as_(ident("min_kept")),
        exp.Coalesce(
            this=only(exp.Sum(this=exp.Mul(this=n.copy(), expression=n.copy())), kept.copy()), expressions=[zero.copy()]
        ).as_(ident("dm_kept")),
        exp.Coalesce(this=exp.Sum(this=exp.Mul(this=n.copy(), expression=n.copy())), expressions=[zero.copy()]).as_(
            ident("dm_all")
        ),
        exp.Min(this=n.copy()).as_(ident("min_class")),
    ]
    if with_leaves:
        columns += [
            exp.Coalesce(
                this=only(exp.Sum(this=exp.Mul(this=n.copy(), expression=col(f"leaves{j}"))), kept.copy()),
                expressions=[zero.copy()],
            ).as_(ident(f"leaves{j}"))
            for j in range(len(node))
        ]
    if uniques:
        one = exp.and_(kept.copy(), exp.EQ(this=n.copy(), expression=exp.Literal.number(1)))
        columns.append(only(exp.Count(this=exp.Star()), one).as_(ident("uniques")))
    return exp.select(*columns).from_(classes.subquery(ident("cls")))


def size_histogram_query(
    node: Node, keep: exp.Expression, alike: Sequence[bool] = (), pairs: Sequence[int] = (), slot: bool = False
) -> exp.Select:
    """The lean check of a job whose models and metric read class sizes only (k-anonymity and
    discernibility, say), over the wide form: the node's class-size histogram, one row per
    distinct class size ``n`` with its number of classes and its verdict (a condition that is
    NULL counts as suppressed, as in ``stats_query``). Every figure such a check returns
    follows from it exactly (``engines.size_histogram.from_size_histogram``), and the database binds,
    plans and runs one grouped count where ``lean_stats_query`` has seven filtered aggregates
    (bench/sql_checks.py). ``keep`` reads the class size ``n`` only; ``alike`` and ``pairs``
    as in ``group_key_names``; ``slot`` as in ``_grouped``."""
    classes = class_sizes_query(node, alike, pairs, slot)
    kept = exp.Is(this=exp.Paren(this=keep), expression=exp.true())
    return (
        exp.select(col("n"), exp.Count(this=exp.Star()).as_(ident("classes")), kept.as_(ident("kept")))
        .from_(classes.subquery(ident("cls")))
        .group_by(col("n"))
    )


def class_sizes_query(
    node: Node, alike: Sequence[bool] = (), pairs: Sequence[int] = (), slot: bool = False, tagged: bool = False
) -> exp.Select:
    """The sizes of the node's classes, one row each, over the wide form: the lean check of a
    size-only job where fetching a row costs next to nothing (an embedded database). The
    size histogram and the verdicts per distinct size are then made in process
    (``kernel/size_histogram.py``), which saves DuckDB a second grouping and a bound
    predicate, about a quarter of such a check (bench/sql_checks.py). ``tagged``: each row
    also carries the template's ``TAG`` slot as ``BATCH_NODE``, its node's place in a batch
    (``batch_query(..., tagged=True)``)."""
    sizes = [exp.Sum(this=col("n", "c")).as_(ident("n"))]
    if tagged:
        sizes.insert(0, col(TAG).as_(ident(BATCH_NODE)))
    return _grouped(exp.select(*sizes).from_(table(WIDE, "c")), node, alike, pairs, slot)


def batch_query(queries: Sequence[str], dialect: str, tags: Sequence[int] | None = None, tagged: bool = False) -> str:
    """Several per-node queries (SQL text, as the templates render them) answered by one
    statement: each one's rows tagged with its position ``sqlanon_node``, UNION ALL. One
    statement saves the per-query cost (sending, parsing, planning, starting the executor)
    that a small GROUP BY otherwise pays once per node; on DuckDB it beat GROUPING SETS over
    the wide table, which runs a hash table per set over every row (bench/sql_checks.py).
    ``tags``: the positions to tag the queries with (default 0, 1, ...; a batch split over two
    connections tags each part's queries with their places in the whole). ``tagged``: the
    queries carry their tags already (``class_sizes_query(..., tagged=True)``): one
    projection less per part, DuckDB's fixed cost per part is most of a batch's cost."""
    if tagged:
        return " UNION ALL ".join(queries)
    tag = ident(BATCH_NODE).sql(dialect)
    part = ident("b").sql(dialect)
    return " UNION ALL ".join(
        f"SELECT {i} AS {tag}, {part}.* FROM ({sql}) AS {part}" for i, sql in zip(tags or range(len(queries)), queries)
    )


BATCH_NODE = "sqlanon_node"


def suppressed_histogram_query(
    node: Node, keep: exp.Expression, projection: bool = True, lookup: str = "wide", figures: Sequence[exp.Select] = ()
) -> exp.Expression:
    """Rows ``(j, code, c)``: suppressed rows per generalized value of every QI."""
    suppressed = (
        exp.select(exp.Star())
        .from_(class_query(node, False, projection, lookup, figures).subquery(ident("cls")))
        .where(exp.Not(this=exp.Paren(this=keep)))
    )
    union: exp.Query | None = None
    for j in range(len(node)):
        part = (
            exp.select(
                exp.Literal.number(j).as_(ident("j")),
                col(f"g{j}").as_(ident("code")),
                exp.Sum(this=col("n")).as_(ident("c")),
            )
            .from_(table("sup"))
            .group_by(col(f"g{j}"))
        )
        union = part if union is None else exp.union(union, part, distinct=False)
    assert union is not None, "a node has a QI"
    return (
        exp.select(exp.Star())
        .from_(union.subquery(ident("u")))
        .order_by(col("j"), col("code"))
        .with_(ident("sup"), as_=suppressed)
    )


def failing_classes_query(
    node: Node, keep: exp.Expression, lookup: str = "wide", figures: Sequence[exp.Select] = ()
) -> exp.Select:
    """The classes that fail the models, smallest first, with their decoded QI values."""
    query = (
        exp.select()
        .from_(class_query(node, False, True, lookup, figures).subquery(ident("cls")))
        .where(exp.Not(this=exp.Paren(this=keep)))
    )
    query = join_labels(query, node, "cls")
    labels = [col("label", f"v{j}").as_(ident(f"label{j}")) for j in range(len(node))]
    return (
        query.select(*labels, col("n", "cls"))
        .order_by(col("n", "cls"), *(col(f"label{j}") for j in range(len(node))))
        .limit(param("limit"))
    )
