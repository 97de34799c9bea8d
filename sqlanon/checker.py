"""check(node) -> CheckResult: the only door from the search to the data.

The checker turns a node into an engine query, decides anonymity (ARX semantics: a class
failing any model is suppressed whole; the node is anonymous iff the suppressed rows are at
most floor(s * N)), evaluates the metric and counts what it did. It caches results, so a node
is never checked twice in one search.
"""

from __future__ import annotations

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
        self.on_check = on_check  # called with every new CheckResult (progress display)
        self.checks = 0
        self.seconds = 0.0
        self._results: dict[Node, CheckResult] = {}
        self.params: dict[str, object] = {}
        for model in self.models:
            self.params.update(model.parameters())

    def keep(self, size: exp.Expression) -> exp.Expression:
        """Predicate over a class of ``size`` rows: it satisfies every model."""
        return exp.and_(*(m.class_condition(size.copy()) for m in self.models))

    def check(self, node: Node) -> CheckResult:
        cached = self._results.get(node)
        if cached is not None:
            return cached
        started = time.perf_counter()
        stats = self.engine.class_stats(node, self.keep, self.params, self.metric.needs)
        self.seconds += time.perf_counter() - started
        self.checks += 1
        result = CheckResult(
            node=node,
            anonymous=stats.suppressed <= self.limit_rows,
            stats=stats,
            loss=self.metric.value(stats, node, self.ctx),
            bound=self.metric.bound(stats, node, self.ctx),
        )
        self._results[node] = result
        if self.on_check is not None:
            self.on_check(result)
        return result

    def checked(self, node: Node) -> CheckResult | None:
        return self._results.get(node)

    def static_bound(self, node: Node) -> float | None:
        return self.metric.static_bound(node, self.ctx)
