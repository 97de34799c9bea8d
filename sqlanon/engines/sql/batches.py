"""A SQL store's batches: the checks of several nodes sent as one statement per
``STATEMENT_NODES`` nodes (``compiler.batch_query``). The SQL runner builds the nodes' queries
and reads their figures (``SqlRunner.class_stats_many``); the store executes them here, and
DuckDB and Spark run the statements concurrently (``engines/duckdb/batches.py``, Spark's
``run_batch``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.core.stats import ClassStats
from sqlanon.lattice import Node


#: nodes one statement of a batch holds at most: its SQL text and its result grow with them
STATEMENT_NODES = 32


def statements(count: int, most: int = STATEMENT_NODES, least: int = 1) -> list[tuple[int, int]]:
    """``[a, b)`` ranges cutting ``count`` nodes into as few statements of at most ``most``
    nodes as will do (at least ``least`` of them), of even sizes: 33 nodes are 17 + 16, not
    32 + 1."""
    pieces = max(least, -(-count // most)) if count else 0
    cuts = [count * i // pieces for i in range(pieces + 1)] if pieces else [0]
    return list(zip(cuts, cuts[1:]))


class SqlBatches:
    """The execution of a batch.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it calls ``run``,
    ``run_columns`` and ``dialect`` there.
    """

    if TYPE_CHECKING:  # the host's (SqlEngine's); nothing at runtime
        dialect: ClassVar[str]
        sizes_in_process: ClassVar[bool]

        def run(
            self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None
        ) -> list[tuple]: ...
        def run_columns(self, sql: str, params: dict, lean_rows: int | None = None) -> dict[str, np.ndarray]: ...

    def run_batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        """The rows of several per-node queries (one row of figures each), each tagged with its
        query's position (``compiler.BATCH_NODE``, first column)."""
        rows = []
        for a, b in statements(len(queries)):
            rows += self.run(c.batch_query(queries[a:b], self.dialect, tags=range(a, b)), params, lean_rows)
        return rows

    def run_sizes_batch(self, nodes: Sequence[Node], render, read, params: dict, lean_rows: int) -> list[ClassStats]:
        """A batch of ``sizes`` checks: ``render(node, tag)`` is a node's query, ``read(arrays,
        count)`` the figures of ``count`` nodes from their statement's result (tags from 0)."""
        return [
            stats
            for a, b in statements(len(nodes))
            for stats in read(self.run_columns(self.sizes_batch_query(nodes[a:b], render), params, lean_rows), b - a)
        ]

    def sizes_batch_query(self, nodes: Sequence[Node], render) -> str:
        """One statement of the ``sizes`` checks of ``nodes``, tagged 0, 1, ..."""
        return c.batch_query(
            [render(node, tag) for tag, node in enumerate(nodes)], self.dialect, tagged=self.sizes_in_process
        )
