"""bench/appendix_b.py: the Lightning paper's relative information loss, and one of its ADULT
rows against a direct run of sqlanon."""

from __future__ import annotations

import pandas as pd
import pytest

import sqlanon
from bench.appendix_b import adult_job, measure, relative_loss
from bench.datasets import SHARED
from sqlanon.session import ALL_NEEDS, Session

ADULT = SHARED / "adult"


def test_relative_loss_spans_optimum_to_lowest_utility():
    assert relative_loss(0.5, 0.5, 1.0) == 0.0  # the optimum
    assert relative_loss(1.0, 0.5, 1.0) == 100.0  # the lowest utility of an anonymous node
    assert relative_loss(0.75, 0.5, 1.0) == 50.0
    assert relative_loss(2010.8, 942.5625, 30162.0) == pytest.approx(3.656, abs=5e-4)  # paper, AECS, k = 5
    assert relative_loss(3.0, 3.0, 3.0) == 0.0  # a single anonymous loss
    # not (L - L_opt) / L_opt, the layout bench/heuristics.py prints
    assert relative_loss(0.5, 0.25, 1.0) == pytest.approx(100 / 3)  # where (L - L_opt) / L_opt is 100 %


@pytest.mark.parametrize("loss, optimum, lowest", [(0.4, 0.5, 1.0), (1.1, 0.5, 1.0), (0.7, 0.9, 0.5)])
def test_relative_loss_refuses_a_loss_outside_the_range(loss, optimum, lowest):
    with pytest.raises(ValueError, match="is not within"):
        relative_loss(loss, optimum, lowest)


@pytest.mark.skipif(not (ADULT / "adult.csv").exists(), reason="ADULT not available")
def test_k5_loss_row_matches_a_direct_run():
    """(5)-anonymity, s = 0, Loss: the bench's DataFly and Flash are what sqlanon.anonymize
    returns, its lowest utility is the top's Loss (1), and the paper's own DataFly (ARX's
    benchmark rule) lands on the paper's 65.729 %."""
    with Session(adult_job("(5)-anonymity"), needs=ALL_NEEDS) as session:
        row = measure(session, "(5)-anonymity", "loss", 0.0)
    people = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    qis = [c for c in people.columns if c != "occupation"]
    settings = dict(
        quasi={q: ADULT / f"adult_hierarchy_{q}.csv" for q in qis},
        k=5,
        suppression_limit=0.0,
        metric="loss",
        engine="memory",
        others="insensitive",
    )
    datafly = sqlanon.anonymize(people, algorithm="datafly", **settings)
    optimum = sqlanon.anonymize(people, algorithm="flash", **settings)
    assert row["datafly"]["loss"] == datafly.loss and row["optimum"] == optimum.loss
    assert row["lowest"] == pytest.approx(1.0, abs=1e-12)
    assert row["datafly"]["relative"] == relative_loss(datafly.loss, optimum.loss, row["lowest"])
    assert round(row["datafly"]["relative"], 3) == 15.501
    assert round(row["arx-datafly"]["relative"], 3) == row["paper"]["datafly"] == 65.729
    # Lightning's first anonymous node: sqlanon's and the paper's code (Java's queue) agree, 30.49 %
    assert row["lightning"]["node"] == row["arx-lightning"]["node"]
    assert round(row["lightning"]["relative"], 2) == row["paper"]["lightning"] == 30.49
