"""The released rows' order (``[output] order`` and ``seed``; sqlanon/engines/row_order.py): a
random order by default, from a key drawn per write and written nowhere; reproducible from a
seed, which the report then states; the input's on request; bad values refused with exit 2;
the sort key as DuckDB, PostgreSQL and Spark compute it. Every engine's shuffle is in
tests/engines/test_engines.py, DuckDB's across threads in tests/engines/test_release_stream.py, PostgreSQL's
output table in tests/engines/test_postgres.py."""

from __future__ import annotations

from dataclasses import replace
import hashlib
import json

import duckdb
import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import sqlanon
from helpers.jobs import table_job
from sqlanon import Output, Source, anonymize
from sqlanon.anonymizer import apply
from sqlanon.cli.commands import main
from sqlanon import sql as c
from sqlanon.engines import row_order
from sqlanon.engines.duckdb import release as duckdb_release
from sqlanon.sql import release
from sqlanon.sql.dialects import DIALECTS, render
from sqlanon.errors import ConfigError

ROWS = 240
#: ten ages, two sexes, a unique id: every row told apart by its id, its input position
DATA = {"age": [str(20 + i % 10) for i in range(ROWS)], "sex": ["f", "m"] * (ROWS // 2), "id": list(range(ROWS))}
HIERARCHIES = {
    "age": [[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", "*"] for a in range(20, 30)],
    "sex": [["f", "*"], ["m", "*"]],
}
KEY = "c0ffee" * 10 + "beef"


def job(path, engine="duckdb", **order):
    return table_job(
        DATA,
        HIERARCHIES,
        k=3,
        engine=engine,
        output=Output(path=str(path), report=str(path.parent / "report.json"), **order),
    )


def ids(path) -> list[int]:
    if str(path).endswith(".parquet"):
        return pq.read_table(path).column("id").to_pylist()
    return [int(line.rsplit(",", 1)[1]) for line in path.read_text().splitlines()[1:]]


def by_keyed_hash(key: str, rows: int, digits: int = 15) -> list[int]:
    """The order row_order documents for the SQL engines: positions sorted by the number in the
    first ``digits`` hex digits of SHA-256(key, position) (15, ``compiler.KEY_DIGITS``), then by
    the position."""
    return sorted(range(rows), key=lambda i: (int(hashlib.sha256(f"{key}{i}".encode()).hexdigest()[:digits], 16), i))


# -- the order and what is kept of it ----------------------------------------------------------
@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_the_drawn_key_orders_the_rows_and_is_written_nowhere(tmp_path, monkeypatch, engine):
    """The key comes from ``secrets`` (here replaced by a known one): DuckDB sorts by 60 bits of
    SHA-256 of the key and the input position, the memory engine by its SHAKE-256 permutation;
    the key is in none of the files the run publishes, and the report has no seed."""
    monkeypatch.setattr(row_order.secrets, "token_hex", lambda n: KEY)
    path = tmp_path / "out.csv"
    result = anonymize(job(path, engine))
    assert result.success and result.report["verified"]
    expected = by_keyed_hash(KEY, ROWS) if engine == "duckdb" else row_order.permutation(ROWS, KEY).tolist()
    assert ids(path) == expected
    assert result.report["order"] == "shuffle" and "order_seed" not in result.report
    published = sorted(p.name for p in tmp_path.iterdir())
    assert published == ["out.csv", "report.html", "report.json"]
    for name in published:
        text = (tmp_path / name).read_bytes()
        assert KEY.encode() not in text and KEY[:16].encode() not in text, name
    assert "seed" not in json.dumps(result.report["manifest"])


@pytest.mark.parametrize("streamed", [True, False])
def test_columns_named_like_the_release_queries_own_keep_the_keyed_order(tmp_path, monkeypatch, streamed):
    """A QI called __r (the streamed query's position) and others called o, __s, __p0, __row: the
    order is still that of the keyed hash of the position, streamed or through the sorted query."""
    monkeypatch.setattr(row_order.secrets, "token_hex", lambda n: KEY)
    if not streamed:
        monkeypatch.setattr(duckdb_release, "MAX_BITS", 1)
    data = {
        "__r": [str(i % 4) for i in range(40)],
        "o": [f"v{i}" for i in range(40)],
        "__s": list(range(40)),
        "__p0": [2 * i for i in range(40)],
        "__row": list(range(40)),
    }
    path = tmp_path / "out.parquet"
    result = anonymize(table_job(data, {"__r": [[str(i), "*"] for i in range(4)]}, k=2, output=Output(path=str(path))))
    assert result.success and result.report["verified"]
    written = pq.read_table(path).to_pylist()
    assert [row["__s"] for row in written] == by_keyed_hash(KEY, 40)
    assert sorted(written, key=lambda row: row["__s"]) == [dict(zip(data, row)) for row in zip(*data.values())]


def test_each_write_draws_its_own_key(tmp_path):
    orders = []
    for i in range(2):
        path = tmp_path / f"out{i}.parquet"
        assert anonymize(job(path, overwrite=True)).success
        orders.append(ids(path))
    assert orders[0] != orders[1] and sorted(orders[0]) == sorted(orders[1]) == list(range(ROWS))


def test_a_seed_is_stated_in_the_report_and_the_page(tmp_path):
    path = tmp_path / "out.parquet"
    result = anonymize(job(path, seed=42))
    assert (result.report["order"], result.report["order_seed"]) == ("shuffle", 42)
    assert json.loads((tmp_path / "report.json").read_text())["order_seed"] == 42
    assert "<th>row order</th><td>random, reproducible from seed 42</td>" in (tmp_path / "report.html").read_text()
    again = tmp_path / "again.parquet"
    assert anonymize(job(again, seed=42, overwrite=True)).success and ids(again) == ids(path) != list(range(ROWS))
    plain = anonymize(job(tmp_path / "plain.parquet", order="input", overwrite=True))
    assert plain.report["order"] == "input" and "order_seed" not in plain.report
    assert ids(tmp_path / "plain.parquet") == list(range(ROWS))
    assert "<th>row order</th><td>the input&#x27;s</td>" in (tmp_path / "report.html").read_text()
    assert anonymize(table_job(DATA, HIERARCHIES, k=3)).report["order"] == "shuffle"  # Result.table's
    csv = tmp_path / "data.csv"
    csv.write_text("age,sex,id\n" + "".join(f"{a},{x},{i}\n" for a, x, i in zip(*DATA.values())))
    unwritten = anonymize(replace(table_job(DATA, HIERARCHIES, k=3), input=Source(path=str(csv))))
    assert unwritten.success and "order" not in unwritten.report  # nothing written, no order


def test_a_duckdb_output_table_is_shuffled(tmp_path):
    """CREATE TABLE ... AS keeps the ORDER BY: the table holds the seed's order, row by row."""
    file = tmp_path / "seeded.parquet"
    assert anonymize(job(file, seed=3)).success
    out = tmp_path / "out.duckdb"
    result = anonymize(replace(job(file, seed=3), output=Output(path=str(out), table="released", seed=3)))
    assert result.success and result.report["verified"]
    con = duckdb.connect(str(out), read_only=True)
    try:
        assert [r[0] for r in con.execute('SELECT "id" FROM "released"').fetchall()] == ids(file)
    finally:
        con.close()


def test_apply_shuffles_too(tmp_path):
    saved = anonymize(job(tmp_path / "first.parquet"))
    manifest = saved.report["manifest"]
    shuffled = apply(job(tmp_path / "applied.parquet", overwrite=True), manifest)
    apply(job(tmp_path / "in_order.parquet", order="input", overwrite=True), manifest)
    assert (
        shuffled.report["algorithm"] == "apply"
        and shuffled.report["verified"]
        and shuffled.report["order"] == "shuffle"
    )
    released = pq.read_table(tmp_path / "applied.parquet").to_pylist()
    reference = pq.read_table(tmp_path / "in_order.parquet").to_pylist()
    assert ids(tmp_path / "in_order.parquet") == list(range(ROWS)) and released != reference
    assert sorted(released, key=lambda r: r["id"]) == reference


def test_the_released_table_in_python_is_shuffled_and_order_seed_repeats_it():
    def ages(**order):
        result = sqlanon.anonymize(pa.table(DATA), quasi=HIERARCHIES, k=3, others="insensitive", **order)
        assert result.report["verified"]
        return result.table.column("id").to_pylist()

    assert ages(order="input") == list(range(ROWS))
    drawn = ages()
    assert drawn != list(range(ROWS)) and sorted(drawn) == list(range(ROWS))
    assert ages(order_seed=8) == ages(order_seed=8) == by_keyed_hash(row_order.order_key(Output(seed=8)), ROWS)


# -- the key, on every SQL dialect ------------------------------------------------------------
SOURCES = {
    "duckdb": 'range({n}) AS t("p")',
    "postgres": 'generate_series(0, {n} - 1) AS t("p")',
    "spark": "(SELECT id AS `p` FROM range({n})) AS t",
}


@pytest.mark.parametrize("digits", [c.KEY_DIGITS, 1])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_sorts_by_the_digests_number_then_the_position(dialect, digits, monkeypatch, request):
    """``compiler.shuffle_order`` as each dialect renders it, run on its engine over positions
    0..ROWS-1: the order ``by_keyed_hash`` computes from hashlib. With the key cut to one hex
    digit (16 values for 240 rows) every key is shared, and the position breaks the ties alike
    everywhere."""
    monkeypatch.setattr(release, "KEY_DIGITS", digits)
    order = ", ".join(render(e, dialect) for e in c.shuffle_order(c.col("p")))
    sql = f"SELECT {c.col('p').sql(dialect)} FROM {SOURCES[dialect].format(n=ROWS)} ORDER BY {order}"
    if dialect == "duckdb":
        got = [r[0] for r in duckdb.connect().execute(sql, {c.ORDER_KEY: KEY}).fetchall()]
    elif dialect == "postgres":
        with psycopg.connect(request.getfixturevalue("postgres_url")) as con:
            got = [r[0] for r in con.execute(sql, {c.ORDER_KEY: KEY}).fetchall()]
    else:
        got = [r[0] for r in request.getfixturevalue("spark").sql(sql, args={c.ORDER_KEY: KEY}).collect()]
    assert got == by_keyed_hash(KEY, ROWS, digits)
    keys = len({hashlib.sha256(f"{KEY}{i}".encode()).hexdigest()[:digits] for i in range(ROWS)})
    assert keys == (ROWS if digits == c.KEY_DIGITS else 16)


# -- refusals ---------------------------------------------------------------------------------
JOB = '[input]\npath = "data.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n[output]\npath = "out.csv"\n'


@pytest.mark.parametrize(
    "settings, message",
    [
        (
            'order = "random"',
            'output.order must be "shuffle" (the rows in a random order, the default) or "input" '
            "(the input's order), got 'random'",
        ),
        (
            "order = 1",
            'output.order must be "shuffle" (the rows in a random order, the default) or "input" '
            "(the input's order), got 1",
        ),
        ("seed = -1", "output.seed must be an int >= 0 (it makes the random order reproducible), got -1"),
        ('seed = "7"', "output.seed must be an int >= 0 (it makes the random order reproducible), got '7'"),
        ("seed = true", "output.seed must be an int >= 0 (it makes the random order reproducible), got True"),
        (
            'order = "input"\nseed = 7',
            "output.seed applies to the shuffle only (it makes the random order reproducible), "
            'not to order "input": remove it, or set output.order = "shuffle"',
        ),
        ("sed = 7", "unknown key(s) ['sed'] in [output]"),
    ],
)
def test_bad_order_settings_exit_2_with_one_line(tmp_path, settings, message):
    (tmp_path / "data.csv").write_text("x\na\nb\na\nb\n")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    (tmp_path / "job.toml").write_text(JOB + settings + "\n")
    result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "job.toml")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.stderr.splitlines()[0], result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "h.csv", "job.toml"]


def test_the_order_flag_overrides_the_job_and_refuses_other_values(tmp_path):
    (tmp_path / "data.csv").write_text("x,id\n" + "".join(f"{'ab'[i % 2]},{i}\n" for i in range(60)))
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    (tmp_path / "job.toml").write_text(
        JOB.replace("[output]", '[attributes.id]\nrole = "insensitive"\n[output]') + 'order = "input"\n'
    )
    runner = CliRunner()
    assert runner.invoke(main, ["anonymize", str(tmp_path / "job.toml"), "-q"]).exit_code == 0
    assert ids(tmp_path / "out.csv") == list(range(60))
    assert (
        runner.invoke(
            main, ["anonymize", str(tmp_path / "job.toml"), "-q", "--order", "shuffle", "--overwrite"]
        ).exit_code
        == 0
    )
    assert sorted(ids(tmp_path / "out.csv")) == list(range(60)) != ids(tmp_path / "out.csv")
    refused = runner.invoke(main, ["anonymize", str(tmp_path / "job.toml"), "--order", "sorted"])
    assert (
        refused.exit_code == 2
        and "Invalid value for '--order': 'sorted' is not one of 'shuffle', 'input'" in refused.stderr
    )


def test_the_keywords_are_refused_in_their_own_words():
    with pytest.raises(ConfigError, match=r'^order= must be "shuffle" .* got \'sorted\'$'):
        sqlanon.anonymize(pa.table(DATA), quasi=HIERARCHIES, k=3, others="insensitive", order="sorted")
    with pytest.raises(ConfigError, match=r"^order_seed= applies to the shuffle only .* or set order=\"shuffle\"$"):
        sqlanon.anonymize(pa.table(DATA), quasi=HIERARCHIES, k=3, others="insensitive", order="input", order_seed=1)
    with pytest.raises(ConfigError, match=r"^order_seed= must be an int >= 0 .* got 2.5$"):
        sqlanon.anonymize(pa.table(DATA), quasi=HIERARCHIES, k=3, others="insensitive", order_seed=2.5)
