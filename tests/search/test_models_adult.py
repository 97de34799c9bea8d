"""Every privacy model on ADULT (occupation sensitive) against exhaustive search and an
independent numpy oracle, for s in {0, 0.1}: every node's verdict and suppressed rows, and the
optimum of every optimal algorithm.

Five QIs (sex, age, race, marital-status, education: 240 nodes) here, every node against the
oracle; the eight QIs (4,320 nodes) against exhaustive search run on the in-memory engine in
test_models_adult8.py. One session shares every node's figures across searches.
"""

from dataclasses import replace
import math

import pytest

from helpers.contract import assert_optimal_algorithms_agree
from helpers.jobs import adult_oracle, occupation_job, seeded
from helpers.models_adult import COMBINED, MODELS, oracle_spec
from sqlanon.session import ALL_NEEDS, Session

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def session(adult_available):
    with Session(occupation_job(QIS, models=tuple(MODELS.values())), needs=ALL_NEEDS, share_stats=True) as s:
        yield s


@pytest.fixture(scope="module")
def oracle(adult_available):
    return adult_oracle(QIS)


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("name", list(MODELS) + ["combined"])
def test_models_against_exhaustive_search_and_oracle(session, oracle, name, limit):
    models = COMBINED if name == "combined" else (MODELS[name],)
    k = 5 if name == "combined" else 1
    metric = "loss" if name == "combined" else "discernibility"
    reference, checker = session.search("exhaustive", models=models, k=k, suppression_limit=limit, metric=metric)
    limit_rows = checker.limit_rows
    expected = [oracle_spec(m) for m in models] + [{"type": "k-anonymity", "k": k}]
    anonymous = 0
    for node in session.lattice.nodes():
        result = checker.checked(node)
        ok, suppressed, _ = oracle.evaluate(node, expected, limit_rows)
        assert (result.anonymous, result.stats.suppressed) == (ok, suppressed), node
        anonymous += ok
    assert 0 < anonymous < session.lattice.size  # the thresholds leave something to decide
    assert checker.monotonic_models == all(m.monotonic(limit) for m in checker.models)
    assert_optimal_algorithms_agree(session, reference, models=models, k=k, suppression_limit=limit, metric=metric)


def test_monotonic_models_keep_predictive_tagging(session):
    # distinct l-diversity is monotonic with suppression: Flash tags, so it checks far fewer nodes.
    outcome, checker = session.search("flash", models=(MODELS["distinct"],), k=1, suppression_limit=0.1)
    assert checker.monotonic_models and outcome.counters["tagged"] > 0
    assert outcome.counters["checks"] < session.lattice.size / 2
    outcome, checker = session.search("flash", models=(MODELS["entropy"],), k=1, suppression_limit=0.1)
    assert not checker.monotonic_models and outcome.counters["tagged"] == 0


def test_entropy_threshold_uses_natural_logarithm(session):
    # l = e: H >= 1 exactly; the same verdicts as the oracle are checked above for l = 5.
    checker = session.checker(models=({"type": "entropy-l-diversity", "attribute": "occupation", "l": math.e},), k=1)
    assert checker.params["m1_entropy"] == pytest.approx(1.0)


@pytest.mark.parametrize("limit", [0.0, 0.1])
def test_classification_metric_against_exhaustive_search_and_oracle(adult_available, limit):
    labels = adult_oracle(QIS, "salary-class")
    with Session(
        occupation_job(QIS, label="salary-class", metric="classification", k=5, suppression_limit=limit),
        share_stats=True,
    ) as session:
        reference, checker = session.search("exhaustive")
        for node in [reference.optimum.node, (0,) * len(QIS), session.lattice.top]:
            hist = labels.histograms(node)
            n = hist.sum(axis=1)
            kept = n >= 5
            expected = (int((n - hist.max(axis=1))[kept].sum()) + int(n[~kept].sum())) / labels.n
            assert checker.checked(node).loss == pytest.approx(expected, abs=1e-12), node
        assert_optimal_algorithms_agree(session, reference)


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("name", ["recursive", "t-hierarchical", "combined"])
def test_heuristics_with_privacy_models(session, oracle, name, limit):
    """Every heuristic honours the models (the oracle agrees the node passes them all) and
    is no better than the optimum; Lightning run to the end finds it."""
    from sqlanon.search import HEURISTICS

    models = COMBINED if name == "combined" else (MODELS[name],)
    k = 5 if name == "combined" else 1
    expected = [oracle_spec(m) for m in models] + [{"type": "k-anonymity", "k": k}]
    reference, checker = session.search("flash", models=models, k=k, suppression_limit=limit, metric="loss")
    for heuristic in HEURISTICS:
        outcome, checker = session.search(
            heuristic, models=models, k=k, suppression_limit=limit, metric="loss", **seeded(heuristic, 3)
        )
        found = outcome.optimum
        assert found is not None, heuristic
        assert oracle.evaluate(found.node, expected, checker.limit_rows)[0], (heuristic, found.node)
        assert found.loss >= reference.optimum.loss, heuristic
        if heuristic == "lightning":
            assert outcome.proven and found.node == reference.optimum.node


@pytest.mark.parametrize("name", ["recursive", "t-equal", "t-hierarchical", "entropy", "t-ordered"])
def test_dense_histograms_give_the_figures_of_pairs(adult_available, monkeypatch, name):
    """The kernel holds occupation (14 values) as a count matrix per class; forced to hold
    pairs instead, every class of every eighth node has the very same figures and verdict
    (``==`` on the doubles), whether the model reads the matrix (recursive, equal and
    hierarchical t-closeness) or the pairs made from it (entropy, ordered t-closeness)."""
    from sqlanon.kernel import runner as kernel

    found = {}
    for dense in (True, False):
        if not dense:
            monkeypatch.setattr(kernel, "dense_fits", lambda *args: False)
        job = occupation_job(QIS, models=(MODELS[name],), suppression_limit=0.1)
        job = replace(job, checks="local")
        with Session(job) as session:
            assert isinstance(session.runner.base.histograms[0], kernel.Dense) == dense
            checker = session.checker()
            nodes = list(session.lattice.nodes())[::8]
            found[dense] = [session.runner.class_figures(node, checker.keep, checker.params) for node in nodes]
            found[dense].append([checker.check(node).stats for node in nodes])
    assert found[True] == found[False]
