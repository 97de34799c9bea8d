"""A stand-in checker: every node's figures given as a dict, answered as
``sqlanon.checks.checker.Checker`` answers them, so any search algorithm runs on a hand-made
lattice without an engine, data, models or a metric.

It is the part of the checker the algorithms see (``tests/unit/test_search_standin.py`` reads the search
package's source and holds this class to every attribute they use): ``check`` (cached: a node
is counted once), ``batch`` (the real ``Batch``, asked one node at a time as the in-memory
engine is), ``checked``, ``results``, ``static_bound``, the counters and the flags
``monotonic_models`` / ``monotonic_metric``, ``limit_rows`` and ``ctx.distinct_by_level``
(DataFly's preference).

The figures are checked when the stand-in is built, so a test cannot run an algorithm on
figures the real checker could never produce: an anonymous node suppresses at most
``limit_rows`` rows; a lower bound is at most the loss of its node and of every
generalization; a flag that says "monotonic" holds on the dict. Left out, the flags are read
from the dict, and each bound is the tightest true one (the smallest loss at or above the node).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Mapping, Sequence

from sqlanon.checks.checker import Batch, CheckResult
from sqlanon.core.stats import ClassStats
from sqlanon.lattice import Lattice, Node
from sqlanon.search.optimum import same_loss


@dataclass(frozen=True)
class Figures:
    """What a check of one node says. ``bound``: the metric's lower bound on the loss of the
    node and its generalizations (None: the tightest one, from the dict); ``min_class``: its
    smallest class, suppressed ones included (IGreedy's criterion)."""

    anonymous: bool
    suppressed: int = 0
    loss: float = 0.0
    bound: float | None = None
    min_class: int | None = None


class StandInChecker:
    """``figures``: node -> ``Figures`` for every node of the lattice whose top is the largest
    level of each QI. ``distinct[j][l]``: QI j's distinct values at level l (the traversal
    order's and DataFly's tie-breaks; default heights[j] - l + 1); ``names``: the QIs' names
    (the last tie-break); ``static_bounds``: node -> the metric's bound from its levels alone
    (default: none, as discernibility has none); ``lattice``: a session's own lattice (its order
    reads the hierarchies' distinct values, ``distinct`` then the data's, as in a session)."""

    def __init__(
        self,
        figures: Mapping[Node, Figures],
        *,
        limit_rows: int = 0,
        monotonic_models: bool | None = None,
        monotonic_metric: bool | None = None,
        distinct: Sequence[Sequence[int]] | None = None,
        names: Sequence[str] | None = None,
        static_bounds: Mapping[Node, float] | None = None,
        lattice: Lattice | None = None,
        on_check=None,
    ):
        heights = tuple(max(levels) for levels in zip(*figures))
        expected = set(itertools.product(*(range(h + 1) for h in heights)))
        if set(figures) != expected:
            raise ValueError(
                f"the figures must cover the lattice of heights {heights}: "
                f"missing {sorted(expected - set(figures))}, extra {sorted(set(figures) - expected)}"
            )
        distinct = distinct or [[h - l + 1 for l in range(h + 1)] for h in heights]
        self.lattice = lattice or Lattice(heights, distinct, names)
        if self.lattice.heights != heights:
            raise ValueError(f"the lattice's heights {self.lattice.heights} are not the figures' {heights}")
        self.limit_rows = limit_rows
        self._given = dict(figures)
        self._above = {node: self._generalizations(node) for node in self._given}
        self._bounds = {node: self._bound(node) for node in self._given}
        self._static = dict(static_bounds or {})
        self._refuse_impossible_figures()
        self.monotonic_models = self._flag("monotonic_models", monotonic_models, self._anonymity_is_monotonic())
        self.monotonic_metric = self._flag("monotonic_metric", monotonic_metric, self._loss_is_monotonic())
        self.ctx = SimpleNamespace(distinct_by_level=tuple(tuple(d) for d in distinct), rows=None)
        self.on_check = on_check
        self.batches = False  # Batch then asks ``check`` one node at a time, engine-free
        self.checks = 0
        self.seconds = 0.0
        self._results: dict[Node, CheckResult] = {}
        #: every node asked of the stand-in, in order (a cached answer is not asked again)
        self.asked: list[Node] = []

    # -- what the search algorithms call (Checker's interface) --------------------------------
    def check(self, node: Node) -> CheckResult:
        cached = self._results.get(node)
        if cached is not None:
            return cached
        figures = self._given[node]  # a KeyError names a node outside the lattice
        self.asked.append(node)
        stats = ClassStats(
            classes=0,
            kept_classes=0,
            suppressed=figures.suppressed,
            min_kept=None,
            dm_kept=0,
            dm_all=0,
            min_class=figures.min_class,
        )
        return self._record(node, stats)

    def _record(self, node: Node, stats: ClassStats, computed: bool = True) -> CheckResult:
        """Counted, cached, passed to ``on_check``: ``Checker._record``'s signature, which
        ``Batch`` calls (``computed`` matters only to a snapshot policy, and there is none)."""
        self.checks += 1
        figures = self._given[node]
        result = CheckResult(node, figures.anonymous, stats, figures.loss, self._bounds[node])
        self._results[node] = result
        if self.on_check is not None:
            self.on_check(result)
        return result

    def check_many(self, nodes: Sequence[Node]) -> list[CheckResult]:
        batch = self.batch(nodes)
        return [batch.check(node) for node in nodes]

    def batch(self, nodes) -> Batch:
        return Batch(self, nodes)

    def checked(self, node: Node) -> CheckResult | None:
        return self._results.get(node)

    def results(self):
        return self._results.values()

    def static_bound(self, node: Node) -> float | None:
        return self._static.get(node)

    def release_snapshots(self) -> None:
        """Nothing is held: the stand-in keeps no snapshot."""

    # -- the figures' own truth, for the tests ----------------------------------------------
    def optimum(self) -> Node | None:
        """The brute-force optimum over the dict: the anonymous node of lowest loss, ties (as
        ``same_loss`` sees them) to the lattice's order; None when no node is anonymous."""
        anonymous = [n for n, f in self._given.items() if f.anonymous]
        if not anonymous:
            return None
        best = min(self._given[n].loss for n in anonymous)
        return min((n for n in anonymous if same_loss(self._given[n].loss, best)), key=self.lattice.order_key)

    def figures(self, node: Node) -> Figures:
        return self._given[node]

    # -- checks of the figures ----------------------------------------------------------------
    def _generalizations(self, node: Node) -> list[Node]:
        return [n for n in self._given if all(a >= b for a, b in zip(n, node))]

    def _bound(self, node: Node) -> float:
        tightest = min(self._given[n].loss for n in self._above[node])
        given = self._given[node].bound
        if given is not None and given > tightest and not same_loss(given, tightest):
            raise ValueError(f"the bound {given} of {node} is above the loss {tightest} of a generalization")
        return tightest if given is None else given

    def _refuse_impossible_figures(self) -> None:
        for node, figures in self._given.items():
            if figures.anonymous and figures.suppressed > self.limit_rows:
                raise ValueError(
                    f"{node} is anonymous but suppresses {figures.suppressed} rows > limit_rows {self.limit_rows}"
                )
        for node, bound in self._static.items():
            tightest = min(self._given[n].loss for n in self._above[node])
            if bound > tightest and not same_loss(bound, tightest):
                raise ValueError(f"the static bound {bound} of {node} is above the loss {tightest} of a generalization")

    def _anonymity_is_monotonic(self) -> bool:
        return all(
            self._given[up].anonymous
            for node, f in self._given.items()
            if f.anonymous
            for up in self.lattice.successors(node)
        )

    def _loss_is_monotonic(self) -> bool:
        return all(
            self._given[up].loss >= f.loss for node, f in self._given.items() for up in self.lattice.successors(node)
        )

    @staticmethod
    def _flag(name: str, claimed: bool | None, holds: bool) -> bool:
        if claimed and not holds:
            raise ValueError(f"{name} = True, but the figures are not monotonic")
        return holds if claimed is None else claimed


def run(algorithm, checker: StandInChecker, **options):
    """``algorithm`` (a class of ``sqlanon.search.ALGORITHMS``) run on the stand-in: its
    outcome and the CPU seconds the search took (steadier than wall time on a shared machine)."""
    started = time.process_time()
    outcome = algorithm(checker.lattice, checker, **options).run()
    return outcome, time.process_time() - started
