"""QI codes in DuckDB without joins.

Each QI's leaves can become an ENUM type, in code order: ``enum_code(CAST(text AS enum))`` turns a
value's text into its leaf code with one hash lookup (created only for the QIs that read it:
those the scan does not encode, and those the release reads through it). A hierarchy far
larger than the input (``held_only``: a 1 M-row one under 1,000 rows) gets an ENUM of the
leaves the input holds, in code order, and a list of their codes (``held_param``): a text's
position in the ENUM indexes it, and the release's lists hold those leaves only. Each level of a hierarchy becomes a list
bound as a parameter, indexed by leaf code: ``list_extract($list, code + 1)`` is the leaf's code
(or leaf count) at that level. The one-scan prepare finds the codes of the QIs it can in the
scan itself (``distinct_query``, by ``list_position`` as below), encodes the rest of
``sqlanon_distinct`` into ``sqlanon_classes`` through the ENUMs, and builds ``sqlanon_wide``
with the lists (a third less than the nine joins each took on ADULT x40's 19,502 classes); the
streamed release (``duckdb_release.py``) encodes the input's rows the same way, keeping their
order.

For the rows there is a second way, ``row_code``: ``list_position($leaves, value)``. It scans
the list, but DuckDB runs it once per entry of a dictionary vector (what Parquet's and DuckDB's
dictionary-encoded strings arrive as) where it runs the ENUM cast once per row: on ADULT x40
from Parquet the nine QIs' codes took 0.09 s this way and 0.34 s through the ENUMs. On plain
vectors (CSV) its cost grows with the list: as cheap as the ENUM up to 16 leaves, 1.8x at 64,
5x at 256 (bench: 1.2 M rows, this machine). So the rows use it for text columns with at most
16 leaves, or 256 when the input is not CSV; the ENUM otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sqlanon import sql as c
from sqlanon.hierarchy import EncodedHierarchy

DIALECT = "duckdb"


def enum_type(j: int) -> str:
    return f"sqlanon_enum_{j}"


def enum_query(j: int) -> str:
    """CREATE the ENUM of QI j's leaves in code order, bound as ``$leaves`` (a list: no label
    table needs to exist)."""
    return f"CREATE OR REPLACE TEMP TYPE {c.ident(enum_type(j)).sql(DIALECT)} AS ENUM (SELECT unnest($leaves))"


def enum_check(qis: Sequence[int]) -> str:
    """One row: per QI j of ``qis``, whether its ENUM lists the leaves bound as ``$leaves_<j>``,
    in that order (so a leaf's position is its code; a duplicate label would shift them, and
    the hierarchies hold none)."""
    return "SELECT " + ", ".join(
        f"enum_range(CAST(NULL AS {c.ident(enum_type(j)).sql(DIALECT)})) = $leaves_{j}" for j in qis
    )


def held_param(j: int) -> str:
    """The parameter of QI j's held leaves' codes, in its ENUM's order (``held_only``)."""
    return f"held_{j}"


def as_enum(value: exp.Expression, j: int, strict: bool = True) -> exp.Expression:
    kind = exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=c.ident(enum_type(j)))
    return exp.Cast(this=value, to=kind) if strict else exp.TryCast(this=value, to=kind)


def leaf_code(text: exp.Expression, j: int, strict: bool = True, held: bool = False) -> exp.Expression:
    """The leaf code of a QI value's text (``strict``: an error for a text no leaf has; else
    NULL): its position in the ENUM, or with ``held`` (an ENUM of the held leaves only) the
    code at that position of the list bound as ``held_param(j)``."""
    position = exp.Anonymous(this="enum_code", expressions=[as_enum(text, j, strict)])
    if not held:
        return position
    return exp.Anonymous(
        this="list_extract",
        expressions=[c.param(held_param(j)), exp.Add(this=position, expression=exp.Literal.number(1))],
    )


def scan_code(column: exp.Expression, leaves: Sequence[str], param: str) -> exp.Expression:
    """A row's leaf code for QI value ``column`` (a text column, its leaves bound as ``$param``
    in code order) by list_position, in the scan: NULL reads as the leaf '' and a value no leaf
    holds (or NULL without a leaf '') gets NULL, which the base class table then lacks (so
    ``prepare`` finds the rows short and names the values: ``DuckDBEngine._check_coverage``)."""
    found = exp.Sub(
        this=exp.Anonymous(this="list_position", expressions=[c.param(param), column.copy()]),
        expression=exp.Literal.number(1),
    )
    empty = exp.Literal.number(list(leaves).index("")) if "" in leaves else exp.Null()
    case = exp.Case(ifs=[exp.If(this=exp.Is(this=column.copy(), expression=exp.Null()), true=empty)], default=found)
    return exp.Cast(this=case, to=c.datatype("INT"))


def coded_column(j: int) -> str:
    """``sqlanon_distinct``'s column of QI j's leaf code, when the scan encodes it."""
    return f"k{j}"


def distinct_query(
    relation: str, qis: Sequence[str], leaves: Sequence[Sequence[str] | None], sensitives: Sequence[str] = ()
) -> tuple[str, dict[str, list[str]]]:
    """``sqlanon_distinct`` over the source ``relation`` (SQL text) and the lists to bind.

    A QI with ``leaves`` is encoded in the scan (``scan_code``, column ``k<j>``): the scan then
    groups by small integers, not by text, which halves the GROUP BY (50 M rows of ADULT from
    Parquet: 11.9 s against 24.3 s, bench/README.md). The other QIs and the sensitive
    attributes are grouped as they are and turned into their text over those groups (``t<j>``,
    ``u<i>``), as ``compiler.distinct_query`` does; with none such the scan is the table."""
    raw = [name for name, known in zip(qis, leaves) if known is None] + list(sensitives)
    params: dict[str, list[str]] = {}
    inner: list[exp.Expr] = []
    outer: list[exp.Expr] = []
    r = 0
    for j, (name, known) in enumerate(zip(qis, leaves)):
        if known is not None:
            params[f"leaves_{j}"] = list(known)
            inner.append(scan_code(c.col(name), known, f"leaves_{j}").as_(c.ident(coded_column(j))))
            outer.append(c.col(coded_column(j)).as_(c.ident(coded_column(j))))
        else:
            inner.append(c.col(name).as_(c.ident(f"c{r}")))
            outer.append(c.as_text(c.col(f"c{r}")).as_(c.ident(c.distinct_text(j))))
            r += 1
    for i, name in enumerate(sensitives):
        inner.append(c.col(name).as_(c.ident(f"c{r}")))
        outer.append(c.as_text(c.col(f"c{r}")).as_(c.ident(c.distinct_sensitive(i))))
        r += 1
    keys = ", ".join(str(i + 1) for i in range(len(inner)))
    scan = (
        f"SELECT {', '.join(e.sql(DIALECT) for e in inner)}, COUNT(*) AS {c.ident('n').sql(DIALECT)} "
        f"FROM {relation} GROUP BY {keys}"
    )
    if not raw:
        return scan, params
    rows = exp.Cast(this=exp.Sum(this=c.col("n")), to=c.datatype("BIGINT")).as_(c.ident("n"))
    return (
        f"SELECT {', '.join(e.sql(DIALECT) for e in [*outer, rows])} FROM ({scan}) AS {c.ident('g').sql(DIALECT)} "
        f"GROUP BY {keys}"
    ), params


def classes_query(
    dimensions: int,
    sensitives: int,
    lnx: bool,
    coded: Sequence[bool] = (),
    enums: bool = True,
    held: Sequence[bool] = (),
) -> exp.Select:
    """``sqlanon_classes`` from ``sqlanon_distinct``: its rows are distinct, so are their
    codes; a text no leaf holds (a code the scan did not find) gets no row (the rows then fall
    short: see ``prepare``). A QI the scan encoded (``coded[j]``) has its code; the others'
    text becomes one through its ENUM (``held[j]``: of the held leaves, their codes bound as
    ``held_param(j)``), or, without ``enums``, a join to its level-0 labels.
    Sensitive values join their value tables, as in ``compiler.distinct_classes_query``."""
    coded = list(coded) or [False] * dimensions
    held = list(held) or [False] * dimensions
    query = exp.select().from_(c.table(c.DISTINCT, "s"), copy=False)
    columns = []
    for j in range(dimensions):
        if coded[j]:
            code: exp.Expression = c.col(coded_column(j), "s")
        elif enums:
            code = leaf_code(c.col(c.distinct_text(j), "s"), j, strict=False, held=held[j])
        else:
            alias = f"d{j}"
            query = query.join(
                c.table(c.label_table(j), alias),
                on=exp.and_(
                    exp.EQ(this=c.col("level", alias), expression=exp.Literal.number(0)),
                    exp.EQ(this=c.col("label", alias), expression=c.col(c.distinct_text(j), "s")),
                ),
                join_type="left",
                copy=False,
            )
            code = c.col("code", alias)
        columns.append(exp.Cast(this=code, to=c.datatype("INT")).as_(c.ident(c.qi(j))))
    for i in range(sensitives):
        alias = f"e{i}"
        query = query.join(
            c.table(c.sval_table(i), alias),
            on=exp.EQ(this=c.col("label", alias), expression=c.col(c.distinct_sensitive(i), "s")),
            copy=False,
        )
        columns.append(c.col("code", alias).as_(c.ident(c.sensitive(i))))
    encoded = query.select(*columns, c.col("n", "s").as_(c.ident("n")), copy=False)
    known = exp.and_(*(exp.Not(this=exp.Is(this=c.col(c.qi(j)), expression=exp.Null())) for j in range(dimensions)))
    query = exp.select(exp.Star()).from_(encoded.subquery(c.ident("e")), copy=False).where(known, copy=False)
    return c.with_lnx(query, dimensions) if lnx else query


def classes_view(dimensions: int) -> exp.Create:
    """``sqlanon_classes`` as a view of ``sqlanon_distinct``, for a scan that encoded every QI
    (``k<j>``, INT) and grouped nothing else: its groups are the classes, in the columns and
    types of ``classes_query``, without a second table (3-5 ms on ADULT x40's 19,502 classes).
    A text no leaf holds has a NULL code there; the view leaves it out, so the rows fall short
    as they do through ``classes_query``."""
    known = exp.and_(
        *(exp.Not(this=exp.Is(this=c.col(coded_column(j)), expression=exp.Null())) for j in range(dimensions))
    )
    query = (
        exp.select(*(c.col(coded_column(j)).as_(c.ident(c.qi(j))) for j in range(dimensions)), c.col("n"))
        .from_(c.table(c.DISTINCT))
        .where(known)
    )
    return exp.Create(
        this=c.table(c.CLASSES),
        kind="VIEW",
        expression=query,
        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
    )


def wide_query(
    hierarchies: Sequence[EncodedHierarchy],
    with_leaves: bool,
    sensitives: int = 0,
    lnx: bool = False,
    population: bool = False,
) -> tuple[exp.Select, dict[str, list[int]]]:
    """``sqlanon_wide`` (the columns of ``compiler.wide_query``, in the same types) from
    ``sqlanon_classes`` through the level lists, and the lists to bind."""
    params: dict[str, list[int]] = {}
    columns = []
    for j, h in enumerate(hierarchies):
        leaf = exp.Add(this=c.col(c.qi(j), "c"), expression=exp.Literal.number(1))
        levels = len(h.labels)
        for l in range(levels):
            name = f"h{j}_{l}"
            params[name] = list(h.columns[l])  # a leaf's code at level l, by leaf code
            value: exp.Expression = exp.Cast(
                this=exp.Anonymous(this="list_extract", expressions=[c.param(name), leaf.copy()]), to=c.datatype("INT")
            )
            columns.append(c.narrow(value, len(h.labels[l])).as_(c.ident(c.wide_column(j, l))))
        if with_leaves:
            for l in range(levels):
                name = f"n{j}_{l}"
                params[name] = list(map(h.leaves[l].__getitem__, h.columns[l]))
                value = exp.Anonymous(this="list_extract", expressions=[c.param(name), leaf.copy()])
                columns.append(exp.Cast(this=value, to=c.datatype("INT")).as_(c.ident(c.wide_leaves(j, l))))
    columns += [c.col(c.sensitive(i), "c").as_(c.ident(c.sensitive(i))) for i in range(sensitives)]
    if lnx:
        columns.append(c.col("lnx", "c").as_(c.ident("lnx")))
    if population:
        columns.append(c.col("pop", "c").as_(c.ident("pop")))
    query = exp.select(*columns, c.col("n", "c").as_(c.ident("n"))).from_(c.table(c.CLASSES, "c"))
    return query, params


#: leaves up to which a row's code is found by list_position: any input, and inputs that are
#: not CSV (their strings mostly arrive dictionary-encoded); see the module docstring
LIST_LEAVES = 16
LIST_LEAVES_DICTIONARY = 256
#: the start of the error a row's unknown value raises (``row_code``), for the engine to name it
UNKNOWN = "sqlanon: a value no leaf holds: "


def list_lookup(leaves: int, text_column: bool, csv: bool) -> bool:
    """Find a row's leaf code by list_position (else through the ENUM)."""
    return text_column and leaves <= (LIST_LEAVES if csv else LIST_LEAVES_DICTIONARY)


#: leaves from which a QI's ENUM may hold only the leaves the input holds (``held_only``)
HELD_LEAVES = 4096


def held_only(leaves: int, distinct_rows: int) -> bool:
    """Give QI j's ENUM only the leaves the input holds? When its hierarchy has more leaves
    than the scan found distinct rows and at least ``HELD_LEAVES``: an ENUM costs about 4 us a
    leaf (its labels bound, created, checked: 4 s for a 1 M-row hierarchy), and every list the
    release binds per leaf shrinks with it (see ``duckdb_release.plan``)."""
    return leaves >= HELD_LEAVES and leaves > distinct_rows


def row_code(column: exp.Expression, j: int, leaves: Sequence[str] | None, param: str) -> exp.Expression:
    """A row's leaf code + 1 (a list position) for QI j's value ``column``. With ``leaves``
    (bound as ``$param``), by list_position on the value itself (a text column): NULL reads as
    the leaf '' and a value no leaf holds raises ``UNKNOWN``; else through the ENUM, which
    raises a conversion error for such a value."""
    if leaves is None:
        return exp.Add(this=leaf_code(c.as_text(column), j), expression=exp.Literal.number(1))
    unknown = exp.Anonymous(
        this="error", expressions=[exp.DPipe(this=exp.Literal.string(UNKNOWN), expression=column.copy())]
    )
    found = exp.Coalesce(
        this=exp.Anonymous(this="list_position", expressions=[c.param(param), column.copy()]), expressions=[unknown]
    )
    if "" in leaves:
        empty: exp.Expression = exp.Literal.number(list(leaves).index("") + 1)
    else:
        empty = exp.Anonymous(this="error", expressions=[exp.Literal.string(UNKNOWN + "NULL")])
    return exp.Case(ifs=[exp.If(this=exp.Is(this=column.copy(), expression=exp.Null()), true=empty)], default=found)
