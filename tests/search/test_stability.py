"""Flash is stable: permuting the QIs (the job's attribute order, which orders the lattice's dimensions)
changes neither the number of checks nor the optimum, up to the permutation."""

import random

import pytest

from helpers.jobs import ADULT_QIS, ADULT_SUBSET, adult_job
from sqlanon.session import Session

PERMUTATIONS = [list(reversed(ADULT_QIS)), random.Random(7).sample(ADULT_QIS, len(ADULT_QIS))]


def _flash(qis, **settings):
    with Session(adult_job(qis, **settings)) as session:
        outcome, checker = session.search("flash")
        return dict(zip(qis, outcome.optimum.node)), outcome.optimum.loss, checker.checks


@pytest.mark.parametrize("permutation", PERMUTATIONS)
@pytest.mark.parametrize(
    "k, limit, metric, qis",
    [
        (5, 0.0, "discernibility", ADULT_QIS),
        (2, 0.0, "loss", ADULT_QIS),
        (5, 0.02, "discernibility", ADULT_SUBSET),
    ],
)
def test_flash_checks_and_optimum_do_not_depend_on_the_column_order(
    adult_available, permutation, k, limit, metric, qis
):
    settings = dict(k=k, suppression_limit=limit, metric=metric)
    levels, loss, checks = _flash(qis, **settings)
    order = [q for q in permutation if q in qis]
    assert order != qis
    permuted_levels, permuted_loss, permuted_checks = _flash(order, **settings)
    assert permuted_checks == checks
    assert permuted_levels == levels
    assert permuted_loss == pytest.approx(loss, rel=1e-12)
