"""The mask '*' is no data value of a QI: a release tells its suppressed rows from real ones, so
``sqlanon check`` and the report agree on them (the refusal on every engine is in
tests/engines/test_engines.py)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sqlanon
from sqlanon import Attribute, Hierarchy, Job, Output, Source, anonymize
from sqlanon.engines.mask_values import located
from sqlanon.errors import HierarchyError

AGES = [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)]


def _job(path, **settings) -> Job:
    attributes = [
        Attribute("age", "quasi", Hierarchy.from_rows("age", settings.pop("ages", AGES))),
        Attribute("note", "insensitive"),
    ]
    return Job(input=Source(path=str(path)), attributes=attributes, **settings)


def test_check_counts_a_releases_own_masked_rows_as_the_report_does(tmp_path):
    # ages 20..37 twice (classes of two at level 0) and 38, 39 once: those two rows are suppressed
    rows = [f"{20 + i % 18},n{i}" for i in range(36)] + ["38,a", "39,b"]
    (tmp_path / "in.csv").write_text("age,note\n" + "\n".join(rows) + "\n")
    result = anonymize(
        _job(tmp_path / "in.csv", k=2, suppression_limit=0.1, output=Output(path=str(tmp_path / "out.csv")))
    )
    assert result.success and result.levels == {"age": 0} and result.suppressed == 2
    assert result.report["classes"] == 18
    found = sqlanon.check(tmp_path / "out.csv", quasi=["age"], k=2)
    assert (found.suppressed, found.classes, found.holds) == (2, 18, True)
    # the release is no input: its masked rows are refused, naming their lines
    lines = [
        n for n, line in enumerate((tmp_path / "out.csv").read_text().splitlines(), start=1) if line.startswith("*,")
    ]
    assert len(lines) == 2
    with pytest.raises(
        HierarchyError,
        match=rf"column 'age' of .*out.csv holds '\*' in 2 row\(s\) \(lines {lines[0]}, "
        rf"{lines[1]}\): '\*' is the mask of a suppressed row.*anonymize its original data",
    ):
        anonymize(_job(tmp_path / "out.csv", k=2, ages=[*AGES, ["*", "*", "*"]]))


def test_a_mask_leaf_no_row_holds_changes_nothing(tmp_path):
    (tmp_path / "in.csv").write_text("age,note\n" + "\n".join(f"{20 + i % 4},x" for i in range(8)) + "\n")
    plain = anonymize(_job(tmp_path / "in.csv", k=2))
    listed = anonymize(_job(tmp_path / "in.csv", k=2, ages=[*AGES, ["*", "*", "*"]]))
    assert plain.success and listed.success and listed.suppressed == plain.suppressed == 0


def test_a_builder_over_data_holding_the_mask_is_refused():
    table = pa.table({"zip": ["47011", "47012", "*", "47011", "*", "47012"]})
    with pytest.raises(
        HierarchyError,
        match=r"column 'zip' of pyarrow Table holds '\*' in 2 row\(s\) "
        r"\(row positions 2, 4, counted from 0\)",
    ):
        anonymize(table, quasi={"zip": {"type": "mask"}}, k=2)


def test_csv_lines_count_a_quoted_field_spanning_lines(tmp_path):
    (tmp_path / "in.csv").write_text('age,note\n20,"two\nlines"\n*,x\n21,y\n*,z\n')
    assert located(Source(path=str(tmp_path / "in.csv")), "age", 2) == "lines 4, 6"
    assert located(Source(path=str(tmp_path / "in.csv")), "age", 9) == "lines 4, 6, …"  # the engine counted more


def test_parquet_rows_are_counted_per_file_in_name_order(tmp_path):
    pq.write_table(pa.table({"age": ["20", "*"]}), tmp_path / "b.parquet")
    pq.write_table(pa.table({"age": pa.array(["*", "21", "*"]).dictionary_encode()}), tmp_path / "a.parquet")
    source = Source(path=str(tmp_path / "*.parquet"))
    assert located(source, "age", 3) == (
        f"rows 1 of {tmp_path / 'a.parquet'}, 3 of {tmp_path / 'a.parquet'}, "
        f"2 of {tmp_path / 'b.parquet'}, counted from 1"
    )
    assert located(Source(path=str(tmp_path / "b.parquet")), "age", 1) == "row 2, counted from 1"
    assert located(Source(table="people"), "age", 1) == "a table has no row order: WHERE \"age\" = '*' selects them"
