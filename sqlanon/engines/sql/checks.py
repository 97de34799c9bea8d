"""A SQL engine's checks: a node's check query in the shape its models and metric need (class
sizes, lean figures or the full statistics with the models' figures), read into ``ClassStats``;
the node's failing classes, class sizes and figures; the class table for an in-memory search;
and where checks run (in SQL, or in process from the base class table: ``local_checks.py``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.core.stats import ClassStats
from sqlanon import sql as c
from sqlanon.engines.base import KeepCondition
from sqlanon.engines.sql.local_checks import fetch_kernel
from sqlanon.engines.sql.fetched import fetched_bytes
from sqlanon.kernel.size_histogram import from_class_sizes, from_size_histogram
from sqlanon.lattice import Node


class SqlChecks:
    """The checks of a SQL engine, in SQL or placed in process.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it reads the attributes
    ``SqlEngine.__init__`` sets and calls the hooks the module docstring there lists.
    """

    def _figures(self, node: Node, keep: KeepCondition, lookup: str | None = None) -> list[exp.Select]:
        """The per-class figure queries of the models that read a sensitive histogram."""
        lookup = lookup or self.lookup
        figures = [] if keep is None or not keep.has_figures else keep.figures(
            lambda name: c.histogram_query(node, self._sensitives.index(name), self.settings.projection, lookup),
            c.class_keys(node))
        if self._subset is not None:  # the population counts, and only classes with subset rows
            figures.append(c.population_query(node, self.settings.projection, lookup))
        return figures

    # -- placement (sqlanon/checks/placement.py decides; engines/sql/local_checks.py fetches) -------------
    def class_table_columns(self) -> int:
        """Columns of the base class table: QI codes, sensitive codes, n, pop, lnx."""
        return len(self._qi_names) + len(self._sensitives) + 1 + (self._subset is not None) + (Need.LNX in self._needs)

    def query_latency(self, times: int = 3) -> float:
        """Seconds a check pays before it reads a row (parsing, planning, scheduling, the round
        trip), measured here: the median of ``times`` runs of a check-shaped query — every QI
        code column of the base class table grouped, then summed — over none of its rows."""
        keys = [c.col(c.qi(j)) for j in range(len(self._qi_names))]
        empty = exp.select(exp.Star()).from_(c.table(c.CLASSES)).limit(0).subquery(c.ident("b"))
        grouped = (exp.select(*keys, exp.Sum(this=c.col("n")).as_(c.ident("n"))).from_(empty)
                   .group_by(*(key.copy() for key in keys)))
        query = self.sql(exp.select(exp.Count(this=exp.Star()), exp.Sum(this=c.col("n")), exp.Min(this=c.col("n")))
                         .from_(grouped.subquery(c.ident("g"))))
        seconds = []
        for _ in range(times):
            started = time.perf_counter()
            self.run(query)
            seconds.append(time.perf_counter() - started)
        return statistics.median(seconds)

    def place_checks(self, placement: str) -> None:
        """``local``: fetch the base class table once and answer every check from it in
        process; ``sql``: every check is a query (as before)."""
        if placement == "sql":
            self._ensure_wide()
        if placement == "local" and self.kernel is None:
            self.reset_snapshots()
            self.kernel = fetch_kernel(self)

    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: Need,
                    start=None) -> ClassStats:
        if self.kernel is not None:
            return self.kernel.class_stats(node, keep, params, needs, start)
        self._ensure_wide()
        source = start  # a snapshot's temp table (keep_snapshot), or None: the base class table
        shape, query, sums = self._check_query(node, keep, needs, source)
        lean_rows = self._rows_of(source) if shape != "stats" else None
        if shape == "sizes":
            stats = self._read_sizes(self.run_columns(query, self._check_params(shape, params), lean_rows), keep, params, needs)
        else:
            stats = self._read_check(shape, node, self.run(query, params, lean_rows), needs, sums)
        self.rows_scanned += self._rows_of(source)
        if Need.SUPPRESSED_HISTOGRAMS in needs:
            histograms = self._suppressed_histograms(node, keep, params, source) if stats.suppressed else tuple(() for _ in node)
            stats = replace(stats, suppressed_histograms=histograms)
        if Need.SIZES in needs and shape != "sizes":
            # the kept classes' size frequencies (population uniqueness): a second query, over the base table
            stats = replace(stats, kept_sizes=self.class_sizes(node, keep, params))
        self._pending = (node, source, stats.classes)
        return stats

    def _check_params(self, shape: str, params: dict) -> dict:
        """The parameters a check query binds: none for class sizes, whose verdicts are made in
        process (DuckDB refuses parameters a statement does not read)."""
        return {} if shape == "sizes" and self.sizes_in_process else params

    def _read_sizes(self, found: dict[str, np.ndarray], keep: KeepCondition, params: dict,
                    needs: Need) -> ClassStats:
        """The figures of a ``sizes`` check from its arrays: the class sizes (``sizes_in_process``)
        or the size histogram with the verdicts."""
        if self.sizes_in_process:
            return from_class_sizes(found["n"], keep, params, Need.UNIQUES in needs, Need.SIZES in needs)
        return from_size_histogram(found["n"], found["classes"], found["kept"], Need.UNIQUES in needs, Need.SIZES in needs)

    def _check_query(self, node: Node, keep: KeepCondition, needs: Need, source,
                     tag: int | None = None) -> tuple[str, object, dict]:
        """A node's check query over the base class table or the snapshot ``source``: its
        shape, its SQL (text from a template, or a tree) and the metric's named sums. Shapes:
        ``sizes``: the models and metric read class sizes only, so the node's class-size
        histogram says everything (``compiler.size_histogram_query``; or its class sizes,
        ``compiler.class_sizes_query``, where ``sizes_in_process``); ``lean``: sizes and leaf
        counts, one row of figures (``compiler.lean_stats_query``); both over the wide form, in
        the lean mode (``_mode``); ``stats``: anything else (``compiler.stats_query``). ``tag``:
        the node's place in a batch, which the class sizes' query carries itself
        (``sizes_in_process``); any other query is tagged by ``compiler.batch_query``."""
        with_leaves, uniques, lnx = Need.LEAVES in needs, Need.UNIQUES in needs, Need.LNX in needs
        sums = keep.stats_columns(len(node))
        signature = keep.signature
        lean = (not sums and not keep.has_figures and (source is not None or self.lookup == "wide")
                and self._subset is None)  # a research subset joins the population query (see _figures)
        # a QI whose level has one value adds nothing to a grouping: the lean shapes leave it
        # out; two paired QIs are one key in the base wide table (compiler.with_pairs). The
        # templates group by a slot the node's keys replace; with no key left, by nothing.
        if lean:
            alike = tuple(len(self._hierarchies[j].labels[level]) == 1 for j, level in enumerate(node))
            keys = c.group_key_names(node, alike, self._pairs if source is None else ())
            slot = bool(keys)  # else no key is left: the template of one class, grouped by nothing
            alike = () if slot else (True,) * len(node)
        if lean and not with_leaves and self.sizes_in_process:
            tagged = tag is not None
            return "sizes", self._node_query(("class sizes", slot, tagged), node,
                                             lambda n, lookup: c.class_sizes_query(n, alike, (), slot, tagged), source,
                                             keys, tag), sums
        if lean and not with_leaves:
            return "sizes", self._node_query(("sizes", signature, slot), node,
                                             lambda n, lookup: c.size_histogram_query(n, keep(c.col("n")), alike, (), slot),
                                             source, keys), sums
        if lean:
            return "lean", self._node_query(("lean", with_leaves, uniques, signature, slot), node,
                                            lambda n, lookup: c.lean_stats_query(n, keep(c.col("n")), with_leaves, uniques,
                                                                                 alike, (), slot),
                                            source, keys), sums
        return "stats", self._node_query(
            ("stats", with_leaves, uniques, lnx, signature), node,
            lambda n, lookup: c.stats_query(n, keep(c.col("n")), with_leaves, self.settings.projection, lookup,
                                            self._figures(n, keep, lookup), uniques=uniques, sums=sums, lnx=lnx,
                                            empty=self._empty(n, lookup)),
            source), sums

    def _empty(self, node: Node, lookup: str) -> exp.Select | None:
        """With a research subset: the count of the node's population classes without subset rows."""
        return None if self._subset is None else c.empty_population_query(node, self.settings.projection, lookup)

    def _read_check(self, shape: str, node: Node, rows: list, needs: Need, sums: dict) -> ClassStats:
        """ClassStats from the rows of a node's check query (see ``_check_query``); suppressed
        histograms and kept sizes are the caller's; the ``sizes`` shape is read in arrays
        (``size_histogram.from_size_histogram``)."""
        row = rows[0]
        with_leaves, uniques = Need.LEAVES in needs, Need.UNIQUES in needs
        classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class = (
            int(x) if x is not None else None for x in row[:7]
        )
        rest = list(row[7:])
        leaves = tuple(int(x) for x in rest[:len(node)]) if with_leaves else None
        rest = rest[len(node):] if with_leaves else rest
        unique_count = int(rest.pop(0)) if uniques else None
        empty = int(rest.pop()) if shape == "stats" and self._subset is not None else None  # the last column
        figures = {name: float(value) for name, value in zip(sums, rest)} if sums else None
        return ClassStats(classes, kept_classes, suppressed, min_kept, dm_kept, dm_all, leaves, None, unique_count,
                          figures, min_class, None, empty)

    def _suppressed_histograms(self, node: Node, keep: KeepCondition, params: dict, read=None):
        query = self._node_query(
            ("histograms", keep.signature), node,
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

    def check_sql(self, node: Node, keep: KeepCondition, needs: Need) -> str:
        """The SQL of a node's check, as sent to the database (pretty-printed)."""
        return self.sql(c.stats_query(node, keep(c.col("n")), Need.LEAVES in needs, self.settings.projection, self.lookup, self._figures(node, keep),
                             uniques=Need.UNIQUES in needs, empty=self._empty(node, self.lookup)), pretty=True)

    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]:
        """Up to ``limit`` classes failing the models, smallest first: (labels..., size)."""
        if self.kernel is not None:
            return self.kernel.failing_classes(node, keep, params, limit)
        self._ensure_wide()
        query = c.failing_classes_query(node, keep(c.col("n", "cls")), self.lookup, self._figures(node, keep))
        return self.run(query, {**params, "limit": limit})

    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes)."""
        if self.kernel is not None:
            return self.kernel.class_sizes(node, keep, params)
        self._ensure_wide()
        query = c.class_size_query(node, None if keep is None else keep(c.col("n")), self.settings.projection,
                                   self.lookup, self._figures(node, keep))
        return {int(size): int(count) for size, count in self.run(query, params)}

    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]:
        """Every class of a node with its size, the models' figures and its verdict, in code order."""
        if self.kernel is not None:
            return self.kernel.class_figures(node, keep, params)
        self._ensure_wide()
        self._mode(False, 0)
        cls = c.class_query(node, False, True, self.lookup, self._figures(node, keep)).subquery(c.ident("cls"))
        query = exp.select(exp.Star(), keep(c.col("n")).as_(c.ident("kept"))).from_(cls).order_by(*(c.col(k) for k in c.class_keys(node)))
        self.queries += 1
        names, rows = self._query(self.sql(query), params)
        self.bytes_fetched += fetched_bytes(rows)
        return [dict(zip(names, row)) for row in rows]

    def _node_query(self, shape: tuple, node: Node, build, read=None, keys: Sequence[str] = (),
                    tag: int | None = None) -> str | exp.Expression:
        """The SQL of a per-node query over the base class table or the snapshot ``read``.
        Whatever reads the wide form (the wide table, any snapshot) comes from a template
        rendered once per shape; only base checks in the join layout build a tree per node."""
        self._ensure_wide()
        if read is None and self.lookup != "wide":
            return build(node, self.lookup)
        template = self._templates.get(shape)
        if template is None:
            template = self._templates[shape] = c.NodeTemplate(lambda n: build(n, "wide"), len(node), self.dialect)
        sql = template.render(node, keys, tag)
        return sql if read is None else sql.replace(self._wide_token, self.quoted(read.name))

    def class_table(self, label: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
        """The class table for an in-memory search, read once: leaf codes of each distinct QI
        combination (m, d), its rows (m,), and with ``label`` the label values and the rows of
        each combination per label value (m, L)."""
        self._ensure_row_tables()
        self._mode(False, 0)
        dimensions = len(self._qi_names)
        query = c.labelled_classes_query(dimensions, label)
        result = self._arrow(self.sql(query), {})
        self.bytes_fetched += result.nbytes
        self.queries += 1
        self.rows_scanned += self._count(c.DATA)
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
