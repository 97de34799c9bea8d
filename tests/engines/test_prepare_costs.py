"""What a DuckDB prepare leaves out when checks run in process (issue 16: prepare near a bare
GROUP BY): the hierarchy tables and the ENUMs until something reads them, a second class
table when the scan's holds the classes, the rows-per-leaf query, and pandas."""

from __future__ import annotations

from dataclasses import replace
import os
import subprocess
import sys

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from helpers.jobs import ADULT, ROOT, adult_job
from sqlanon import Source
from sqlanon.engines.sql.local_checks import numeric
from sqlanon.session import Session

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def adult_parquet(adult_available, tmp_path_factory):
    """ADULT as Parquet, every column text: the scan encodes all five QIs."""
    path = tmp_path_factory.mktemp("parquet") / "adult.parquet"
    table = pacsv.read_csv(
        ADULT / "adult.csv",
        parse_options=pacsv.ParseOptions(delimiter=";"),
        convert_options=pacsv.ConvertOptions(column_types={"age": pa.string()}),
    )
    pq.write_table(table, path)
    return path


def parquet_job(path, **kwargs):
    job = adult_job(QIS, k=5, suppression_limit=0.02, **kwargs)
    job = replace(job, input=Source(path=str(path)))
    return job


def objects(engine) -> dict[str, list[str]]:
    tables = engine.run("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'sqlanon_%' ORDER BY 1")
    views = engine.run("SELECT view_name FROM duckdb_views() WHERE view_name LIKE 'sqlanon_%' ORDER BY 1")
    types = engine.run("SELECT type_name FROM duckdb_types() WHERE type_name LIKE 'sqlanon_%' ORDER BY 1")
    return {"tables": [r[0] for r in tables], "views": [r[0] for r in views], "types": [r[0] for r in types]}


def test_local_checks_leave_the_hierarchy_tables_and_enums_unmade(adult_parquet):
    """From Parquet the scan encodes every QI: the class table is a view of the scan's table,
    no hierarchy table, label table or ENUM is made, and the rows per leaf come from the
    kernel's arrays, equal to the query's. Checks in SQL get the hierarchy tables (and the
    wide table) when placed; both placements find the same optimum."""
    with Session(parquet_job(adult_parquet, checks="local")) as session:
        engine = session.engine
        assert objects(engine) == {"tables": ["sqlanon_distinct"], "views": ["sqlanon_classes"], "types": []}
        assert engine._coded == [True] * 5 and session.prepared.base_classes == len(
            engine.run('SELECT * FROM "sqlanon_classes"')
        )
        assert session.prepared.value_counts == engine._value_counts()[0]
        ages = session.prepared.value_counts[1]
        assert sum(ages) == 30162 and len(ages) == len(engine._hierarchies[1].labels[0]) == 100
        assert (
            ages[engine._hierarchies[1].labels[0].index("90")] == 35
        )  # ADULT has 35 rows of age 90 (DuckDB counts them in its CSV)
        local, _ = session.search("flash")
        assert objects(engine)["tables"] == ["sqlanon_distinct"]  # the search read none either
    with Session(parquet_job(adult_parquet, checks="sql")) as session:
        engine = session.engine
        made = objects(engine)
        assert [f"sqlanon_hier_{j}" for j in range(5)] + [f"sqlanon_label_{j}" for j in range(5)] == [
            t for t in made["tables"] if t.startswith(("sqlanon_hier", "sqlanon_label"))
        ]
        assert "sqlanon_wide" in made["tables"] and made["types"] == []
        assert session.prepared.value_counts == engine._value_counts()[0]
        in_sql, _ = session.search("flash")
    assert (local.optimum.node, local.optimum.stats) == (in_sql.optimum.node, in_sql.optimum.stats)


def test_enums_are_made_for_the_qis_the_scan_leaves_as_text(adult_available):
    """From CSV the scan encodes the QIs of at most 16 leaves; the class table needs the
    ENUM of age (100 leaves; education's 16 are encoded), and nothing else."""
    with Session(adult_job(QIS, k=5, checks="local")) as session:
        engine = session.engine
        assert engine._coded == [True, False, True, True, True]
        made = objects(engine)
        assert made["types"] == ["sqlanon_enum_1"] and made["views"] == []
        assert "sqlanon_classes" in made["tables"] and not any(t.startswith("sqlanon_hier") for t in made["tables"])
        assert engine._enums == {1: True}


def test_numeric_reads_arrow_buffers_with_nulls_offsets_and_chunks():
    """What local checks fetch, as numpy without pyarrow's to_numpy: NULL as 0, a sliced
    chunk's offset honoured, chunks concatenated, in the type asked for."""
    con = duckdb.connect()
    table = con.sql(
        "SELECT i::INT AS a, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 10 END::BIGINT AS b, "
        "i / 4 AS c, CAST(i AS DECIMAL(38, 0)) AS d FROM range(20) t(i)"
    ).to_arrow_table()
    a, b, c, d = (table.column(name) for name in "abcd")
    assert numeric(a, np.int64).tolist() == list(range(20)) == numeric(d, np.int64).tolist()
    assert numeric(b, np.int64).tolist() == [0 if i % 3 == 0 else i * 10 for i in range(20)]
    assert numeric(c, np.float64).tolist() == [i / 4 for i in range(20)]
    sliced = pa.chunked_array([b.combine_chunks().slice(5, 7), b.combine_chunks().slice(1, 3)])
    assert numeric(sliced, np.int32).tolist() == [50, 0, 70, 80, 0, 100, 110] + [10, 20, 0]
    assert numeric(sliced, np.int32).dtype == np.int32 and numeric(pa.chunked_array([], pa.int32()), np.int64).size == 0
    con.close()


@pytest.mark.slow
def test_a_fresh_process_prepares_and_anonymizes_without_importing_pandas(adult_available, tmp_path):
    """pyarrow imports pandas on its first to_numpy or pa.array (0.3-1 s); a one-shot run
    with local checks prepares, searches, writes and verifies without either."""
    script = (
        "import sys\n"
        "from helpers.jobs import adult_job\n"
        "from sqlanon import Output, anonymize\n"
        f"result = anonymize(adult_job({QIS!r}, k=5, output=Output(path={str(tmp_path / 'out.csv')!r})))\n"
        "assert result.success and result.report['checks_placement'] == 'local', result.report\n"
        "print('pandas' in sys.modules)\n"
    )
    tests = ROOT / "tests"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tests, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
