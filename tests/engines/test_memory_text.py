"""The memory engine prints values as DuckDB's CAST(x AS VARCHAR) prints them (hierarchies match
the same rows in both engines), with Arrow's kernels rather than a Python string per row."""

import datetime

import duckdb
import pyarrow as pa
import pytest

from sqlanon.engines.memory.io import as_text, text_array
from sqlanon.errors import DataError

COLUMNS = {
    "text": pa.array(["a", None, "", "ü"]),
    "large": pa.array(["x", "y", None, "z"], pa.large_string()),
    "int": pa.array([1, -20, None, 2**40]),
    "small": pa.array([1, 2, 3, None], pa.int8()),
    "bool": pa.array([True, False, None, True]),
    "float": pa.array([1.0, 0.1, None, 1e20]),
    "float_more": pa.array([-0.0, 123456789.123, 5e-324, 2.5]),
    "date": pa.array([datetime.date(2020, 1, 2), None, datetime.date(1, 1, 1), datetime.date(9999, 12, 31)]),
    "nulls": pa.array([None, None, None, None], pa.null()),
    "dict": pa.array(["p", "q", "p", None]).dictionary_encode(),
}


@pytest.mark.parametrize("name", COLUMNS)
def test_text_is_duckdbs_cast(name):
    table = pa.table({name: COLUMNS[name]})
    con = duckdb.connect()
    con.register("t", table)
    expected = [row[0] for row in con.execute(f'SELECT CAST("{name}" AS VARCHAR) FROM t').fetchall()]
    assert text_array(table.column(name), name).to_pylist() == expected
    assert as_text(table.column(name), name).to_pylist() == ["" if v is None else v for v in expected]


def test_chunked_floats_keep_their_order():
    column = pa.chunked_array([[1.5, 2.0], [], [None, 2.0, 1.5]])
    assert text_array(column, "x").to_pylist() == ["1.5", "2.0", None, "2.0", "1.5"]


def test_other_types_are_refused_by_name():
    with pytest.raises(DataError, match="column 'f32' has type float"):
        text_array(pa.array([1.0], pa.float32()), "f32")
