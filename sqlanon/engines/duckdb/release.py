"""The DuckDB release: the released table as one streamed projection of the input, no join.

DuckDB keeps the input's row order through scans, filters and projections (and ``COPY``), not
through joins: with two threads a join of the input to its classes comes out reordered, and
sorting 1.2 M rows back (``ORDER BY`` the row number) cost more than writing them. So after a
one-scan prepare (``SqlEngine.prepare``) the output is a projection of the input itself:

* each QI's value, as text (as the class tables read it), becomes its leaf code through the
  ENUM type of the hierarchy's leaves or a list_position in them (``codes.row_code``),
  or its position among the leaves the input holds, when its ENUM holds only those;
* the code indexes two lists bound as parameters: the node's label of every leaf, and the
  leaf's part of its class key;
* the classes that fail the models (read from the class table; few) are the set bits of a
  BITSTRING over those keys, held in a DuckDB variable, and ``get_bit`` says whether a row's
  class is suppressed.

The key numbers, per QI, only the node's codes that occur in a failing class (1.., and 0 for
every other code, so a key with a 0 is never a failing class): prod(m_j + 1) bits for m_j such
codes of QI j. Above ``MAX_BITS`` the engine writes through the joined and sorted query
(``compiler.output_query``) instead. The written file is verified like every output.

Shuffled (``[output] order = "shuffle"``, the default), the projection numbers the rows as it
reads them (``row_number() OVER ()``: a streaming window, the input's positions, as ``rowid``
numbers the input's copy) and the release is sorted by ``compiler.shuffle_order`` of that number
(its keyed hash, then the number): the order the sorted query gives for the same key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from sqlglot import exp

from sqlanon import sql as c
from sqlanon.engines.store import OutputColumn
from sqlanon.engines.duckdb.codes import row_code
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node

#: the largest class-key space held as a bitstring (16 MiB)
MAX_BITS = 1 << 27
SUPPRESSED = "sqlanon_suppressed"
POSITION = "__r"  # a row's position in the input, the shuffle's hashed input


@dataclass(frozen=True)
class Plan:
    """What the release query binds: per QI the node's label of each leaf (``labels``) and,
    when classes are suppressed, each leaf's part of the class key (``keys``); the failing
    classes' keys and the key space (``bits``)."""

    labels: list[list[str]]
    keys: list[list[int]] | None
    suppressed: list[int]
    bits: int


def plan(
    hierarchies: Sequence[EncodedHierarchy],
    node: Node,
    failing: Sequence[tuple[int, ...]],
    held: Sequence[Sequence[int] | None] | None = None,
) -> Plan | None:
    """The lists for ``node`` whose classes ``failing`` (generalized codes) are suppressed;
    None when their key space exceeds ``MAX_BITS``. ``held[j]``: the leaf codes QI j's rows are
    read as positions in (its ENUM holds only the input's leaves, ``codes.held_only``),
    so its lists hold those leaves only; None: every leaf, a position being a leaf code."""
    given = held if held is not None else [None] * len(hierarchies)
    order = [range(len(h.labels[0])) if found is None else found for h, found in zip(hierarchies, given)]
    labels = []
    for h, level, leaves in zip(hierarchies, node, order):
        names, codes = h.labels[level], h.columns[level]  # by leaf code
        labels.append([names[codes[v]] for v in leaves])
    if not failing:
        return Plan(labels, None, [], 0)
    ranks = [{code: r + 1 for r, code in enumerate(sorted({f[j] for f in failing}))} for j in range(len(node))]
    bits = prod(len(r) + 1 for r in ranks)
    if bits > MAX_BITS:
        return None
    strides: list[int] = []
    stride = 1
    for r in reversed(ranks):
        strides.insert(0, stride)
        stride *= len(r) + 1
    keys = []
    for j, (h, level, leaves) in enumerate(zip(hierarchies, node, order)):
        rank, codes = ranks[j], h.columns[level]
        keys.append([rank.get(codes[v], 0) * strides[j] for v in leaves])
    suppressed = sorted(sum(ranks[j][f[j]] * strides[j] for j in range(len(node))) for f in failing)
    return Plan(labels, keys, suppressed, bits)


def suppressed_query(bits: int) -> str:
    """SET the variable of the failing classes' keys (bound as ``$keys``) as a bitstring."""
    return (
        f"SET VARIABLE {SUPPRESSED} = (SELECT bitstring_agg(CAST(k AS BIGINT), 0, {int(bits) - 1}) "
        "FROM unnest($keys) AS t(k))"
    )


def output_type(j: int) -> str:
    return f"sqlanon_out_{j}"


def output_values(chosen: Plan, j: int, mask: str) -> list[str]:
    """The values of QI j's output ENUM: the node's labels, then the mask (once)."""
    return list(dict.fromkeys([*chosen.labels[j], mask]))


def output_type_query(j: int) -> str:
    """CREATE QI j's output ENUM from the values bound as ``$values``."""
    return f"CREATE OR REPLACE TEMP TYPE {c.ident(output_type(j)).sql('duckdb')} AS ENUM (SELECT unnest($values))"


def release_query(
    relation: str,
    qis: Sequence[str],
    passthrough: Sequence[str],
    columns: Sequence[OutputColumn],
    chosen: Plan,
    mask: str,
    drop: bool,
    enums: bool = False,
    leaves: Sequence[Sequence[str] | None] | None = None,
    shuffled: bool = False,
) -> tuple[str, dict]:
    """The released rows of ``relation`` (the input), in input order (``shuffled``: sorted by
    ``compiler.shuffle_order`` of each row's position, the caller binding ``order_key``), and
    their parameters:
    the plan's lists (``label_<j>``, ``key_<j>``) and ``mask``, which every QI of a suppressed
    row gets (with ``drop`` those rows are left out). With ``enums`` each QI comes out as its
    output ENUM (``output_type_query``, created by the caller) picked by position, not as a
    string: the Parquet writer then takes its dictionary as it is (a quarter faster on ADULT
    x40); ``label_<j>`` then holds positions in ``output_values``."""
    leaves = leaves or [None] * len(qis)
    params: dict = {f"leaves_{j}": list(found) for j, found in enumerate(leaves) if found is not None}
    leaf = [row_code(c.col(q), j, leaves[j], f"leaves_{j}").as_(c.ident(f"__c{j}")) for j, q in enumerate(qis)]
    kept = [c.col(p).as_(c.ident(f"__p{i}")) for i, p in enumerate(passthrough)]
    if shuffled:  # the input position, 0 first as rowid counts
        position = exp.Sub(this=exp.Window(this=exp.RowNumber()), expression=exp.Literal.number(1))
        kept.append(position.as_(c.ident(POSITION)))
    inner = f"SELECT {', '.join(e.sql('duckdb') for e in [*leaf, *kept])} FROM {relation}"
    suppresses = chosen.keys is not None
    if chosen.keys is not None:  # suppresses
        key: exp.Expression | None = None
        for j, part in enumerate(chosen.keys):
            params[f"key_{j}"] = part
            term = exp.Anonymous(this="list_extract", expressions=[c.param(f"key_{j}"), c.col(f"__c{j}")])
            key = term if key is None else exp.Add(this=key, expression=term)
        bit = exp.Anonymous(
            this="get_bit",
            expressions=[
                exp.Anonymous(this="getvariable", expressions=[exp.Literal.string(SUPPRESSED)]),
                exp.Cast(this=key, to=c.datatype("INT")),
            ],
        )
        flag = exp.EQ(this=bit, expression=exp.Literal.number(1)).as_(c.ident("__s"))
        inner = f"SELECT *, {flag.sql('duckdb')} FROM ({inner}) AS r"
    selected = []
    for column in columns:
        if column.kind != "qi":
            selected.append(c.col(f"__p{column.index}").as_(c.ident(column.name)))
            continue
        j = column.index
        name = f"label_{j}"
        if enums:
            values = output_values(chosen, j, mask)
            params[name] = [values.index(label) + 1 for label in chosen.labels[j]]
            masked: exp.Expression = exp.Literal.number(values.index(mask) + 1)
        else:
            params[name] = chosen.labels[j]
            masked = c.param("mask")
        value: exp.Expression = exp.Anonymous(this="list_extract", expressions=[c.param(name), c.col(f"__c{j}")])
        if suppresses:
            if not enums:
                params["mask"] = mask
            value = exp.Case(ifs=[exp.If(this=c.col("__s"), true=masked)], default=value)
        if enums:
            every = exp.Anonymous(
                this="enum_range",
                expressions=[
                    exp.Cast(
                        this=exp.Null(),
                        to=exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=c.ident(output_type(j))),
                    )
                ],
            )
            value = exp.Anonymous(this="list_extract", expressions=[every, value])
        selected.append(value.as_(c.ident(column.name)))
    sql = f"SELECT {', '.join(e.sql('duckdb') for e in selected)} FROM ({inner}) AS o"
    if suppresses and drop:
        sql += ' WHERE NOT "__s"'
    if shuffled:  # qualified: an output column may have the position's name
        sql += f" ORDER BY {', '.join(e.sql('duckdb') for e in c.shuffle_order(c.col(POSITION, 'o')))}"
    return sql, params
