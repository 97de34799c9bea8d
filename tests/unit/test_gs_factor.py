"""The metrics' gs factor (ARX's weighting of generalization against suppression) by hand on
the six-row table of test_metrics.py, its bounds against every generalization, and its
settings. ARX's own optima under it on ADULT: tests/search/test_gs_factor_arx.py."""

import math
from itertools import product

import pytest

from helpers.jobs import table_job
from helpers.metric_table import HIERARCHIES, ROWS
from sqlanon.config.read import load_job
from sqlanon.config.validate import validate
from sqlanon.errors import ConfigError
from sqlanon.metrics.base import gs_factors
from sqlanon.session import ALL_NEEDS, Session

# Node (0, 0), k = 2: (y,p) and (y,q) suppressed, S = 2; node (1, 0): (xy,q) suppressed, S = 1.
# gs 0.1: g = 1, s = 0.2. gs 0.8: g = 0.4, s = 1.
# loss (0, 0), gs 0.1: A kept shares 4 * 1/3, suppressed 2 * 1/3 + 0.2 * (2 - 2/3) = 14/15, sum 34/15,
#   min g N/|H| = 2, max 6: (34/15 - 2)/4 = 1/15; B 4 * 1/2 + (1 + 0.2 * 1) = 3.2, (3.2 - 3)/3 = 1/15.
# loss (1, 0), gs 0.8: A kept 0.4 * 8/3 + 1 = 31/15, min 0.4 * 2 = 12/15: 19/78;
#   B 0.4 * 5/2 + 1 = 2, min 1.2: 0.8/4.8 = 1/6.
# entropy (0, 0), gs 0.1: G = 0, T_B = 2 -> 0.2 * 2; (1, 0), gs 0.8: G_A = 4 -> 0.4 * 4, T = 0.
# precision (0, 0), gs 0.1: each QI (4 * 0 + 2 * 0.2)/6, mean 1/15; (1, 0), gs 0.8:
#   A (5 * 0.4 * 1/2 + 1)/6 = 1/3, B (0 + 1)/6: mean 1/4; monotonic 0.4 * mean(1/2, 0) = 0.1.
# aecs (0, 0): 6 / (2 kept * s + g): gs 0.1 6/1.4, gs 0.8 6/2.4, gs 0 6/1.
T = math.floor(19 / 78 * 1e10) / 1e10
EXPECTED = {
    ("loss", 0.1, (0, 0)): math.floor(1e10 / 15) / 1e10,
    ("loss", 0.8, (1, 0)): math.sqrt((1 + T) * (1 + 0.1666666666)) - 1,
    ("entropy", 0.1, (0, 0)): 0.4,
    ("entropy", 0.8, (1, 0)): 1.6,
    ("entropy-monotonic", 0.8, (1, 0)): 1.6,
    ("precision", 0.1, (0, 0)): 1 / 15,
    ("precision", 0.8, (1, 0)): 0.25,
    ("precision-monotonic", 0.8, (1, 0)): 0.1,
    ("aecs", 0.1, (0, 0)): 6 / 1.4,
    ("aecs", 0.8, (0, 0)): 2.5,
    ("aecs", 0.0, (0, 0)): 6.0,
}
TAKING = ("loss", "entropy", "entropy-monotonic", "precision", "precision-monotonic", "aecs")
NODES = list(product(range(3), range(2)))


@pytest.fixture(scope="module")
def session():
    job = table_job(ROWS, HIERARCHIES, k=2, suppression_limit=0.5)
    with Session(job, needs=ALL_NEEDS) as s:
        yield s


def test_the_split_into_factors_is_arx():
    assert (gs_factors(0.5).g, gs_factors(0.5).s) == (1.0, 1.0) and gs_factors(0.5).plain
    assert (gs_factors(0.1).g, gs_factors(0.1).s) == (1.0, 0.2)
    assert (gs_factors(0.8).g, gs_factors(0.8).s) == (1.0 - 2.0 * (0.8 - 0.5), 1.0)
    assert (gs_factors(0.0).g, gs_factors(0.0).s) == (1.0, 0.0)
    assert (gs_factors(1.0).g, gs_factors(1.0).s) == (0.0, 1.0)
    assert tuple(map(str, gs_factors(0.8).exact)) == ("2/5", "1")


@pytest.mark.parametrize("metric, gs, node", sorted(EXPECTED))
def test_metric_under_a_gs_factor_by_hand(session, metric, gs, node):
    result = session.checker(metric=metric, gs_factor=gs).check(node)
    assert result.loss == pytest.approx(EXPECTED[(metric, gs, node)], abs=1e-9)


def test_at_one_half_nothing_changes(session):
    for metric in TAKING:
        for node in NODES:
            plain = session.checker(metric=metric).check(node).loss
            assert session.checker(metric=metric, gs_factor=0.5).check(node).loss == plain


def test_the_extremes(session):
    # gs 1: only suppression counts, so a node that suppresses nothing loses nothing
    assert session.checker(metric="loss", gs_factor=1.0).check((2, 1)).loss == 0.0
    assert session.checker(metric="precision", gs_factor=1.0).check((1, 1)).loss == 0.0
    # gs 0: a suppressed row costs what it would kept at its level: level 0 costs nothing
    assert session.checker(metric="loss", gs_factor=0.0).check((0, 0)).loss == 0.0
    assert session.checker(metric="entropy", gs_factor=0.0).check((0, 0)).loss == 0.0
    # aecs under gs 0 with nothing suppressed divides by zero: ARX's infinity
    assert session.checker(metric="aecs", gs_factor=0.0).check((2, 1)).loss == math.inf


@pytest.mark.parametrize("gs", [0.0, 0.1, 0.3, 0.7, 0.9, 1.0])
@pytest.mark.parametrize("metric", TAKING)
def test_bounds_hold_for_the_node_and_every_generalization(session, metric, gs):
    checker = session.checker(metric=metric, gs_factor=gs)
    results = {node: checker.check(node) for node in NODES}
    for node, result in results.items():
        static = checker.metric.static_bound(node, session.ctx)
        for other, value in results.items():
            if all(o >= n for o, n in zip(other, node)):
                assert result.bound <= value.loss + 1e-12, (node, other)
                assert static is None or static <= value.loss + 1e-12, (node, other)


@pytest.mark.parametrize(
    "gs, metric, message",
    [
        (0.2, "discernibility", "gs_factor weighs generalization against suppression in the metrics aecs, precision"),
        (0.2, "height", "not in 'height'"),
        (1.5, "loss", "must be a number from 0 to 1"),
        (-0.1, "loss", "must be a number from 0 to 1"),
        (True, "loss", "must be a number from 0 to 1"),
        ("0.2", "loss", "must be a number from 0 to 1"),
    ],
)
def test_bad_gs_factor(gs, metric, message):
    with pytest.raises(ConfigError, match=message):
        validate(table_job(ROWS, HIERARCHIES, metric=metric, gs_factor=gs))


def test_the_job_file_key_and_the_report(tmp_path):
    from sqlanon import anonymize

    data = tmp_path / "t.csv"
    data.write_text("A,B\n" + "".join(f"{a},{b}\n" for a, b in zip(ROWS["A"], ROWS["B"])))
    for name, rows in HIERARCHIES.items():
        (tmp_path / f"{name}.csv").write_text("".join(";".join(r) + "\n" for r in rows))
    attributes = "".join(
        f'[attributes.{name}]\nrole = "quasi"\nhierarchy = "{tmp_path / f"{name}.csv"}"\n' for name in HIERARCHIES
    )
    search = '[search]\nmetric = "loss"\ngs_factor = 0.1\n'
    (tmp_path / "job.toml").write_text(
        f'[input]\npath = "{data}"\n[privacy]\nk = 2\nsuppression_limit = 0.5\n{search}'
        f'[output]\npath = "{tmp_path / "out.csv"}"\n{attributes}'
    )
    job = load_job(tmp_path / "job.toml")
    assert job.gs_factor == 0.1
    result = anonymize(job)
    assert result.success and result.report["verified"]
    assert result.report["gs_factor"] == 0.1
    # the optimum under gs 0.1: suppressing costs a fifth, so level (0, 0) with two rows out
    assert tuple(result.report["levels"].values()) == (0, 0)
    assert result.report["loss"] == pytest.approx(EXPECTED[("loss", 0.1, (0, 0))], abs=1e-12)
