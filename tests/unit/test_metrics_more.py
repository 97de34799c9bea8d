"""Ambiguity, classification, KL-divergence and per-attribute weights by hand, on the six-row
table of test_metrics.py with a class label column L."""

import math

import pytest

from helpers.jobs import table_job
from sqlanon.errors import ConfigError
from sqlanon.session import ALL_NEEDS, Session
from sqlanon.config.validate import validate
from helpers.metric_table import HIERARCHIES, ROWS

LABELS = ["+", "+", "-", "+", "-", "-"]
# Node (0, 0), k = 2: kept (x,p) rows 0,1 and (z,q) rows 4,5; suppressed (y,p) row 2, (y,q) row 3.
# Node (1, 0): kept (xy,p) rows 0,1,2 and (z,q) rows 4,5; suppressed (xy,q) row 3.
EXPECTED = {
    # (kept misclassified + S) / N: (0 + 2)/6; ((xy,p) has labels + + -: 1) + 1 -> 2/6
    "classification": {(0, 0): 2 / 6, (1, 0): 2 / 6},
    # (sum_kept n * prod leaves + S * |H_A| |H_B|) / N: (4*1 + 2*6)/6; (3*2*1 + 2*1*1 + 1*6)/6
    "ambiguity": {(0, 0): 16 / 6, (1, 0): 14 / 6},
    # sum_x c_x/N ln(c_x box / |E|): (0,0): kept classes are single combinations (ln 1 = 0); the
    #   suppressed rows (y,p), (y,q) each c=1 over the 6-combination domain, |E| = S = 2: 2/6 ln(6/2).
    # (1,0): (xy,p) = x,p (2 rows) + y,p (1) over a box of 2: 2/6 ln(2*2/3) + 1/6 ln(1*2/3); (z,q) 0;
    #   the suppressed (y,q) alone: 1/6 ln(1*6/1).
    "kl-divergence": {
        (0, 0): 2 / 6 * math.log(3),
        (1, 0): 2 / 6 * math.log(4 / 3) + 1 / 6 * math.log(2 / 3) + 1 / 6 * math.log(6),
    },
}
# weights A = 2, B = 1 -> 1 and 0.5; at (0, 0) precision_j = 1/3 and L_j = 1/3 (truncated),
# entropy terms A 0 and B 2 (see test_metrics.py).
WEIGHTED = {
    "precision": 0.5 * (1 * 1 / 3 + 0.5 * 1 / 3),
    "loss": math.sqrt(1 + 0.3333333333) * math.sqrt(1 + 0.5 * 0.3333333333) - 1,
    "entropy": 0.5 * 2.0,
}


@pytest.fixture(scope="module")
def session():
    job = table_job(ROWS | {"L": LABELS}, HIERARCHIES, k=2, suppression_limit=0.5, label="L")
    with Session(job, needs=ALL_NEEDS) as s:
        yield s


@pytest.mark.parametrize("node", [(0, 0), (1, 0)])
@pytest.mark.parametrize("metric", sorted(EXPECTED))
def test_metric_matches_hand_computation(session, metric, node):
    result = session.checker(metric=metric).check(node)
    assert result.loss == pytest.approx(EXPECTED[metric][node], abs=1e-12)
    assert result.bound <= result.loss + 1e-12


def test_bounds_by_hand(session):
    # every class kept: classification at (0,0) misses nothing; ambiguity 6 rows * 1 / 6
    assert session.checker(metric="classification").check((0, 0)).bound == 0
    assert session.checker(metric="ambiguity").check((0, 0)).bound == pytest.approx(1.0)


@pytest.mark.parametrize("metric", sorted(WEIGHTED))
def test_weights_divided_by_their_maximum(session, metric):
    assert session.checker(metric=metric, weights={"A": 2, "B": 1}).check((0, 0)).loss == pytest.approx(
        WEIGHTED[metric], abs=1e-9
    )
    # the same ratio gives the same value; no weights means weight 1 each
    assert session.checker(metric=metric, weights={"A": 4, "B": 2}).check((0, 0)).loss == pytest.approx(
        WEIGHTED[metric], abs=1e-9
    )
    plain = session.checker(metric=metric).check((0, 0)).loss
    assert session.checker(metric=metric, weights={"A": 3, "B": 3}).check((0, 0)).loss == pytest.approx(
        plain, abs=1e-12
    )


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"metric": "classification", "label": None}, "needs search.label"),
        ({"metric": "classification", "label": "A"}, "search.label names 'A'"),
        ({"metric": "height", "weights": {"A": 1}}, "search.weights apply to the metrics"),
        ({"metric": "loss", "weights": {"C": 1}}, "search.weights names 'C', which is not a quasi-identifier"),
        ({"metric": "loss", "weights": {"A": -1}}, "must be a number >= 0"),
        ({"metric": "loss", "weights": {"A": 0, "B": 0}}, "at least one weight must be above 0"),
    ],
)
def test_bad_metric_settings(settings, message):
    job = table_job(ROWS | {"L": LABELS}, HIERARCHIES, **settings)
    with pytest.raises(ConfigError, match=message):
        validate(job)
