"""The contract of an information-loss metric (lower is better for all of them).

Every metric gives its value for a checked node and a *bound*: a number no greater than its
value at that node and at every generalization of it, so a search may skip the generalizations
of a node whose bound is already worse than the best solution. A *static* bound needs no check
(it comes from the levels and per-attribute counts alone); metrics that have none return None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from sqlanon.core.needs import Need
from sqlanon.lattice import Node
from sqlanon.core.stats import ClassStats
from sqlanon.metrics.aggregate import combine

if TYPE_CHECKING:
    from sqlglot import exp


@dataclass(frozen=True)
class MetricContext:
    """Per-job constants a metric may use (all computed once at preparation).

    Attributes:
        rows: N, the number of input rows.
        heights: top level of each QI.
        hierarchy_rows: |H_j|, number of rows of each QI's hierarchy.
        leaves_by_level: per QI and level l, sum over all rows of the hierarchy rows under the
            row's value at level l (the loss metric without suppression, times |H_j|).
        entropy_by_level: per QI and level l, the non-uniform entropy G_j(l) over all rows.
        distinct_by_level: per QI and level l, the number of distinct values in the data
            generalized to level l (DataFly's choice of the attribute to generalize).
    """

    rows: int
    heights: tuple[int, ...]
    hierarchy_rows: tuple[int, ...]
    leaves_by_level: tuple[tuple[int, ...], ...]
    entropy_by_level: tuple[tuple[float, ...], ...]
    distinct_by_level: tuple[tuple[int, ...], ...] = ()


class Metric:
    name: str = ""
    #: which optional figures the engine must compute (sqlanon/core/needs.py)
    needs: Need = Need.NONE
    #: the auxiliary table its figures read (as a privacy model's ``aux``): none for a metric
    aux: str | None = None
    #: True when the value never decreases under generalization, whatever the suppression.
    always_monotonic: bool = False
    #: metrics over the QIs one by one take per-attribute weights (ARX: divided by their maximum)
    weighted: bool = False
    #: metrics that read a label column per class (classification)
    needs_label: bool = False
    #: metrics that weigh generalization against suppression by a gs factor (ARX's
    #: ``isGSFactorSupported``); the others take only the default 0.5
    takes_gs_factor: bool = False
    #: how the per-attribute values combine (``metrics/aggregate.py``): ARX's default for the
    #: metric; None for a metric that is not a combination of per-attribute values
    default_aggregate: str | None = None

    def __init__(
        self,
        weights: tuple[float, ...] | None = None,
        label: str | None = None,
        gs_factor: float = 0.5,
        aggregate: str | None = None,
    ):
        self.weights = weights
        self.label = label
        self.gs_factor = gs_factor
        self.factors = gs_factors(gs_factor)
        self.aggregate = aggregate or self.default_aggregate

    def combined(self, values: list[float]) -> float:
        """The per-attribute values combined by the metric's aggregate function, weighted."""
        return combine(str(self.aggregate), values, [self.weight(j) for j in range(len(values))])

    #: the column whose per-class histogram the metric reads (classification's label)
    attribute: str | None = None

    def class_columns(self, histogram: exp.Query, keys: Sequence[str]) -> exp.Select | None:
        """One row per class (``keys`` and the metric's figures) from the histogram of
        ``attribute``, as a privacy model gives (classification's majority count); None for a
        metric that reads no histogram."""
        return None

    def stats_columns(self, d: int) -> dict:
        """Sums the engine adds to a check's figures (sqlglot expressions over the flagged
        class table: ``kept``, ``n``, ``leaves<j>`` and the per-class figures)."""
        return {}

    def weight(self, j: int) -> float:
        return 1.0 if self.weights is None else self.weights[j]

    def monotonic(self, suppression_limit: float) -> bool:
        """Monotonic for this suppression limit (ARX: all are when nothing may be suppressed)."""
        return self.always_monotonic or suppression_limit == 0

    def value(self, stats: ClassStats, node: Node, ctx: MetricContext) -> float:
        raise NotImplementedError

    def bound(self, stats: ClassStats, node: Node, ctx: MetricContext) -> float:
        """Lower bound for this node and all its generalizations, from this node's check."""
        raise NotImplementedError

    def static_bound(self, node: Node, ctx: MetricContext) -> float | None:
        """Lower bound for this node and all its generalizations, without a check."""
        return None


@dataclass(frozen=True)
class GSFactors:
    """ARX's split of a gs factor f in [0, 1] (``MetricMDNMLoss``'s constructor): generalization
    weighs g = 1 for f <= 0.5, else 1 - 2(f - 0.5); suppression weighs s = 2f for f < 0.5, else
    1. At 0.5 both are 1, the metrics' plain definitions; 0 counts a suppressed value as if it
    were kept generalized, 1 counts suppression only. ``exact`` holds both as fractions of the
    decimal the user wrote, for the metrics computed in exact arithmetic; ``g``/``s`` are the
    doubles ARX computes, for the ones summed in floating point as ARX sums them."""

    g: float
    s: float
    exact: tuple[Fraction, Fraction]

    @property
    def plain(self) -> bool:
        return self.g == 1.0 and self.s == 1.0


def gs_factors(gs_factor: float) -> GSFactors:
    f = Fraction(str(gs_factor))
    exact_g = Fraction(1) if f <= Fraction(1, 2) else 1 - 2 * (f - Fraction(1, 2))
    exact_s = 2 * f if f < Fraction(1, 2) else Fraction(1)
    g = 1.0 if gs_factor <= 0.5 else 1.0 - 2.0 * (gs_factor - 0.5)
    s = 2.0 * gs_factor if gs_factor < 0.5 else 1.0
    return GSFactors(g, s, (exact_g, exact_s))


def truncate(value: float | Fraction) -> float:
    """ARX keeps 10 decimals, cutting (not rounding) the rest: floor(x * 1e10) / 1e10."""
    if isinstance(value, Fraction):
        return float(Fraction(math.floor(value * 10**10), 10**10))
    return math.floor(value * 1e10) / 1e10
