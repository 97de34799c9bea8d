"""Snapshots: the policy (roll-up source, LRU history, fewest classes, ratio) and the DuckDB
engine's temp tables, which must never change a result, only where a check reads from."""

from dataclasses import replace
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.jobs import ADULT_SUBSET, adult_job
from sqlanon import Attribute
from sqlanon.session import Session
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.checks.snapshots import Snapshot, Snapshots
from helpers.random_tables import jobs

SWITCHES = [
    SnapshotSettings(rollup=r, history=h, projection=p) for r, h, p in itertools.product([False, True], repeat=3)
]
# Figure 9's steps: none, + projection, + roll-up, + history
STEPS = [
    SnapshotSettings(rollup=False, history=False, projection=False),
    SnapshotSettings(rollup=False, history=False),
    SnapshotSettings(rollup=True, history=False),
    SnapshotSettings(rollup=True, history=True),
]


def policy(**kwargs):
    released = []
    return Snapshots(SnapshotSettings(**{"rollup": True, "history": True, **kwargs}), 1000, released.append), released


def test_rollup_reads_the_node_checked_just_before_when_it_is_a_specialization():
    snaps, released = policy(history=False)
    assert snaps.start((0, 0)).kind == "base"
    snaps.checked(Snapshot((0, 0), "t00", 50), anonymous=False)
    start = snaps.start((1, 0))
    assert (start.kind, start.snapshot.handle) == ("rollup", "t00")
    snaps.checked(Snapshot((1, 0), "t10", 20), anonymous=True)
    assert released == ["t00"]  # no history: the old roll-up source goes
    assert snaps.start((0, 1)).kind == "base"  # (1, 0) does not specialize (0, 1)
    assert snaps.rollups == 1 and snaps.hits == 0


def test_history_keeps_small_non_anonymous_nodes_and_offers_the_fewest_classes():
    snaps, released = policy(rollup=False, history_ratio=0.2)
    snaps.checked(Snapshot((0, 0), "big", 201), anonymous=False)  # > 0.2 * 1000 rows
    snaps.checked(Snapshot((1, 0), "anon", 10), anonymous=True)  # anonymous
    snaps.checked(Snapshot((0, 1), "a", 150), anonymous=False)
    snaps.checked(Snapshot((1, 1), "b", 90), anonymous=False)
    assert released == ["big", "anon"]
    assert list(snaps.history) == [(0, 1), (1, 1)]
    start = snaps.start((2, 1))
    assert (start.kind, start.snapshot.handle) == ("history", "b")  # fewer classes than "a"
    assert snaps.start((0, 2)).snapshot.handle == "a"  # the only specialization of (0, 2)
    assert snaps.hits == 2


def test_history_evicts_the_least_recently_used_beyond_its_size():
    snaps, released = policy(rollup=False, history_size=2)
    for i, name in enumerate("abc"):
        snaps.checked(Snapshot((i, 0), name, 10), anonymous=False)
    assert released == ["a"] and list(snaps.history) == [(1, 0), (2, 0)]
    snaps.start((1, 1))  # touches (1, 0)
    snaps.checked(Snapshot((0, 5), "d", 10), anonymous=False)
    assert released == ["a", "c"]
    snaps.clear()
    assert sorted(released) == ["a", "b", "c", "d"] and snaps.last is None and not snaps.history


def test_a_snapshot_held_by_both_roll_up_and_history_is_released_once():
    snaps, released = policy(history_size=1)
    snaps.checked(Snapshot((0, 0), "a", 10), anonymous=False)  # last and history
    snaps.checked(Snapshot((1, 0), "b", 10), anonymous=False)  # evicts a from history; a was last
    assert released == ["a"]
    snaps.clear()
    assert released == ["a", "b"]


class ScanPolicy:
    """The history's choice written as a scan over its entries (what the bitset index of
    ``Snapshots`` replaces): the strict specialization with the fewest classes, fewer than
    the roll-up source's, the first in least-recently-used order among equals."""

    def __init__(self, size):
        self.size, self.entries, self.last = size, [], None  # entries: (node, classes), oldest first

    def start(self, node):
        best = (
            self.last
            if self.last and self.last[0] != node and all(a >= b for a, b in zip(node, self.last[0]))
            else None
        )
        kind = "rollup" if best else "base"
        for entry in self.entries:
            if (
                entry[0] != node
                and all(a >= b for a, b in zip(node, entry[0]))
                and (best is None or entry[1] < best[1])
            ):
                best, kind = entry, "history"
        if kind == "history":
            self.entries.remove(best)
            self.entries.append(best)
        return kind, best and best[0]

    def checked(self, node, classes, anonymous):
        self.last = (node, classes)
        if not anonymous and classes <= 200 and node not in [e[0] for e in self.entries]:
            self.entries.append((node, classes))
            del self.entries[: max(0, len(self.entries) - self.size)]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 6),
    st.lists(
        st.tuples(st.tuples(*[st.integers(0, 3)] * 3), st.integers(1, 250), st.booleans()), min_size=1, max_size=60
    ),
)
def test_the_history_index_chooses_as_a_scan_of_the_history(size, checks):
    snaps, released = policy(history_size=size)
    scan = ScanPolicy(size)
    for node, classes, anonymous in checks:
        start = snaps.start(node)
        assert (start.kind, start.snapshot and start.snapshot.node) == scan.start(node)
        snaps.checked(Snapshot(node, node, classes), anonymous)
        scan.checked(node, classes, anonymous)
        assert list(snaps.history) == [e[0] for e in scan.entries]
    snaps.clear()
    assert not snaps.history and snaps.start((3, 3, 3)).kind == "base"


def _outcome(job, algorithm="flash", **overrides):
    with Session(job) as session:
        outcome, checker = session.search(algorithm, **overrides)
        engine = session.engine
        tables = engine.con.execute(
            "SELECT COUNT(*) FROM duckdb_tables() WHERE table_name LIKE 'sqlanon_snap%'"
        ).fetchall()[0][0]
        counters = (checker.rollups, checker.snapshot_hits, engine.rows_scanned)
    best = outcome.optimum
    if best is None:
        return (None, None, None, checker.checks), counters, tables
    stats = best.stats
    figures = stats.figures or {}
    exact = (
        stats.classes,
        stats.kept_classes,
        stats.suppressed,
        stats.min_kept,
        stats.dm_kept,
        stats.kept_leaves,
        stats.suppressed_histograms,
        stats.kept_uniques,
    )
    return (best.node, (best.loss, *figures.values()), exact, checker.checks), counters, tables


def same(a, b):
    """Equal, with float figures (sums of ln in a different order) up to rounding."""
    return (
        a[0] == b[0]
        and a[2:] == b[2:]
        and (a[1] is None) == (b[1] is None)
        and (a[1] is None or a[1] == pytest.approx(b[1], rel=1e-9, abs=1e-9))
    )


@pytest.mark.slow
@pytest.mark.parametrize("lookup", ["wide", "join"])
def test_duckdb_snapshots_change_no_result_on_adult(adult_available, lookup):
    """Every switch combination, with figures that snapshots must carry: leaf counts (loss),
    ln c_x (KL-divergence), suppressed histograms (entropy), a sensitive histogram (ℓ)."""
    models = ({"type": "distinct-l-diversity", "attribute": "salary-class", "l": 2},)
    results, read = {}, {}
    for switches in STEPS:
        for metric in ("loss", "kl-divergence", "entropy"):
            job = adult_job(
                ADULT_SUBSET,
                metric=metric,
                k=5,
                suppression_limit=0.04,
                lookup=lookup,
                snapshots=switches,
                models=models,
            )
            job = replace(
                job,
                attributes=[Attribute(a.name, "sensitive") if a.name == "salary-class" else a for a in job.attributes],
            )
            result, counters, tables = _outcome(job)
            results.setdefault(metric, []).append(result)
            read[(switches, metric)] = counters
            assert tables <= switches.history_size + 1
    for found in results.values():
        assert all(same(f, found[0]) for f in found), found
    plain = read[(STEPS[1], "loss")]
    full = read[(STEPS[3], "loss")]
    assert plain[:2] == (0, 0) and full[0] + full[1] > 0 and full[2] < plain[2]


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs(), st.sampled_from(SWITCHES), st.sampled_from(["flash", "ola", "lightning"]))
def test_duckdb_snapshots_change_no_result_on_random_tables(job, switches, algorithm):
    job = replace(job, snapshots=SnapshotSettings(rollup=False, history=False))
    expected, _, _ = _outcome(job, algorithm)
    job = replace(job, snapshots=switches)
    found, _, _ = _outcome(job, algorithm)
    assert same(found, expected)
