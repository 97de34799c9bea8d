"""The engine contract (sqlanon/engines/store.py): every engine subclasses the abstract base and
declares its capabilities; the checker owns the snapshot policy and the placement, the engine
only stores what the policy keeps and measures what a query costs."""

from __future__ import annotations

from dataclasses import replace
import pytest
from helpers.jobs import ADULT_SUBSET, adult_job

from sqlanon.engines import ENGINES
from sqlanon.engines.store import Capabilities, Store
from sqlanon.engines.memory.engine import MemoryEngine
from sqlanon.checks.placement import decide
from sqlanon.session import Session
from sqlanon.core.snapshots import SnapshotSettings

QIS5 = ["sex", "age", "race", "marital-status", "education"]
ON = SnapshotSettings(rollup=True, history=True)


def test_every_engine_subclasses_the_contract_and_declares_what_it_can():
    for name, cls in ENGINES.items():
        assert issubclass(cls, Store) and not cls.__abstractmethods__, name
        assert isinstance(cls.capabilities, Capabilities), name
    caps = {name: cls.capabilities for name, cls in ENGINES.items()}
    assert caps["memory"].placements == ("local",) and not caps["memory"].batches
    for name in ("duckdb", "postgres", "spark"):
        assert caps[name].placements == ("sql", "local") and caps[name].batches and caps[name].snapshots, name
    assert [name for name, c in caps.items() if c.research_subset] == ["duckdb"]
    assert caps["postgres"].inputs == ("postgres",) and "postgres" in caps["postgres"].outputs
    assert "duckdb" not in caps["memory"].inputs + caps["memory"].outputs


def test_an_engine_missing_part_of_the_contract_cannot_be_created():
    methods = {name: getattr(MemoryEngine, name) for name in Store.__abstractmethods__ if name != "runner"}
    partial = type("Partial", (Store,), {**methods, "name": "partial", "capabilities": MemoryEngine.capabilities})
    with pytest.raises(TypeError, match="runner"):
        partial()
    with pytest.raises(ValueError, match="placements"):
        Capabilities(placements=("remote",), inputs=(), outputs=())


def test_the_job_is_refused_by_the_declared_inputs():
    from sqlanon import Source
    from sqlanon.errors import ConfigError

    job = adult_job(QIS5, engine="memory")
    job = replace(job, input=Source(path="people.duckdb", table="t"))
    with pytest.raises(
        ConfigError, match=r"the memory engine does not handle duckdb files .* it handles csv, parquet, arrow"
    ):
        Session(job)


def _held(checker) -> set[str]:
    """The names of the temp tables the checker's policy holds (roll-up source and history)."""
    policy = checker.snapshots
    return {s.handle.name for s in [policy.last, *policy.history.values()] if s is not None}


def _snapshot_tables(engine) -> set[str]:
    return {
        r[0]
        for r in engine.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'sqlanon_snap%'"
        ).fetchall()
    }


def test_the_engine_stores_exactly_what_the_checkers_policy_holds(adult_available):
    """DuckDB with checks in SQL and both snapshot switches on: after every check of a search
    the temp tables in use are the ones the checker's policy holds (the rest are free names,
    reused); when the search ends none is in use, a new checker starts cold (the engine drops
    every table), the counters stay the checker's, and the released checker still answers,
    from the base class table."""
    with Session(adult_job(QIS5, checks="sql", snapshots=ON)) as session:
        assert session.snapshot_settings == ON
        engine = session.engine
        during = []

        def after_each(result):
            held = _held(session._checker)
            during.append(bool(held))
            assert held == set(session.runner.tables._stored) and held <= _snapshot_tables(engine)

        outcome, checker = session.search("flash", k=5, suppression_limit=0.02, on_check=after_each)
        assert any(during)
        assert checker.rollups > 0 and checker.snapshot_hits > 0
        assert not session.runner.tables._stored  # the tables left are free names, reused
        assert not checker.snapshots.history and checker.snapshots.last is None
        counted = (checker.rollups, checker.snapshot_hits)
        fresh = session.checker(k=5, suppression_limit=0.02)
        assert _snapshot_tables(engine) == set()  # a new checker starts cold: the engine dropped them
        assert (checker.rollups, checker.snapshot_hits) == counted  # the old search's counts stay its own
        assert (fresh.rollups, fresh.snapshot_hits) == (0, 0)
        top = tuple(session.lattice.heights)
        assert checker.check(top).stats == fresh.check(top).stats


def test_keep_snapshot_is_for_the_node_just_computed(adult_available):
    for checks in ("sql", "local"):
        with Session(adult_job(QIS5, checks=checks)) as session:
            checker = session.checker(k=5)
            checker.check((0, 0, 0, 0, 0))
            with pytest.raises(ValueError, match=r"keep_snapshot\(\(1, 0, 0, 0, 0\)\)"):
                session.runner.keep_snapshot((1, 0, 0, 0, 0))


@pytest.mark.parametrize(
    "engine, checks, on", [("duckdb", "sql", False), ("duckdb", "local", True), ("memory", "auto", True)]
)
def test_roll_up_and_history_follow_the_placement(adult_available, engine, checks, on):
    """Unset, they are on where a snapshot costs nothing to keep (arrays) and off in SQL; the
    local placements count alike, SQL none."""
    with Session(adult_job(ADULT_SUBSET, engine=engine, checks=checks)) as session:
        assert (session.snapshot_settings.rollup, session.snapshot_settings.history) == (on, on)
        outcome, checker = session.search("flash", k=5, suppression_limit=0.02)
        assert (checker.rollups + checker.snapshot_hits > 0) == on
        assert checker.placement is session.check_placement


def test_auto_checks_locally_without_timing_a_query_when_the_scan_alone_costs_more(adult_available, tmp_path):
    """DuckDB scans a class-table row in a check for more than the kernel does (40 ns against
    25 ns, bench/placement_rows.py): a query costs its latency on top, so auto takes local
    checks without measuring it, and says why."""
    from sqlanon import Output, anonymize

    report = anonymize(adult_job(QIS5, k=5, output=Output(path=str(tmp_path / "o.csv")))).report
    classes = report["base_classes"]
    assert report["checks_placement"] == "local" and report["query_latency_ms"] is None
    assert report["checks_placement_reason"] == (
        f"a local check (~{classes * 25e-6:.2f} ms: {classes:,} rows x 25 ns) costs less than a query's scan alone "
        f"(~{classes * 40e-6:.2f} ms: {classes:,} rows x 40 ns), whatever its latency"
    )
    assert report["snapshots"]["rollup"] is True and report["snapshots"]["history"] is True
    fixed = anonymize(adult_job(QIS5, k=5, checks="sql", output=Output(path=str(tmp_path / "s.csv")))).report
    assert fixed["query_latency_ms"] is None and fixed["checks_placement_reason"] == 'engine.checks = "sql"'
    assert fixed["snapshots"]["rollup"] is False


def test_auto_decides_by_the_scans_and_times_the_latency_only_when_it_matters(adult_available):
    """The decision itself, on the real DuckDB engine. At DuckDB's 40 ns a row a class table of
    20 M rows (0.5 s a local check, 0.8 s of scan a query) goes local without a query; the budget
    still sends it to SQL. An engine scanning a row for 5 ns (set on this one) makes the latency
    decide: 20 M rows cost a query its measured latency plus 0.1 s, a local check 0.5 s, so SQL;
    2,000 rows cost a local check 0.05 ms, a query at least a measured round trip, so local."""
    with Session(adult_job(QIS5, checks="sql")) as session:
        engine = session.engine
        before = engine.queries
        placement = decide("auto", engine, 20_000_000, 7, "100GB")
        assert placement.where == "local" and placement.latency is None and engine.queries == before
        assert "20,000,000 rows x 40 ns), whatever its latency" in placement.why
        assert decide("auto", engine, 20_000_000, 7, "1GB").where == "sql"  # 1.12 GB of class table
        engine.row_seconds = 5e-9
        placement = decide("auto", engine, 20_000_000, 7, "100GB")
        assert engine.queries == before + 3  # the three timed queries
        assert placement.where == "sql" and 0 < placement.latency < 0.1
        assert placement.why.startswith("a query (~") and "measured latency + 20,000,000 rows x 5 ns" in placement.why
        placement = decide("auto", engine, 2_000, 7, "100GB")
        assert engine.queries == before + 6
        assert placement.where == "local" and placement.latency > 0 and "costs less than a query (~" in placement.why
