"""Privacy models on random small tables (hypothesis): every node's verdict and suppressed rows
against the numpy oracle, and every optimal algorithm against exhaustive search."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.jobs import table_job
from helpers.oracle import ModelOracle
from sqlanon import Hierarchy
from sqlanon.session import Session
from helpers.contract import assert_optimal_algorithms_agree
from helpers.random_tables import hierarchy


@st.composite
def model_jobs(draw):
    names = draw(st.lists(st.sampled_from(["A", "b-c", "select"]), min_size=1, max_size=2, unique=True))
    hierarchies = {n: draw(hierarchy(n)) for n in names}
    tree = [r for r in draw(hierarchy("S")) if r[0]]  # the sensitive attribute's hierarchy, no NULL row
    if len({r[-1] for r in tree}) != 1 or len(tree[0]) < 2:
        tree = [[r[0], "*"] for r in tree]
    rows = draw(st.integers(1, 30))
    data = {n: [draw(st.sampled_from([r[0] or None for r in hierarchies[n]])) for _ in range(rows)] for n in names}
    data["s"] = [draw(st.sampled_from([r[0] for r in tree])) for _ in range(rows)]
    kind = draw(
        st.sampled_from(
            [
                "distinct-l-diversity",
                "entropy-l-diversity",
                "recursive-cl-diversity",
                "t-equal",
                "t-ordered",
                "t-hierarchical",
                "delta-disclosure",
                "beta-likeness",
                "average-risk",
                "sample-uniqueness",
            ]
        )
    )
    spec = {"type": kind, "attribute": "s"}
    if kind == "distinct-l-diversity":
        spec["l"] = draw(st.integers(1, 3))
    elif kind == "entropy-l-diversity":
        spec["l"] = draw(st.sampled_from([1.0, 1.5, 2.0, 2.5]))
    elif kind == "recursive-cl-diversity":
        spec.update(c=draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])), l=draw(st.integers(1, 3)))
    elif kind.startswith("t-"):
        spec.update(type="t-closeness", t=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])), distance=kind[2:])
        if kind == "t-ordered":
            spec["order"] = [r[0] for r in tree]
        if kind == "t-hierarchical":
            spec["hierarchy"] = Hierarchy.from_rows("s", tree)
    elif kind == "delta-disclosure":
        spec["delta"] = draw(st.sampled_from([0.3, 0.7, 1.5]))
    elif kind == "beta-likeness":
        spec.update(beta=draw(st.sampled_from([0.25, 1.0, 3.0])), enhanced=draw(st.booleans()))
    elif kind == "average-risk":
        spec = {"type": kind, "threshold": draw(st.sampled_from([0.2, 0.5, 1.0]))}
        if draw(st.booleans()):
            spec["max_risk"] = draw(st.sampled_from([0.34, 0.5, 1.0]))
    else:
        spec = {"type": kind, "threshold": draw(st.sampled_from([0.0, 0.2, 0.5]))}
    job = table_job(
        data,
        hierarchies,
        roles={"s": "sensitive"},
        k=draw(st.integers(1, 3)),
        suppression_limit=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        metric=draw(st.sampled_from(["discernibility", "height", "aecs", "precision"])),
        models=(spec,),
    )
    return job, hierarchies, tree


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model_jobs())
def test_models_on_random_tables(case):
    job, hierarchies, tree = case
    names = list(hierarchies)
    records = list(zip(*([v or "" for v in job.input.arrow.column(n).to_pylist()] for n in names)))
    oracle = ModelOracle(records, job.input.arrow.column("s").to_pylist(), hierarchies)
    spec = dict(job.models[0])
    if "hierarchy" in spec:
        spec["tree"] = tree
    with Session(job, share_stats=True) as session:
        reference, checker = session.search("exhaustive")
        for node in session.lattice.nodes():
            result = checker.checked(node)
            ok, suppressed, _ = oracle.evaluate(node, [spec, {"type": "k-anonymity", "k": job.k}], checker.limit_rows)
            assert (result.anonymous, result.stats.suppressed) == (ok, suppressed), node
        assert_optimal_algorithms_agree(session, reference)
