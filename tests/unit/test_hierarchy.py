"""Hierarchy loading, validation errors, and the integer encoding."""

import pytest

from helpers.jobs import ADULT, table_job
from sqlanon import anonymize, read_hierarchy
from sqlanon.errors import HierarchyError
from sqlanon.hierarchy import Hierarchy


def write(tmp_path, text, name="h.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_adult_age_hierarchy():
    h = read_hierarchy(ADULT / "adult_hierarchy_age.csv", "age")
    assert h.height == 4
    assert len(h.rows) == 100
    assert h.encoded.distinct == (100, 20, 10, 5, 1)
    assert h.encoded.leaves[4] == (100,)
    # 17 -> 15-19 -> 10-19 -> 0-19 -> *
    assert h.rows[16] == ("17", "15-19", "10-19", "0-19", "*")


def test_encoding_is_dense_per_level_in_order_of_first_appearance():
    h = Hierarchy.from_rows("a", [["x", "xy", "*"], ["z", "z", "*"], ["y", "xy", "*"]])
    e = h.encoded
    assert e.codes == ((0, 0, 0), (1, 1, 0), (2, 0, 0))
    assert e.labels == (("x", "z", "y"), ("xy", "z"), ("*",))
    assert e.leaves == ((1, 1, 1), (2, 1), (3,))


def test_unequal_rows_name_the_lines(tmp_path):
    path = write(tmp_path, "a;*\nb;x;*\nc;*\n")
    with pytest.raises(HierarchyError, match=r"unequal length.*line 2 has 3"):
        read_hierarchy(path, "col")


def test_duplicate_values_are_listed(tmp_path):
    path = write(tmp_path, "a;*\nb;*\na;*\n")
    with pytest.raises(HierarchyError, match=r"duplicate original values 'a' \(lines 1 and 3\)"):
        read_hierarchy(path, "col")


def test_non_functional_hierarchy_is_refused(tmp_path):
    path = write(tmp_path, "a;ab;*\nb;ab;*\nc;ab;top\n")
    with pytest.raises(
        HierarchyError, match=r"not functional: value 'ab' at level 1 maps to '\*' \(line 1\) and to 'top' \(line 3\)"
    ):
        read_hierarchy(path, "col")


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(HierarchyError, match="is empty"):
        read_hierarchy(write(tmp_path, "\n"), "col")
    with pytest.raises(HierarchyError, match="not found"):
        read_hierarchy(tmp_path / "nope.csv", "col")


def test_data_values_missing_from_hierarchy_are_listed_with_counts():
    job = table_job({"A": ["x", "q", "q", "r", "x", None]}, {"A": [["x", "*"], ["y", "*"]]})
    with pytest.raises(HierarchyError) as error:
        anonymize(job)
    message = str(error.value)
    assert "column 'A'" in message
    assert "3 value(s) missing from its hierarchy (4 rows)" in message
    assert "'q'" in message and "'r'" in message and "NULL" in message


def test_null_is_mapped_by_an_empty_first_field():
    data = {"A": ["x", None, "", "y", None, "x"]}
    job = table_job(data, {"A": [["x", "*"], ["y", "*"], ["", "*"]]}, k=2, suppression_limit=0.2)
    result = anonymize(job)
    # classes x: 2, y: 1 (suppressed, floor(0.2 * 6) = 1), NULL and '' together: 3
    assert result.success and result.transformation == (0,)
    assert result.suppressed == 1 and result.classes == 2
    with pytest.raises(HierarchyError, match=r"NULL/empty.*first field is empty"):
        anonymize(table_job(data, {"A": [["x", "*"], ["y", "*"]]}, k=2))
