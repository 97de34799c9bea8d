"""Every metric against hand computations on a six-row table (see the comments for the sums)."""

import math

import pytest

from helpers.jobs import table_job
from helpers.metric_table import HIERARCHIES, ROWS
from sqlanon.session import ALL_NEEDS, Session

# The table (HIERARCHIES, ROWS): helpers/metric_table.py.
# Node (0, 0), k = 2: classes (x,p)=2, (y,p)=1, (y,q)=1, (z,q)=2 -> rows of (y,p), (y,q) suppressed, S = 2.
#   discernibility = 2^2 + 2^2 + 6*2 = 20; star = 4+1+1+4 = 10; aecs = 6 / (2 kept + 1) = 2
#   precision = mean(((6-2)*0/2 + 2)/6, ((6-2)*0/1 + 2)/6) = 1/3
#   loss: A raw = 4 kept rows * 1/3 + 2 = 10/3, L_A = (10/3 - 2)/(6 - 2) = 1/3;
#         B raw = 4 * 1/2 + 2 = 4, L_B = (4 - 3)/(6 - 3) = 1/3; loss = (4/3)^(1/2)(4/3)^(1/2) - 1 = 1/3
#   entropy: G = 0 at level 0; suppressed A values {y: 2} -> 0; B values {p: 1, q: 1} -> 2*log2(2) = 2
# Node (1, 0): classes (xy,p)=3, (xy,q)=1, (z,q)=2 -> (xy,q) suppressed, S = 1.
#   discernibility = 9 + 4 + 6 = 19; star = 9+1+4 = 14; aecs = 6/3 = 2; height = 1
#   precision = mean((5*1/2 + 1)/6, (5*0 + 1)/6) = mean(7/12, 2/12) = 3/8; monotonic = mean(1/2, 0) = 1/4
#   loss: A kept leaves = 3 rows * 2 + 2 rows * 1 = 8, raw = 8/3 + 1 = 11/3, L_A = (11/3 - 2)/4 = 5/12;
#         B raw = 5/2 + 1 = 7/2, L_B = (7/2 - 3)/3 = 1/6; loss = sqrt(17/12 * 7/6) - 1
#   entropy: G_A = 2 log2(4/2) + 2 log2(4/2) + 2 log2(2/2) = 4; T = 0 (one suppressed row) -> 4
EXPECTED = {
    (0, 0): {
        "discernibility": 20,
        "discernibility-star": 10,
        "aecs": 2.0,
        "height": 0,
        "precision": 1 / 3,
        "precision-monotonic": 0.0,
        "loss": 1 / 3,
        "entropy": 2.0,
        "entropy-monotonic": 0.0,
    },
    (1, 0): {
        "discernibility": 19,
        "discernibility-star": 14,
        "aecs": 2.0,
        "height": 1,
        "precision": 3 / 8,
        "precision-monotonic": 0.25,
        "loss": math.sqrt(17 / 12 * 7 / 6) - 1,
        "entropy": 4.0,
        "entropy-monotonic": 4.0,
    },
}


@pytest.fixture(scope="module")
def session():
    job = table_job(ROWS, HIERARCHIES, k=2, suppression_limit=0.5)
    with Session(job, needs=ALL_NEEDS) as s:
        yield s


@pytest.mark.parametrize("node", sorted(EXPECTED))
@pytest.mark.parametrize("metric", sorted(EXPECTED[(0, 0)]))
def test_metric_matches_hand_computation(session, node, metric):
    result = session.checker(metric=metric).check(node)
    assert result.loss == pytest.approx(EXPECTED[node][metric], abs=1e-9)
    assert result.bound <= result.loss


def test_suppressed_rows_and_classes_of_hand_table(session):
    stats = session.checker().check((0, 0)).stats
    assert (stats.classes, stats.kept_classes, stats.suppressed, stats.min_kept) == (4, 2, 2, 2)
    stats = session.checker().check((1, 0)).stats
    assert (stats.classes, stats.kept_classes, stats.suppressed, stats.min_kept) == (3, 2, 1, 2)


def test_loss_and_entropy_truncate_to_ten_decimals(session):
    # 1/3 truncated is 0.3333333333, so the loss is that, not 0.33333333333333...
    value = session.checker(metric="loss").check((0, 0)).loss
    assert value == pytest.approx(0.3333333333, abs=1e-12)
    assert value < 1 / 3


def test_non_monotonic_metric_improves_under_generalization(session):
    # With suppression, discernibility drops from (0,0) to (1,0): why Flash must check beyond minimal nodes.
    checker = session.checker(metric="discernibility")
    assert checker.check((1, 0)).loss < checker.check((0, 0)).loss
    assert not checker.monotonic_metric
    assert session.checker(metric="discernibility", suppression_limit=0.0).monotonic_metric
