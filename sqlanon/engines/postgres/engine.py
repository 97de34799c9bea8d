"""The PostgreSQL engine: encodes, compresses and checks inside a PostgreSQL server.

The input is a table there (``[input] table = "schema.table"``); its copy, the lookup and class
tables and the snapshots are temporary tables of the engine's connection, every query is a
compiler tree rendered for sqlglot's ``postgres`` dialect, and only each check's one row of
figures comes back to Python. The output goes to a new table (created under a temporary name
and renamed in one transaction, see ``connection.atomic_table``) or is streamed from a
server-side cursor into a local CSV or Parquet file.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from decimal import Decimal
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.engines.postgres import connection as pg
from sqlanon.core.specs import Output, Source
from sqlanon.engines import arrow_csv
from sqlanon.engines.postgres import arrow as pa_types
from sqlanon.engines.sql.fetched import fetched_bytes
from sqlanon.engines.sql.engine import SqlEngine
from sqlanon.errors import ConfigError, DataError, OutputError
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.profiles import PROFILES

_PLACEHOLDER = re.compile(r"%\(([A-Za-z_][A-Za-z0-9_]*)\)s|%")
_TYPES = {
    pa.int16(): "SMALLINT",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE PRECISION",
    pa.string(): "TEXT",
    pa.large_string(): "TEXT",
    pa.bool_(): "BOOLEAN",
}
BATCH = 10_000


def _driver_version() -> str:
    """From the installed package's metadata: importing psycopg itself (0.1 s) waits for the
    first connection (sqlanon/engines/postgres/connection.py), not for every job that loads the engines."""
    try:
        return f"psycopg {package_version('psycopg')}"
    except PackageNotFoundError:
        return "psycopg not installed"


def _plain(value):
    """NUMERIC (SUM of integers, for one) arrives as Decimal: an int when integral, else a float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


class PostgresEngine(SqlEngine):
    name = "postgres"
    version = _driver_version()
    dialect = "postgres"
    capabilities = PROFILES["postgres"].capabilities
    row_seconds = 50e-9  # a check's scan per class-table row (issue 16: 100-200 ms a check on ADULT x40)
    # Prepare groups the table in one scan (parallel workers may help: it is not a temp
    # table) and copies the rows only when the output reads them (engines/sql/engine.py).
    scan_once = True

    def __init__(self, url: str | None = None, lookup: str = "wide", snapshots: SnapshotSettings | None = None):
        self.url = url
        self.con = pg.connect(url)
        # JIT compiles a plan in tens of milliseconds: more than a whole check costs.
        self.con.execute("SET jit = off")
        # The models' per-class figures are subqueries joined on the class codes; PostgreSQL
        # underestimates their rows and picks nested loops, which took minutes where hash
        # joins take a second (ADULT, five QIs, every model). Our queries are all analytic.
        self.con.execute("SET enable_nestloop = off")
        # A check of a fine node groups every base class: with the default 4 MB its hash table
        # spills to disk (ADULT x40: 1.5 s, 0.9 s with 256 MB). Raised for this session only.
        if self.con.execute("SELECT pg_size_bytes(current_setting('work_mem'))").fetchone()[0] < 256 << 20:
            self.con.execute("SET work_mem = '256MB'")
        self.version = f"PostgreSQL {self.con.info.server_version // 10000}.{self.con.info.server_version % 10000}"
        self._bound: dict[str, str] = {}
        super().__init__(lookup, snapshots)

    # -- hooks (see engines/sql/engine.py) --------------------------------------------------------
    def _bind(self, sql: str, params: dict) -> str:
        """psycopg's placeholders are ``%(name)s``, as sqlglot renders them; any other ``%``
        (in a quoted identifier, say) is doubled so psycopg reads it as text."""
        key = sql if params else None
        if key is not None and key in self._bound:
            return self._bound[key]
        bound = _PLACEHOLDER.sub(lambda m: m.group(0) if m.group(1) in params else "%%", sql) if params else sql
        if key is not None and len(self._bound) < 256:
            self._bound[key] = bound
        return bound

    def _query(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]:
        psycopg = pg._psycopg()
        try:
            cursor = self.con.execute(self._bind(sql, params), params or None)
        except psycopg.errors.QueryCanceled:
            raise KeyboardInterrupt from None
        if cursor.description is None:
            return [], []
        rows = [tuple(_plain(v) for v in row) for row in cursor.fetchall()]
        return [d.name for d in cursor.description], rows

    def _arrow(self, sql: str, params: dict) -> pa.Table:
        """A result of numbers (the class table local checks fetch) as ``COPY ... TO STDOUT``
        in CSV, parsed by pyarrow into the columns' types (``arrow.arrow_type``):
        373,068 classes of ADULT x40 (perturbed) in 1.0 s where Python rows took 2.2 s, and half the bytes (bench/README.md,
        "Warehouses"). Anything else (text, whose NULL and '' CSV would have to tell apart;
        parameters, which COPY does not take; numeric without a precision) as rows."""
        if not params:
            cursor = self.con.execute(f"SELECT * FROM ({sql}) AS {self.quoted('q')} LIMIT 0")
            columns = list(cursor.description or [])
            types = [pa_types.arrow_type(d) if not pa_types.needs_scan(d) else None for d in columns]
            if columns and all(t is not None and (pa.types.is_integer(t) or pa.types.is_floating(t)) for t in types):
                return self._copy_numbers(sql, [d.name for d in columns], types)
        return super()._arrow(sql, params)

    def _copy_numbers(self, sql: str, names: list[str], types: list[pa.DataType]) -> pa.Table:
        psycopg = pg._psycopg()
        chunks = []
        try:
            with self.con.cursor() as cursor, cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)") as copy:
                for chunk in copy:
                    chunks.append(bytes(chunk))
        except psycopg.errors.QueryCanceled:
            raise KeyboardInterrupt from None
        data = b"".join(chunks)
        schema = pa.schema([pa.field(name, kind) for name, kind in zip(names, types)])
        if not data:
            return schema.empty_table()
        return pa_csv.read_csv(
            io.BytesIO(data),
            read_options=pa_csv.ReadOptions(column_names=names),
            convert_options=pa_csv.ConvertOptions(column_types=schema),
        )

    def _source_relation(self, source: Source) -> tuple[str, dict]:
        return pg.table_name(source.table, "input.table").sql(self.dialect), {}

    def open(self, source: Source) -> list[str]:
        """Check the input table and return its column names (reads no rows)."""
        if source.kind != "postgres":
            raise ConfigError(
                f'the postgres engine reads a table of its database ([input] table = "schema.table" '
                f"without a path), not {source.describe()}: load it into PostgreSQL, or use "
                '[engine] name = "duckdb"'
            )
        relation, _ = self._source_relation(source)
        found = self.con.execute("SELECT to_regclass(%(name)s) IS NOT NULL", {"name": relation}).fetchone()[0]
        if not found:
            tables = [
                r[0]
                for r in self.con.execute(
                    "SELECT table_schema || '.' || table_name FROM information_schema.tables "
                    "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1 LIMIT 20"
                ).fetchall()
            ]
            raise DataError(
                f"PostgreSQL ({pg.describe(self.url)}) has no table {source.table}; tables: "
                f"{', '.join(tables) or 'none'}"
            )
        cursor = self.con.execute(f"SELECT * FROM {relation} LIMIT 0")
        self._source = source
        return [d.name for d in cursor.description]

    def _row_id(self) -> exp.Expression:
        """The input positions from 0, as DuckDB's rowid counts them: a shuffle with a seed
        hashes the same numbers (``compiler.shuffle_key``), so it gives DuckDB's order."""
        return exp.Sub(this=exp.Window(this=exp.RowNumber()), expression=exp.Literal.number(1))

    def _create_input(self, names: Sequence[str]) -> None:
        # One sequential scan, no parallel workers and no synchronized scans: rows numbered in
        # the table's physical order, the order a plain SELECT returns them.
        self.con.execute("SET max_parallel_workers_per_gather = 0")
        self.con.execute("SET synchronize_seqscans = off")
        try:
            super()._create_input(names)
        finally:
            self.con.execute("RESET max_parallel_workers_per_gather")
        self._analyze(c.INPUT)

    def _analyze(self, name: str) -> None:
        """Temp tables are never analyzed by autovacuum: without statistics joins plan badly."""
        self.con.execute(f"ANALYZE {self.quoted(name)}")

    def _create_table_as(
        self, name: str, query: exp.Expression, replace: bool = False, lean_rows: int | None = None
    ) -> int:
        if replace:
            self._drop_table(name)
        self.queries += 1
        cursor = self.con.execute(self._bind(self.sql(c.create_temp_table(name, query)), {}))
        rows = cursor.rowcount
        if not replace:  # the base tables; a snapshot is read by one GROUP BY, no join to plan
            self._analyze(name)
        return int(rows)

    def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None:
        if replace:
            self._drop_table(name)
        columns = []
        for field in data.schema:
            if field.type not in _TYPES:
                raise AssertionError(f"no PostgreSQL type for {field.type} ({name}.{field.name})")
            columns.append(f"{self.quoted(field.name)} {_TYPES[field.type]}")
        self.con.execute(f"CREATE TEMPORARY TABLE {self.quoted(name)} ({', '.join(columns)})")
        with self.con.cursor() as cursor, cursor.copy(f"COPY {self.quoted(name)} FROM STDIN") as copy:
            for row in zip(*(column.to_pylist() for column in data.columns)):
                copy.write_row(row)
        self._analyze(name)

    # -- output ------------------------------------------------------------------------------
    def _write(self, sql: str, params: dict, output: Output, target: str) -> None:
        psycopg = pg._psycopg()
        try:
            if output.kind == "postgres":
                self.con.execute(f"CREATE TABLE {pg.quoted(target)} AS {self._bind(sql, params)}", params)
                return
            self._stream(sql, params, output, target)
        except psycopg.errors.QueryCanceled:
            raise KeyboardInterrupt from None
        except psycopg.Error as error:
            raise OutputError(f"cannot write output {output.describe()}: {pg.first_line(error)}") from None
        except OSError as error:
            raise OutputError(f"cannot write output {output.path}: {error.strerror or error}") from None

    def _stream(self, sql: str, params: dict, output: Output, target: str) -> None:
        """The released rows through a server-side cursor, BATCH rows at a time, as Arrow
        batches typed as DuckDB types the same columns (``arrow``), into a Parquet
        file (pyarrow) or a CSV file (DuckDB's CSV writer, ``arrow_csv``)."""
        with self.con.transaction(), self.con.cursor(name="sqlanon_output") as cursor:
            # DECLARE plans the query and reads no row: the result columns' types choose the
            # Arrow schema, and which loaders the rows are fetched with.
            cursor.execute(self._bind(sql, params), params)
            columns = list(cursor.description)
            pa_types.load_as_text(columns, cursor.adapters)
            scanned = self._scanned_types([d.name for d in columns if pa_types.needs_scan(d)])
            schema = pa.schema([pa.field(d.name, pa_types.arrow_type(d, scanned.get(d.name))) for d in columns])
            batches = pa_types.batches(cursor, schema, BATCH, self._fetched)
            if output.kind == "csv":
                arrow_csv.write_csv(schema, batches, target, output.delimiter)
                return
            with pq.ParquetWriter(target, schema) as writer:
                for batch in batches:
                    writer.write_batch(batch)

    def _fetched(self, rows: list) -> None:
        self.bytes_fetched += fetched_bytes(rows)

    def _scanned_types(self, names: list[str]) -> dict[str, pa.DataType]:
        """The decimal128 of each numeric column without a usable precision, from its values
        in the input copy (so the type does not depend on which rows the output keeps)."""
        if not names:
            return {}
        row = self.con.execute(self._bind(self.sql(pa_types.numeric_scan_query(names)), {})).fetchone()
        return pa_types.scanned_types(names, row)

    def close(self) -> None:
        if not self.con.closed:
            try:
                self.con.execute("DISCARD TEMP")  # a pooled connection would keep them
            finally:
                self.con.close()
