"""What one check of a node returns: class figures already reduced by the engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClassStats:
    """Figures of a node's equivalence classes, computed by the engine.

    Attributes:
        classes: number of classes, suppressed ones included.
        kept_classes: classes that satisfy every privacy model.
        suppressed: rows in classes that fail a model (suppressed whole).
        min_kept: smallest kept class (None when every class is suppressed).
        dm_kept: sum of squared sizes of kept classes.
        dm_all: sum of squared sizes of all classes.
        kept_leaves: per QI, sum over kept classes of size * hierarchy rows under the class's
            value (ARX's domain share times the hierarchy size); only when a metric needs it.
        suppressed_histograms: per QI, the number of suppressed rows per generalized value,
            ordered by value code; only when a metric needs it.
        kept_uniques: kept classes of one row; only when a model needs it (sample uniqueness).
        figures: sums a metric asked for by name (``Metric.stats_columns``).
        min_class: smallest class, suppressed ones included (IGreedy's criterion).
        kept_sizes: class size -> number of kept classes of that size; only when a model needs
            it (population uniqueness).
        empty_classes: with a research subset (delta-presence), the classes of the generalized
            population that hold no subset row (delta = 0); they are in no other figure, as
            they release nothing, and no suppression removes them. None without a subset.
    """

    classes: int
    kept_classes: int
    suppressed: int
    min_kept: int | None
    dm_kept: int
    dm_all: int
    kept_leaves: tuple[int, ...] | None = None
    suppressed_histograms: tuple[tuple[int, ...], ...] | None = None
    kept_uniques: int | None = None
    figures: dict | None = None
    min_class: int | None = None
    kept_sizes: dict | None = None
    empty_classes: int | None = None
