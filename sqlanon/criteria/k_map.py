"""k-map (Sweeney's k-map; El Emam & Dankar, "Protecting privacy using k-anonymity", JAMIA
15(5), 2008, for the estimate), as ARX 3.9.2 defines it (``org.deidentifier.arx.criteria.KMap``):
every released class must match at least k people of the population. Two forms, as ARX's
constructors fix them:

* **Research subset** (``subset`` = a boolean column, or ``subset_file`` + ``key``; ARX's
  ``KMap(k, DataSubset)``): the input is the population and only the subset is released,
  prepared as for delta-presence (``sqlanon/criteria/population.py``). A class passes iff its
  rows in the whole input, ``pop``, number at least k; its subset rows are not compared with k.
  A failing class is suppressed whole within the limit, which counts subset rows; a population
  class without subset rows releases nothing and fails nothing (ARX never counts it as an
  outlier).
* **Population estimate** (``significance`` = ARX's alpha, ``estimator``, and the population
  as ``population_size`` or ``sampling_fraction``; ARX's ``KMap(k, alpha, population,
  estimator)``): the released table is a sample of fraction f = n / N of the population (n the
  input's rows). A population cell of exactly k people shows up in the sample with a Poisson
  count of mean lambda = f * k (ARX solves for nothing else), so the model is k'-anonymity
  with k' the smallest class size a cell of k people reaches with probability 1 - alpha:
  Poisson: c* = min{c >= 0: P(X <= c) >= 1 - alpha}, k' = c* + 2; zero-truncated Poisson
  (X >= 1, renormalised by 1 - P(0)): c* = min{c >= 1: P(1 <= X <= c) >= 1 - alpha},
  k' = c* + 1 (ARX's offsets, kept as they are); then k' = min(k, n, k'). When the loop would
  reach k first, k' = k and the type-I error is 0; otherwise the error is 1 - the covered
  probability (both: ``KMap.derived``, and k' is the bound ``explain`` shows). With sampling
  fraction f, N = round(n / f) as ARX's population model stores it. n is the rows the session
  counts: with another model's research subset, the subset's (ARX takes the whole table).

Both forms are monotonic with generalization and with suppression (ARX: ``super(true, true)``):
a class's population count, and a sample class's size, only grow as classes merge.
"""

from __future__ import annotations

import math

from sqlglot import exp

from sqlanon.core.risk import check_population, population_of
from sqlanon.criteria.base import PrivacyModel
from sqlanon.criteria.population import POP, research_subset_of
from sqlanon.errors import ConfigError, shown
from sqlanon.sql import col

ESTIMATORS = ("poisson", "zero-truncated-poisson")


class KMap(PrivacyModel):
    name = "k-map"
    options = ("k", "significance", "estimator", "population_size", "sampling_fraction", "subset", "subset_file", "key")
    monotonic_with_generalization = True
    monotonic_with_suppression = True

    def __init__(
        self,
        k: int,
        significance: float | None = None,
        estimator: str | None = None,
        population_size: float | None = None,
        sampling_fraction: float | None = None,
        subset: str | None = None,
        subset_file: str | None = None,
        key: str | None = None,
    ):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigError(f"{self.name}: 'k' must be an int >= 1 (e.g. k = 5), got {shown(k)}")
        self.k = k
        self.significance, self.estimator = significance, estimator
        self.population_size, self.sampling_fraction = population_size, sampling_fraction
        #: k' and the type-I error, once the input's rows are known (estimate form only)
        self.derived_k: int | None = None
        self.type1_error: float | None = None
        self.frame_size: float | None = None
        if subset is not None or subset_file is not None or key is not None:
            self._subset_form(subset, subset_file, key)
        else:
            self._estimate_form()

    def _subset_form(self, subset, subset_file, key) -> None:
        estimate = {
            "significance": self.significance,
            "estimator": self.estimator,
            "population_size": self.population_size,
            "sampling_fraction": self.sampling_fraction,
        }
        given = [option for option, value in estimate.items() if value is not None]
        if given:
            # ARX has no k-map with both: the subset is the population, nothing is estimated
            raise ConfigError(
                f"{self.name}: {', '.join(given)} go with an estimated population, not with a research subset; "
                "remove them, or remove subset/subset_file/key"
            )
        self.subset = research_subset_of(self.name, subset, subset_file, key)
        #: reads each class's population count ``pop`` (the class tables carry it)
        self.population = True

    def _estimate_form(self) -> None:
        if self.significance is None:
            raise ConfigError(
                f"{self.name}: give significance (ARX's alpha, e.g. significance = 0.01) with an estimated "
                'population, or a research subset (subset = "<boolean column>")'
            )
        if not _number(self.significance) or not 0 <= self.significance <= 1:
            raise ConfigError(
                f"{self.name}: 'significance' must be a number in [0, 1] (ARX's alpha, e.g. 0.01), "
                f"got {shown(self.significance)}"
            )
        self.significance = float(self.significance)
        if self.estimator is None:
            self.estimator = "poisson"  # ARX's KMap(k, alpha, population)
        if self.estimator not in ESTIMATORS:
            raise ConfigError(
                f"{self.name}: unknown 'estimator' {shown(self.estimator)}; give one of {', '.join(ESTIMATORS)}"
            )
        for option, value in (("population_size", self.population_size), ("sampling_fraction", self.sampling_fraction)):
            if value is not None and not _number(value):
                raise ConfigError(f"{self.name}: '{option}' must be a finite number, got {shown(value)}")
        check_population(self.name, self.population_size, self.sampling_fraction)
        if self.population_size is None and self.sampling_fraction is None:
            raise ConfigError(
                f"{self.name}: give the population as population_size (e.g. 317238626, ARX's Region.USA) or "
                'sampling_fraction, or a research subset (subset = "<boolean column>")'
            )

    def resolve_population(self, input_rows: int) -> None:
        """k' from the input's rows (the session calls this before any check)."""
        if self.subset is not None:
            return
        frame = population_of(self.population_size, self.sampling_fraction, input_rows, self.name)
        assert frame is not None and self.significance is not None and self.estimator is not None
        self.frame_size = float(round(frame)) if self.population_size is None else frame
        raw, self.type1_error = derive_k(self.k, self.significance, self.estimator, input_rows / self.frame_size)
        self.derived_k = min(self.k, input_rows, raw)

    def threshold(self) -> int:
        """The class bound: k on the population count, or k' on the sample class size."""
        if self.subset is not None:
            return self.k
        if self.derived_k is None:
            raise RuntimeError("k-map: resolve_population(rows) was not called")
        return self.derived_k

    def class_condition(self, size):
        return exp.GTE(this=col(POP) if self.subset is not None else size, expression=self.param("k"))

    def parameters(self):
        return {self.name_of("k"): self.threshold()}

    def describe(self) -> dict[str, object]:
        """The options as given. The derived figures stay out (``derived``): the release
        compares this with a fresh, unresolved model of the job (``release/pipeline.check_promise``)."""
        if self.subset is not None:
            return {"model": self.name, "k": self.k, **self.subset.describe()}
        d: dict[str, object] = {"model": self.name, "k": self.k, "significance": self.significance}
        d["estimator"] = self.estimator
        d.update(
            {"population_size": self.population_size}
            if self.population_size is not None
            else {"sampling_fraction": self.sampling_fraction}
        )
        return d

    def derived(self) -> dict[str, object]:
        """ARX's ``getDerivedK`` and ``getType1Error`` with the population N used (empty in the
        subset form, or before ``resolve_population``)."""
        if self.derived_k is None:
            return {}
        return {"population": self.frame_size, "derived_k": self.derived_k, "type1_error": self.type1_error}

    # -- Python twins: a class's population count (subset form) or size (estimate form) -----
    def presence_value(self, rows: int, population: int) -> float:
        return float(population)

    def class_holds(self, value):
        return value >= self.threshold()


def derive_k(k: int, significance: float, estimator: str, fraction: float) -> tuple[int, float]:
    """(k' before the bound by n, the type-I error) for sampling fraction ``fraction``.

    Walks ARX's search: sum the (zero-truncated) Poisson probabilities of 0 (1), 1, 2, ...
    until they cover 1 - alpha, or until the next count would reach k, which settles k' = k
    with no error. Poisson answers the last count + 2, the zero-truncated one + 1.
    """
    lam = fraction * k
    threshold = 1.0 - significance
    truncated = estimator == "zero-truncated-poisson"
    first, offset = (1, 1) if truncated else (0, 2)
    scale = 1.0 - math.exp(-lam) if truncated else 1.0
    if threshold <= 0:  # alpha = 1: nothing to cover (ARX answers 1 with error 1)
        return 1, 1.0
    covered, count = 0.0, first
    while True:
        term = _poisson(count, lam) / scale
        if count > lam and covered + term == covered:
            return k, 0.0  # the sum has stopped growing: the count reaches k first
        covered += term
        if count + 1 >= k:
            return k, 0.0
        if covered >= threshold:
            return count + offset, 1.0 - covered
        count += 1


def _poisson(x: int, lam: float) -> float:
    """P(X = x) for X ~ Poisson(lam), in logs (no overflow of lam^x or x!)."""
    if x == 0:
        return math.exp(-lam)
    return math.exp(-lam + x * math.log(lam) - math.lgamma(x + 1))


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
