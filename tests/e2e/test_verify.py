"""The verification's own database: the job's DuckDB settings, closed in the background once
its figures are read; the same figures and the same errors as before, on ADULT and on small
hand-made files."""

import collections
import threading

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from helpers.jobs import ADULT_QIS, adult_job
from sqlanon import Output, anonymize
from sqlanon.engines.duckdb.engine import DuckDBEngine
from sqlanon.errors import VerificationError
from sqlanon.release import pipeline
from sqlanon.release.verify import _close_later, _connect, fresh_database, verify


def written_groups(path, qis):
    """The written file's groups, counted without DuckDB."""
    if str(path).endswith(".parquet"):
        table = pq.read_table(path, columns=qis)
    else:
        table = pacsv.read_csv(
            path,
            convert_options=pacsv.ConvertOptions(
                column_types={q: pa.string() for q in qis}, strings_can_be_null=False, include_columns=qis
            ),
        )
    return collections.Counter(zip(*(table.column(q).to_pylist() for q in qis)))


def join_closing():
    for t in threading.enumerate():
        if t.name == "sqlanon-verify-close":
            t.join()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_adult_verification_figures_are_the_files(tmp_path, adult_available, suffix):
    out = tmp_path / f"out{suffix}"
    result = anonymize(adult_job(k=50, suppression_limit=0.02, output=Output(path=str(out))))
    assert result.success and result.report["verified"]
    groups = written_groups(out, ADULT_QIS)
    masked = tuple("*" for _ in ADULT_QIS)
    suppressed = result.suppressed
    assert groups[masked] >= suppressed > 0  # the test covers a masked group
    rows = sum(groups.values())
    args = (Output(path=str(out)), ADULT_QIS, 50, rows, suppressed, int(0.02 * rows))
    report = verify(*args)
    assert report == verify(*args, config={"threads": 1, "memory_limit": "512MB", "temp_directory": None})
    # the figures, counted from the file with pyarrow
    sizes = collections.Counter(n - (suppressed if key == masked else 0) for key, n in groups.items())
    sizes.pop(0, None)
    assert report.class_sizes == sorted([size, count] for size, count in sizes.items())
    assert report.rows == rows == 30162
    assert report.groups == len(groups)
    assert report.min_group_size == min(n for n in groups.values() if n >= 50)
    assert report.suppressed_rows_found == sum(n for n in groups.values() if n < 50)
    assert report.masked_rows == groups[masked]


def test_a_corrupted_file_fails_with_the_same_messages(tmp_path):
    out = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"age": ["20s", "20s", "30s"], "sex": ["f", "f", "m"]}), out)
    with pytest.raises(VerificationError, match="NOT 2-anonymous: 1 released rows are in groups smaller than k"):
        verify(Output(path=str(out)), ["age", "sex"], 2, rows=3, suppressed=0, limit_rows=0, config={"threads": 1})
    pq.write_table(pa.table({"age": ["20s", "20s", "*"], "sex": ["f", "f", "*"]}), out)
    with pytest.raises(VerificationError, match="failed verification: 1 rows are suppressed, above the limit of 0"):
        verify(Output(path=str(out)), ["age", "sex"], 2, rows=3, suppressed=0, limit_rows=0)
    with pytest.raises(VerificationError, match="failed verification: it has 3 rows, expected 4"):
        verify(Output(path=str(out)), ["age", "sex"], 2, rows=4, suppressed=1, limit_rows=1)
    report = verify(Output(path=str(out)), ["age", "sex"], 2, rows=3, suppressed=1, limit_rows=1)
    assert report.class_sizes == [[2, 1]] and report.masked_rows == 1 and report.groups == 2


def test_the_verifying_database_takes_the_jobs_settings():
    con = _connect({"threads": 1, "memory_limit": "300MB", "temp_directory": None})
    try:
        threads, limit = con.execute("SELECT current_setting('threads'), current_setting('memory_limit')").fetchall()[0]
    finally:
        con.close()
    assert threads == 1
    assert limit.startswith("28") and limit.endswith("MiB")  # 300 MB = 286.1 MiB
    with pytest.raises(duckdb.Error, match="Memory must have a number"):
        _connect({"memory_limit": "plenty"})


def test_the_verifying_database_is_closed_in_the_background(tmp_path):
    out = tmp_path / "ok.csv"
    out.write_text("a\nx\nx\n")
    before = set(threading.enumerate())
    assert verify(Output(path=str(out)), ["a"], 2, rows=2, suppressed=0, limit_rows=0).rows == 2
    closing = [t for t in set(threading.enumerate()) - before if t.name == "sqlanon-verify-close"]
    assert all(not t.daemon for t in closing)  # the interpreter waits for them at exit
    join_closing()
    con = duckdb.connect()
    _close_later(con)
    join_closing()
    with pytest.raises(duckdb.ConnectionException, match="closed"):
        con.execute("SELECT 1")


def test_the_database_made_before_the_write_reads_only_the_written_file(tmp_path):
    """``fresh_database`` is made before the output exists (as ``anonymize`` does, before its
    write), then verifies the file written afterwards exactly as a database made then would,
    and is closed once read; a PostgreSQL table gets none (it is read over its own connection)."""
    out = tmp_path / "late.parquet"
    database = fresh_database(Output(path=str(out)), {"threads": 1})
    assert database.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)]  # new and empty
    pq.write_table(pa.table({"age": ["20s", "20s", "*"], "sex": ["f", "f", "*"]}), out)
    early = verify(Output(path=str(out)), ["age", "sex"], 2, rows=3, suppressed=1, limit_rows=1, database=database)
    assert early == verify(Output(path=str(out)), ["age", "sex"], 2, rows=3, suppressed=1, limit_rows=1)
    join_closing()
    with pytest.raises(duckdb.ConnectionException, match="closed"):
        database.execute("SELECT 1")
    assert fresh_database(Output(table="public.released")) is None


def test_a_failed_write_closes_the_verifying_database(tmp_path, monkeypatch):
    made = []

    def spy(output, config=None):
        made.append(fresh_database(output, config))
        return made[-1]

    def failing_write(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pipeline, "fresh_database", spy)
    job = adult_job(["age", "sex"], k=5, output=Output(path=str(tmp_path / "out.csv")))
    monkeypatch.setattr(DuckDBEngine, "write", failing_write)
    with pytest.raises(OSError, match="disk full"):
        anonymize(job)
    assert len(made) == 1
    with pytest.raises(duckdb.ConnectionException, match="closed"):
        made[0].execute("SELECT 1")
    assert not (tmp_path / "out.csv").exists()
