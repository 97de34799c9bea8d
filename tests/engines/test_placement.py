"""Check placement (``[engine] checks``): where checks run, what the report says, what is
refused, and delta-presence (a population count per class) answered alike in both places.
The engines suite (test_engines.py) compares the placements over every algorithm, metric
and model; this file holds what it does not."""

from __future__ import annotations

from dataclasses import replace
import json

import pytest
from helpers.jobs import ADULT_QIS, adult_job, on_engine, table_job
from helpers.presence import ADULT_CASES, CLASSES, adult_presence_job, hand_job

from sqlanon import Output, anonymize, load_job
from sqlanon.errors import ConfigError
from sqlanon.session import ALL_NEEDS, Session

QIS5 = ["sex", "age", "race", "marital-status", "education"]


def _run(tmp_path, checks, **settings):
    path = tmp_path / f"{checks}.csv"
    job = adult_job(QIS5, k=5, suppression_limit=0.02, checks=checks, output=Output(path=str(path), seed=1), **settings)
    result = anonymize(job)
    return result, path.read_bytes()


def test_the_report_says_where_checks_ran(adult_available, tmp_path):
    sql, sql_bytes = _run(tmp_path, "sql")
    local, local_bytes = _run(tmp_path, "local")
    auto, _ = _run(tmp_path, "auto")
    assert sql.report["checks_placement"] == "sql" and sql.report["class_table_bytes"] == 0
    assert local.report["checks_placement"] == "local"
    # the base class table of five QIs: 5 code columns and n, 8 bytes each at most
    classes = local.report["base_classes"]
    assert 0 < local.report["class_table_bytes"] <= classes * 6 * 8
    assert local.report["checks_placement_reason"] == 'engine.checks = "local"'
    # on DuckDB a query costs ~3 ms, a local check over ~1,000 rows far less
    assert (
        auto.report["checks_placement"] == "local"
        and "costs less than a query" in auto.report["checks_placement_reason"]
    )
    for key in ("transformation", "loss", "suppressed", "classes", "checks", "verified"):
        assert sql.report[key] == local.report[key] == auto.report[key], key
    assert sql_bytes == local_bytes  # the engine writes the output either way (one seed: one order)


def test_local_checks_above_the_budget_are_refused_and_auto_falls_back(adult_available):
    job = adult_job(QIS5, checks="local", local_budget="1KB")
    with pytest.raises(ConfigError) as error:
        Session(job)
    message = str(error.value)
    for part in (
        'engine.checks = "local"',
        "does not fit the local budget of 1000 B",
        "engine.local_budget",
        'engine.checks = "auto" or "sql"',
    ):
        assert part in message, part
    with Session(adult_job(QIS5, checks="auto", local_budget="1KB")) as session:
        assert session.placement == "sql" and "exceeds the local budget" in session.placement_reason
        assert session.runner.where == "sql" and session.engine.class_table_bytes == 0
        outcome, _ = session.search("flash", k=5, suppression_limit=0.02)
    with Session(adult_job(QIS5, checks="local")) as session:
        local, _ = session.search("flash", k=5, suppression_limit=0.02)
    assert (outcome.optimum.node, outcome.optimum.stats) == (local.optimum.node, local.optimum.stats)


def test_memory_refuses_sql_checks():
    with pytest.raises(ConfigError, match=r'engine.checks = "sql": the memory engine runs no SQL'):
        Session(table_job({"x": ["a", "b"]}, {"x": [["a", "*"], ["b", "*"]]}, engine="memory", checks="sql"))


def test_the_job_file_sets_the_placement(tmp_path):
    (tmp_path / "data.csv").write_text("x\na\nb\na\nb\n")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    head = '[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n[engine]\n'
    (tmp_path / "job.toml").write_text(head + 'checks = "local"\nlocal_budget = "64MB"\n')
    job = load_job(str(tmp_path / "job.toml"))
    assert (job.checks, job.local_budget) == ("local", "64MB")
    with Session(job) as session:
        assert session.placement == "local"
    for line, fix in (
        ('checks = "remote"', 'engine.checks must be "auto", "sql" or "local"'),
        ('local_budget = "lots"', "engine.local_budget must be a size"),
    ):
        (tmp_path / "bad.toml").write_text(head + line + "\n")
        with pytest.raises(ConfigError, match=fix):
            Session(load_job(str(tmp_path / "bad.toml")))


def test_postgres_auto_checks_locally(adult_available, request):
    """A PostgreSQL query costs ~100 ms: auto fetches the class table once."""
    job = on_engine(adult_job(QIS5), "postgres", request)
    job = replace(job, checks="auto")
    with Session(job) as session:
        assert session.placement == "local" and session.engine.class_table_bytes > 0
        outcome, checker = session.search("flash", k=5, suppression_limit=0.02)
    with Session(adult_job(QIS5, checks="sql")) as session:
        reference, _ = session.search("flash", k=5, suppression_limit=0.02)
    assert (outcome.optimum.node, outcome.optimum.stats) == (reference.optimum.node, reference.optimum.stats)


@pytest.mark.parametrize("level", [0, 1, 2])
def test_hand_population_figures_agree(level):
    """The population count of every released class (and the class without subset rows
    dropped) in both placements, as computed by hand in tests/search/test_presence.py."""
    rows = {}
    for checks in ("sql", "local"):
        with Session(hand_job(k=1, suppression_limit=0.4, checks=checks)) as session:
            checker = session.checker()
            rows[checks] = session.runner.class_figures((level,), checker.keep, checker.params)
            assert session.placement == checks
    assert rows["sql"] == rows["local"]
    assert [(r["n"], r["pop"]) for r in rows["local"]] == CLASSES[level]


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(ADULT_CASES))
def test_adult_population_every_check_agrees(adult_population, case):  # noqa: F811
    """delta-presence on ADULT (with distinct-l-diversity in "combined"): every node Flash
    checks has the same figures in SQL and in the kernel, with and without suppression."""
    path, _, _ = adult_population
    models, k = ADULT_CASES[case]
    for limit in (0.0, 0.1):
        found = {}
        for checks in ("sql", "local"):
            job = adult_presence_job(path, k=k, suppression_limit=limit, metric="loss", models=models, checks=checks)
            with Session(job, needs=ALL_NEEDS) as session:
                outcome, checker = session.search("flash")
                checked = {n: checker.checked(n).stats for n in session.lattice.nodes() if checker.checked(n)}
                best = outcome.optimum
                found[checks] = (best and best.node, best and best.loss, checked)
        assert found["sql"][0] == found["local"][0] and found["sql"][2] == found["local"][2], (case, limit)
        assert found["sql"][1] == pytest.approx(found["local"][1], rel=1e-12)


def test_report_is_json_with_the_placement(adult_available, tmp_path):
    report = tmp_path / "report.json"
    job = adult_job(ADULT_QIS[:3], k=5, checks="local", output=Output(path=str(tmp_path / "o.csv"), report=str(report)))
    assert anonymize(job).success
    written = json.loads(report.read_text())
    assert written["checks_placement"] == "local" and written["class_table_bytes"] > 0
