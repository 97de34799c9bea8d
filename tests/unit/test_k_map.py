"""k-map as ARX 3.9.2 defines it (sqlanon/criteria/k_map.py): k' of the population estimate
against ARX's own figures, both forms on hand-made tables against brute force in SQL and in
the local kernel, the released and verified output, ARX's ADULT JUnit cases 0 and 1
(TestAnonymizationKMap), and bad options."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest

from helpers.jobs import ADULT_QIS, adult_job, table_job
from helpers.presence import HAND, HAND_H, hand_job
from sqlanon import Output, anonymize
from sqlanon.criteria import build_model
from sqlanon.criteria.k_map import KMap, derive_k
from sqlanon.errors import ConfigError
from sqlanon.session import Session

USA = 317_238_626  # ARX's Region.USA
ADULT_ROWS = 30_162
ZTP = "zero-truncated-poisson"
PLACEMENTS = ["sql", "local"]


def estimated(k, significance=0.01, estimator=ZTP, **population):
    return {"type": "k-map", "k": k, "significance": significance, "estimator": estimator, **population}


# -- k' against ARX -----------------------------------------------------------------------
def adult_k(k, significance=0.01, estimator=ZTP, frame=USA):
    raw, error = derive_k(k, significance, estimator, ADULT_ROWS / frame)
    return min(k, ADULT_ROWS, raw), error


# (estimator, alpha, k, ARX's k', ARX's type-I error): /tmp/report_kmap.md's table for ADULT
# (n = 30,162, N = USA) and rows of ARX's own grid (KMap.getDerivedK, getType1Error)
ARX_K = [
    (ZTP, 0.01, 3, 2, 1.4261e-4),
    (ZTP, 0.01, 1000, 3, 1.4709e-3),
    ("poisson", 0.01, 3, 2, 2.852e-4),
    ("poisson", 0.01, 1000, 3, 4.243e-3),
    ("poisson", 0.001, 1, 1, 0.0),
    ("poisson", 0.001, 2, 2, 1.9013531144529416e-4),
    ("poisson", 0.001, 3, 2, 2.851894099495933e-4),
]


@pytest.mark.parametrize("estimator, alpha, k, expected, error", ARX_K)
def test_derived_k_as_arx_gives_it_for_adult(estimator, alpha, k, expected, error):
    derived, type1 = adult_k(k, alpha, estimator)
    assert derived == expected
    assert type1 == pytest.approx(error, rel=1e-3, abs=1e-12)


def test_derived_k_for_large_k_and_other_alphas():
    # ZTP at alpha 0.01 (ARX: 10^4 -> 5, 10^5 -> 18, 10^6 -> 119); alpha 0.05 and 0.1 at k = 1000 -> 2
    assert [adult_k(k)[0] for k in (10**4, 10**5, 10**6)] == [5, 18, 119]
    assert adult_k(1000, 0.05)[0] == adult_k(1000, 0.1)[0] == 2
    # ARX's offsets: Poisson's k' is ZTP's + 1 at the same lambda (about 95 here)
    assert adult_k(10**6, estimator="poisson")[0] == 120


def test_derived_k_edges():
    lam = 0.1 / 10  # a sampling fraction of 0.01 and k = 10: lambda = 0.1
    assert derive_k(1, 0.01, ZTP, lam)[0] == derive_k(1, 0.01, "poisson", lam)[0] == 1
    # alpha = 1 covers nothing: ARX answers 1 with error 1
    assert derive_k(10, 1.0, ZTP, lam) == derive_k(10, 1.0, "poisson", lam) == (1, 1.0)
    # the loop reaches k before the sum covers 1 - alpha: k' = k, no error
    assert derive_k(3, 0.01, ZTP, 1.0) == (3, 0.0)
    # bounded by the input's rows
    model = KMap(1000, 0.01, ZTP, population_size=5)  # lambda = 800: k' would be about 860
    model.resolve_population(4)
    assert model.derived_k == 4


def closed_form(k, alpha, estimator, n, frame):
    """The report's closed form: Poisson min(k, n, c* + 2), ZTP min(k, n, c* + 1), c* the
    first count whose (truncated) CDF covers 1 - alpha; a pmf of exact factorials."""
    lam = n / frame * k
    pmf = [math.exp(-lam) * lam**x / math.factorial(x) for x in range(60)]
    if estimator == ZTP:
        cdf = [math.fsum(pmf[1 : c + 1]) / (1 - pmf[0]) for c in range(60)]
        c = next(c for c in range(1, 60) if cdf[c] >= 1 - alpha)
        return min(k, n, c + 1)
    cdf = [math.fsum(pmf[: c + 1]) for c in range(60)]
    return min(k, n, next(c for c in range(60) if cdf[c] >= 1 - alpha) + 2)


@pytest.mark.parametrize("estimator", [ZTP, "poisson"])
def test_derived_k_against_the_closed_form(estimator):
    for k, alpha, fraction in product((2, 3, 5, 10, 40, 200), (0.001, 0.01, 0.05, 0.2), (0.001, 0.01, 0.1)):
        n = 1000
        model = KMap(k, alpha, estimator, sampling_fraction=fraction)
        model.resolve_population(n)
        assert model.derived_k == closed_form(k, alpha, estimator, n, round(n / fraction)), (k, alpha, fraction)


# -- hand-made tables against brute force ----------------------------------------------------
ZIP_H = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]]
AGE_H = [[str(a), f"{a // 2 * 2}-{a // 2 * 2 + 1}", "*"] for a in range(6)]


def table(rows=60, seed=7):
    """Two QIs with skewed values (class sizes from 0 to about 15) and a research subset of ~40 %."""
    rng = random.Random(seed)
    zips = rng.choices("abcd", weights=[6, 3, 2, 1], k=rows)
    ages = [str(min(5, int(rng.expovariate(0.6)))) for _ in range(rows)]
    return {
        "zip": zips,
        "age": ages,
        "d": [rng.choice("xyz") for _ in range(rows)],
        "in": [rng.random() < 0.4 for _ in range(rows)],
    }


def brute_force(columns, node, bound, limit, subset=False):
    """(anonymous, suppressed rows) of a node: a class fails with fewer than ``bound`` rows
    (the population's, with ``subset``); its released rows are suppressed."""
    maps = [{r[0]: r[level] for r in h} for h, level in zip((ZIP_H, AGE_H), node)]
    keys = [(maps[0][z], maps[1][a]) for z, a in zip(columns["zip"], columns["age"])]
    released = list(columns["in"]) if subset else [True] * len(keys)
    population: dict = {}
    sample: dict = {}
    for key, member in zip(keys, released):
        population[key] = population.get(key, 0) + 1
        sample[key] = sample.get(key, 0) + member
    counts = population if subset else sample
    suppressed = sum(sample[key] for key in counts if counts[key] < bound)
    rows = sum(released)
    return suppressed <= int(Fraction(str(limit)) * rows), suppressed


def job_of(columns, model, checks, subset, **settings):
    columns = dict(columns) if subset else {c: v for c, v in columns.items() if c != "in"}
    job = table_job(columns, {"zip": ZIP_H, "age": AGE_H}, models=(model,), k=1, checks=checks, **settings)
    # the subset column is the model's: it has no role and is not released
    return replace(job, attributes=[a for a in job.attributes if a.name != "in"]) if subset else job


NODES = list(product(range(3), range(3)))


@pytest.mark.parametrize("checks", PLACEMENTS)
@pytest.mark.parametrize("estimator", [ZTP, "poisson"])
def test_estimate_form_by_brute_force(checks, estimator):
    columns = table()
    n = len(columns["zip"])
    cases = [(k, alpha, f) for k in (3, 10, 40) for alpha in (0.01, 0.2) for f in (0.01, 0.1, 0.5)]
    with Session(job_of(columns, estimated(10, sampling_fraction=0.01), checks, False)) as session:
        for (k, alpha, fraction), limit in product(cases, (0.0, 0.25, 0.5)):
            checker = session.checker(
                suppression_limit=limit, models=(estimated(k, alpha, estimator, sampling_fraction=fraction),)
            )
            model = checker.models[-1]
            bound = closed_form(k, alpha, estimator, n, round(n / fraction))
            assert model.derived_k == bound and checker.params == {"m1_k": bound}
            assert checker.monotonic_models
            for node in NODES:
                result = checker.check(node)
                expected = brute_force(columns, node, bound, limit)
                assert (result.anonymous, result.stats.suppressed) == expected, (
                    f"{k=} {alpha=} {fraction=} {limit=} {node=}"
                )


@pytest.mark.parametrize("checks", PLACEMENTS)
def test_subset_form_by_brute_force(checks):
    columns = table()
    model = {"type": "k-map", "k": 3, "subset": "in"}
    with Session(job_of(columns, model, checks, True)) as session:
        assert (session.rows, session.prepared.population) == (sum(columns["in"]), len(columns["in"]))
        for k, limit in product((1, 2, 3, 5, 8, 15, 30), (0.0, 0.1, 0.25, 0.5)):
            checker = session.checker(suppression_limit=limit, models=({**model, "k": k},))
            assert checker.monotonic_models and checker.params == {"m1_k": k}
            for node in NODES:
                result = checker.check(node)
                expected = brute_force(columns, node, k, limit, subset=True)
                assert (result.anonymous, result.stats.suppressed) == expected, (k, limit, node)


@pytest.mark.parametrize("checks", PLACEMENTS)
@pytest.mark.parametrize("kind", ["column", "file"])
def test_subset_form_by_hand(checks, kind, tmp_path):
    # helpers/presence.py's 12 people, 5 in the subset: zip a 4 people (2 in), b 2 (2 in),
    # c 4 (1 in), d 2 (none). k = 3: level 0 fails b alone (pop 2 < 3; its 2 subset rows are
    # suppressed), d releases nothing and fails nothing; ab and cd (6 each) and * pass.
    if kind == "column":
        model = {"type": "k-map", "k": 3, "subset": "in"}
    else:
        path = tmp_path / "ids.csv"
        path.write_text("id\n" + "".join(f"{i}\n" for i, member in zip(HAND["id"], HAND["in"]) if member))
        model = {"type": "k-map", "k": 3, "subset_file": str(path), "key": "id"}
    with Session(hand_job([model], ids=kind == "file", k=1, suppression_limit=0.4, checks=checks)) as session:
        checker = session.checker()
        kmap = checker.models[-1]
        rows = session.runner.class_figures((0,), checker.keep, checker.params)
        assert [(r["n"], r["pop"], r["kept"]) for r in rows] == [(2, 4, True), (2, 2, False), (1, 4, True)]
        assert all(r["kept"] == kmap.class_holds(kmap.presence_value(r["n"], r["pop"])) for r in rows)
        # floor(0.4 * 5) = 2 subset rows may go: level 0 holds with b suppressed
        assert [(checker.check((l,)).anonymous, checker.check((l,)).stats.suppressed) for l in range(3)] == [
            (True, 2),
            (True, 0),
            (True, 0),
        ]
        # k = 5: every class of level 0 fails (all 5 subset rows), level 1 (6 and 6) passes
        strict = session.checker(models=({**model, "k": 5},))
        assert [strict.check((l,)).stats.suppressed for l in range(3)] == [5, 0, 0]
        outcome, _ = session.search("flash", models=({**model, "k": 5},))
        assert outcome.optimum.node == (1,)


def test_the_session_prepares_k_maps_subset_itself():
    with Session(hand_job([{"type": "k-map", "k": 3, "subset": "in"}], k=1)) as session:
        assert session.subset is not None and session.rows == 5


def test_both_forms_released_and_verified(tmp_path):
    columns = table()
    written = {"output": Output(path=str(tmp_path / "e.csv")), "suppression_limit": 0.25}
    estimate = anonymize(job_of(columns, estimated(10, sampling_fraction=0.01), "sql", False, **written))
    assert estimate.success and estimate.report["verified"]
    (entry,) = [m for m in estimate.report["privacy"]["models"] if m["model"] == "k-map"]
    assert entry["k"] == 10 and entry["achieved"] >= 3  # the smallest released class, k' = 3
    written["output"] = Output(path=str(tmp_path / "s.csv"))
    released = anonymize(job_of(columns, {"type": "k-map", "k": 5, "subset": "in"}, "local", True, **written))
    assert released.success and released.report["verified"]
    assert released.report["rows"] == sum(columns["in"])


def test_describe_and_derived_figures():
    model = KMap(1000, 0.01, ZTP, population_size=USA)
    # the options as given, before and after resolving (the release compares them with a fresh model)
    before = model.describe()
    model.resolve_population(ADULT_ROWS)
    assert (
        model.describe()
        == before
        == {
            "model": "k-map",
            "k": 1000,
            "significance": 0.01,
            "estimator": ZTP,
            "population_size": USA,
        }
    )
    assert model.derived() == {"population": USA, "derived_k": 3, "type1_error": pytest.approx(1.4709e-3, rel=1e-4)}
    assert KMap(3, 0.01, sampling_fraction=0.1).describe()["estimator"] == "poisson"  # ARX's default
    subset = KMap(5, subset="in")
    assert subset.describe() == {"model": "k-map", "k": 5, "subset": "in"} and subset.derived() == {}
    assert subset.population and not KMap(3, 0.01, sampling_fraction=0.1).population
    assert (subset.monotonic(0.0), subset.monotonic(0.1)) == (True, True)


# -- ARX's ADULT JUnit cases (TestAnonymizationKMap 0 and 1) -------------------------------------
QIS = [q for q in ADULT_QIS if q != "occupation"]  # ARX's column order: its levels' order
ADULT_CASES = [
    (0, 3, 130804.5332092598, (0, 0, 1, 1, 0, 2, 2, 0)),
    (1, 1000, 151894.1394841501, (0, 0, 1, 1, 1, 2, 1, 0)),
]


@pytest.fixture(scope="module", params=PLACEMENTS)
def adult_session(request, adult_available):
    # occupation is released unchanged (insensitive), as ARX's cases leave it
    with Session(adult_job(QIS, metric="entropy", checks=request.param)) as session:
        yield session


@pytest.mark.parametrize("case, k, loss, levels", ADULT_CASES, ids=[f"arx-{c[0]}" for c in ADULT_CASES])
def test_arx_junit_cases(adult_session, case, k, loss, levels):
    model = estimated(k, population_size=USA)
    outcome, checker = adult_session.search("flash", k=1, suppression_limit=0.05, metric="entropy", models=(model,))
    assert checker.models[-1].derived_k == (2 if k == 3 else 3)
    assert outcome.optimum is not None
    assert outcome.optimum.loss == pytest.approx(loss, rel=1e-9)
    assert outcome.optimum.node == levels


# -- bad options ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, message",
    [
        ({"k": 0, "subset": "in"}, "'k' must be an int >= 1 (e.g. k = 5), got 0"),
        ({"k": "x" * 200, "subset": "in"}, "got '" + "x" * 80 + "…' (200 characters)"),
        ({"k": 3}, "give significance (ARX's alpha, e.g. significance = 0.01)"),
        ({"k": 3, "significance": 1.5, "population_size": USA}, "'significance' must be a number in [0, 1]"),
        ({"k": 3, "significance": "low", "population_size": USA}, "got 'low'"),
        (
            {"k": 3, "significance": 0.01, "estimator": "gauss", "population_size": USA},
            "unknown 'estimator' 'gauss'; give one of poisson, zero-truncated-poisson",
        ),
        ({"k": 3, "significance": 0.01}, "give the population as population_size (e.g. 317238626"),
        ({"k": 3, "significance": 0.01, "population_size": USA, "sampling_fraction": 0.1}, "not both"),
        (
            {"k": 3, "significance": 0.01, "sampling_fraction": 0},
            "'sampling_fraction' parameter must be a number in (0, 1]",
        ),
        (
            {"k": 3, "significance": 0.01, "population_size": "many"},
            "'population_size' must be a finite number, got 'many'",
        ),
        ({"k": 3, "significance": 0.01, "subset": "in"}, "significance go with an estimated population"),
        ({"k": 3, "subset": "in", "subset_file": "ids.csv", "key": "id"}, "give the research subset once"),
        ({"k": 3, "subset_file": "ids.csv"}, 'subset_file needs key = "<column>"'),
        ({"k": 3, "subset": "in", "key": "id"}, "key goes with subset_file"),
        ({"k": 3, "subset": 7}, "'subset' must be a column name or a path, got 7"),
        ({"k": 3, "subset": "in", "l": 2}, "unknown key(s) ['l'] for the k-map model"),
        ({"subset": "in"}, "the k-map model needs k"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(ConfigError) as error:
        build_model({"type": "k-map", **options})
    assert message in str(error.value)
    assert "k-map" in str(error.value)


def test_population_smaller_than_the_input():
    job = table_job({"zip": HAND["zip"]}, HAND_H, models=(estimated(3, population_size=10),), k=1)
    with Session(job) as session:
        with pytest.raises(ConfigError, match="population_size = 10 is smaller than the input's 12 rows"):
            session.checker()


def test_the_report_states_k_prime_and_the_type1_error(tmp_path):
    from sqlanon import Output

    written = {"output": Output(path=str(tmp_path / "e.csv")), "suppression_limit": 0.25}
    result = anonymize(job_of(table(), estimated(10, sampling_fraction=0.01), "sql", False, **written))
    (entry,) = [m for m in result.report["privacy"]["models"] if m["model"] == "k-map"]
    assert entry["derived_k"] == 3 and 0 <= entry["type1_error"] <= 0.01 and entry["population"] > 0
