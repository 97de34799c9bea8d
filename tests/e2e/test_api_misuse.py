"""The Python API misused: each case a sqlanon error (its documented exit code) naming the fix,
never a raw TypeError, ArrowInvalid or IndexError; numpy's numbers simply work."""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import sqlanon
from sqlanon.errors import ConfigError, DataError

ZIPS = [["a", "*"], ["b", "*"]]


def _refused(kind, data, message, **settings):
    with pytest.raises(kind) as error:
        sqlanon.anonymize(data, **{"quasi": {"x": ZIPS}, "k": 2, "others": "insensitive", **settings})
    assert str(error.value) == message
    return error.value


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "mask"},
        {"type": "intervals", "widths": [5]},
        {"type": "date", "levels": ["year"]},
        {"type": "order", "values": ["a"]},
    ],
)
def test_an_empty_table_with_a_builder(spec):
    error = _refused(
        DataError,
        pd.DataFrame({"x": pd.Series([], dtype=object)}),
        f"attribute 'x': the {spec['type']} hierarchy builder has no value to build over: the input has no "
        "rows, there is nothing to anonymize (give a table with rows, or a hierarchy file)",
        quasi={"x": spec},
    )
    assert error.exit_code == 3


def test_an_object_column_of_mixed_types():
    frame = pd.DataFrame({"x": ["a", "b"] * 2, "y": [None, 1, "two", 3]})
    error = _refused(
        DataError,
        frame,
        "column 'y' of the pandas DataFrame (object) mixes int 1 (at position 1) and str "
        "'two' (at position 2): give it one type, e.g. df['y'] = df['y'].astype(str)",
    )
    assert error.exit_code == 3


@pytest.mark.parametrize(
    "data, what, rename",
    [
        (pd.DataFrame([["a", "a", 1]] * 2, columns=["x", "y", "x"]), "pandas DataFrame", "df.columns = [...]"),
        (
            pa.table([pa.array(["a"]), pa.array(["a"]), pa.array([1])], names=["x", "y", "x"]),
            "pyarrow table",
            "table.rename_columns([...])",
        ),
        (duckdb.sql("SELECT 'a' AS x, 'a' AS y, 1 AS x"), "duckdb table", "SELECT ... AS new_name"),
    ],
)
def test_a_column_named_twice(data, what, rename):
    error = _refused(
        DataError,
        data,
        f"the {what} names 1 column(s) more than once: 'x' at positions 0, 2 (counted from "
        f"0). Every column needs its own name: rename the duplicates ({rename})",
    )
    assert error.exit_code == 3


def test_a_spark_dataframe_with_a_column_named_twice(spark):
    frame = spark.createDataFrame([("a", "b")], ["x", "x"])
    _refused(
        DataError,
        frame,
        "the Spark DataFrame names 1 column(s) more than once: 'x' at positions 0, 1 (counted "
        "from 0). Every column needs its own name: rename the duplicates (df = df.toDF(*new_names))",
    )


@pytest.mark.parametrize("series", [pd.Series(["a", "b"], name="x"), pl.Series("x", ["a", "b"])])
def test_a_series_instead_of_a_table(series):
    library = type(series).__module__.split(".")[0]
    error = _refused(
        ConfigError, series, f"got a {library} Series, not a table: give a DataFrame, e.g. series.to_frame()"
    )
    assert error.exit_code == 2
    with pytest.raises(ConfigError, match="Series, not a table"):
        sqlanon.check(series, quasi=["x"], k=2)


def test_column_names_that_are_not_text():
    _refused(
        DataError,
        pd.DataFrame([["a"], ["b"]] * 2),
        "the pandas DataFrame has columns named by int (0): sqlanon "
        "names columns by text; name them, e.g. df.columns = df.columns.map(str)",
        quasi={"0": ZIPS},
    )
    paired = pd.DataFrame([["a", "u"], ["b", "v"]] * 2, columns=pd.MultiIndex.from_tuples([("p", "x"), ("p", "y")]))
    _refused(
        DataError,
        paired,
        "the pandas DataFrame's columns are a MultiIndex (('p', 'x'), ...): sqlanon names columns "
        "by text; flatten them, e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns]",
    )
    fixed = paired.copy()
    fixed.columns = ["_".join(map(str, c)) for c in fixed.columns]
    assert sqlanon.anonymize(fixed, quasi={"p_x": ZIPS}, k=2, others="insensitive").success


def test_numpy_numbers_are_numbers():
    frame = pd.DataFrame({"x": ["a", "b"] * 4, "s": ["u", "v", "v", "u"] * 2, "n": np.arange(8)})
    result = sqlanon.anonymize(
        frame,
        quasi={"x": ZIPS},
        k=np.int64(2),
        suppression_limit=np.float64(0.25),
        models=[{"type": "distinct-l-diversity", "attribute": "s", "l": np.int32(2)}],
        others="insensitive",
        algorithm="genetic",
        seed=np.int64(3),
        step_limit=np.int64(20),
        risk={"threshold": np.float32(0.5)},
    )
    assert result.success and result.levels == {"x": 0}
    models = json.loads(json.dumps(result.report))["privacy"]["models"]  # plain numbers all the way to the JSON
    assert [(m["model"], m.get("k"), m.get("l")) for m in models] == [
        ("k-anonymity", 2, None),
        ("distinct-l-diversity", None, 2),
    ]
    assert type(result.report["privacy"]["models"][0]["k"]) is int
    ages = pd.DataFrame({"age": np.arange(20, 28).astype(str)})
    built = sqlanon.anonymize(ages, quasi={"age": {"type": "intervals", "widths": [np.int64(4)]}}, k=np.int64(4))
    assert built.success and sorted(built.table["age"].tolist()) == ["20-23"] * 4 + ["24-27"] * 4
    found = sqlanon.check(frame, quasi=["x"], k=np.int64(4), risk={"threshold": np.float64(0.3)})
    assert found.holds and found.models[0]["k"] == 4
    fitted = sqlanon.Anonymizer(quasi={"x": ZIPS}, k=np.int64(4), others="insensitive").fit(frame)
    assert fitted.levels_ == {"x": 0}
