"""delta-presence: hand-computed delta per class, the research subset as a boolean column and as
a file of identifiers, non-monotonicity, ADULT against exhaustive search and a numpy oracle,
random tables (hypothesis), written outputs and their independent re-check, bad settings."""

from dataclasses import replace
import math

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.contract import assert_optimal_algorithms_agree
from helpers.jobs import adult_hierarchy, table_job, seeded
from helpers.oracle import ModelOracle
from helpers.presence import (
    ADULT_CASES,
    CLASSES,
    DIVERSE,
    HAND,
    HAND_H,
    PRESENCE,
    QIS,
    SUBSET,
    UPPER,
    adult_presence_job,
    hand_job,
    presence,
)
from helpers.random_tables import hierarchy
from sqlanon import Output, anonymize, load_job
from sqlanon.errors import ConfigError, VerificationError
from sqlanon.session import ALL_NEEDS, Session
from sqlanon.config.validate import validate


def ids_file(tmp_path, ids=None):
    path = tmp_path / "ids.csv"
    chosen = ids if ids is not None else [i for i, member in zip(HAND["id"], HAND["in"]) if member]
    path.write_text("id\n" + "".join(f"{i}\n" for i in chosen))
    return str(path)


def by_file(tmp_path, **settings):
    return {
        "type": "delta-presence",
        "dmin": 0.2,
        "dmax": 0.6,
        "subset_file": ids_file(tmp_path),
        "key": "id",
        **settings,
    }


@pytest.mark.parametrize("kind", ["column", "file"])
def test_hand_computed_delta_per_class(kind, tmp_path):
    model = PRESENCE if kind == "column" else by_file(tmp_path)
    with Session(hand_job([model], ids=kind == "file", k=1, suppression_limit=0.4)) as session:
        assert (session.rows, session.prepared.population) == (5, 12)  # N is the subset's rows
        checker = session.checker()
        presence = checker.models[-1]
        for level, expected in CLASSES.items():
            rows = session.runner.class_figures((level,), checker.keep, checker.params)
            assert [(r["n"], r["pop"]) for r in rows] == expected
            for r in rows:
                assert r["kept"] == presence.class_holds(presence.presence_value(r["n"], r["pop"]))
        # a 0.5 b 1.0 c 0.25 | ab 0.667 cd 0.167 | 0.417, with [0.2, 0.6]:
        verdicts = [
            [r["kept"] for r in session.runner.class_figures((l,), checker.keep, checker.params)] for l in range(3)
        ]
        assert verdicts == [[True, False, True], [False, False], [True]]
        # suppressed subset rows: 2 (b), 5 (ab and cd), 0; the limit is floor(0.4 * 5) = 2. Level 0
        # is within the limit, but d's class of the population holds no subset row (delta 0 < 0.2):
        # it is in no class table and nothing can suppress it, so level 0 is not delta-present
        # (this test said anonymous before the fix: an adversary learns nobody of d is in T).
        assert [
            (
                checker.check((l,)).stats.suppressed,
                checker.check((l,)).stats.empty_classes,
                checker.check((l,)).anonymous,
            )
            for l in range(3)
        ] == [(2, 1, False), (5, 0, False), (0, 0, True)]
        assert not checker.monotonic_models  # level 0 passes, level 1 fails: not monotonic with suppression


@pytest.mark.parametrize(
    "model, limit, k, node, loss",
    [
        # dmin = 0.2: level 0 fails on d's empty class of the population (see above), level 1 on
        # its 5 suppressed rows; before the fix the first case gave (0,) at 15
        (PRESENCE, 0.4, 1, (2,), 25),
        (UPPER, 0.4, 1, (0,), 2 * 2 + 1 * 1 + 5 * 2),  # a (2) and c (1) kept, b's 2 rows suppressed: 5 + N*S = 15
        (PRESENCE, 0.0, 1, (2,), 25),  # only the top passes without suppression: one class of 5
        (UPPER, 0.4, 2, (2,), 25),  # with k = 2, c (1 row) goes too: 3 rows > 2
    ],
)
def test_hand_computed_optimum(model, limit, k, node, loss):
    with Session(hand_job([model], k=k, suppression_limit=limit), share_stats=True) as session:
        reference, _ = session.search("exhaustive")
        assert (reference.optimum.node, reference.optimum.loss) == (node, loss)
        assert_optimal_algorithms_agree(session, reference)


def test_hand_output_releases_only_the_subset(tmp_path):
    out = tmp_path / "out.csv"
    job = hand_job(
        [UPPER],
        k=1,
        suppression_limit=0.4,
        output=Output(path=str(out), report=str(tmp_path / "report.json"), order="input"),
    )
    result = anonymize(job)
    assert result.success and result.transformation == (0,)
    # the subset's rows in input order; b's class (delta 1.0) masked; id is identifying, "in" the model's
    assert out.read_text().splitlines() == ["zip,d", "a,x", "a,z", "*,y", "*,z", "c,x"]
    report = result.report
    assert (report["rows"], report["population_rows"], report["suppressed"]) == (5, 12, 2)
    entry = report["privacy"]["models"][0]
    assert entry["achieved"] == {"dmin": 0.25, "dmax": 0.5}  # c and a, re-measured on the output
    assert report["verification"]["rows"] == 5


def test_hand_output_with_an_identifier_file_and_dropped_rows(tmp_path):
    out = tmp_path / "out.parquet"
    job = hand_job(
        [by_file(tmp_path, dmin=0.0)],
        ids=True,
        k=1,
        suppression_limit=0.4,
        output=Output(path=str(out), suppressed="drop", order="input"),
    )
    result = anonymize(job)
    assert result.success and result.report["verified"]
    assert pq.read_table(out).to_pydict() == {"zip": ["a", "a", "c"], "d": ["x", "z", "x"]}


def test_job_file_resolves_the_identifier_file_and_reports(tmp_path):
    (tmp_path / "data.csv").write_text(
        "id,zip,in,d\n"
        + "".join(
            f"{i},{z},{'true' if m else 'false'},{d}\n"
            for i, z, m, d in zip(HAND["id"], HAND["zip"], HAND["in"], HAND["d"])
        )
    )
    (tmp_path / "zip.csv").write_text("".join(";".join(r) + "\n" for r in HAND_H["zip"]))
    ids_file(tmp_path)
    (tmp_path / "job.toml").write_text("""
[input]
path = "data.csv"
drop = ["in"]
[attributes.zip]
role = "quasi"
hierarchy = "zip.csv"
[attributes.d]
role = "sensitive"
[attributes.id]
role = "identifying"
[privacy]
suppression_limit = 0.4
[[privacy.models]]
type = "delta-presence"
dmin = 0.2
dmax = 0.6
subset_file = "ids.csv"
key = "id"
[output]
path = "out.csv"
""")
    job = load_job(tmp_path / "job.toml")
    assert job.models[0]["subset_file"] == str(tmp_path / "ids.csv")
    result = anonymize(job)
    # dmin = 0.2: level 0 leaves d's population class empty, level 1 suppresses 5 rows > 2
    assert result.success and result.transformation == (2,) and result.suppressed == 0


def test_report_without_output_and_apply_with_the_manifest(tmp_path):
    from sqlanon.anonymizer import apply

    result = anonymize(hand_job([UPPER], k=1, suppression_limit=0.4))  # no output: the checker's figures
    assert result.report["privacy"]["models"][0]["achieved"] == {"dmin": 0.25, "dmax": 0.5}
    job = hand_job([UPPER], k=1, suppression_limit=0.4, output=Output(path=str(tmp_path / "out.csv")))
    applied = apply(job, result.report["manifest"])
    assert applied.success and applied.report["verified"] and applied.suppressed == 2


@pytest.mark.parametrize(
    "models", [(PRESENCE,), (PRESENCE, {"type": "entropy-l-diversity", "attribute": "d", "l": 1.5})]
)
def test_wide_and_join_layouts_agree(models):
    results = {}
    for lookup in ("wide", "join"):
        job = hand_job(models, k=2, suppression_limit=0.4, metric="kl-divergence")
        job = replace(job, lookup=lookup)
        with Session(job) as session:
            checker = session.checker()
            results[lookup] = [
                (checker.check(node).stats, checker.check(node).loss) for node in session.lattice.nodes()
            ]
    assert all(math.isfinite(loss) for _, loss in results["wide"])
    assert results["wide"] == results["join"]


def test_verification_counts_the_subset_itself(tmp_path):
    from sqlanon.criteria.population import ResearchSubset
    from sqlanon.release.verify import Population, verify

    out = tmp_path / "out.csv"
    # in input order: the verification names the first class (in the file's order) it refuses
    job = hand_job([UPPER], k=1, suppression_limit=0.4, output=Output(path=str(out), order="input"))
    anonymize(job)
    with Session(job) as session:
        models = session.checker().models
    population = Population(job.input, [list(HAND_H["zip"])], (0,), ResearchSubset(column="in"))
    assert verify(job.output, ["zip"], 1, 5, 2, 2, models, None, population).verified
    with pytest.raises(VerificationError, match="the research subset has 5 rows in the input, but 6 were released"):
        verify(job.output, ["zip"], 1, 6, 2, 2, models, None, population)
    # another subset: class a would hold 3 subset rows of which the file releases 2
    other = Population(
        job.input,
        [list(HAND_H["zip"])],
        (0,),
        ResearchSubset(file=ids_file(tmp_path, ["1", "2", "3", "5", "6"]), key="id"),
    )
    with pytest.raises(VerificationError, match="has 2 rows, but the research subset has 3"):
        verify(job.output, ["zip"], 1, 5, 2, 2, models, None, other)


def test_verification_refuses_an_empty_class_of_the_population(tmp_path):
    """An output written by hand at level 0 (b masked): every released class passes [0.2, 0.6]
    or is suppressed, but d's population class holds no subset row (delta 0 < dmin), which the
    release reveals; the re-check must refuse it, and accept it with dmin = 0."""
    from sqlanon.criteria.population import ResearchSubset
    from sqlanon.release.verify import Population, verify

    out = tmp_path / "out.csv"
    out.write_text("zip,d\na,x\na,z\n*,y\n*,z\nc,x\n")
    population = Population(hand_job().input, [list(HAND_H["zip"])], (0,), ResearchSubset(column="in"))
    for model, refused in ((PRESENCE, True), (UPPER, False)):
        job = hand_job([model], k=1, suppression_limit=0.4, output=Output(path=str(out)))
        with Session(job) as session:
            models = session.checker().models
        if refused:
            with pytest.raises(
                VerificationError,
                match=r"1 classes of the population have no row of the research "
                r"subset \(delta = 0, below dmin = 0.2\), e.g. \{zip: 'd'\}",
            ):
                verify(job.output, ["zip"], 1, 5, 2, 2, models, None, population)
        else:
            assert verify(job.output, ["zip"], 1, 5, 2, 2, models, None, population).verified


@pytest.mark.parametrize("checks", ["sql", "local"])
def test_explain_names_the_empty_classes_of_the_population(checks):
    with Session(hand_job(k=1, suppression_limit=0.4, checks=checks)) as session:
        explained = session.explain((0,))
        assert not explained["result"].anonymous and explained["result"].stats.suppressed == 2
        assert explained["reasons"] == [
            "1 classes of the population hold no row of the research subset: delta = 0 "
            "< dmin = 0.2, and suppression cannot remove them (delta-presence fails the node)"
        ]
        assert session.explain((2,))["reasons"] == []
    with Session(hand_job([UPPER], k=1, suppression_limit=0.4, checks=checks)) as session:
        assert session.explain((0,))["reasons"] == [] and session.explain((0,))["result"].anonymous


# Before the fix this was a counterexample to monotonicity with generalization for dmin > 0
# (level 0 passed because b's empty class was let fail at no cost, level 1 failed). Now an
# empty class fails the node, and without suppression the model is monotonic with
# generalization (a merged class's delta is a weighted mean of its parts'); the flag stays
# conservative (see the module docs). a: 2 of 4 (0.5); b: none of 4; c: 3 of 3 (1.0).
#   level 0: b's class of the population is empty (delta 0 < 0.3) -> not anonymous
#   level 1: ab 2/8 = 0.25 < 0.3 -> 2 rows suppressed -> not anonymous with s = 0
#   level 2: 5/11 = 0.45 -> anonymous
COUNTER = {"zip": list("aaaabbbbccc"), "in": [True, True, False, False, False, False, False, False, True, True, True]}
COUNTER_H = {"zip": [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]}


def counter_job(dmin):
    job = table_job(
        COUNTER,
        COUNTER_H,
        k=1,
        suppression_limit=0.0,
        metric="height",
        models=({"type": "delta-presence", "dmin": dmin, "dmax": 1.0, "subset": "in"},),
    )
    job = replace(job, attributes=[a for a in job.attributes if a.name != "in"])
    return job


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("checks", ["sql", "local"])
def test_an_empty_class_of_the_population_fails_the_node_whatever_k(k, checks):
    """ARX 3.9.2 (HashGroupify.analyzeAll) invalidates the transformation only when the empty
    class passed its minimal-class-size check first, so with k = 2 it would accept level 0 of
    the hand table (d's empty class fails k, not delta-presence); sqlanon keeps the
    mathematical answer: d's people are not in the subset, whatever k."""
    for model, anonymous in ((PRESENCE, False), (UPPER, True)):
        with Session(hand_job([model], k=k, suppression_limit=0.6, checks=checks)) as session:
            checker = session.checker()
            result = checker.check((0,))
            # b (2 rows, delta 1.0) suppressed, and with k = 2 c (1 row) too: 3 <= floor(0.6 * 5)
            assert (result.stats.suppressed, result.stats.empty_classes) == (2 if k == 1 else 3, 1)
            assert result.anonymous is anonymous


@pytest.mark.parametrize("checks", ["sql", "local"])
@pytest.mark.parametrize("model", [PRESENCE, UPPER])
def test_hand_table_against_the_oracle_on_both_placements(checks, model):
    """Every node of the hand table as the numpy oracle decides it (which knows the rule on
    empty population classes), and Flash's optimum is the oracle's."""
    oracle = ModelOracle([(z,) for z in HAND["zip"]], HAND["d"], HAND_H, subset=HAND["in"])
    with Session(hand_job([model], k=1, suppression_limit=0.4, checks=checks, metric="height")) as session:
        outcome, checker = session.search("exhaustive")
        verdicts = {}
        for node in session.lattice.nodes():
            ok, suppressed, _ = oracle.evaluate(node, [model], checker.limit_rows)
            assert (checker.checked(node).anonymous, checker.checked(node).stats.suppressed) == (ok, suppressed), node
            verdicts[node] = ok
        best = min((node for node, ok in verdicts.items() if ok), key=sum)
        assert outcome.optimum.node == session.search("flash")[0].optimum.node == best
        assert best == ((2,) if model["dmin"] > 0 else (0,))


def test_an_empty_class_of_the_population_fails_the_node():
    with Session(counter_job(0.3)) as session:
        checker = session.checker()
        assert not checker.monotonic_models
        assert [(checker.check((l,)).anonymous, checker.check((l,)).stats.empty_classes) for l in range(3)] == [
            (False, 1),
            (False, 0),
            (True, 0),
        ]
    with Session(counter_job(0.0)) as session:  # dmin = 0: the upper bound alone is monotonic
        assert session.checker().monotonic_models
        assert not session.checker(suppression_limit=0.5).monotonic_models


@pytest.mark.parametrize("algorithm", ["flash", "ola", "incognito", "exhaustive"])
def test_every_algorithm_finds_the_true_optimum_of_the_counterexample(algorithm):
    for dmin, optimum in ((0.3, (2,)), (0.0, (0,))):  # dmin = 0: b's empty class fails nothing
        with Session(counter_job(dmin)) as session:
            assert session.search(algorithm)[0].optimum.node == optimum, dmin


@pytest.mark.slow
def test_without_bounds_delta_presence_is_the_subset_alone():
    """With dmin = 0 and dmax = 1 every class passes: the search over the population must
    then equal the plain search over the subset's rows, for every metric."""
    from sqlanon.metrics import METRICS

    rows = {
        "a": list("xyzxyzxyzxyzxy"),
        "b": list("pqpqrrpqpqrrpq"),
        "in": [i % 3 != 1 for i in range(14)],
        "s": list("uvwuvwuvwuvwuv"),
    }
    hier = {"a": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]], "b": [["p", "*"], ["q", "*"], ["r", "*"]]}
    subset_rows = {c: [v for v, m in zip(values, rows["in"]) if m] for c, values in rows.items() if c != "in"}
    for metric in METRICS:
        label = "s" if metric == "classification" else None
        for limit in (0.0, 0.3):
            population = table_job(
                rows,
                hier,
                roles={"s": "sensitive"},
                k=2,
                suppression_limit=limit,
                metric=metric,
                label=label,
                models=({"type": "delta-presence", "dmax": 1.0, "subset": "in"},),
            )
            population = replace(population, attributes=[a for a in population.attributes if a.name != "in"])
            alone = table_job(
                subset_rows, hier, roles={"s": "sensitive"}, k=2, suppression_limit=limit, metric=metric, label=label
            )
            with Session(population) as p, Session(alone) as q:
                got, want = p.search("flash")[0].optimum, q.search("flash")[0].optimum
                assert (got.node, got.stats.suppressed) == (want.node, want.stats.suppressed), metric
                assert got.loss == pytest.approx(want.loss, rel=1e-12), metric


# -- ADULT (the population: conftest's adult_population; the cases: helpers/presence.py) ------
@pytest.fixture(scope="module")
def adult_session(adult_population):
    path, _, _ = adult_population
    with Session(
        adult_presence_job(path, k=5, models=(presence(0.0, 0.5), DIVERSE)), needs=ALL_NEEDS, share_stats=True
    ) as session:
        yield session


@pytest.fixture(scope="module")
def adult_oracle(adult_population):
    _, rows, member = adult_population
    hierarchies = {q: [line.split(";") for line in open(adult_hierarchy(q)).read().split("\n") if line] for q in QIS}
    return ModelOracle(
        [tuple(r[q] for q in QIS) for r in rows], [r["occupation"] for r in rows], hierarchies, subset=member
    )


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("name", list(ADULT_CASES))
def test_adult_against_exhaustive_search_and_oracle(adult_session, adult_oracle, name, limit):
    models, k = ADULT_CASES[name]
    assert adult_session.rows == adult_oracle.n == 10758 and adult_session.prepared.population == 30162
    reference, checker = adult_session.search("exhaustive", models=models, k=k, suppression_limit=limit)
    expected = list(models) + [{"type": "k-anonymity", "k": k}]
    anonymous = 0
    for node in adult_session.lattice.nodes():
        result = checker.checked(node)
        ok, suppressed, sizes = adult_oracle.evaluate(node, expected, checker.limit_rows)
        assert (result.anonymous, result.stats.suppressed, result.stats.kept_classes) == (ok, suppressed, len(sizes)), (
            node
        )
        anonymous += ok
    assert 0 < anonymous < adult_session.lattice.size
    assert checker.monotonic_models == (limit == 0 and models[0]["dmin"] == 0)
    assert_optimal_algorithms_agree(adult_session, reference, models=models, k=k, suppression_limit=limit)


@pytest.mark.parametrize("limit", [0.0, 0.1])
def test_adult_heuristics_honour_delta_presence(adult_session, adult_oracle, limit):
    """Every heuristic returns a node the oracle accepts, no better than the optimum; Lightning
    run to the end proves Flash's optimum."""
    from sqlanon.search import HEURISTICS

    models, k = ADULT_CASES["combined"]
    expected = list(models) + [{"type": "k-anonymity", "k": k}]
    reference, _ = adult_session.search("flash", models=models, k=k, suppression_limit=limit, metric="loss")
    for heuristic in HEURISTICS:
        outcome, checker = adult_session.search(
            heuristic, models=models, k=k, suppression_limit=limit, metric="loss", **seeded(heuristic, 3)
        )
        found = outcome.optimum
        assert found is not None and adult_oracle.evaluate(found.node, expected, checker.limit_rows)[0], heuristic
        assert found.loss >= reference.optimum.loss, heuristic
        if heuristic == "lightning" and outcome.proven:
            assert found.node == reference.optimum.node


def test_adult_snapshots_carry_the_population(adult_population):
    """Checks from snapshots (roll-up, history) sum ``pop`` like ``n``: every node Flash checks
    gets the figures of a search without snapshots."""
    from sqlanon.core.snapshots import SnapshotSettings

    path, _, _ = adult_population
    found = {}
    for switches in (SnapshotSettings(rollup=False, history=False), SnapshotSettings(rollup=True, history=True)):
        job = adult_presence_job(
            path, k=5, suppression_limit=0.1, metric="loss", snapshots=switches, models=ADULT_CASES["combined"][0]
        )
        with Session(job) as session:
            outcome, checker = session.search("flash")
            checked = {n: checker.checked(n).stats for n in session.lattice.nodes() if checker.checked(n)}
            found[switches.rollup] = (
                outcome.optimum.node,
                outcome.optimum.loss,
                checked,
                checker.rollups + checker.snapshot_hits,
            )
    (node, loss, checked, reused), (node2, loss2, checked2, reused2) = found[False], found[True]
    assert reused == 0 and reused2 > 0
    assert (node, checked) == (node2, checked2) and loss == pytest.approx(loss2)


def test_adult_output_is_verified_against_the_population(adult_population, tmp_path):
    path, _, member = adult_population
    job = adult_presence_job(
        path,
        k=5,
        suppression_limit=0.1,
        metric="loss",
        models=ADULT_CASES["combined"][0],
        output=Output(path=str(tmp_path / "out.parquet")),
    )
    result = anonymize(job)
    report = result.report
    assert result.success and report["verified"] and report["tagged"] == 0
    assert report["verification"]["rows"] == sum(member) == report["rows"]
    achieved = next(m["achieved"] for m in report["privacy"]["models"] if m["model"] == "delta-presence")
    assert 0.05 <= achieved["dmin"] <= achieved["dmax"] <= 0.6
    assert SUBSET not in pq.read_table(tmp_path / "out.parquet").column_names


# -- random tables ---------------------------------------------------------------------------
@st.composite
def presence_jobs(draw):
    names = draw(st.lists(st.sampled_from(["A", "b-c"]), min_size=1, max_size=2, unique=True))
    hierarchies = {n: draw(hierarchy(n)) for n in names}
    rows = draw(st.integers(2, 30))
    data = {n: [draw(st.sampled_from([r[0] or None for r in hierarchies[n]])) for _ in range(rows)] for n in names}
    member = [draw(st.booleans()) for _ in range(rows)]
    member[draw(st.integers(0, rows - 1))] = True  # the subset is never empty
    data["in"] = member
    data["s"] = [draw(st.sampled_from(["u", "v", "w"])) for _ in range(rows)]
    dmin = draw(st.sampled_from([0.0, 0.1, 0.3, 0.5]))
    dmax = draw(st.sampled_from([x for x in [0.3, 0.5, 0.8, 1.0] if x >= dmin]))
    models = [{"type": "delta-presence", "dmin": dmin, "dmax": dmax, "subset": "in"}]
    if draw(st.booleans()):
        models.append({"type": "distinct-l-diversity", "attribute": "s", "l": draw(st.integers(1, 2))})
    job = table_job(
        data,
        hierarchies,
        roles={"s": "sensitive"},
        k=draw(st.integers(1, 3)),
        suppression_limit=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        metric=draw(st.sampled_from(["discernibility", "height", "aecs", "loss"])),
        models=tuple(models),
    )
    job = replace(job, attributes=[a for a in job.attributes if a.name != "in"])
    return job, hierarchies


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presence_jobs())
def test_presence_on_random_tables(case):
    job, hierarchies = case
    names = list(hierarchies)
    records = list(zip(*([v or "" for v in job.input.arrow.column(n).to_pylist()] for n in names)))
    oracle = ModelOracle(
        records, job.input.arrow.column("s").to_pylist(), hierarchies, subset=job.input.arrow.column("in").to_pylist()
    )
    with Session(job, share_stats=True) as session:
        reference, checker = session.search("exhaustive")
        expected = [dict(m) for m in job.models] + [{"type": "k-anonymity", "k": job.k}]
        for node in session.lattice.nodes():
            result = checker.checked(node)
            ok, suppressed, _ = oracle.evaluate(node, expected, checker.limit_rows)
            assert (result.anonymous, result.stats.suppressed) == (ok, suppressed), node
        assert_optimal_algorithms_agree(session, reference)


# -- bad settings ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, message",
    [
        ({"dmin": 0.6, "dmax": 0.2, "subset": "in"}, "dmin (0.6) is above dmax (0.2)"),
        ({"dmax": 1.5, "subset": "in"}, "the 'dmax' parameter must be a number in [0, 1], got 1.5"),
        ({"dmin": 0.1, "subset": "in"}, "the delta-presence model needs dmax"),
        ({"dmax": 0.5}, 'give the research subset once: subset = "<boolean column>", or subset_file'),
        ({"dmax": 0.5, "subset": "in", "subset_file": "ids.csv", "key": "id"}, "give the research subset once"),
        ({"dmax": 0.5, "subset_file": "ids.csv"}, 'subset_file needs key = "<column>"'),
        ({"dmax": 0.5, "subset": "in", "key": "id"}, "key goes with subset_file"),
        ({"dmax": 0.5, "subset": "nope"}, "the delta-presence model's subset = 'nope' is not a column of the input"),
        ({"dmax": 0.5, "subset": "zip"}, "the delta-presence subset column 'zip' has role \"quasi\""),
        (
            {"dmax": 0.5, "subset": "label"},
            "the subset column 'label' holds values that are not true or false, e.g. 'x'",
        ),
        ({"dmax": 0.5, "subset": "d"}, "the delta-presence subset column 'd' has role \"sensitive\""),
        ({"dmax": 0.5, "subset": "count"}, "the subset column 'count' is BIGINT, not boolean"),
        ({"dmax": 0.5, "subset": "none"}, "has no row of the input: there is nothing to release"),
        ({"dmax": 0.5, "subset_file": "ids.csv", "key": "nope"}, "key = 'nope' is not a column of the input"),
        (
            {"dmax": 0.5, "subset_file": "zips.csv", "key": "zip"},
            "name more than one row of the input's key column 'zip' (e.g. 'a')",
        ),
        ({"dmax": 0.5, "subset_file": "missing.csv", "key": "id"}, "subset_file not found"),
        (
            {"dmax": 0.5, "subset_file": "other.csv", "key": "id"},
            "has no column 'id' (the key); its columns are: ['person']",
        ),
        ({"dmax": 0.5, "subset_file": "stranger.csv", "key": "id"}, "2 identifier(s) of subset_file"),
    ],
)
def test_bad_settings_name_the_key(spec, message, tmp_path):
    ids_file(tmp_path)
    (tmp_path / "other.csv").write_text("person\n1\n")
    (tmp_path / "stranger.csv").write_text("id\n1\n99\n100\n")
    (tmp_path / "zips.csv").write_text("zip\na\n")
    spec = {"type": "delta-presence", **{k: str(tmp_path / v) if k == "subset_file" else v for k, v in spec.items()}}
    extra = {"count": list(range(12)), "none": [False] * 12, "label": list("xyzxyzxyzxyz")}
    job = table_job(dict(HAND, **extra), HAND_H, roles={"d": "sensitive", "id": "identifying"}, k=1, models=(spec,))
    free = ["in", *extra]  # columns without a role: the subset column, the rest left out
    job = replace(job, attributes=[a for a in job.attributes if a.name not in free])
    job = replace(job, input=replace(job.input, drop=tuple(c for c in free if c != spec.get("subset"))))
    with pytest.raises(ConfigError) as error:
        with Session(job) as session:
            session.checker()
    assert message in str(error.value)


def test_one_research_subset_per_job_and_lattice_algorithms_only():
    with pytest.raises(ConfigError, match="one model with a research subset"):
        validate(hand_job([PRESENCE, PRESENCE | {"dmax": 0.7}]))
    with pytest.raises(
        ConfigError, match="k-optimize checks k-anonymity only, and the job also asks for delta-presence"
    ):
        validate(hand_job(algorithm="k-optimize"))


OTHER_MODELS = {
    "distinct": {"type": "distinct-l-diversity", "attribute": "s", "l": 2},
    "entropy": {"type": "entropy-l-diversity", "attribute": "s", "l": 1.5},
    "recursive": {"type": "recursive-cl-diversity", "attribute": "s", "c": 2, "l": 2},
    "t-equal": {"type": "t-closeness", "attribute": "s", "t": 0.3},
    "t-hierarchical": {"type": "t-closeness", "attribute": "s", "t": 0.3, "distance": "hierarchical"},
    "delta-disclosure": {"type": "delta-disclosure", "attribute": "s", "delta": 1.0},
    "average-risk": {"type": "average-risk", "threshold": 0.3, "max_risk": 0.5},
    "sample-uniqueness": {"type": "sample-uniqueness", "threshold": 0.1},
}


@pytest.mark.parametrize("name", list(OTHER_MODELS))
def test_every_model_counts_the_subset(name):
    """With dmin = 0 and dmax = 1 the other models must decide as on the subset's rows alone:
    their histograms, sizes and input distribution (q over the subset; 'v' occurs only outside
    it, with q = 0) are the subset's."""
    from sqlanon import Hierarchy

    rows = {
        "a": list("xyzxyzxyzxyzxyzx"),
        "b": list("pqpqrrpqpqrrpqpq"),
        "in": [i % 3 != 1 for i in range(16)],
        "s": list("uvwwuvwuvwuvwwuu"),
    }
    hier = {"a": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]], "b": [["p", "*"], ["q", "*"], ["r", "*"]]}
    subset_rows = {c: [v for v, m in zip(values, rows["in"]) if m] for c, values in rows.items() if c != "in"}
    model = dict(OTHER_MODELS[name])
    if model.get("distance") == "hierarchical":
        model["hierarchy"] = Hierarchy.from_rows("s", [["u", "uv", "*"], ["v", "uv", "*"], ["w", "w", "*"]])
    for limit in (0.0, 0.3):
        population = table_job(
            rows,
            hier,
            roles={"s": "sensitive"},
            k=1,
            suppression_limit=limit,
            metric="loss",
            models=({"type": "delta-presence", "dmax": 1.0, "subset": "in"}, model),
        )
        population = replace(population, attributes=[a for a in population.attributes if a.name != "in"])
        alone = table_job(
            subset_rows, hier, roles={"s": "sensitive"}, k=1, suppression_limit=limit, metric="loss", models=(model,)
        )
        with Session(population, share_stats=True) as p, Session(alone, share_stats=True) as q:
            got, checker = p.search("exhaustive")
            want, reference = q.search("exhaustive")
            failing = 0
            for node in p.lattice.nodes():
                a, b = checker.checked(node), reference.checked(node)
                assert (a.anonymous, a.stats.suppressed, a.stats.kept_classes) == (
                    b.anonymous,
                    b.stats.suppressed,
                    b.stats.kept_classes,
                ), node
                failing += a.stats.suppressed > 0 or not a.anonymous
            assert failing or name == "sample-uniqueness"  # the model decides something here (no class of one row)
            assert (got.optimum is None) == (want.optimum is None)
            if got.optimum is not None:
                assert (got.optimum.node, got.optimum.loss) == (want.optimum.node, pytest.approx(want.optimum.loss))
