"""Flash against exhaustive search (same engine) and against the independent oracle."""

import pytest

from helpers.jobs import ADULT_QIS, ADULT, adult_hierarchy, adult_job, table_job
from helpers.oracle import Oracle
from sqlanon.metrics import METRICS
from sqlanon.session import ALL_NEEDS, Session

# The metrics of the foundation; ambiguity, KL-divergence and classification are held to
# exhaustive search and the oracle in test_contract.py and test_models_adult.py (6 and 5 QIs):
# adding them here on all nine QIs would cost minutes of CI for little more.
FLASH_METRICS = [m for m in METRICS if m not in ("ambiguity", "kl-divergence", "classification")]

KS = (2, 5, 10)
LIMITS = (0.0, 0.02, 0.1)


@pytest.fixture(scope="module")
def full_session(adult_available):
    with Session(adult_job(ADULT_QIS), needs=ALL_NEEDS, share_stats=True) as s:
        yield s


@pytest.fixture(scope="module")
def full_oracle(adult_available):
    oracle = Oracle(ADULT / "adult.csv", ";", {q: adult_hierarchy(q) for q in ADULT_QIS})
    return oracle.optima(KS, LIMITS, FLASH_METRICS)


@pytest.mark.parametrize("metric", FLASH_METRICS)
@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("k", KS)
def test_flash_equals_exhaustive_on_adult_subset(adult_subset_session, k, limit, metric):
    subset_session = adult_subset_session
    exhaustive, ex_checker = subset_session.search("exhaustive", k=k, suppression_limit=limit, metric=metric)
    flash, _ = subset_session.search("flash", k=k, suppression_limit=limit, metric=metric)
    assert ex_checker.checks == subset_session.lattice.size == 720
    assert exhaustive.optimum is not None and flash.optimum is not None
    assert flash.optimum.loss == exhaustive.optimum.loss
    # Same tie order in both, so the very same node.
    assert flash.optimum.node == exhaustive.optimum.node
    assert flash.counters["checks"] < exhaustive.counters["checks"]


@pytest.mark.slow
@pytest.mark.parametrize("metric", FLASH_METRICS)
@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("k", KS)
def test_flash_equals_bruteforce_oracle_on_all_nine_adult_qis(full_session, full_oracle, k, limit, metric):
    outcome, _ = full_session.search("flash", k=k, suppression_limit=limit, metric=metric)
    best, nodes = full_oracle[(k, limit, metric)]
    assert outcome.optimum.loss == pytest.approx(best, rel=1e-9, abs=1e-9)
    assert outcome.optimum.node in nodes
    if len(nodes) == 1:
        assert outcome.optimum.node == next(iter(nodes))


# Published reference points for ADULT, 9 QIs (checks are ours; see bench/flash_adult.py).
@pytest.mark.parametrize(
    "k, limit, node, loss, suppressed",
    [
        (5, 0.0, (1, 1, 1, 2, 3, 2, 2, 1, 1), 33627534, 0),
        (5, 0.02, (0, 0, 1, 2, 3, 2, 2, 1, 1), 7220555, 105),
    ],
)
def test_flash_adult_discernibility_optimum(full_session, k, limit, node, loss, suppressed):
    outcome, checker = full_session.search("flash", k=k, suppression_limit=limit, metric="discernibility")
    assert outcome.optimum.node == node
    assert outcome.optimum.loss == loss
    assert outcome.optimum.stats.suppressed == suppressed
    assert outcome.optimum.stats.min_kept >= k


def test_flash_check_counts_on_adult(adult_available):
    # Guards the pruning as well as the answer: ARX 3.9.2 needs 181 and 1,895 checks.
    with Session(adult_job(ADULT_QIS)) as session:
        outcome, _ = session.search("flash", k=5, suppression_limit=0.0)
        assert outcome.counters["checks"] == 176
        assert outcome.counters["checks"] + outcome.counters["tagged"] == session.lattice.size
        outcome, _ = session.search("flash", k=5, suppression_limit=0.02)
        assert outcome.counters["checks"] == 1859


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flash_does_not_depend_on_the_column_order(adult_available, seed):
    import random

    order = ADULT_QIS[:]
    random.Random(seed).shuffle(order)
    with Session(adult_job(order)) as session:
        outcome, _ = session.search("flash", k=5, suppression_limit=0.02)
        assert outcome.counters["checks"] == 1859
        assert outcome.optimum.loss == 7220555
        levels = dict(zip(order, outcome.optimum.node))
        assert [levels[q] for q in ADULT_QIS] == [0, 0, 1, 2, 3, 2, 2, 1, 1]


def test_no_solution_when_k_exceeds_rows():
    job = table_job({"A": ["x", "y", "z"]}, {"A": [["x", "*"], ["y", "*"], ["z", "*"]]}, k=4)
    with Session(job) as session:
        for algorithm in ("flash", "exhaustive"):
            outcome, _ = session.search(algorithm)
            assert outcome.optimum is None


def test_suppression_limit_is_exact_decimal_of_rows():
    # floor(0.29 * 100) is 29; the float product 28.999999999999996 would give 28.
    job = table_job({"A": ["x"] * 100}, {"A": [["x", "*"]]}, suppression_limit=0.29)
    assert job.limit_rows(100) == 29


@pytest.mark.parametrize("limit, expected_node, expected_suppressed", [(0.0, (1,), 0), (0.15, (0,), 1)])
def test_suppression_semantics_arx(limit, expected_node, expected_suppressed):
    # 7 rows: a,a,a,b,b,b,c. k=3: at level 0 class c (1 row) fails and is suppressed whole.
    # With floor(0.15 * 7) = 1 the bottom node is anonymous; with s = 0 only the top one is.
    job = table_job(
        {"A": list("aaabbbc")},
        {"A": [["a", "*"], ["b", "*"], ["c", "*"]]},
        k=3,
        suppression_limit=limit,
        metric="height",
    )
    with Session(job) as session:
        outcome, _ = session.search("flash")
        assert outcome.optimum.node == expected_node
        assert outcome.optimum.stats.suppressed == expected_suppressed
        # Classes meeting k are never suppressed: a and b stay.
        assert outcome.optimum.stats.kept_classes == (2 if expected_node == (0,) else 1)
