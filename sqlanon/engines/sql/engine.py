"""What every SQL store shares: encoding, the class tables, the execution of checks and the
output query, all as compiler trees rendered for the engine's sqlglot ``dialect``. The checks
themselves are the SQL runner's (``runner.py``) or the kernel's.

A subclass supplies the connection and these hooks (the rest is dialect-neutral):

* ``dialect`` (class attribute): the sqlglot dialect every query is rendered for
  (``sqlanon.sql.dialects.render``).
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
* ``_row_id()``: an expression numbering the input's rows in input order from 0, stored as
  ``rowid`` in ``sqlanon_input`` (the output keeps that order, or a shuffle hashes it); None
  when the engine has a ``rowid`` pseudo-column (DuckDB).
* ``_write(sql, params, output, target)``: write the released rows of ``sql`` to ``target``
  (a temporary name chosen by the caller: a file path or a table name).
* ``_columns(sql, params) -> {name: numpy array}``: optional, a result as arrays (the lean
  size-histogram check reads its rows so); the default builds them from ``_query``.
* ``run_batch(queries, params, lean_rows)``: optional, the rows of several per-node queries
  (one row of figures each), each row tagged with its query's position
  (``compiler.BATCH_NODE``, first column); the default sends a ``compiler.batch_query`` per
  ``STATEMENT_NODES`` queries (``statements``), DuckDB splits each over two connections.
* ``run_sizes_batch(nodes, render, read, params, lean_rows)``: optional, the figures of several
  nodes' class-size checks (``render`` a node's query, ``read`` a result's figures); the
  default sends a statement per ``STATEMENT_NODES`` nodes, DuckDB pipelines smaller ones
  on two connections.
* ``_arrow(sql, params) -> pyarrow.Table``: optional, a result as Arrow (K-Optimize's class
  table); the default builds it from ``_query``.
* ``_prepare_subset(subset) -> predicate``: optional, delta-presence's research subset; the
  default refuses it with a ConfigError.
* ``_drop_table(name)``: optional, drops a temp table (``DROP TABLE IF EXISTS``).
* ``close()``.

Counters (``rows_scanned``, ``queries``) are kept here. The checks are not: a prepared store hands
out its runner (``runner(where)``): the SQL runner (``runner.py``), which sends every check as a
query through ``run`` and keeps snapshots as temp tables, or the kernel over the class table
fetched once (``local_checks.py``). Engines may add to the hooks; they should not rename them
(other engines build on them).
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.core.needs import Need
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.criteria.conditions import Conditions
from sqlanon.criteria.population import ResearchSubset
from sqlanon.engines.store import Capabilities, Store
from sqlanon.engines.capabilities import Where
from sqlanon.engines.profiles import SQL_CAPABILITIES
from sqlanon.engines.runner import CheckRunner
from sqlanon.engines.sql import local_checks
from sqlanon.engines.sql.batches import SqlBatches
from sqlanon.engines.sql.fetched import columns_of, fetched_bytes, text_bytes
from sqlanon.engines.sql.layout import Layout
from sqlanon.engines.sql.preparation import SqlPreparation
from sqlanon.engines.sql.release import SqlRelease
from sqlanon.engines.sql.runner import SqlRunner
from sqlanon.errors import ConfigError
from sqlanon.lattice import Node
from sqlanon.sql.dialects import render


class SqlEngine(SqlPreparation, SqlBatches, SqlRelease, Store):
    """The store contract (``engines/store.py``) over a SQL database; see the module docstring
    for the hooks a subclass provides. Its parts live by what they do: the preparation
    (``preparation.py``), the execution of several nodes' checks in one statement
    (``batches.py``) and the release (``release.py``); here are the state they share, the
    hooks' defaults, execution, and what the runners read (``layout``, ``node_figures``)."""

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

    if TYPE_CHECKING:  # the hook every subclass supplies (see the module docstring); nothing at runtime

        def _query(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]: ...

    def __init__(self, lookup: str = "wide", snapshots: SnapshotSettings | None = None):
        self.lookup = lookup
        self.class_table_bytes = 0
        #: the models' auxiliary tables (``store_tables``), shared with the kernel of local checks
        self.aux_tables: dict[str, pa.Table] = {}
        # projection is read here; roll-up and history are the checker's policy (sqlanon/checks/snapshots.py)
        self.settings = snapshots or SnapshotSettings()
        self.rows_scanned = 0
        self.queries = 0
        self.bytes_fetched = 0  # the text length of every value fetched into Python (see fetched_bytes)
        self._base_classes = 0
        #: the QIs paired with the next one in the base wide table (``compiler.with_pairs``; DuckDB)
        self._pairs: tuple[int, ...] = ()
        self._sensitives: list[str] = []
        self._subset: ResearchSubset | None = None
        self._row_tables = False  # sqlanon_input and sqlanon_data exist
        self._hierarchy_tables = False  # sqlanon_hier_<j> and sqlanon_label_<j> exist (_ensure_hierarchies)
        self._wide_pending = False  # sqlanon_wide is due but not built (see prepare)
        self._population = False

    # -- what the runners read -----------------------------------------------------------------
    def layout(self) -> Layout:
        """What the prepared tables hold, for a runner (read once the wide form is built)."""
        return Layout(
            tuple(self._qi_names),
            tuple(self._hierarchies),
            tuple(self._sensitives),
            self._subset,
            self._needs,
            self._rows,
            self._base_classes,
            tuple(self._tops),
            tuple(self._pairs),
            self.lookup,
            self.settings.projection,
        )

    def runner(self, where: Where) -> CheckRunner:
        """``sql``: every check a query here (``SqlRunner``); ``local``: the base class table
        fetched once as Arrow into the kernel, which answers every check in process."""
        if where == "sql":
            return SqlRunner(self)
        return local_checks.fetch_kernel(self)

    def class_table_columns(self) -> int:
        """Columns of the base class table: QI codes, sensitive codes, n, pop, lnx."""
        return len(self._qi_names) + len(self._sensitives) + 1 + (self._subset is not None) + (Need.LNX in self._needs)

    def query_latency(self, times: int = 3) -> float:
        """Seconds a check pays before it reads a row (parsing, planning, scheduling, the round
        trip), measured here: the median of ``times`` runs of a check-shaped query — every QI
        code column of the base class table grouped, then summed — over none of its rows."""
        keys = [c.col(c.qi(j)) for j in range(len(self._qi_names))]
        empty = exp.select(exp.Star()).from_(c.table(c.CLASSES)).limit(0).subquery(c.ident("b"))
        grouped = (
            exp.select(*keys, exp.Sum(this=c.col("n")).as_(c.ident("n")))
            .from_(empty)
            .group_by(*(key.copy() for key in keys))
        )
        query = self.sql(
            exp.select(exp.Count(this=exp.Star()), exp.Sum(this=c.col("n")), exp.Min(this=c.col("n"))).from_(
                grouped.subquery(c.ident("g"))
            )
        )
        seconds = []
        for _ in range(times):
            started = time.perf_counter()
            self.run(query)
            seconds.append(time.perf_counter() - started)
        return statistics.median(seconds)

    def node_figures(self, node: Node, keep: Conditions | None, lookup: str | None = None) -> list[exp.Select]:
        """The per-class figure queries of the models that read a sensitive histogram, and with a
        research subset the population counts (then only classes with subset rows count)."""
        lookup = lookup or self.lookup
        projection = self.settings.projection
        figures = (
            []
            if keep is None or not keep.has_figures
            else keep.figures(
                lambda name: c.histogram_query(node, self._sensitives.index(name), projection, lookup),
                c.class_keys(node),
            )
        )
        if self._subset is not None:
            figures.append(c.population_query(node, projection, lookup))
        return figures

    def empty_population(self, node: Node, lookup: str) -> exp.Select | None:
        """With a research subset: the count of the node's population classes without subset rows."""
        return None if self._subset is None else c.empty_population_query(node, self.settings.projection, lookup)

    def check_sql(self, node: Node, keep: Conditions, needs: Need) -> str:
        """The SQL of a node's check in this database (pretty-printed), wherever the checks run."""
        return self.sql(
            c.stats_query(
                node,
                keep(c.col("n")),
                Need.LEAVES in needs,
                self.settings.projection,
                self.lookup,
                self.node_figures(node, keep),
                uniques=Need.UNIQUES in needs,
                empty=self.empty_population(node, self.lookup),
            ),
            pretty=True,
        )

    # -- hooks with defaults -------------------------------------------------------------------
    def _mode(self, lean: bool, rows: int) -> None:
        """Settings for the next query; nothing by default."""

    def _row_id(self) -> exp.Expression | None:
        return None

    def _columns(self, sql: str, params: dict) -> dict[str, np.ndarray]:
        return columns_of(*self._query(sql, params))

    def _arrow(self, sql: str, params: dict) -> pa.Table:
        names, rows = self._query(sql, params)
        return pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})

    def _prepare_subset(self, subset: ResearchSubset) -> exp.Expression:
        raise ConfigError(
            f'the {self.name} engine does not support delta-presence (a research subset); use engine.name = "duckdb"'
        )

    def _drop_table(self, name: str) -> None:
        self.run(f"DROP TABLE IF EXISTS {self.quoted(name)}")

    # -- execution -------------------------------------------------------------------------
    def sql(self, query: exp.Expr, pretty: bool = False) -> str:
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

    def run_named(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]:
        """``run`` of a full query (no lean mode), with the result's column names."""
        self._mode(False, 0)
        self.queries += 1
        names, rows = self._query(sql, params)
        self.bytes_fetched += fetched_bytes(rows)
        return names, rows

    def fetch_arrow(self, query: exp.Expression, rows: int) -> pa.Table:
        """A result as Arrow (the class table local checks fetch): ``rows`` the rows it scans."""
        self._mode(False, 0)
        data = self._arrow(self.sql(query), {})
        self.queries += 1
        self.rows_scanned += rows
        self.bytes_fetched += data.nbytes
        return data

    def create_table(
        self, name: str, query: exp.Expression, replace: bool = False, lean_rows: int | None = None
    ) -> int:
        """A temp table from ``query`` (a runner's snapshot), its rows (``_create_table_as``)."""
        return self._create_table_as(name, query, replace=replace, lean_rows=lean_rows)

    def drop_table(self, name: str) -> None:
        self._drop_table(name)

    def _count(self, name: str) -> int:
        return int(self.run(exp.select(exp.Count(this=exp.Star())).from_(c.table(name)))[0][0])

    def distinct_values(self, column: str) -> list[str]:
        """The distinct values of a column as text (NULL as ''), for hierarchy builders."""
        relation, params = self._source_relation(self._source)
        value = self.sql(c.as_text(c.col(column)))
        rows = self.run(f"SELECT DISTINCT {value} FROM {relation}", params)
        return sorted(r[0] for r in rows)
