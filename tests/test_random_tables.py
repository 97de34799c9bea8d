"""Flash against exhaustive search on random small tables and hierarchies (hypothesis)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import table_job
from sqlanon.metrics import METRICS
from sqlanon.session import Session


@st.composite
def hierarchy(draw, name):
    """Leaves v0..v(m-1), each level merging consecutive groups of the one below, then '*'."""
    leaves = draw(st.integers(2, 6))
    groups = [[i] for i in range(leaves)]
    columns = [[f"v{i}" for i in range(leaves)]]
    for level in range(draw(st.integers(0, 2))):
        if len(groups) == 1:
            break
        cuts = sorted(draw(st.sets(st.integers(1, len(groups) - 1), max_size=len(groups) - 1)))
        bounds = [0, *cuts, len(groups)]
        merged = [sum(groups[a:b], []) for a, b in zip(bounds, bounds[1:])]
        label = {leaf: f"{name}{level + 1}.{g}" for g, members in enumerate(merged) for leaf in members}
        columns.append([label[i] for i in range(leaves)])
        groups = merged
    columns.append(["*"] * leaves)
    return [[column[i] for column in columns] for i in range(leaves)]


@st.composite
def jobs(draw):
    names = ["A", "b-c", "select"][: draw(st.integers(1, 3))]
    hierarchies = {n: draw(hierarchy(n)) for n in names}
    rows = draw(st.integers(1, 30))
    data = {n: [draw(st.sampled_from([r[0] for r in hierarchies[n]])) for _ in range(rows)] for n in names}
    return table_job(
        data, hierarchies,
        k=draw(st.integers(1, 5)),
        suppression_limit=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        metric=draw(st.sampled_from(sorted(METRICS))),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs())
def test_flash_equals_exhaustive_on_random_tables(job):
    with Session(job) as session:
        flash, _ = session.search("flash")
        exhaustive, checker = session.search("exhaustive")
    assert checker.checks == session.lattice.size
    if exhaustive.optimum is None:
        assert flash.optimum is None
        return
    assert flash.optimum.node == exhaustive.optimum.node
    assert flash.optimum.loss == exhaustive.optimum.loss
    assert flash.optimum.stats.suppressed <= checker.limit_rows
    assert flash.optimum.stats.min_kept is None or flash.optimum.stats.min_kept >= job.k
