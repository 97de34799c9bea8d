"""A SQL engine's release: the released table as one query (generalized to the node, or bucketed
into an ordered anonymization's intervals), in input order or sorted by a keyed hash of the row
positions (``row_order``), written to the target by the engine's ``_write``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon.core.specs import Output
from sqlanon.core.mask import MASK
from sqlanon import sql as c
from sqlanon.engines import row_order
from sqlanon.engines.store import KeepCondition, OutputColumn
from sqlanon.lattice import Node


class SqlRelease:
    """The output of a SQL engine.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it reads the attributes
    ``SqlEngine.__init__`` sets and calls the hooks the module docstring there lists.
    """

    if TYPE_CHECKING:  # the host's (SqlEngine's and the engine's subclass's); nothing at runtime
        lookup: str
        rows_scanned: int

        def sql(self, query: exp.Expr, pretty: bool = False) -> str: ...
        def node_figures(
            self, node: Node, keep: KeepCondition | None, lookup: str | None = None
        ) -> list[exp.Select]: ...
        def ensure_wide(self) -> None: ...
        def _ensure_row_tables(self) -> None: ...
        def _count(self, name: str) -> int: ...
        def _mode(self, lean: bool, rows: int) -> None: ...
        def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None: ...
        def _write(self, sql: str, params: dict, output: Output, target: str) -> None: ...

    def check_output(self, output: Output) -> None:
        """Every SQL engine writes every column type it reads: nothing to refuse."""

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
        """Write the released table to ``target`` (a temporary name chosen by the caller); the
        verdicts are the database's, so a runner's ``classes`` are not read."""
        self._ensure_row_tables()
        self.ensure_wide()
        figures = self.node_figures(node, keep)
        verdicts = c.verdict_query(node, keep(c.col("n")), self.lookup, figures) if figures else None
        key = row_order.order_key(output)
        query = c.output_query(
            node,
            keep,
            [(x.name, x.kind, x.index) for x in columns],
            drop_suppressed=output.suppressed == "drop",
            verdicts=verdicts,
            shuffled=key is not None,
        )
        self._write_query(query, params, output, target, key)

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
        """Write the released table of an ordered-interval anonymization: ``ranks[j][code]`` is
        the rank of leaf code ``code`` of QI j in its order (-1: absent from the data) and
        ``intervals[j]`` its (first rank, last rank, label) intervals. Both become tables (the
        labels are data, never SQL) and a range join buckets every row."""
        self._ensure_row_tables()
        for j, (rank, spans) in enumerate(zip(ranks, intervals)):
            codes = np.flatnonzero(rank >= 0)
            self._materialize(
                c.rank_table(j),
                pa.table({"code": pa.array(codes, pa.int32()), "rank": pa.array(rank[codes], pa.int32())}),
                replace=True,
            )
            self._materialize(
                c.cut_table(j),
                pa.table(
                    {
                        "lo": pa.array([a for a, _, _ in spans], pa.int32()),
                        "hi": pa.array([b for _, b, _ in spans], pa.int32()),
                        "label": pa.array([text for _, _, text in spans], pa.string()),
                    }
                ),
                replace=True,
            )
        key = row_order.order_key(output)
        query = c.interval_output_query(
            len(ranks),
            keep,
            [(x.name, x.kind, x.index) for x in columns],
            drop_suppressed=output.suppressed == "drop",
            shuffled=key is not None,
        )
        self._write_query(query, params, output, target, key)

    def _write_query(self, query: exp.Expression, params: dict, output: Output, target: str, key: str | None) -> None:
        """``key``: the shuffle's secret (``row_order.order_key``), bound for this query only."""
        self._mode(False, 0)
        bound = {**params, "mask": MASK, **({c.ORDER_KEY: key} if key is not None else {})}
        self._write(self.sql(query), bound, output, target)
        self.rows_scanned += self._count(c.DATA)
