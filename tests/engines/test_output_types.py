"""Released non-QI columns keep their type and value exactly on every engine.

One small table (a QI and insensitive / sensitive columns of type numeric(30, 10), timestamp,
timestamptz, date, boolean, bigint and text, with NULLs, values beyond 2^53 and non-ASCII text)
is anonymized by each engine to Parquet and to CSV: DuckDB and the memory engine and Spark read
it as a Parquet file, PostgreSQL as a table of the matching types. The Parquet output's Arrow
schema and values equal the input's and DuckDB's output; the CSV output is DuckDB's byte for
byte (the memory engine, PostgreSQL and Spark write it with DuckDB's own CSV writer)."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import replace
from decimal import Decimal

import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers.jobs import ENGINE_NAMES
from helpers.pg import _ordered_table, load_arrow

from sqlanon import Attribute, Hierarchy, Job, Output, Source, anonymize
from sqlanon.errors import DataError

ROWS = 30
BIG = Decimal("12345678901234567891.0123456789")


def _table() -> pa.Table:
    zips = ["20000" if i == 0 else f"1000{i % 3}" for i in range(ROWS)]  # row 0's class is suppressed
    return pa.table(
        {
            "zip": pa.array(zips, pa.string()),
            "amount": pa.array(
                [BIG if i == 1 else None if i == 5 else Decimal(i) / 4 - 2 for i in range(ROWS)], pa.decimal128(30, 10)
            ),
            "seen": pa.array(
                [
                    None
                    if i == 6
                    else dt.datetime(2020, 1, 31, 12, 34, 56, [0, 100000, 123456][i % 3])
                    + dt.timedelta(days=i, hours=i)
                    for i in range(ROWS)
                ],
                pa.timestamp("us"),
            ),
            "seen_utc": pa.array(
                [dt.datetime(1999, 12, 31, 23, 59, 59, 5 * i, tzinfo=dt.timezone.utc) for i in range(ROWS)],
                pa.timestamp("us", tz="UTC"),
            ),
            "born": pa.array(
                [None if i == 7 else dt.date(1900 + 4 * i, 1 + i % 12, 1 + i % 28) for i in range(ROWS)], pa.date32()
            ),
            "flag": pa.array([None if i == 8 else i % 2 == 0 for i in range(ROWS)], pa.bool_()),
            "big": pa.array(
                [None if i == 9 else 2**53 + i if i % 2 else -(2**62) - i for i in range(ROWS)], pa.int64()
            ),
            "note": pa.array(
                [None if i == 3 else 'Zürich, "ß" 東京' if i == 4 else "" if i == 10 else f"n{i}" for i in range(ROWS)],
                pa.string(),
            ),
        }
    )


TABLE = _table()
NON_QI = TABLE.column_names[1:]
HIERARCHY = [[z, z[:4] + "*", "*"] for z in sorted(set(TABLE.column("zip").to_pylist()))]


def _job(source: Source, engine: str, path, drop=()) -> Job:
    attributes = [Attribute("zip", "quasi", Hierarchy.from_rows("zip", HIERARCHY)), Attribute("note", "sensitive")]
    attributes += [Attribute(n, "insensitive") for n in NON_QI if n not in ("note", *drop)]
    return Job(
        input=replace(source, drop=tuple(drop)),
        attributes=attributes,
        engine=engine,
        k=2,
        suppression_limit=0.1,
        output=Output(path=str(path), order="input"),
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("typed")
    pq.write_table(TABLE, folder / "typed.parquet")
    return folder


def _source(engine: str, folder, request) -> Source:
    if engine == "postgres":
        url = request.getfixturevalue("postgres_url")
        return Source(table=load_arrow(url, "public.typed_output", TABLE))
    if engine == "spark":
        request.getfixturevalue("spark")
    return Source(path=str(folder / "typed.parquet"))


def _released(engine: str, fmt: str, folder, request, drop=()):
    path = folder / f"{engine}-{'-'.join(drop)}.{fmt}"
    if not path.exists():
        result = anonymize(_job(_source(engine, folder, request), engine, path, drop))
        assert result.success and result.report["verified"] and result.suppressed == 1
    return path


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_parquet_keeps_every_type_and_value(engine, inputs, request):
    written = pq.read_table(_released(engine, "parquet", inputs, request))
    reference = pq.read_table(_released("duckdb", "parquet", inputs, request))
    assert written.schema.field("amount").type == pa.decimal128(30, 10)
    for name in NON_QI:  # the input's type and values, exactly
        assert written.schema.field(name).type == TABLE.schema.field(name).type, name
        assert written.column(name).to_pylist() == TABLE.column(name).to_pylist(), name
    assert written.column("amount")[1].as_py() == BIG and written.column("big")[1].as_py() == 2**53 + 1
    assert written.column("zip").to_pylist() == ["*"] + TABLE.column("zip").to_pylist()[1:]
    # DuckDB marks a column without NULLs "required" in the file; nullability aside, the same
    assert [(f.name, f.type) for f in written.schema] == [(f.name, f.type) for f in reference.schema]
    assert written.to_pylist() == reference.to_pylist()


@pytest.mark.parametrize("engine", ["memory", "postgres", "spark"])
def test_csv_is_duckdbs_byte_for_byte(engine, inputs, request):
    written = _released(engine, "csv", inputs, request).read_bytes()
    assert written == _released("duckdb", "csv", inputs, request).read_bytes()
    lines = written.decode("utf-8").splitlines()
    assert lines[0] == "zip,amount,seen,seen_utc,born,flag,big,note"
    assert (
        lines[1] == "*,-2.0000000000,2020-01-31 12:34:56,1999-12-31 23:59:59+00,1900-01-01,true,-4611686018427387904,n0"
    )
    assert lines[2] == (
        "10001,12345678901234567891.0123456789,2020-02-01 13:34:56.1,1999-12-31 23:59:59.000005+00,"
        "1904-02-02,false,9007199254740993,n1"
    )
    assert (
        lines[5] == "10001,-1.0000000000,2020-02-04 16:34:56.1,1999-12-31 23:59:59.00002+00,1916-05-05,true,"
        '-4611686018427387908,"Zürich, ""ß"" 東京"'
    )
    assert lines[11].endswith(',""') and lines[4].endswith(",")  # '' and NULL stay apart


# -- PostgreSQL types beyond the shared table ---------------------------------------------------
EXTRA = pa.table(
    {
        "zip": pa.array(["10000", "10001"] * 4),
        "ratio": pa.array([0.1, 1e20, 123456789.0, None, 1.5, -0.0, 3.4e38, 1e-7], pa.float32()),
        "at": pa.array(
            [
                dt.time(1, 2, 3),
                dt.time(1, 2, 3, 500),
                None,
                dt.time(0),
                dt.time(23, 59, 59, 999999),
                dt.time(12),
                dt.time(0, 0, 0, 10),
                dt.time(6, 30),
            ],
            pa.time64("us"),
        ),
        "small": pa.array([1, -32768, 32767, None, 0, 5, 6, 7], pa.int16()),
    }
)


def _extra_job(source: Source, engine: str, path) -> Job:
    attributes = [Attribute("zip", "quasi", Hierarchy.from_rows("zip", [["10000", "*"], ["10001", "*"]]))]
    attributes += [Attribute(n, "insensitive") for n in source_columns(source) if n != "zip"]
    return Job(input=source, attributes=attributes, engine=engine, k=2, output=Output(path=str(path), order="input"))


def source_columns(source: Source) -> list[str]:
    return EXTRA.column_names if source.path else EXTRA.column_names + ["plain", "wide", "doc", "span", "id"]


@pytest.fixture(scope="module")
def extra_table(postgres_url):
    """EXTRA plus columns of types DuckDB's Parquet has no twin for: numeric without a precision
    or wider than 38 digits (written as decimal128(38, s)), jsonb, interval, uuid (as their text)."""
    columns = [
        ("zip", "text"),
        ("ratio", "real"),
        ("at", "time"),
        ("small", "smallint"),
        ("plain", "numeric"),
        ("wide", "numeric(50, 5)"),
        ("doc", "jsonb"),
        ("span", "interval"),
        ("id", "uuid"),
    ]
    extra = ["123456789012345678901234567890.12345", '{"a": [1, 2.50]}', "1 day 02:03:04.5", str(uuid.UUID(int=7))]

    def feed(writer):
        for i, row in enumerate(zip(*(column.to_pylist() for column in EXTRA.columns))):
            writer.write_row([*row, "1.5" if i % 2 == 0 else "-0.000001", *extra])

    return _ordered_table(postgres_url, "public.typed_extra", columns, "", feed)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_postgres_real_time_smallint_as_duckdb(fmt, extra_table, tmp_path):
    pq.write_table(EXTRA, tmp_path / "extra.parquet")
    anonymize(_extra_job(Source(path=str(tmp_path / "extra.parquet")), "duckdb", tmp_path / f"duckdb.{fmt}"))
    anonymize(_extra_job(Source(table=extra_table), "postgres", tmp_path / f"postgres.{fmt}"))
    if fmt == "csv":
        reference = (tmp_path / f"duckdb.{fmt}").read_text().splitlines()
        written = (tmp_path / f"postgres.{fmt}").read_text().splitlines()
        assert [line.split(",")[:4] for line in written] == [line.split(",") for line in reference]
        assert reference[1:3] == ["10000,0.1,01:02:03,1", "10001,1e+20,01:02:03.0005,-32768"]
        assert [line.split(",", 4)[4] for line in written[1:3]] == [
            '1.500000,123456789012345678901234567890.12345,"{""a"": [1, 2.50]}",1 day 02:03:04.5,'
            "00000000-0000-0000-0000-000000000007",
            '-0.000001,123456789012345678901234567890.12345,"{""a"": [1, 2.50]}",1 day 02:03:04.5,'
            "00000000-0000-0000-0000-000000000007",
        ]
        return
    written = pq.read_table(tmp_path / f"postgres.{fmt}")
    reference = pq.read_table(tmp_path / f"duckdb.{fmt}")
    assert [(f.name, f.type) for f in written.schema][:4] == [(f.name, f.type) for f in reference.schema]
    assert written.select(EXTRA.column_names).to_pylist() == reference.to_pylist()
    for name in EXTRA.column_names[1:]:
        assert written.schema.field(name).type == EXTRA.schema.field(name).type, name
        assert written.column(name).to_pylist() == EXTRA.column(name).to_pylist(), name
    assert written.schema.field("plain").type == pa.decimal128(38, 6)
    assert written.column("plain").to_pylist() == [Decimal("1.5"), Decimal("-0.000001")] * 4
    assert written.schema.field("wide").type == pa.decimal128(38, 5)
    assert written.column("wide")[0].as_py() == Decimal("123456789012345678901234567890.12345")
    assert (
        written.column("doc").to_pylist()[0] == '{"a": [1, 2.50]}' and written.schema.field("doc").type == pa.string()
    )
    assert written.column("span")[0].as_py() == "1 day 02:03:04.5"
    assert written.column("id")[0].as_py() == "00000000-0000-0000-0000-000000000007"


@pytest.mark.parametrize(
    "value, message",
    [
        ("'NaN'", r"column 'plain' \(numeric\) holds NaN or Infinity.*NULL"),
        (
            "1e40",
            r"column 'plain' \(numeric\) holds values of 41 digits before the point and up to 0 after it.*at most 38",
        ),
    ],
)
def test_postgres_refuses_a_numeric_no_decimal_holds(value, message, postgres_url, tmp_path):
    table = load_arrow(postgres_url, "public.typed_refused", EXTRA.select(["zip"]))
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute(f"ALTER TABLE {table} ADD plain numeric")
        con.execute(f"UPDATE {table} SET plain = {value} WHERE zip = '10000'")
    attributes = [
        Attribute("zip", "quasi", Hierarchy.from_rows("zip", [["10000", "*"], ["10001", "*"]])),
        Attribute("plain", "insensitive"),
    ]
    job = Job(
        input=Source(table=table),
        attributes=attributes,
        engine="postgres",
        k=2,
        output=Output(path=str(tmp_path / "out.parquet")),
    )
    with pytest.raises(DataError, match=message):
        anonymize(job)
    assert list(tmp_path.iterdir()) == []


def test_postgres_refuses_nan_in_a_typed_numeric(postgres_url, tmp_path):
    table = load_arrow(postgres_url, "public.typed_nan", EXTRA.select(["zip"]))
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute(f"ALTER TABLE {table} ADD price numeric(10, 2)")
        con.execute(f"UPDATE {table} SET price = CASE WHEN zip = '10000' THEN 'NaN' ELSE 2.5 END")
    attributes = [
        Attribute("zip", "quasi", Hierarchy.from_rows("zip", [["10000", "*"], ["10001", "*"]])),
        Attribute("price", "insensitive"),
    ]
    job = Job(
        input=Source(table=table),
        attributes=attributes,
        engine="postgres",
        k=2,
        output=Output(path=str(tmp_path / "out.csv")),
    )
    with pytest.raises(DataError, match=r"column 'price' \(decimal128\(10, 2\)\): cannot write NaN.*NULL"):
        anonymize(job)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_spark_keeps_the_types_of_an_arrow_input(inputs, request):
    """A pyarrow Table reaches Spark through the driver: a timestamp without a zone stays one."""
    request.getfixturevalue("spark")
    assert anonymize(_job(Source(arrow=TABLE), "spark", inputs / "spark-arrow.parquet")).success
    written = pq.read_table(inputs / "spark-arrow.parquet")
    assert [(f.name, f.type) for f in written.schema][1:] == [(f.name, f.type) for f in TABLE.schema][1:]
    assert written.select(NON_QI).to_pylist() == TABLE.select(NON_QI).to_pylist()


# -- every input kind: a released column keeps its type, its NULLs and its time zone -----------------
ZIPS = [["10000", "*"], ["10001", "*"]]
BERLIN = [dt.datetime(2021, 3, 28, 0, 30, tzinfo=dt.timezone.utc) + dt.timedelta(hours=h) for h in range(4)]


def _rows(table: pa.Table) -> list[tuple]:
    """The rows in an order of their own (the output's row order is not the input's)."""
    return sorted((tuple(row.values()) for row in table.to_pylist()), key=lambda row: [(v is not None, v) for v in row])


def _kept(engine: str, source: Source, path, request, names) -> None:
    if engine == "spark":
        request.getfixturevalue("spark")
    attributes = [Attribute("zip", "quasi", Hierarchy.from_rows("zip", ZIPS))] + [
        Attribute(n, "insensitive") for n in names
    ]
    result = anonymize(Job(input=source, attributes=attributes, engine=engine, k=2, output=Output(path=str(path))))
    assert result.success and result.report["verified"] and result.levels == {"zip": 0}


@pytest.mark.parametrize("engine", ["duckdb", "memory", "spark"])  # PostgreSQL reads no CSV
def test_a_quoted_empty_csv_field_stays_an_empty_string(engine, tmp_path, request):
    (tmp_path / "in.csv").write_text('zip,note,kept\n10000,"",a\n10001,,b\n10000,x,""\n10001,"y",\n')
    _kept(engine, Source(path=str(tmp_path / "in.csv")), tmp_path / "out.csv", request, ["note", "kept"])
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "zip,note,kept"
    assert sorted(lines[1:]) == ['10000,"",a', '10000,x,""', "10001,,b", "10001,y,"]
    _kept(engine, Source(path=str(tmp_path / "in.csv")), tmp_path / "out.parquet", request, ["note", "kept"])
    written = pq.read_table(tmp_path / "out.parquet")
    assert _rows(written) == [("10000", "", "a"), ("10000", "x", ""), ("10001", None, "b"), ("10001", "y", None)]


@pytest.mark.parametrize("engine", ["duckdb", "memory", "spark"])
def test_parquet_keeps_a_time_zone_and_large_strings(engine, tmp_path, request):
    table = pa.table(
        {
            "zip": ["10000", "10001"] * 2,
            "at": pa.array([*BERLIN[:3], None], pa.timestamp("us", tz="Europe/Berlin")),
            "text": pa.array(["a", "", None, "d"], pa.large_string()),
        }
    )
    pq.write_table(table, tmp_path / "in.parquet")
    _kept(engine, Source(path=str(tmp_path / "in.parquet")), tmp_path / "out.parquet", request, ["at", "text"])
    written = pq.read_table(tmp_path / "out.parquet")
    assert _rows(written) == _rows(table)  # the same instants and strings everywhere
    if engine == "spark":  # Spark's writer knows no zone names and one string type (README, "Anonymize with Spark")
        assert (written.schema.field("at").type, written.schema.field("text").type) == (
            pa.timestamp("us", "UTC"),
            pa.string(),
        )
        return
    assert [(f.name, f.type) for f in written.schema] == [
        ("zip", pa.string()),
        *((f.name, f.type) for f in list(table.schema)[1:]),
    ]


def _pandas():
    import pandas as pd

    return pd.DataFrame(
        {
            "zip": ["10000", "10001"] * 3,
            "count": pd.array([1, None, 3, 2**60 + 1, -5, 6], dtype="Int64"),
            "flag": pd.array([True, None, False, True, False, True], dtype="boolean"),
            "text": pd.array(["a", None, "", "d", "é", "f"], dtype="string[pyarrow]"),
            "at": pd.to_datetime(
                [
                    "2021-03-28 01:30:00.000000001",
                    None,
                    "2021-03-28 03:30",
                    "2021-10-31 02:30",
                    "2021-10-31 03:30",
                    "2020-02-29 12:00",
                ],
                format="ISO8601",
            ).tz_localize("Europe/Berlin", ambiguous=True),
        }
    )


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_pandas_gets_its_dtypes_and_values_back(engine):
    import pandas as pd

    frame = _pandas()
    released = anonymize(frame, quasi={"zip": ZIPS}, k=2, others="insensitive", engine=engine).table
    assert released.dtypes.to_dict() == frame.dtypes.to_dict()
    pd.testing.assert_frame_equal(
        released.sort_values(["zip", "at"]).reset_index(drop=True),
        frame.sort_values(["zip", "at"]).reset_index(drop=True),
    )


def test_pandas_through_spark_gets_its_dtypes_back(spark):
    frame = _pandas().drop(columns="at")  # Spark holds microseconds: a nanosecond would not survive
    released = anonymize(frame, quasi={"zip": ZIPS}, k=2, others="insensitive", engine="spark").table
    assert released.dtypes.to_dict() == frame.dtypes.to_dict()
    assert _rows(pa.Table.from_pandas(released)) == _rows(pa.Table.from_pandas(frame))


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_polars_keeps_its_time_zone(engine):
    import polars as pl

    frame = pl.DataFrame({"zip": ["10000", "10001"] * 2, "at": [*BERLIN[:3], None]}).with_columns(
        pl.col("at").dt.convert_time_zone("Europe/Berlin")
    )
    released = anonymize(frame, quasi={"zip": ZIPS}, k=2, others="insensitive", engine=engine).table
    assert released.schema == frame.schema and released.schema["at"] == pl.Datetime("us", "Europe/Berlin")
    assert released.sort("zip", "at").equals(frame.sort("zip", "at"))
