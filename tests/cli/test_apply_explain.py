"""explain: the SQL and the failing classes of a node; apply: a saved transformation on new data."""

import csv
import json

import pytest
from click.testing import CliRunner

from sqlanon.cli.commands import main


def rewrite(path, keep):
    rows = list(csv.reader(open(path, newline="")))
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows(rows[: keep + 1])


@pytest.mark.slow
def test_explain_prints_sql_and_smallest_failing_classes(demo_job):
    result = CliRunner().invoke(main, ["explain", str(demo_job), "--node", "1,2,0", "--show", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'FROM "sqlanon_wide"' in out and '"c"."q1_2"' in out and "$k" in out
    assert "NOT anonymous: 366 rows in failing classes, limit 80; 421 classes, 269 kept" in out
    failing = [line for line in out.splitlines() if line.startswith("       1  age=")]
    assert failing[:1] == ["       1  age=0-4, zipcode=474**, sex=female"] and len(failing) == 3


def test_explain_refuses_a_node_outside_the_lattice(demo_job):
    result = CliRunner().invoke(main, ["explain", str(demo_job), "--node", "1,9"])
    assert result.exit_code == 2 and "give 3 levels (age, zipcode, sex)" in result.stderr


def test_apply_reuses_the_transformation_and_rechecks(demo_job, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["anonymize", str(demo_job), "-q"]).exit_code == 0
    manifest = tmp_path / "demo" / "report.json"
    saved = json.loads(manifest.read_text())["manifest"]
    assert saved["levels"] == {"age": 3, "zipcode": 2, "sex": 0} and saved["models"] == [
        {"model": "k-anonymity", "k": 5}
    ]
    data = tmp_path / "demo" / "patients.csv"
    rewrite(data, 2500)  # new data: the first 2,500 rows
    ok = runner.invoke(
        main, ["apply", str(demo_job), "-m", str(manifest), "--output", str(tmp_path / "a.parquet"), "--json"]
    )
    assert ok.exit_code == 0, ok.output
    report = json.loads(ok.stdout)
    assert report["algorithm"] == "apply" and report["transformation"] == [3, 2, 0] and report["verified"]
    assert report["checks"] == 1 and report["rows"] == 2500
    rewrite(data, 300)  # too few rows: the same levels leave small classes
    failed = runner.invoke(main, ["apply", str(demo_job), "-m", str(manifest), "--output", str(tmp_path / "b.parquet")])
    assert failed.exit_code == 1
    assert "no longer satisfies k=5 on this data" in failed.stderr and "the limit is 6" in failed.stderr
    assert not (tmp_path / "b.parquet").exists()
    assert json.loads(manifest.read_text())["manifest"] == saved  # the manifest is untouched
    (tmp_path / "hierarchies" / "demo_sex.csv").write_text("female;any\nmale;any\n")
    changed = runner.invoke(
        main, ["apply", str(demo_job), "-m", str(manifest), "--output", str(tmp_path / "c.parquet")]
    )
    assert changed.exit_code == 2 and "the hierarchy of 'sex' differs from the one in the manifest" in changed.stderr
