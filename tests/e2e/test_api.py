"""The Python API (sqlanon/api.py): the keyword face of a Job, the released table in the
caller's type, fit/transform, the exported errors and their wording for code."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sqlanon
from helpers.jobs import ADULT, adult_hierarchy

QIS = ["age", "sex", "race", "marital-status"]
QUASI = {q: str(adult_hierarchy(q)) for q in QIS}
DIVERSITY = {"type": "distinct-l-diversity", "attribute": "occupation", "l": 2}

# a hand-made table: two ages per decade, two cities
AGES = ["31", "32", "33", "34", "41", "42", "43", "44"]
SMALL = {"age": AGES, "city": ["A", "B", "A", "B", "A", "B", "A", "B"], "n": list(range(8))}
AGE_ROWS = [[a, a[0] + "0-" + a[0] + "4", "*"] for a in AGES]


@pytest.fixture(scope="module")
def adult_pandas():
    return pd.read_csv(ADULT / "adult.csv", sep=";")


def job_file(tmp_path, output: str) -> str:
    lines = ["[input]", f'path = "{ADULT / "adult.csv"}"', 'delimiter = ";"']
    for q in QIS:
        lines += [f'[attributes."{q}"]', 'role = "quasi"', f'hierarchy = "{adult_hierarchy(q)}"']
    lines += ["[attributes.occupation]", 'role = "sensitive"']
    for c in ["education", "native-country", "workclass", "salary-class"]:
        lines += [f'[attributes."{c}"]', 'role = "insensitive"']
    lines += [
        "[privacy]",
        "k = 5",
        "suppression_limit = 0.02",
        "[[privacy.models]]",
        'type = "distinct-l-diversity"',
        'attribute = "occupation"',
        "l = 2",
        "[output]",
        f'path = "{output}"',
        "seed = 5",
    ]
    path = tmp_path / "job.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_keywords_and_job_file_are_one_job(tmp_path, adult_pandas):
    """The same optimum, loss, suppressed rows and released rows through both faces (in the
    same order: one seed, the same input positions hashed)."""
    from_file = sqlanon.anonymize(sqlanon.load_job(job_file(tmp_path, str(tmp_path / "out.parquet"))))
    from_code = sqlanon.anonymize(
        pa.Table.from_pandas(adult_pandas.astype(str), preserve_index=False),
        quasi=QUASI,
        k=5,
        suppression_limit=0.02,
        models=[DIVERSITY],
        others="insensitive",
        order_seed=5,
    )
    assert from_file.success and from_code.success
    assert from_code.levels == from_file.levels == {"age": 0, "sex": 0, "race": 1, "marital-status": 1}
    assert (from_code.loss, from_code.suppressed) == (from_file.loss, from_file.suppressed) == (9800845, 85)
    assert (
        from_code.report["seconds"].keys()
        == from_file.report["seconds"].keys()
        >= {"prepare", "search", "output", "risk"}
    )
    assert from_code.report["output"] == "Result.table (in memory)" and from_code.report["verified"]
    written = pq.read_table(tmp_path / "out.parquet")
    assert from_code.table.to_pylist() == written.to_pylist()
    assert from_code.table.column("race").to_pylist().count("*") == 30162  # race at its top level, every row


@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda t: t, pa.Table),
        (lambda t: t.to_pandas(), pd.DataFrame),
        (lambda t: pl.from_arrow(t), pl.DataFrame),
        (lambda t: pl.from_arrow(t).lazy(), pl.LazyFrame),
        (lambda t: duckdb.from_arrow(t), duckdb.DuckDBPyRelation),
    ],
)
@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_the_released_table_comes_back_in_the_callers_type(make, kind, engine):
    result = sqlanon.anonymize(
        make(pa.table(SMALL)), quasi={"age": AGE_ROWS}, k=4, insensitive=["city", "n"], engine=engine, order="input"
    )
    assert isinstance(result.table, kind) and result.levels == {"age": 1}
    back = result.table
    back = back.collect() if kind is pl.LazyFrame else back
    rows = pa.table(back) if kind is not pd.DataFrame else pa.Table.from_pandas(back, preserve_index=False)
    assert rows.column("age").to_pylist() == ["30-34"] * 4 + ["40-44"] * 4
    assert rows.column("city").to_pylist() == SMALL["city"] and rows.column("n").to_pylist() == SMALL["n"]


def test_any_arrow_stream_is_read_and_a_pyarrow_table_returned():
    class Stream:  # only the Arrow PyCapsule interface
        def __arrow_c_stream__(self, requested_schema=None):
            return pa.table(SMALL).__arrow_c_stream__(requested_schema)

    result = sqlanon.anonymize(Stream(), quasi={"age": AGE_ROWS}, k=4, others="insensitive", order="input")
    assert isinstance(result.table, pa.Table) and result.levels == {"age": 1}
    assert result.table.column("age").to_pylist() == ["30-34"] * 4 + ["40-44"] * 4


def test_a_job_reads_a_pandas_frame_in_source_arrow():
    job = sqlanon.Job(
        input=sqlanon.Source(arrow=pd.DataFrame(SMALL)),
        attributes=[
            sqlanon.Attribute("age", "quasi", sqlanon.Hierarchy.from_rows("age", AGE_ROWS)),
            sqlanon.Attribute("city", "insensitive"),
            sqlanon.Attribute("n", "identifying"),
        ],
        k=4,
    )
    result = sqlanon.anonymize(job)
    assert isinstance(result.table, pd.DataFrame) and list(result.table.columns) == ["age", "city"]
    assert sorted(result.table["age"].tolist()) == ["30-34"] * 4 + ["40-44"] * 4


def test_fit_on_one_half_transform_the_other(adult_pandas):
    half = len(adult_pandas) // 2
    anonymizer = sqlanon.Anonymizer(quasi=QUASI, k=5, suppression_limit=0.02, models=[DIVERSITY], others="insensitive")
    anonymizer.fit(adult_pandas.iloc[:half])
    fitted = anonymizer.result_
    second = anonymizer.transform(adult_pandas.iloc[half:])
    assert isinstance(second, pd.DataFrame) and len(second) == len(adult_pandas) - half
    applied = anonymizer.last_result_
    assert (
        applied.report["algorithm"] == "apply" and applied.report["verified"] and applied.levels == anonymizer.levels_
    )
    assert applied.levels == fitted.levels and applied.report["transformation"] == fitted.report["transformation"]
    # re-checked on the second half: its own suppressed rows within its own limit, floor(0.02 * 15081)
    assert applied.suppressed <= 301 and applied.report["privacy"]["suppression_limit_rows"] == 301
    masked = second[second["sex"] == "*"]
    assert len(masked) == applied.suppressed and (masked["age"] == "*").all()
    with pytest.raises(sqlanon.NotAnonymousError, match="no longer satisfies k=5") as caught:
        anonymizer.transform(adult_pandas.iloc[half : half + 40])
    assert isinstance(caught.value, ValueError) and caught.value.result.success is False


def test_transform_before_fit_and_output_in_anonymizer_are_refused():
    with pytest.raises(sqlanon.ConfigError, match="not fitted yet"):
        sqlanon.Anonymizer(quasi={"age": AGE_ROWS}, k=2).transform(pa.table(SMALL))
    with pytest.raises(ValueError, match="takes no output="):
        sqlanon.Anonymizer(quasi={"age": AGE_ROWS}, k=2, output="x.csv")


def test_errors_are_builtin_kinds_and_worded_for_code(tmp_path):
    assert issubclass(sqlanon.ConfigError, ValueError) and issubclass(sqlanon.DataError, ValueError)
    assert issubclass(sqlanon.HierarchyError, ValueError) and issubclass(sqlanon.OutputError, OSError)
    assert all(
        issubclass(e, sqlanon.SqlanonError)
        for e in (sqlanon.ConfigError, sqlanon.OutputError, sqlanon.NotAnonymousError, sqlanon.VerificationError)
    )
    with pytest.raises(ValueError) as roles:
        sqlanon.anonymize(pa.table(SMALL), quasi={"age": AGE_ROWS}, k=2)
    assert "['city', 'n']" in str(roles.value) and 'others="insensitive"' in str(roles.value)
    assert "[attributes" not in str(roles.value) and "input.drop" not in str(roles.value)
    with pytest.raises(ValueError) as model:
        sqlanon.anonymize(
            pa.table(SMALL),
            quasi={"age": AGE_ROWS},
            k=2,
            insensitive=["city", "n"],
            models=[{"type": "distinct-l-diversity", "attribute": "city", "l": 2}],
        )
    assert "sensitive=['city']" in str(model.value) and "[attributes" not in str(model.value)
    existing = tmp_path / "out.csv"
    existing.write_text("mine\n")
    with pytest.raises(OSError) as exists:
        sqlanon.anonymize(pa.table(SMALL), quasi={"age": AGE_ROWS}, k=2, others="insensitive", output=existing)
    assert "pass overwrite=True" in str(exists.value) and "--overwrite" not in str(exists.value)
    assert existing.read_text() == "mine\n"
    result = sqlanon.anonymize(
        pa.table(SMALL),
        quasi={"age": AGE_ROWS},
        k=2,
        others="insensitive",
        output=existing,
        overwrite=True,
        order="input",
    )
    assert result.table is None and existing.read_text().splitlines()[1] == "30-34,A,0"


def test_a_job_from_a_file_keeps_the_command_lines_wording(tmp_path):
    path = job_file(tmp_path, str(tmp_path / "out.parquet"))
    (tmp_path / "out.parquet").write_text("mine")
    with pytest.raises(sqlanon.OutputError, match="use --overwrite to replace it"):
        sqlanon.anonymize(sqlanon.load_job(path))


def test_risk_and_explain_are_exported():
    figures = sqlanon.risk(pa.table(SMALL), quasi=["city"])["risk"]
    assert (figures["highest_risk"], figures["average_risk"], figures["classes"]) == (0.25, 0.25, 2)
    by_node = sqlanon.risk(pa.table(SMALL), quasi={"age": AGE_ROWS}, node=[1], others="insensitive")["risk"]
    assert by_node["class_sizes"] == [[4, 2]]
    explained = sqlanon.explain(pa.table(SMALL), [0], quasi={"age": AGE_ROWS}, k=2, others="insensitive")
    assert explained["quasi_identifiers"] == ["age"] and not explained["result"].anonymous
    assert explained["failing"][:2] == [({"age": "31"}, 1), ({"age": "32"}, 1)]


def test_import_sqlanon_loads_no_engine():
    """``import sqlanon``, its errors and the job's types load no engine; the functions that run
    one import it with their module (no import inside a function: issue 18)."""
    heavy = "sorted(m for m in ('duckdb', 'pyarrow', 'sqlglot', 'scipy', 'numpy') if m in sys.modules)"
    code = (
        f"import sys, sqlanon; print({heavy}); sqlanon.NotAnonymousError; sqlanon.Job; sqlanon.Source; "
        f"sqlanon.load_job; print({heavy}); sqlanon.Anonymizer; print({heavy})"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "[]", "['duckdb', 'numpy', 'pyarrow', 'scipy', 'sqlglot']"]


def test_a_spark_dataframe_comes_back_as_one(spark):
    frame = spark.createDataFrame(pa.table(SMALL).to_pandas())
    result = sqlanon.anonymize(frame, quasi={"age": AGE_ROWS}, k=4, others="insensitive")
    assert result.report["engine"] == "spark" and result.levels == {"age": 1}
    assert type(result.table).__name__ == "DataFrame" and result.table.sparkSession is frame.sparkSession
    assert [tuple(r) for r in result.table.orderBy("n").collect()] == [
        (a, c, n) for a, c, n in zip(["30-34"] * 4 + ["40-44"] * 4, SMALL["city"], SMALL["n"])
    ]
    assert not spark.catalog.listTables("global_temp")  # the input's view is gone
    assert sqlanon.check(frame, quasi=["city"], k=4).holds
