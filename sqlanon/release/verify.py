"""Re-read a written output with a fresh connection and re-check every privacy model.

Independent of the search: it sees only the file (or table), the QI column names and the
models. The output is read once, by one GROUP BY of its QI values as written (and of the
values of the attributes the models read); everything below comes from that pass. A group
smaller than k may only consist of suppressed rows (every QI masked), and there may be at most
floor(s * N) of those rows. Then every group is evaluated again in plain Python (the models'
``class_value``, not the SQL): a group failing a per-class model must be fully masked, the
whole-table models must hold on the released groups, and the worst value of each model over
the released groups is what the report states as achieved. The released classes' sizes (the
risk analysis' "after", which must agree with the search's) are counted from the same groups.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import duckdb
from sqlglot import exp

from sqlanon.engines.postgres import connection as pg
from sqlanon.sql import col, ident
from sqlanon.engines.duckdb.sources import csv_relation
from sqlanon.core.specs import Output
from sqlanon.core.mask import MASK
from sqlanon.errors import VerificationError, cut
from sqlanon.core.report import VerificationReport
from sqlanon.release.population import Population, population_counts


@dataclass(frozen=True)
class Verification:
    rows: int
    groups: int
    min_group: int | None
    small_group_rows: int
    masked_rows: int
    class_sizes: dict  # size -> released classes, suppressed rows left out (the risk's "after")


def _relation(output: Output) -> tuple[str, dict]:
    if output.kind == "parquet":
        return "read_parquet($path)", {"path": output.path}
    if output.kind == "csv":
        return csv_relation(_named(output.path), output.delimiter)
    return exp.Table(this=ident(_named(output.table)), db=ident("main"), catalog=ident("verify_db")).sql("duckdb"), {}


def _named(name: str | None) -> str:
    """The path or table an output of its kind names (the job's validation saw to it)."""
    assert name is not None, "the output names no path or table for its kind"
    return name


def _connect(config: dict | None = None) -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB database for one verification, with the job's DuckDB settings
    (``config``: memory limit, spill folder, threads; None values left out), given at
    creation so the verification uses what the job allows without a round trip per setting."""
    return duckdb.connect(config={key: value for key, value in (config or {}).items() if value is not None})


def fresh_database(output: Output, config: dict | None = None) -> duckdb.DuckDBPyConnection | None:
    """The verification's own new in-memory DuckDB database for ``output`` (None for a
    PostgreSQL table, read over its own connection), made before the output is written: a
    DuckDB database created right after a large ``COPY`` costs several times one created
    before it (about 90 against 15 ms at 1.2 M rows, and its first query pays too;
    bench/README.md, end to end), while one made beforehand is idle until the verification
    and as independent: new, empty, never touched by the engine, reading only the written
    output."""
    return None if output.kind == "postgres" else _connect(config)


def _close_later(con: duckdb.DuckDBPyConnection) -> None:
    """Close ``con`` in a background thread once the verification's figures are read: tearing
    its database down (returning the scan's memory, 4-10 ms at 1.2 M rows) is no part of the
    check, and the report written meanwhile is one Python thread. Not a daemon: the
    interpreter waits for it at exit."""
    threading.Thread(target=con.close, name="sqlanon-verify-close").start()


@contextmanager
def _reader(
    output: Output, url: str | None, config: dict | None = None, database: duckdb.DuckDBPyConnection | None = None
) -> Iterator[tuple[Callable, str, dict, str]]:
    """A fresh connection to the written output: (run(sql, params) -> rows, relation, its
    parameters, dialect). DuckDB reads files and DuckDB tables, in a new database with the
    settings ``config`` (or ``database``, from ``fresh_database``; closed here either way); a
    PostgreSQL output table is read over its own connection (``url``)."""
    if output.kind == "postgres":
        con = pg.connect(url)

        def run(sql: str, params: dict) -> list[tuple]:
            cursor = con.execute(sql, params or None)
            return cursor.fetchall() if cursor.description else []

        try:
            yield run, pg.quoted(_named(output.table)), {}, "postgres"
        finally:
            con.close()
        return
    con = database if database is not None else _connect(config)
    try:
        if output.kind == "duckdb":
            con.execute(f"ATTACH {exp.Literal.string(output.path).sql('duckdb')} AS verify_db (READ_ONLY)").fetchall()
        relation, params = _relation(output)
        yield (lambda sql, params: con.execute(sql, params).fetchall()), relation, params, "duckdb"
    finally:
        if output.kind != "duckdb":
            _close_later(con)
        else:  # a DuckDB output file stays attached until closed: closed before it is published
            con.close()


@dataclass(frozen=True)
class Released:
    """The written output, read once: every released group (its QI values as written, as text;
    NULL reads as '') with its rows, and with ``attributes`` the rows of each combination of
    their values (as text) in the group. Every figure of the verification and the risk
    re-count comes from this one pass."""

    qis: list[str]
    attributes: list[str]
    sizes: dict[tuple, int]
    histograms: dict[tuple, Counter]  # group -> Counter of attribute-value tuples (attributes only)

    def attribute_counts(self, key: tuple, index: int) -> Counter:
        """The rows of each value of attribute ``index`` in group ``key``."""
        counts: Counter = Counter()
        for values, n in self.histograms[key].items():
            counts[values[index]] += n
        return counts


def read_released(
    output: Output,
    qis: list[str],
    attributes: Sequence[str] = (),
    url: str | None = None,
    config: dict | None = None,
    database: duckdb.DuckDBPyConnection | None = None,
) -> Released:
    """One GROUP BY over the written output (a fresh connection, with the DuckDB settings
    ``config``, or the fresh ``database``): its groups' rows, and with ``attributes`` the
    attributes' values per group."""
    read = list(attributes)
    names = [*qis, *read]
    with _reader(output, url, config, database) as (run, relation, params, dialect):
        rows = run(_grouped_sql(tuple(names), relation, dialect), params)
    d = len(qis)
    sizes: dict[tuple, int] = {}
    histograms: dict[tuple, Counter] = defaultdict(Counter)
    for row in rows:
        key, n = tuple(row[:d]), int(row[-1])
        sizes[key] = sizes.get(key, 0) + n
        if read:
            histograms[key][tuple(row[d:-1])] += n
    return Released(list(qis), read, sizes, dict(histograms))


@lru_cache(maxsize=64)
def _grouped_sql(names: tuple[str, ...], relation: str, dialect: str) -> str:
    """The one GROUP BY of the verification, built once per shape (rendering it through
    sqlglot costs a few milliseconds, as much as the Python work on the groups)."""
    # Grouped by the values as they are (what a bare GROUP BY costs), then each group's
    # values as text; groups whose texts coincide merge in read_released.
    raw = ", ".join(col(a).as_(ident(f"c{i}")).sql(dialect) for i, a in enumerate(names))
    inner = (
        f"SELECT {raw}, COUNT(*) AS {ident('n').sql(dialect)} FROM {relation} "
        f"GROUP BY {', '.join(str(i + 1) for i in range(len(names)))}"
    )
    varchar = exp.DataType.build("VARCHAR")
    text = ", ".join(
        exp.Coalesce(this=exp.Cast(this=col(f"c{i}"), to=varchar.copy()), expressions=[exp.Literal.string("")]).sql(
            dialect
        )
        for i in range(len(names))
    )
    return f"SELECT {text}, {ident('n').sql(dialect)} FROM ({inner}) AS {ident('g').sql(dialect)}"


def measure(
    output: Output,
    qis: list[str],
    k: int,
    url: str | None = None,
    suppressed: int = 0,
    named: str | None = None,
    released: Released | None = None,
) -> Verification:
    """The released groups' figures. ``named``: how messages call the output (it may be read
    under its temporary name). ``released``: the output as already read (else read here)."""
    if released is None:
        released = read_released(output, qis, (), url)
    masked_key = tuple(MASK for _ in qis)
    rows = small_rows = masked_rows = small_unmasked = 0
    min_group = None
    for key, n in released.sizes.items():
        rows += n
        masked = key == masked_key
        if masked:
            masked_rows += n
        if n < k:
            small_rows += n
            if not masked:
                small_unmasked += n
        elif min_group is None or n < min_group:
            min_group = n
    if small_unmasked:
        raise VerificationError(
            f"output {named or output.describe()} is NOT {k}-anonymous: {small_unmasked} released rows are in "
            f"groups smaller than k. Nothing was published; this is a bug, please report it."
        )
    sizes = _class_sizes(released, masked_key, suppressed if output.suppressed == "mask" else 0)
    return Verification(rows, len(released.sizes), min_group, small_rows, masked_rows, sizes)


def _class_sizes(released: Released, masked_key: tuple, suppressed: int) -> dict[int, int]:
    """Class size -> number of released classes, the risk section's "after". Suppressed rows
    are left out, as ARX's risk analysis leaves them out: ``suppressed`` masked rows (0 when
    they were dropped or none were suppressed). The masked rows form one group; a kept class
    whose labels are all the mask too falls into it, so that group counts its rows beyond the
    suppressed ones. A NULL QI (an empty CSV field) reads as '': not the mask."""
    sizes: Counter = Counter()
    for key, n in released.sizes.items():
        if suppressed and key == masked_key:
            n -= suppressed
        if n > 0:
            sizes[n] += 1
    return dict(sizes)


def _class_text(qis: list[str], key: tuple) -> str:
    """A released class for a message: each QI with its value, cut like every echoed value."""
    return "{" + ", ".join(f"{q}: {'NULL' if v is None else cut(v)}" for q, v in zip(qis, key)) + "}"


def check_models(
    output: Output,
    qis: list[str],
    models,
    overall: dict[str, dict[str, float]],
    suppressed: int,
    population: tuple[Counter, Counter] | None = None,
    url: str | None = None,
    named: str | None = None,
    released: Released | None = None,
) -> list[dict]:
    """Re-evaluate every model on the released groups; return each with its achieved value.

    ``overall``: per sensitive attribute, each value's frequency in the input (with
    ``suppressed = "mask"`` every row is in the output, and it must match). ``population``: the
    population's and the research subset's rows per class (``population_counts``), for
    delta-presence: a released group must hold all its class's subset rows, and its delta is
    their share of the class's population. ``released``: the output as already read (with the
    models' attributes; else read here).
    """
    attributes = list(dict.fromkeys(m.attribute for m in models if m.attribute))
    if released is None or released.attributes != attributes:
        released = read_released(output, qis, attributes, url)
    named = named or output.describe()
    if output.suppressed == "mask" and released.sizes:
        total = sum(released.sizes.values())
        for i, a in enumerate(attributes):
            counts: Counter = Counter()
            for histogram in released.histograms.values():
                for combination, n in histogram.items():
                    counts[combination[i]] += n
            if any(not math.isclose(counts.get(v, 0) / total, q, abs_tol=1e-12) for v, q in overall[a].items()):
                raise VerificationError(
                    f"output {named}: the distribution of '{a}' differs from the input's. This is a bug."
                )
    if population is not None:
        # delta-presence: a class of the population without subset rows has delta = 0; it
        # releases nothing, and no suppression removes it, so with dmin > 0 the output fails
        everyone, chosen = population
        empty = [key for key in everyone if not chosen.get(key, 0)]
        for model in models:
            if model.population and empty and not model.empty_classes_hold(len(empty)):
                raise VerificationError(
                    f"output {named}: {len(empty)} classes of the population have no row of the research subset "
                    f"(delta = 0, below dmin = {model.dmin}), e.g. {_class_text(qis, sorted(empty, key=str)[0])}; "
                    "they fail delta-presence and no suppression removes them. Nothing was published; this is a bug."
                )
    masked = tuple(MASK for _ in qis)
    groups = {key: n for key, n in released.sizes.items() if key != masked or not suppressed}
    values: dict[int, list[float]] = defaultdict(list)
    for key, size in groups.items():
        for index, model in enumerate(models):
            if model.population:
                assert population is not None, "delta-presence is re-checked with the population's counts"
                everyone, chosen = population
                if chosen.get(key, 0) != size:
                    raise VerificationError(
                        f"output {named}: the released class {_class_text(qis, key)} has {size} rows, but "
                        f"the research subset has {chosen.get(key, 0)} in it. Nothing was published; this is a bug."
                    )
                value = model.presence_value(size, everyone[key])
            elif model.attribute is None:  # a condition on the size (k, max_risk) or none
                value = size
            else:
                value = model.class_value(
                    released.attribute_counts(key, attributes.index(model.attribute)), overall[model.attribute]
                )
            if not model.class_holds(value):
                raise VerificationError(
                    f"output {named}: the released class {_class_text(qis, key)} fails {model.describe()} "
                    f"({value}). Nothing was published; this is a bug, please report it."
                )
            values[index].append(value)
    sizes = list(groups.values())
    achieved = []
    for index, model in enumerate(models):
        if model.whole_table:
            value = model.table_value(sizes)
            if not model.table_holds(value):
                raise VerificationError(
                    f"output {named}: {model.describe()} fails on the released table ({value}). This is a bug."
                )
        elif values[index] and model.population:  # delta's range, k-map's smallest count
            value = model.population_range(values[index])
        elif values[index]:
            value = (min if model.worst == "min" else max)(values[index])
        else:
            value = None
        achieved.append({**model.describe(), **model.derived(), "achieved": value})
    return achieved


def verify(
    output: Output,
    qis: list[str],
    k: int,
    rows: int,
    suppressed: int,
    limit_rows: int,
    models=(),
    overall: dict | None = None,
    population: Population | None = None,
    url: str | None = None,
    named: str | None = None,
    config: dict | None = None,
    database: duckdb.DuckDBPyConnection | None = None,
) -> VerificationReport:
    """Raise VerificationError unless the written output is what the search promised. With a
    research subset (``population``), ``rows`` must also be the subset's rows counted afresh.
    ``url``: the PostgreSQL connection, for an output table there. ``named``: how messages call
    the output (it is verified under its temporary name, before it is published). ``config``:
    the job's DuckDB settings, for the verification's own database; ``database``: that
    database made beforehand (``fresh_database``), closed here."""
    named = named or output.describe()
    # the one pass over the written output: the groups, with the attributes the models read
    attributes = list(dict.fromkeys(m.attribute for m in models if m.attribute))
    released = read_released(output, qis, attributes, url, config, database)
    v = measure(output, qis, k, url, suppressed, named, released)
    expected_rows = rows - suppressed if output.suppressed == "drop" else rows
    problems = []
    counts = population_counts(population, qis) if population is not None else None
    if counts is not None and sum(counts[1].values()) != rows:
        problems.append(
            f"the research subset has {sum(counts[1].values())} rows in the input, but {rows} were released"
        )
    if v.rows != expected_rows:
        problems.append(f"it has {v.rows} rows, expected {expected_rows}")
    if v.small_group_rows > limit_rows:
        problems.append(f"{v.small_group_rows} rows are suppressed, above the limit of {limit_rows}")
    if output.suppressed == "drop" and v.small_group_rows:
        problems.append(f"{v.small_group_rows} rows in groups smaller than k were not dropped")
    if output.suppressed == "mask" and v.masked_rows < suppressed:
        problems.append(f"only {v.masked_rows} rows are masked, but {suppressed} were suppressed")
    if problems:
        raise VerificationError(f"output {named} failed verification: " + "; ".join(problems) + ". This is a bug.")
    achieved = (
        check_models(output, qis, list(models), overall or {}, suppressed, counts, url, named, released)
        if models
        else []
    )
    sizes = v.class_sizes
    return VerificationReport(
        verified=True,
        models=achieved,
        class_sizes=[[size, sizes[size]] for size in sorted(sizes)],
        rows=v.rows,
        groups=v.groups,
        min_group_size=v.min_group,
        suppressed_rows_found=v.small_group_rows,
        masked_rows=v.masked_rows,
    )
