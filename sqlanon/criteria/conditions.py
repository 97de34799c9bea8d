"""The keep conditions of a check: which classes the job's models keep, the figures they read,
and the metric's sums — one type, built by the checker, read by every engine (SQL renders it,
the in-process kernel evaluates the same trees)."""

from __future__ import annotations

import json
from typing import Sequence

from sqlglot import exp

from sqlanon.criteria.base import PrivacyModel
from sqlanon.metrics import Metric


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
        #: whether any model (or the metric) reads a per-class figure of a sensitive histogram
        self.has_figures = bool(self.histogram_models)
        #: the in-process evaluators of these conditions, built once (kernel/evaluate.py)
        self.compiled = None

    def stats_columns(self, d: int) -> dict:
        return self.metric.stats_columns(d) if self.metric is not None else {}

    def __call__(self, size: exp.Expression) -> exp.Expression:
        conditions = [m.class_condition(size.copy()) for m in self.models]
        conditions = [c for c in conditions if c != exp.true()] or [exp.true()]
        combined = exp.and_(*conditions)
        assert isinstance(combined, exp.Expression)  # an And, or its one condition: a tree node either way
        return combined

    def figures(self, histogram_for, keys) -> list[exp.Select]:
        """The per-class figure queries (none when ``has_figures`` is false)."""
        found = []
        for m in self.histogram_models:
            query = m.class_columns(histogram_for(m.attribute), keys)
            assert query is not None, f"{m.name} reads '{m.attribute}' but gives no figures of it"
            found.append(query)
        return found
