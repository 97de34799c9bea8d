"""``check`` (a table assessed as it is) and ``init`` (a starting job file), API and CLI."""

from __future__ import annotations

import json
import re

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli.commands import main
from sqlanon.config.validate import validate
from helpers.init_jobs import run_init, uncomment
from helpers.jobs import ADULT, ADULT_QIS

# zip x disease: class 47011 has 3 rows (flu, flu, cold), 47012 has 2 (flu, flu), 47013 one (cold)
TABLE = {
    "zip": ["47011", "47011", "47011", "47012", "47012", "47013"],
    "disease": ["flu", "flu", "cold", "flu", "flu", "cold"],
}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_check_reports_each_model_and_the_smallest_offending_classes():
    found = sqlanon.check(
        pa.table(TABLE),
        quasi=["zip"],
        k=2,
        models=[
            {"type": "distinct-l-diversity", "attribute": "disease", "l": 2},
            {"type": "t-closeness", "attribute": "disease", "t": 0.5},
        ],
    )
    assert not found.holds and (found.rows, found.classes, found.suppressed) == (6, 3, 0)
    achieved = {m["model"]: (m["achieved"], m["holds"]) for m in found.models}
    # t: overall flu 4/6; 47013 (all cold) is 0.5*(|0-2/3| + |1-1/3|) = 2/3 away, the worst
    assert achieved["k-anonymity"] == (1, False) and achieved["distinct-l-diversity"] == (1, False)
    assert achieved["t-closeness"][0] == pytest.approx(2 / 3) and achieved["t-closeness"][1] is False
    assert found.offending == [
        ({"zip": "47013"}, 1, ["k-anonymity", "distinct-l-diversity", "t-closeness"]),
        ({"zip": "47012"}, 2, ["distinct-l-diversity"]),
    ]
    assert (found.offending_classes, found.offending_rows) == (2, 3)
    risk = found.risk
    assert (risk["highest_risk"], risk["sample_uniques"], risk["classes"]) == (1.0, 1, 3)
    assert risk["average_risk"] == pytest.approx(3 / 6)  # classes / rows


def test_a_table_that_holds_and_masked_rows_counted_as_suppressed():
    released = {"zip": ["4701*", "4701*", "4701*", "*"], "age": ["30-39", "30-39", "30-39", "*"]}
    found = sqlanon.check(pa.table(released), quasi=["zip", "age"], k=3)
    assert found.holds and (found.classes, found.suppressed) == (1, 1)
    assert found.models == [{"model": "k-anonymity", "k": 3, "achieved": 3, "holds": True}]
    assert found.risk["suppressed_records"] == 1 and found.risk["records"] == 3
    assert "The models hold." in found.text()


def test_average_risk_is_checked_on_the_whole_table():
    found = sqlanon.check(pa.table(TABLE), quasi=["zip"], models=[{"type": "average-risk", "threshold": 0.4}])
    (model,) = found.models
    assert model["achieved"] == pytest.approx(0.5) and not model["holds"] and not found.holds
    assert found.offending == [] and "on the table as a whole" in found.text()


@pytest.mark.parametrize("fmt", ["csv", "parquet", "duckdb"])
def test_cli_exit_codes_on_each_input_kind(tmp_path, fmt):
    data = tmp_path / f"t.{fmt}"
    table = pa.table(TABLE)
    extra = []
    if fmt == "csv":
        data.write_text("zip;disease\n" + "".join(f"{z};{d}\n" for z, d in zip(TABLE["zip"], TABLE["disease"])))
        extra = ["--delimiter", ";"]
    elif fmt == "parquet":
        pq.write_table(table, data)
    else:
        with duckdb.connect(str(data)) as con:
            con.register("t", table)
            con.execute("CREATE TABLE people AS SELECT * FROM t")
        extra = ["--table", "people"]
    holds = run("check", data, "--quasi", "zip", "--k", "1", *extra)
    assert holds.exit_code == 0, holds.output
    assert "The models hold." in holds.stdout
    fails = run(
        "check",
        data,
        "--quasi",
        "zip",
        "--k",
        "2",
        "--model",
        "distinct-l-diversity:attribute=disease,l=2",
        "--json",
        *extra,
    )
    assert fails.exit_code == 1
    report = json.loads(fails.stdout)
    assert report["holds"] is False and [c["values"] for c in report["offending"]] == [
        {"zip": "47013"},
        {"zip": "47012"},
    ]


def test_cli_cuts_long_values_and_redacts_them(tmp_path):
    long = "x" * 120
    pq.write_table(pa.table({"name": [long, "a", "a"]}), tmp_path / "t.parquet")
    shown = run("check", tmp_path / "t.parquet", "--quasi", "name", "--k", "2")
    assert shown.exit_code == 1
    line = next(l for l in shown.stdout.splitlines() if l.strip().startswith("1  name="))
    assert f"'{'x' * 80}…' (120 characters)" in line and "x" * 81 not in line
    hidden = run("check", tmp_path / "t.parquet", "--quasi", "name", "--k", "2", "--redact")
    assert hidden.exit_code == 1 and "xxx" not in hidden.stdout and "(hidden)" in hidden.stdout
    assert json.loads(run("check", tmp_path / "t.parquet", "--quasi", "name", "--k", "2", "--redact", "--json").stdout)[
        "offending"
    ] == [{"values": None, "size": 1, "fails": ["k-anonymity"]}]


def test_cli_errors_exit_2_and_3(tmp_path):
    missing = run("check", tmp_path / "none.csv", "--quasi", "a", "--k", "2")
    assert missing.exit_code == 3 and "input file not found" in missing.stderr
    wrong = run("check", ADULT / "adult.csv", "--quasi", "age", "--k", "2")
    assert wrong.exit_code == 2 and "set the delimiter to ';'" in wrong.stderr
    no_table = run("check", tmp_path / "x.duckdb", "--quasi", "a")
    assert no_table.exit_code == 2 and "name its table with --table" in no_table.stderr
    model = run("check", ADULT / "adult.csv", "--delimiter", ";", "--quasi", "age", "--model", "l-diversity:l=2")
    assert model.exit_code == 2 and "unknown privacy model 'l-diversity'" in model.stderr
    empty = run("init", ADULT / "adult.csv", "--delimiter", ";", "--output", "")
    assert empty.exit_code == 2 and "--output names the job file to write" in empty.stderr


def test_check_the_adult_release_matches_the_run(tmp_path):
    """The released file of a run, checked as it is: the run's own figures."""
    quasi = {q: str(ADULT / f"adult_hierarchy_{q}.csv") for q in ["age", "sex", "race"]}
    out = tmp_path / "out.csv"
    result = sqlanon.anonymize(
        str(ADULT / "adult.csv"),
        quasi=quasi,
        k=10,
        suppression_limit=0.01,
        others="insensitive",
        delimiter=";",
        output=out,
    )
    found = sqlanon.check(out, quasi=list(quasi), k=10)
    assert found.holds and found.suppressed == result.suppressed and found.classes == result.classes
    assert found.models[0]["achieved"] == result.report["min_class_size"]
    assert found.risk == result.report["risk"]["after"]


def test_init_writes_every_column_commented_and_it_loads_once_filled_in(tmp_path):
    data = tmp_path / "people.csv"
    rows = [
        f"p{i},{30 + i % 40},{['flu', 'cold', 'cough'][i % 3]},0{4700 + i % 7},2024-0{1 + i % 9}-1{i % 10}"
        for i in range(200)
    ]
    data.write_text("id,age,disease,zip,seen\n" + "\n".join(rows) + "\n")
    result, job = run_init(tmp_path, data)
    assert result.exit_code == 0, result.output
    text = job.read_text()
    # above 30 values the counts are estimates (~), the range exact
    assert (
        re.search(r"^# id: text, ~\d+ distinct values, ~9\d% unique$", text, re.M) and '#role = "identifying"' in text
    )
    assert re.search(r"^# age: integer, ~\d+ distinct values, ~\d+% unique, 30 to 69$", text, re.M)
    assert '#hierarchy = { type = "intervals", widths = [2, 4, 8], start = 30 }' in text
    assert '#hierarchy = { type = "order", values = ["cold", "cough", "flu"], fanout = [2] }' in text
    assert "# zip: digits" in text and '#hierarchy = { type = "mask", mask = "*", levels = 4 }' in text
    assert "# seen: date" in text and 'type = "date"' in text
    with pytest.raises(sqlanon.ConfigError):  # as written, nothing has a role yet
        validate(sqlanon.load_job(job))
    job.write_text(uncomment(text))
    loaded = sqlanon.load_job(job)
    assert [(a.name, a.role) for a in loaded.attributes] == [
        ("id", "identifying"),
        ("age", "quasi"),
        ("disease", "quasi"),
        ("zip", "quasi"),
        ("seen", "quasi"),
    ]
    released = sqlanon.anonymize(loaded)
    assert released.success and released.report["verified"] and (tmp_path / "people_anonymized.csv").exists()


def test_init_on_adult_builds_every_suggested_hierarchy(tmp_path):
    from sqlanon.session import Session

    result, job = run_init(tmp_path, ADULT / "adult.csv", "--delimiter", ";")
    assert result.exit_code == 0, result.output
    job.write_text(uncomment(job.read_text()))
    loaded = sqlanon.load_job(job, algorithm="lightning", step_limit=50)
    with Session(loaded) as session:  # every builder ran over its column and validated
        # every column: native-country's 41 values too many to list, masked, no longer released as it is
        assert session.qis == ADULT_QIS and session.rows == 30162


def test_init_never_overwrites_without_the_flag(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a\n1\n2\n")
    job = tmp_path / "job.toml"
    job.write_text("mine\n")
    refused = run("init", data, "--output", job)
    assert refused.exit_code == 3 and "already exists: use --overwrite" in refused.stderr
    assert job.read_text() == "mine\n"
    assert run("init", data, "--output", job, "--overwrite").exit_code == 0 and "[input]" in job.read_text()
    onto_input = run("init", data, "--output", data, "--overwrite")
    assert onto_input.exit_code == 3 and "is the input file" in onto_input.stderr and data.read_text() == "a\n1\n2\n"
