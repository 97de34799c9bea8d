"""The in-memory engine: the same contract as the DuckDB engine, over numpy arrays (no SQL).

The input is read with pyarrow (``io``) and encoded once: each QI's values become leaf
codes, and the base class table is built as arrays (the distinct combinations of QI codes and
of the sensitive codes the models read, their rows ``n`` and, for the KL-divergence,
``n ln c_x``). Every check runs in the shared kernel (``sqlanon/kernel/``), the same code a SQL
engine runs with ``checks = "local"``; this engine reads, encodes and writes with pyarrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sqlanon.core.needs import Need
from sqlanon.core import files
from sqlanon.core.specs import Output, Source
from sqlanon.core.mask import MASK
from sqlanon.engines import arrow_csv, row_order
from sqlanon.engines.memory import io
from sqlanon.engines.store import Store, KeepCondition, OutputColumn, PreparedData
from sqlanon.engines.capabilities import Where
from sqlanon.kernel.evaluate import keep_mask
from sqlanon.kernel.grouping import group, total
from sqlanon.kernel.runner import Kernel
from sqlanon.kernel.tables import table
from sqlanon.errors import DataError, OutputError, first_line
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.profiles import PROFILES
from sqlanon.engines.mask_values import refuse_uncovered


class MemoryEngine(Store):
    name = "memory"
    version = np.__version__
    #: checks only in process (there is no SQL to run), one node at a time; snapshots are arrays
    capabilities = PROFILES["memory"].capabilities

    def __init__(self, lookup: str = "wide", snapshots: SnapshotSettings | None = None):
        self.lookup = lookup  # accepted for the common [engine] keys; arrays need no lookup tables
        # projection is read here; roll-up and history are the checker's policy (sqlanon/checks/snapshots.py)
        self.settings = snapshots or SnapshotSettings()
        self.rows_scanned = 0
        self.queries = 0
        self._kernel: Kernel | None = None  # built by prepare: the runner of every check
        self.class_table_bytes = 0  # nothing is fetched: the class table is built here
        self._tables: dict[str, pa.Table] = {}
        self._sensitives: list[str] = []
        self._data: pa.Table | None = None

    @property
    def _prepared_data(self) -> pa.Table:
        """The columns prepare read (asked only once prepared)."""
        assert self._data is not None, "the memory engine is not prepared"
        return self._data

    @property
    def _prepared_kernel(self) -> Kernel:
        """The runner prepare built (asked only once prepared)."""
        assert self._kernel is not None, "the memory engine is not prepared"
        return self._kernel

    def class_table_columns(self) -> int:
        """Nothing is fetched for the checks: the class table is built here."""
        return 0

    def _count(self, rows: int) -> None:
        """One pass of the kernel over a table of ``rows`` rows."""
        self.queries += 1
        self.rows_scanned += rows

    # -- source ----------------------------------------------------------------------------
    def open(self, source: Source) -> list[str]:
        kind = source.kind
        if kind == "duckdb":
            raise io.refuse_duckdb_file("input", source.path)
        if kind in ("csv", "parquet"):
            assert source.path is not None  # a CSV or Parquet source is a file (or a glob)
            files.input_files(kind, source.path)
        if kind == "arrow" and not isinstance(source.arrow, pa.Table):
            raise DataError("the in-memory input must be a pyarrow.Table")
        io.refuse_if_too_large(source)
        self._source = source
        try:
            return io.read_columns(source)
        except (pa.ArrowInvalid, OSError) as error:
            raise DataError(f"cannot read input {source.describe()}: {first_line(error)}") from None

    def distinct_values(self, column: str) -> list[str]:
        table = (
            self._data
            if self._data is not None and column in self._data.column_names
            else io.read_table(self._source, [column])
        )
        return sorted(pc.unique(io.as_text(table.column(column), column)).to_pylist())

    # -- preparation -------------------------------------------------------------------------
    def prepare(
        self,
        qis: Sequence[tuple[str, EncodedHierarchy]],
        passthrough: Sequence[str],
        needs: Need = Need.NONE,
        sensitives: Sequence[str] = (),
        subset: None = None,
    ) -> PreparedData:
        """``subset``: never given (``capabilities``: no research subset)."""
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
        # the base class table, sensitive codes as the last keys
        radices = [len(h.labels[0]) for h in self._hierarchies] + [len(v) for v in self._svalues]
        distinct, inverse = group(self._codes + scodes, radices)
        self.queries += 1
        self.rows_scanned += rows
        count = len(distinct[0])
        n = np.bincount(inverse, minlength=count).astype(np.int64)
        nlnx = None
        if Need.LNX in needs:
            _, combination = group(self._codes, radices[: len(qis)])
            per_row = np.bincount(combination)[combination].astype(np.float64)
            nlnx = total(inverse, np.log(per_row), count)
        d = len(qis)
        frequencies = [
            (name, values, np.array(counts, np.int64) / rows)
            for name, values, counts in zip(self._sensitives, self._svalues, self._scounts)
        ]
        self._kernel = Kernel(
            self._hierarchies,
            table((0,) * d, distinct[:d], distinct[d:], n, nlnx),
            frequencies,
            self.settings,
            self._tables,
            self._count,
        )
        leaf_counts = tuple(
            tuple(np.bincount(codes, minlength=h.size).tolist()) for codes, h in zip(self._codes, self._hierarchies)
        )
        return PreparedData(rows=rows, base_classes=count, value_counts=leaf_counts)

    def _text(self, name: str) -> pa.ChunkedArray:
        return io.as_text(self._prepared_data.column(name), name)

    def _encode(self, j: int, name: str, hierarchy: EncodedHierarchy) -> np.ndarray:
        """The column's leaf codes, looked up among the leaves it holds: those are found by a
        set of its distinct texts at C speed, so a 1 M-row hierarchy costs one pass over its
        labels, not a million strings made into an Arrow array and hashed (0.7 s)."""
        texts = self._text(name)
        labels = hierarchy.labels[0]
        found = set(pc.unique(texts).to_pylist())
        held = np.fromiter(compress(range(len(labels)), map(found.__contains__, labels)), np.int64)
        ranks = pc.index_in(texts, value_set=pa.array([labels[v] for v in held.tolist()], pa.string()))
        if ranks.null_count:
            missing = pc.value_counts(pc.filter(texts, pc.is_null(ranks))).to_pylist()
            refuse_uncovered(name, self._source, ((x["values"], x["counts"]) for x in missing), hierarchy)
        return held[ranks.to_numpy().astype(np.int64)]

    def _encode_sensitive(self, name: str) -> tuple[list[str], list[int], np.ndarray]:
        texts = self._text(name)
        found = sorted((x["values"], x["counts"]) for x in pc.value_counts(texts).to_pylist())
        values = [v for v, _ in found]
        codes = pc.index_in(texts, value_set=pa.array(values, pa.string())).to_numpy().astype(np.int64)
        self.rows_scanned += len(texts)
        return values, [c for _, c in found], codes

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]:
        i = self._sensitives.index(name)
        return list(self._svalues[i]), list(self._scounts[i])

    def store_tables(self, tables: dict) -> None:
        self._tables.update(tables)

    # -- checks: always the kernel's ------------------------------------------------------------
    def runner(self, where: Where) -> Kernel:
        """The kernel over the class table prepare built (``capabilities``: local only)."""
        return self._prepared_kernel

    def check_sql(self, node: Node, keep: KeepCondition, needs: Need) -> str:
        return (
            f"-- the memory engine runs no SQL. Node {','.join(map(str, node))} is checked by mapping each QI's "
            "code column of the class table (or of a snapshot of a node it generalizes) to its level through "
            "the hierarchy's int arrays, combining the codes into one integer key and summing the rows per key "
            "(numpy bincount); the models' figures come from the per-class sensitive histograms the same way."
        )

    def class_table(self, label: str | None = None) -> tuple:
        self.queries += 1
        self.rows_scanned += self._prepared_data.num_rows
        d = len(self._codes)
        radices = [len(h.labels[0]) for h in self._hierarchies]
        if label is None:
            distinct, inverse = group(self._codes, radices)
            counts = np.bincount(inverse, minlength=len(distinct[0])).astype(np.int64)
            return np.stack(distinct, axis=1).astype(np.int64), counts, [], None
        texts = self._text(label)
        values = sorted(pc.unique(texts).to_pylist())
        position = pc.index_in(texts, value_set=pa.array(values, pa.string())).to_numpy().astype(np.int64)
        distinct, inverse = group(self._codes, radices)
        per_label = np.bincount(inverse * len(values) + position, minlength=len(distinct[0]) * len(values)).reshape(
            len(distinct[0]), len(values)
        )
        return np.stack(distinct, axis=1).astype(np.int64).reshape(-1, d), per_label.sum(axis=1), values, per_label

    # -- output ------------------------------------------------------------------------------
    def write(
        self,
        node: Node,
        keep: KeepCondition,
        params: dict,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
        classes=None,
    ) -> None:
        kernel = self._prepared_kernel
        cls = kernel.node_classes(node, keep, params)  # this store's runner is its kernel
        rows = [kernel.up[j][level][self._codes[j]] for j, level in enumerate(node)]
        distinct, inverse = group(rows, [kernel.sizes[j][level] for j, level in enumerate(node)])
        if len(distinct[0]) != len(cls.n):  # the same classes, in the same code order
            raise AssertionError("the rows' classes differ from the class table's")
        labels = [(kernel.labels(j, level), rows[j]) for j, level in enumerate(node)]
        self._release_rows(labels, cls.kept[inverse], columns, output, target)
        self.rows_scanned += self._prepared_data.num_rows

    def write_intervals(
        self,
        ranks: Sequence[np.ndarray],
        intervals: Sequence[Sequence[tuple[int, int, str]]],
        keep: KeepCondition,
        params: dict,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
    ) -> None:
        buckets, labels = [], []
        for j, (rank, spans) in enumerate(zip(ranks, intervals)):
            spans = sorted(spans)
            lows = np.array([a for a, _, _ in spans], np.int64)
            bucket = np.searchsorted(lows, np.asarray(rank)[self._codes[j]], side="right") - 1
            buckets.append(bucket)
            labels.append(([text for _, _, text in spans], bucket))
        distinct, inverse = group(buckets, [len(spans) for spans in intervals])
        sizes = np.bincount(inverse, minlength=len(distinct[0]))
        kept = keep_mask(keep, {"n": sizes}, params)
        self._release_rows(labels, kept[inverse], columns, output, target)
        self.rows_scanned += self._prepared_data.num_rows

    def check_output(self, output: Output) -> None:
        """Every type is written as read: Parquet by pyarrow, CSV by DuckDB's own writer."""

    def _release_rows(
        self,
        labels: Sequence[tuple[Sequence[str] | np.ndarray, np.ndarray]],
        kept: np.ndarray,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
    ) -> None:
        """The released table: QI labels (masked where the row's class is suppressed),
        passthrough columns unchanged, in input order or shuffled (``row_order``: the rows
        taken in a permutation of the write's secret key); written as CSV or Parquet. ``labels[j]``:
        QI j's label texts and each row's index into them; Arrow's ``take`` builds the column
        (a Python string per row would cost seconds at a million rows)."""
        if output.kind not in self.capabilities.outputs:
            raise io.refuse_duckdb_file("output", output.path)
        drop = output.suppressed == "drop"
        arrays = []
        for column in columns:
            if column.kind == "qi":
                texts, codes = labels[column.index]
                index = np.where(kept, codes, len(texts))  # the mask is the last text
                array = pa.array([*texts, MASK], pa.string()).take(index[kept] if drop else index)
            else:
                array = self._prepared_data.column(self._passthrough[column.index])
                array = array.filter(pa.array(kept)) if drop else array
            arrays.append(array)
        table = pa.table(arrays, names=[c.name for c in columns]) if columns else pa.table({})
        key = row_order.order_key(output)
        if key is not None:
            table = table.take(row_order.permutation(table.num_rows, key))
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
        if self._kernel is not None:
            self._kernel.reset_snapshots()
