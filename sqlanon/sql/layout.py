"""The lookup tables joined to the class table, and the wide layout built from them once:
``sqlanon_wide`` with every QI's code at every level, its paired keys (DuckDB), the keys a lean
check groups by, and the snapshots of a node's classes in the same form."""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

from sqlanon.sql.trees import (
    CLASSES,
    WIDE,
    col,
    datatype,
    ident,
    label_table,
    pair_column,
    qi,
    sensitive,
    table,
    wide_column,
    wide_leaves,
    hier_table,
)
from sqlanon.lattice import Node


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
    codes: list[exp.Expression] = []
    leaves: list[exp.Expression] = []
    for j, level in enumerate(node):
        if level == 0 and projection:
            codes.append(col(qi(j), source_alias))
            leaves.append(exp.Literal.number(1))
        else:
            query = _join(query, j, source_alias, qi(j))
            codes.append(col(f"l{level}", f"h{j}"))
            leaves.append(col(f"c{level}", f"h{j}"))
    return query, codes, leaves


#: the widest key ``with_pairs`` makes: code pairs that need more than UINTEGER stay apart
PAIR_CODES = 2**32


def narrow(e: exp.Expression, values: int | None, wide: bool = False) -> exp.Expression:
    """Codes in the smallest integer type that holds ``values`` of them: GROUP BY hashes and
    compares narrower keys faster (bench/check_overhead.py). ``wide``: UINTEGER too."""
    if values is None:
        return e
    types = exp.DataType.Type
    kind = (
        types.UTINYINT
        if values <= 256
        else types.USMALLINT
        if values <= 65536
        else types.UINT
        if wide and values <= PAIR_CODES
        else None
    )
    return exp.Cast(this=e, to=exp.DataType(this=kind)) if kind else e


def wide_query(
    levels: Sequence[int],
    with_leaves: bool,
    sensitives: int = 0,
    lnx: bool = False,
    sizes: Sequence[Sequence[int]] | None = None,
    population: bool = False,
) -> exp.Select:
    """``sqlanon_wide``: join every lookup table once; ``levels[j]`` is QI j's top level and
    ``sizes[j][l]`` the number of codes at level l (for narrow types). With ``population``
    (delta-presence), the base table's population count ``pop`` is carried too."""
    query = exp.select().from_(table(CLASSES, "c"), copy=False)
    columns = []
    for j, top in enumerate(levels):
        query = _join(query, j, "c", qi(j))
        columns += [
            narrow(col(f"l{l}", f"h{j}"), sizes[j][l] if sizes else None).as_(ident(wide_column(j, l)))
            for l in range(top + 1)
        ]
        if with_leaves:
            columns += [col(f"c{l}", f"h{j}").as_(ident(wide_leaves(j, l))) for l in range(top + 1)]
    columns += [col(sensitive(i), "c").as_(ident(sensitive(i))) for i in range(sensitives)]
    if lnx:
        columns.append(col("lnx", "c").as_(ident("lnx")))
    if population:
        columns.append(col("pop", "c").as_(ident("pop")))
    return query.select(*columns, col("n", "c").as_(ident("n")), copy=False)


def node_source(
    node: Node, projection: bool, lookup: str
) -> tuple[exp.Select, list[exp.Expression], list[exp.Expression]]:
    """FROM the class table (alias ``c``) with each QI's generalized code and leaf count."""
    if lookup == "wide":
        query = exp.select().from_(table(WIDE, "c"), copy=False)
        codes: list[exp.Expression] = [col(wide_column(j, l), "c") for j, l in enumerate(node)]
        leaves: list[exp.Expression] = [col(wide_leaves(j, l), "c") for j, l in enumerate(node)]
        return query, codes, leaves
    query = exp.select().from_(table(CLASSES, "c"), copy=False)
    return generalized(query, node, "c", projection)


def snapshot_query(
    node: Node,
    tops: Sequence[int],
    with_leaves: bool,
    sensitives: int,
    lnx: bool,
    source: str | None,
    lookup: str,
    population: bool = False,
) -> exp.Select:
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
        rows: exp.Expression = exp.Sum(this=n.copy())
        if population:  # a group of population rows only has n = 0: its lnx is NULL, not 0 / 0
            rows = exp.Nullif(this=rows, expression=exp.Literal.number(0))
        columns.append(exp.Div(this=total, expression=rows).as_(ident("lnx")))
    return query.select(*columns, copy=False).group_by(*(k.this.copy() for k in keys), copy=False)


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
                code = exp.Add(
                    this=exp.Mul(
                        this=exp.Cast(this=col(wide_column(j, level), "w"), to=datatype("UINT")),
                        expression=exp.Literal.number(partner_count),
                    ),
                    expression=col(wide_column(j + 1, partner), "w"),
                )
                columns.append(
                    narrow(code, count * partner_count, wide=True).as_(ident(pair_column(j, level, partner)))
                )
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
