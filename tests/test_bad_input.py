"""Bad input: each case gets a message naming the file, column or value, and its exit code."""

import pytest
from click.testing import CliRunner

from sqlanon.cli.commands import main


def job(tmp_path, body, data=None, name="data.csv"):
    if data is not None:
        (tmp_path / name).write_text(data)
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    path = tmp_path / "job.toml"
    path.write_text(body)
    return path


def run(path, *flags):
    result = CliRunner().invoke(main, ["anonymize", str(path), *flags])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


SIMPLE = '[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'


def test_missing_input_file(tmp_path):
    code, err = run(job(tmp_path, SIMPLE))
    assert code == 3 and "input file not found" in err and "data.csv" in err


def test_missing_parquet_glob(tmp_path):
    code, err = run(job(tmp_path, SIMPLE.replace("data.csv", "part-*.parquet")))
    assert code == 3 and "no Parquet file matches" in err


def test_unknown_table_lists_tables(tmp_path):
    import duckdb

    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.execute("CREATE TABLE people (x VARCHAR)").fetchall()
    con.close()
    code, err = run(job(tmp_path, SIMPLE.replace('"data.csv"', '"db.duckdb"\ntable = "persons"')))
    assert code == 3 and "has no table 'persons'; tables: people" in err


def test_ragged_csv_row_names_the_line(tmp_path):
    code, err = run(job(tmp_path, SIMPLE, "x,y\na,1\nb,2\na,3,oops\nb,4\n"))
    assert code == 3 and "line 4 has 3 fields, the header has 2" in err


def test_empty_table(tmp_path):
    code, err = run(job(tmp_path, SIMPLE + '[attributes.y]\nrole = "insensitive"\n', "x,y\n"))
    assert code == 3 and "has no rows" in err


def test_qi_without_hierarchy(tmp_path):
    code, err = run(job(tmp_path, '[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\n', "x\na\n"))
    assert code == 2 and "quasi-identifier 'x' needs a hierarchy" in err


def test_value_missing_from_hierarchy(tmp_path):
    code, err = run(job(tmp_path, SIMPLE, "x\na\nc\nc\n"))
    assert code == 2 and "column 'x'" in err and "'c'" in err and "1 value(s) missing" in err


def test_k_larger_than_rows(tmp_path):
    code, err = run(job(tmp_path, SIMPLE, "x\na\nb\n"), "--k", "5")
    assert code == 1 and "No transformation satisfies k=5" in err and "2 rows" in err


@pytest.mark.parametrize("flag, value, message", [
    ("--metric", "nope", "Invalid value for '--metric'"),
    ("--algorithm", "nope", "Invalid value for '--algorithm'"),
    ("--k", "0", "'k' parameter must be an int >= 1, got 0"),
])
def test_bad_flags(tmp_path, flag, value, message):
    code, err = run(job(tmp_path, SIMPLE, "x\na\nb\n"), flag, value)
    assert code == 2 and message in err


@pytest.mark.parametrize("hierarchy, message", [
    ("a;*\nb;x;*\n", "line 2 has 3"),
    ("a;*\nb;*\na;*\n", "duplicate original values 'a' (lines 1 and 3)"),
    ("a;ab;*\nb;ab;top\n", "not functional: value 'ab' at level 1"),
])
def test_malformed_hierarchy_exits_2_and_names_file_and_lines(tmp_path, hierarchy, message):
    path = job(tmp_path, SIMPLE, "x\na\nb\n")
    (tmp_path / "h.csv").write_text(hierarchy)
    code, err = run(path)
    assert code == 2 and message in err and "h.csv" in err


def test_malformed_toml_exits_2_with_line_and_column(tmp_path):
    code, err = run(job(tmp_path, "[input]\npath = \n"))
    assert code == 2 and "line 2, column 8" in err


def test_hierarchy_build_and_preview(tmp_path):
    body = ('[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\n'
            'hierarchy = { type = "intervals", widths = [10, 20] }\n')
    path = job(tmp_path, body, "x\n3\n17\n25\n")
    runner = CliRunner()
    built = runner.invoke(main, ["hierarchy", "build", str(path), "-a", "x", "-o", str(tmp_path / "x.csv")])
    assert built.exit_code == 0, built.output
    assert (tmp_path / "x.csv").read_text() == "3;0-9;0-19;*\n17;10-19;0-19;*\n25;20-29;20-39;*\n"
    again = runner.invoke(main, ["hierarchy", "build", str(path), "-a", "x", "-o", str(tmp_path / "x.csv")])
    assert again.exit_code == 3 and "use --overwrite" in again.stderr
    shown = runner.invoke(main, ["hierarchy", "preview", str(path), "-a", "x", "--rows", "2"])
    assert shown.exit_code == 0
    assert "17       10-19    0-19     *" in shown.stdout and "... 1 more rows" in shown.stdout
    assert "values per level: 3, 3, 2, 1" in shown.stdout
    bad = runner.invoke(main, ["hierarchy", "preview", str(path), "-a", "y"])
    assert bad.exit_code == 2 and "attribute 'y' has no hierarchy" in bad.stderr


def test_optimal_search_refuses_a_huge_lattice():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from datasets import dataset_job
    from sqlanon import anonymize
    from sqlanon.errors import ConfigError

    with pytest.raises(ConfigError, match=r"has 49,[0-9,]+ nodes \(24 QIs\), more than search.max_lattice_size = 100,000") as error:
        anonymize(dataset_job("creditcard", None, k=5))
    assert "'lightning' | 'datafly' | 'igreedy' | 'genetic' | 'random'" in str(error.value)
    job = dataset_job("adult", None, k=5, max_lattice_size=10_000)  # ADULT: 12,960 nodes
    with pytest.raises(ConfigError, match="12,960 nodes"):
        anonymize(job)
