"""The in-memory engine: the same contract as the DuckDB engine, over numpy arrays (no SQL).

The input is read with pyarrow (``memory_io``) and encoded once: each QI's values become leaf
codes, and ``up[j][a][b]`` maps QI j's codes at level a to level b (hierarchies are
functional). The base class table is arrays: the distinct combinations of QI codes (and of
the sensitive codes the models read, so a class's histogram can be regrouped at any coarser
node), their rows ``n`` and, for the KL-divergence, ``n ln c_x``. A check generalizes each
code column of its starting table through ``up`` (a column already at the node's level is
taken as it is when projection is on), combines them into one mixed-radix integer key (or
``np.unique`` over the stacked columns when the radix product would overflow int64), and sums
the rows per key with ``np.bincount``. The node's table is kept as a snapshot; the shared
policy (``sqlanon/snapshots.py``) says which check starts from which snapshot.

Verdicts use the models' own predicates and the metrics' own sums, evaluated over arrays
(``evaluate``); the models' figures are computed in numpy (``memory_figures``).
"""

from __future__ import annotations

import glob
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from sqlanon.config import Output, Source
from sqlanon.engines import arrow_csv, memory_io as io
from sqlanon.engines.base import KeepCondition, OutputColumn, PreparedData
from sqlanon.engines.evaluate import evaluate, keep_mask
from sqlanon.engines.memory_figures import Histogram, figures
from sqlanon.errors import DataError, OutputError
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.hierarchy.coverage import missing_values_error
from sqlanon.lattice import Node
from sqlanon.snapshots import Snapshot, Snapshots, SnapshotSettings
from sqlanon.stats import ClassStats

MASK = "*"


@dataclass
class Table:
    """A class table: QI code columns at ``node``'s levels, sensitive code columns, rows, and
    sum of n ln c_x (None unless the KL-divergence needs it); rows sorted by the codes."""

    node: Node
    codes: list[np.ndarray]
    sensitive: list[np.ndarray]
    n: np.ndarray
    nlnx: np.ndarray | None


@dataclass
class Classes:
    """A node's classes in code order: codes, sizes, figure columns, verdicts."""

    codes: list[np.ndarray]
    n: np.ndarray
    columns: dict[str, np.ndarray]
    kept: np.ndarray


def group(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[list[np.ndarray], np.ndarray]:
    """Distinct rows of the code columns, sorted lexicographically, and each row's group."""
    rows = len(columns[0]) if columns else 0
    if not columns:
        return [], np.zeros(rows, np.int64)
    space = math.prod(max(r, 1) for r in radices)
    if space >= 2 ** 62:  # the combined key would overflow int64
        stacked = np.stack(columns, axis=1)
        distinct, inverse = np.unique(stacked, axis=0, return_inverse=True)
        return [distinct[:, j] for j in range(len(columns))], inverse.ravel()
    key = np.zeros(rows, np.int64)
    for column, radix in zip(columns, radices):
        key *= radix
        key += column
    if space <= max(4 * rows, 1 << 16):
        present = np.flatnonzero(np.bincount(key, minlength=space))
        position = np.zeros(space, np.int64)
        position[present] = np.arange(len(present))
        distinct, inverse = present, position[key]
    else:
        distinct, inverse = np.unique(key, return_inverse=True)
    result = []
    for radix in reversed(radices):
        result.append(distinct % radix)
        distinct = distinct // radix
    return result[::-1], inverse


def _sum(inverse: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    return np.bincount(inverse, weights=values, minlength=groups)


def _size_table(sizes: np.ndarray) -> dict[int, int]:
    """Class size -> number of classes, by bincount over the sizes."""
    counts = np.bincount(sizes.astype(np.int64)) if len(sizes) else np.zeros(0, np.int64)
    return {int(s): int(counts[s]) for s in np.flatnonzero(counts)}


class MemoryEngine:
    name = "memory"
    version = np.__version__
    inputs = ("csv", "parquet", "arrow")
    outputs = ("csv", "parquet")

    def __init__(self, lookup: str = "wide", snapshots: SnapshotSettings | None = None):
        self.lookup = lookup  # accepted for the common [engine] keys; arrays need no lookup tables
        # Keeping arrays costs nothing: the Flash framework's roll-up and history are on by default.
        self.settings = snapshots = (snapshots or SnapshotSettings()).resolved(rollup=True, history=True)
        self.rows_scanned = 0
        self.queries = 0
        self._snapshots: Snapshots | None = None
        self._pending: Snapshot | None = None
        self._tables: dict[str, pa.Table] = {}
        self._sensitives: list[str] = []
        self._data: pa.Table | None = None

    @property
    def rollups(self) -> int:
        return self._snapshots.rollups if self._snapshots else 0

    @property
    def snapshot_hits(self) -> int:
        return self._snapshots.hits if self._snapshots else 0

    # -- source ----------------------------------------------------------------------------
    def open(self, source: Source) -> list[str]:
        kind = source.kind
        if kind == "duckdb":
            raise io.refuse_duckdb_file("input", source.path)
        if kind == "csv" and not os.path.isfile(source.path):
            raise DataError(f"input file not found: {source.path} (paths in a job file are relative to the job file)")
        if kind == "parquet" and not glob.glob(source.path):
            raise DataError(f"no Parquet file matches {source.path}")
        if kind == "arrow" and not isinstance(source.arrow, pa.Table):
            raise DataError("the in-memory input must be a pyarrow.Table")
        io.refuse_if_too_large(source)
        self._source = source
        try:
            return io.read_columns(source)
        except (pa.ArrowInvalid, OSError) as error:
            raise DataError(f"cannot read input {source.describe()}: {str(error).strip().splitlines()[0]}") from None

    def distinct_values(self, column: str) -> list[str]:
        table = self._data if self._data is not None and column in self._data.column_names else io.read_table(self._source, [column])
        return sorted(set(io.as_text(table.column(column), column).tolist()))

    # -- preparation -------------------------------------------------------------------------
    def prepare(self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str],
                needs: frozenset[str] = frozenset(), sensitives: Sequence[str] = ()) -> PreparedData:
        self._sensitives = list(sensitives)
        self._qi_names = [name for name, _ in qis]
        self._hierarchies = [h for _, h in qis]
        self._passthrough = list(passthrough)
        names = list(dict.fromkeys(self._qi_names + self._passthrough + self._sensitives))
        self._data = data = io.read_table(self._source, names)
        rows = data.num_rows
        if rows == 0:
            raise DataError(f"input {self._source.describe()} has no rows: there is nothing to anonymize")
        self.rows_scanned += rows
        self._codes = [self._encode(j, name, h) for j, (name, h) in enumerate(qis)]
        self._svalues, self._scounts, scodes = [], [], []
        for name in self._sensitives:
            values, counts, codes = self._encode_sensitive(name)
            self._svalues.append(values)
            self._scounts.append(counts)
            scodes.append(codes)
        self._q = [np.array(counts, np.int64) / rows for counts in self._scounts]
        self._up = [self._up_maps(h) for h in self._hierarchies]
        self._leaves = [[np.array(level, np.int64) for level in h.leaves] for h in self._hierarchies]
        self._labels = [[np.array(level, dtype=object) for level in h.labels] for h in self._hierarchies]
        # the base class table, sensitive codes as the last keys
        radices = [len(h.labels[0]) for h in self._hierarchies] + [len(v) for v in self._svalues]
        distinct, inverse = group(self._codes + scodes, radices)
        self.queries += 1
        self.rows_scanned += rows
        count = len(distinct[0])
        n = np.bincount(inverse, minlength=count).astype(np.int64)
        nlnx = None
        if "lnx" in needs:
            _, combination = group(self._codes, radices[:len(qis)])
            per_row = np.bincount(combination)[combination].astype(np.float64)
            nlnx = _sum(inverse, np.log(per_row), count)
        d = len(qis)
        self._base = Table((0,) * d, distinct[:d], distinct[d:], n, nlnx)
        self._snapshots = Snapshots(self.settings, rows, self._release)
        counts = tuple(tuple(int(x) for x in np.bincount(codes, minlength=len(h.codes)))
                       for codes, h in zip(self._codes, self._hierarchies))
        return PreparedData(rows=rows, base_classes=count, value_counts=counts)

    def _text(self, name: str) -> pa.Array:
        return pa.array(io.as_text(self._data.column(name), name), pa.string())

    def _encode(self, j: int, name: str, hierarchy: EncodedHierarchy) -> np.ndarray:
        texts = self._text(name)
        codes = pc.index_in(texts, value_set=pa.array(hierarchy.labels[0], pa.string()))
        if codes.null_count:
            missing = pc.value_counts(pc.filter(texts, pc.is_null(codes))).to_pylist()
            missing = sorted(((x["values"], x["counts"]) for x in missing), key=lambda x: (-x[1], x[0]))
            raise missing_values_error(name, self._source.describe(), missing, hierarchy)
        return codes.to_numpy().astype(np.int64)

    def _encode_sensitive(self, name: str) -> tuple[list[str], list[int], np.ndarray]:
        texts = self._text(name)
        found = sorted((x["values"], x["counts"]) for x in pc.value_counts(texts).to_pylist())
        values = [v for v, _ in found]
        codes = pc.index_in(texts, value_set=pa.array(values, pa.string())).to_numpy().astype(np.int64)
        self.rows_scanned += len(texts)
        return values, [c for _, c in found], codes

    @staticmethod
    def _up_maps(hierarchy: EncodedHierarchy) -> list[list[np.ndarray | None]]:
        """``up[a][b][code at level a]`` = its code at level b (b >= a)."""
        codes = np.array(hierarchy.codes, np.int64).reshape(len(hierarchy.codes), -1)
        levels = len(hierarchy.labels)
        up: list[list[np.ndarray | None]] = [[None] * levels for _ in range(levels)]
        for a in range(levels):
            for b in range(a, levels):
                mapping = np.zeros(len(hierarchy.labels[a]), np.int64)
                mapping[codes[:, a]] = codes[:, b]
                up[a][b] = mapping
        return up

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]:
        i = self._sensitives.index(name)
        return list(self._svalues[i]), list(self._scounts[i])

    def store_tables(self, tables: dict) -> None:
        self._tables.update(tables)

    # -- grouping ----------------------------------------------------------------------------
    def _generalize(self, source: Table, node: Node) -> Table:
        """``source``'s table regrouped at ``node`` (a generalization of its node)."""
        codes = []
        for j, (a, b) in enumerate(zip(source.node, node)):
            column = source.codes[j]
            codes.append(column if a == b and self.settings.projection else self._up[j][a][b][column])
        radices = [len(self._hierarchies[j].labels[b]) for j, b in enumerate(node)] + [len(v) for v in self._svalues]
        distinct, inverse = group(codes + source.sensitive, radices)
        self.queries += 1
        self.rows_scanned += len(source.n)
        count = len(distinct[0]) if distinct else 0
        n = _sum(inverse, source.n, count).astype(np.int64)
        nlnx = _sum(inverse, source.nlnx, count) if source.nlnx is not None else None
        d = len(node)
        return Table(tuple(node), distinct[:d], distinct[d:], n, nlnx)

    def _classes(self, table: Table, keep, params: dict) -> Classes:
        """The node's classes from its table: sizes, the models' figures, the verdicts."""
        if table.sensitive:
            change = np.zeros(len(table.n), bool)
            change[0] = True
            for column in table.codes:
                change[1:] |= column[1:] != column[:-1]
            starts = np.flatnonzero(change)
            cls = np.cumsum(change) - 1
        else:
            starts = np.arange(len(table.n))
            cls = starts
        codes = [column[starts] for column in table.codes]
        n = np.add.reduceat(table.n, starts) if table.sensitive else table.n
        columns: dict[str, np.ndarray] = {"n": n}
        for j, level in enumerate(table.node):
            columns[f"leaves{j}"] = self._leaves[j][level][codes[j]]
        if table.nlnx is not None:
            columns["lnx"] = np.add.reduceat(table.nlnx, starts) if table.sensitive else table.nlnx
        for model in getattr(keep, "histogram_models", ()):
            i = self._sensitives.index(model.attribute)
            values = table.sensitive[i]
            if len(self._sensitives) == 1:
                pairs_cls, pairs_v, pairs_f = cls, values, table.n
            else:
                (pairs_cls, pairs_v), inverse = group([cls, values], [len(n), len(self._svalues[i])])
                pairs_f = _sum(inverse, table.n, len(pairs_cls)).astype(np.int64)
            histogram = Histogram(pairs_cls, pairs_v, pairs_f, n, self._q[i])
            columns.update(figures(model, histogram, self._tables.get(getattr(model, "aux", None))))
        kept = keep_mask(keep, columns, params)
        return Classes(codes, n, columns, kept)

    # -- checks ------------------------------------------------------------------------------
    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: frozenset[str]) -> ClassStats:
        start = self._snapshots.start(node)
        source = start.snapshot.handle if start.snapshot is not None else self._base
        table = self._generalize(source, node)
        cls = self._classes(table, keep, params)
        # sized by its classes (not its rows, which the sensitive codes multiply), as DuckDB's
        self._pending = Snapshot(tuple(node), table, len(cls.n))
        n, kept = cls.n, cls.kept
        kept_n = n[kept]
        suppressed = int(n[~kept].sum())
        leaves = tuple(int((kept_n * cls.columns[f"leaves{j}"][kept]).sum()) for j in range(len(node))) if "leaves" in needs else None
        uniques = int(((n == 1) & kept).sum()) if "uniques" in needs else None
        sums = keep.stats_columns(len(node)) if hasattr(keep, "stats_columns") else {}
        figures_ = None
        if sums:
            columns = {**cls.columns, "kept": kept}
            figures_ = {name: float(evaluate(e, columns, params)) for name, e in sums.items()}
        histograms = None
        if "suppressed_histograms" in needs:
            histograms = tuple(() for _ in node)
            if suppressed:
                histograms = tuple(tuple(int(x) for x in _sum(cls.codes[j][~kept], n[~kept], len(self._labels[j][level]))
                                         .astype(np.int64) if x)
                                   for j, level in enumerate(node))
        return ClassStats(
            classes=len(n), kept_classes=int(kept.sum()), suppressed=suppressed,
            min_kept=int(kept_n.min()) if len(kept_n) else None,
            dm_kept=int((kept_n * kept_n).sum()), dm_all=int((n * n).sum()),
            kept_leaves=leaves, suppressed_histograms=histograms, kept_uniques=uniques, figures=figures_,
            min_class=int(n.min()), kept_sizes=_size_table(kept_n) if "sizes" in needs else None,
        )

    def checked(self, node: Node, anonymous: bool) -> None:
        """The checker's verdict on the node just computed. Keeping its arrays costs nothing,
        but the engine keeps them only when DuckDB would (``Snapshots.worth_keeping``), so both
        engines start every check from the same table and report the same counters."""
        pending, self._pending = self._pending, None
        if pending is None or pending.node != tuple(node):
            return  # answered without this engine computing it (a shared memo), as DuckDB
        keep = self._snapshots.worth_keeping(pending.node, pending.classes, anonymous)
        self._snapshots.checked(pending if keep else None, anonymous)

    def reset_snapshots(self) -> None:
        if self._snapshots is not None:
            self._snapshots.clear()
        self._pending = None

    def _release(self, handle) -> None:
        pass  # arrays: dropping the last reference frees them

    def _node_classes(self, node: Node, keep, params: dict) -> Classes:
        """A node's classes outside a search (explain, output): from the base table."""
        return self._classes(self._generalize(self._base, node), keep, params)

    def check_sql(self, node: Node, keep: KeepCondition, needs: frozenset[str]) -> str:
        return (f"-- the memory engine runs no SQL. Node {','.join(map(str, node))} is checked by mapping each QI's "
                "code column of the class table (or of a snapshot of a node it generalizes) to its level through "
                "the hierarchy's int arrays, combining the codes into one integer key and summing the rows per key "
                "(numpy bincount); the models' figures come from the per-class sensitive histograms the same way.")

    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]:
        cls = self._node_classes(node, keep, params)
        rows = [tuple(self._labels[j][level][cls.codes[j][c]] for j, level in enumerate(node)) + (int(cls.n[c]),)
                for c in np.flatnonzero(~cls.kept)]
        rows.sort(key=lambda row: (row[-1], *row[:-1]))
        return rows[:limit]

    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes)."""
        cls = self._node_classes(node, keep or (lambda n: exp.true()), params or {})
        return _size_table(cls.n[cls.kept] if keep is not None else cls.n)

    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]:
        cls = self._node_classes(node, keep, params)
        names = [f"g{j}" for j in range(len(node))] + ["n"] + [
            name for name in cls.columns if name != "n" and not name.startswith("leaves") and name != "lnx"]
        columns = {**{f"g{j}": cls.codes[j] for j in range(len(node))}, **cls.columns, "kept": cls.kept}
        return [{name: columns[name][c].item() for name in [*names, "kept"]} for c in range(len(cls.n))]

    def class_table(self, label: str | None = None) -> tuple:
        self.queries += 1
        self.rows_scanned += self._data.num_rows
        d = len(self._codes)
        radices = [len(h.labels[0]) for h in self._hierarchies]
        if label is None:
            distinct, inverse = group(self._codes, radices)
            counts = np.bincount(inverse, minlength=len(distinct[0])).astype(np.int64)
            return np.stack(distinct, axis=1).astype(np.int64), counts, [], None
        texts = io.as_text(self._data.column(label), label)
        values = sorted(set(texts.tolist()))
        position = pc.index_in(pa.array(texts, pa.string()), value_set=pa.array(values, pa.string())).to_numpy().astype(np.int64)
        distinct, inverse = group(self._codes, radices)
        per_label = np.zeros((len(distinct[0]), len(values)), np.int64)
        np.add.at(per_label, (inverse, position), 1)
        return np.stack(distinct, axis=1).astype(np.int64).reshape(-1, d), per_label.sum(axis=1), values, per_label

    # -- output ------------------------------------------------------------------------------
    def write(self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
              output: Output, target: str) -> None:
        cls = self._node_classes(node, keep, params)
        rows = [self._up[j][0][level][self._codes[j]] for j, level in enumerate(node)]
        distinct, inverse = group(rows, [len(self._labels[j][level]) for j, level in enumerate(node)])
        if len(distinct[0]) != len(cls.n):  # the same classes, in the same code order
            raise AssertionError("the rows' classes differ from the class table's")
        labels = [self._labels[j][level][rows[j]] for j, level in enumerate(node)]
        self._release_rows(labels, cls.kept[inverse], columns, output, target)
        self.rows_scanned += self._data.num_rows

    def write_intervals(self, ranks: Sequence[np.ndarray], intervals: Sequence[Sequence[tuple[int, int, str]]],
                        keep: KeepCondition, params: dict, columns: Sequence[OutputColumn], output: Output,
                        target: str) -> None:
        buckets, labels = [], []
        for j, (rank, spans) in enumerate(zip(ranks, intervals)):
            spans = sorted(spans)
            lows = np.array([a for a, _, _ in spans], np.int64)
            texts = np.array([text for _, _, text in spans], dtype=object)
            bucket = np.searchsorted(lows, np.asarray(rank)[self._codes[j]], side="right") - 1
            buckets.append(bucket)
            labels.append(texts[bucket])
        distinct, inverse = group(buckets, [len(spans) for spans in intervals])
        sizes = np.bincount(inverse, minlength=len(distinct[0]))
        kept = keep_mask(keep, {"n": sizes}, params)
        self._release_rows(labels, kept[inverse], columns, output, target)
        self.rows_scanned += self._data.num_rows

    def check_output(self, output: Output) -> None:
        """Every type is written as read: Parquet by pyarrow, CSV by DuckDB's own writer."""

    def _release_rows(self, labels: list[np.ndarray], kept: np.ndarray, columns: Sequence[OutputColumn],
                      output: Output, target: str) -> None:
        """The released table in input order: QI labels (masked where the row's class is
        suppressed), passthrough columns unchanged; written as CSV or Parquet."""
        if output.kind not in self.outputs:
            raise io.refuse_duckdb_file("output", output.path)
        drop = output.suppressed == "drop"
        arrays = []
        for column in columns:
            if column.kind == "qi":
                values = np.where(kept, labels[column.index], MASK)
                array = pa.array(values[kept] if drop else values, pa.string())
            else:
                array = self._data.column(self._passthrough[column.index])
                array = array.filter(pa.array(kept)) if drop else array
            arrays.append(array)
        table = pa.table(arrays, names=[c.name for c in columns]) if columns else pa.table({})
        try:
            if output.kind == "parquet":
                io.write_parquet(table, target)
            else:
                # DuckDB's CSV writer over the Arrow table: the DuckDB engine's bytes by
                # construction, and ~6x faster than printing the rows in Python.
                arrow_csv.write_csv(table.schema, table.to_batches(), target, output.delimiter)
        except OSError as error:
            raise OutputError(f"cannot write output {output.path}: {error.strerror or error}") from None

    def close(self) -> None:
        self._data = None
        self._tables.clear()
        if self._snapshots is not None:
            self._snapshots.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
