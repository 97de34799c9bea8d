"""What only the Spark engine has: Parquet read in DuckDB's row order, Spark tables as input,
its [engine] settings and its refusals. The shared suite (test_engines.py) compares its
searches and outputs with DuckDB's."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers.jobs import ROOT, table_job
from helpers.outputs import read_back

from sqlanon import Attribute, Hierarchy, Job, Output, Source, anonymize, load_job
from sqlanon.errors import ConfigError, DataError
from sqlanon.session import Session
from sqlanon.config.validate import validate
from sqlanon.criteria import KAnonymity
from sqlanon import sql as c
from sqlanon.sql.dialects import render

AGES = [["30", "30-39", "*"], ["35", "30-39", "*"], ["41", "40-49", "*"], ["47", "40-49", "*"]]


def people(start: int, rows: int) -> pa.Table:
    ages = ["30", "35", "41", "47"]
    return pa.table(
        {
            "id": list(range(start, start + rows)),
            "age": [ages[(start + i) % 4] for i in range(rows)],
            "score": [float(i) / 4 for i in range(rows)],
        }
    )


def job(source: Source, engine: str, output: str, order: str = "shuffle", **kwargs) -> Job:
    attributes = [
        Attribute("id", "insensitive"),
        Attribute("age", "quasi", Hierarchy.from_rows("age", AGES)),
        Attribute("score", "insensitive"),
    ]
    return Job(
        input=source,
        attributes=attributes,
        k=3,
        suppression_limit=0.2,
        engine=engine,
        output=Output(path=output, order=order),
        **kwargs,
    )


def test_parquet_files_are_released_in_name_and_row_order(spark, tmp_path):
    """Three files of unequal size (Spark splits the largest first): the same rows in the same
    order as DuckDB's, with types kept (the float passes through as a double)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name, start, rows in (("a.parquet", 0, 7), ("b.parquet", 7, 40), ("c.parquet", 47, 3)):
        pq.write_table(people(start, rows), folder / name, row_group_size=8)
    written = {}
    for engine in ("duckdb", "spark"):
        path = str(tmp_path / f"{engine}.parquet")
        result = anonymize(job(Source(path=str(folder / "*.parquet")), engine, path, order="input"))
        assert result.success and result.report["verified"]
        written[engine] = read_back(path)
    assert written["spark"] == written["duckdb"]
    assert [row[0] for row in written["spark"]] == list(range(50))
    assert pq.read_schema(str(tmp_path / "spark.parquet")).field("score").type == pa.float64()
    assert not list(tmp_path.glob(".*"))  # no temporary file or folder left beside the output


def test_a_spark_table_is_an_input(spark, tmp_path):
    location = tmp_path / "people"
    location.mkdir()
    pq.write_table(people(0, 24), location / "part.parquet")
    spark.catalog.createTable("sqlanon_test_people", path=str(location), source="parquet")
    try:
        path = str(tmp_path / "out.parquet")
        result = anonymize(job(Source(table="sqlanon_test_people"), "spark", path))
        assert result.success and result.report["input"] == "Spark table sqlanon_test_people"
        expected = anonymize(job(Source(arrow=people(0, 24)), "duckdb", str(tmp_path / "duck.parquet")))
        assert (result.levels, result.suppressed) == (expected.levels, expected.suppressed)
        # a table has no row order of its own: the same rows, in some order
        assert sorted(read_back(path)) == sorted(read_back(str(tmp_path / "duck.parquet")))
    finally:
        spark.sql("DROP TABLE sqlanon_test_people")
    with pytest.raises(DataError, match=r"Spark table 'nowhere' not found"):
        Session(job(Source(table="nowhere"), "spark", str(tmp_path / "x.parquet")))


def test_float_qis_in_parquet_are_refused(spark, tmp_path):
    pq.write_table(pa.table({"x": [1.5, 2.5, 1.5]}), tmp_path / "f.parquet")
    bad = Job(
        input=Source(path=str(tmp_path / "f.parquet")),
        attributes=[Attribute("x", "quasi", Hierarchy.from_rows("x", [["1.5", "*"], ["2.5", "*"]]))],
        engine="spark",
    )
    with pytest.raises(DataError, match=r"column 'x' .* has type double.*cast it to string or an integer"):
        Session(bad)


def test_settings_and_refusals(tmp_path):
    with pytest.raises(ConfigError, match=r"engine.master applies to the spark engine only"):
        validate(table_job({"x": ["a"]}, {"x": [["a", "*"]]}, engine_settings={"master": "local[1]"}))
    with pytest.raises(ConfigError, match=r"engine.spark_conf must be a table of Spark settings"):
        validate(
            table_job(
                {"x": ["a"]},
                {"x": [["a", "*"]]},
                engine="spark",
                engine_settings={"spark_conf": {"driver.memory": "4g"}},
            )
        )
    with pytest.raises(
        ConfigError, match=r"duckdb engine does not handle spark tables \(input Spark table people\).*name = \"spark\""
    ):
        validate(job(Source(table="people", catalog="spark"), "duckdb", str(tmp_path / "out.parquet")))
    with pytest.raises(ConfigError, match=r"spark engine does not handle duckdb files \(output .*out.duckdb\)"):
        out = job(Source(arrow=people(0, 8)), "spark", str(tmp_path / "out.duckdb"))
        validate(replace(out, output=replace(out.output, table="t")))
    (tmp_path / "job.toml").write_text(
        '[input]\ntable = "people"\n[attributes.age]\nrole = "quasi"\nhierarchy = "h.csv"\n'
        '[engine]\nname = "spark"\nmaster = "local[1]"\n'
        'spark_conf = { "spark.sql.shuffle.partitions" = 1 }\n[output]\npath = "o.parquet"\n'
    )
    (tmp_path / "h.csv").write_text("30;*\n")
    loaded = load_job(str(tmp_path / "job.toml"))
    assert loaded.input.kind == "spark" and loaded.engine_settings["master"] == "local[1]"
    assert loaded.engine_settings["spark_conf"] == {"spark.sql.shuffle.partitions": 1}


# -- the golden SQL (sql/spark/) runs on Spark and answers as DuckDB's (sql/) ------------------
def golden_tables() -> dict[str, pa.Table]:
    """The tables test_compiler's golden queries read: three QIs with top levels (2, 3, 1)
    (``age``, ``marital-status``, ``"; drop table x; --``), one passthrough and one sensitive
    code, 60 rows; hierarchies map leaf i to i // 2, i // 4, ... (functional, as required)."""
    leaves = (6, 8, 2)
    tops = (2, 3, 1)
    names = ("age", "marital-status", '"; drop table x; --')
    tables = {}
    for j, (count, top) in enumerate(zip(leaves, tops)):
        codes = {l: [i // 2**l if l < top else 0 for i in range(count)] for l in range(top + 1)}
        sizes = {l: {code: codes[l].count(code) for code in codes[l]} for l in codes}
        tables[f"sqlanon_hier_{j}"] = pa.table(
            {
                "code": pa.array(range(count), pa.int32()),
                **{f"l{l}": pa.array(codes[l], pa.int32()) for l in codes},
                **{f"c{l}": pa.array([sizes[l][x] for x in codes[l]], pa.int32()) for l in codes},
            }
        )
        labels = [(l, code, f"{names[j]}:{l}:{code}") for l in codes for code in sorted(set(codes[l]))]
        tables[f"sqlanon_label_{j}"] = pa.table(
            {
                "level": pa.array([x[0] for x in labels], pa.int32()),
                "code": pa.array([x[1] for x in labels], pa.int32()),
                "label": [x[2] for x in labels],
            }
        )
    rows = 60
    tables["sqlanon_input"] = pa.table(
        {
            "rowid": pa.array(range(rows), pa.int64()),
            **{
                name: [f"{name}:0:{(r * (3 + j)) % count}" for r in range(rows)]
                for j, (name, count) in enumerate(zip(names, leaves))
            },
            "diagnosis": [f"d{r % 3}" for r in range(rows)],
        }
    )
    tables["sqlanon_sval_0"] = pa.table(
        {
            "code": pa.array(range(3), pa.int32()),
            "label": ["d0", "d1", "d2"],
            "n": pa.array([20, 20, 20], pa.int64()),
            "q": [1 / 3] * 3,
        }
    )
    return tables


PIPELINE = {
    "encode.sql": "sqlanon_data",
    "classes.sql": "sqlanon_classes",
    "wide.sql": "sqlanon_wide",
    "snapshot_from_base.sql": "sqlanon_snap_1",
    "snapshot_rollup.sql": "sqlanon_snap_2",
}
QUERIES = [
    "stats_wide.sql",
    "stats_lean.sql",
    "stats_join.sql",
    "check_snapshot.sql",
    "stats_models.sql",
    "suppressed_histograms.sql",
    "output.sql",
    "shuffled output",
]
PARAMS = {"k": 2, "mask": "*", "m1_l": 2, "m1_c": 3.0, "m2_t": 0.4, "order_key": "5e" * 32}


def test_golden_sql_runs_on_spark_as_on_duckdb(spark):
    """Every golden query but stats_presence (the Spark engine refuses delta-presence), in the
    order the engines send them: the tables they create (CREATE TEMPORARY VIEW on Spark,
    TABLE on DuckDB), then the checks and the output, whose rows must equal DuckDB's (the
    shuffled output too, in the same order: the same hash of the same positions)."""
    import re

    import duckdb

    session = spark.newSession()
    con = duckdb.connect()
    for name, data in golden_tables().items():
        session.createDataFrame(data).createOrReplaceTempView(name)
        con.register("staging", data)
        con.execute(f'CREATE TEMP TABLE "{name}" AS SELECT * FROM staging')
        con.unregister("staging")

    def sql(dialect: str, name: str) -> str:
        if name == "shuffled output":  # output.sql sorted by the keyed hash (tests/unit/test_compiler.py)
            return render(
                c.output_query(
                    (0, 2, 1),
                    lambda size: KAnonymity(5).class_condition(size),
                    [("age", "qi", 0), ("marital-status", "qi", 1), ("select", "qi", 2), ("diagnosis", "pass", 0)],
                    drop_suppressed=False,
                    shuffled=True,
                ),
                dialect,
            )
        return (ROOT / "sql" / ("" if dialect == "duckdb" else dialect) / name).read_text()

    for name in PIPELINE:
        if name == "encode.sql":  # the class tables of the golden cases carry one sensitive code
            session.sql(f"SELECT *, CAST(__row % 3 AS INT) AS s0 FROM ({sql('spark', name)})").createOrReplaceTempView(
                "sqlanon_data"
            )
            con.execute(
                f"CREATE TEMP TABLE sqlanon_data AS SELECT *, CAST(__row % 3 AS INT) AS s0 FROM ({sql('duckdb', name)})"
            )
        else:
            session.sql(sql("spark", name))
            con.execute(sql("duckdb", name))
        session.sql(f"CACHE TABLE `{PIPELINE[name]}`")  # or every later query recomputes the views
    for name in QUERIES:
        spark_sql, duck_sql = sql("spark", name), sql("duckdb", name)
        params = {**PARAMS, "k": 61} if name == "suppressed_histograms.sql" else PARAMS  # every class suppressed
        spark_rows = [
            tuple(r)
            for r in session.sql(
                spark_sql, args={p: params[p] for p in set(re.findall(r":(\w+)", spark_sql))}
            ).collect()
        ]
        duck_rows = con.execute(duck_sql, {p: params[p] for p in set(re.findall(r"\$(\w+)", duck_sql))}).fetchall()
        assert spark_rows == duck_rows and spark_rows, name
    con.close()
