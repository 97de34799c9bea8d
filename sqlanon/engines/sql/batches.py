"""A SQL engine's batches: the checks of several nodes answered by one statement per
``STATEMENT_NODES`` nodes (``compiler.batch_query``), each node's figures exactly what its own
check returns (``SqlEngine.class_stats_many``). DuckDB runs the statements on two connections
(``engines/duckdb/batches.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sqlanon.core.needs import Need
from sqlanon.core.stats import ClassStats
from sqlanon import sql as c
from sqlanon.engines.base import KeepCondition
from sqlanon.kernel.size_histogram import from_batch_sizes
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
    """Several nodes' checks in one statement.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it reads the attributes
    ``SqlEngine.__init__`` sets and calls the hooks the module docstring there lists.
    """

    def _batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        rows = []
        for a, b in statements(len(queries)):
            rows += self.run(c.batch_query(queries[a:b], self.dialect, tags=range(a, b)), params, lean_rows)
        return rows

    def class_stats_many(self, nodes: Sequence[Node], keep: KeepCondition, params: dict,
                         needs: Need) -> list[ClassStats] | None:
        """The figures of several nodes in one query (``compiler.batch_query``), each exactly
        what ``class_stats`` returns for it; None when they must be checked one at a time:
        checks placed in process (the kernel answers each in microseconds), figures that take
        a second query per node (suppressed histograms; kept sizes outside the lean shape), or
        a metric's sums of floats (another plan adds them in another order). The checker asks
        only when no snapshot policy is on (``Checker.batches``), so none of these nodes is
        kept as a snapshot."""
        if self.kernel is not None or Need.SUPPRESSED_HISTOGRAMS in needs or len(nodes) < 2:
            return None
        self._ensure_wide()
        # the shape and the sums depend on the job, not on the node: the first node says
        shape, first, sums = self._check_query(nodes[0], keep, needs, None)
        if (Need.SIZES in needs and shape != "sizes") or sums:
            # sums of floats (KL-divergence) come out of another plan with other last bits
            return None
        lean_rows = self._rows_of(None) if shape != "stats" else None
        self.rows_scanned += self._rows_of(None) * len(nodes)
        self._pending = None

        def render(node: Node, tag: int | None = None) -> str:
            """The node's query; with ``tag``, tagged where the class sizes are fetched
            (``_check_query``, ``compiler.batch_query``)."""
            query = self._check_query(node, keep, needs, None, tag)[1]
            return query if isinstance(query, str) else self.sql(query)

        if shape != "sizes":  # one row of figures per node, fetched as Python values (exact integers)
            per_node: list[list[tuple]] = [[] for _ in nodes]
            for row in self._batch([first, *(render(node) for node in nodes[1:])], params, lean_rows):
                per_node[int(row[0])].append(tuple(row[1:]))
            return [self._read_check(shape, node, found, needs, sums) for node, found in zip(nodes, per_node)]

        def read(found: dict[str, np.ndarray], count: int) -> list[ClassStats]:
            """The figures of ``count`` nodes from their batch's arrays, tagged 0 .. count - 1."""
            tags = found.pop(c.BATCH_NODE)
            if len(tags) > 1 and not bool(np.all(tags[1:] >= tags[:-1])):
                # UNION ALL keeps its parts' order on one thread, so this is for another plan
                order = np.argsort(tags, kind="stable")
                tags, found = tags[order], {name: values[order] for name, values in found.items()}
            if self.sizes_in_process:
                stats = from_batch_sizes(tags, found["n"], count, keep, params, Need.UNIQUES in needs, Need.SIZES in needs)
                if stats is not None:
                    return stats
            cuts = np.searchsorted(tags, np.arange(count + 1))
            return [self._read_sizes({name: values[a:b] for name, values in found.items()}, keep, params, needs)
                    for a, b in zip(cuts[:-1], cuts[1:])]

        # each node's class sizes (or size histogram): the result ordered by its tag, cut where the tag changes
        assert lean_rows is not None
        return self._sizes_batch(nodes, render, read, self._check_params(shape, params), lean_rows)

    def _sizes_batch(self, nodes: Sequence[Node], render, read, params: dict, lean_rows: int) -> list[ClassStats]:
        """A batch of ``sizes`` checks: ``render(node, tag)`` is a node's query, ``read(arrays,
        count)`` the figures of ``count`` nodes from their statement's result (tags from 0)."""
        return [stats for a, b in statements(len(nodes))
                for stats in read(self.run_columns(self._sizes_batch_query(nodes[a:b], render), params, lean_rows), b - a)]

    def _sizes_batch_query(self, nodes: Sequence[Node], render) -> str:
        """One statement of the ``sizes`` checks of ``nodes``, tagged 0, 1, ..."""
        return c.batch_query([render(node, tag) for tag, node in enumerate(nodes)], self.dialect,
                             tagged=self.sizes_in_process)
