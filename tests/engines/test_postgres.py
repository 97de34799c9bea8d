"""The postgres engine's own behaviour on a real server (tests/helpers/pg.py): connection and
configuration errors, the output table (atomic, never clobbered, verified), the refusals of
the engines that cannot read a PostgreSQL table. Its results against DuckDB's are in
test_engines.py, which runs on every engine."""

from __future__ import annotations

from dataclasses import replace
import json

import duckdb
import psycopg
import pyarrow as pa
import pytest
from click.testing import CliRunner
from helpers.jobs import ADULT, adult_job
from helpers.pg import load_arrow, load_csv

from sqlanon import Attribute, Hierarchy, Job, Output, Source, anonymize
from sqlanon.cli.commands import main
from sqlanon.errors import ConfigError, DataError, OutputError
from sqlanon.release import Protected, Publication
from sqlanon.session import Session
from sqlanon.config.validate import validate

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def adult_table(postgres_url, adult_available):
    return load_csv(postgres_url, "public.adult", ADULT / "adult.csv", ";")


def pg_job(table="public.adult", **kwargs) -> Job:
    job = adult_job(QIS, engine="postgres", **kwargs)
    job = replace(job, input=Source(table=table))
    return job


def rows_of(url, table, order="1"):
    with psycopg.connect(url) as con:
        return con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()


def exists(url, table) -> bool:
    with psycopg.connect(url) as con:
        return con.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0]


# -- connection and configuration -------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "postgresql://me:s3cret@127.0.0.1:5432/db",
        "postgresql://me@127.0.0.1/db?password=s3cret",
        "host=127.0.0.1 user=me password=s3cret",
    ],
)
def test_a_password_in_the_job_is_refused(url):
    with pytest.raises(ConfigError) as error:
        validate(pg_job(engine_settings={"url": url}))
    assert "PGPASSWORD" in str(error.value) and ".pgpass" in str(error.value)
    assert "s3cret" not in str(error.value)


def test_a_failed_connection_says_where_but_not_the_password(monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "s3cret")
    with pytest.raises(DataError) as error:
        Session(pg_job(engine_settings={"url": "postgresql://nobody@127.0.0.1:1/nowhere"}))
    message = str(error.value)
    assert "host=127.0.0.1 port=1 dbname=nowhere user=nobody" in message and "PGHOST" in message
    assert "s3cret" not in message


def test_an_unknown_table_lists_the_tables(adult_table):
    with pytest.raises(DataError, match=r"has no table public\.nope; tables: .*public\.adult"):
        Session(pg_job("public.nope"))


@pytest.mark.parametrize("name", ["a.b.c", "", ".x"])
def test_a_malformed_table_name_is_refused(name, postgres_url):
    with pytest.raises(ConfigError, match=r'input.table must be a PostgreSQL table as "schema.table"'):
        Session(pg_job(name))


def test_files_are_refused_naming_the_engine_that_reads_them():
    job = adult_job(QIS, engine="postgres")
    with pytest.raises(
        ConfigError, match=r'postgres engine does not handle csv files .*handles postgres.*name = "duckdb"'
    ):
        validate(job)


def test_memory_refuses_a_postgres_table():
    job = adult_job(QIS, engine="memory")
    job = replace(job, input=Source(table="public.adult"))
    with pytest.raises(ConfigError, match=r'memory engine does not handle postgres tables.*name = "postgres"'):
        validate(job)


def test_duckdb_cannot_read_postgres_here_and_names_the_alternative(adult_table):
    """DuckDB 2.0.0's wheel has no postgres extension, INSTALL cannot download one, and the
    PyPI packages of the extension stop at DuckDB 1.5.5 (they refuse to load into 2.0.0)."""
    job = adult_job(QIS, engine="duckdb")
    job = replace(job, input=Source(table="public.adult"))
    with pytest.raises(ConfigError) as error:
        Session(job)
    assert 'use [engine] name = "postgres"' in str(error.value) and duckdb.__version__ in str(error.value)


def test_duckdb_refuses_a_postgres_output_table():
    job = adult_job(QIS, output=Output(table="public.out"))
    with pytest.raises(ConfigError, match=r'duckdb engine does not handle postgres tables.*name = "postgres"'):
        validate(job)


# -- the output table -------------------------------------------------------------------------
def test_output_table_equals_duckdbs_output_and_is_verified(postgres_url, adult_table, tmp_path):
    result = anonymize(pg_job(k=5, suppression_limit=0.02, output=Output(table="public.released")))
    assert (
        result.success and result.report["verified"] and result.report["output"] == "PostgreSQL table public.released"
    )
    reference = anonymize(adult_job(QIS, k=5, suppression_limit=0.02, output=Output(path=str(tmp_path / "r.csv"))))
    assert (result.levels, result.suppressed, result.loss) == (reference.levels, reference.suppressed, reference.loss)
    with psycopg.connect(postgres_url) as con:
        written = con.execute("SELECT * FROM public.released").fetchall()
    expected = (
        duckdb.connect()
        .execute("SELECT * FROM read_csv($p, header = true, all_varchar = true)", {"p": str(tmp_path / "r.csv")})
        .fetchall()
    )
    assert sorted(written) == sorted(expected) and len(written) == 30162
    assert sum(1 for row in written if row[0] == "*") == result.suppressed


def test_the_output_table_is_shuffled_as_duckdb_shuffles(postgres_url, adult_table, tmp_path):
    """The table's rows, as a plain SELECT returns them (the order they were written in): for
    a seed, DuckDB's release row for row (both hash the same input positions); without one,
    the same rows in another order; with order = "input", DuckDB's in input order."""

    def both(name, **order):
        result = anonymize(
            pg_job(k=5, suppression_limit=0.02, output=Output(table="public.ordered", overwrite=True, **order))
        )
        assert result.success and result.report["verified"]
        with psycopg.connect(postgres_url) as con:
            written = con.execute("SELECT * FROM public.ordered").fetchall()
        path = str(tmp_path / f"{name}.csv")
        assert anonymize(adult_job(QIS, k=5, suppression_limit=0.02, output=Output(path=path, **order))).success
        return written, duckdb.connect().execute(
            "SELECT * FROM read_csv($p, header = true, all_varchar = true)", {"p": path}
        ).fetchall()

    seeded, duck_seeded = both("seeded", seed=9)
    assert seeded == duck_seeded
    fresh, duck_fresh = both("fresh")
    assert fresh != seeded and fresh != duck_fresh and sorted(fresh) == sorted(seeded) == sorted(duck_fresh)
    in_order, duck_in_order = both("input", order="input")
    assert in_order == duck_in_order != seeded


def test_an_existing_table_is_not_clobbered_without_overwrite(postgres_url, adult_table):
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS public.taken")
        con.execute("CREATE TABLE public.taken AS SELECT 1 AS x")
    with pytest.raises(
        OutputError, match=r"table public\.taken already exists in PostgreSQL: pass overwrite=True"
    ):  # a job built in code
        anonymize(pg_job(k=5, output=Output(table="public.taken")))
    assert rows_of(postgres_url, "public.taken") == [(1,)]
    result = anonymize(pg_job(k=5, output=Output(table="public.taken", overwrite=True)))
    assert result.success and len(rows_of(postgres_url, "public.taken")) == 30162


def test_the_input_table_is_never_the_output(adult_table):
    with pytest.raises(OutputError, match="is the input table"):
        anonymize(pg_job(k=5, output=Output(table="public.adult", overwrite=True)))


def test_a_failure_while_writing_leaves_no_table(postgres_url, adult_table):
    # The writer creates the temporary table, then fails: neither it nor the target remains.
    with pytest.raises(RuntimeError, match="disk on fire"):
        with Publication(Protected(), url=postgres_url) as publication:
            publication.reserve_output(Output(table="public.half"), Source(table="public.adult"))
            temp = publication.output_target
            with psycopg.connect(postgres_url, autocommit=True) as con:
                con.execute(f"CREATE TABLE {temp} AS SELECT 1 AS x")
            assert exists(postgres_url, temp)
            raise RuntimeError("disk on fire")
    assert not exists(postgres_url, temp) and not exists(postgres_url, "public.half")
    # The database refuses the write itself (no such schema): an OutputError, and no table.
    with pytest.raises(OutputError, match=r"cannot write output PostgreSQL table nowhere\.half"):
        anonymize(pg_job(k=5, output=Output(table="nowhere.half")))
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT count(*) FROM pg_class WHERE relname LIKE '%%sqlanon_tmp%%'").fetchone()[0] == 0


def test_an_output_table_is_published_with_the_report_or_not_at_all(postgres_url, adult_table, tmp_path, read_only):
    # The report cannot be written (read-only folder): the verified table is not kept either.
    job = pg_job(k=5, output=Output(table="public.with_report", report=str(tmp_path / "report.json")))
    with read_only(tmp_path), pytest.raises(OutputError, match="cannot write the report"):
        anonymize(job)
    assert not exists(postgres_url, "public.with_report")
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT count(*) FROM pg_class WHERE relname LIKE '%%sqlanon_tmp%%'").fetchone()[0] == 0
    assert anonymize(job).success and exists(postgres_url, "public.with_report")


def test_two_runs_never_write_one_output_table_at_once(postgres_url, adult_table):
    """The output table is locked (PostgreSQL's advisory lock) from the reservation to the end:
    a second publication on it is refused at once, naming the first one's backend; once the
    first ends, the lock is free again."""
    output, source = Output(table="public.locked_out"), Source(table="public.adult")
    with Publication(Protected(), url=postgres_url) as first:
        first.reserve_output(output, source)
        with pytest.raises(
            OutputError,
            match=r"the output table public.locked_out is being written by another "
            r"sqlanon run \(PostgreSQL backend \d+\)",
        ):
            Publication(Protected(), url=postgres_url).reserve_output(output, source)
    with Publication(Protected(), url=postgres_url) as again:
        again.reserve_output(output, source)


def test_temp_tables_are_gone_after_close(postgres_url, adult_table):
    with Session(pg_job()) as session:
        session.search("flash", k=5)
        with psycopg.connect(postgres_url) as con:
            during = con.execute(
                "SELECT count(*) FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'sqlanon%%'"
            ).fetchone()[0]
    with psycopg.connect(postgres_url) as con:
        after = con.execute("SELECT count(*) FROM pg_class WHERE relpersistence = 't'").fetchone()[0]
    assert during >= 5 and after == 0


def test_the_class_table_arrives_as_arrow_equal_to_its_rows(adult_table):
    """Local checks fetch the class table through COPY into Arrow: the same values as the
    rows, each column in its PostgreSQL type's Arrow twin; NULL, floats and an empty
    result too; text still goes as rows."""
    with Session(pg_job(checks="local")) as session:
        engine = session.engine
        sql = 'SELECT * FROM "sqlanon_classes" ORDER BY 1, 2, 3, 4, 5'
        fetched = engine._arrow(sql, {})
        names, rows = engine._query(sql, {})
        assert fetched.column_names == names and fetched.num_rows == session.prepared.base_classes > 1000
        assert list(zip(*(column.to_pylist() for column in fetched.columns))) == rows
        assert fetched.schema.field("n").type == pa.int64() and fetched.schema.field("q0").type == pa.int32()
        assert engine.class_table_bytes > 0
        mixed = engine._arrow(
            "SELECT CAST(NULL AS integer) AS a, CAST(1.5 AS float8) AS b, CAST(7 AS smallint) AS c "
            "UNION ALL SELECT -2, NULL, NULL",
            {},
        )
        assert mixed.to_pydict() == {"a": [None, -2], "b": [1.5, None], "c": [7, None]}
        assert mixed.schema.types == [pa.int32(), pa.float64(), pa.int16()]
        empty = engine._arrow('SELECT "n" FROM "sqlanon_classes" WHERE "n" < 0', {})
        assert empty.num_rows == 0 and empty.schema.types == [pa.int64()]
        text = engine._arrow("SELECT '' AS t UNION ALL SELECT NULL", {})
        assert text.column("t").to_pylist() == ["", None]


# -- values -----------------------------------------------------------------------------------
def test_typed_columns_match_their_postgresql_text(postgres_url, tmp_path):
    """An integer, a boolean and a date column as QIs (matched by PostgreSQL's text of them),
    a float released unchanged, and a column whose name holds a '%' (psycopg's placeholder sign)."""
    import datetime

    data = pa.table(
        {
            "num": [1, 2, 2, 3, None, 1, 3, 2],
            "b": [True, False] * 4,
            "d": [datetime.date(2020, 1, 1 + i % 3) for i in range(8)],
            "rate %": ["x", "y"] * 4,
            "keep": [1.5, None, 3.25, 4.0, 5.0, 6.0, 7.0, 8.0],
        }
    )
    load_arrow(postgres_url, "public.typed", data)
    hierarchies = {
        "num": ["1", "2", "3", ""],
        "b": ["true", "false"],
        "d": ["2020-01-01", "2020-01-02", "2020-01-03"],
        "rate %": ["x", "y"],
    }
    attributes = [
        Attribute(n, "quasi", Hierarchy.from_rows(n, [[v, "*"] for v in values])) for n, values in hierarchies.items()
    ]
    job = Job(
        input=Source(table="public.typed"),
        attributes=[*attributes, Attribute("keep", "insensitive")],
        k=2,
        suppression_limit=0.5,
        engine="postgres",
        output=Output(path=str(tmp_path / "out.parquet"), order="input"),
    )
    result = anonymize(job)
    assert result.success and result.report["verified"]
    written = pa.parquet.read_table(str(tmp_path / "out.parquet"))
    assert written.column_names == ["num", "b", "d", "rate %", "keep"]
    assert written.schema.field("keep").type == pa.float64()
    assert written.column("keep").to_pylist() == [1.5, None, 3.25, 4.0, 5.0, 6.0, 7.0, 8.0]


# -- a job file ---------------------------------------------------------------------------------
def test_a_job_file_anonymizes_inside_postgresql(postgres_url, adult_table, tmp_path):
    hierarchies = {q: str(ADULT / f"adult_hierarchy_{q}.csv") for q in QIS}
    attributes = "".join(
        f'[attributes."{q}"]\nrole = "quasi"\nhierarchy = "{path}"\n' for q, path in hierarchies.items()
    )
    rest = "".join(
        f'[attributes."{c}"]\nrole = "insensitive"\n'
        for c in ["native-country", "workclass", "occupation", "salary-class"]
    )
    (tmp_path / "job.toml").write_text(
        f'[input]\ntable = "public.adult"\n{attributes}{rest}[privacy]\nk = 5\nsuppression_limit = 0.02\n'
        f'[engine]\nname = "postgres"\nurl = "{postgres_url}"\n[output]\ntable = "public.from_job"\nreport = "report.json"\n'
    )
    result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "job.toml"), "--overwrite"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["engine"] == "postgres" and report["verified"] and report["input"] == "PostgreSQL table public.adult"
    assert len(rows_of(postgres_url, "public.from_job")) == 30162
