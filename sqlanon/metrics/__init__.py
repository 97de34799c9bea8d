"""Information-loss metrics, registered by name."""

from sqlanon.errors import ConfigError, shown
from sqlanon.metrics.aecs import AECS
from sqlanon.metrics.aggregate import AGGREGATES
from sqlanon.metrics.ambiguity import Ambiguity
from sqlanon.metrics.classification import Classification
from sqlanon.metrics.base import Metric, MetricContext
from sqlanon.metrics.discernibility import Discernibility, DiscernibilityStar
from sqlanon.metrics.entropy import Entropy, EntropyMonotonic
from sqlanon.metrics.height import Height
from sqlanon.metrics.kl_divergence import KLDivergence
from sqlanon.metrics.loss import Loss
from sqlanon.metrics.precision import Precision, PrecisionMonotonic

METRICS: dict[str, type[Metric]] = {
    m.name: m
    for m in (
        Discernibility,
        DiscernibilityStar,
        AECS,
        Height,
        Precision,
        PrecisionMonotonic,
        Loss,
        Entropy,
        EntropyMonotonic,
        Ambiguity,
        Classification,
        KLDivergence,
    )
}


def get_metric(name: str, weights=None, label=None, gs_factor: float = 0.5, aggregate: str | None = None) -> Metric:
    """The metric by name; ``weights`` (per QI, largest 1) for the weighted ones, ``label``
    (a column) for classification, ``gs_factor`` (0 to 1) for the ones weighing
    generalization against suppression."""
    if name not in METRICS:
        raise ConfigError(f"unknown metric '{name}'; valid metrics: {', '.join(METRICS)}")
    cls = METRICS[name]
    if cls.needs_label and not label:
        raise ConfigError(
            f"metric '{name}' needs search.label, the column holding the class label (e.g. label = \"salary-class\")"
        )
    if weights is not None and not cls.weighted:
        weighted = ", ".join(n for n, m in METRICS.items() if m.weighted)
        raise ConfigError(f"search.weights apply to the metrics {weighted}, not to '{name}'")
    if isinstance(gs_factor, bool) or not isinstance(gs_factor, (int, float)) or not 0 <= gs_factor <= 1:
        raise ConfigError(f"search.gs_factor must be a number from 0 to 1, got {shown(gs_factor)}")
    if gs_factor != 0.5 and not cls.takes_gs_factor:
        taking = ", ".join(n for n, m in METRICS.items() if m.takes_gs_factor)
        raise ConfigError(
            f"search.gs_factor weighs generalization against suppression in the metrics {taking}, "
            f"not in '{name}': remove it or choose one of those"
        )
    if aggregate is not None:
        if cls.default_aggregate is None:
            combining = ", ".join(n for n, m in METRICS.items() if m.default_aggregate)
            raise ConfigError(
                f"search.aggregate combines the per-attribute values of the metrics {combining}, not of '{name}'"
            )
        if aggregate not in AGGREGATES:
            raise ConfigError(
                f"search.aggregate must be one of {', '.join(AGGREGATES)}, got {shown(aggregate)} "
                "(ARX's RANK is not available)"
            )
    return cls(weights=weights, label=label, gs_factor=float(gs_factor), aggregate=aggregate)


__all__ = ["METRICS", "Metric", "MetricContext", "get_metric"]
