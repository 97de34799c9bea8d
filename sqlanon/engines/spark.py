"""The Spark engine: encodes, compresses and checks with Spark SQL (pyspark, local or a cluster).

The compiler's queries are rendered for sqlglot's "spark" dialect and sent with named
parameter markers (``:k``) bound by ``spark.sql(query, args=...)``. Tables are temp views of
the engine's own SparkSession (``newSession``: several engines share one SparkContext without
seeing each other's views); the input, the encoded data, the class tables and snapshots are
cached (``persist``) so no check reads the source again. A check returns one row to Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon import compiler as c
from sqlanon.config import Output, Source
from sqlanon.engines import spark_io
from sqlanon.engines.base import KeepCondition, OutputColumn, PreparedData
from sqlanon.errors import ConfigError, DataError, HierarchyError, OutputError
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.snapshots import Snapshot, Snapshots, SnapshotSettings
from sqlanon.stats import ClassStats

DIALECT = "spark"
_SHOW = 5
DEFAULT_MASTER = "local[2]"
#: A class table (or snapshot) of at most this many rows is cached as one partition: a check
#: over it is then one task in one stage, without a shuffle (Spark plans no exchange for a
#: GROUP BY over a single partition), which halves a check's time on ADULT.
SINGLE_PARTITION_ROWS = 1_000_000

try:
    _VERSION = package_version("pyspark")
except PackageNotFoundError:
    _VERSION = "not installed"


@dataclass(frozen=True)
class _Stored:
    """A snapshot's cached view and its row count (rows scanned when a check reads it)."""

    name: str
    rows: int


class SparkEngine:
    name = "spark"
    version = _VERSION
    inputs = ("parquet", "table", "csv", "arrow")
    outputs = ("parquet", "csv")

    def __init__(self, lookup: str = "wide", snapshots: SnapshotSettings | None = None,
                 master: str | None = None, spark_conf: dict | None = None):
        self.master = master or DEFAULT_MASTER
        self.spark = spark_io.session(self.master, dict(spark_conf or {}))
        self.lookup = lookup
        # As for DuckDB, a snapshot costs a query about as dear as the check it would save.
        self.settings = snapshots = (snapshots or SnapshotSettings()).resolved(rollup=False, history=False)
        self.snapshots = Snapshots(snapshots, 0, self._release_snapshot)
        self._views: dict[str, object] = {}  # cached view name -> its DataFrame (to unpersist)
        self._free: list[str] = []
        self._pending = None
        self._snapshot_serial = 0
        self._wide_token = c.ident(c.WIDE).sql(DIALECT)
        self.rows_scanned = 0
        self.queries = 0
        self._base_classes = 0
        self._templates: dict[tuple, c.NodeTemplate] = {}
        self._sensitives: list[str] = []
        self._subset = None

    # -- execution -------------------------------------------------------------------------
    def frame(self, query: exp.Expression | str, params: dict | None = None):
        """The query as a DataFrame (lazy)."""
        sql = query if isinstance(query, str) else query.sql(DIALECT)
        try:
            return self.spark.sql(sql, args=params or None)
        except Exception as error:
            raise _spark_error(error) from None

    def run(self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None) -> list[tuple]:
        """Execute and fetch every row (a check: one) as tuples."""
        frame = self.frame(query, params)
        self.queries += 1
        try:
            return [tuple(row) for row in frame.collect()]
        except Exception as error:
            raise _spark_error(error) from None

    def _cache(self, name: str, frame, replace: bool = False, at_most: int | None = None) -> int:
        """Cache ``frame`` as the temp view ``name`` and return its rows (computing it now).
        ``at_most``: a bound on its rows; small enough, it is cached as one partition."""
        if name in self._views:
            if not replace:
                raise RuntimeError(f"view {name} exists")
            self._drop(name)
        if at_most is not None and at_most <= SINGLE_PARTITION_ROWS:
            frame = frame.coalesce(1)
        frame = frame.persist()
        frame.createOrReplaceTempView(name)
        self._views[name] = frame
        try:
            return frame.count()
        except Exception as error:
            raise _spark_error(error) from None

    def _drop(self, name: str) -> None:
        frame = self._views.pop(name, None)
        self.spark.catalog.dropTempView(name)
        if frame is not None:
            frame.unpersist()

    def _create(self, name: str, query: exp.Expression | str, replace: bool = False, at_most: int | None = None) -> int:
        """The engine's CREATE TEMP TABLE: a cached temp view (sqlglot renders the compiler's
        CREATE TEMPORARY TABLE for Spark as an uncached view, recomputed by every reader)."""
        self.queries += 1
        return self._cache(name, self.frame(query), replace, at_most)

    def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None:
        self._cache(name, self.spark.createDataFrame(data), replace)

    # -- source ----------------------------------------------------------------------------
    def open(self, source: Source) -> list[str]:
        """Check the source and return its column names (reads no rows)."""
        columns = spark_io.columns_of(self.spark, source)
        self._source = source
        return columns

    def distinct_values(self, column: str) -> list[str]:
        """The distinct values of a column as text (NULL as ''), for hierarchy builders."""
        frame = spark_io.read(self.spark, self._source, [column], [column])
        frame.createOrReplaceTempView(c.INPUT)
        value = c.as_text(c.col(column)).sql(DIALECT)
        rows = self.run(f"SELECT DISTINCT {value} FROM {c.ident(c.INPUT).sql(DIALECT)}")
        self.spark.catalog.dropTempView(c.INPUT)
        return sorted(r[0] for r in rows)

    # -- preparation -------------------------------------------------------------------------
    def prepare(self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str],
                needs: frozenset[str] = frozenset(), sensitives: Sequence[str] = ()) -> PreparedData:
        """As DuckDB's ``prepare``, without a research subset (delta-presence is refused)."""
        self._sensitives = list(sensitives)
        names = list(dict.fromkeys([name for name, _ in qis] + list(passthrough) + self._sensitives))
        self._qi_names = [name for name, _ in qis]
        texts = list(dict.fromkeys(self._qi_names + self._sensitives))
        frame = spark_io.read(self.spark, self._source, names, texts)
        try:
            rows = self._cache(c.INPUT, frame)
        except DataError as error:
            raise DataError(f"cannot read input {self._source.describe()}: {error}") from None
        if rows == 0:
            raise DataError(f"input {self._source.describe()} has no rows: there is nothing to anonymize")
        self.rows_scanned += rows
        for j, (name, hierarchy) in enumerate(qis):
            self._store_hierarchy(j, hierarchy)
            self._check_coverage(j, name)
        for i, name in enumerate(self._sensitives):
            self._store_sensitive(i, name, rows)
        self._create(c.DATA, c.encode_query([n for n, _ in qis], passthrough, self._sensitives))
        self._base_classes = self._create(c.CLASSES, c.base_classes_query(len(qis), len(self._sensitives), "lnx" in needs),
                                          at_most=rows)
        self.rows_scanned += rows
        if self.lookup == "wide":
            wide = c.wide_query([len(h.labels) - 1 for _, h in qis], "leaves" in needs, len(self._sensitives), "lnx" in needs,
                                [[len(labels) for labels in h.labels] for _, h in qis])
            self._create(c.WIDE, wide, at_most=self._base_classes)
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
        self.snapshots.rows = rows
        return PreparedData(rows=rows, base_classes=self._base_classes, value_counts=tuple(counts))

    def _store_hierarchy(self, j: int, hierarchy: EncodedHierarchy) -> None:
        levels = len(hierarchy.labels)
        columns = {"code": [row[0] for row in hierarchy.codes]}
        for l in range(levels):
            columns[f"l{l}"] = [row[l] for row in hierarchy.codes]
        for l in range(levels):
            columns[f"c{l}"] = [hierarchy.leaves[l][row[l]] for row in hierarchy.codes]
        self._materialize(c.hier_table(j), pa.table({k: pa.array(v, pa.int32()) for k, v in columns.items()}))
        self._materialize(c.label_table(j), pa.table({
            "level": pa.array([l for l in range(levels) for _ in hierarchy.labels[l]], pa.int32()),
            "code": pa.array([code for l in range(levels) for code in range(len(hierarchy.labels[l]))], pa.int32()),
            "label": pa.array([text for l in range(levels) for text in hierarchy.labels[l]], pa.string()),
        }))

    def _store_sensitive(self, i: int, name: str, rows: int) -> None:
        """``sqlanon_sval_<i>``: the attribute's distinct values as text, sorted, with counts."""
        value = c.as_text(c.col(name, "s"))
        query = (exp.select(value.as_(c.ident("label")), exp.Count(this=exp.Star())).from_(c.table(c.INPUT, "s"))
                 .group_by(value.copy()))
        # Sorted in Python: code points, as DuckDB's default collation sorts.
        found = sorted(self.run(query), key=lambda r: r[0])
        self.rows_scanned += rows
        self._materialize(c.sval_table(i), pa.table({
            "code": pa.array(range(len(found)), pa.int32()),
            "label": pa.array([r[0] for r in found], pa.string()),
            "n": pa.array([int(r[1]) for r in found], pa.int64()),
            "q": pa.array([int(r[1]) / rows for r in found], pa.float64()),
        }))

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]:
        i = self._sensitives.index(name)
        found = self.run(exp.select(c.col("label"), c.col("n")).from_(c.table(c.sval_table(i))).order_by(c.col("code")))
        return [r[0] for r in found], [int(r[1]) for r in found]

    def store_tables(self, tables: dict[str, pa.Table]) -> None:
        for name, data in tables.items():
            self._materialize(name, data, replace=True)

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

    # -- checks ------------------------------------------------------------------------------
    def _figures(self, node: Node, keep: KeepCondition, lookup: str | None = None) -> list[exp.Select]:
        build = getattr(keep, "figures", None)
        lookup = lookup or self.lookup
        return [] if build is None else build(
            lambda name: c.histogram_query(node, self._sensitives.index(name), self.settings.projection, lookup),
            c.class_keys(node))

    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: frozenset[str]) -> ClassStats:
        with_leaves, uniques, lnx = "leaves" in needs, "uniques" in needs, "lnx" in needs
        sums = keep.stats_columns(len(node)) if hasattr(keep, "stats_columns") else {}
        start = self.snapshots.start(node)
        source = start.snapshot.handle if start.snapshot is not None else None
        lean = not sums and getattr(keep, "figures", None) is None and (source is not None or self.lookup == "wide")
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
        row = self.run(query, params)[0]
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
        self._pending = (node, source, classes)
        return ClassStats(classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, leaves, histograms, unique_count,
                          figures, min_class)

    # -- snapshots (the policy is sqlanon/snapshots.py; this engine keeps cached views) ------
    @property
    def rollups(self) -> int:
        return self.snapshots.rollups

    @property
    def snapshot_hits(self) -> int:
        return self.snapshots.hits

    def _rows_of(self, handle) -> int:
        return self._base_classes if handle is None else handle.rows

    def _materialize_node(self, node: Node, source, classes: int) -> Snapshot:
        if self._free:
            name = self._free.pop()
        else:
            self._snapshot_serial += 1
            name = f"sqlanon_snap_{self._snapshot_serial}"
        query = c.snapshot_query(node, self._tops, "leaves" in self._needs, len(self._sensitives), "lnx" in self._needs,
                                 source.name if source is not None else None, self.lookup)
        rows = self._create(name, query, replace=True, at_most=self._rows_of(source))
        self.rows_scanned += self._rows_of(source)
        return Snapshot(node, _Stored(name, int(rows)), classes)

    def checked(self, node: Node, anonymous: bool) -> None:
        """As DuckDB: the node's classes are cached only when the policy would keep them."""
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != node:
            return
        _, source, classes = pending
        keep = self.snapshots.worth_keeping(node, classes, anonymous)
        self.snapshots.checked(self._materialize_node(node, source, classes) if keep else None, anonymous)

    def reset_snapshots(self) -> None:
        self._pending = None
        self.snapshots.clear()
        for name in self._free:
            self._drop(name)
        self._free.clear()

    def _release_snapshot(self, handle) -> None:
        # Unpersisted now (its memory back), the name reused by the next snapshot.
        self._drop(handle.name)
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
        """The SQL of a node's check, as sent to Spark (pretty-printed)."""
        return c.stats_query(node, keep(c.col("n")), "leaves" in needs, self.settings.projection, self.lookup,
                             self._figures(node, keep), uniques="uniques" in needs).sql(DIALECT, pretty=True)

    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]:
        query = c.failing_classes_query(node, keep(c.col("n", "cls")), self.lookup, self._figures(node, keep))
        return self.run(query, {**params, "limit": limit})

    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]:
        cls = c.class_query(node, False, True, self.lookup, self._figures(node, keep)).subquery(c.ident("cls"))
        query = exp.select(exp.Star(), keep(c.col("n")).as_(c.ident("kept"))).from_(cls).order_by(*(c.col(k) for k in c.class_keys(node)))
        frame = self.frame(query, params)
        self.queries += 1
        return [row.asDict() for row in frame.collect()]

    def _node_query(self, shape: tuple, node: Node, build, read=None) -> str | exp.Expression:
        if read is None and self.lookup != "wide":
            return build(node, self.lookup)
        template = self._templates.get(shape)
        if template is None:
            template = self._templates[shape] = c.NodeTemplate(lambda n: build(n, "wide"), len(node), DIALECT)
        sql = template.render(node)
        return sql if read is None else sql.replace(self._wide_token, c.ident(read.name).sql(DIALECT))

    def class_table(self, label: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
        """As DuckDB's: the class table for an in-memory search, read once (as Arrow)."""
        dimensions = len(self._qi_names)
        result = self.frame(c.labelled_classes_query(dimensions, label)).toArrow()
        self.queries += 1
        self.rows_scanned += self.snapshots.rows
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
        figures = self._figures(node, keep)
        verdicts = c.verdict_query(node, keep(c.col("n")), self.lookup, figures) if figures else None
        query = c.output_query(node, keep, [(x.name, x.kind, x.index) for x in columns],
                               drop_suppressed=output.suppressed == "drop", verdicts=verdicts)
        self._write_query(query, params, output, target)

    def write_intervals(self, ranks: Sequence[np.ndarray], intervals: Sequence[Sequence[tuple[int, int, str]]],
                        keep: KeepCondition, params: dict, columns: Sequence[OutputColumn], output: Output,
                        target: str) -> None:
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
        if output.kind not in self.outputs:
            raise ConfigError(f"the spark engine writes {' and '.join(self.outputs)}, not {output.kind} "
                              f"(output {output.path}): use [engine] name = \"duckdb\"")
        frame = self.frame(query, {**params, "mask": "*"})
        self.queries += 1
        if output.kind == "parquet":
            spark_io.write_parquet(frame, target)
        else:
            spark_io.write_csv(frame, target, output.delimiter)
        self.rows_scanned += self.snapshots.rows

    def close(self) -> None:
        for name in list(self._views):
            self._drop(name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _spark_error(error: Exception) -> Exception:
    """Spark's errors as sqlanon's: a failed query is a bug or bad data, said in one line."""
    if isinstance(error, (DataError, ConfigError, OutputError, KeyboardInterrupt)):
        return error
    return DataError(f"Spark: {spark_io.first_line(error)}")
