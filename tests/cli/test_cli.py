"""The command line end to end, with click's CliRunner, and its exit codes."""

import json

import pyarrow.csv as pacsv
from click.testing import CliRunner

from helpers.jobs import ROOT
from sqlanon.cli.commands import main
from sqlanon.demo import HIERARCHIES, write_hierarchies, write_patients


def test_anonymize_end_to_end_with_json(demo_job, tmp_path):
    result = CliRunner().invoke(main, ["anonymize", str(demo_job), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["success"] and report["verified"]
    assert report["levels"] == {"age": 3, "zipcode": 2, "sex": 0}
    assert report["suppressed"] == 31 and report["checks"] == 10 and report["lattice_size"] == 60
    assert set(report["seconds"]) == {"prepare", "search", "output", "risk"}
    assert "Optimal transformation" in result.stderr
    on_disk = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert on_disk["transformation"] == report["transformation"]
    out = pacsv.read_csv(tmp_path / "demo" / "patients_anonymized.csv")
    assert out.column_names == ["age", "zipcode", "sex", "diagnosis", "visits"]
    assert out.num_rows == 4000


def test_flags_override_the_file(demo_job, tmp_path):
    out = tmp_path / "k10.parquet"
    result = CliRunner().invoke(
        main,
        [
            "anonymize",
            str(demo_job),
            "--k",
            "10",
            "--suppression-limit",
            "0",
            "--metric",
            "height",
            "--algorithm",
            "exhaustive",
            "--output",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["privacy"]["models"] == [{"model": "k-anonymity", "k": 10, "achieved": report["min_class_size"]}]
    assert report["min_class_size"] >= 10
    assert report["algorithm"] == "exhaustive" and report["checks"] == 60 and report["min_class_size"] >= 10
    assert out.exists()


def test_exit_codes(demo_job, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["anonymize", str(demo_job)]).exit_code == 0
    existing = runner.invoke(main, ["anonymize", str(demo_job)])
    assert existing.exit_code == 3 and "already exists: use --overwrite" in existing.stderr
    none = runner.invoke(main, ["anonymize", str(demo_job), "--k", "5000", "--overwrite"])
    assert none.exit_code == 1 and "No transformation satisfies k=5000" in none.stderr
    bad = runner.invoke(main, ["anonymize", str(demo_job), "--suppression-limit", "2"])
    assert bad.exit_code == 2 and "must be a number in [0, 1]" in bad.stderr
    missing = runner.invoke(main, ["anonymize", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and "cannot read job file" in missing.stderr
    assert "Traceback" not in existing.output + none.output + bad.output + missing.output


def test_every_command_is_documented():
    runner = CliRunner()
    for name, command in main.commands.items():
        assert command.help, name
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output
        for option in command.params:
            if option.param_type_name == "option" and option.name not in ("help",):
                assert option.help, f"{name} --{option.name} has no help"


def test_demo_data_is_deterministic_and_hierarchies_are_current(tmp_path):
    a, b = write_patients(tmp_path / "a.csv"), write_patients(tmp_path / "b.csv")
    assert a.read_bytes() == b.read_bytes()
    write_hierarchies(tmp_path / "h")
    for name in HIERARCHIES:
        assert (tmp_path / "h" / f"demo_{name}.csv").read_bytes() == (
            ROOT / "sqlanon" / "demo" / "hierarchies" / f"demo_{name}.csv"
        ).read_bytes()


def test_demo_of_a_job_that_reads_a_table_is_refused(tmp_path):
    """The demo writes its data to the job's [input] path: a job reading a table has none."""
    job = tmp_path / "table.toml"
    job.write_text('[input]\ntable = "people"\n[attributes.a]\nrole = "insensitive"\n')
    result = CliRunner().invoke(main, ["demo", str(job)])
    assert result.exit_code == 2 and "this job reads a table" in result.stderr, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def test_quiet_prints_nothing_and_json_only_json(demo_job):
    result = CliRunner().invoke(main, ["anonymize", str(demo_job), "--quiet", "--json"])
    assert result.exit_code == 0
    assert result.stderr == ""
    assert json.loads(result.stdout)["verified"]


def test_a_delimiter_of_other_than_one_character_is_exit_2_and_one_line(demo_job, tmp_path):
    """Each was a TypeError traceback from Python's csv reader (exit 1): in the job file's
    [input] or [output], and the --delimiter of check and init. Nothing is written."""
    runner = CliRunner()
    text = demo_job.read_text()
    assert 'delimiter = ","\n' in text and 'report = "demo/report.json"\n' in text
    data = tmp_path / "demo" / "patients.csv"
    cases = {
        "input ;;": (
            ["anonymize", "job"],
            text.replace('delimiter = ","', 'delimiter = ";;"'),
            f"error: {tmp_path / 'job.toml'}: input.delimiter = ';;': a delimiter is one character",
        ),
        "input empty": (
            ["anonymize", "job"],
            text.replace('delimiter = ","', 'delimiter = ""'),
            f"error: {tmp_path / 'job.toml'}: input.delimiter = '': a delimiter is one character",
        ),
        "output ;;": (
            ["anonymize", "job"],
            text.replace('report = "demo/report.json"\n', 'report = "demo/report.json"\ndelimiter = ";;"\n'),
            f"error: {tmp_path / 'job.toml'}: output.delimiter = ';;': a delimiter is one character",
        ),
        "check ;;": (
            ["check", str(data), "--quasi", "age", "--delimiter", ";;"],
            None,
            "error: --delimiter ';;': a delimiter is one character",
        ),
        "init empty": (
            ["init", str(data), "--output", str(tmp_path / "new.toml"), "--delimiter", ""],
            None,
            "error: --delimiter '': a delimiter is one character",
        ),
    }
    for case, (args, job, expected) in cases.items():
        if job is not None:
            (tmp_path / "job.toml").write_text(job)
            args = [args[0], str(tmp_path / "job.toml")]
        result = runner.invoke(main, args)
        assert result.exit_code == 2, (case, result.output, result.exception)
        assert result.stderr.startswith(expected) and result.stderr.count("\n") == 1, (case, result.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo", "demo.toml", "hierarchies", "job.toml"]
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["patients.csv"]
