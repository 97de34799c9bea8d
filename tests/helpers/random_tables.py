"""Random small tables and hierarchies for hypothesis: column names that need quoting, NULLs,
hierarchies of one to three levels, any k, suppression limit and label-free metric."""

from __future__ import annotations

from hypothesis import strategies as st

from helpers.jobs import table_job
from sqlanon.metrics import METRICS

NAMES = ["A", "b-c", "select", "with space", '"; drop table x; --', "âge", "it's"]


@st.composite
def hierarchy(draw, name):
    """Leaves v0..v(m-1) (and sometimes '', which maps NULL), each level merging consecutive
    groups of the one below, then '*'."""
    values = [f"v{i}" for i in range(draw(st.integers(2, 6)))] + ([""] if draw(st.booleans()) else [])
    leaves = len(values)
    groups = [[i] for i in range(leaves)]
    columns = [values]
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
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    hierarchies = {n: draw(hierarchy(n)) for n in names}
    rows = draw(st.integers(1, 30))
    # '' in a hierarchy maps NULL: draw it as None in the data.
    data = {n: [draw(st.sampled_from([r[0] or None for r in hierarchies[n]])) for _ in range(rows)] for n in names}
    return table_job(
        data,
        hierarchies,
        k=draw(st.integers(1, 5)),
        suppression_limit=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        metric=draw(st.sampled_from(sorted(m for m in METRICS if not METRICS[m].needs_label))),
    )
