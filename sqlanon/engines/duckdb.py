"""The DuckDB engine: encodes, compresses and checks inside an embedded DuckDB database.

Everything dialect-neutral lives in ``SqlEngine`` (``engines/sql.py``); here are DuckDB's
connection settings and lean mode, its readers (CSV, Parquet, DuckDB files, Arrow), COPY
and ATTACH for the output, and the research subset's checks and identifier files.
"""

from __future__ import annotations

import glob
import os
import queue
import re
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon.engines import compiler as c
from sqlanon.config import encodings as text_encoding
from sqlanon.config.job import Output, Source
from sqlanon.engines import duckdb_codes as codes
from sqlanon.engines import duckdb_release as release
from sqlanon.engines.base import KeepCondition, OutputColumn
from sqlanon.engines.csv_input import check_header, read_error
from sqlanon.engines.size_histogram import text_bytes
from sqlanon.engines.sql import SqlEngine, fetched_bytes, first_line, statements
from sqlanon.lattice import Node
from sqlanon.errors import ConfigError, DataError, OutputError, cut, cuts
from sqlanon.hierarchy.coverage import missing_values_error
from sqlanon.engines.pg_connection import table_name
from sqlanon.criteria.population import IDS, ResearchSubset, subset_condition
from sqlanon.config.snapshots import SnapshotSettings
from sqlanon.engines.profiles import PROFILES

DIALECT = "duckdb"
MASK = "*"  # what a suppressed row holds in every QI (as the SQL engines bind $mask)
_SHOW = 5
SOURCE_DB = "sqlanon_source"


def csv_relation(source: Source) -> tuple[str, dict]:
    """``read_csv`` of a CSV input, every column text, in the input's encoding."""
    return "read_csv($path, delim = $delim, header = true, all_varchar = true, encoding = $encoding)", {
        "path": source.path,
        "delim": source.delimiter,
        "encoding": text_encoding.duckdb_name(source.encoding),
    }


def literal(value: str) -> str:
    """A string literal for the few statements that take no parameters (ATTACH, COPY TO)."""
    return exp.Literal.string(value).sql(DIALECT)


class DuckDBEngine(SqlEngine):
    name = "duckdb"
    version = duckdb.__version__
    dialect = DIALECT
    capabilities = PROFILES["duckdb"].capabilities
    scan_once = True  # prepare groups the input in one scan; write streams it (duckdb_release.py)
    sizes_in_process = True  # embedded: fetching a node's class sizes is a copy in memory
    # Snapshots stay off by default (SqlEngine.snapshot_defaults): measured on ADULT and
    # ADULT x40, materializing costs more than reading from it saves.

    def __init__(self, database: str = ":memory:", lookup: str = "wide", snapshots: SnapshotSettings | None = None,
                 memory_limit: str | None = None, temp_directory: str | None = None, threads: int | None = None,
                 url: str | None = None):
        self.con = duckdb.connect(database)
        self.url = url  # the PostgreSQL database of a PostgreSQL input table
        for key, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory), ("threads", threads)):
            if value is not None:
                self.con.execute(f"SET {key} = {literal(str(value))}").fetchall()
        self._threads = int(self.con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        self._current_mode = (False, self._threads)  # (lean: optimizer off, threads)
        self._enums: dict[int, bool] = {}  # per QI: its leaves' ENUM exists; whether it holds each at its code
        self._types: dict[str, str] = {}  # the source's column types, by name
        self._coded: list[bool] = []  # per QI: prepare's scan found its leaf codes (_scan_distinct)
        self._second: duckdb.DuckDBPyConnection | None = None  # batches run here too (_pipeline)
        self._pieces: ThreadPoolExecutor | None = None  # the two threads of a pipelined batch (_pipeline)
        self._idle: queue.SimpleQueue = queue.SimpleQueue()  # the connections no piece is running on
        self._distinct_rows = 0  # the groups of that scan (sqlanon_distinct)
        super().__init__(lookup, snapshots)

    # -- hooks (see engines/sql.py) ------------------------------------------------------------
    def _query(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]:
        """Execute and fetch everything (DuckDB 2 refuses new work while a result is open)."""
        with interruptible():
            cursor = self.con.execute(sql, params)
            names = [d[0] for d in cursor.description] if cursor.description else []
            return names, cursor.fetchall()

    def _columns(self, sql: str, params: dict) -> dict[str, np.ndarray]:
        with interruptible():
            return self.con.execute(sql, params).fetchnumpy()

    def _arrow(self, sql: str, params: dict) -> pa.Table:
        with interruptible():
            return self.con.sql(sql, params=params or None).to_arrow_table()

    def _create_table_as(self, name: str, query: exp.Expression, replace: bool = False,
                         lean_rows: int | None = None) -> int:
        create = c.create_temp_table(name, query)
        if replace:  # CREATE OR REPLACE saves a DROP per snapshot
            create.set("replace", True)
        return int(self.run(create, lean_rows=lean_rows)[0][0])

    def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None:
        self._mode(False, 0)
        # DuckDB reads the Arrow table by its variable name here (a replacement scan): half the
        # cost of register + unregister, and a prepare stores two tables per QI.
        sqlanon_staging = data  # noqa: F841 (read by the statement below)
        create = "CREATE OR REPLACE TEMP TABLE" if replace else "CREATE TEMP TABLE"
        self.con.execute(f"{create} {c.ident(name).sql(DIALECT)} AS SELECT * FROM sqlanon_staging").fetchall()

    def _create_input(self, names: Sequence[str]) -> None:
        try:
            super()._create_input(names)
        except duckdb.Error as error:
            raise self._read_error(self._source, error) from None

    def _scan_distinct(self) -> None:
        """The one scan, encoding the QIs it can in the scan (``duckdb_codes.distinct_query``):
        text columns whose leaves ``list_position`` finds cheaply (the rule the streamed release
        follows, ``duckdb_codes.list_lookup``), and whose leaves are distinct."""
        relation, params = self._source_relation(self._source)
        csv = self._source.kind == "csv"
        self._coded = [codes.list_lookup(len(h.labels[0]), self._types.get(q) == "VARCHAR", csv)
                       and len(set(h.labels[0])) == len(h.labels[0]) for q, h in zip(self._qi_names, self._hierarchies)]
        query, bound = codes.distinct_query(relation, self._qi_names,
                                            [h.labels[0] if coded else None for coded, h in zip(self._coded, self._hierarchies)],
                                            self._sensitives)
        self._mode(False, 0)
        try:
            self._distinct_rows = int(self.run(f"CREATE TEMPORARY TABLE {self.quoted(c.DISTINCT)} AS {query}",
                                               {**params, **bound})[0][0])
        except duckdb.Error as error:
            raise self._read_error(self._source, error) from None

    def _distinct_classes(self) -> int:
        """Through the codes the scan found and the ENUMs of the leaves of the other QIs
        (``duckdb_codes.py``); through the label tables if an ENUM would not hold every leaf
        at its code. When the scan encoded every QI and grouped nothing else, its table holds
        the classes already: ``sqlanon_classes`` is a view of it (``duckdb_codes.classes_view``)."""
        dimensions = len(self._qi_names)
        if all(self._coded) and not self._sensitives and "lnx" not in self._needs:
            self.run(codes.classes_view(dimensions))
            return self._distinct_rows  # as many as the view's, unless a row fell out (prepare then refuses)
        enums = self._ensure_enums([j for j, coded in enumerate(self._coded) if not coded])
        if not enums:
            self._ensure_hierarchies()
        return self._create_table_as(c.CLASSES, codes.classes_query(dimensions, len(self._sensitives), "lnx" in self._needs,
                                                                    self._coded, enums))

    def _ensure_enums(self, qis: Sequence[int]) -> bool:
        """The ENUMs of QIs ``qis``' leaves, each created once, when first read (the class
        table reads those of the QIs the scan did not encode, the streamed release those it
        does not find by list_position; from Parquet ADULT's nine QIs need none); True when
        every one holds every leaf at its code."""
        missing = [j for j in dict.fromkeys(qis) if j not in self._enums]
        if missing:
            self._mode(False, 0)
            leaves = {j: list(self._hierarchies[j].labels[0]) for j in missing}
            for j in missing:
                self.run(codes.enum_query(j), {"leaves": leaves[j]})
            found = self.run(codes.enum_check(missing), {f"leaves_{j}": leaves[j] for j in missing})[0]
            self._enums.update((j, bool(ok)) for j, ok in zip(missing, found))
        return all(self._enums[j] for j in qis)

    def _check_coverage(self, j: int, column: str, hierarchy, name: str, source: str) -> None:
        """A QI the scan encoded has no text in ``sqlanon_distinct``: its values no leaf holds
        are counted over the input again (only when rows fell out of the encoding)."""
        if source != c.DISTINCT or not self._coded[j]:
            return super()._check_coverage(j, column, hierarchy, name, source)
        relation, params = self._source_relation(self._source)
        value = c.as_text(c.col(name)).sql(DIALECT)
        found = self.run(f"SELECT {value} AS value, COUNT(*) AS n FROM {relation} "
                         f"WHERE NOT list_contains($leaves, {value}) GROUP BY 1",
                         {**params, "leaves": list(hierarchy.labels[0])})
        missing = sorted(((v, int(n)) for v, n in found), key=lambda r: (-r[1], r[0]))
        if missing:
            raise missing_values_error(name, self._source.describe(), missing, hierarchy)

    def _create_wide(self, population: bool) -> None:
        """Through the level lists (``duckdb_codes.py``), no join."""
        self._drop_second()  # its copy of the wide table is stale
        query, params = codes.wide_query(self._hierarchies, "leaves" in self._needs, len(self._sensitives),
                                         "lnx" in self._needs, population)
        if self.lookup == "wide":  # the lean checks group two paired QIs by one key (compiler.with_pairs)
            sizes = [[len(labels) for labels in h.labels] for h in self._hierarchies]
            self._pairs = c.pairable(sizes)
            query = c.with_pairs(query, sizes, self._pairs)
        self._mode(False, 0)
        self.run(c.create_temp_table(c.WIDE, query), params)
        self._templates.clear()  # they name the pairs

    # -- source ----------------------------------------------------------------------------
    def _source_relation(self, source: Source) -> tuple[str, dict]:
        """SQL of the source as a relation, with its parameters."""
        kind = source.kind
        if kind == "csv":
            return csv_relation(source)
        if kind == "parquet":
            return "read_parquet($path)", {"path": source.path}
        if kind == "duckdb":
            name = exp.Table(this=c.ident(source.table or ""), db=c.ident("main"), catalog=c.ident(SOURCE_DB))
            return name.sql(DIALECT), {}
        if kind == "postgres":
            name = table_name(source.table, "input.table")
            name.set("db", name.args.get("db") or c.ident("public"))
            name.set("catalog", c.ident(SOURCE_DB))
            return name.sql(DIALECT), {}
        return "sqlanon_arrow", {}

    def open(self, source: Source) -> list[str]:
        """Attach or register the source and return its column names (reads no rows)."""
        kind = source.kind
        if kind in ("csv", "duckdb") and not os.path.isfile(source.path):
            raise DataError(f"input file not found: {source.path} (paths in a job file are relative to the job file)")
        if kind == "parquet" and not glob.glob(source.path):
            raise DataError(f"no Parquet file matches {source.path}")
        if kind == "csv":
            check_header(source)
        try:
            if kind == "postgres":
                self._attach_postgres(source)
            elif kind == "duckdb":
                if not source.table:
                    raise DataError(f"input {source.path} is a DuckDB file: give input.table")
                self.con.execute(f"ATTACH {literal(source.path)} AS {c.ident(SOURCE_DB).sql(DIALECT)} (READ_ONLY)").fetchall()
                tables = [r[0] for r in self.con.execute(
                    "SELECT table_name FROM duckdb_tables() WHERE database_name = $db", {"db": SOURCE_DB}
                ).fetchall()]
                if source.table not in tables:
                    raise DataError(
                        f"input {source.path} has no table '{source.table}'; tables: {', '.join(sorted(tables)) or 'none'}"
                    )
            elif kind == "arrow":
                if not isinstance(source.arrow, pa.Table):
                    raise DataError("the in-memory input must be a pyarrow.Table")
                self.con.register("sqlanon_arrow", source.arrow)
            relation, params = self._source_relation(source)
            cursor = self.con.execute(f"SELECT * FROM {relation} LIMIT 0", params)
            description = cursor.description
            cursor.fetchall()
        except duckdb.Error as error:
            raise self._read_error(source, error) from None
        self._source = source
        self._types = {d[0]: str(d[1]) for d in description}  # the release reads text columns by list_position
        return [d[0] for d in description]

    def _read_error(self, source: Source, error: Exception) -> DataError:
        return read_error(source, error)

    def _attach_postgres(self, source: Source) -> None:
        """A PostgreSQL table read through DuckDB's postgres extension (local compute). The
        DuckDB wheel does not bundle it; where it cannot be loaded or installed, say so and
        name the engine that runs inside PostgreSQL instead."""
        try:
            try:
                self.con.execute("LOAD postgres").fetchall()
            except duckdb.Error:
                self.con.execute("INSTALL postgres").fetchall()
                self.con.execute("LOAD postgres").fetchall()
        except duckdb.Error as error:
            raise ConfigError(
                f"the duckdb engine cannot read {source.describe()}: DuckDB {duckdb.__version__} has no postgres "
                f"extension here ({first_line(error)}); use [engine] name = \"postgres\" to anonymize inside "
                "PostgreSQL, or export the table to Parquet") from None
        self.con.execute(f"ATTACH {literal(self.url or '')} AS {c.ident(SOURCE_DB).sql(DIALECT)} "
                         "(TYPE postgres, READ_ONLY)").fetchall()

    # -- research subset (delta-presence) ----------------------------------------------------
    def _prepare_subset(self, subset: ResearchSubset) -> exp.Expression:
        """Check the subset's column (or identifier file) on the data; return the predicate
        over ``sqlanon_input`` (alias ``s``) that marks its rows."""
        column = c.ident(subset.input_column).sql(DIALECT)
        if subset.column is not None:
            kind = self.run(f"SELECT typeof({column}) FROM {c.INPUT} LIMIT 1")[0][0]
            fix = "give a column of true/false values (or use subset_file with key)"
            if kind not in ("BOOLEAN", "VARCHAR"):
                raise ConfigError(f"delta-presence: the subset column '{subset.column}' is {kind}, not boolean: {fix}")
            bad = self.run(f"SELECT DISTINCT {column} FROM {c.INPUT} WHERE TRY_CAST({column} AS BOOLEAN) IS NULL "
                           f"ORDER BY 1 NULLS FIRST LIMIT {_SHOW}")
            if bad:
                shown = cuts(v for (v,) in bad)
                raise ConfigError(f"delta-presence: the subset column '{subset.column}' holds values that are not "
                                  f"true or false, e.g. {shown}: {fix}")
            return subset_condition(subset, "s")
        if not os.path.isfile(subset.file):
            raise ConfigError(f"delta-presence: subset_file not found: {subset.file} (paths in a job file are "
                              "relative to the job file)")
        reader = "read_parquet($path)" if subset.file.lower().endswith(".parquet") else \
            "read_csv($path, header = true, all_varchar = true)"
        try:
            cursor = self.con.execute(f"SELECT * FROM {reader} LIMIT 0", {"path": subset.file})
            found = [d[0] for d in cursor.description]
            cursor.fetchall()
        except duckdb.Error as error:
            raise ConfigError(f"delta-presence: cannot read subset_file {subset.file}: {first_line(error)}") from None
        if subset.key not in found:
            raise ConfigError(f"delta-presence: subset_file {subset.file} has no column '{subset.key}' (the key); "
                              f"its columns are: {found}")
        key = c.ident(subset.key).sql(DIALECT)
        self.run(f"CREATE OR REPLACE TEMP TABLE {c.ident(IDS).sql(DIALECT)} AS SELECT DISTINCT "
                 f"{c.as_text(c.col(subset.key)).sql(DIALECT)} AS key FROM {reader} WHERE {key} IS NOT NULL",
                 {"path": subset.file})
        value = c.as_text(c.col(subset.key, "s")).sql(DIALECT)
        ids = c.ident(IDS).sql(DIALECT)
        duplicates = self.run(f"SELECT {value} FROM {c.INPUT} AS s WHERE {value} IN (SELECT key FROM {ids}) "
                              f"GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY 1 LIMIT {_SHOW}")
        if duplicates:
            raise ConfigError(f"delta-presence: identifiers of subset_file name more than one row of the input's key "
                              f"column '{subset.key}' (e.g. {cuts(v for (v,) in duplicates)}): each "
                              "identifier must name one row; use a key that is unique in the input")
        missing = self.run(f"SELECT key FROM {ids} WHERE key NOT IN (SELECT {value} FROM {c.INPUT} AS s) "
                           "ORDER BY key")
        if missing:
            raise ConfigError(
                f"delta-presence: {len(missing)} identifier(s) of subset_file {subset.file} are not in the input's "
                f"column '{subset.key}', e.g. {cuts(v for (v,) in missing[:_SHOW])}: the research subset "
                "must be part of the population (remove them, or use the whole population as input)")
        return subset_condition(subset, "s")

    def _mode(self, lean: bool, rows: int) -> None:
        """DuckDB settings for the next query. A lean check (one GROUP BY, no join) spends
        more time in the optimizer than in executing, and a table of one row group (122,880
        rows) gives a second thread nothing to scan; so those run with the optimizer off and
        on one thread. Anything with joins or window functions runs as configured. A SET costs
        about 0.25 ms, so only changes are sent."""
        wanted = (lean, 1 if lean and rows < _ROW_GROUP else self._threads)
        if wanted == self._current_mode:
            return
        optimizer, threads = wanted
        if optimizer != self._current_mode[0]:
            self.con.execute(f"SET enable_optimizer = {'false' if lean else 'true'}").fetchall()
        if threads != self._current_mode[1]:
            self.con.execute(f"SET threads = {int(threads)}").fetchall()
        self._current_mode = wanted

    # -- output ------------------------------------------------------------------------------
    def write(self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
              output: Output, target: str) -> None:
        """The released table as one streamed projection of the input (``duckdb_release.py``);
        with a research subset, or failing classes too many for a bitstring, through the row
        tables and the sorted query as before."""
        csv = self._source.kind == "csv"
        leaves = [h.labels[0] if codes.list_lookup(len(h.labels[0]), self._types.get(q) == "VARCHAR", csv) else None
                  for q, h in zip(self._qi_names, self._hierarchies)]
        # a list is searched by position: its leaves must be distinct, as the ENUMs' must be
        if (self._subset is None and all(len(set(found)) == len(found) for found in leaves if found is not None)
                and self._ensure_enums([j for j, found in enumerate(leaves) if found is None])):
            chosen = self._release_plan(node, keep, params)
            if chosen is not None:
                relation, source_params = self._source_relation(self._source)
                enums = output.kind == "parquet"  # a DuckDB table must not hold a temporary type
                if enums:
                    for column in columns:
                        if column.kind == "qi":
                            self.run(release.output_type_query(column.index),
                                     {"values": release.output_values(chosen, column.index, MASK)})
                sql, bound = release.release_query(relation, self._qi_names, self._passthrough, columns, chosen, MASK,
                                                   output.suppressed == "drop", enums, leaves)
                self._mode(False, 0)
                self.queries += 1
                try:
                    self._write(sql, {**source_params, **bound}, output, target, streamed=True)
                finally:
                    if chosen.keys is not None:
                        self.con.execute(f"RESET VARIABLE {release.SUPPRESSED}").fetchall()
                self.rows_scanned += self._rows
                return
        super().write(node, keep, params, columns, output, target)

    def _release_plan(self, node: Node, keep: KeepCondition, params: dict) -> release.Plan | None:
        """The lists and the bitstring of the failing classes for the streamed release; None
        when it cannot stream (see ``duckdb_release.py``)."""
        keys = c.class_keys(node)
        if self.kernel is not None:  # local checks: the kernel has the node's classes and verdicts
            classes = self.kernel.node_classes(node, keep, params)
            failing = list(zip(*(codes[~classes.kept].tolist() for codes in classes.codes)))
        else:
            self._ensure_wide()
            self._mode(False, 0)
            verdicts = c.verdict_query(node, keep(c.col("n")), self.lookup, self._figures(node, keep))
            failing = self.run(exp.select(*(c.col(k) for k in keys)).from_(verdicts.subquery(c.ident("v"))).where(
                exp.Not(this=exp.Paren(this=c.col("__kept")))), params)
        chosen = release.plan(self._hierarchies, node, [tuple(int(x) for x in row) for row in failing])
        if chosen is not None and chosen.keys is not None:
            self.run(release.suppressed_query(chosen.bits), {"keys": chosen.suppressed})
        return chosen

    def _write(self, sql: str, params: dict, output: Output, target: str, streamed: bool = False) -> None:
        """``streamed``: ``sql`` reads the input again (``duckdb_release.py``), so a value the
        ENUM of its leaves lacks means the input changed since prepare read it."""
        try:
            with interruptible():
                self._write_file(sql, params, output, target)
        except duckdb.InterruptException:
            raise
        except (duckdb.ConversionException, duckdb.InvalidInputException) as error:
            unknown = str(error).find(codes.UNKNOWN)
            if not streamed or (unknown < 0 and not isinstance(error, duckdb.ConversionException)):
                raise OutputError(f"cannot write output {output.path}: {first_line(error)}") from None
            found = re.search(r"string '(.*?)' to ", str(error), re.S)
            if unknown >= 0:
                text = str(error)[unknown + len(codes.UNKNOWN):].split("\n")[0]
                value = " (NULL)" if text == "NULL" else f" ({cut(text)})"
            else:
                value = f" ({cut(found.group(1))})" if found else ""
            raise DataError(f"input {self._source.describe()} changed while it was anonymized: it now holds a value"
                            f"{value} that is in none of the hierarchies' leaves it held before. Nothing was written; "
                            "run again when nothing writes to the input") from None
        except duckdb.Error as error:
            raise OutputError(f"cannot write output {output.path}: {first_line(error)}") from None

    def _write_file(self, sql: str, params: dict, output: Output, target: str) -> None:
        if output.kind == "parquet":
            self.con.execute(f"COPY ({sql}) TO {literal(target)} (FORMAT parquet)", params).fetchall()
        elif output.kind == "csv":
            self.con.execute(
                f"COPY ({sql}) TO {literal(target)} (FORMAT csv, HEADER true, DELIMITER {literal(output.delimiter)})",
                params,
            ).fetchall()
        else:
            self._write_duckdb(sql, params, output, target)

    def _write_duckdb(self, sql: str, params: dict, output: Output, target: str) -> None:
        """``target`` is a temporary table name in the output database; the caller renames."""
        alias = c.ident("sqlanon_out").sql(DIALECT)
        self.con.execute(f"ATTACH {literal(output.path)} AS {alias}").fetchall()
        try:
            name = exp.Table(this=c.ident(target), db=c.ident("main"), catalog=c.ident("sqlanon_out")).sql(DIALECT)
            self.con.execute(f"CREATE TABLE {name} AS {sql}", params).fetchall()
        finally:
            self.con.execute(f"DETACH {alias}").fetchall()

    def close(self) -> None:
        self._drop_second()
        self.con.close()

    # -- batches on two connections ------------------------------------------------------------
    def _batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        """Rows of lean checks: statements of ``_PIECE`` queries on two connections
        (``_pipeline``)."""
        if not self._splits(lean_rows, len(queries)):
            return super()._batch(queries, params, lean_rows)
        cuts = statements(len(queries), _PIECE, least=2)
        texts = (c.batch_query(queries[a:b], DIALECT, tags=range(a, b)) for a, b in cuts)
        with closing(self._pipeline(lean_rows, texts, params, rows=True)) as results:
            return [row for rows in results for row in rows]

    def _sizes_batch(self, nodes, render, read, params: dict, lean_rows: int):
        """Class sizes: statements of ``_PIECE`` nodes on two connections (``_pipeline``).
        This thread renders the next statement and reads each one's figures while the
        connections run the others: with a batch cut in two halves, one per connection,
        rendering first and reading and recording last left a core idle for a fifth of a
        batch (bench/sql_checks.py)."""
        if not self._splits(lean_rows, len(nodes)):
            return super()._sizes_batch(nodes, render, read, params, lean_rows)
        cuts = statements(len(nodes), _PIECE, least=2)
        texts = (self._sizes_batch_query(nodes[a:b], render) for a, b in cuts)
        # closing: an error in ``read`` stops the statements still running at once
        with closing(self._pipeline(lean_rows, texts, params)) as results:
            return [stats for (a, b), found in zip(cuts, results) for stats in read(found, b - a)]

    def _splits(self, lean_rows: int | None, count: int) -> bool:
        """A batch of lean checks over a class table of one row group runs on one thread
        (``_mode``), so the second core has nothing to do: such a batch, of four nodes or
        more, runs on two connections when DuckDB has two threads."""
        return lean_rows is not None and lean_rows < _ROW_GROUP and self._threads >= 2 and count >= 4

    def _pipeline(self, lean_rows: int, queries: Iterator[str], params: dict, rows: bool = False):
        """Yield the result of each of ``queries`` in order (arrays; ``rows``: a list of
        tuples). Two threads run them, each on whichever of the two connections is free, so
        one that finishes early takes the next statement instead of waiting for its turn.
        This thread renders the next statements (``queries`` is lazy, ``_AHEAD`` in flight)
        while the ones before run, and reads each result as it comes. DuckDB's fixed cost
        per grouped part (binding, planning, a hash table: ~0.3 ms even over ten rows,
        ``bench/sql_checks.py --floor``) is what a batch pays per node, so what two
        connections buy is the second core. Counters are this thread's."""
        self._mode(True, lean_rows)  # DuckDB's settings are the database's: both connections run lean
        connections = (self.con, self._second_connection())
        if self._pieces is None:
            self._pieces = ThreadPoolExecutor(2, thread_name_prefix="sqlanon-batch")
            for con in connections:
                self._idle.put(con)
        pending: deque = deque()

        def submit() -> None:
            sql = next(queries, None)
            if sql is not None:
                pending.append(self._pieces.submit(_fetch_piece, self._idle, sql, params, rows))

        try:
            for _ in range(_AHEAD):
                submit()
            while pending:
                found, fetched = pending[0].result()  # left in ``pending`` until done, for the cleanup below
                pending.popleft()
                submit()
                self.queries += 1
                self.bytes_fetched += fetched
                yield found
        except BaseException:
            for con in connections:
                con.interrupt()  # an interrupted or failed batch leaves nothing running
            for future in pending:
                future.cancel() or future.exception()
            raise

    def _second_connection(self) -> duckdb.DuckDBPyConnection:
        """A second connection to this database holding its own copy of the wide class table
        (a temp table is its connection's only), made at the first batch that uses it."""
        if self._second is None:
            second = self.con.cursor()
            sqlanon_wide_copy = self.con.sql(f"SELECT * FROM {self._wide_token}").to_arrow_table()  # noqa: F841
            second.execute(f"CREATE TEMP TABLE {self._wide_token} AS SELECT * FROM sqlanon_wide_copy").fetchall()
            self._second = second
        return self._second

    def _drop_second(self) -> None:
        if self._pieces is not None:
            self._pieces.shutdown()
            self._pieces, self._idle = None, queue.SimpleQueue()
        if self._second is not None:
            self._second.close()
            self._second = None


_ROW_GROUP = 122_880  # rows of one DuckDB row group: a smaller table is scanned by one thread
_PIECE = 16  # nodes a statement of a batch on two connections holds at most (_pipeline)
_AHEAD = 4  # statements of a batch handed to the connections before the first one is read


def _fetch_piece(idle: queue.SimpleQueue, sql: str, params: dict, rows: bool) -> tuple[object, int]:
    """A statement of a batch on an idle connection, from a thread of the batch: its result
    (arrays; ``rows``: tuples) and the text length of what it fetched (counters stay the
    caller's). Two threads share the two connections, so one is idle when a thread starts."""
    con = idle.get()
    try:
        with interruptible():
            if rows:
                found = con.execute(sql, params).fetchall()
                return found, fetched_bytes(found)
            arrays = con.execute(sql, params).fetchnumpy()
            return arrays, text_bytes(arrays)
    finally:
        idle.put(con)


@contextmanager
def interruptible():
    """DuckDB answers Ctrl-C by cancelling the query and raising InterruptException or, in
    DuckDB 2, RuntimeError('Query interrupted'); either becomes KeyboardInterrupt here so the
    caller's cleanup and exit code (130) apply."""
    try:
        yield
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except RuntimeError as error:
        if "interrupted" in str(error).lower():
            raise KeyboardInterrupt from None
        raise
