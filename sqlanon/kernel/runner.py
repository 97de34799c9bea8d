"""Checks in process: the per-node check over a base class table held as numpy arrays.

The in-memory engine builds its base class table from the rows it reads; a SQL engine with
``checks = "local"`` fetches its own (``sqlanon_classes``) once as Arrow. Either way the
kernel answers every check from those arrays, so the two placements differ only in where
the data-proportional work (read, encode, compress, write, verify) runs.

The table: the distinct combinations of QI codes (and of the sensitive codes the models
read), their rows ``n``, for the KL-divergence ``n ln c_x``, and with a research subset
(delta-presence) the population count ``pop`` (population-only rows carry n = 0). With
sensitive codes the kernel turns it into one row per QI class, each class holding its
sensitive histograms, so a check regroups the QI classes (12,458 on ADULT's eight QIs, against
19,502 class-and-value rows) and merges their histograms in one compiled pass: as a (classes x
values) count matrix (``Dense``) when the domain is small enough that the matrix costs at most
twice the pairs (ADULT's occupation: 14 values), else as each class's (value, count) pairs
(``Pairs``).
``up[j][l]`` maps QI j's leaf codes to level l, and ``maps`` holds the level a -> level b maps a
check reads, each built when first read (hierarchies are functional). A check
generalizes each code column of its starting table through ``up`` (a column already at the
node's level is taken as it is when projection is on), combines them into one mixed-radix
integer key (or ``np.unique`` over the stacked columns when the radix product would overflow
int64) and sums the rows per key, in one compiled pass (``grouping.Grouper``). The node's
table is kept as a snapshot when the checker's policy (``sqlanon/checks/snapshots.py``) asks
(``keep_snapshot``), and a check starts from the snapshot it names (``class_stats(..., start)``).

Verdicts use the models' own predicates and the metrics' own sums, evaluated over arrays
(``evaluate``); the models' figures are computed in numpy (``figures``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from sqlanon.criteria.conditions import Conditions
from sqlanon.core.needs import Need
from sqlanon.kernel.evaluate import compiled
from sqlanon.kernel.grouping import Grouper, Maps, gather, summary, total, weighted_sums
from sqlanon.kernel.histogram_dense import dense_masks, merge_dense
from sqlanon.kernel.histogram_pairs import regroup_histograms
from sqlanon.kernel.tables import (
    Classes,
    Dense,
    Pairs,
    Table,
    dense_fits,
    dense_type,
    leaf_levels,
    size_table,
)
from sqlanon.kernel.figures import Histogram, dense_figures, figures
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.core.stats import ClassStats


#: the most check plans (radices and map offsets per step) kept before starting afresh
PLANS = 1 << 16
#: the verdicts of classes not decided yet: ``Kernel.classes`` decides them once their columns are in
_UNDECIDED = np.zeros(0, bool)


class Kernel:
    """Every per-node question over one base class table: ``class_stats`` (a check),
    ``keep_snapshot``/``drop_snapshot``/``reset_snapshots`` (the snapshots' storage: the
    tables themselves, kept or not as the checker's policy says), and outside a search
    ``node_classes``, ``class_sizes``, ``class_figures``, ``failing_classes``.

    ``sensitives``: per attribute the models read, its name, values (codes are positions)
    and their frequencies ``q`` in the input; ``tables``: the models' auxiliary tables by name
    (shared with the engine, which adds to it); ``count(rows)`` is called once per pass
    over a table, for the engine's ``queries`` and ``rows_scanned``. Of ``settings`` the kernel
    reads ``projection``.

    It is a check runner (``engines/runner.py``): the in-process one, which the memory engine
    always uses and a SQL engine with ``checks = "local"`` builds over its fetched class table."""

    where: Literal["local"] = "local"
    batches = False  # a check costs microseconds here: one node at a time
    snapshots = True  # a snapshot is the arrays themselves

    def __init__(
        self,
        hierarchies: Sequence[EncodedHierarchy],
        base: Table,
        sensitives: Sequence[tuple[str, list[str], np.ndarray]],
        settings: SnapshotSettings,
        tables: dict,
        count: Callable[[int], None],
    ):
        self.hierarchies = list(hierarchies)
        self.names = [name for name, _, _ in sensitives]
        self.values = [values for _, values, _ in sensitives]
        self.q = [np.asarray(q, np.float64) for _, _, q in sensitives]
        self.settings = settings
        self.tables = tables
        self.count = count
        self.sizes = [[len(level) for level in h.labels] for h in self.hierarchies]
        # per QI the leaf codes its base table holds: every code a check meets generalizes one
        self._held_leaves = [
            np.flatnonzero(np.bincount(base.codes()[j], minlength=self.sizes[j][0]))
            for j in range(len(self.hierarchies))
        ]
        self.up = [leaf_levels(h, held) for h, held in zip(self.hierarchies, self._held_leaves)]
        # the up maps keyed (QI, from level, to level) end to end, so a check passes its
        # columns' maps to the compiled loop by offset; each built when a check first reads it
        # (a search reads a few of the pairs of levels), as are the levels' leaf counts
        self.maps: Maps[tuple[int, int, int]] = Maps({}, self._up_map)
        self.leaf_maps: Maps[tuple[int, int]] = Maps({}, lambda key: self.leaves(*key))
        self._arrays: dict[tuple[str, int, int], np.ndarray] = {}  # per (kind, QI, level): _per_code
        self._pending: Table | None = None  # the table of the node the last check computed
        self._derived: dict = {}  # per auxiliary table, what the figures derive from it once
        self._aux: dict[int, tuple] = {}  # per model object: (the model, its auxiliary table's name)
        self._plans: dict[tuple, tuple] = {}  # per (source node, node, projection): radices, map offsets
        self._leaf_offsets: dict[tuple, np.ndarray] = {}  # per node: its leaf counts' offsets
        self.grouper = Grouper(len(base.n))
        self.base_rows = len(base.n)  # the class table's rows as given, before any regrouping below
        # codes as int32 when every domain allows (a check reads the code matrix twice and
        # writes it once: half the bytes through the cache); the groupings keep the type
        widest = max([size for sizes in self.sizes for size in sizes] + [len(values) for values in self.values] + [1])
        matrix = np.ascontiguousarray(base.codes(), np.int32 if widest < 2**31 else np.int64)
        base = replace(base, matrix=matrix)
        self.base = self._by_class(base) if matrix.shape[0] > len(base.node) else base

    def _up_map(self, key: tuple[int, int, int]) -> np.ndarray:
        """QI j's codes at level a mapped to level b: through the leaves the base table holds,
        whose codes at level a are every code a table of the kernel can hold there."""
        j, a, b = key
        up, held = self.up[j], self._held_leaves[j]
        if a == 0:
            return up[b]
        mapping = np.zeros(self.sizes[j][a], np.int64)
        mapping[up[a][held]] = up[b][held]
        return mapping

    def leaves(self, j: int, level: int) -> np.ndarray:
        """Per code of QI j at ``level``, the hierarchy rows under it (``_per_code``)."""
        return self._per_code("leaves", j, level, self.hierarchies[j].leaves[level])

    def labels(self, j: int, level: int) -> np.ndarray:
        """Per code of QI j at ``level``, its text (``_per_code``)."""
        return self._per_code("labels", j, level, self.hierarchies[j].labels[level])

    def _per_code(self, kind: str, j: int, level: int, values: Sequence) -> np.ndarray:
        """``values`` (one per code of QI j at ``level``) as an array, made on first use and
        filled, as ``leaf_levels`` fills the up maps, at the codes the base table's leaves
        generalize to (0 or None elsewhere, never read)."""
        found = self._arrays.get((kind, j, level))
        if found is None:
            codes = np.unique(self.up[j][level][self._held_leaves[j]])
            size = self.sizes[j][level]
            found = np.zeros(size, np.int64) if kind == "leaves" else np.full(size, None, object)
            found[codes] = [values[code] for code in codes.tolist()]
            self._arrays[(kind, j, level)] = found
        return found

    def _by_class(self, table: Table) -> Table:
        """``table`` (rows = distinct QI and sensitive codes) as one row per QI class with
        each sensitive attribute's histogram per class: a check then regroups the QI classes
        only and merges their histograms (``regroup_histograms``), instead of regrouping every
        (class, value) row and rebuilding the histograms from them."""
        d = len(table.node)
        radices = [self.sizes[j][level] for j, level in enumerate(table.node)]
        matrix, inverse, n = self.grouper.regroup(
            np.ascontiguousarray(table.codes()[:d]),
            radices,
            self.maps.values,
            np.full(d, -1, np.int64),
            table.n,
            ordered=True,
        )
        groups = matrix.shape[1]
        nlnx = total(inverse, table.nlnx, groups) if table.nlnx is not None else None
        pop = total(inverse, table.pop, groups) if table.pop is not None else None
        live = table.n > 0  # population-only rows (n = 0, sensitive codes read as 0) hold no value
        rows = int(live.sum())
        histograms: list[Pairs | Dense] = []
        for codes, values in zip(table.codes()[d:], self.values):
            pairs = Pairs(
                *regroup_histograms(
                    np.arange(rows + 1, dtype=np.int64),
                    codes[live],
                    table.n[live],
                    inverse[live],
                    groups,
                    len(values),
                    n,
                )
            )
            if dense_fits(len(values), groups, len(pairs.v), int(n.sum())):
                counts = np.zeros((groups, len(values)), dense_type(int(n.sum())))
                counts[np.repeat(np.arange(groups), np.diff(pairs.bounds)), pairs.v] = pairs.f
                histograms.append(Dense(counts, dense_masks(counts)))
            else:
                histograms.append(pairs)
        return Table(table.node, matrix, n, nlnx, pop, histograms)

    # -- grouping ----------------------------------------------------------------------------
    def generalize(self, source: Table, node: Node, ordered: bool = True, deferred: bool = False) -> Table:
        """``source``'s table regrouped at ``node`` (a generalization of its node); unless
        ``ordered``, its classes in any order (see ``regroup``); if ``deferred``, its code
        matrix is made when first read (``Table.codes``)."""
        node, projection = tuple(node), self.settings.projection
        plan = self._plans.get((source.node, node, projection))
        if plan is None:  # a node's radices and a step's maps, worked out once, not per check
            if len(self._plans) >= PLANS:
                self._plans.clear()
            chosen = [None if a == b and projection else (j, a, b) for j, (a, b) in enumerate(zip(source.node, node))]
            plan = self._plans[(source.node, node, projection)] = (
                tuple(self.sizes[j][b] for j, b in enumerate(node)),
                self.maps.offsets(chosen),
            )
        radices, offsets = plan
        codes, maps = source.codes(), self.maps.values
        first, inverse, n = self.grouper.group(codes, radices, maps, offsets, source.n, ordered)
        self.count(len(source.n))
        count = len(first)
        nlnx = total(inverse, source.nlnx, count) if source.nlnx is not None else None
        pop = total(inverse, source.pop, count) if source.pop is not None else None
        histograms = None
        if source.histograms is not None:
            histograms = [
                Dense(*merge_dense(h.counts, h.held, inverse, count))
                if isinstance(h, Dense)
                else Pairs(*regroup_histograms(h.bounds, h.v, h.f, inverse, count, len(values), n))
                for h, values in zip(source.histograms, self.values)
            ]
        if deferred:
            return Table(tuple(node), None, n, nlnx, pop, histograms, lambda: gather(codes, maps, offsets, first))
        return Table(tuple(node), gather(codes, maps, offsets, first), n, nlnx, pop, histograms)

    def classes(self, table: Table, keep, params: dict, leaves: bool = True) -> Classes:
        """The node's classes from its table: sizes, the models' figures, the verdicts. With a
        research subset, classes without subset rows release nothing and are dropped (as the
        SQL path's population join drops them), and counted (``Classes.empty``). ``leaves``:
        add the columns ``leaves{j}`` even when the keep condition does not read them."""
        n, pop, nlnx, histograms, live, empty = table.n, table.pop, table.nlnx, table.histograms, None, None
        if pop is not None:
            live = n > 0
            # they are dropped, but counted: with dmin > 0 they fail the node (criteria/delta_presence.py)
            empty = len(n) - int(live.sum())
            if live.all():
                live = None
            else:
                n, pop = n[live], pop[live]
                nlnx = nlnx[live] if nlnx is not None else None
                if histograms is not None:
                    # a class without subset rows holds no value: its run is empty
                    histograms = [
                        Dense(h.counts[live], h.held[live])
                        if isinstance(h, Dense)
                        else Pairs(np.append(h.bounds[:-1][live], h.bounds[-1]), h.v, h.f, h.share)
                        for h in histograms
                    ]
        columns: dict[str, np.ndarray] = {"n": n}
        cls = Classes(table, n, columns, _UNDECIDED, live, empty)
        if leaves or compiled(keep).reads_leaves(len(table.node)):
            matrix = cls.matrix
            for j, level in enumerate(table.node):
                columns[f"leaves{j}"] = self.leaves(j, level)[matrix[j]]
        if nlnx is not None:
            columns["lnx"] = nlnx
        if pop is not None:
            columns["pop"] = pop
        for model in keep.histogram_models:
            assert histograms is not None  # a model that reads histograms has its attribute's codes in the table
            columns.update(self._figures(model, histograms, n))
        cls.kept = compiled(keep).keep(columns, params)
        return cls

    def _figures(self, model, histograms: list[Pairs | Dense], n: np.ndarray) -> dict[str, np.ndarray]:
        known = self._aux.get(id(model))
        if known is None or known[0] is not model:
            # the name hashes the model's settings: once per model, not per check
            known = self._aux[id(model)] = (model, model.aux)
        i = self.names.index(model.attribute)
        h = histograms[i]
        if isinstance(h, Dense):
            dense = dense_figures(
                model, h.counts, h.held, n, self.q[i], self.tables.get(known[1]), self._derived, known[1]
            )
            if dense is not None:
                return dense
            h = h.pairs(n)
        histogram = Histogram(h.bounds, h.v, h.f, h.share, n, self.q[i])
        return figures(model, histogram, self.tables.get(known[1]), self._derived, known[1])

    def value_counts(self) -> tuple[tuple[int, ...], ...]:
        """Rows per leaf code of every QI, by bincounts over the base table (one pass per QI)."""
        self.count(self.base_rows * len(self.hierarchies))
        return tuple(
            tuple(
                np.bincount(self.base.codes()[j], weights=self.base.n, minlength=h.size)
                .round()
                .astype(np.int64)
                .tolist()
            )
            for j, h in enumerate(self.hierarchies)
        )

    # -- checks ------------------------------------------------------------------------------
    def class_stats(self, node: Node, keep, params: dict, needs: Need, start: Table | None = None) -> ClassStats:
        """One check, from the base table or the snapshot ``start`` (a ``keep_snapshot`` handle)."""
        source = start if start is not None else self.base
        table = self.generalize(source, node, ordered=False, deferred=True)
        cls = self.classes(table, keep, params, leaves=False)
        self._pending = table
        n, kept = cls.n, cls.kept
        kept_classes, suppressed, min_kept, dm_kept, dm_all, min_class, uniques = summary(n, kept)
        leaves = None
        if Need.LEAVES in needs:
            offsets = self._leaf_offsets.get(table.node)
            if offsets is None:
                if len(self._leaf_offsets) >= PLANS:
                    self._leaf_offsets.clear()
                offsets = self._leaf_offsets[table.node] = self.leaf_maps.offsets(list(enumerate(node)))
            leaves = tuple(int(x) for x in weighted_sums(cls.matrix, n, kept, self.leaf_maps.values, offsets))
        figures_ = compiled(keep).figures(len(node), {**cls.columns, "kept": kept}, params)
        histograms: tuple[tuple[int, ...], ...] | None = None
        if Need.SUPPRESSED_HISTOGRAMS in needs:
            histograms = tuple(() for _ in node)
            if suppressed:
                histograms = tuple(
                    tuple(int(x) for x in total(cls.codes[j][~kept], n[~kept], self.sizes[j][level]) if x)
                    for j, level in enumerate(node)
                )
        return ClassStats(
            classes=len(n),
            kept_classes=kept_classes,
            suppressed=suppressed,
            min_kept=min_kept if min_kept >= 0 else None,
            dm_kept=dm_kept,
            dm_all=dm_all,
            kept_leaves=leaves,
            suppressed_histograms=histograms,
            kept_uniques=uniques if Need.UNIQUES in needs else None,
            figures=figures_,
            min_class=min_class if min_class >= 0 else None,
            kept_sizes=size_table(n[kept]) if Need.SIZES in needs else None,
            empty_classes=cls.empty,
        )

    def class_stats_many(self, nodes: Sequence[Node], keep, params: dict, needs: Need) -> None:
        return None  # one node at a time (``batches`` is off): nothing is gained by batching arrays

    def keep_snapshot(self, node: Node) -> Table:
        """The table of the node just computed, as the handle of its snapshot. Keeping arrays
        costs nothing, but the checker's policy keeps the same nodes whatever the placement
        (``Snapshots.worth_keeping``), so every check starts from the same table and counts alike."""
        pending, self._pending = self._pending, None
        if pending is None or pending.node != tuple(node):
            raise ValueError(f"keep_snapshot({node}): the last check computed {pending and pending.node}")
        pending.codes()  # a snapshot is read as a source: its codes made now, its source let go
        return pending

    def drop_snapshot(self, handle: Table) -> None:
        """Nothing to do: the last reference to the arrays frees them."""

    def reset_snapshots(self) -> None:
        self._pending = None

    # -- outside a search (explain, risk, figures, output) -----------------------------------
    def node_classes(self, node: Node, keep, params: dict) -> Classes:
        """A node's classes from the base table."""
        return self.classes(self.generalize(self.base, node), keep, params)

    def failing_classes(self, node: Node, keep, params: dict, limit: int) -> list[tuple]:
        """Up to ``limit`` classes failing the models, smallest first: (labels..., size)."""
        cls = self.node_classes(node, keep, params)
        rows = [
            tuple(self.labels(j, level)[cls.codes[j][c]] for j, level in enumerate(node)) + (int(cls.n[c]),)
            for c in np.flatnonzero(~cls.kept)
        ]
        rows.sort(key=lambda row: (row[-1], *row[:-1]))
        return rows[:limit]

    def class_sizes(self, node: Node, keep=None, params: dict | None = None) -> dict[int, int]:
        """Class size -> number of classes of ``node`` (with ``keep``: of its kept classes)."""
        cls = self.node_classes(node, keep or Conditions(()), params or {})
        return size_table(cls.n[cls.kept] if keep is not None else cls.n)

    def class_figures(self, node: Node, keep, params: dict) -> list[dict]:
        """Every class of a node with its size, the models' figures and its verdict, in code order."""
        cls = self.node_classes(node, keep, params)
        names = (
            [f"g{j}" for j in range(len(node))]
            + ["n"]
            + [name for name in cls.columns if name != "n" and not name.startswith("leaves") and name != "lnx"]
        )
        columns = {**{f"g{j}": cls.codes[j] for j in range(len(node))}, **cls.columns, "kept": cls.kept}
        return [{name: columns[name][c].item() for name in [*names, "kept"]} for c in range(len(cls.n))]
