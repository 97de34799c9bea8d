"""Bad input: each case gets a message naming the file, column or value, and its exit code."""

import codecs
import gzip
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sqlanon.cli.commands import main
from sqlanon.core import files
from sqlanon.errors import ConfigError


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


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--metric", "nope", "Invalid value for '--metric'"),
        ("--algorithm", "nope", "Invalid value for '--algorithm'"),
        ("--k", "0", "'k' parameter must be an int >= 1, got 0"),
    ],
)
def test_bad_flags(tmp_path, flag, value, message):
    code, err = run(job(tmp_path, SIMPLE, "x\na\nb\n"), flag, value)
    assert code == 2 and message in err


@pytest.mark.parametrize(
    "hierarchy, message",
    [
        ("a;*\nb;x;*\n", "line 2 has 3"),
        ("a;*\nb;*\na;*\n", "duplicate original values 'a' (lines 1 and 3)"),
        ("a;ab;*\nb;ab;top\n", "not functional: value 'ab' at level 1"),
    ],
)
def test_malformed_hierarchy_exits_2_and_names_file_and_lines(tmp_path, hierarchy, message):
    path = job(tmp_path, SIMPLE, "x\na\nb\n")
    (tmp_path / "h.csv").write_text(hierarchy)
    code, err = run(path)
    assert code == 2 and message in err and "h.csv" in err


def test_malformed_toml_exits_2_with_line_and_column(tmp_path):
    code, err = run(job(tmp_path, "[input]\npath = \n"))
    assert code == 2 and "line 2, column 8" in err


def test_hierarchy_build_and_preview(tmp_path):
    body = (
        '[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\n'
        'hierarchy = { type = "intervals", widths = [10, 20] }\n'
    )
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
    from bench.datasets import dataset_job
    from sqlanon import anonymize
    from sqlanon.errors import ConfigError

    with pytest.raises(
        ConfigError, match=r"has 49,[0-9,]+ nodes \(24 QIs\), more than search.max_lattice_size = 100,000"
    ) as error:
        anonymize(dataset_job("creditcard", None, k=5))
    assert "'lightning' | 'lightning-top-down' | 'datafly' | 'igreedy' | 'genetic' | 'random'" in str(error.value)
    job = dataset_job("adult", None, k=5, max_lattice_size=10_000)  # ADULT: 12,960 nodes
    with pytest.raises(ConfigError, match="12,960 nodes"):
        anonymize(job)


# -- special files: refused before they are opened, read within a size ---------------------------


def cli(cwd, *args):
    """``python -m sqlanon ARGS`` in ``cwd``, in a child process: a file that blocks the open (a
    named pipe) or never ends (/dev/zero) fails the test at the timeout instead of hanging it."""
    done = subprocess.run([sys.executable, "-m", "sqlanon", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stderr.strip()


NOT_REGULAR = "sqlanon reads regular files only (a pipe or a device can block or never end)"


def small_job(tmp_path, hierarchy="h.csv", data="data.csv", extra=""):
    (tmp_path / "data.csv").write_text("x,y\na,1\nb,2\na,3\nb,4\n")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    path = tmp_path / "job.toml"
    path.write_text(
        f'[input]\npath = "{data}"\n[attributes.x]\nrole = "quasi"\nhierarchy = "{hierarchy}"\n'
        f'[attributes.y]\nrole = "insensitive"\n[privacy]\nk = 2\n{extra}[output]\npath = "out.csv"\nreport = "report.json"\n'
    )
    return path


def test_a_fifo_hierarchy_is_refused_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "h_fifo.csv")
    small_job(tmp_path, hierarchy="h_fifo.csv")
    code, err = cli(tmp_path, "anonymize", str(tmp_path / "job.toml"))
    assert code == 2
    assert err == (
        f"error: hierarchy file for attribute 'x' is not a regular file: {tmp_path / 'h_fifo.csv'} is a named "
        f"pipe (FIFO); {NOT_REGULAR}: save the content to a file and give that file's path"
    )
    assert not (tmp_path / "out.csv").exists()


def test_dev_zero_as_a_hierarchy_is_refused(tmp_path):
    small_job(tmp_path, hierarchy="/dev/zero")
    code, err = cli(tmp_path, "anonymize", str(tmp_path / "job.toml"))
    assert code == 2
    assert err.startswith(
        f"error: hierarchy file for attribute 'x' is not a regular file: /dev/zero is a character device; {NOT_REGULAR}"
    )


def test_a_folder_as_a_hierarchy_is_named_a_folder(tmp_path):
    (tmp_path / "hierarchies").mkdir()
    code, err = run(small_job(tmp_path, hierarchy="hierarchies"))
    assert code == 2
    assert "hierarchy file for attribute 'x' is not a regular file:" in err
    assert "hierarchies is a folder; give the path of a file in it" in err


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_a_fifo_input_is_named_a_pipe_not_missing(tmp_path, engine):
    os.mkfifo(tmp_path / "pipe.csv")
    small_job(tmp_path, data="pipe.csv", extra=f'[engine]\nname = "{engine}"\n')
    code, err = cli(tmp_path, "anonymize", str(tmp_path / "job.toml"))
    assert code == 3
    assert err.startswith(
        f"error: input file is not a regular file: {tmp_path / 'pipe.csv'} is a named pipe (FIFO); {NOT_REGULAR}"
    )
    assert "not found" not in err


def test_a_fifo_among_the_parquet_files_of_a_glob_is_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "parts").mkdir()
    pq.write_table(pa.table({"x": ["a", "b"], "y": ["1", "2"]}), tmp_path / "parts" / "p1.parquet")
    os.mkfifo(tmp_path / "parts" / "p2.parquet")
    small_job(tmp_path, data="parts/*.parquet")
    code, err = cli(tmp_path, "anonymize", str(tmp_path / "job.toml"))
    assert code == 3
    assert err.startswith(
        f"error: input file is not a regular file: {tmp_path / 'parts' / 'p2.parquet'} is a named pipe"
    )


@pytest.mark.parametrize("command", [["check", "pipe.csv", "--quasi", "x"], ["init", "pipe.csv"]])
def test_check_and_init_refuse_a_fifo_input(tmp_path, command):
    os.mkfifo(tmp_path / "pipe.csv")
    code, err = cli(tmp_path, *command)
    assert code == 3 and "input file is not a regular file:" in err and "is a named pipe (FIFO)" in err


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_a_special_job_file_is_refused(tmp_path, special):
    if special == "fifo":
        os.mkfifo(tmp_path / "job.toml")
    name = "job.toml" if special == "fifo" else special
    code, err = cli(tmp_path, "anonymize", name)
    assert code == 2
    kind = "a named pipe (FIFO)" if special == "fifo" else "a character device"
    assert err.startswith(f"error: job file is not a regular file: {name} is {kind}; {NOT_REGULAR}")


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_a_special_manifest_is_refused(tmp_path, special):
    small_job(tmp_path)
    if special == "fifo":
        os.mkfifo(tmp_path / "report.json")
    name = "report.json" if special == "fifo" else special
    code, err = cli(tmp_path, "apply", str(tmp_path / "job.toml"), "--manifest", name, "--output", "again.csv")
    assert code == 2
    assert err.startswith(f"error: manifest is not a regular file: {name} is ")
    assert not (tmp_path / "again.csv").exists()


def test_a_fifo_research_subset_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / "ids.csv")
    small_job(
        tmp_path, extra='[[privacy.models]]\ntype = "delta-presence"\ndmax = 0.9\nsubset_file = "ids.csv"\nkey = "y"\n'
    )
    code, err = cli(tmp_path, "anonymize", str(tmp_path / "job.toml"))
    assert code == 2
    assert err.startswith(
        f"error: delta-presence: subset_file is not a regular file: {tmp_path / 'ids.csv'} is a named pipe"
    )


@pytest.mark.parametrize(
    "name, limit, make",
    [
        ("JOB_LIMIT", 64, lambda tmp_path: small_job(tmp_path)),
        ("HIERARCHY_LIMIT", 5, lambda tmp_path: small_job(tmp_path)),
    ],
)
def test_files_read_whole_have_a_size_limit(tmp_path, monkeypatch, name, limit, make):
    monkeypatch.setattr(files, name, limit)
    path = make(tmp_path)
    code, err = run(path)
    assert code == 2
    what, file = ("job file", path) if name == "JOB_LIMIT" else ("hierarchy file for attribute 'x'", tmp_path / "h.csv")
    size = file.stat().st_size
    assert f"{what} {file} is too large: {size:,} bytes, more than the {limit:,} bytes sqlanon reads for one; " in err


def test_the_size_limits_are_stated_in_mib():
    assert (files.JOB_LIMIT, files.MANIFEST_LIMIT, files.HIERARCHY_LIMIT) == (10 << 20, 64 << 20, 512 << 20)


def test_a_manifest_above_its_size_limit_is_refused(tmp_path, monkeypatch):
    path = small_job(tmp_path)
    assert run(path)[0] == 0
    monkeypatch.setattr(files, "MANIFEST_LIMIT", 1000)
    result = CliRunner().invoke(
        main, ["apply", str(path), "--manifest", str(tmp_path / "report.json"), "--output", str(tmp_path / "again.csv")]
    )
    assert result.exit_code == 2
    assert f"manifest {tmp_path / 'report.json'} is too large: " in result.stderr
    assert (
        "more than the 1,000 bytes sqlanon reads for one; use the report.json of an anonymize run as it was written"
    ) in result.stderr


# -- the job file's text -------------------------------------------------------------------------


def test_a_job_file_with_a_utf8_byte_order_mark_runs(tmp_path):
    path = small_job(tmp_path)
    path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())
    code, err = run(path, "--k", "3")
    assert code == 0, err
    header, *rows = (tmp_path / "out.csv").read_text().splitlines()
    assert header == "x,y" and sorted(rows) == ["*,1", "*,2", "*,3", "*,4"]  # in a random order


@pytest.mark.parametrize(
    "encode, looks",
    [
        (lambda text: text.encode("utf-16"), "UTF-16: it starts with a UTF-16 byte-order mark"),
        (lambda text: text.encode("utf-16-le"), "UTF-16 without a byte-order mark: every other byte is 0"),
        (lambda text: text.encode("utf-16-be"), "UTF-16 without a byte-order mark: every other byte is 0"),
        (lambda text: b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "binary: a NUL byte at line 1, column 8"),
        (lambda text: gzip.compress(text.encode()), "gzip-compressed data"),
        (
            lambda text: text.replace("data.csv", "daté.csv").encode("latin-1"),
            "byte 0xe9 at line 2, column 12 is not UTF-8",
        ),
    ],
)
def test_a_job_file_not_in_utf8_is_named_so(tmp_path, encode, looks):
    path = small_job(tmp_path)
    path.write_bytes(encode(path.read_text()))
    code, err = run(path)
    assert code == 2
    assert err.strip() == f"error: the job file {path} is not UTF-8 text ({looks}): save it as UTF-8"


def test_a_manifest_saved_as_utf16_is_named_so(tmp_path):
    path = small_job(tmp_path)
    assert run(path)[0] == 0
    report = tmp_path / "report.json"
    report.write_bytes(report.read_text(encoding="utf-8").encode("utf-16"))
    result = CliRunner().invoke(
        main, ["apply", str(path), "--manifest", str(report), "--output", str(tmp_path / "a.csv")]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip() == (
        f"error: the manifest {report} is not UTF-8 text (UTF-16: it starts with a UTF-16 "
        "byte-order mark): save it as UTF-8"
    )


def test_a_file_swapped_for_a_pipe_after_its_check_is_refused_once_open(tmp_path, monkeypatch):
    """The stat and the open are two steps: the open does not block on a pipe, and what it opened
    is checked again."""
    os.mkfifo(tmp_path / "job.toml")
    monkeypatch.setattr(files, "regular_file", lambda *args, **kwargs: 0)  # as if it was a file at the check
    with pytest.raises(ConfigError, match=r"^job file is not a regular file: .*job.toml is a named pipe \(FIFO\)"):
        files.read_limited(str(tmp_path / "job.toml"), "job file", files.JOB_LIMIT, ConfigError, "")
