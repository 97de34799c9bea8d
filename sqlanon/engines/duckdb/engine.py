"""The DuckDB engine: encodes, compresses and checks inside an embedded DuckDB database.

Everything dialect-neutral lives in ``SqlEngine`` (``engines/sql/engine.py``); here and in the
``duckdb_*.py`` modules are DuckDB's connection settings and lean mode, its readers (CSV,
Parquet, DuckDB files, Arrow), COPY and ATTACH for the output, the research subset's checks
and identifier files, and batches on two connections.
"""

from __future__ import annotations

import queue
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import compress

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon import sql as c
from sqlanon.engines.duckdb import codes
from sqlanon.engines.duckdb.batches import ROW_GROUP, DuckDBBatches
from sqlanon.engines.duckdb.connection import DIALECT, interruptible, literal
from sqlanon.engines.duckdb.sources import DuckDBSources
from sqlanon.engines.duckdb.subset import DuckDBSubset
from sqlanon.engines.duckdb.writing import DuckDBWriting
from sqlanon.engines.profiles import PROFILES
from sqlanon.engines.sql.engine import SqlEngine
from sqlanon.engines.mask_values import refuse_uncovered


class DuckDBEngine(DuckDBSources, DuckDBSubset, DuckDBWriting, DuckDBBatches, SqlEngine):
    """Its parts live by what they do: the readers (``sources.py``), the research subset
    (``subset.py``), the output (``writing.py``) and batches on two connections
    (``batches.py``); here are the connection, its lean mode and the preparation's
    DuckDB ways (the one scan, the codes without joins)."""

    name = "duckdb"
    version = duckdb.__version__
    dialect = DIALECT
    capabilities = PROFILES["duckdb"].capabilities
    scan_once = True  # prepare groups the input in one scan; write streams it (duckdb_release.py)
    sizes_in_process = True  # embedded: fetching a node's class sizes is a copy in memory
    # Snapshots stay off by default (SqlEngine.snapshot_defaults): measured on ADULT and
    # ADULT x40, materializing costs more than reading from it saves.

    def __init__(
        self,
        database: str = ":memory:",
        lookup: str = "wide",
        snapshots: SnapshotSettings | None = None,
        memory_limit: str | None = None,
        temp_directory: str | None = None,
        threads: int | None = None,
        url: str | None = None,
    ):
        self.con = duckdb.connect(database)
        self.url = url  # the PostgreSQL database of a PostgreSQL input table
        for key, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory), ("threads", threads)):
            if value is not None:
                self.con.execute(f"SET {key} = {literal(str(value))}").fetchall()
        self._threads = int(self.con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        self._current_mode = (False, self._threads)  # (lean: optimizer off, threads)
        self._enums: dict[int, bool] = {}  # per QI: its leaves' ENUM exists; whether it holds each at its code
        self._held: dict[
            int, list[int]
        ] = {}  # per QI whose ENUM holds the held leaves only: their codes (_enum_leaves)
        self._types: dict[str, str] = {}  # the source's column types, by name
        self._coded: list[bool] = []  # per QI: prepare's scan found its leaf codes (_scan_distinct)
        self._second: duckdb.DuckDBPyConnection | None = None  # batches run here too (_pipeline)
        self._pieces: ThreadPoolExecutor | None = None  # the two threads of a pipelined batch (_pipeline)
        self._idle: queue.SimpleQueue = queue.SimpleQueue()  # the connections no piece is running on
        self._distinct_rows = 0  # the groups of that scan (sqlanon_distinct)
        super().__init__(lookup, snapshots)

    # -- hooks (see engines/sql/engine.py) ------------------------------------------------------------
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

    def _create_table_as(
        self, name: str, query: exp.Expression, replace: bool = False, lean_rows: int | None = None
    ) -> int:
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
        """The one scan, encoding the QIs it can in the scan (``codes.distinct_query``):
        text columns whose leaves ``list_position`` finds cheaply (the rule the streamed release
        follows, ``codes.list_lookup``), and whose leaves are distinct."""
        relation, params = self._source_relation(self._source)
        csv = self._source.kind == "csv"
        self._coded = [
            codes.list_lookup(len(h.labels[0]), self._types.get(q) == "VARCHAR", csv)
            and len(set(h.labels[0])) == len(h.labels[0])
            for q, h in zip(self._qi_names, self._hierarchies)
        ]
        query, bound = codes.distinct_query(
            relation,
            self._qi_names,
            [h.labels[0] if coded else None for coded, h in zip(self._coded, self._hierarchies)],
            self._sensitives,
        )
        self._mode(False, 0)
        try:
            self._distinct_rows = int(
                self.run(f"CREATE TEMPORARY TABLE {self.quoted(c.DISTINCT)} AS {query}", {**params, **bound})[0][0]
            )
        except duckdb.Error as error:
            raise self._read_error(self._source, error) from None

    def _distinct_classes(self) -> int:
        """Through the codes the scan found and the ENUMs of the leaves of the other QIs
        (``codes.py``); through the label tables if an ENUM would not hold every leaf
        at its code. When the scan encoded every QI and grouped nothing else, its table holds
        the classes already: ``sqlanon_classes`` is a view of it (``codes.classes_view``)."""
        dimensions = len(self._qi_names)
        if all(self._coded) and not self._sensitives and Need.LNX not in self._needs:
            self.run(codes.classes_view(dimensions))
            return self._distinct_rows  # as many as the view's, unless a row fell out (prepare then refuses)
        enums = self._ensure_enums([j for j, coded in enumerate(self._coded) if not coded])
        if not enums:
            self._ensure_hierarchies()
        held = [enums and j in self._held for j in range(dimensions)]
        query = codes.classes_query(
            dimensions, len(self._sensitives), Need.LNX in self._needs, self._coded, enums, held
        )
        if not any(held):
            return self._create_table_as(c.CLASSES, query)
        return int(
            self.run(
                c.create_temp_table(c.CLASSES, query),
                {codes.held_param(j): self._held[j] for j in range(dimensions) if held[j]},
            )[0][0]
        )

    def _ensure_enums(self, qis: Sequence[int]) -> bool:
        """The ENUMs of QIs ``qis``' leaves, each created once, when first read (the class
        table reads those of the QIs the scan did not encode, the streamed release those it
        does not find by list_position; from Parquet ADULT's nine QIs need none); True when
        every one holds every leaf at its code."""
        missing = [j for j in dict.fromkeys(qis) if j not in self._enums]
        if missing:
            self._mode(False, 0)
            leaves = {j: self._enum_leaves(j) for j in missing}
            for j in missing:
                self.run(codes.enum_query(j), {"leaves": leaves[j]})
            found = self.run(codes.enum_check(missing), {f"leaves_{j}": leaves[j] for j in missing})[0]
            self._enums.update((j, bool(ok)) for j, ok in zip(missing, found))
        return all(self._enums[j] for j in qis)

    def _enum_leaves(self, j: int) -> list[str]:
        """The labels of QI j's ENUM: its leaves in code order, or, for a hierarchy far larger
        than the input (``codes.held_only``), only the leaves the scan found in the input,
        their codes kept in ``_held`` (an ENUM position indexes them). Finding them reads each
        leaf once at C speed (a set of the input's texts), not a million labels bound to DuckDB."""
        labels = self._hierarchies[j].labels[0]
        if not self._distinct_rows or self._coded[j] or not codes.held_only(len(labels), self._distinct_rows):
            return list(labels)
        text = c.col(c.distinct_text(j))
        found = {row[0] for row in self.run(exp.select(text).distinct().from_(c.table(c.DISTINCT)))}
        held = self._held[j] = list(compress(range(len(labels)), map(found.__contains__, labels)))
        return [labels[v] for v in held]

    def _check_coverage(self, j: int, column: str, hierarchy, name: str, source: str) -> None:
        """A QI the scan encoded has no text in ``sqlanon_distinct``: its values no leaf holds
        are counted over the input again (only when rows fell out of the encoding)."""
        if source != c.DISTINCT or not self._coded[j]:
            return super()._check_coverage(j, column, hierarchy, name, source)
        relation, params = self._source_relation(self._source)
        value = c.as_text(c.col(name)).sql(DIALECT)
        found = self.run(
            f"SELECT {value} AS value, COUNT(*) AS n FROM {relation} "
            f"WHERE NOT list_contains($leaves, {value}) GROUP BY 1",
            {**params, "leaves": list(hierarchy.labels[0])},
        )
        refuse_uncovered(name, self._source, found, hierarchy)

    def _create_wide(self, population: bool) -> None:
        """Through the level lists (``codes.py``), no join."""
        self._drop_second()  # its copy of the wide table is stale
        query, params = codes.wide_query(
            self._hierarchies, Need.LEAVES in self._needs, len(self._sensitives), Need.LNX in self._needs, population
        )
        if self.lookup == "wide":  # the lean checks group two paired QIs by one key (compiler.with_pairs)
            sizes = [[len(labels) for labels in h.labels] for h in self._hierarchies]
            self._pairs = c.pairable(sizes)
            query = c.with_pairs(query, sizes, self._pairs)
        self._mode(False, 0)
        self.run(c.create_temp_table(c.WIDE, query), params)

    def _mode(self, lean: bool, rows: int) -> None:
        """DuckDB settings for the next query. A lean check (one GROUP BY, no join) spends
        more time in the optimizer than in executing, and a table of one row group (122,880
        rows) gives a second thread nothing to scan; so those run with the optimizer off and
        on one thread. Anything with joins or window functions runs as configured. A SET costs
        about 0.25 ms, so only changes are sent."""
        wanted = (lean, 1 if lean and rows < ROW_GROUP else self._threads)
        if wanted == self._current_mode:
            return
        optimizer, threads = wanted
        if optimizer != self._current_mode[0]:
            self.con.execute(f"SET enable_optimizer = {'false' if lean else 'true'}").fetchall()
        if threads != self._current_mode[1]:
            self.con.execute(f"SET threads = {int(threads)}").fetchall()
        self._current_mode = wanted

    def close(self) -> None:
        self._drop_second()
        self.con.close()
