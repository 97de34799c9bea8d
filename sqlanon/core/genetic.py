"""The genetic search's parameters as a job gives them (``[search.genetic]``): a spec the job
holds and the search reads, apart from ``sqlanon/search/``, whose package loads every algorithm
(and numpy) when imported, which loading a job must not."""

from __future__ import annotations

from dataclasses import dataclass

from sqlanon.errors import ConfigError

GENETIC_VARIANTS = ("kgen", "hybrid")


@dataclass(frozen=True)
class GeneticParams:
    """The genetic algorithm's parameters (``[search.genetic]``), with the KGen paper's
    defaults; random search gets the same ``max_evaluations``. ``variant``: "hybrid" (the
    default: sqlanon/search/genetic_hybrid.py), or "kgen", the algorithm as the paper describes it."""

    max_evaluations: int = 5000
    population: int = 100
    crossover: float = 0.9
    mutation: float = 0.2
    horizontal_mutation: float = 0.4
    tournament: int = 2
    variant: str = "hybrid"

    def validate(self) -> None:
        if self.variant not in GENETIC_VARIANTS:
            raise ConfigError(
                f"search.genetic.variant must be one of {', '.join(map(repr, GENETIC_VARIANTS))}, got {self.variant!r}"
            )
        for name in ("max_evaluations", "population", "tournament"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"search.genetic.{name} must be an int >= 1, got {value!r}")
        for name in ("crossover", "mutation", "horizontal_mutation"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ConfigError(f"search.genetic.{name} must be a probability in [0, 1], got {value!r}")
