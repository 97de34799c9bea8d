"""The Spark engine: encodes, compresses and checks with Spark SQL (pyspark, local or a cluster).

Everything dialect-neutral is ``SqlEngine``'s (``engines/sql/engine.py``); here are Spark's hooks.
Queries are rendered for sqlglot's "spark" dialect and sent with named parameter markers
(``:k``) bound by ``spark.sql(query, args=...)``. Tables are temp views of the engine's own
SparkSession (``newSession``: engines share the process's SparkContext without seeing each
other's views). The input, the encoded data, the class tables and snapshots are cached views
(``persist``): sqlglot renders the compiler's CREATE TEMPORARY TABLE for Spark as a plain
view, which every reader would recompute from the source. A check returns one row to Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.core.specs import Output, Source
from sqlanon.engines.spark import io as spark_io
from sqlanon.engines.sql.fetched import columns_of, fetched_bytes
from sqlanon.engines.sql.engine import SqlEngine
from sqlanon.errors import ConfigError, DataError, OutputError
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.profiles import PROFILES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

DIALECT = "spark"
#: A class table (or snapshot) of at most this many rows is cached as one partition: a check
#: over it is then one task in one stage (Spark plans no shuffle for a GROUP BY over a single
#: partition), about half the time of a check over two partitions on ADULT.
SINGLE_PARTITION_ROWS = 1_000_000
#: A Spark check costs ~0.1 s, mostly on the driver (analysis, planning, code generation,
#: scheduling), and one UNION ALL of a batch's checks cost 2.6x as much per node as one query
#: each (bench/sql_checks.py --engine spark); so a batch sends its nodes' queries as this many
#: concurrent jobs instead (the SparkSession takes queries from several threads).
BATCH_THREADS = 8

try:
    _VERSION = package_version("pyspark")
except PackageNotFoundError:
    _VERSION = "not installed"


class SparkEngine(SqlEngine):
    name = "spark"
    version = _VERSION
    dialect = DIALECT
    capabilities = PROFILES["spark"].capabilities
    row_seconds = 50e-9  # a check's scan per class-table row (issue 16: ~200 ms a check)
    scan_once = True  # prepare groups the source in one scan (_scan_distinct)

    def __init__(
        self,
        lookup: str = "wide",
        snapshots: SnapshotSettings | None = None,
        master: str | None = None,
        spark_conf: dict | None = None,
    ):
        super().__init__(lookup, snapshots)
        self.spark = spark_io.session(master, dict(spark_conf or {}))
        self._views: dict[str, DataFrame] = {}  # cached view name -> its DataFrame (to unpersist)
        self._input_rows: int | None = None

    # -- execution -------------------------------------------------------------------------
    def frame(self, sql: str, params: dict | None = None):
        """The query as a (lazy) DataFrame."""
        try:
            return self.spark.sql(sql, args=params or None)
        except Exception as error:
            raise _spark_error(error) from None

    def _query(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]:
        frame = self.frame(sql, params)
        try:
            return list(frame.columns), [tuple(row) for row in frame.collect()]
        except Exception as error:
            raise _spark_error(error) from None

    # -- batches: concurrent jobs, one query per node (see BATCH_THREADS) ----------------------
    def _concurrent(self, queries: Sequence[str], params: dict) -> list[tuple[list[str], list[tuple]]]:
        """Each query's result, in order, the queries run as concurrent Spark jobs; counted
        here as the single checks they are."""
        with ThreadPoolExecutor(min(BATCH_THREADS, len(queries)), thread_name_prefix="sqlanon-spark") as pool:
            futures = [pool.submit(self._query, sql, params) for sql in queries]
            try:
                results = [future.result() for future in futures]
            except BaseException:  # an interrupted or failed batch leaves no job running
                for future in futures:
                    future.cancel()
                self.spark.sparkContext.cancelAllJobs()
                raise
        self.queries += len(queries)
        self.bytes_fetched += sum(fetched_bytes(rows) for _, rows in results)
        return results

    def run_batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        return [(i, *row) for i, (_, rows) in enumerate(self._concurrent(queries, params)) for row in rows]

    def run_sizes_batch(self, nodes, render, read, params: dict, lean_rows: int):
        found = []
        for names, rows in self._concurrent([render(node) for node in nodes], params):
            found += read({c.BATCH_NODE: np.zeros(len(rows), dtype=np.int64), **columns_of(names, rows)}, 1)
        return found

    def _arrow(self, sql: str, params: dict) -> pa.Table:
        return self.frame(sql, params).toArrow()

    @overload
    def _cache(
        self, name: str, frame, replace: bool = False, at_most: int | None = None, count: Literal[True] = True
    ) -> int: ...

    @overload
    def _cache(
        self, name: str, frame, replace: bool = False, at_most: int | None = None, *, count: Literal[False]
    ) -> None: ...

    def _cache(
        self, name: str, frame, replace: bool = False, at_most: int | None = None, count: bool = True
    ) -> int | None:
        """Cache ``frame`` as the temp view ``name`` and return its rows (computing it now;
        without ``count``, on first use). ``at_most``: a bound on its rows; small enough, it
        is cached as one partition."""
        if name in self._views:
            if not replace:
                raise DataError(f"Spark: temp view {name} exists")
            self._drop_table(name)
        if at_most is not None and at_most <= SINGLE_PARTITION_ROWS:
            frame = frame.coalesce(1)
        frame = frame.persist()
        frame.createOrReplaceTempView(name)
        self._views[name] = frame
        if not count:
            return None
        try:
            return frame.count()
        except Exception as error:
            raise _spark_error(error) from None

    def _create_table_as(
        self, name: str, query: exp.Expression, replace: bool = False, lean_rows: int | None = None
    ) -> int:
        self.queries += 1
        # The base class table has at most as many rows as the input, the wide table and every
        # snapshot at most as many as the base class table; the encoded data (read once, by
        # the output) keeps the input's partitions.
        bound = (
            None
            if name == c.DATA
            else self._input_rows
            if name == c.CLASSES
            else self._base_classes or self._input_rows
        )
        return self._cache(name, self.frame(self.sql(query)), replace, bound)

    def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None:
        # Small tables from the driver: counting them now would cost a Spark job each.
        self._cache(name, self.spark.createDataFrame(data), replace, count=False)

    def _drop_table(self, name: str) -> None:
        frame = self._views.pop(name, None)
        self.spark.catalog.dropTempView(name)
        if frame is not None:
            frame.unpersist()

    # -- source ----------------------------------------------------------------------------
    def open(self, source: Source) -> list[str]:
        """Check the source and return its column names (reads no rows)."""
        columns = spark_io.columns_of(self.spark, source)
        self._source = source
        return columns

    def _source_relation(self, source: Source) -> tuple[str, dict]:
        return self.quoted(spark_io.SOURCE), {}

    def distinct_values(self, column: str) -> list[str]:
        """The distinct values of a column as text (NULL as ''), for hierarchy builders."""
        spark_io.read(self.spark, self._source, [column], [column]).createOrReplaceTempView(spark_io.SOURCE)
        try:
            return super().distinct_values(column)
        finally:
            self.spark.catalog.dropTempView(spark_io.SOURCE)

    def _scan_distinct(self) -> None:
        """``sqlanon_distinct`` (``scan_once``): one GROUP BY of the source's QIs and sensitive
        attributes, cached; no row numbers, no cached copy of the rows (those wait for the
        output, ``_ensure_row_tables``). ADULT x40: bench/README.md, "Warehouses"."""
        texts = list(dict.fromkeys(self._qi_names + self._sensitives))
        spark_io.read_unordered(self.spark, self._source, texts, texts).createOrReplaceTempView(spark_io.SOURCE)
        try:
            query = c.distinct_query(self.quoted(spark_io.SOURCE), self._qi_names, self._sensitives, self.dialect)
            self.queries += 1
            self._input_rows = self._cache(c.DISTINCT, self.frame(query))  # bounds the class table's rows
        finally:
            self.spark.catalog.dropTempView(spark_io.SOURCE)

    def _create_input(self, names: Sequence[str]) -> None:
        """``sqlanon_input`` cached from the source, with ``rowid`` in input order; the QIs and
        sensitive attributes are compared with hierarchies by their text (see spark_io.read)."""
        texts = list(dict.fromkeys(self._qi_names + self._sensitives))
        self._input_rows = self._cache(c.INPUT, spark_io.read(self.spark, self._source, names, texts))

    # -- output ------------------------------------------------------------------------------
    def _write(self, sql: str, params: dict, output: Output, target: str) -> None:
        if output.kind not in self.capabilities.outputs:
            raise ConfigError(
                f"the spark engine writes {' and '.join(self.capabilities.outputs)}, not {output.kind} "
                f'(output {output.path}): use [engine] name = "duckdb"'
            )
        self.queries += 1
        frame = self.frame(sql, params)
        if output.kind == "parquet":
            spark_io.write_parquet(frame, target, output.path)
        else:
            spark_io.write_csv(frame, target, output.delimiter, output.path)

    def close(self) -> None:
        for name in list(self._views):
            self._drop_table(name)


def _spark_error(error: Exception) -> Exception:
    """Spark's errors as sqlanon's, in one line (a query that fails is bad data or a bug)."""
    if isinstance(error, (DataError, ConfigError, OutputError)):
        return error
    return DataError(f"Spark: {spark_io.first_line(error)}")
