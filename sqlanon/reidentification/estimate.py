"""The result every population-uniqueness estimator returns."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlanon.reidentification.frame import ClassSizes, Frame


@dataclass(frozen=True)
class UniquenessEstimate:
    """One estimator's answer.

    Attributes:
        model: ``"zayatz"``, ``"pitman"`` or ``"snb"``.
        uniques: estimated number of population uniques (records alone in their class in the
            population); ``nan`` when the estimator did not converge.
        share: ``uniques / N``, the share of the population that is unique. As ARX reports it,
            this is also the expected share of the *sample's* records that are population
            unique: each population unique is sampled with probability ``f``, so
            ``f * uniques / n = uniques / N``.
        converged: whether the numbers are a solution of the model's equations (closed forms
            and observed census values count as converged).
        iterations: function evaluations spent by the solver (0 for closed forms).
        reason: why the estimator did not converge, or why it was short-cut; ``None``
            otherwise.
        parameters: the fitted model parameters, as ``(name, value)`` pairs.
    """

    model: str
    uniques: float
    share: float
    converged: bool
    iterations: int = 0
    reason: str | None = None
    parameters: tuple[tuple[str, float], ...] = ()

    @property
    def valid(self) -> bool:
        """Converged to a finite estimate that can be reported."""
        return self.converged and math.isfinite(self.uniques)


def observed(model: str, classes: ClassSizes, frame: Frame) -> UniquenessEstimate | None:
    """The cases every estimator answers without a model, or ``None``.

    No sample unique: no estimator can place a population unique (ARX answers 0 for every
    model). Census (f = 1): the sample uniques are the population uniques.
    """
    if classes.uniques == 0:
        return UniquenessEstimate(model, 0.0, 0.0, True, 0, "no sample uniques: no population unique is estimated")
    if frame.is_census:
        u = float(classes.uniques)
        return UniquenessEstimate(model, u, u / frame.population_size, True, 0, "census (f = 1): uniques observed")
    return None


def failed(model: str, reason: str, iterations: int = 0, parameters=()) -> UniquenessEstimate:
    """A non-converged estimate: no number, and the reason."""
    return UniquenessEstimate(model, math.nan, math.nan, False, iterations, reason, tuple(parameters))
