"""Population uniqueness (ARX's PopulationUniqueness criterion): the estimated share of the
population that is unique on the released quasi-identifiers must not exceed ``threshold``.

The estimate comes from the kept classes' class-size table (computed in SQL by the engine, the
``sizes`` need) with the model named by ``model``: Dankar et al.'s decision rule (default),
Zayatz, Pitman or SNB (see docs/risk.md). The population N is fixed by the input: given as
``population_size``, or as ``sampling_fraction`` of the input's rows (N = rows / f), so the
released rows are a sample of the same population whatever is suppressed. Nothing released
means no unique. An estimator that does not converge (Pitman or SNB named alone) gives no
number, and the table is then treated as failing; Dankar's rule falls back to Zayatz instead.

Not monotonic with generalization: merging two pairs into a class of four leaves the
uniques as they were but raises Zayatz's estimate ({1: 3, 2: 2} -> {1: 3, 4: 1} with N = 14:
0.249 -> 0.368, tests/e2e/test_risk_report.py), Dankar's rule switches estimator and Pitman and
SNB are fitted afresh as the class-size table changes; and not with suppression, since
suppression changes the sample and its fraction. The optimal algorithms therefore do not prune
by it.
"""

from __future__ import annotations

import math
from collections import Counter

from sqlanon.core.needs import Need
from sqlanon.criteria.base import EPSILON, PrivacyModel
from sqlanon.criteria.options import fraction
from sqlanon.errors import ConfigError
from sqlanon.reidentification.analysis import estimate
from sqlanon.core.risk import check_model, check_population, population_of


class PopulationUniqueness(PrivacyModel):
    name = "population-uniqueness"
    options = ("threshold", "model", "population_size", "sampling_fraction")
    whole_table = True
    monotonic_with_generalization = False
    monotonic_with_suppression = False
    needs = Need.SIZES
    worst = "max"

    def __init__(
        self,
        threshold: float,
        model: str = "dankar",
        population_size: float | None = None,
        sampling_fraction: float | None = None,
    ):
        self.threshold = fraction("threshold", threshold, self.name)
        check_model(self.name, model)
        check_population(self.name, population_size, sampling_fraction)
        if population_size is None and sampling_fraction is None:
            raise ConfigError(
                f"{self.name}: give population_size or sampling_fraction (in the model's entry or "
                "in the job's [risk] table)"
            )
        self.model, self.population_size, self.sampling_fraction = model, population_size, sampling_fraction
        self.frame_size: float | None = None  # N, once the input's rows are known
        self._memo: dict[tuple, float] = {}

    def resolve_population(self, input_rows: int) -> None:
        """Fix N from the input's rows (the session calls this before any check)."""
        self.frame_size = population_of(self.population_size, self.sampling_fraction, input_rows, self.name)

    def describe(self):
        d = {"model": self.name, "threshold": self.threshold, "estimator": self.model}
        d.update(
            {"population_size": self.population_size}
            if self.population_size is not None
            else {"sampling_fraction": self.sampling_fraction}
        )
        return d

    def share(self, table: dict[int, int]) -> float:
        """Estimated population uniques / N of a released sample given by its class sizes."""
        if self.frame_size is None:
            raise RuntimeError("population-uniqueness: resolve_population(rows) was not called")
        key = tuple(sorted((s, c) for s, c in table.items() if c))
        if not key:
            return 0.0
        if key not in self._memo:  # the estimators solve equations: a node's table is fitted once
            self._memo[key] = estimate(dict(key), self.model, self.frame_size).share
        return self._memo[key]

    def stats_value(self, stats, rows: int) -> float:
        return self.share(stats.kept_sizes)

    def table_value(self, kept_sizes):
        return self.share(Counter(kept_sizes))

    def table_holds(self, value):
        return math.isfinite(value) and value <= self.threshold + EPSILON
