"""Batched checks: ``class_stats_many`` answers several nodes in one query with exactly the
figures ``class_stats`` gives each (ADULT with every model kind, hand-made and random tables,
DuckDB, PostgreSQL, Spark); jobs it cannot batch fall back to single checks; and the searches
that announce their nodes (``Checker.batch``) decide, count and trace exactly as they do one
check at a time, with fewer queries."""

from __future__ import annotations

from dataclasses import replace
import random

import pytest
from helpers.jobs import on_engine, table_job
from hypothesis import HealthCheck, given, settings
from helpers.sensitive import MODELS, QIS5, sensitive_job
from helpers.presence import PRESENCE, hand_job
from helpers.random_tables import jobs

from sqlanon.checks.checker import BATCH_MOST, BATCH_NODES
from sqlanon.core.needs import Need
from sqlanon.engines.duckdb import batches as duckdb_batches
from sqlanon.engines.sql import runner as sql_runner
from sqlanon.engines.sql.runner import SqlRunner
from sqlanon.engines.sql.batches import STATEMENT_NODES, statements
from sqlanon.session import ALL_NEEDS, Session
from sqlanon.core.snapshots import SnapshotSettings

POPULATION = {"type": "population-uniqueness", "threshold": 0.05, "model": "zayatz", "population_size": 60000}
#: (metric, models) whose checks batch: sizes only, leaf counts, each histogram model, uniques, kept sizes
BATCHED = {
    "k-discernibility": ("discernibility", ()),
    "k-loss": ("loss", ()),
    "k-aecs": ("aecs", ()),
    "population-uniqueness": ("discernibility", (POPULATION,)),
    **{f"{name}-loss": ("loss", (spec,)) for name, spec in MODELS.items()},
}
#: jobs checked one node at a time: suppressed histograms (a second query per node), float sums
SINGLE = {"entropy": ("entropy", ()), "kl-divergence": ("kl-divergence", ())}


def sample(session, count=40, seed=3):
    nodes = list(session.lattice.nodes())
    return random.Random(seed).sample(nodes, min(count, len(nodes)))


def single_and_many(session, nodes, metric, models, k=3, s=0.05):
    checker = session.checker(k=k, suppression_limit=s, metric=metric, models=tuple(models))
    engine = session.engine
    single = [session.runner.class_stats(node, checker.keep, checker.params, checker.needs) for node in nodes]
    queries = engine.queries
    many = session.runner.class_stats_many(nodes, checker.keep, checker.params, checker.needs)
    # a statement per 32 nodes (DuckDB runs a lean batch on two connections in statements of
    # 16, at least two; Spark runs one query per node, as concurrent jobs)
    assert engine.queries - queries in ((0,) if many is None else statement_counts(engine, len(nodes)))
    return single, many


def statement_counts(engine, count):
    """The statements a batch of ``count`` nodes may take on ``engine``."""
    if engine.name == "spark":
        return (count,)
    return (len(statements(count)), len(statements(count, duckdb_batches._PIECE, least=2)))


@pytest.fixture(scope="module")
def adult5(adult_available):
    job = sensitive_job(QIS5, models=tuple(MODELS.values()) + (POPULATION,), checks="sql")
    with Session(job, needs=ALL_NEEDS) as session:
        yield session


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BATCHED))
def test_batch_equals_single_checks_on_adult(adult5, case):
    metric, models = BATCHED[case]
    nodes = sample(adult5)
    single, many = single_and_many(adult5, nodes, metric, models)
    assert many == single
    # not vacuous: the nodes differ, and k = 3 keeps some classes and suppresses others
    assert (
        len({s.classes for s in single}) > 10
        and any(s.suppressed for s in single)
        and any(s.kept_classes for s in single)
    )


@pytest.mark.parametrize("case", sorted(SINGLE))
def test_jobs_that_cannot_batch_fall_back_to_single_checks(adult5, case):
    metric, models = SINGLE[case]
    nodes = sample(adult5, 12)
    single, many = single_and_many(adult5, nodes, metric, models)
    assert many is None
    checker = adult5.checker(k=3, suppression_limit=0.05, metric=metric, models=tuple(models))
    results = checker.check_many(nodes)
    assert [r.node for r in results] == nodes and checker.checks == len(nodes)
    for result, stats in zip(results, single):
        assert result.stats.suppressed_histograms == stats.suppressed_histograms
        assert (result.stats.classes, result.stats.suppressed, result.stats.dm_kept) == (
            stats.classes,
            stats.suppressed,
            stats.dm_kept,
        )


def test_check_many_equals_check_and_counts_each_node_once(adult5):
    nodes = sample(adult5, 2 * BATCH_NODES + 5)
    one = adult5.checker(k=5, suppression_limit=0.02, metric="loss", models=())
    expected = [one.check(node) for node in nodes]
    many = adult5.checker(k=5, suppression_limit=0.02, metric="loss", models=())
    seen = []
    many.on_check = seen.append
    queries = adult5.engine.queries
    results = many.check_many(nodes + nodes[:3])  # repeats are answered from the cache
    # the batch asks for 32 nodes, then for 64 (37 are left); DuckDB with two threads runs
    # each call in statements of at most 16 nodes on two connections, else of at most 32
    two = adult5.engine._threads >= 2
    cut = (lambda n: statements(n, duckdb_batches._PIECE, least=2)) if two else statements
    assert adult5.engine.queries - queries == len(cut(32)) + len(cut(37)) == (5 if two else 3)
    assert results[: len(nodes)] == expected and results[len(nodes) :] == expected[:3]
    assert many.checks == len(nodes) and [r.node for r in seen] == nodes


@pytest.mark.parametrize("threads", [1, 2])
def test_duckdb_splits_a_lean_batch_over_two_connections(adult_available, threads):
    """With two threads, a batch over a class table of one row group runs in two statements
    or more, on this connection and a second one (its own copy of the wide table) at the
    same time; the figures are those of single checks either way, and a histogram model's
    batch stays one statement."""
    job = sensitive_job(QIS5, models=(MODELS["recursive"],), checks="sql", engine_settings={"threads": threads})
    with Session(job, needs=ALL_NEEDS) as session:
        engine = session.engine
        nodes = sample(session, 20, seed=5)
        for metric, models, split in (
            ("discernibility", (), True),
            ("loss", (), True),
            ("loss", (MODELS["recursive"],), False),
        ):
            single, many = single_and_many(session, nodes, metric, models)
            assert many == single
            args = _checker_args(session, metric, models)
            queries = engine.queries
            session.runner.class_stats_many(nodes, *args)
            assert engine.queries - queries == (2 if split and threads == 2 else 1)
        assert (engine._second is not None) == (threads == 2)
    assert engine._second is None  # closed with the session


def test_statements_cut_evenly():
    assert statements(0) == []
    assert statements(1) == [(0, 1)]
    assert statements(32) == [(0, 32)]
    assert statements(33) == [(0, 16), (16, 33)]  # 16 + 17, not 32 + 1
    assert statements(100, 16, least=2) == [(0, 14), (14, 28), (28, 42), (42, 57), (57, 71), (71, 85), (85, 100)]
    assert statements(4, 16, least=2) == [(0, 2), (2, 4)]
    for count in range(1, 200):
        cuts = statements(count, STATEMENT_NODES)
        assert cuts[0][0] == 0 and cuts[-1][1] == count and all(b - a <= STATEMENT_NODES for a, b in cuts)
        assert all(a2 == b1 for (_, b1), (a2, _) in zip(cuts, cuts[1:]))
        assert max(b - a for a, b in cuts) - min(b - a for a, b in cuts) <= 1


@pytest.mark.slow
@pytest.mark.parametrize("metric, models", [("discernibility", ()), ("loss", (MODELS["recursive"],))])
def test_a_long_batch_keeps_its_order_through_the_pipeline(adult_available, metric, models):
    """More statements than the pipeline keeps in flight (``_AHEAD``), taken by whichever
    connection is free: each node still gets its own figures, in order. A histogram
    model's batch (rows, not arrays) goes the same way when it is lean, else one statement
    per 32 nodes."""
    job = sensitive_job(QIS5, models=(MODELS["recursive"],), checks="sql", engine_settings={"threads": 2})
    with Session(job, needs=ALL_NEEDS) as session:
        nodes = list(session.lattice.nodes())
        assert len(statements(len(nodes), duckdb_batches._PIECE, least=2)) > duckdb_batches._AHEAD
        single, many = single_and_many(session, nodes, metric, models)
        assert many == single and len({s.classes for s in single}) > 10


def test_a_failed_batch_leaves_both_connections_idle_and_usable(adult_available, monkeypatch):
    """Ctrl-C (or any error) while a pipelined batch is read: every statement still running
    is interrupted and waited for, both connections are idle again, and the next batch gets
    the same figures as single checks."""
    job = sensitive_job(QIS5, checks="sql", engine_settings={"threads": 2})
    with Session(job) as session:
        engine = session.engine
        nodes = list(session.lattice.nodes())
        args = _checker_args(session, "discernibility", ())
        single = [session.runner.class_stats(node, *args) for node in nodes]
        real, reads = sql_runner.from_batch_sizes, []

        def interrupted(*a, **k):
            reads.append(1)
            if len(reads) == 2:
                raise KeyboardInterrupt
            return real(*a, **k)

        monkeypatch.setattr(sql_runner, "from_batch_sizes", interrupted)
        with pytest.raises(KeyboardInterrupt):
            session.runner.class_stats_many(nodes, *args)
        monkeypatch.undo()
        assert engine._idle.qsize() == 2  # nothing runs on either connection
        assert session.runner.class_stats_many(nodes, *args) == single


def test_a_batch_asks_for_more_nodes_each_time(adult5, monkeypatch):
    """32 nodes, then 64, 128 ... up to ``BATCH_MOST``: a long list soon fills the
    pipeline, and a search that stops early computed at most what it used again."""
    asked = []
    real = type(adult5.runner).class_stats_many

    def spy(runner, nodes, *args):
        asked.append(len(nodes))
        return real(runner, nodes, *args)

    monkeypatch.setattr(type(adult5.runner), "class_stats_many", spy)
    nodes = list(adult5.lattice.nodes())
    checker = adult5.checker(k=5, suppression_limit=0.02, metric="loss", models=())
    checker.check_many(nodes)
    expected, left, size = [], len(nodes), BATCH_NODES
    while left >= 2:
        expected.append(min(size, left))
        left -= expected[-1]
        size = min(2 * size, BATCH_MOST)
    assert asked == expected and asked[:3] == [32, 64, 128]


def _checker_args(session, metric, models):
    checker = session.checker(k=3, suppression_limit=0.05, metric=metric, models=tuple(models))
    return checker.keep, checker.params, checker.needs


def test_a_snapshot_policy_and_local_checks_check_one_node_at_a_time(adult_available):
    job = sensitive_job(QIS5, checks="sql", snapshots=SnapshotSettings(rollup=True, history=True))
    with Session(job) as session:
        nodes = sample(session, 10)
        single, many = single_and_many(session, nodes, "discernibility", ())
        assert many == single  # the engine could (it reads the base class table) ...
        checker = session.checker(k=3, suppression_limit=0.05)
        assert not checker.batches  # ... but each check starts from what the one before kept
        queries = session.engine.queries
        assert [r.stats for r in checker.check_many(nodes)] == single
        assert session.engine.queries - queries >= len(nodes)
    job = sensitive_job(QIS5, checks="local")
    with Session(job) as session:
        assert session.placement == "local"
        _, many = single_and_many(session, sample(session, 10), "discernibility", ())
        assert many is None


def test_delta_presence_batches_with_its_population_counts():
    job = hand_job()
    job = replace(job, checks="sql")
    with Session(job, needs=ALL_NEEDS) as session:
        nodes = list(session.lattice.nodes())
        single, many = single_and_many(session, nodes, "discernibility", (PRESENCE,), k=1, s=0.5)
        assert many == single
        # the hand-computed classes (test_presence.CLASSES): 3 released classes at level 0, 2, 1
        assert [s.classes for s in single] == [3, 2, 1]


def test_hand_made_table_every_node():
    hierarchies = {"A": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]], "B": [["p", "*"], ["q", "*"]]}
    rows = {"A": list("xxyyzzxzx"), "B": list("pppqqqqpq")}
    with Session(table_job(rows, hierarchies, k=2, suppression_limit=0.5, checks="sql"), needs=ALL_NEEDS) as session:
        nodes = list(session.lattice.nodes())
        for metric in ("discernibility", "loss", "aecs"):
            single, many = single_and_many(session, nodes, metric, (), k=2, s=0.5)
            assert many == single
        # A at level 0 and B at level 0: classes xp:2 xq:1 yp:1 yq:1 zq:2 zp:1 + x q... counted by hand
        counts = {}
        for a, b in zip(rows["A"], rows["B"]):
            counts[a, b] = counts.get((a, b), 0) + 1
        assert single[nodes.index((0, 0))].classes == len(counts)
        assert single[nodes.index((0, 0))].suppressed == sum(n for n in counts.values() if n < 2)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(job=jobs())
def test_random_tables_batch_equals_single(job):
    job = replace(job, checks="sql")
    with Session(job) as session:
        nodes = list(session.lattice.nodes())
        checker = session.checker()
        single = [session.runner.class_stats(n, checker.keep, checker.params, checker.needs) for n in nodes]
        many = session.runner.class_stats_many(nodes, checker.keep, checker.params, checker.needs)
        if many is None:  # entropy (suppressed histograms), a metric's float sums (KL, ambiguity), one node
            assert (
                len(nodes) < 2
                or Need.SUPPRESSED_HISTOGRAMS in checker.needs
                or checker.metric.stats_columns(len(nodes[0]))
            )
        else:
            assert many == single


@pytest.mark.parametrize("engine", ["postgres", pytest.param("spark", marks=pytest.mark.spark_full)])
@pytest.mark.parametrize("case", ["k-discernibility", "k-loss", "recursive-loss", "population-uniqueness"])
def test_batch_equals_single_on_other_sql_engines(adult_available, request, engine, case):
    metric, models = BATCHED[case]
    job = on_engine(sensitive_job(QIS5, models=tuple(MODELS.values()) + (POPULATION,)), engine, request)
    with Session(job, needs=ALL_NEEDS) as session:
        nodes = sample(session, 12 if engine == "spark" else 40)
        single, many = single_and_many(session, nodes, metric, models)
        assert many == single


SEARCHES = [
    ("exhaustive", {}),
    ("incognito", {}),
    ("flash", {"metric": "loss", "suppression_limit": 0.1}),  # the completion pass checks
    ("lightning", {"step_limit": 300}),
    ("igreedy", {}),
    ("genetic", {"step_limit": 300, "seed": 7}),
    ("random", {"step_limit": 200, "seed": 7}),
]


@pytest.mark.parametrize("algorithm, options", SEARCHES, ids=[a for a, _ in SEARCHES])
def test_searches_decide_and_count_as_with_single_checks(adult5, monkeypatch, algorithm, options):
    def run():
        queries = adult5.engine.queries
        outcome, checker = adult5.search(
            algorithm, **{"k": 5, "suppression_limit": 0.02, "metric": "loss", "models": (), **options}
        )
        counters = {k: v for k, v in outcome.counters.items() if k != "seconds"}
        trace = [(t["checks"], t["loss"]) for t in outcome.trace]
        return (
            outcome.optimum.node,
            outcome.optimum.stats,
            counters,
            trace,
            outcome.proven,
        ), adult5.engine.queries - queries

    batched, batched_queries = run()
    monkeypatch.setattr(SqlRunner, "class_stats_many", lambda *args: None)
    single, single_queries = run()
    assert batched == single
    checks = batched[2]["checks"]
    assert single_queries == checks
    if algorithm in ("exhaustive", "incognito"):
        assert batched_queries < single_queries / 2, (batched_queries, single_queries)
    else:
        assert batched_queries <= single_queries
