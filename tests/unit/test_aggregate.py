"""ARX's aggregate functions of the per-attribute values, by hand on the six-row table of
test_metrics.py (node (1, 0): loss L_A = 5/12, L_B = 1/6; precision 7/12 and 2/12; entropy
G_A + T_A = 4, B 0), their bounds, and their settings. ARX's optima under them on ADULT:
tests/search/test_aggregate_arx.py."""

import math
from itertools import product

import pytest

from helpers.jobs import table_job
from helpers.metric_table import HIERARCHIES, ROWS
from sqlanon.config.validate import validate
from sqlanon.errors import ConfigError
from sqlanon.metrics.aggregate import combine
from sqlanon.session import ALL_NEEDS, Session

LOSS = (math.floor(5 / 12 * 1e10) / 1e10, math.floor(1 / 6 * 1e10) / 1e10)
EXPECTED = {
    ("loss", "sum"): LOSS[0] + LOSS[1],
    ("loss", "maximum"): LOSS[0],
    ("loss", "arithmetic-mean"): LOSS[0] / 2 + LOSS[1] / 2,
    ("loss", "geometric-mean"): math.sqrt((1 + LOSS[0]) * (1 + LOSS[1])) - 1,
    ("precision", "sum"): 7 / 12 + 2 / 12,
    ("precision", "maximum"): 7 / 12,
    ("precision", "geometric-mean"): math.sqrt((1 + 7 / 12) * (1 + 2 / 12)) - 1,
    ("entropy", "maximum"): 4.0,
    ("entropy", "arithmetic-mean"): 2.0,
    ("entropy", "geometric-mean"): math.sqrt(5 * 1) - 1,
}


@pytest.fixture(scope="module")
def session():
    with Session(table_job(ROWS, HIERARCHIES, k=2, suppression_limit=0.5), needs=ALL_NEEDS) as s:
        yield s


def test_combine_as_arx():
    assert combine("sum", [1.0, 2.0], [1.0, 0.5]) == 2.0
    assert combine("maximum", [1.0, 2.0], [1.0, 0.25]) == 1.0
    assert combine("arithmetic-mean", [1.0, 3.0], [1.0, 1.0]) == 2.0
    assert combine("geometric-mean", [3.0, 0.0], [1.0, 1.0]) == pytest.approx(1.0)
    assert combine("sum", [math.inf, 1.0], [1.0, 1.0]) == 1.7976931348623157e308


@pytest.mark.parametrize("metric, aggregate", sorted(EXPECTED))
def test_aggregate_by_hand(session, metric, aggregate):
    result = session.checker(metric=metric, aggregate=aggregate).check((1, 0))
    assert result.loss == pytest.approx(EXPECTED[(metric, aggregate)], abs=1e-9)


@pytest.mark.parametrize("metric", ["loss", "precision", "entropy"])
def test_the_default_is_arxs_own(session, metric):
    default = {"loss": "geometric-mean", "precision": "arithmetic-mean", "entropy": "sum"}[metric]
    for node in product(range(3), range(2)):
        plain = session.checker(metric=metric).check(node).loss
        assert session.checker(metric=metric, aggregate=default).check(node).loss == pytest.approx(plain, abs=1e-12)


@pytest.mark.parametrize("aggregate", ["sum", "maximum", "arithmetic-mean", "geometric-mean"])
@pytest.mark.parametrize("metric", ["loss", "precision", "precision-monotonic", "entropy", "entropy-monotonic"])
def test_bounds_hold_for_every_generalization(session, metric, aggregate):
    checker = session.checker(metric=metric, aggregate=aggregate, gs_factor=0.3)
    nodes = list(product(range(3), range(2)))
    results = {node: checker.check(node) for node in nodes}
    for node, result in results.items():
        static = checker.metric.static_bound(node, session.ctx)
        for other, value in results.items():
            if all(o >= n for o, n in zip(other, node)):
                assert result.bound <= value.loss + 1e-12 and static <= value.loss + 1e-12, (node, other)


@pytest.mark.parametrize(
    "metric, aggregate, message",
    [
        ("discernibility", "sum", "combines the per-attribute values of the metrics"),
        ("loss", "rank", "RANK is not available"),
        ("loss", "mean", "must be one of sum, maximum, arithmetic-mean, geometric-mean"),
    ],
)
def test_bad_aggregate(metric, aggregate, message):
    with pytest.raises(ConfigError, match=message):
        validate(table_job(ROWS, HIERARCHIES, metric=metric, aggregate=aggregate))
