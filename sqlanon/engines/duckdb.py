"""The DuckDB engine: encodes, compresses and checks inside an embedded DuckDB database."""

from __future__ import annotations

import csv
import glob
import os
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon import compiler as c
from sqlanon.config import Output, Source
from sqlanon.engines.base import KeepCondition, OutputColumn, PreparedData
from sqlanon.errors import ConfigError, DataError, HierarchyError, OutputError
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.population import IDS, ResearchSubset, subset_condition
from sqlanon.population import classes_query as population_classes_query
from sqlanon.snapshots import Snapshot, Snapshots, SnapshotSettings
from sqlanon.stats import ClassStats

DIALECT = "duckdb"
_SHOW = 5
SOURCE_DB = "sqlanon_source"


def literal(value: str) -> str:
    """A string literal for the few statements that take no parameters (ATTACH, COPY TO)."""
    return exp.Literal.string(value).sql(DIALECT)


@dataclass(frozen=True)
class _Stored:
    """A snapshot's temp table and its row count (rows scanned when a check reads it)."""

    name: str
    rows: int


class DuckDBEngine:
    name = "duckdb"
    version = duckdb.__version__

    def __init__(self, database: str = ":memory:", lookup: str = "wide", snapshots: SnapshotSettings | None = None,
                 memory_limit: str | None = None, temp_directory: str | None = None, threads: int | None = None):
        self.con = duckdb.connect(database)
        for key, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory), ("threads", threads)):
            if value is not None:
                self.con.execute(f"SET {key} = {literal(str(value))}").fetchall()
        self._threads = int(self.con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        self._current_mode = (False, self._threads)  # (lean: optimizer off, threads)
        self.lookup = lookup
        # Measured on ADULT and ADULT x40: materializing costs more than reading from it saves.
        self.settings = snapshots = (snapshots or SnapshotSettings()).resolved(rollup=False, history=False)
        self.snapshots = Snapshots(snapshots, 0, self._release_snapshot)
        self._free: list[str] = []  # names of released snapshot tables, for reuse
        self._pending = None
        self._snapshot_serial = 0
        self._wide_token = c.ident(c.WIDE).sql(DIALECT)
        self.rows_scanned = 0
        self.queries = 0
        self._base_classes = 0
        self._templates: dict[tuple, c.NodeTemplate] = {}
        self._sensitives: list[str] = []
        self._subset: ResearchSubset | None = None

    # -- execution -------------------------------------------------------------------------
    def run(self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None) -> list[tuple]:
        """Execute and fetch everything (DuckDB 2 refuses new work while a result is open).
        ``lean_rows``: the query is a lean GROUP BY over a table of that many rows (see _mode)."""
        self._mode(lean_rows is not None, lean_rows or 0)
        sql = query if isinstance(query, str) else query.sql(DIALECT)
        self.queries += 1
        with interruptible():
            return self.con.execute(sql, params or {}).fetchall()

    # -- source ----------------------------------------------------------------------------
    def _source_relation(self, source: Source) -> tuple[str, dict]:
        """SQL of the source as a relation, with its parameters."""
        kind = source.kind
        if kind == "csv":
            return "read_csv($path, delim = $delim, header = true, all_varchar = true)", {
                "path": source.path,
                "delim": source.delimiter,
            }
        if kind == "parquet":
            return "read_parquet($path)", {"path": source.path}
        if kind == "duckdb":
            name = exp.Table(this=c.ident(source.table or ""), db=c.ident("main"), catalog=c.ident(SOURCE_DB))
            return name.sql(DIALECT), {}
        return "sqlanon_arrow", {}

    def open(self, source: Source) -> list[str]:
        """Attach or register the source and return its column names (reads no rows)."""
        kind = source.kind
        if kind in ("csv", "duckdb") and not os.path.isfile(source.path):
            raise DataError(f"input file not found: {source.path} (paths in a job file are relative to the job file)")
        if kind == "parquet" and not glob.glob(source.path):
            raise DataError(f"no Parquet file matches {source.path}")
        try:
            if kind == "duckdb":
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
        return [d[0] for d in description]

    @staticmethod
    def _read_error(source: Source, error: Exception) -> DataError:
        return read_error(source, error)

    def distinct_values(self, column: str) -> list[str]:
        """The distinct values of a column as text (NULL as ''), for hierarchy builders."""
        relation, params = self._source_relation(self._source)
        value = c.as_text(c.col(column)).sql(DIALECT)
        with interruptible():
            rows = self.con.execute(f"SELECT DISTINCT {value} FROM {relation}", params).fetchall()
        return sorted(r[0] for r in rows)

    # -- preparation -------------------------------------------------------------------------
    def prepare(self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str],
                needs: frozenset[str] = frozenset(), sensitives: Sequence[str] = (),
                subset: ResearchSubset | None = None) -> PreparedData:
        """``sensitives``: attributes whose per-class histograms the models read; only then
        do the class tables carry their codes. ``subset``: the research subset of
        delta-presence; only its rows are encoded and released, and the class tables carry
        the population count ``pop`` (see ``sqlanon/population.py``)."""
        self._sensitives = list(sensitives)
        self._subset = subset
        extra = [subset.input_column] if subset is not None else []
        names = list(dict.fromkeys([name for name, _ in qis] + list(passthrough) + self._sensitives + extra))
        self._qi_names = [name for name, _ in qis]
        relation, params = self._source_relation(self._source)
        select = ", ".join(c.ident(n).sql(DIALECT) for n in names)
        try:
            self.con.execute(f"CREATE TEMP TABLE {c.INPUT} AS SELECT {select} FROM {relation}", params).fetchall()
        except duckdb.Error as error:
            raise self._read_error(self._source, error) from None
        rows = self.con.execute(f"SELECT COUNT(*) FROM {c.INPUT}").fetchall()[0][0]
        if rows == 0:
            raise DataError(f"input {self._source.describe()} has no rows: there is nothing to anonymize")
        self.rows_scanned += rows
        for j, (name, hierarchy) in enumerate(qis):
            self._store_hierarchy(j, hierarchy)
            self._check_coverage(j, name)
        population, member = rows, None
        if subset is not None:
            member = self._prepare_subset(subset)
            rows = self.run(exp.select(exp.Count(this=exp.Star())).from_(c.table(c.INPUT, "s")).where(member.copy()))[0][0]
            if rows == 0:
                raise ConfigError(f"delta-presence: the research subset ({subset.describe()}) has no row of the input: "
                                  "there is nothing to release")
        for i, name in enumerate(self._sensitives):
            self._store_sensitive(i, name, rows, member)
        encode = c.encode_query([n for n, _ in qis], passthrough, self._sensitives)
        self.run(c.create_temp_table(c.DATA, encode if member is None else encode.where(member)))
        if subset is None:
            classes = c.base_classes_query(len(qis), len(self._sensitives), "lnx" in needs)
        else:
            classes = population_classes_query([n for n, _ in qis], len(self._sensitives), "lnx" in needs)
        self.run(c.create_temp_table(c.CLASSES, classes))
        self.rows_scanned += population
        self._base_classes = self.run(f"SELECT COUNT(*) FROM {c.CLASSES}")[0][0]
        if self.lookup == "wide":
            wide = c.wide_query([len(h.labels) - 1 for _, h in qis], "leaves" in needs, len(self._sensitives), "lnx" in needs,
                                [[len(labels) for labels in h.labels] for _, h in qis], population=subset is not None)
            self.run(c.create_temp_table(c.WIDE, wide))
        counts = []
        for j, (_, hierarchy) in enumerate(qis):
            column = [0] * len(hierarchy.codes)
            query = exp.select(c.col(c.qi(j)), exp.Sum(this=c.col("n"))).from_(c.table(c.CLASSES)).group_by(c.col(c.qi(j)))
            for code, n in self.run(query):
                column[code] = int(n)
            counts.append(tuple(column))
            self.rows_scanned += self._base_classes
        self._tops = [len(h.labels) - 1 for _, h in qis]
        self._needs = needs
        self.snapshots.rows = population  # the input's rows (the population's with a research subset)
        return PreparedData(rows=rows, base_classes=self._base_classes, value_counts=tuple(counts),
                            population=population if subset is not None else None)

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

    def _store_sensitive(self, i: int, name: str, rows: int, member: exp.Expression | None = None) -> None:
        """``sqlanon_sval_<i>``: the attribute's distinct values as text, sorted, with counts
        (with a research subset: the population's values, the subset's counts)."""
        value = c.as_text(c.col(name, "s"))
        count = exp.Count(this=exp.Star()) if member is None else exp.Sum(
            this=exp.Case(ifs=[exp.If(this=member.copy(), true=exp.Literal.number(1))], default=exp.Literal.number(0)))
        query = (exp.select(value.as_(c.ident("label")), count).from_(c.table(c.INPUT, "s"))
                 .group_by(value.copy()).order_by(c.col("label")))
        found = self.run(query)
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

    def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None:
        self._mode(False, 0)
        self.con.register("sqlanon_staging", data)
        create = "CREATE OR REPLACE TEMP TABLE" if replace else "CREATE TEMP TABLE"
        self.con.execute(f"{create} {c.ident(name).sql(DIALECT)} AS SELECT * FROM sqlanon_staging").fetchall()
        self.con.unregister("sqlanon_staging")

    def _check_coverage(self, j: int, name: str) -> None:
        missing = self.run(c.missing_values_query(j, name))
        if not missing:
            return
        rows = sum(n for _, n in missing)
        shown = ", ".join("NULL/empty" if v == "" else repr(v) for v, _ in missing[:_SHOW])
        hint = " (map NULL and empty fields with a hierarchy row whose first field is empty, e.g. ';*')" if any(v == "" for v, _ in missing) else ""
        raise HierarchyError(
            f"column '{name}' of {self._source.describe()} has {len(missing)} value(s) missing from its "
            f"hierarchy ({rows} rows), e.g. {shown}. Add a row for each to the hierarchy file{hint}."
        )

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
                shown = ", ".join("NULL" if v is None else repr(v) for (v,) in bad)
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
            raise ConfigError(f"delta-presence: cannot read subset_file {subset.file}: {_first_line(error)}") from None
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
                              f"column '{subset.key}' (e.g. {', '.join(repr(v) for (v,) in duplicates)}): each "
                              "identifier must name one row; use a key that is unique in the input")
        missing = self.run(f"SELECT key FROM {ids} WHERE key NOT IN (SELECT {value} FROM {c.INPUT} AS s) "
                           "ORDER BY key")
        if missing:
            raise ConfigError(
                f"delta-presence: {len(missing)} identifier(s) of subset_file {subset.file} are not in the input's "
                f"column '{subset.key}', e.g. {', '.join(repr(v) for (v,) in missing[:_SHOW])}: the research subset "
                "must be part of the population (remove them, or use the whole population as input)")
        return subset_condition(subset, "s")

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

    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: frozenset[str]) -> ClassStats:
        with_leaves, uniques, lnx = "leaves" in needs, "uniques" in needs, "lnx" in needs
        sums = keep.stats_columns(len(node)) if hasattr(keep, "stats_columns") else {}
        start = self.snapshots.start(node)
        source = start.snapshot.handle if start.snapshot is not None else None
        # Sizes (and leaf counts) only, over the wide form: the lean query shape and mode.
        lean = (not sums and getattr(keep, "figures", None) is None and (source is not None or self.lookup == "wide")
                and self._subset is None)  # a research subset joins the population query (see _figures)
        if lean:
            query = self._node_query(("lean", with_leaves, uniques, getattr(keep, "signature", "")), node,
                                     lambda n, lookup: c.lean_stats_query(n, keep(c.col("n")), with_leaves, uniques), source)
        else:
            query = self._node_query(
                ("stats", with_leaves, uniques, lnx, getattr(keep, "signature", "")), node,
                lambda n, lookup: c.stats_query(n, keep(c.col("n")), with_leaves, self.settings.projection, lookup,
                                                self._figures(n, keep, lookup), uniques=uniques, sums=sums, lnx=lnx),
                source,
            )
        row = self.run(query, params, self._rows_of(source) if lean else None)[0]
        self.rows_scanned += self._rows_of(source)
        classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class = (
            int(x) if x is not None else None for x in row[:7]
        )
        rest = list(row[7:])
        leaves = tuple(int(x) for x in rest[:len(node)]) if with_leaves else None
        rest = rest[len(node):] if with_leaves else rest
        unique_count = int(rest.pop(0)) if uniques else None
        figures = {name: float(value) for name, value in zip(sums, rest)} if sums else None
        histograms = None
        if "suppressed_histograms" in needs:
            histograms = self._suppressed_histograms(node, keep, params, source) if suppressed else tuple(() for _ in node)
        # the kept classes' size frequencies (population uniqueness): a second query, over the base table
        sizes = self.class_sizes(node, keep, params) if "sizes" in needs else None
        self._pending = (node, source, classes)
        return ClassStats(classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, leaves, histograms, unique_count,
                          figures, min_class, sizes)

    def _mode(self, lean: bool, rows: int) -> None:
        """DuckDB settings for the next query. A lean check (one GROUP BY, no join) spends
        more time in the optimizer than in executing, and a table of one row group (122,880
        rows) gives a second thread nothing to scan; so those run with the optimizer off and
        on one thread. Anything with joins or window functions runs as configured. A SET costs
        about 0.25 ms, so only changes are sent."""
        wanted = (lean, 1 if lean and rows < 122_880 else self._threads)
        if wanted == self._current_mode:
            return
        optimizer, threads = wanted
        if optimizer != self._current_mode[0]:
            self.con.execute(f"SET enable_optimizer = {'false' if lean else 'true'}").fetchall()
        if threads != self._current_mode[1]:
            self.con.execute(f"SET threads = {int(threads)}").fetchall()
        self._current_mode = wanted

    # -- snapshots (the policy is sqlanon/snapshots.py; this engine stores them as temp tables)
    @property
    def rollups(self) -> int:
        return self.snapshots.rollups

    @property
    def snapshot_hits(self) -> int:
        return self.snapshots.hits

    def _rows_of(self, handle) -> int:
        return self._base_classes if handle is None else handle.rows

    def _materialize_node(self, node: Node, source, classes: int) -> Snapshot:
        """CREATE TEMP TABLE of the node's ``classes`` classes in the wide form, from ``source``
        (a snapshot's handle) or the base class table."""
        if self._free:  # a released table's name: CREATE OR REPLACE saves a DROP per check
            name = self._free.pop()
        else:
            self._snapshot_serial += 1
            name = f"sqlanon_snap_{self._snapshot_serial}"
        query = c.snapshot_query(node, self._tops, "leaves" in self._needs, len(self._sensitives), "lnx" in self._needs,
                                 source.name if source is not None else None, self.lookup, self._subset is not None)
        create = c.create_temp_table(name, query)
        create.set("replace", True)
        wide_form = source is not None or self.lookup == "wide"
        rows = self.run(create, lean_rows=self._rows_of(source) if wide_form else None)[0][0]
        self.rows_scanned += self._rows_of(source)
        return Snapshot(node, _Stored(name, int(rows)), classes)

    def checked(self, node: Node, anonymous: bool) -> None:
        """The checker's verdict on the node just computed. A temp table costs a query about
        as dear as the check, so the node's classes are materialized only now, and only when
        ``worth_keeping`` (non-anonymous and small); they become the roll-up source and, if
        the history wants them, a history entry."""
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != node:
            return  # answered without this engine computing it (a shared memo)
        _, source, classes = pending
        keep = self.snapshots.worth_keeping(node, classes, anonymous)
        self.snapshots.checked(self._materialize_node(node, source, classes) if keep else None, anonymous)

    def reset_snapshots(self) -> None:
        self._pending = None
        self.snapshots.clear()
        for name in self._free:
            self.run(f"DROP TABLE IF EXISTS {c.ident(name).sql(DIALECT)}")
        self._free.clear()

    def _release_snapshot(self, handle) -> None:
        self._free.append(handle.name)

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
        """The SQL of a node's check, as sent to DuckDB (pretty-printed)."""
        return c.stats_query(node, keep(c.col("n")), "leaves" in needs, self.settings.projection, self.lookup, self._figures(node, keep),
                             uniques="uniques" in needs).sql(DIALECT, pretty=True)

    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]:
        """Up to ``limit`` classes failing the models, smallest first: (labels..., size)."""
        query = c.failing_classes_query(node, keep(c.col("n", "cls")), self.lookup, self._figures(node, keep))
        return self.run(query, {**params, "limit": limit})

    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes), in SQL."""
        query = c.class_size_query(node, None if keep is None else keep(c.col("n")), self.settings.projection,
                                   self.lookup, self._figures(node, keep))
        return {int(size): int(count) for size, count in self.run(query, params)}

    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]:
        """Every class of a node with its size, the models' figures and its verdict, in code order."""
        self._mode(False, 0)
        cls = c.class_query(node, False, True, self.lookup, self._figures(node, keep)).subquery(c.ident("cls"))
        query = exp.select(exp.Star(), keep(c.col("n")).as_(c.ident("kept"))).from_(cls).order_by(*(c.col(k) for k in c.class_keys(node)))
        cursor = self.con.execute(query.sql(DIALECT), params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def _node_query(self, shape: tuple, node: Node, build, read=None) -> str | exp.Expression:
        """The SQL of a per-node query over the base class table or the snapshot ``read``.
        Whatever reads the wide form (the wide table, any snapshot) comes from a template
        rendered once per shape; only base checks in the join layout build a tree per node."""
        if read is None and self.lookup != "wide":
            return build(node, self.lookup)
        template = self._templates.get(shape)
        if template is None:
            template = self._templates[shape] = c.NodeTemplate(lambda n: build(n, "wide"), len(node), DIALECT)
        sql = template.render(node)
        return sql if read is None else sql.replace(self._wide_token, c.ident(read.name).sql(DIALECT))

    def class_table(self, label: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
        """The class table for an in-memory search, read once: leaf codes of each distinct QI
        combination (m, d), its rows (m,), and with ``label`` the label values and the rows of
        each combination per label value (m, L)."""
        self._mode(False, 0)
        dimensions = len(self._qi_names)
        query = c.labelled_classes_query(dimensions, label)
        with interruptible():
            result = self.con.sql(query.sql(DIALECT)).to_arrow_table()
        self.queries += 1
        self.rows_scanned += self.con.execute(f"SELECT COUNT(*) FROM {c.DATA}").fetchall()[0][0]
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
    def write(self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
              output: Output, target: str) -> None:
        """Write the released table to ``target`` (a temporary name chosen by the caller)."""
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
        params = {**params, "mask": "*"}
        sql = query.sql(DIALECT)
        with interruptible():
            self._write(sql, params, output, target)
        self.rows_scanned += self.con.execute(f"SELECT COUNT(*) FROM {c.DATA}").fetchall()[0][0]

    def _write(self, sql: str, params: dict, output: Output, target: str) -> None:
        try:
            if output.kind == "parquet":
                self.con.execute(f"COPY ({sql}) TO {literal(target)} (FORMAT parquet)", params).fetchall()
            elif output.kind == "csv":
                self.con.execute(
                    f"COPY ({sql}) TO {literal(target)} (FORMAT csv, HEADER true, DELIMITER {literal(output.delimiter)})",
                    params,
                ).fetchall()
            else:
                self._write_duckdb(sql, params, output, target)
        except duckdb.InterruptException:
            raise
        except duckdb.Error as error:
            raise OutputError(f"cannot write output {output.path}: {_first_line(error)}") from None

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
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


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


def read_error(source: Source, error: Exception) -> DataError:
    """The error for an unreadable input; for a CSV it names the line of the first ragged
    row, which neither DuckDB's sniffer nor pyarrow does."""
    if source.kind == "csv":
        ragged = first_ragged_row(source.path, source.delimiter)
        if ragged:
            line, found, expected = ragged
            return DataError(
                f"input {source.path}: line {line} has {found} fields, the header has {expected} "
                f"(delimiter {source.delimiter!r}). Fix the row or quote fields that contain the delimiter."
            )
    return DataError(f"cannot read input {source.describe()}: {_first_line(error)}")


def first_ragged_row(path: str, delimiter: str) -> tuple[int, int, int] | None:
    """(line number, fields, header fields) of the first row whose width differs, or None."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            header = next(reader, None)
            if header is None:
                return None
            for row in reader:
                if row and len(row) != len(header):
                    return reader.line_num, len(row), len(header)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0]
