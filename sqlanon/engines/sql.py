"""What every SQL engine shares: encoding, the class tables, checks, snapshots and the output
query, all as compiler trees rendered for the engine's sqlglot ``dialect``.

A subclass supplies the connection and these hooks (the rest is dialect-neutral):

* ``dialect`` (class attribute): the sqlglot dialect every query is rendered for
  (``sqlanon.engines.dialects.render``).
* ``_query(sql, params) -> (column names, rows)``: execute one statement with named parameters
  and fetch every row (an empty list of names for statements without a result). ``params``
  maps names to values; placeholders are what sqlglot renders for ``exp.Placeholder`` in the
  dialect (``$name`` DuckDB, ``%(name)s`` PostgreSQL, ``:name`` Spark), and raw SQL strings
  written by the subclass use the same style. Rows hold plain Python ints/floats/str/bool:
  convert driver types (e.g. ``Decimal``) here.
* ``_mode(lean, rows)``: optional, settings before the next query (DuckDB turns its optimizer
  off for lean checks); the default does nothing.
* ``_source_relation(source) -> (sql, params)``: the input as a relation for ``FROM``.
* ``open(source) -> column names``: attach or check the source (reads no rows); must set
  ``self._source``.
* ``_materialize(name, data: pyarrow.Table, replace=False)``: a temp table holding ``data``
  (hierarchy lookups, labels, sensitive values, the models' auxiliary tables); with
  ``replace`` an existing one of that name is replaced.
* ``_create_table_as(name, query, replace=False, lean_rows=None) -> rows``: a temp table from a
  query, returning its row count; ``replace`` drops one of that name first (DuckDB: CREATE OR
  REPLACE; others DROP + CREATE). ``lean_rows`` as in ``run``.
* ``scan_once`` (class attribute, default False): prepare reads the input once, grouped by the
  text of its QIs and sensitive attributes (``sqlanon_distinct``), and builds the class tables
  from that; the row tables are built only for what reads rows (``_ensure_row_tables``). With
  it, ``_distinct_classes()`` and ``_create_wide(population)`` may be overridden (DuckDB codes
  without joins), and ``write`` should stream the release from the input (DuckDB does).
* ``_row_id()``: an expression numbering the input's rows in input order, stored as ``rowid``
  in ``sqlanon_input`` (the output keeps that order); None when the engine has a ``rowid``
  pseudo-column (DuckDB).
* ``_write(sql, params, output, target)``: write the released rows of ``sql`` to ``target``
  (a temporary name chosen by the caller: a file path or a table name).
* ``_columns(sql, params) -> {name: numpy array}``: optional, a result as arrays (the lean
  size-histogram check reads its rows so); the default builds them from ``_query``.
* ``_batch(queries, params, lean_rows)``: optional, the rows of several per-node queries
  (one row of figures each), each row tagged with its query's position
  (``compiler.BATCH_NODE``, first column); the default sends a ``compiler.batch_query`` per
  ``STATEMENT_NODES`` queries (``statements``), DuckDB splits each over two connections.
* ``_sizes_batch(nodes, render, read, params, lean_rows)``: optional, the figures of several
  nodes' class-size checks (``render`` a node's query, ``read`` a result's figures); the
  default sends a statement per ``STATEMENT_NODES`` nodes, DuckDB pipelines smaller ones
  on two connections.
* ``_arrow(sql, params) -> pyarrow.Table``: optional, a result as Arrow (K-Optimize's class
  table); the default builds it from ``_query``.
* ``_prepare_subset(subset) -> predicate``: optional, delta-presence's research subset; the
  default refuses it with a ConfigError.
* ``_drop_table(name)``: optional, drops a temp table (``DROP TABLE IF EXISTS``).
* ``close()``.

Counters (``rows_scanned``, ``queries``) and the snapshots' storage (temp tables the checker's
policy, ``sqlanon/checks/snapshots.py``, asks for) are handled here. Engines may add to the hooks; they should
not rename them (other engines build on them).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon.engines import compiler as c
from sqlanon.config.job import Output, Source
from sqlanon.engines.dialects import render
from sqlanon.engines.base import Capabilities, Engine, KeepCondition, OutputColumn, PreparedData
from sqlanon.engines.profiles import SQL_CAPABILITIES
from sqlanon.errors import ConfigError, DataError, first_line
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.hierarchy.coverage import missing_values_error
from sqlanon.lattice import Node
from sqlanon.criteria.population import ResearchSubset
from sqlanon.criteria.population import classes_query as population_classes_query
from sqlanon.config.snapshots import SnapshotSettings
from sqlanon.engines.size_histogram import from_batch_sizes, from_class_sizes, from_size_histogram, text_bytes
from sqlanon.checks.stats import ClassStats


#: nodes one statement of a batch holds at most: its SQL text and its result grow with them
STATEMENT_NODES = 32


def statements(count: int, most: int = STATEMENT_NODES, least: int = 1) -> list[tuple[int, int]]:
    """``[a, b)`` ranges cutting ``count`` nodes into as few statements of at most ``most``
    nodes as will do (at least ``least`` of them), of even sizes: 33 nodes are 17 + 16, not
    32 + 1."""
    pieces = max(least, -(-count // most)) if count else 0
    cuts = [count * i // pieces for i in range(pieces + 1)] if pieces else [0]
    return list(zip(cuts, cuts[1:]))


@dataclass(frozen=True)
class _Stored:
    """A snapshot's temp table and its row count (rows scanned when a check reads it)."""

    name: str
    rows: int


class SqlEngine(Engine):
    """The engine contract (``engines/base.py``) over a SQL database; see the module docstring
    for the hooks a subclass provides."""

    name = "sql"
    dialect = "duckdb"
    #: checks run as SQL here or in the kernel in process (``sqlanon/checks/placement.py`` chooses);
    #: several nodes in one query; snapshots as temp tables. Subclasses name what they read and write.
    capabilities: ClassVar[Capabilities] = SQL_CAPABILITIES
    #: seconds per class-table row a lean check scans, beside its fixed cost (which
    #: ``query_latency`` measures); ``placement.py`` weighs both against the kernel's cost.
    #: DuckDB, measured beside the kernel under the same load (``bench/placement_rows.py``, 19,502
    #: to 373,068 rows): 40 ns a row against the kernel's 21 (load 2; 2.4-2.8x at load 6)
    row_seconds = 40e-9
    #: prepare reads the input once, grouped (``sqlanon_distinct``), instead of copying it
    #: into ``sqlanon_input`` and encoding every row (see ``prepare``)
    scan_once = False
    #: a size-only check fetches the node's class sizes and makes their histogram and verdicts
    #: in process (``compiler.class_sizes_query``): where a fetched row costs next to nothing
    sizes_in_process = False

    def __init__(self, lookup: str = "wide", snapshots: SnapshotSettings | None = None):
        self.lookup = lookup
        self.kernel = None  # set by place_checks("local"): every check then runs in process
        self.class_table_bytes = 0
        self._aux: dict[str, pa.Table] = {}
        # projection is read here; roll-up and history are the checker's policy (sqlanon/checks/snapshots.py)
        self.settings = snapshots or SnapshotSettings()
        self._stored: dict[str, _Stored] = {}  # the snapshot tables the checker holds, by name
        self._free: list[str] = []  # names of released snapshot tables, for reuse
        self._pending = None
        self._snapshot_serial = 0
        self._wide_token = self.quoted(c.WIDE)
        self.rows_scanned = 0
        self.queries = 0
        self.bytes_fetched = 0  # the text length of every value fetched into Python (see fetched_bytes)
        self._base_classes = 0
        self._templates: dict[tuple, c.NodeTemplate] = {}
        #: the QIs paired with the next one in the base wide table (``compiler.with_pairs``; DuckDB)
        self._pairs: tuple[int, ...] = ()
        self._sensitives: list[str] = []
        self._subset: ResearchSubset | None = None
        self._row_tables = False  # sqlanon_input and sqlanon_data exist
        self._hierarchy_tables = False  # sqlanon_hier_<j> and sqlanon_label_<j> exist (_ensure_hierarchies)
        self._wide_pending = False  # sqlanon_wide is due but not built (see prepare)
        self._population = False

    # -- hooks with defaults -------------------------------------------------------------------
    def _mode(self, lean: bool, rows: int) -> None:
        """Settings for the next query; nothing by default."""

    def _row_id(self) -> exp.Expression | None:
        return None

    def _columns(self, sql: str, params: dict) -> dict[str, np.ndarray]:
        return columns_of(*self._query(sql, params))

    def _batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        rows = []
        for a, b in statements(len(queries)):
            rows += self.run(c.batch_query(queries[a:b], self.dialect, tags=range(a, b)), params, lean_rows)
        return rows

    def _arrow(self, sql: str, params: dict) -> pa.Table:
        names, rows = self._query(sql, params)
        return pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})

    def _prepare_subset(self, subset: ResearchSubset) -> exp.Expression:
        raise ConfigError(f"the {self.name} engine does not support delta-presence (a research subset); "
                          "use engine.name = \"duckdb\"")

    def _drop_table(self, name: str) -> None:
        self.run(f"DROP TABLE IF EXISTS {self.quoted(name)}")

    # -- execution -------------------------------------------------------------------------
    def sql(self, query: exp.Expression, pretty: bool = False) -> str:
        return render(query, self.dialect, pretty)

    def quoted(self, name: str) -> str:
        return c.ident(name).sql(self.dialect)

    def run(self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None) -> list[tuple]:
        """Execute and fetch everything. ``lean_rows``: the query is a lean GROUP BY over a
        table of that many rows (see ``_mode``)."""
        self._mode(lean_rows is not None, lean_rows or 0)
        sql = query if isinstance(query, str) else self.sql(query)
        self.queries += 1
        rows = self._query(sql, params or {})[1]
        self.bytes_fetched += fetched_bytes(rows)
        return rows

    def run_columns(self, sql: str, params: dict, lean_rows: int | None = None) -> dict[str, np.ndarray]:
        """``run`` for a result of integers and booleans read as arrays (``_columns``)."""
        self._mode(lean_rows is not None, lean_rows or 0)
        self.queries += 1
        columns = self._columns(sql, params)
        self.bytes_fetched += text_bytes(columns)
        return columns

    def _count(self, name: str) -> int:
        return int(self.run(exp.select(exp.Count(this=exp.Star())).from_(c.table(name)))[0][0])

    def distinct_values(self, column: str) -> list[str]:
        """The distinct values of a column as text (NULL as ''), for hierarchy builders."""
        relation, params = self._source_relation(self._source)
        value = self.sql(c.as_text(c.col(column)))
        rows = self.run(f"SELECT DISTINCT {value} FROM {relation}", params)
        return sorted(r[0] for r in rows)

    # -- preparation -------------------------------------------------------------------------
    def _create_input(self, names: Sequence[str]) -> None:
        """``sqlanon_input``: the columns the job reads, copied from the source once."""
        relation, params = self._source_relation(self._source)
        columns = [self.quoted(n) for n in names]
        row_id = self._row_id()
        if row_id is not None:
            columns.insert(0, self.sql(row_id.as_(c.ident("rowid"))))
        self.run(f"CREATE TEMPORARY TABLE {self.quoted(c.INPUT)} AS SELECT {', '.join(columns)} FROM {relation}", params)

    def _read_error(self, source: Source, error: Exception) -> DataError:
        return DataError(f"cannot read input {source.describe()}: {first_line(error)}")

    def prepare(self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str],
                needs: frozenset[str] = frozenset(), sensitives: Sequence[str] = (),
                subset: ResearchSubset | None = None) -> PreparedData:
        """``sensitives``: attributes whose per-class histograms the models read; only then
        do the class tables carry their codes. ``subset``: the research subset of
        delta-presence; only its rows are encoded and released, and the class tables carry
        the population count ``pop`` (see ``sqlanon/criteria/population.py``).

        An engine with ``scan_once`` reads the input once here, grouped by the text of the
        QIs and sensitive attributes (``sqlanon_distinct``), and builds the class tables from
        that; the row tables (``sqlanon_input``, ``sqlanon_data``) wait until something asks
        for them (``_ensure_row_tables``). A research subset still copies the input."""
        self._sensitives = list(sensitives)
        self._subset = subset
        extra = [subset.input_column] if subset is not None else []
        names = list(dict.fromkeys([name for name, _ in qis] + list(passthrough) + self._sensitives + extra))
        self._qi_names = [name for name, _ in qis]
        self._input_names, self._passthrough = names, list(passthrough)
        once = self.scan_once and subset is None
        self._hierarchies = [h for _, h in qis]  # the scan may encode with them
        if once:
            self._scan_distinct()
            rows = int(self.run(exp.select(exp.Cast(this=exp.Sum(this=c.col("n")), to=exp.DataType.build("BIGINT")))
                                .from_(c.table(c.DISTINCT)))[0][0] or 0)
        else:
            self._create_input(names)
            rows = self._count(c.INPUT)
        if rows == 0:
            raise DataError(f"input {self._source.describe()} has no rows: there is nothing to anonymize")
        self.rows_scanned += rows
        if not once:  # one scan: the classes' rows tell whether a value is missing (below)
            self._ensure_hierarchies()  # the coverage checks and the encoding join the labels
            for j, (name, hierarchy) in enumerate(qis):
                self._check_coverage(j, name, hierarchy, name, c.INPUT)
        population, member = rows, None
        if subset is not None:
            member = self._prepare_subset(subset)
            rows = self.run(exp.select(exp.Count(this=exp.Star())).from_(c.table(c.INPUT, "s")).where(member.copy()))[0][0]
            if rows == 0:
                raise ConfigError(f"delta-presence: the research subset ({subset.describe()}) has no row of the input: "
                                  "there is nothing to release")
        for i, name in enumerate(self._sensitives):
            self._store_sensitive(i, c.distinct_sensitive(i) if once else name, rows, member, once)
        if once:
            classes = None
        else:
            encode = c.encode_query([n for n, _ in qis], passthrough, self._sensitives)
            self._create_table_as(c.DATA, encode if member is None else encode.where(member))
            self.rows_scanned += population
            if subset is None:
                classes = c.base_classes_query(len(qis), len(self._sensitives), "lnx" in needs)
            else:
                classes = population_classes_query([n for n, _ in qis], len(self._sensitives), "lnx" in needs)
        self._row_tables = not once
        self._needs = needs
        self._base_classes = self._distinct_classes() if once else self._create_table_as(c.CLASSES, classes)
        if once:  # the rows per leaf code wait for the placement (value_counts): the kernel has them in numpy
            counts, encoded = None, int(self.run(exp.select(exp.Cast(this=exp.Sum(this=c.col("n")), to=exp.DataType.build(
                "BIGINT"))).from_(c.table(c.CLASSES)))[0][0] or 0)
            self.rows_scanned += self._base_classes
        else:
            counts, encoded = self._value_counts()
        if once and encoded != rows:  # the joins to the leaves dropped a value no hierarchy holds
            for j, (name, hierarchy) in enumerate(qis):
                self._check_coverage(j, c.distinct_text(j), hierarchy, name, c.DISTINCT)
            raise DataError(f"input {self._source.describe()}: {rows - encoded} rows were lost in the encoding. "
                            "This is a bug, please report it.")
        # The wide form serves checks in SQL: an engine that scans once builds it only when one
        # runs (local checks never read it), the others at once, as before.
        self._wide_pending = self.lookup == "wide"
        self._population = subset is not None
        if not once:
            self._ensure_wide()
        self._tops = [len(h.labels) - 1 for _, h in qis]
        self._rows = rows
        return PreparedData(rows=rows, base_classes=self._base_classes, value_counts=counts,
                            population=population if subset is not None else None)

    def value_counts(self) -> tuple[tuple[int, ...], ...]:
        """Rows per leaf code of every QI (``PreparedData.value_counts``, which a one-scan
        prepare leaves to this, called once the checks are placed): bincounts over the
        kernel's base table when checks run in process (no query: 0.2 ms against 2-4 ms for the
        query on ADULT), else one query."""
        if self.kernel is not None:
            from sqlanon.engines.local_checks import value_counts

            self.rows_scanned += self._base_classes * len(self._qi_names)
            return value_counts(self.kernel.base, [len(h.codes) for h in self._hierarchies])
        return self._value_counts()[0]

    def _value_counts(self) -> tuple[tuple[tuple[int, ...], ...], int]:
        """Rows per leaf code of every QI and the rows the base class table holds, by one query."""
        counts = [[0] * len(hierarchy.codes) for hierarchy in self._hierarchies]
        encoded = 0
        for j, code, n in self.run(c.value_counts_query(len(self._hierarchies))):
            if j < 0:
                encoded = int(n or 0)
            else:
                counts[j][code] = int(n)
        self.rows_scanned += self._base_classes * len(self._hierarchies)
        return tuple(tuple(x) for x in counts), encoded

    def _distinct_classes(self) -> int:
        """CREATE ``sqlanon_classes`` from ``sqlanon_distinct``; its rows."""
        self._ensure_hierarchies()
        return self._create_table_as(c.CLASSES, c.distinct_classes_query(
            len(self._qi_names), len(self._sensitives), "lnx" in self._needs))

    def _ensure_wide(self) -> None:
        """``sqlanon_wide``, if the layout reads it and it is not built yet; and the hierarchy
        tables, which every SQL path over the class tables may join (checks in the join
        layout, failing classes' labels, the sorted release): each of them passes here."""
        self._ensure_hierarchies()
        if self._wide_pending:
            self._create_wide(self._population)
            self._wide_pending = False

    def _create_wide(self, population: bool) -> None:
        """CREATE ``sqlanon_wide`` from ``sqlanon_classes`` (through the hierarchy tables,
        which ``_ensure_wide`` has stored)."""
        hierarchies = self._hierarchies
        self._create_table_as(c.WIDE, c.wide_query(
            [len(h.labels) - 1 for h in hierarchies], "leaves" in self._needs, len(self._sensitives), "lnx" in self._needs,
            [[len(labels) for labels in h.labels] for h in hierarchies], population=population))

    def _scan_distinct(self) -> None:
        """``sqlanon_distinct``: the one scan of the input (see ``prepare``)."""
        relation, params = self._source_relation(self._source)
        query = c.distinct_query(relation, self._qi_names, self._sensitives, self.dialect)
        self.run(f"CREATE TEMPORARY TABLE {self.quoted(c.DISTINCT)} AS {query}", params)

    def _ensure_row_tables(self) -> None:
        """``sqlanon_input`` and ``sqlanon_data`` for what reads rows rather than classes (the
        ordered-interval searches, and a release the engine cannot stream): after a one-scan
        prepare, the input is read again now."""
        if self._row_tables:
            return
        self._ensure_hierarchies()  # the encoding joins the leaves' labels
        self._create_input(self._input_names)
        self._create_table_as(c.DATA, c.encode_query(self._qi_names, self._passthrough, self._sensitives))
        self.rows_scanned += self._rows
        self._row_tables = True

    def _ensure_hierarchies(self) -> None:
        """``sqlanon_hier_<j>`` (each leaf's code and leaf count at every level) and
        ``sqlanon_label_<j>`` (each level's labels) of every QI, stored once, when something
        first reads them: the encoding of the rows, a check or release in SQL, the generic class
        and wide tables. A DuckDB prepare whose checks run in process reads none of them (it
        encodes in the scan and through bound lists): 18 tables on ADULT, ~10 ms it skips."""
        if self._hierarchy_tables:
            return
        for j, hierarchy in enumerate(self._hierarchies):
            self._store_hierarchy(j, hierarchy)
        self._hierarchy_tables = True

    def _store_hierarchy(self, j: int, hierarchy: EncodedHierarchy) -> None:
        levels = len(hierarchy.labels)
        columns = {"code": [row[0] for row in hierarchy.codes]}
        for l in range(levels):
            columns[f"l{l}"] = [row[l] for row in hierarchy.codes]
        for l in range(levels):
            columns[f"c{l}"] = [hierarchy.leaves[l][row[l]] for row in hierarchy.codes]
        self._materialize(c.hier_table(j), pa.table({k: pa.array(v, pa.int32()) for k, v in columns.items()}))
        labels = pa.table({
            "level": pa.array([l for l in range(levels) for _ in hierarchy.labels[l]], pa.int32()),
            "code": pa.array([code for l in range(levels) for code in range(len(hierarchy.labels[l]))], pa.int32()),
            "label": pa.array([text for l in range(levels) for text in hierarchy.labels[l]], pa.string()),
        })
        self._materialize(c.label_table(j), labels)

    def _store_sensitive(self, i: int, name: str, rows: int, member: exp.Expression | None = None,
                         distinct: bool = False) -> None:
        """``sqlanon_sval_<i>``: the attribute's distinct values as text, sorted, with counts
        (with a research subset: the population's values, the subset's counts). ``distinct``:
        counted over ``sqlanon_distinct`` (``name`` its text column) instead of the rows."""
        value = c.as_text(c.col(name, "s"))
        count = exp.Count(this=exp.Star()) if member is None else exp.Sum(
            this=exp.Case(ifs=[exp.If(this=member.copy(), true=exp.Literal.number(1))], default=exp.Literal.number(0)))
        if distinct:
            count = exp.Cast(this=exp.Sum(this=c.col("n", "s")), to=exp.DataType.build("BIGINT"))
        query = (exp.select(value.as_(c.ident("label")), count).from_(c.table(c.DISTINCT if distinct else c.INPUT, "s"))
                 .group_by(value.copy()))
        # Sorted here: the codes are positions in Python's order, whatever the database's collation.
        found = sorted(self.run(query))
        self.rows_scanned += rows
        self._materialize(c.sval_table(i), pa.table({
            "code": pa.array(range(len(found)), pa.int32()),
            "label": pa.array([r[0] for r in found], pa.string()),
            "n": pa.array([int(r[1]) for r in found], pa.int64()),
            "q": pa.array([int(r[1]) / rows for r in found], pa.float64()),
        }))

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]:
        """The attribute's distinct values (text, sorted; their codes are the positions) and rows."""
        i = self._sensitives.index(name)
        found = self.run(exp.select(c.col("label"), c.col("n")).from_(c.table(c.sval_table(i))).order_by(c.col("code")))
        return [r[0] for r in found], [int(r[1]) for r in found]

    def store_tables(self, tables: dict[str, pa.Table]) -> None:
        """Auxiliary tables of the privacy models (replaced when a new checker brings its own)."""
        for name, data in tables.items():
            self._materialize(name, data, replace=True)
        self._aux.update(tables)  # the kernel's copy, for local checks

    def _check_coverage(self, j: int, column: str, hierarchy: EncodedHierarchy, name: str, source: str) -> None:
        """Every value of QI ``name`` (``column`` of ``source``: the rows or the distinct
        table) is a leaf of its hierarchy."""
        self._ensure_hierarchies()
        # Ordered here too: the database's collation must not change the message.
        missing = sorted(((v, int(n)) for v, n in self.run(c.missing_values_query(j, column, source))),
                         key=lambda r: (-r[1], r[0]))
        if missing:
            raise missing_values_error(name, self._source.describe(), missing, hierarchy)

    # -- checks ------------------------------------------------------------------------------
    def _figures(self, node: Node, keep: KeepCondition, lookup: str | None = None) -> list[exp.Select]:
        """The per-class figure queries of the models that read a sensitive histogram."""
        build = getattr(keep, "figures", None)
        lookup = lookup or self.lookup
        figures = [] if build is None else build(
            lambda name: c.histogram_query(node, self._sensitives.index(name), self.settings.projection, lookup),
            c.class_keys(node))
        if self._subset is not None:  # the population counts, and only classes with subset rows
            figures.append(c.population_query(node, self.settings.projection, lookup))
        return figures

    # -- placement (sqlanon/checks/placement.py decides; engines/local_checks.py fetches) -------------
    def class_table_columns(self) -> int:
        """Columns of the base class table: QI codes, sensitive codes, n, pop, lnx."""
        return len(self._qi_names) + len(self._sensitives) + 1 + (self._subset is not None) + ("lnx" in self._needs)

    def query_latency(self, times: int = 3) -> float:
        """Seconds a check pays before it reads a row (parsing, planning, scheduling, the round
        trip), measured here: the median of ``times`` runs of a check-shaped query — every QI
        code column of the base class table grouped, then summed — over none of its rows."""
        keys = [c.col(c.qi(j)) for j in range(len(self._qi_names))]
        empty = exp.select(exp.Star()).from_(c.table(c.CLASSES)).limit(0).subquery(c.ident("b"))
        grouped = (exp.select(*keys, exp.Sum(this=c.col("n")).as_(c.ident("n"))).from_(empty)
                   .group_by(*(key.copy() for key in keys)))
        query = self.sql(exp.select(exp.Count(this=exp.Star()), exp.Sum(this=c.col("n")), exp.Min(this=c.col("n")))
                         .from_(grouped.subquery(c.ident("g"))))
        seconds = []
        for _ in range(times):
            started = time.perf_counter()
            self.run(query)
            seconds.append(time.perf_counter() - started)
        return statistics.median(seconds)

    def place_checks(self, placement: str) -> None:
        """``local``: fetch the base class table once and answer every check from it in
        process; ``sql``: every check is a query (as before)."""
        if placement == "sql":
            self._ensure_wide()
        if placement == "local" and self.kernel is None:
            from sqlanon.engines.local_checks import fetch_kernel

            self.reset_snapshots()
            self.kernel = fetch_kernel(self)

    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: frozenset[str],
                    start=None) -> ClassStats:
        if self.kernel is not None:
            return self.kernel.class_stats(node, keep, params, needs, start)
        self._ensure_wide()
        source = start  # a snapshot's temp table (keep_snapshot), or None: the base class table
        shape, query, sums = self._check_query(node, keep, needs, source)
        lean_rows = self._rows_of(source) if shape != "stats" else None
        if shape == "sizes":
            stats = self._read_sizes(self.run_columns(query, self._check_params(shape, params), lean_rows), keep, params, needs)
        else:
            stats = self._read_check(shape, node, self.run(query, params, lean_rows), needs, sums)
        self.rows_scanned += self._rows_of(source)
        if "suppressed_histograms" in needs:
            histograms = self._suppressed_histograms(node, keep, params, source) if stats.suppressed else tuple(() for _ in node)
            stats = replace(stats, suppressed_histograms=histograms)
        if "sizes" in needs and shape != "sizes":
            # the kept classes' size frequencies (population uniqueness): a second query, over the base table
            stats = replace(stats, kept_sizes=self.class_sizes(node, keep, params))
        self._pending = (node, source, stats.classes)
        return stats

    def class_stats_many(self, nodes: Sequence[Node], keep: KeepCondition, params: dict,
                         needs: frozenset[str]) -> list[ClassStats] | None:
        """The figures of several nodes in one query (``compiler.batch_query``), each exactly
        what ``class_stats`` returns for it; None when they must be checked one at a time:
        checks placed in process (the kernel answers each in microseconds), figures that take
        a second query per node (suppressed histograms; kept sizes outside the lean shape), or
        a metric's sums of floats (another plan adds them in another order). The checker asks
        only when no snapshot policy is on (``Checker.batches``), so none of these nodes is
        kept as a snapshot."""
        if self.kernel is not None or "suppressed_histograms" in needs or len(nodes) < 2:
            return None
        self._ensure_wide()
        # the shape and the sums depend on the job, not on the node: the first node says
        shape, first, sums = self._check_query(nodes[0], keep, needs, None)
        if ("sizes" in needs and shape != "sizes") or sums:
            # sums of floats (KL-divergence) come out of another plan with other last bits
            return None
        lean_rows = self._rows_of(None) if shape != "stats" else None
        self.rows_scanned += self._rows_of(None) * len(nodes)
        self._pending = None

        def render(node: Node, tag: int | None = None) -> str:
            """The node's query; with ``tag``, tagged where the class sizes are fetched
            (``_check_query``, ``compiler.batch_query``)."""
            query = self._check_query(node, keep, needs, None, tag)[1]
            return query if isinstance(query, str) else self.sql(query)

        if shape != "sizes":  # one row of figures per node, fetched as Python values (exact integers)
            per_node: list[list[tuple]] = [[] for _ in nodes]
            for row in self._batch([first, *(render(node) for node in nodes[1:])], params, lean_rows):
                per_node[int(row[0])].append(tuple(row[1:]))
            return [self._read_check(shape, node, found, needs, sums) for node, found in zip(nodes, per_node)]

        def read(found: dict[str, np.ndarray], count: int) -> list[ClassStats]:
            """The figures of ``count`` nodes from their batch's arrays, tagged 0 .. count - 1."""
            tags = found.pop(c.BATCH_NODE)
            if len(tags) > 1 and not bool(np.all(tags[1:] >= tags[:-1])):
                # UNION ALL keeps its parts' order on one thread, so this is for another plan
                order = np.argsort(tags, kind="stable")
                tags, found = tags[order], {name: values[order] for name, values in found.items()}
            if self.sizes_in_process:
                stats = from_batch_sizes(tags, found["n"], count, keep, params, "uniques" in needs, "sizes" in needs)
                if stats is not None:
                    return stats
            cuts = np.searchsorted(tags, np.arange(count + 1))
            return [self._read_sizes({name: values[a:b] for name, values in found.items()}, keep, params, needs)
                    for a, b in zip(cuts[:-1], cuts[1:])]

        # each node's class sizes (or size histogram): the result ordered by its tag, cut where the tag changes
        assert lean_rows is not None
        return self._sizes_batch(nodes, render, read, self._check_params(shape, params), lean_rows)

    def _sizes_batch(self, nodes: Sequence[Node], render, read, params: dict, lean_rows: int) -> list[ClassStats]:
        """A batch of ``sizes`` checks: ``render(node, tag)`` is a node's query, ``read(arrays,
        count)`` the figures of ``count`` nodes from their statement's result (tags from 0)."""
        return [stats for a, b in statements(len(nodes))
                for stats in read(self.run_columns(self._sizes_batch_query(nodes[a:b], render), params, lean_rows), b - a)]

    def _sizes_batch_query(self, nodes: Sequence[Node], render) -> str:
        """One statement of the ``sizes`` checks of ``nodes``, tagged 0, 1, ..."""
        return c.batch_query([render(node, tag) for tag, node in enumerate(nodes)], self.dialect,
                             tagged=self.sizes_in_process)

    def _check_params(self, shape: str, params: dict) -> dict:
        """The parameters a check query binds: none for class sizes, whose verdicts are made in
        process (DuckDB refuses parameters a statement does not read)."""
        return {} if shape == "sizes" and self.sizes_in_process else params

    def _read_sizes(self, found: dict[str, np.ndarray], keep: KeepCondition, params: dict,
                    needs: frozenset[str]) -> ClassStats:
        """The figures of a ``sizes`` check from its arrays: the class sizes (``sizes_in_process``)
        or the size histogram with the verdicts."""
        if self.sizes_in_process:
            return from_class_sizes(found["n"], keep, params, "uniques" in needs, "sizes" in needs)
        return from_size_histogram(found["n"], found["classes"], found["kept"], "uniques" in needs, "sizes" in needs)

    def _check_query(self, node: Node, keep: KeepCondition, needs: frozenset[str], source,
                     tag: int | None = None) -> tuple[str, object, dict]:
        """A node's check query over the base class table or the snapshot ``source``: its
        shape, its SQL (text from a template, or a tree) and the metric's named sums. Shapes:
        ``sizes``: the models and metric read class sizes only, so the node's class-size
        histogram says everything (``compiler.size_histogram_query``; or its class sizes,
        ``compiler.class_sizes_query``, where ``sizes_in_process``); ``lean``: sizes and leaf
        counts, one row of figures (``compiler.lean_stats_query``); both over the wide form, in
        the lean mode (``_mode``); ``stats``: anything else (``compiler.stats_query``). ``tag``:
        the node's place in a batch, which the class sizes' query carries itself
        (``sizes_in_process``); any other query is tagged by ``compiler.batch_query``."""
        with_leaves, uniques, lnx = "leaves" in needs, "uniques" in needs, "lnx" in needs
        sums = keep.stats_columns(len(node)) if hasattr(keep, "stats_columns") else {}
        signature = getattr(keep, "signature", "")
        lean = (not sums and getattr(keep, "figures", None) is None and (source is not None or self.lookup == "wide")
                and self._subset is None)  # a research subset joins the population query (see _figures)
        # a QI whose level has one value adds nothing to a grouping: the lean shapes leave it
        # out; two paired QIs are one key in the base wide table (compiler.with_pairs). The
        # templates group by a slot the node's keys replace; with no key left, by nothing.
        if lean:
            alike = tuple(len(self._hierarchies[j].labels[level]) == 1 for j, level in enumerate(node))
            keys = c.group_key_names(node, alike, self._pairs if source is None else ())
            slot = bool(keys)  # else no key is left: the template of one class, grouped by nothing
            alike = () if slot else (True,) * len(node)
        if lean and not with_leaves and self.sizes_in_process:
            tagged = tag is not None
            return "sizes", self._node_query(("class sizes", slot, tagged), node,
                                             lambda n, lookup: c.class_sizes_query(n, alike, (), slot, tagged), source,
                                             keys, tag), sums
        if lean and not with_leaves:
            return "sizes", self._node_query(("sizes", signature, slot), node,
                                             lambda n, lookup: c.size_histogram_query(n, keep(c.col("n")), alike, (), slot),
                                             source, keys), sums
        if lean:
            return "lean", self._node_query(("lean", with_leaves, uniques, signature, slot), node,
                                            lambda n, lookup: c.lean_stats_query(n, keep(c.col("n")), with_leaves, uniques,
                                                                                 alike, (), slot),
                                            source, keys), sums
        return "stats", self._node_query(
            ("stats", with_leaves, uniques, lnx, signature), node,
            lambda n, lookup: c.stats_query(n, keep(c.col("n")), with_leaves, self.settings.projection, lookup,
                                            self._figures(n, keep, lookup), uniques=uniques, sums=sums, lnx=lnx),
            source), sums

    @staticmethod
    def _read_check(shape: str, node: Node, rows: list, needs: frozenset[str], sums: dict) -> ClassStats:
        """ClassStats from the rows of a node's check query (see ``_check_query``); suppressed
        histograms and kept sizes are the caller's; the ``sizes`` shape is read in arrays
        (``size_histogram.from_size_histogram``)."""
        row = rows[0]
        with_leaves, uniques = "leaves" in needs, "uniques" in needs
        classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class = (
            int(x) if x is not None else None for x in row[:7]
        )
        rest = list(row[7:])
        leaves = tuple(int(x) for x in rest[:len(node)]) if with_leaves else None
        rest = rest[len(node):] if with_leaves else rest
        unique_count = int(rest.pop(0)) if uniques else None
        figures = {name: float(value) for name, value in zip(sums, rest)} if sums else None
        return ClassStats(classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, leaves, None, unique_count,
                          figures, min_class, None)

    # -- snapshots (the checker's policy, sqlanon/checks/snapshots.py, decides; here they are temp tables)
    def _rows_of(self, handle) -> int:
        return self._base_classes if handle is None else handle.rows

    def _materialize_node(self, node: Node, source) -> _Stored:
        """CREATE TEMP TABLE of the node's classes in the wide form, from ``source`` (a
        snapshot's handle) or the base class table."""
        if self._free:  # a released table's name: CREATE OR REPLACE saves a DROP per check
            name = self._free.pop()
        else:
            self._snapshot_serial += 1
            name = f"sqlanon_snap_{self._snapshot_serial}"
        query = c.snapshot_query(node, self._tops, "leaves" in self._needs, len(self._sensitives), "lnx" in self._needs,
                                 source.name if source is not None else None, self.lookup, self._subset is not None)
        wide_form = source is not None or self.lookup == "wide"
        rows = self._create_table_as(name, query, replace=True, lean_rows=self._rows_of(source) if wide_form else None)
        self.rows_scanned += self._rows_of(source)
        stored = _Stored(name, int(rows))
        self._stored[name] = stored
        return stored

    def keep_snapshot(self, node: Node):
        """Materialize the classes of the node just computed. A temp table costs a query about
        as dear as the check, so the checker asks only after the verdict, and only for the
        nodes its policy keeps (``Snapshots.worth_keeping``)."""
        if self.kernel is not None:
            return self.kernel.keep_snapshot(node)
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != node:
            raise ValueError(f"keep_snapshot({node}): the last check computed {pending and pending[0]}")
        return self._materialize_node(node, pending[1])

    def drop_snapshot(self, handle) -> None:
        """The table's name is reused by the next snapshot (CREATE OR REPLACE)."""
        if self.kernel is not None:
            return self.kernel.drop_snapshot(handle)
        del self._stored[handle.name]
        self._free.append(handle.name)

    def reset_snapshots(self) -> None:
        if self.kernel is not None:
            self.kernel.reset_snapshots()
        self._pending = None
        for name in [*self._stored, *self._free]:
            self._drop_table(name)
        self._stored.clear()
        self._free.clear()

    def _suppressed_histograms(self, node: Node, keep: KeepCondition, params: dict, read=None):
        query = self._node_query(
            ("histograms", getattr(keep, "signature", "")), node,
            lambda n, lookup: c.suppressed_histogram_query(n, keep(c.col("n")), self.settings.projection, lookup,
                                                           self._figures(n, keep, lookup)),
            read,
        )
        rows = self.run(query, params)
        self.rows_scanned += self._rows_of(read)
        result: list[list[int]] = [[] for _ in node]
        for j, _, count in rows:
            result[j].append(int(count))
        return tuple(tuple(h) for h in result)

    def check_sql(self, node: Node, keep: KeepCondition, needs: frozenset[str]) -> str:
        """The SQL of a node's check, as sent to the database (pretty-printed)."""
        return self.sql(c.stats_query(node, keep(c.col("n")), "leaves" in needs, self.settings.projection, self.lookup, self._figures(node, keep),
                             uniques="uniques" in needs), pretty=True)

    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]:
        """Up to ``limit`` classes failing the models, smallest first: (labels..., size)."""
        if self.kernel is not None:
            return self.kernel.failing_classes(node, keep, params, limit)
        self._ensure_wide()
        query = c.failing_classes_query(node, keep(c.col("n", "cls")), self.lookup, self._figures(node, keep))
        return self.run(query, {**params, "limit": limit})

    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes)."""
        if self.kernel is not None:
            return self.kernel.class_sizes(node, keep, params)
        self._ensure_wide()
        query = c.class_size_query(node, None if keep is None else keep(c.col("n")), self.settings.projection,
                                   self.lookup, self._figures(node, keep))
        return {int(size): int(count) for size, count in self.run(query, params)}

    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]:
        """Every class of a node with its size, the models' figures and its verdict, in code order."""
        if self.kernel is not None:
            return self.kernel.class_figures(node, keep, params)
        self._ensure_wide()
        self._mode(False, 0)
        cls = c.class_query(node, False, True, self.lookup, self._figures(node, keep)).subquery(c.ident("cls"))
        query = exp.select(exp.Star(), keep(c.col("n")).as_(c.ident("kept"))).from_(cls).order_by(*(c.col(k) for k in c.class_keys(node)))
        self.queries += 1
        names, rows = self._query(self.sql(query), params)
        self.bytes_fetched += fetched_bytes(rows)
        return [dict(zip(names, row)) for row in rows]

    def _node_query(self, shape: tuple, node: Node, build, read=None, keys: Sequence[str] = (),
                    tag: int | None = None) -> str | exp.Expression:
        """The SQL of a per-node query over the base class table or the snapshot ``read``.
        Whatever reads the wide form (the wide table, any snapshot) comes from a template
        rendered once per shape; only base checks in the join layout build a tree per node."""
        self._ensure_wide()
        if read is None and self.lookup != "wide":
            return build(node, self.lookup)
        template = self._templates.get(shape)
        if template is None:
            template = self._templates[shape] = c.NodeTemplate(lambda n: build(n, "wide"), len(node), self.dialect)
        sql = template.render(node, keys, tag)
        return sql if read is None else sql.replace(self._wide_token, self.quoted(read.name))

    def class_table(self, label: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
        """The class table for an in-memory search, read once: leaf codes of each distinct QI
        combination (m, d), its rows (m,), and with ``label`` the label values and the rows of
        each combination per label value (m, L)."""
        self._ensure_row_tables()
        self._mode(False, 0)
        dimensions = len(self._qi_names)
        query = c.labelled_classes_query(dimensions, label)
        result = self._arrow(self.sql(query), {})
        self.bytes_fetched += result.nbytes
        self.queries += 1
        self.rows_scanned += self._count(c.DATA)
        codes = np.stack([result.column(j).to_numpy() for j in range(dimensions)], axis=1).astype(np.int64)
        counts = result.column("n").to_numpy().astype(np.int64)
        if label is None:
            return codes, counts, [], None
        texts = result.column("label").to_pylist()
        values = sorted(set(texts))
        combos, inverse = np.unique(codes, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        per_label = np.zeros((len(combos), len(values)), dtype=np.int64)
        position = {value: i for i, value in enumerate(values)}
        np.add.at(per_label, (inverse, np.array([position[t] for t in texts], dtype=np.int64)), counts)
        return combos, per_label.sum(axis=1), values, per_label

    # -- output ------------------------------------------------------------------------------
    def check_output(self, output: Output) -> None:
        """Every SQL engine writes every column type it reads: nothing to refuse."""

    def write(self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
              output: Output, target: str) -> None:
        """Write the released table to ``target`` (a temporary name chosen by the caller)."""
        self._ensure_row_tables()
        self._ensure_wide()
        figures = self._figures(node, keep)
        verdicts = c.verdict_query(node, keep(c.col("n")), self.lookup, figures) if figures else None
        query = c.output_query(node, keep, [(x.name, x.kind, x.index) for x in columns],
                               drop_suppressed=output.suppressed == "drop", verdicts=verdicts)
        self._write_query(query, params, output, target)

    def write_intervals(self, ranks: Sequence[np.ndarray], intervals: Sequence[Sequence[tuple[int, int, str]]],
                        keep: KeepCondition, params: dict, columns: Sequence[OutputColumn], output: Output,
                        target: str) -> None:
        """Write the released table of an ordered-interval anonymization: ``ranks[j][code]`` is
        the rank of leaf code ``code`` of QI j in its order (-1: absent from the data) and
        ``intervals[j]`` its (first rank, last rank, label) intervals. Both become tables (the
        labels are data, never SQL) and a range join buckets every row."""
        self._ensure_row_tables()
        for j, (rank, spans) in enumerate(zip(ranks, intervals)):
            codes = np.flatnonzero(rank >= 0)
            self._materialize(c.rank_table(j), pa.table({
                "code": pa.array(codes, pa.int32()), "rank": pa.array(rank[codes], pa.int32())}), replace=True)
            self._materialize(c.cut_table(j), pa.table({
                "lo": pa.array([a for a, _, _ in spans], pa.int32()),
                "hi": pa.array([b for _, b, _ in spans], pa.int32()),
                "label": pa.array([text for _, _, text in spans], pa.string()),
            }), replace=True)
        query = c.interval_output_query(len(ranks), keep, [(x.name, x.kind, x.index) for x in columns],
                                        drop_suppressed=output.suppressed == "drop")
        self._write_query(query, params, output, target)

    def _write_query(self, query: exp.Expression, params: dict, output: Output, target: str) -> None:
        self._mode(False, 0)
        self._write(self.sql(query), {**params, "mask": "*"}, output, target)
        self.rows_scanned += self._count(c.DATA)



def columns_of(names: Sequence[str], rows: Sequence[tuple]) -> dict[str, np.ndarray]:
    """A result's rows as one array per column (``_columns``' default)."""
    return {name: np.array([row[i] for row in rows]) for i, name in enumerate(names)}


def fetched_bytes(rows) -> int:
    """What a result moved into Python, measured alike for every engine: the length of each
    value's text (NULL: 0). Not the wire size, which only a client-server engine has."""
    return sum(len(str(v)) for row in rows for v in row if v is not None)

