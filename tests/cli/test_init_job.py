"""``sqlanon init``: one query however wide the input, and the suggested role, builder and type
of each kind of column, in the job as written, parsed, and (uncommented) run."""

from __future__ import annotations

import csv
import datetime
import re
import tomllib

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sqlanon
from helpers.init_jobs import WIDE_KINDS, run_init, uncomment, write_wide_csv
from helpers.jobs import ADULT
from sqlanon.cli.column_profile import LISTED, profile
from sqlanon.core.specs import Source


def entry(text: str, name: str) -> str:
    """The block ``init`` wrote for one column: its facts line to the line before the next."""
    start = text.index(f"\n# {name}: ")
    return text[start + 1 : text.index("\n\n", start + 1)]


def written(tmp_path, data, *extra) -> str:
    result, job = run_init(tmp_path, data, *extra)
    assert result.exit_code == 0, result.output
    raw = job.read_bytes()
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")  # a text file's one final line break
    tomllib.loads(raw.decode())  # parses as written
    return raw.decode()


def run_uncommented(job, text: str, **overrides):
    job.write_text(uncomment(text))
    loaded = sqlanon.load_job(job, algorithm="lightning", step_limit=50, **overrides)
    return sqlanon.anonymize(loaded)


class CountingConnection:
    """A DuckDB connection that records every statement that reads rows of the input."""

    def __init__(self, real, reads: list[str]):
        self._real, self._reads = real, reads

    def execute(self, sql, *args, **kwargs):
        if "read_csv" in sql.lower() and "limit 0" not in sql.lower():
            self._reads.append(sql)
        return self._real.execute(sql, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.mark.slow
def test_a_300_column_csv_is_read_by_one_query_and_every_column_gets_its_entry(tmp_path, monkeypatch):
    data = tmp_path / "wide.csv"
    kinds = write_wide_csv(data, 300, 400)
    reads: list[str] = []
    connect = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: CountingConnection(connect(*a, **k), reads))
    found = profile(Source(path=str(data)))
    assert len(reads) == 1 and found.queries == 1  # one statement reads the file, whatever its width
    assert found.rows == 400 and len(found.columns) == 300
    expected = {
        "integer": "integer",
        "number": "number",
        "date": "date",
        "digits": "digits",
        "text": "text",
        "many": "text",
        "id": "text",
    }
    assert [c.kind for c in found.columns] == [expected[k] for k in kinds]
    text_4 = found.columns[4]
    assert text_4.values == ["asthma", "cold", "cough", "flu", "gout"] and text_4.distinct == 5 and text_4.exact
    assert found.columns[5].values is None and not found.columns[5].exact  # 2,000 possible values: an estimate
    text = written(tmp_path, data)
    assert len(reads) == 2  # the command: one more
    assert text.count("\n#[attributes.") == 300
    assert len(re.findall(r"^# [a-z]+_\d+: ", text, re.M)) == 300
    assert set(WIDE_KINDS) == set(kinds)


def test_every_listed_value_is_every_value_of_the_column(tmp_path):
    """The value lists come from an approximate top-k sketch: a list shorter than its room
    is every value. Checked on ADULT against SELECT DISTINCT, and at the boundary."""
    found = profile(Source(path=str(ADULT / "adult.csv"), delimiter=";"))
    con = duckdb.connect()
    listed = [c for c in found.columns if c.values is not None]
    assert [c.name for c in listed] == [
        "sex",
        "race",
        "marital-status",
        "education",
        "workclass",
        "occupation",
        "salary-class",
    ]
    for column in listed:
        rows = con.execute(
            f"SELECT DISTINCT \"{column.name}\" FROM read_csv($p, delim = ';', all_varchar = true)",
            {"p": str(ADULT / "adult.csv")},
        ).fetchall()
        assert column.values == sorted(r[0] for r in rows) and column.distinct == len(rows)
    edge = tmp_path / "edge.csv"
    with open(edge, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["thirty", "thirty_one", "with_empty"])
        for i in range(600):
            writer.writerow([f"a{i % LISTED}", f"b{i % (LISTED + 1)}", "" if i % 5 == 0 else f"c{i % 3}"])
    thirty, thirty_one, with_empty = profile(Source(path=str(edge))).columns
    assert thirty.values == sorted(f"a{i}" for i in range(LISTED)) and thirty.distinct == LISTED
    assert thirty_one.values is None
    assert with_empty.values == ["", "c0", "c1", "c2"] and (with_empty.distinct, with_empty.nulls) == (3, 120)


def people(rows: int = 240) -> list[list[str]]:
    first = ["Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hans", "Ida", "Jonas"]
    last = ["Meier", "Schmidt", "Huber", "Wagner", "Becker", "Hoffmann", "Koch", "Richter"]
    out = []
    for i in range(rows):
        born = datetime.date(1940, 1, 1) + datetime.timedelta(days=(i * 7919) % 25000)
        out.append(
            [
                f"{first[i % 10]} {last[i % 8]}",
                f"{first[i * 7 % 10]} {last[i * 3 % 8]} {i}",
                born.isoformat(),
                born.strftime("%d.%m.%Y"),
                f"City{i % 45}",
                ["f", "m"][i % 2],
                f"{40 + (i * 37) % 800 / 10:.1f}",
                f"0.{1 + i % 9}",
                "DE",
            ]
        )
    return out


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)


def test_a_date_of_birth_is_a_quasi_identifier_generalized_by_the_date_builder(tmp_path):
    data = tmp_path / "people.csv"
    rows = people()
    write_csv(data, ["name", "patient", "born", "geburtsdatum", "city", "sex", "weight", "ratio", "country"], rows)
    weights = [float(r[6]) for r in rows]
    text = written(tmp_path, data)
    born = entry(text, "born")  # every value unique: still a QI, by month, year, decade
    assert born.startswith("# born: date, ~") and '#role = "quasi"' in born
    assert '#hierarchy = { type = "date", format = "%Y-%m-%d", levels = ["month", "year", "decade"] }' in born
    dotted = entry(text, "geburtsdatum")
    assert dotted.startswith("# geburtsdatum: date") and 'format = "%d.%m.%Y"' in dotted
    # names: by the column's name, or by their share of unique values; never released as they are
    assert '#role = "identifying"  # suggested: its name says it identifies a person' in entry(text, "name")
    assert re.search(
        r'#role = "identifying"  # suggested: ~100% of the values are unique: a name', entry(text, "patient")
    )
    city = entry(text, "city")  # many values, few unique: generalized, not released as they are
    assert '#role = "quasi"' in city and '#hierarchy = { type = "mask", mask = "*", levels = 5 }' in city
    weight = entry(text, "weight")  # decimals: numbers, not integers
    assert (
        weight.startswith("# weight: number, ")
        and f", {min(weights):g} to {max(weights):g}" in weight
        and 'type = "intervals"' in weight
    )
    assert entry(text, "ratio").startswith("# ratio: number, 9 distinct values")
    assert '#role = "insensitive"  # suggested: one value' in entry(text, "country")
    assert text.count('#role = "insensitive"') == 1
    result = run_uncommented(tmp_path / "job.toml", text, k=2, suppression_limit=1.0)
    assert result.success and result.report["verified"]
    with open(tmp_path / "people_anonymized.csv", newline="") as released:
        rows = list(csv.DictReader(released))
    assert "name" not in rows[0] and "patient" not in rows[0]
    assert all(re.fullmatch(r"\d{4}(-\d{2})?(-\d{4})?|\*", r["born"]) for r in rows)  # month, year or decade


def test_zip_codes_are_masked_whether_text_with_leading_zeros_or_integers_named_so(tmp_path):
    data = tmp_path / "zips.csv"
    write_csv(
        data,
        ["zip", "plz", "postcode", "amount", "sex"],
        [
            [f"0{1000 + i % 60}", str(80000 + i % 70), str(47000 + i % 50), str(10000 + i % 80), ["f", "m"][i % 2]]
            for i in range(300)
        ],
    )
    text = written(tmp_path, data)
    mask = '#hierarchy = { type = "mask", mask = "*", levels = 4 }'
    for name in ("zip", "plz", "postcode"):
        block = entry(text, name)
        assert block.startswith(f"# {name}: digits, ") and '#role = "quasi"  # suggested: a code' in block
        assert mask in block and "intervals" not in block
    amount = entry(text, "amount")  # five digits too, but not named as a code: a number
    assert amount.startswith("# amount: integer, ") and 'type = "intervals"' in amount
    typed = tmp_path / "typed.parquet"
    pq.write_table(pa.table({"zipcode": pa.array([47000 + i % 50 for i in range(300)], pa.int64())}), typed)
    block = entry(written(tmp_path, typed, "--overwrite"), "zipcode")
    assert block.startswith("# zipcode: digits (BIGINT), ") and mask in block
    result = run_uncommented(tmp_path / "job.toml", written(tmp_path, data, "--overwrite"), k=5)
    assert result.success
    with open(tmp_path / "zips_anonymized.csv", newline="") as released:
        first = next(csv.DictReader(released))
    assert re.fullmatch(r"0\d*\**|\*", first["zip"]) and first["zip"].endswith("*")


def typed_table(rows: int = 200) -> pa.Table:
    day = datetime.datetime(2024, 1, 1)
    return pa.table(
        {
            "seen": pa.array([day + datetime.timedelta(hours=7 * i) for i in range(rows)], pa.timestamp("us")),
            "seen_utc": pa.array(
                [day.replace(tzinfo=datetime.timezone.utc) + datetime.timedelta(hours=5 * i) for i in range(rows)],
                pa.timestamp("us", tz="UTC"),
            ),
            "logged": pa.array(
                [day + datetime.timedelta(seconds=i, milliseconds=i % 3) for i in range(rows)], pa.timestamp("ms")
            ),  # 00:00:01 beside 00:00:02.001: no one layout
            "photo": pa.array([bytes([i % 256, 0]) for i in range(rows)], pa.binary()),
            "tags": pa.array([["a", "b"][: 1 + i % 2] for i in range(rows)], pa.list_(pa.string())),
            "home": pa.array([{"street": f"S{i % 20}", "no": i % 9} for i in range(rows)]),
            "extra": pa.array([[("k", i % 3)] for i in range(rows)], pa.map_(pa.string(), pa.int64())),
            "smoker": pa.array([i % 3 == 0 for i in range(rows)]),
        }
    )


def test_timestamps_blobs_lists_structs_and_maps_are_named_by_their_type(tmp_path):
    data = tmp_path / "typed.parquet"
    pq.write_table(typed_table(), data)
    text = written(tmp_path, data)
    seen = entry(text, "seen")
    assert seen.startswith("# seen: timestamp, ") and '#role = "quasi"' in seen
    assert 'type = "date", format = "%Y-%m-%d %H:%M:%S", levels = ["month", "year", "decade"]' in seen
    utc = entry(text, "seen_utc")  # read as the run reads it: DuckDB's text, its offset written out
    assert utc.startswith("# seen_utc: timestamp with time zone, ")
    shown = duckdb.connect().execute("SELECT CAST(TIMESTAMPTZ '2024-01-01 00:00:00+00' AS VARCHAR)").fetchone()[0]
    assert f'format = "%Y-%m-%d %H:%M:%S{shown[19:]}"' in utc  # the session's zone: +00 in UTC
    logged = entry(text, "logged")
    assert '#role = "identifying"  # suggested: a date, but no one date format reads every value' in logged
    assert "# note: the date builder takes one strptime format" in logged
    for name, kind in [
        ("photo", "blob"),
        ("tags", "list (VARCHAR[])"),
        ("home", "struct (STRUCT(street VARCHAR"),
        ("extra", "map (MAP(VARCHAR, BIGINT))"),
    ]:
        block = entry(text, name)
        assert block.startswith(f"# {name}: {kind}") and "text" not in block.splitlines()[0]
        assert f'#role = "identifying"  # suggested: a {kind.split()[0]} cannot be a quasi-identifier' in block
        assert "#hierarchy" not in block and 'set role = "insensitive" only if' in block
    assert '#hierarchy = { type = "order", values = ["false", "true"], fanout = [2] }' in entry(text, "smoker")
    result = run_uncommented(tmp_path / "job.toml", text, k=2, suppression_limit=1.0)
    assert result.success and result.report["verified"]
    header = (tmp_path / "typed_anonymized.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["seen", "seen_utc"] and not {"photo", "tags", "home", "extra", "logged"} & set(header)


def test_an_empty_value_in_a_number_or_date_column_is_named_with_the_way_out(tmp_path):
    data = tmp_path / "gaps.csv"
    write_csv(
        data,
        ["visits", "born", "sex"],
        [
            [
                "" if i % 10 == 0 else str(i % 12),
                "" if i % 7 == 0 else f"19{50 + i % 40}-0{1 + i % 9}-1{i % 10}",
                ["f", "m"][i % 2],
            ]
            for i in range(100)
        ],
    )
    text = written(tmp_path, data)
    visits = entry(text, "visits")
    assert visits.startswith("# visits: integer, 12 distinct values, 12% unique, 10 empty, 0 to 11")
    assert "# note: 10 empty: the intervals builder refuses the empty value" in visits
    assert "# note: 15 empty: the date builder refuses the empty value" in entry(text, "born")
    (tmp_path / "job.toml").write_text(uncomment(text))
    with pytest.raises(sqlanon.ConfigError, match="value '' is not a number"):  # as the note says
        sqlanon.anonymize(sqlanon.load_job(tmp_path / "job.toml", algorithm="lightning", step_limit=50))


def test_names_toml_cannot_take_bare_are_quoted(tmp_path):
    data = tmp_path / "odd.csv"
    write_csv(data, ["größe", "a b", "sex"], [[str(150 + i % 40), str(i % 3), ["f", "m"][i % 2]] for i in range(60)])
    text = written(tmp_path, data)
    assert '#[attributes."größe"]' in text and '#[attributes."a b"]' in text
    loaded = sqlanon.load_job(_saved(tmp_path, uncomment(text)))
    assert [(a.name, a.role) for a in loaded.attributes] == [("größe", "quasi"), ("a b", "quasi"), ("sex", "quasi")]


def _saved(folder, text: str):
    path = folder / "job.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_columns_named_like_the_query_s_own_are_read_as_themselves(tmp_path):
    """The query names its per-value columns t0, x0, d0, ...: a source column of such a name
    must not stand in for them."""
    data = tmp_path / "names.csv"
    write_csv(
        data,
        ["t1", "age", "x0", "sqlanon_source_column", "g3"],
        [
            [f"w{i % 4}", str(20 + i % 50), f"1980-01-{1 + i % 28:02d}", f"0{4700 + i % 9}", str(i % 3)]
            for i in range(120)
        ],
    )
    kinds = [(c.name, c.kind) for c in profile(Source(path=str(data))).columns]
    assert kinds == [
        ("t1", "text"),
        ("age", "integer"),
        ("x0", "date"),
        ("sqlanon_source_column", "digits"),
        ("g3", "integer"),
    ]


def test_a_duckdb_table_whatever_its_name(tmp_path):
    data = tmp_path / "db.duckdb"
    with duckdb.connect(str(data)) as con:  # named like a placeholder of the query: read as itself
        con.execute(
            "CREATE TABLE \"sqlanon_first_slot\" AS SELECT DATE '1970-01-01' + i::INTEGER AS born, "
            "(47000 + i % 30)::INTEGER AS plz, i % 2 = 0 AS smoker FROM range(100) t(i)"
        )
    text = written(tmp_path, data, "--table", "sqlanon_first_slot")
    assert 'table = "sqlanon_first_slot"' in text
    assert entry(text, "born").startswith("# born: date, ~") and 'format = "%Y-%m-%d"' in entry(text, "born")
    assert entry(text, "plz").startswith("# plz: digits (INTEGER), ~") and 'type = "mask"' in entry(text, "plz")
    assert entry(text, "smoker").startswith("# smoker: boolean, 2 distinct values, 2% unique")


def test_a_name_with_a_line_break_stays_in_its_comment(tmp_path):
    data = tmp_path / "break.parquet"
    pq.write_table(
        pa.table({"first\nsecond": [i % 5 for i in range(40)], "sex": [["f", "m"][i % 2] for i in range(40)]}), data
    )
    text = written(tmp_path, data)  # parses: the break is quoted in the comment and in the key
    assert (
        '\n# "first\\nsecond": integer (BIGINT), ~5 distinct values' in text
        and '#[attributes."first\\nsecond"]' in text
    )
    assert [a.name for a in sqlanon.load_job(_saved(tmp_path, uncomment(text))).attributes] == ["first\nsecond", "sex"]
