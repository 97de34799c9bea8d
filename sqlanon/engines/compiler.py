"""Pure SQL builders: (node, tables, conditions) -> sqlglot expressions. No I/O here.

Every identifier is built with ``quoted=True`` (ADULT has ``marital-status``; users have
``select`` and worse); every user value is a named placeholder bound at execution.

Internal tables (names owned by sqlanon, so they never collide with user columns):

* ``sqlanon_hier_<j>(code, l0..lh, c0..ch)``: leaf code -> code at each level, and the
  number of hierarchy rows under that level value (for the loss metric).
* ``sqlanon_label_<j>(level, code, label)``: the text of every code, for encoding and decoding.
* ``sqlanon_distinct(t0.., u0.., n)``: the input read once and grouped by the text of its QIs
  (``t<j>``) and of the sensitive attributes the models read (``u<i>``), with the rows of each
  combination; the engines that prepare in one scan build everything else from it.
* ``sqlanon_data(__row, q0.., p0..)``: the input, QIs as leaf codes, other kept columns as-is
  (built at once by the engines that copy their input, on demand by those that scan it once).
* ``sqlanon_classes(q0.., n)``: the base class table, one row per distinct QI combination.
* ``sqlanon_wide(q<j>_<l>.., [c<j>_<l>..], [s<i>..], n)``: the base class table with every QI's
  code at every level (and its leaf count) joined once, so a check is a plain GROUP BY without
  joins. This is the default layout ("wide"); ``lookup = "join"`` joins the lookup tables per check.
  On DuckDB it also holds ``p<j>_<l>_<l'>``: QIs j and j+1 paired, both codes in one key per
  two levels (``with_pairs``), which the lean checks group by (``group_key_names``).
* ``sqlanon_sval_<i>(code, label, n, q)``: the distinct values of the i-th sensitive attribute
  (text, sorted), their rows and their frequency in the input. Only when a model reads a
  sensitive attribute do ``sqlanon_data``, ``sqlanon_classes`` and ``sqlanon_wide`` carry its
  code ``s<i>``; the class tables are then keyed by the QI codes and the sensitive codes, so a
  node's per-class histogram is a GROUP BY over the same table (roll-up stays possible).
"""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.engines.dialects import render
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
    return t.as_(ident(alias)) if alias else t


def hier_table(j: int) -> str:
    return f"sqlanon_hier_{j}"


def label_table(j: int) -> str:
    return f"sqlanon_label_{j}"


def qi(j: int) -> str:
    return f"q{j}"


def param(name: str) -> exp.Placeholder:
    return exp.Placeholder(this=name)


def _case(condition: exp.Expression, then: exp.Expression, default: exp.Expression) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=default)


def _sum(e: exp.Expression) -> exp.Expression:
    return exp.Coalesce(this=exp.Sum(this=e), expressions=[exp.Literal.number(0)])


def _join(query: exp.Select, j: int, source_alias: str, key: str) -> exp.Select:
    return query.join(
        table(hier_table(j), f"h{j}"),
        on=exp.EQ(this=col(key, source_alias), expression=col("code", f"h{j}")),
        copy=False,
    )


def generalized(
    query: exp.Select, node: Node, source_alias: str, projection: bool = True
) -> tuple[exp.Select, list[exp.Expression], list[exp.Expression]]:
    """Join the lookup tables a node needs; return the generalized code and leaf-count
    expressions per QI. With ``projection`` a QI at level 0 is read as it is, without a join."""
    codes, leaves = [], []
    for j, level in enumerate(node):
        if level == 0 and projection:
            codes.append(col(qi(j), source_alias))
            leaves.append(exp.Literal.number(1))
        else:
            query = _join(query, j, source_alias, qi(j))
            codes.append(col(f"l{level}", f"h{j}"))
            leaves.append(col(f"c{level}", f"h{j}"))
    return query, codes, leaves


def wide_column(j: int, level: int) -> str:
    return f"q{j}_{level}"


def wide_leaves(j: int, level: int) -> str:
    return f"c{j}_{level}"


def sval_table(i: int) -> str:
    return f"sqlanon_sval_{i}"


def sensitive(i: int) -> str:
    return f"s{i}"


def _narrow(e: exp.Expression, values: int | None, wide: bool = False) -> exp.Expression:
    """Codes in the smallest integer type that holds ``values`` of them: GROUP BY hashes and
    compares narrower keys faster (bench/check_overhead.py). ``wide``: UINTEGER too."""
    if values is None:
        return e
    types = exp.DataType.Type
    kind = (types.UTINYINT if values <= 256 else types.USMALLINT if values <= 65536
            else types.UINT if wide and values <= PAIR_CODES else None)
    return exp.Cast(this=e, to=exp.DataType(this=kind)) if kind else e


def wide_query(levels: Sequence[int], with_leaves: bool, sensitives: int = 0, lnx: bool = False,
               sizes: Sequence[Sequence[int]] | None = None, population: bool = False) -> exp.Select:
    """``sqlanon_wide``: join every lookup table once; ``levels[j]`` is QI j's top level and
    ``sizes[j][l]`` the number of codes at level l (for narrow types). With ``population``
    (delta-presence), the base table's population count ``pop`` is carried too."""
    query = exp.select().from_(table(CLASSES, "c"), copy=False)
    columns = []
    for j, top in enumerate(levels):
        query = _join(query, j, "c", qi(j))
        columns += [_narrow(col(f"l{l}", f"h{j}"), sizes[j][l] if sizes else None).as_(ident(wide_column(j, l)))
                    for l in range(top + 1)]
        if with_leaves:
            columns += [col(f"c{l}", f"h{j}").as_(ident(wide_leaves(j, l))) for l in range(top + 1)]
    columns += [col(sensitive(i), "c").as_(ident(sensitive(i))) for i in range(sensitives)]
    if lnx:
        columns.append(col("lnx", "c").as_(ident("lnx")))
    if population:
        columns.append(col("pop", "c").as_(ident("pop")))
    return query.select(*columns, col("n", "c").as_(ident("n")), copy=False)


def _node_source(node: Node, projection: bool, lookup: str) -> tuple[exp.Select, list[exp.Expression], list[exp.Expression]]:
    """FROM the class table (alias ``c``) with each QI's generalized code and leaf count."""
    if lookup == "wide":
        query = exp.select().from_(table(WIDE, "c"), copy=False)
        codes = [col(wide_column(j, l), "c") for j, l in enumerate(node)]
        leaves = [col(wide_leaves(j, l), "c") for j, l in enumerate(node)]
        return query, codes, leaves
    query = exp.select().from_(table(CLASSES, "c"), copy=False)
    return generalized(query, node, "c", projection)


def snapshot_query(node: Node, tops: Sequence[int], with_leaves: bool, sensitives: int, lnx: bool,
                   source: str | None, lookup: str, population: bool = False) -> exp.Select:
    """A node's classes to keep as a snapshot: in the wide form (every QI's code at each level
    from the node's up to its top, ``q<j>_<l>``, with leaf counts ``c<j>_<l>``), so any
    generalization of the node is one GROUP BY over it without a join, and the checks read it
    with the very templates that read ``sqlanon_wide``. ``source``: the snapshot of a
    specialization to regroup (None: the base class table). Grouping by the higher levels too
    changes nothing: hierarchies are functional. ``lnx`` stays the mean of ln c_x per row, so
    SUM(n * lnx) over the snapshot is the base's sum. With ``population`` (a research subset)
    the population count ``pop`` is carried too."""
    if source is None and lookup != "wide":
        query = exp.select().from_(table(CLASSES, "c"), copy=False)
        for j in range(len(node)):
            query = _join(query, j, "c", qi(j))
        code = lambda j, l: col(f"l{l}", f"h{j}")
        leaf = lambda j, l: col(f"c{l}", f"h{j}")
    else:
        query = exp.select().from_(table(source or WIDE, "c"), copy=False)
        code = lambda j, l: col(wide_column(j, l), "c")
        leaf = lambda j, l: col(wide_leaves(j, l), "c")
    # Grouped by the node's own codes; the higher levels and leaf counts depend on them
    # (hierarchies are functional), so they ride along as MAX, not as hash keys.
    keys, carried = [], []
    for j, (level, top) in enumerate(zip(node, tops)):
        keys.append(code(j, level).as_(ident(wide_column(j, level))))
        carried += [exp.Max(this=code(j, l)).as_(ident(wide_column(j, l))) for l in range(level + 1, top + 1)]
        if with_leaves:
            carried += [exp.Max(this=leaf(j, l)).as_(ident(wide_leaves(j, l))) for l in range(level, top + 1)]
    keys += [col(sensitive(i), "c").as_(ident(sensitive(i))) for i in range(sensitives)]
    n = col("n", "c")
    columns = [*keys, *carried, exp.Sum(this=n).as_(ident("n"))]
    if population:  # delta-presence: the population count is summed like n
        columns.append(exp.Sum(this=col("pop", "c")).as_(ident("pop")))
    if lnx:
        total = exp.Sum(this=exp.Mul(this=n.copy(), expression=col("lnx", "c")))
        rows = exp.Sum(this=n.copy())
        if population:  # a group of population rows only has n = 0: its lnx is NULL, not 0 / 0
            rows = exp.Nullif(this=rows, expression=exp.Literal.number(0))
        columns.append(exp.Div(this=total, expression=rows).as_(ident("lnx")))
    return query.select(*columns, copy=False).group_by(*(k.this.copy() for k in keys), copy=False)


def class_keys(node: Node) -> list[str]:
    return [f"g{j}" for j in range(len(node))]


def class_query(node: Node, with_leaves: bool = False, projection: bool = True, lookup: str = "wide",
                figures: Sequence[exp.Select] = (), lnx: bool = False) -> exp.Select:
    """The node's class table: generalized codes ``g<j>``, size ``n`` (and ``leaves<j>``), and
    the columns of every per-class ``figures`` query (keyed by ``g<j>``) joined to it."""
    query, codes, leaves = _node_source(node, projection, lookup)
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
        using = [ident(k) for k in class_keys(node)]
        joined = joined.join(figure.subquery(ident(alias)), using=using, copy=False)
    return joined


def histogram_query(node: Node, i: int, projection: bool = True, lookup: str = "wide") -> exp.Select:
    """Per class and value of sensitive attribute ``i``: ``(g<j>.., v, f, cn, r, q)`` = the
    value's code and count in the class, the class size, the value's rank in the class by
    count (1 = most frequent) and its frequency in the whole input."""
    query, codes, _ = _node_source(node, projection, lookup)
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
        this=exp.RowNumber(), partition_by=[k.copy() for k in keys],
        order=exp.Order(expressions=[exp.Ordered(this=col("f", "x"), desc=True), exp.Ordered(this=col("v", "x"))]),
    )
    return (
        exp.select(exp.Column(this=exp.Star(), table=ident("x")), size.as_(ident("cn")), rank.as_(ident("r")), col("q", "sv").as_(ident("q")))
        .from_(counts.subquery(ident("x")))
        .join(table(sval_table(i), "sv"), on=exp.EQ(this=col("code", "sv"), expression=col("v", "x")))
    )


def population_query(node: Node, projection: bool = True, lookup: str = "wide") -> exp.Select:
    """Per class with rows of the research subset (delta-presence): its population count
    ``pop``. Joined to the class table like a model's figures, it also drops the classes of the
    population without subset rows (see ``sqlanon/criteria/population.py``)."""
    query, codes, _ = _node_source(node, projection, lookup)
    return query.select(
        *(code.as_(ident(f"g{j}")) for j, code in enumerate(codes)),
        exp.Sum(this=col("pop", "c")).as_(ident("pop")),
        copy=False,
    ).group_by(*(x.copy() for x in codes), copy=False).having(
        exp.GT(this=exp.Sum(this=col("n", "c")), expression=exp.Literal.number(0)), copy=False)


def stats_query(node: Node, keep: exp.Expression, with_leaves: bool, projection: bool = True, lookup: str = "wide",
                figures: Sequence[exp.Select] = (), uniques: bool = False, sums: dict | None = None,
                lnx: bool = False) -> exp.Select:
    """One row of reduced figures for a node (see ``ClassStats``)."""
    n = col("n")
    kept = col("kept")
    flagged = exp.select(exp.Star(), keep.as_(ident("kept"), copy=False)).from_(
        class_query(node, with_leaves, projection, lookup, figures, lnx).subquery(ident("cls"), copy=False), copy=False
    )
    zero = exp.Literal.number(0)
    columns = [
        exp.Count(this=exp.Star()).as_(ident("classes")),
        _sum(_case(kept, exp.Literal.number(1), zero)).as_(ident("kept_classes")),
        _sum(_case(kept, zero, n)).as_(ident("suppressed")),
        exp.Min(this=_case(kept, n, exp.Null())).as_(ident("min_kept")),
        _sum(_case(kept, exp.Mul(this=n, expression=n), zero)).as_(ident("dm_kept")),
        _sum(exp.Mul(this=n, expression=n)).as_(ident("dm_all")),
        exp.Min(this=n).as_(ident("min_class")),
    ]
    if with_leaves:
        columns += [
            _sum(_case(kept, exp.Mul(this=n, expression=col(f"leaves{j}")), zero)).as_(ident(f"leaves{j}"))
            for j in range(len(node))
        ]
    if uniques:
        unique = exp.and_(kept.copy(), exp.EQ(this=n.copy(), expression=exp.Literal.number(1)))
        columns.append(_sum(_case(unique, exp.Literal.number(1), zero)).as_(ident("uniques")))
    columns += [e.as_(ident(name)) for name, e in (sums or {}).items()]
    return exp.select(*columns).from_(flagged.subquery(ident("f"), copy=False), copy=False)


def class_size_query(node: Node, keep: exp.Expression | None = None, projection: bool = True, lookup: str = "wide",
                     figures: Sequence[exp.Select] = ()) -> exp.Select:
    """The node's class-size frequency table: ``SELECT n AS size, COUNT(*) AS classes FROM
    (class query) GROUP BY n``; with ``keep``, over the kept classes only (a class whose
    condition is NULL counts as suppressed, as in ``stats_query``). The risk analysis reads it.
    """
    classes = class_query(node, False, projection, lookup, figures).subquery(ident("cls"), copy=False)
    query = exp.select(col("n").as_(ident("size")), exp.Count(this=exp.Star()).as_(ident("classes"))).from_(classes, copy=False)
    if keep is not None:
        query = query.where(exp.Is(this=exp.Paren(this=keep), expression=exp.true()), copy=False)
    return query.group_by(col("n"), copy=False).order_by(col("size"), copy=False)


def pair_column(j: int, level: int | str, partner: int | str) -> str:
    """``p<j>_<l>_<l'>``: QI j's code at level l and QI j+1's at level l' in one key (``with_pairs``)."""
    return f"p{j}_{level}_{partner}"


#: the widest key ``with_pairs`` makes: code pairs that need more than UINTEGER stay apart
PAIR_CODES = 2**32


def pairable(sizes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The QIs ``with_pairs`` joins with the next one: 0 and 1, 2 and 3, ..., each pair whose
    codes at the bottom (the most of them) fit ``PAIR_CODES``."""
    return tuple(j for j in range(0, len(sizes) - 1, 2) if sizes[j][0] * sizes[j + 1][0] <= PAIR_CODES)


def with_pairs(wide: exp.Select, sizes: Sequence[Sequence[int]], pairs: Sequence[int]) -> exp.Select:
    """The wide form plus, for each pair (QI j, QI j+1) and each two levels, one column holding
    both codes (``code_j * codes_j+1 + code_j+1``, in the narrowest unsigned type). A lean
    check groups by about half as many keys, and DuckDB's cost per key (binding, hashing,
    comparing) is most of what a check pays on a small class table (bench/sql_checks.py)."""
    columns = []
    for j in pairs:
        for level, count in enumerate(sizes[j]):
            for partner, partner_count in enumerate(sizes[j + 1]):
                code = exp.Add(this=exp.Mul(this=exp.Cast(this=col(wide_column(j, level), "w"), to=datatype("UINT")),
                                            expression=exp.Literal.number(partner_count)),
                               expression=col(wide_column(j + 1, partner), "w"))
                columns.append(_narrow(code, count * partner_count, wide=True).as_(ident(pair_column(j, level, partner))))
    return exp.select(exp.Star(), *columns).from_(wide.subquery(ident("w")))


def group_key_names(node: Node, alike: Sequence[bool] = (), pairs: Sequence[int] = ()) -> list[str]:
    """The columns a lean check of ``node`` groups by in the wide form: a pair's column for two
    paired QIs (``with_pairs``), each QI's own code otherwise, leaving out the QIs whose level
    has one value (``alike[j]``, e.g. a hierarchy's top): they split no class, and every key
    costs DuckDB binding and hashing (bench/sql_checks.py)."""
    one = [bool(alike and alike[j]) for j in range(len(node))]
    keys, j = [], 0
    while j < len(node):
        if j in pairs and not one[j] and not one[j + 1]:
            keys.append(pair_column(j, node[j], node[j + 1]))
            j += 2
            continue
        if not one[j]:
            keys.append(wide_column(j, node[j]))
        j += 1
    return keys


#: the slot column a template groups by, replaced per node by its keys (``NodeTemplate``)
KEYS = "sqlanon_keys@"


def _grouped(query: exp.Select, node: Node, alike: Sequence[bool], pairs: Sequence[int] = (),
             slot: bool = False) -> exp.Select:
    """GROUP BY ``group_key_names`` (``slot``: the one slot column ``KEYS``, for a template);
    with none left the rows are one class (none when there are no rows, as a GROUP BY would
    have it)."""
    names = [KEYS] if slot else group_key_names(node, alike, pairs)
    if names:
        return query.group_by(*(col(name, "c") for name in names))
    return query.having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(0)))


def lean_stats_query(node: Node, keep: exp.Expression, with_leaves: bool, uniques: bool = False,
                     alike: Sequence[bool] = (), pairs: Sequence[int] = (), slot: bool = False) -> exp.Select:
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

    def only(aggregate: exp.Expression, condition: exp.Expression) -> exp.Filter:
        return exp.Filter(this=aggregate, expression=exp.Where(this=condition))

    kept = exp.Paren(this=keep)
    surely_kept = exp.Paren(this=exp.Is(this=kept.copy(), expression=exp.true()))
    zero = exp.Literal.number(0)
    columns = [
        exp.Count(this=exp.Star()).as_(ident("classes")),
        only(exp.Count(this=exp.Star()), kept.copy()).as_(ident("kept_classes")),
        exp.Coalesce(this=only(exp.Sum(this=n.copy()), exp.Not(this=surely_kept)), expressions=[zero.copy()]).as_(ident("suppressed")),
        only(exp.Min(this=n.copy()), kept.copy()).as_(ident("min_kept")),
        exp.Coalesce(this=only(exp.Sum(this=exp.Mul(this=n.copy(), expression=n.copy())), kept.copy()),
                     expressions=[zero.copy()]).as_(ident("dm_kept")),
        exp.Coalesce(this=exp.Sum(this=exp.Mul(this=n.copy(), expression=n.copy())), expressions=[zero.copy()]).as_(ident("dm_all")),
        exp.Min(this=n.copy()).as_(ident("min_class")),
    ]
    if with_leaves:
        columns += [exp.Coalesce(this=only(exp.Sum(this=exp.Mul(this=n.copy(), expression=col(f"leaves{j}"))), kept.copy()),
                                 expressions=[zero.copy()]).as_(ident(f"leaves{j}")) for j in range(len(node))]
    if uniques:
        one = exp.and_(kept.copy(), exp.EQ(this=n.copy(), expression=exp.Literal.number(1)))
        columns.append(only(exp.Count(this=exp.Star()), one).as_(ident("uniques")))
    return exp.select(*columns).from_(classes.subquery(ident("cls")))


def size_histogram_query(node: Node, keep: exp.Expression, alike: Sequence[bool] = (), pairs: Sequence[int] = (),
                         slot: bool = False) -> exp.Select:
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
    return (exp.select(col("n"), exp.Count(this=exp.Star()).as_(ident("classes")), kept.as_(ident("kept")))
            .from_(classes.subquery(ident("cls"))).group_by(col("n")))


def class_sizes_query(node: Node, alike: Sequence[bool] = (), pairs: Sequence[int] = (), slot: bool = False,
                      tagged: bool = False) -> exp.Select:
    """The sizes of the node's classes, one row each, over the wide form: the lean check of a
    size-only job where fetching a row costs next to nothing (an embedded database). The
    size histogram and the verdicts per distinct size are then made in process
    (``engines/size_histogram.py``), which saves DuckDB a second grouping and a bound
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
    return " UNION ALL ".join(f"SELECT {i} AS {tag}, {part}.* FROM ({sql}) AS {part}" for i, sql in zip(tags or range(len(queries)), queries))


BATCH_NODE = "sqlanon_node"
#: the slot of a node's place in a batch in a tagged template, replaced per node (``NodeTemplate``)
TAG = "sqlanon_tag@"


def suppressed_histogram_query(node: Node, keep: exp.Expression, projection: bool = True, lookup: str = "wide",
                               figures: Sequence[exp.Select] = ()) -> exp.Expression:
    """Rows ``(j, code, c)``: suppressed rows per generalized value of every QI."""
    suppressed = (
        exp.select(exp.Star())
        .from_(class_query(node, False, projection, lookup, figures).subquery(ident("cls")))
        .where(exp.Not(this=exp.Paren(this=keep)))
    )
    union = None
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
    return (
        exp.select(exp.Star())
        .from_(union.subquery(ident("u")))
        .order_by(col("j"), col("code"))
        .with_(ident("sup"), as_=suppressed)
    )


def create_temp_table(name: str, query: exp.Expression) -> exp.Create:
    """CREATE TEMPORARY TABLE name AS query."""
    return exp.Create(
        this=table(name), kind="TABLE", expression=query,
        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
    )


def join_labels(query: exp.Select, node: Node, source_alias: str) -> exp.Select:
    """Join each QI's label table as ``v<j>`` to decode the generalized code ``g<j>``."""
    for j, level in enumerate(node):
        alias = f"v{j}"
        query = query.join(
            table(label_table(j), alias),
            on=exp.and_(
                exp.EQ(this=col("level", alias), expression=exp.Literal.number(level)),
                exp.EQ(this=col("code", alias), expression=col(f"g{j}", source_alias)),
            ),
        )
    return query


def failing_classes_query(node: Node, keep: exp.Expression, lookup: str = "wide",
                          figures: Sequence[exp.Select] = ()) -> exp.Select:
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


def base_classes_query(dimensions: int, sensitives: int = 0, lnx: bool = False) -> exp.Select:
    """Compress the encoded data once: distinct QI code combinations (and sensitive codes,
    when models read them) with their counts. With ``lnx`` each row also carries ln c_x, c_x
    the rows of its QI combination (for the KL-divergence)."""
    keys = [col(qi(j)) for j in range(dimensions)] + [col(sensitive(i)) for i in range(sensitives)]
    query = (
        exp.select(*keys, exp.Count(this=exp.Star()).as_(ident("n")))
        .from_(table(DATA))
        .group_by(*keys)
    )
    return _with_lnx(query, dimensions) if lnx else query


def _with_lnx(classes: exp.Select, dimensions: int) -> exp.Select:
    """The base class table with ln c_x on every row (c_x: the rows of its QI combination)."""
    combination = exp.Window(this=exp.Sum(this=col("n")), partition_by=[col(qi(j)) for j in range(dimensions)])
    ln = exp.Ln(this=exp.Cast(this=combination, to=exp.DataType.build("DOUBLE")))
    return exp.select(exp.Star(), ln.as_(ident("lnx"))).from_(classes.subquery(ident("b")))


def distinct_text(j: int) -> str:
    """``sqlanon_distinct``'s column of QI j's text."""
    return f"t{j}"


def distinct_sensitive(i: int) -> str:
    """``sqlanon_distinct``'s column of sensitive attribute i's text."""
    return f"u{i}"


def distinct_query(relation: str, qis: Sequence[str], sensitives: Sequence[str] = (), dialect: str = "duckdb") -> str:
    """``sqlanon_distinct``'s rows over the source ``relation`` (SQL text): each QI's and each
    read sensitive attribute's text (as the hierarchies and value tables list it) with the rows
    holding it. Grouped first by the columns as they are (the bare GROUP BY a scan costs), then
    by their text over those few groups (values of one text, NULL and '' say, merge there)."""
    names = [*qis, *sensitives]
    raw = [col(name).as_(ident(f"c{i}")) for i, name in enumerate(names)]
    inner = (f"SELECT {', '.join(render(e, dialect) for e in raw)}, COUNT(*) AS {render(ident('n'), dialect)} "
             f"FROM {relation} GROUP BY {', '.join(str(i + 1) for i in range(len(names)))}")
    aliases = [distinct_text(j) for j in range(len(qis))] + [distinct_sensitive(i) for i in range(len(sensitives))]
    texts = [as_text(col(f"c{i}")).as_(ident(alias)) for i, alias in enumerate(aliases)]
    rows = exp.Cast(this=exp.Sum(this=col("n")), to=datatype("BIGINT")).as_(ident("n"))
    return (f"SELECT {', '.join(render(e, dialect) for e in [*texts, rows])} FROM ({inner}) AS {render(ident('g'), dialect)} "
            f"GROUP BY {', '.join(str(i + 1) for i in range(len(names)))}")


def value_counts_query(dimensions: int) -> exp.Expression:
    """Rows per leaf code of every QI over the base class table, in one query: ``(j, code,
    rows)``, and ``(-1, NULL, all rows)`` (which, short of the input's rows, means a value
    fell out of the encoding: see ``missing_values_query``)."""
    total = exp.select(exp.Literal.number(-1).as_(ident("j")), exp.Cast(this=exp.Null(), to=datatype("INT")).as_(ident("code")),
                       exp.Sum(this=col("n")).as_(ident("rows"))).from_(table(CLASSES))
    per = [exp.select(exp.Literal.number(j).as_(ident("j")), col(qi(j)).as_(ident("code")),
                      exp.Sum(this=col("n")).as_(ident("rows")), copy=False)
           .from_(table(CLASSES), copy=False).group_by(col(qi(j)), copy=False) for j in range(dimensions)]
    return exp.union(total, *per, distinct=False, copy=False)


def distinct_classes_query(dimensions: int, sensitives: int = 0, lnx: bool = False) -> exp.Select:
    """The base class table from ``sqlanon_distinct``: each text replaced by its code (QIs
    through their level-0 labels, sensitive attributes through their value tables), the rows
    summed per code combination. The same table ``base_classes_query`` builds from the rows."""
    query = exp.select().from_(table(DISTINCT, "s"), copy=False)
    keys = []
    for j in range(dimensions):
        alias = f"d{j}"
        query = query.join(table(label_table(j), alias), on=exp.and_(
            exp.EQ(this=col("level", alias), expression=exp.Literal.number(0)),
            exp.EQ(this=col("label", alias), expression=col(distinct_text(j), "s"))), copy=False)
        keys.append((col("code", alias), qi(j)))
    for i in range(sensitives):
        alias = f"e{i}"
        query = query.join(table(sval_table(i), alias),
                           on=exp.EQ(this=col("label", alias), expression=col(distinct_sensitive(i), "s")), copy=False)
        keys.append((col("code", alias), sensitive(i)))
    rows = exp.Cast(this=exp.Sum(this=col("n", "s")), to=datatype("BIGINT"))
    query = query.select(*(key.as_(ident(name)) for key, name in keys), rows.as_(ident("n")), copy=False)
    query = query.group_by(*(key.copy() for key, _ in keys), copy=False)
    return _with_lnx(query, dimensions) if lnx else query


def labelled_classes_query(dimensions: int, label: str | None) -> exp.Select:
    """Distinct QI code combinations with their counts, split by the text of the ``label``
    column of the input when one is given (the class table K-Optimize searches in memory)."""
    keys = [col(qi(j), "d") for j in range(dimensions)]
    query = exp.select(*keys).from_(table(DATA, "d"))
    if label is not None:
        text = as_text(col(label, "i"))
        query = query.join(table(INPUT, "i"), on=exp.EQ(this=col(ROW, "d"), expression=col("rowid", "i")))
        query = query.select(text.as_(ident("label")))
        keys = [*keys, text.copy()]
    return query.select(exp.Count(this=exp.Star()).as_(ident("n"))).group_by(*(key.copy() for key in keys))


def as_text(e: exp.Expression) -> exp.Expression:
    """A QI value as the text its hierarchy lists; NULL reads as '' (an empty first field)."""
    return exp.Coalesce(this=exp.Cast(this=e, to=datatype("VARCHAR")), expressions=[exp.Literal.string("")])


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


def output_query(
    node: Node,
    keep_condition,
    columns: Sequence[tuple[str, str, int | None]],
    drop_suppressed: bool,
    verdicts: exp.Select | None = None,
) -> exp.Select:
    """The released table, in input order.

    ``columns``: (output name, kind, index) with kind ``"qi"`` (index = QI position) or
    ``"pass"`` (index = passthrough position). ``keep_condition(size)`` returns the predicate
    for a class of ``size`` rows; suppressed rows get the bound ``$mask`` in every QI. When
    the models read more than the size, ``verdicts`` (``verdict_query``) decides per class.
    """
    gen = exp.select(col(ROW, "d")).from_(table(DATA, "d"))
    gen, codes, _ = generalized(gen, node, "d", projection=True)
    gen = gen.select(*(code.as_(ident(f"g{j}")) for j, code in enumerate(codes)))
    return _release(gen, len(node), keep_condition, columns, drop_suppressed,
                    lambda query: join_labels(query, node, "o"), lambda j: col("label", f"v{j}"), verdicts)


def rank_table(j: int) -> str:
    return f"sqlanon_rank_{j}"


def cut_table(j: int) -> str:
    return f"sqlanon_cut_{j}"


def interval_output_query(
    dimensions: int,
    keep_condition,
    columns: Sequence[tuple[str, str, int | None]],
    drop_suppressed: bool,
) -> exp.Select:
    """The released table of an ordered-interval anonymization (K-Optimize), in input order.

    ``sqlanon_rank_<j>(code, rank)`` gives each leaf code its rank in QI j's order and
    ``sqlanon_cut_<j>(lo, hi, label)`` the intervals of the cut set (ranks lo..hi). A range
    join puts every row in its interval; ``g<j>`` (the interval's first rank) is the GROUP BY-able
    bucket and ``t<j>`` its label. Otherwise as ``output_query``.
    """
    gen = exp.select(col(ROW, "d")).from_(table(DATA, "d"))
    for j in range(dimensions):
        rank, cut = f"r{j}", f"b{j}"
        gen = gen.join(table(rank_table(j), rank), on=exp.EQ(this=col(qi(j), "d"), expression=col("code", rank)))
        gen = gen.join(table(cut_table(j), cut), on=exp.Between(this=col("rank", rank), low=col("lo", cut), high=col("hi", cut)))
        gen = gen.select(col("lo", cut).as_(ident(f"g{j}")), col("label", cut).as_(ident(f"t{j}")))
    return _release(gen, dimensions, keep_condition, columns, drop_suppressed, lambda query: query, lambda j: col(f"t{j}", "o"))


def _release(gen: exp.Select, dimensions: int, keep_condition, columns, drop_suppressed: bool, decode, label,
             verdicts: exp.Select | None = None) -> exp.Select:
    """Count each row's class (``g<j>`` columns) with a window, mask the QIs of rows in classes
    that fail ``keep_condition`` or, when given, the per-class ``verdicts`` (or drop them), and
    select the output columns in input order."""
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
        if kind == "qi":
            value = _case(kept.copy(), label(index), param("mask"))
        else:
            value = col(f"p{index}", "o")
        selected.append(value.as_(ident(name)))
    query = query.select(*selected)
    if drop_suppressed:
        query = query.where(kept.copy())
    return query.order_by(col(ROW, "o"))


def verdict_query(node: Node, keep: exp.Expression, lookup: str, figures: Sequence[exp.Select]) -> exp.Select:
    """Per class of the node: its codes ``g<j>`` and whether it is kept (``__kept``)."""
    cls = class_query(node, False, True, lookup, figures).subquery(ident("cls"))
    return exp.select(*(col(k) for k in class_keys(node)), keep.as_(ident("__kept"))).from_(cls)


SLOT = "@"  # stands for a level inside a template identifier; never part of a real name


class NodeTemplate:
    """A per-node query in the wide layout, built and rendered once per job.

    In the wide layout nodes differ only in which level column of each QI they read, so the
    tree is built with slot identifiers (``q<j>_@``) and rendered once; per node the quoted
    slot identifiers are replaced by the quoted real ones, both rendered by sqlglot. This saves
    the ~3 ms of tree building and rendering that would otherwise dominate a 2 ms check. A
    lean check's template groups by the one slot column ``KEYS``, replaced by the node's
    keys (``group_key_names``), so one template serves every node whatever keys it leaves out.
    """

    def __init__(self, build, dimensions: int, dialect: str):
        self.dialect = dialect
        self.dimensions = dimensions
        self.sql = render(build((SLOT,) * dimensions), dialect)
        # only the QIs whose slot the template holds: a lean template groups by KEYS alone,
        # and 2 x d replacements that find nothing cost more than the rest of its render
        slots = ((j, ident(wide_column(j, SLOT)).sql(dialect), ident(wide_leaves(j, SLOT)).sql(dialect))
                 for j in range(dimensions))
        self._tokens = [(j, code, leaves) for j, code, leaves in slots if code in self.sql or leaves in self.sql]
        self._keys = col(KEYS, "c").sql(dialect)
        self._tag = col(TAG).sql(dialect)

        # (j, level) -> the quoted real identifiers: rendering them per check cost ~30 us each
        self._real: dict[tuple[int, int], tuple[str, str]] = {}
        self._columns: dict[str, str] = {}  # a key's name -> its qualified, quoted text

    def render(self, node: Node, keys: Sequence[str] = (), tag: int | None = None) -> str:
        sql = self.sql if tag is None else self.sql.replace(self._tag, str(int(tag)))
        for j, code, leaves in self._tokens:
            real = self._real.get((j, node[j]))
            if real is None:
                real = self._real[j, node[j]] = (ident(wide_column(j, node[j])).sql(self.dialect),
                                                  ident(wide_leaves(j, node[j])).sql(self.dialect))
            sql = sql.replace(code, real[0]).replace(leaves, real[1])
        if keys:
            columns = self._columns
            for name in keys:
                if name not in columns:
                    columns[name] = col(name, "c").sql(self.dialect)
            sql = sql.replace(self._keys, ", ".join(columns[name] for name in keys))
        return sql
