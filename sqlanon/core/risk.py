"""The job's ``[risk]`` table: the population behind the sample and the at-risk threshold.

Outside the ``sqlanon.reidentification`` package on purpose: the job loader reads these settings, and
importing that package loads NumPy and SciPy for its estimators."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlanon.errors import ConfigError

#: population-uniqueness estimators a job can name
RISK_MODELS = ("dankar", "zayatz", "pitman", "snb")
RISK_KEYS = ("population_size", "sampling_fraction", "threshold", "model")


@dataclass(frozen=True)
class RiskSettings:
    """``population_size`` or ``sampling_fraction`` (at most one; neither: no population
    estimates), the prosecutor threshold for records at risk (1/|E| > threshold) and the
    population-uniqueness model the report highlights."""

    population_size: float | None = None
    sampling_fraction: float | None = None
    threshold: float = 0.2
    model: str = "dankar"

    def __post_init__(self):
        check_population("[risk]", self.population_size, self.sampling_fraction)
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1:
            raise ConfigError(f"[risk]: the 'threshold' parameter must be a number in [0, 1], got {t!r}.")
        check_model("[risk]", self.model)

    @property
    def has_population(self) -> bool:
        return self.population_size is not None or self.sampling_fraction is not None

    def population(self, input_rows: int) -> float | None:
        """N, fixed by the input: the released rows are a sample of the same population."""
        return population_of(self.population_size, self.sampling_fraction, input_rows, "[risk]")

    @classmethod
    def from_table(cls, table: dict, where: str = "job") -> RiskSettings:
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: [risk] must be a table")
        extra = set(table) - set(RISK_KEYS)
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [risk]; known: {sorted(RISK_KEYS)}")
        try:
            return cls(**table)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None


def check_population(owner: str, population_size, sampling_fraction) -> None:
    """At most one of the two, each a finite number in its range."""
    if population_size is not None and sampling_fraction is not None:
        raise ConfigError(
            f"{owner}: give population_size or sampling_fraction, not both "
            f"(got {population_size!r} and {sampling_fraction!r})"
        )
    if sampling_fraction is not None and (
        isinstance(sampling_fraction, bool)
        or not isinstance(sampling_fraction, (int, float))
        or not 0 < sampling_fraction <= 1
    ):
        raise ConfigError(
            f"{owner}: the 'sampling_fraction' parameter must be a number in (0, 1], got {sampling_fraction!r}."
        )
    if population_size is not None and (
        isinstance(population_size, bool)
        or not isinstance(population_size, (int, float))
        or not math.isfinite(population_size)
        or population_size < 1
    ):
        raise ConfigError(f"{owner}: the 'population_size' parameter must be a number >= 1, got {population_size!r}.")


def check_model(owner: str, model) -> None:
    if model not in RISK_MODELS:
        raise ConfigError(f"{owner}: unknown population-uniqueness model {model!r}; valid: {', '.join(RISK_MODELS)}")


def population_of(population_size, sampling_fraction, input_rows: int, owner: str) -> float | None:
    """N from a population size (>= the input's rows) or a sampling fraction of the input."""
    if population_size is not None:
        if population_size < input_rows:
            raise ConfigError(
                f"{owner}: population_size = {population_size!r} is smaller than the input's "
                f"{input_rows} rows; the population must hold the sample (or give sampling_fraction)"
            )
        return float(population_size)
    if sampling_fraction is not None:
        return input_rows / float(sampling_fraction)
    return None
