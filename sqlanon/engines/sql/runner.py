"""The SQL runner: every check a query in the store's own database (``engines/runner.py``).

It reads the store's layout once (``SqlEngine.layout``), builds each node's check from the
shape its models and metric need (``node_queries.py``), keeps snapshots as temp tables
(``snapshots.py``) and sends several nodes in one statement where the checker allows
(``class_stats_many``); the store executes (``run``, ``run_batch``, ``create_table``) and counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.core.needs import Need
from sqlanon.core.stats import ClassStats
from sqlanon.criteria.conditions import Conditions
from sqlanon.engines.sql.node_queries import NodeQueries
from sqlanon.engines.sql.snapshots import SnapshotTables, Stored
from sqlanon.kernel.size_histogram import from_batch_sizes
from sqlanon.lattice import Node


class SqlRunner:
    """Checks as queries in ``store`` (a prepared ``SqlEngine``)."""

    where: Literal["sql"] = "sql"

    def __init__(self, store) -> None:
        store.ensure_wide()
        self.store = store
        self.layout = layout = store.layout()
        able = store.capabilities
        self.batches, self.snapshots = able.batches, able.snapshots
        self.shapes = NodeQueries(store, layout)
        self.tables = SnapshotTables(store, layout)
        self._pending: tuple[Node, Stored | None] | None = None  # the node the last check computed, and its source

    # -- checks ------------------------------------------------------------------------------
    def class_stats(
        self, node: Node, keep: Conditions, params: dict, needs: Need, start: Stored | None = None
    ) -> ClassStats:
        store, shapes = self.store, self.shapes
        store.ensure_wide()
        source = start  # a snapshot's temp table (keep_snapshot), or None: the base class table
        shape, query, sums = shapes.check(node, keep, needs, source)
        rows = self.tables.rows_of(source)
        lean_rows = rows if shape != "stats" else None
        if shape == "sizes":
            stats = shapes.read_sizes(
                store.run_columns(query, shapes.params(shape, params), lean_rows), keep, params, needs
            )
        else:
            stats = shapes.read_check(shape, node, store.run(query, params, lean_rows), needs, sums)
        store.rows_scanned += rows
        if Need.SUPPRESSED_HISTOGRAMS in needs:
            histograms = (
                self._suppressed_histograms(node, keep, params, source) if stats.suppressed else tuple(() for _ in node)
            )
            stats = replace(stats, suppressed_histograms=histograms)
        if Need.SIZES in needs and shape != "sizes":
            # the kept classes' size frequencies (population uniqueness): a second query, over the base table
            stats = replace(stats, kept_sizes=self.class_sizes(node, keep, params))
        self._pending = (node, source)
        return stats

    def _suppressed_histograms(self, node: Node, keep: Conditions, params: dict, read=None):
        store, layout = self.store, self.layout
        query = self.shapes.node_query(
            ("histograms", keep.signature),
            node,
            lambda n, lookup: c.suppressed_histogram_query(
                n, keep(c.col("n")), layout.projection, lookup, store.node_figures(n, keep, lookup)
            ),
            read,
        )
        rows = store.run(query, params)
        store.rows_scanned += self.tables.rows_of(read)
        result: list[list[int]] = [[] for _ in node]
        for j, _, count in rows:
            result[j].append(int(count))
        return tuple(tuple(h) for h in result)

    def class_stats_many(
        self, nodes: Sequence[Node], keep: Conditions, params: dict, needs: Need
    ) -> list[ClassStats] | None:
        """The figures of several nodes in one query (``compiler.batch_query``), each exactly
        what ``class_stats`` returns for it; None when they must be checked one at a time:
        figures that take a second query per node (suppressed histograms; kept sizes outside
        the lean shape), or a metric's sums of floats (another plan adds them in another
        order). The checker asks only when no snapshot policy is on (``Checker.batches``), so
        none of these nodes is kept as a snapshot."""
        if Need.SUPPRESSED_HISTOGRAMS in needs or len(nodes) < 2:
            return None
        store, shapes = self.store, self.shapes
        store.ensure_wide()
        # the shape and the sums depend on the job, not on the node: the first node says
        shape, first, sums = shapes.check(nodes[0], keep, needs, None)
        if (Need.SIZES in needs and shape != "sizes") or sums:
            # sums of floats (KL-divergence) come out of another plan with other last bits
            return None
        base = self.tables.rows_of(None)
        lean_rows = base if shape != "stats" else None
        store.rows_scanned += base * len(nodes)
        self._pending = None

        def render(node: Node, tag: int | None = None) -> str:
            """The node's query; with ``tag``, tagged where the class sizes are fetched
            (``NodeQueries.check``, ``compiler.batch_query``)."""
            query = shapes.check(node, keep, needs, None, tag)[1]
            return query if isinstance(query, str) else store.sql(query)

        if shape != "sizes":  # one row of figures per node, fetched as Python values (exact integers)
            per_node: list[list[tuple]] = [[] for _ in nodes]
            for row in store.run_batch([first, *(render(node) for node in nodes[1:])], params, lean_rows):
                per_node[int(row[0])].append(tuple(row[1:]))
            return [shapes.read_check(shape, node, found, needs, sums) for node, found in zip(nodes, per_node)]

        def read(found: dict[str, np.ndarray], count: int) -> list[ClassStats]:
            """The figures of ``count`` nodes from their batch's arrays, tagged 0 .. count - 1."""
            tags = found.pop(c.BATCH_NODE)
            if len(tags) > 1 and not bool(np.all(tags[1:] >= tags[:-1])):
                # UNION ALL keeps its parts' order on one thread, so this is for another plan
                order = np.argsort(tags, kind="stable")
                tags, found = tags[order], {name: values[order] for name, values in found.items()}
            if shapes.sizes_in_process:
                stats = from_batch_sizes(
                    tags, found["n"], count, keep, params, Need.UNIQUES in needs, Need.SIZES in needs
                )
                if stats is not None:
                    return stats
            cuts = np.searchsorted(tags, np.arange(count + 1))
            return [
                shapes.read_sizes({name: values[a:b] for name, values in found.items()}, keep, params, needs)
                for a, b in zip(cuts[:-1], cuts[1:])
            ]

        # each node's class sizes (or size histogram): the result ordered by its tag, cut where the tag changes
        assert lean_rows is not None
        return store.run_sizes_batch(nodes, render, read, shapes.params(shape, params), lean_rows)

    # -- snapshots (the checker's policy decides, ``checks/snapshots.py``) -------------------
    def keep_snapshot(self, node: Node) -> Stored:
        """Materialize the classes of the node just computed. A temp table costs a query about
        as dear as the check, so the checker asks only after the verdict, and only for the
        nodes its policy keeps (``Snapshots.worth_keeping``)."""
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != node:
            raise ValueError(f"keep_snapshot({node}): the last check computed {pending and pending[0]}")
        return self.tables.keep(node, pending[1])

    def drop_snapshot(self, handle: Stored) -> None:
        self.tables.drop(handle)

    def reset_snapshots(self) -> None:
        self._pending = None
        self.tables.reset()

    # -- outside a search (explain, risk, the report) ----------------------------------------
    def failing_classes(self, node: Node, keep: Conditions, params: dict, limit: int) -> list[tuple]:
        """Up to ``limit`` classes failing the models, smallest first: (labels..., size)."""
        store = self.store
        store.ensure_wide()
        query = c.failing_classes_query(
            node, keep(c.col("n", "cls")), self.layout.lookup, store.node_figures(node, keep)
        )
        return store.run(query, {**params, "limit": limit})

    def class_sizes(self, node: Node, keep: Conditions | None = None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes)."""
        store = self.store
        store.ensure_wide()
        query = c.class_size_query(
            node,
            None if keep is None else keep(c.col("n")),
            self.layout.projection,
            self.layout.lookup,
            store.node_figures(node, keep),
        )
        return {int(size): int(count) for size, count in store.run(query, params)}

    def class_figures(self, node: Node, keep: Conditions, params: dict) -> list[dict]:
        """Every class of a node with its size, the models' figures and its verdict, in code order."""
        store = self.store
        store.ensure_wide()
        cls = c.class_query(node, False, True, self.layout.lookup, store.node_figures(node, keep)).subquery(
            c.ident("cls")
        )
        query = (
            exp.select(exp.Star(), keep(c.col("n")).as_(c.ident("kept")))
            .from_(cls)
            .order_by(*(c.col(k) for k in c.class_keys(node)))
        )
        names, rows = store.run_named(store.sql(query), params)
        return [dict(zip(names, row)) for row in rows]

    def node_classes(self, node: Node, keep: Conditions, params: dict) -> None:
        """The verdicts stay in the database: the store's release computes them there."""
        return None

    def value_counts(self) -> tuple[tuple[int, ...], ...]:
        """Rows per leaf code of every QI, by one query."""
        return self.store.value_counts()
