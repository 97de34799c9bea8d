"""check(node) -> CheckResult: the only door from the search to the data.

The checker turns a node into an engine query, decides anonymity (ARX semantics: a class
failing any per-class model is suppressed whole; the node is anonymous iff the suppressed rows
are at most floor(s * N) and every whole-table model holds on the kept classes), evaluates the
metric and counts what it did. It caches results, so a node is never checked twice in one
search.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Sequence

from sqlglot import exp

from sqlanon.criteria import PrivacyModel
from sqlanon.engines import Engine
from sqlanon.lattice import Node
from sqlanon.metrics import Metric, MetricContext
from sqlanon.stats import ClassStats


@dataclass(frozen=True)
class CheckResult:
    node: Node
    anonymous: bool
    stats: ClassStats
    loss: float
    bound: float


class Conditions:
    """What the engine needs to tell kept classes from suppressed ones: called with a class's
    size column it returns the combined per-class predicate; ``figures`` builds the per-class
    figure queries of the models that read a sensitive histogram; ``signature`` names the
    combination (queries are cached per shape)."""

    def __init__(self, models: Sequence[PrivacyModel], metric: Metric | None = None):
        self.models = list(models)
        # the metric reads a histogram too (classification) and may add sums of its own
        self.histogram_models = [m for m in [*self.models, metric] if m is not None and m.attribute is not None]
        self.metric = metric
        described = [m.describe() for m in self.models]
        if metric is not None and metric.stats_columns(1):
            described.append({"metric": metric.name, "label": metric.attribute})
        self.signature = json.dumps(described, sort_keys=True, default=str)
        if not self.histogram_models:
            self.figures = None

    def stats_columns(self, d: int) -> dict:
        return self.metric.stats_columns(d) if self.metric is not None else {}

    def __call__(self, size: exp.Expression) -> exp.Expression:
        conditions = [m.class_condition(size.copy()) for m in self.models]
        conditions = [c for c in conditions if c != exp.true()] or [exp.true()]
        return exp.and_(*conditions)

    def figures(self, histogram_for, keys) -> list[exp.Select]:
        return [m.class_columns(histogram_for(m.attribute), keys) for m in self.histogram_models]


class Checker:
    def __init__(
        self,
        engine: Engine,
        models: Sequence[PrivacyModel],
        metric: Metric,
        ctx: MetricContext,
        limit_rows: int,
        suppression_limit: float,
        on_check=None,
    ):
        self.engine = engine
        self.models = list(models)
        self.metric = metric
        self.ctx = ctx
        self.limit_rows = limit_rows
        self.monotonic_metric = metric.monotonic(suppression_limit)
        # Predictive tagging needs every model monotonic for this limit (ARX's flags).
        self.monotonic_models = all(m.monotonic(suppression_limit) for m in self.models)
        self.table_models = [m for m in self.models if m.whole_table]
        self.needs = metric.needs.union(*(m.needs for m in self.models))
        self.keep = Conditions(self.models, metric)
        self.on_check = on_check  # called with every new CheckResult (progress display)
        self.checks = 0
        self.seconds = 0.0  # inside the engine: its class_stats and checked calls
        self._results: dict[Node, CheckResult] = {}
        self.params: dict[str, object] = {}
        for model in self.models:
            self.params.update(model.parameters())

    def check(self, node: Node) -> CheckResult:
        cached = self._results.get(node)
        if cached is not None:
            return cached
        started = time.perf_counter()
        stats = self.engine.class_stats(node, self.keep, self.params, self.needs)
        self.seconds += time.perf_counter() - started
        return self._record(node, stats)

    def _record(self, node: Node, stats: ClassStats) -> CheckResult:
        """The verdict on a node the engine just computed: counted, cached, passed to the
        engine (``checked``) and to ``on_check``."""
        self.checks += 1
        result = CheckResult(
            node=node,
            anonymous=stats.suppressed <= self.limit_rows and self.table_models_hold(stats),
            stats=stats,
            loss=self.metric.value(stats, node, self.ctx),
            bound=self.metric.bound(stats, node, self.ctx),
        )
        self._results[node] = result
        # The engine's part of the check: it keeps the node's classes as a snapshot or not
        # (on a SQL engine a CREATE TEMP TABLE), so ``seconds`` counts it with the query.
        started = time.perf_counter()
        self.engine.checked(node, result.anonymous)
        self.seconds += time.perf_counter() - started
        if self.on_check is not None:
            self.on_check(result)
        return result

    def check_many(self, nodes: Sequence[Node]) -> list[CheckResult]:
        """The results of ``nodes``, in order, as ``check`` gives them one by one; the engine
        computes the new ones several at a time (``Batch``)."""
        batch = self.batch(nodes)
        return [batch.check(node) for node in nodes]

    def batch(self, nodes) -> Batch:
        """Nodes the search is about to check, in the order it will take them: see ``Batch``."""
        return Batch(self, nodes)

    def table_models_hold(self, stats: ClassStats) -> bool:
        return all(m.table_holds(m.stats_value(stats, self.ctx.rows)) for m in self.table_models)

    def checked(self, node: Node) -> CheckResult | None:
        return self._results.get(node)

    def static_bound(self, node: Node) -> float | None:
        return self.metric.static_bound(node, self.ctx)

    def results(self):
        """Every result of this search so far."""
        return self._results.values()


#: nodes answered by one engine query at most (a batch's rows and SQL text grow with it)
BATCH_NODES = 32


class Batch:
    """Nodes a search knows it is about to check, in order, before any of their verdicts.

    The search takes each result with ``check(node)`` exactly where it would call
    ``Checker.check``; the engine computes the figures of the next ``BATCH_NODES`` unchecked
    nodes at once (``class_stats_many``: one query on a SQL engine) and each is recorded
    (counted, cached, reported) only when taken, so the checks, the trace and every decision
    are those of checking one at a time. A node the search skips after all (its verdict made
    it pointless) was computed for nothing but never counts. Engines that answer one node at a
    time (the in-memory engine, local checks, a snapshot policy) are simply asked one at a time.
    """

    def __init__(self, checker: Checker, nodes):
        self.checker = checker
        self.many = getattr(checker.engine, "class_stats_many", None)
        # an engine without batches (the in-memory one) needs no list of what comes
        self.ahead = list(dict.fromkeys(nodes)) if self.many is not None else []
        self.position = 0  # ahead[:position] were fetched or found checked
        self.fetched: dict[Node, ClassStats] = {}

    def check(self, node: Node) -> CheckResult:
        checker = self.checker
        known = checker.checked(node)
        if known is not None:
            return known
        stats = self.fetched.pop(node, None)
        if stats is None and self.many is not None:
            stats = self._fetch(node)
        if stats is None:
            return checker.check(node)
        return checker._record(node, stats)

    def _fetch(self, node: Node) -> ClassStats | None:
        """Compute ``node`` and the next unchecked nodes after it in one engine call."""
        checker = self.checker
        wanted = [node]
        while len(wanted) < BATCH_NODES and self.position < len(self.ahead):
            candidate = self.ahead[self.position]
            self.position += 1
            if candidate != node and candidate not in self.fetched and checker.checked(candidate) is None:
                wanted.append(candidate)
        if len(wanted) < 2:
            return None
        started = time.perf_counter()
        found = self.many(wanted, checker.keep, checker.params, checker.needs)
        checker.seconds += time.perf_counter() - started
        if found is None:
            self.many = None  # the engine answers this job one node at a time
            return None
        self.fetched.update(zip(wanted[1:], found[1:]))
        return found[0]
