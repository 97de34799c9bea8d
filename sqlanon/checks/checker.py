"""check(node) -> CheckResult: the only door from the search to the data.

The checker asks its runner (``engines/runner.py``: the store's SQL or the kernel in process)
for a node's figures, decides anonymity (ARX semantics: a class
failing any per-class model is suppressed whole; the node is anonymous iff the suppressed rows
are at most floor(s * N) and every whole-table model holds on the kept classes), evaluates the
metric and counts what it did. It caches results, so a node is never checked twice in one
search.

It also owns what is decided about the checks rather than computed by them: the placement
(``Placement``, decided once per session in ``sqlanon/checks/placement.py``: where checks run, why,
and the snapshot defaults that follow) and the Flash framework's snapshot policy
(``Snapshots``: which stored class table a check starts from, which nodes to keep; its
counters are ``rollups`` and ``snapshot_hits``). The runner only stores what the policy keeps
(``keep_snapshot``/``drop_snapshot``, see ``engines/runner.py``). The checker holds the runner
alone: never the store.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence


from sqlanon.criteria.conditions import Conditions
from sqlanon.core.needs import Need
from sqlanon.criteria import PrivacyModel
from sqlanon.engines.runner import CheckRunner
from sqlanon.lattice import Node
from sqlanon.metrics import Metric, MetricContext
from sqlanon.checks.placement import Placement
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.checks.snapshots import Snapshot, Snapshots
from sqlanon.core.stats import ClassStats


@dataclass(frozen=True, slots=True)  # slots: made once per check, a third cheaper
class CheckResult:
    node: Node
    anonymous: bool
    stats: ClassStats
    loss: float
    bound: float


class Checker:
    """``runner``: what computes each node's figures (``Session.runner``); ``placement``: where
    the checks run and why (default: the runner's place, undecided);
    ``snapshots``: the snapshot switches as the session resolved them for the placement
    (``Session.snapshot_settings``; default: the placement's own); ``population``: the
    input's rows the history's ratio is taken of (default ``ctx.rows``); ``memo``: a dict shared
    by several checkers of one session, so a node's figures are computed once per condition
    (tests compare many searches on one session)."""

    def __init__(
        self,
        runner: CheckRunner,
        models: Sequence[PrivacyModel],
        metric: Metric,
        ctx: MetricContext,
        limit_rows: int,
        suppression_limit: float,
        on_check=None,
        *,
        placement: Placement | None = None,
        snapshots: SnapshotSettings | None = None,
        population: int | None = None,
        memo: dict | None = None,
    ):
        self.runner = runner
        self.placement = placement or Placement(runner.where, "not decided: a checker without a session")
        self.snapshot_settings = snapshots or self.placement.snapshot_settings(SnapshotSettings(), runner.snapshots)
        self.snapshots = Snapshots(self.snapshot_settings, population or ctx.rows, runner.drop_snapshot)
        self.memo = memo
        self.models = list(models)
        self.metric = metric
        self.ctx = ctx
        self.limit_rows = limit_rows
        self.monotonic_metric = metric.monotonic(suppression_limit)
        # Predictive tagging needs every model monotonic for this limit (ARX's flags).
        self.monotonic_models = all(m.monotonic(suppression_limit) for m in self.models)
        self.table_models = [m for m in self.models if m.whole_table]
        # delta-presence: a population class without subset rows fails the node, not a class
        self.population_models = [m for m in self.models if m.population]
        self.needs = metric.needs | Need.union(m.needs for m in self.models)
        self.keep = Conditions(self.models, metric)
        self.on_check = on_check  # called with every new CheckResult (progress display)
        self.checks = 0
        self.seconds = 0.0  # inside the runner: its class_stats and keep_snapshot calls
        self._results: dict[Node, CheckResult] = {}
        self.params: dict[str, object] = {}
        for model in self.models:
            self.params.update(model.parameters())

    def check(self, node: Node) -> CheckResult:
        cached = self._results.get(node)
        if cached is not None:
            return cached
        started = time.perf_counter()
        stats, computed = self._stats(node)
        self.seconds += time.perf_counter() - started
        return self._record(node, stats, computed)

    def _record(self, node: Node, stats: ClassStats, computed: bool = True) -> CheckResult:
        """The verdict on a node the runner just computed (``computed``; else found in the
        memo): counted, cached, offered to the snapshot policy and passed to ``on_check``."""
        self.checks += 1
        metric, ctx = self.metric, self.ctx
        anonymous = (
            stats.suppressed <= self.limit_rows
            and (not self.table_models or self.table_models_hold(stats))
            and (not self.population_models or self.population_holds(stats))
        )
        # positional: node, anonymous, stats, loss, bound
        result = CheckResult(node, anonymous, stats, metric.value(stats, node, ctx), metric.bound(stats, node, ctx))
        self._results[node] = result
        # The policy keeps the node's classes as a snapshot or not; storing them is the
        # runner's part of the check (on a SQL engine a CREATE TEMP TABLE), so ``seconds``
        # counts it with the query. A node answered from the memo was not computed here.
        if computed:
            started = time.perf_counter()
            self._snapshot(node, stats.classes, result.anonymous)
            self.seconds += time.perf_counter() - started
        if self.on_check is not None:
            self.on_check(result)
        return result

    def _stats(self, node: Node) -> tuple[ClassStats, bool]:
        """The node's figures, and whether the runner computed them now (not the memo)."""
        needs, key = self.needs, None
        if self.memo is not None:
            key = (node, self.keep.signature, tuple(sorted(self.params.items())))
            known = self.memo.get(key)
            if known is not None and needs & known[0] == needs:
                return known[1], False
            needs = needs | (known[0] if known else Need.NONE)
        start = self.snapshots.start(node)
        stats = self.runner.class_stats(node, self.keep, self.params, needs, start=start.handle)
        if self.memo is not None and key is not None:
            self.memo[key] = (needs, stats)
        return stats, True

    def _snapshot(self, node: Node, classes: int, anonymous: bool) -> None:
        """Ask the policy whether to keep the node just computed; tell it what was kept (it
        becomes the roll-up source, maybe a history entry; what nobody holds is dropped)."""
        kept = None
        if self.snapshots.worth_keeping(node, classes, anonymous):
            kept = Snapshot(node, self.runner.keep_snapshot(node), classes)
        self.snapshots.checked(kept, anonymous)

    @property
    def rollups(self) -> int:
        """Checks that started from the node checked just before."""
        return self.snapshots.rollups

    @property
    def snapshot_hits(self) -> int:
        """Checks that started from a snapshot of the history."""
        return self.snapshots.hits

    def release_snapshots(self) -> None:
        """Let the runner drop every snapshot this checker holds (its counters stay). Dropping
        them is the runner's part, as keeping them was: ``seconds`` counts it."""
        started = time.perf_counter()
        self.snapshots.clear()
        self.seconds += time.perf_counter() - started

    def check_many(self, nodes: Sequence[Node]) -> list[CheckResult]:
        """The results of ``nodes``, in order, as ``check`` gives them one by one; the engine
        computes the new ones several at a time (``Batch``)."""
        batch = self.batch(nodes)
        return [batch.check(node) for node in nodes]

    def batch(self, nodes) -> Batch:
        """Nodes the search is about to check, in the order it will take them: see ``Batch``."""
        return Batch(self, nodes)

    @property
    def batches(self) -> bool:
        """Whether the runner may compute several nodes in one call: it can (its
        capabilities), nothing is shared through a memo, and no snapshot policy makes each
        check start from what the one before left."""
        settings = self.snapshot_settings
        return self.runner.batches and self.memo is None and not (settings.rollup or settings.history)

    def table_models_hold(self, stats: ClassStats) -> bool:
        return all(m.table_holds(m.stats_value(stats, self.ctx.rows)) for m in self.table_models)

    def population_holds(self, stats: ClassStats) -> bool:
        """Every delta-presence model holds on the population classes the release leaves
        empty (``ClassStats.empty_classes``, from every engine that prepares a research subset)."""
        if stats.empty_classes is None:
            raise ValueError("the runner returned no count of empty population classes for delta-presence")
        return all(m.empty_classes_hold(stats.empty_classes) for m in self.population_models)

    def checked(self, node: Node) -> CheckResult | None:
        return self._results.get(node)

    def static_bound(self, node: Node) -> float | None:
        return self.metric.static_bound(node, self.ctx)

    def results(self):
        """Every result of this search so far."""
        return self._results.values()


#: nodes a batch asks the runner for at first; each later call of the same batch asks for
#: twice as many, up to ``BATCH_MOST``: a long list (exhaustive search) reaches calls the
#: engine can keep both cores busy with (pipelined statements), and a search that stops
#: early (the completion pass, when the optimum changes) wastes at most what it used
BATCH_NODES = 32
BATCH_MOST = 1024


class Batch:
    """Nodes a search knows it is about to check, in order, before any of their verdicts.

    The search takes each result with ``check(node)`` exactly where it would call
    ``Checker.check``; the runner computes the figures of the next unchecked nodes at once
    (``class_stats_many``: ``BATCH_NODES`` at first, twice as many each time after, up to
    ``BATCH_MOST``; on a SQL engine a few statements of at most 32 nodes) and each is recorded
    (counted, cached, reported) only when taken, so the checks, the trace and every decision
    are those of checking one at a time. A node the search skips after all (its verdict made
    it pointless) was computed for nothing but never counts. Engines that answer one node at a
    time (the in-memory engine, local checks, a snapshot policy) are simply asked one at a time.
    """

    def __init__(self, checker: Checker, nodes):
        self.checker = checker
        self.many = checker.runner.class_stats_many if checker.batches else None
        # an engine without batches (the in-memory one) needs no list of what comes
        self.ahead = list(dict.fromkeys(nodes)) if self.many is not None else []
        self.position = 0  # ahead[:position] were fetched or found checked
        self.fetched: dict[Node, ClassStats] = {}
        self.size = BATCH_NODES  # nodes the next runner call asks for

    def check(self, node: Node) -> CheckResult:
        checker = self.checker
        known = checker.checked(node)
        if known is not None:
            return known
        stats = self.fetched.pop(node, None)
        if stats is None and self.many is not None:
            stats = self._fetch(node, self.many)
        if stats is None:
            return checker.check(node)
        return checker._record(node, stats)

    def _fetch(self, node: Node, many: Callable[..., list[ClassStats] | None]) -> ClassStats | None:
        """Compute ``node`` and the next unchecked nodes after it in one runner call (``many``)."""
        checker = self.checker
        wanted = [node]
        while len(wanted) < self.size and self.position < len(self.ahead):
            candidate = self.ahead[self.position]
            self.position += 1
            if candidate != node and candidate not in self.fetched and checker.checked(candidate) is None:
                wanted.append(candidate)
        if len(wanted) < 2:
            return None
        self.size = min(2 * self.size, BATCH_MOST)
        started = time.perf_counter()
        found = many(wanted, checker.keep, checker.params, checker.needs)
        checker.seconds += time.perf_counter() - started
        if found is None:
            self.many = None  # the runner answers this job one node at a time
            return None
        self.fetched.update(zip(wanted[1:], found[1:]))
        return found[0]
