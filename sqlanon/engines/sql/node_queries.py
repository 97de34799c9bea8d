"""The SQL runner's check queries: a node's check in the shape its models and metric need (class
sizes, lean figures, or the full statistics with the models' figures), rendered from a template
per shape, and its result read into ``ClassStats``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.core.needs import Need
from sqlanon.core.stats import ClassStats
from sqlanon.criteria.conditions import Conditions
from sqlanon.engines.sql.layout import Layout
from sqlanon.kernel.size_histogram import from_class_sizes, from_size_histogram
from sqlanon.lattice import Node


class NodeQueries:
    """The check queries over ``store``'s base class table or a snapshot (its temp table), for
    the store's ``layout``; templates are rendered once per shape and kept here."""

    def __init__(self, store, layout: Layout):
        self.store = store
        self.layout = layout
        self._templates: dict[tuple, c.NodeTemplate] = {}
        self._wide_token = store.quoted(c.WIDE)

    @property
    def sizes_in_process(self) -> bool:
        """The store's (``SqlEngine.sizes_in_process``), read at each check."""
        return self.store.sizes_in_process

    def check(
        self, node: Node, keep: Conditions, needs: Need, source, tag: int | None = None
    ) -> tuple[str, object, dict]:
        """A node's check query over the base class table or the snapshot ``source``: its
        shape, its SQL (text from a template, or a tree) and the metric's named sums. Shapes:
        ``sizes``: the models and metric read class sizes only, so the node's class-size
        histogram says everything (``compiler.size_histogram_query``; or its class sizes,
        ``compiler.class_sizes_query``, where ``sizes_in_process``); ``lean``: sizes and leaf
        counts, one row of figures (``compiler.lean_stats_query``); both over the wide form, in
        the lean mode (``_mode``); ``stats``: anything else (``compiler.stats_query``). ``tag``:
        the node's place in a batch, which the class sizes' query carries itself
        (``sizes_in_process``); any other query is tagged by ``compiler.batch_query``."""
        layout, store = self.layout, self.store
        with_leaves, uniques, lnx = Need.LEAVES in needs, Need.UNIQUES in needs, Need.LNX in needs
        sums = keep.stats_columns(len(node))
        signature = keep.signature
        lean = (
            not sums
            and not keep.has_figures
            and (source is not None or layout.lookup == "wide")
            and layout.subset is None
        )  # a research subset joins the population query (see node_figures)
        # a QI whose level has one value adds nothing to a grouping: the lean shapes leave it
        # out; two paired QIs are one key in the base wide table (compiler.with_pairs). The
        # templates group by a slot the node's keys replace; with no key left, by nothing.
        if lean:
            alike = tuple(len(layout.hierarchies[j].labels[level]) == 1 for j, level in enumerate(node))
            keys = c.group_key_names(node, alike, layout.pairs if source is None else ())
            slot = bool(keys)  # else no key is left: the template of one class, grouped by nothing
            alike = () if slot else (True,) * len(node)
        if lean and not with_leaves and self.sizes_in_process:
            tagged = tag is not None
            return (
                "sizes",
                self.node_query(
                    ("class sizes", slot, tagged),
                    node,
                    lambda n, lookup: c.class_sizes_query(n, alike, (), slot, tagged),
                    source,
                    keys,
                    tag,
                ),
                sums,
            )
        if lean and not with_leaves:
            return (
                "sizes",
                self.node_query(
                    ("sizes", signature, slot),
                    node,
                    lambda n, lookup: c.size_histogram_query(n, keep(c.col("n")), alike, (), slot),
                    source,
                    keys,
                ),
                sums,
            )
        if lean:
            return (
                "lean",
                self.node_query(
                    ("lean", with_leaves, uniques, signature, slot),
                    node,
                    lambda n, lookup: c.lean_stats_query(n, keep(c.col("n")), with_leaves, uniques, alike, (), slot),
                    source,
                    keys,
                ),
                sums,
            )
        return (
            "stats",
            self.node_query(
                ("stats", with_leaves, uniques, lnx, signature),
                node,
                lambda n, lookup: c.stats_query(
                    n,
                    keep(c.col("n")),
                    with_leaves,
                    layout.projection,
                    lookup,
                    store.node_figures(n, keep, lookup),
                    uniques=uniques,
                    sums=sums,
                    lnx=lnx,
                    empty=store.empty_population(n, lookup),
                ),
                source,
            ),
            sums,
        )

    def node_query(
        self, shape: tuple, node: Node, build, read=None, keys: Sequence[str] = (), tag: int | None = None
    ) -> str | exp.Expression:
        """The SQL of a per-node query over the base class table or the snapshot ``read``.
        Whatever reads the wide form (the wide table, any snapshot) comes from a template
        rendered once per shape; only base checks in the join layout build a tree per node."""
        store = self.store
        store.ensure_wide()
        if read is None and self.layout.lookup != "wide":
            return build(node, self.layout.lookup)
        template = self._templates.get(shape)
        if template is None:
            template = self._templates[shape] = c.NodeTemplate(lambda n: build(n, "wide"), len(node), store.dialect)
        sql = template.render(node, keys, tag)
        return sql if read is None else sql.replace(self._wide_token, store.quoted(read.name))

    def params(self, shape: str, params: dict) -> dict:
        """The parameters a check query binds: none for class sizes, whose verdicts are made in
        process (DuckDB refuses parameters a statement does not read)."""
        return {} if shape == "sizes" and self.sizes_in_process else params

    def read_sizes(self, found: dict[str, np.ndarray], keep: Conditions, params: dict, needs: Need) -> ClassStats:
        """The figures of a ``sizes`` check from its arrays: the class sizes (``sizes_in_process``)
        or the size histogram with the verdicts."""
        if self.sizes_in_process:
            return from_class_sizes(found["n"], keep, params, Need.UNIQUES in needs, Need.SIZES in needs)
        return from_size_histogram(
            found["n"], found["classes"], found["kept"], Need.UNIQUES in needs, Need.SIZES in needs
        )

    def read_check(self, shape: str, node: Node, rows: list, needs: Need, sums: dict) -> ClassStats:
        """ClassStats from the rows of a node's check query (see ``check``); suppressed
        histograms and kept sizes are the caller's; the ``sizes`` shape is read in arrays
        (``read_sizes``)."""
        row = rows[0]
        with_leaves, uniques = Need.LEAVES in needs, Need.UNIQUES in needs
        # COUNT and COALESCE(SUM, 0) are never NULL; a MIN is, over no (kept) class
        classes, kept_classes, suppressed, dm_kept, dm_all = (int(row[i]) for i in (0, 1, 2, 4, 5))
        min_kept, min_class = (int(x) if x is not None else None for x in (row[3], row[6]))
        rest = list(row[7:])
        leaves = tuple(int(x) for x in rest[: len(node)]) if with_leaves else None
        rest = rest[len(node) :] if with_leaves else rest
        unique_count = int(rest.pop(0)) if uniques else None
        empty = int(rest.pop()) if shape == "stats" and self.layout.subset is not None else None  # the last column
        figures = {name: float(value) for name, value in zip(sums, rest)} if sums else None
        return ClassStats(
            classes,
            kept_classes,
            suppressed,
            min_kept,
            dm_kept,
            dm_all,
            leaves,
            None,
            unique_count,
            figures,
            min_class,
            None,
            empty,
        )
