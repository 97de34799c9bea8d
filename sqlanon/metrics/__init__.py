"""Information-loss metrics, registered by name."""

from sqlanon.errors import ConfigError
from sqlanon.metrics.aecs import AECS
from sqlanon.metrics.base import Metric, MetricContext
from sqlanon.metrics.discernibility import Discernibility, DiscernibilityStar
from sqlanon.metrics.entropy import Entropy, EntropyMonotonic
from sqlanon.metrics.height import Height
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
    )
}


def get_metric(name: str) -> Metric:
    try:
        return METRICS[name]()
    except KeyError:
        raise ConfigError(f"unknown metric '{name}'; valid metrics: {', '.join(METRICS)}") from None


__all__ = ["METRICS", "Metric", "MetricContext", "get_metric"]
