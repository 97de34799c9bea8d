"""Every privacy model on ADULT with the eight QIs besides `occupation` (its sensitive
attribute): exhaustive search over all 4,320 nodes against every optimal algorithm, for
s in {0, 0.1}, with the in-memory engine (a check with a histogram model costs ~2 ms there
against 20-120 ms in DuckDB, which makes the full lattice affordable). The optimum is
confirmed by the independent numpy oracle, and DuckDB gives the same figures for it and for
each of its direct specializations (tests/engines/test_engines.py compares the engines everywhere
else)."""

import pytest
from helpers.jobs import ADULT_QIS, adult_oracle, occupation_job
from helpers.contract import assert_optimal_algorithms_agree
from helpers.models_adult import COMBINED, MODELS, oracle_spec

from sqlanon.session import ALL_NEEDS, Session

QIS8 = [q for q in ADULT_QIS if q != "occupation"]


def _session(engine):
    return Session(
        occupation_job(QIS8, models=tuple(MODELS.values()), engine=engine), needs=ALL_NEEDS, share_stats=True
    )


@pytest.fixture(scope="module")
def memory(adult_available):
    with _session("memory") as session:
        yield session


@pytest.fixture(scope="module")
def duckdb(adult_available):
    with _session("duckdb") as session:
        yield session


@pytest.fixture(scope="module")
def oracle(adult_available):
    return adult_oracle(QIS8)


@pytest.mark.slow
@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("name", list(MODELS) + ["combined"])
def test_models_on_eight_qis_against_exhaustive_search(memory, duckdb, oracle, name, limit):
    models = COMBINED if name == "combined" else (MODELS[name],)
    k = 5 if name == "combined" else 1
    metric = "loss" if name == "combined" else "discernibility"
    settings = dict(models=models, k=k, suppression_limit=limit, metric=metric)
    reference, checker = memory.search("exhaustive", **settings)
    assert checker.checks == memory.lattice.size == 4320
    anonymous = sum(checker.checked(node).anonymous for node in memory.lattice.nodes())
    assert 0 < anonymous < memory.lattice.size  # the thresholds leave something to decide
    assert_optimal_algorithms_agree(memory, reference, **settings)
    best = reference.optimum
    expected = [oracle_spec(m) for m in models] + [{"type": "k-anonymity", "k": k}]
    ok, suppressed, _ = oracle.evaluate(best.node, expected, checker.limit_rows)
    assert ok and suppressed == best.stats.suppressed
    other = duckdb.checker(**settings)
    for node in [best.node, *memory.lattice.predecessors(best.node)]:
        mine, theirs = checker.checked(node), other.check(node)
        assert (theirs.anonymous, theirs.stats.suppressed, theirs.stats.classes) == (
            mine.anonymous,
            mine.stats.suppressed,
            mine.stats.classes,
        ), node
        assert theirs.loss == pytest.approx(mine.loss, rel=1e-9), node
