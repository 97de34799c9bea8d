"""The DuckDB engine's one-scan prepare and streamed release (sqlanon/engines/duckdb/release.py):
input order across threads, the shuffle's order across threads, the sorted fallback, an input
that changes under the run, and the verification's one pass over the written file."""

from __future__ import annotations

from dataclasses import replace
import csv
import shutil
from collections import Counter

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from helpers.jobs import ADULT, adult_hierarchy, adult_job, table_job
from sqlanon import Attribute, Output, Source, anonymize
from sqlanon.engines.duckdb import release as duckdb_release
from sqlanon.errors import DataError, VerificationError
from sqlanon.session import Session
from sqlanon.release.verify import verify

QIS = ["sex", "age", "race", "marital-status"]


def hierarchy_rows(name: str) -> dict[str, list[str]]:
    with open(adult_hierarchy(name), newline="", encoding="utf-8") as handle:
        return {row[0]: row for row in csv.reader(handle, delimiter=";")}


def expected_release(rows: list[dict], levels: dict[str, int], k: int, drop: bool) -> list[tuple]:
    """The release computed here, row by row in input order: every QI at its level, the rows of
    classes smaller than k masked (or dropped), the id unchanged."""
    maps = {q: hierarchy_rows(q) for q in QIS}
    generalized = [tuple(maps[q][r[q]][levels[q]] for q in QIS) for r in rows]
    sizes = Counter(generalized)
    out = []
    for row, key in zip(rows, generalized):
        if sizes[key] >= k:
            out.append((*key, row["id"]))
        elif not drop:
            out.append((*("*" for _ in QIS), row["id"]))
    return out


@pytest.fixture(scope="module")
def adult_x4(adult_available, tmp_path_factory):
    """ADULT four times over with a row id, as Parquet in row groups of 10,000 rows (DuckDB
    reads them on several threads), and the rows as read."""
    table = pacsv.read_csv(
        ADULT / "adult.csv",
        parse_options=pacsv.ParseOptions(delimiter=";"),
        convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in ["age"]}),
    )
    table = pa.concat_tables([table] * 4)
    table = table.append_column("id", pa.array(range(table.num_rows), pa.int64()))
    path = tmp_path_factory.mktemp("x4") / "adult_x4.parquet"
    pq.write_table(table, path, row_group_size=10_000)
    return path, table.select([*QIS, "id"]).to_pylist()


def x4_job(path, out, threads=4, **kwargs):
    job = adult_job(QIS, k=100, suppression_limit=0.05, engine_settings={"threads": threads}, output=out, **kwargs)
    job = replace(job, input=Source(path=str(path)))
    job = replace(
        job,
        attributes=[a for a in job.attributes if a.role == "quasi"]
        + [a for a in job.attributes if a.role != "quasi"]
        + [Attribute("id", "insensitive")],
    )
    return job


@pytest.mark.parametrize(
    "kind, suppressed, checks", [("csv", "mask", "auto"), ("parquet", "drop", "auto"), ("csv", "mask", "sql")]
)
def test_streamed_release_keeps_input_order_on_several_threads(adult_x4, tmp_path, kind, suppressed, checks):
    """The failing classes come from the kernel (local checks) or from SQL (checks = "sql")."""
    path, rows = adult_x4
    out = tmp_path / f"out.{kind}"
    result = anonymize(x4_job(path, Output(path=str(out), suppressed=suppressed, order="input"), checks=checks))
    assert result.report["checks_placement"] == ("sql" if checks == "sql" else "local")
    assert result.success and result.report["verified"] and result.suppressed > 0
    written = (
        pq.read_table(out)
        if kind == "parquet"
        else pacsv.read_csv(out, convert_options=pacsv.ConvertOptions(column_types={q: pa.string() for q in QIS}))
    )
    got = [tuple(r[q] for q in QIS) + (r["id"],) for r in written.to_pylist()]
    assert got == expected_release(rows, result.levels, 100, suppressed == "drop")


@pytest.mark.parametrize("order, seed", [("input", None), ("shuffle", 7)])
def test_the_sorted_release_beyond_the_bitstring_writes_the_same_bytes(adult_x4, tmp_path, monkeypatch, order, seed):
    """Shuffled, both hash the same input positions (the streamed projection's row number,
    the sorted query's rowid) with the same key: the same order."""
    path, _ = adult_x4
    streamed = tmp_path / "streamed.csv"
    assert anonymize(x4_job(path, Output(path=str(streamed), order=order, seed=seed))).report["verified"]
    monkeypatch.setattr(duckdb_release, "MAX_BITS", 1)  # every key space is too large: joins and ORDER BY
    sorted_ = tmp_path / "sorted.csv"
    assert anonymize(x4_job(path, Output(path=str(sorted_), order=order, seed=seed))).report["verified"]
    assert streamed.read_bytes() == sorted_.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_a_seeded_shuffle_is_the_same_on_one_thread_and_on_four(adult_x4, tmp_path, kind):
    """The streamed shuffle numbers the rows in input order whatever the threads: one seed, one
    order; the rows are the input-order release's, in another order."""
    path, rows = adult_x4
    written = {}
    for threads in (1, 4):
        out = tmp_path / f"t{threads}.{kind}"
        result = anonymize(x4_job(path, Output(path=str(out), seed=11), threads=threads))
        assert result.success and result.report["verified"] and result.suppressed > 0
        written[threads] = out.read_bytes() if kind == "csv" else pq.read_table(out).to_pylist()
        table = (
            pq.read_table(out)
            if kind == "parquet"
            else pacsv.read_csv(out, convert_options=pacsv.ConvertOptions(column_types={q: pa.string() for q in QIS}))
        )
        got = [tuple(r[q] for q in QIS) + (r["id"],) for r in table.to_pylist()]
        expected = expected_release(rows, result.levels, 100, False)
        assert got != expected and sorted(got) == sorted(expected)
    assert written[1] == written[4]


@pytest.mark.parametrize("column, value", [(0, "Femme"), (1, "201")], ids=["sex-by-list", "age-by-enum"])
def test_an_input_changed_after_prepare_is_refused_and_nothing_is_written(adult_available, tmp_path, column, value):
    """The release reads the input again: a value the prepare never saw stops the run (exit
    code 3) before anything is published, whichever way its code is found (sex has 2 leaves:
    list_position; age 100 in a CSV: the ENUM)."""
    data = tmp_path / "adult.csv"
    shutil.copy(ADULT / "adult.csv", data)
    job = adult_job(QIS, k=5, suppression_limit=0.02, output=Output(path=str(tmp_path / "out.csv")))
    job = replace(job, input=Source(path=str(data), delimiter=";"))

    def rewrite(phase):
        if phase == "write":  # after the search, before the release reads the input again
            lines = data.read_text(encoding="utf-8").splitlines(keepends=True)
            fields = lines[1].split(";")
            fields[column] = value
            lines[1] = ";".join(fields)
            data.write_text("".join(lines), encoding="utf-8")

    with pytest.raises(DataError, match=rf"changed while it was anonymized: it now holds a value \('{value}'\)"):
        anonymize(job, on_phase=rewrite)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adult.csv"]


def test_one_scan_prepare_builds_the_class_table_of_the_row_tables(adult_available):
    """The base class table from the grouped scan equals the one the row tables give (built
    here on demand, as an ordered-interval search builds them)."""
    with Session(adult_job(QIS, k=5)) as session:
        engine = session.engine
        grouped = sorted(engine.run('SELECT * FROM "sqlanon_classes"'))
        assert not engine._row_tables
        engine._ensure_row_tables()
        from_rows = sorted(engine.run('SELECT "q0", "q1", "q2", "q3", COUNT(*) FROM "sqlanon_data" GROUP BY ALL'))
    assert grouped == from_rows and sum(r[-1] for r in grouped) == 30162


def test_verification_rechecks_the_models_from_its_one_pass(tmp_path):
    """The written groups' histograms (one GROUP BY of QIs and the sensitive attribute): a
    released group with one sensitive value fails distinct 2-diversity; the masked group may;
    the achieved value is the smallest distinct count; the distribution is the input's."""
    data = {"a": ["x", "x", "x", "y", "y", "y"], "s": ["p", "q", "p", "p", "q", "q"]}
    job = table_job(
        data,
        {"a": [["x", "*"], ["y", "*"]]},
        roles={"s": "sensitive"},
        k=2,
        models=({"type": "distinct-l-diversity", "attribute": "s", "l": 2},),
    )
    with Session(job) as session:
        models = session.checker().models
        overall = session.overall()
    out = tmp_path / "out.csv"
    out.write_text("a,s\nx,p\nx,q\nx,p\ny,p\ny,q\ny,q\n")
    report = verify(Output(path=str(out)), ["a"], 2, 6, 0, 0, models, overall)
    assert report.models[-1]["achieved"] == 2 and report.class_sizes == [[3, 2]]
    out.write_text("a,s\nx,p\nx,p\nx,p\ny,p\ny,q\ny,q\n")  # class x holds one value of s (and p is 4 of 6, not 3)
    with pytest.raises(VerificationError, match="differs from the input's"):
        verify(Output(path=str(out)), ["a"], 2, 6, 0, 0, models, overall)
    out.write_text("a,s\nx,p\nx,p\ny,q\ny,p\ny,q\ny,q\n")  # the distribution holds; class x fails
    with pytest.raises(VerificationError, match=r"released class \{a: 'x'\} fails \{'model': 'distinct-l-diversity'"):
        verify(Output(path=str(out)), ["a"], 2, 6, 0, 0, models, overall)
    out.write_text("a,s\n*,p\n*,p\ny,q\ny,p\ny,q\ny,q\n")  # the same rows masked: suppressed, not released
    report = verify(Output(path=str(out)), ["a"], 2, 6, 2, 2, models, overall)
    assert report.models[-1]["achieved"] == 2 and report.masked_rows == 2 and report.class_sizes == [[4, 1]]


def test_null_values_read_as_the_empty_leaf_in_the_release(tmp_path):
    """A text QI's NULL is the leaf '' (as prepare reads it), by list_position and by the ENUM
    alike; the release equals the one computed here."""
    values = ["a", None, "b", "a", None, "b", "", "a"]
    many = [None, "v3", "v19", "", "v3", None, "v0", "v7"]  # 21 leaves: the ENUM for a CSV, list_position else
    hierarchies = {
        "x": [["a", "ab", "*"], ["b", "ab", "*"], ["", "none", "*"]],
        "y": [[f"v{i}", "v", "*"] for i in range(20)] + [["", "none", "*"]],
    }
    for name, kind in (("arrow", None), ("csv", "csv")):
        job = table_job(
            {"x": values, "y": many, "id": list(range(8))},
            hierarchies,
            k=1,
            output=Output(path=str(tmp_path / f"{name}.csv"), order="input"),
        )
        if kind == "csv":
            source = tmp_path / "in.csv"
            source.write_text(
                "x,y,id\n" + "".join(f"{v or ''},{w or ''},{i}\n" for i, (v, w) in enumerate(zip(values, many)))
            )
            job = replace(job, input=Source(path=str(source)))
        result = anonymize(job)
        assert result.success and result.levels == {"x": 0, "y": 0}
        rows = pacsv.read_csv(
            tmp_path / f"{name}.csv",
            convert_options=pacsv.ConvertOptions(
                column_types={"x": pa.string(), "y": pa.string()}, strings_can_be_null=False
            ),
        ).to_pylist()
        assert [(r["x"], r["y"], r["id"]) for r in rows] == [
            (v or "", w or "", i) for i, (v, w) in enumerate(zip(values, many))
        ]


def test_the_scan_encodes_text_qis_and_groups_the_others_by_their_text(tmp_path):
    """Prepare's one scan finds a text QI's leaf codes itself (list_position; NULL is the leaf
    ''), and groups an integer QI by its value, turned into text over the groups (1 and NULL
    read as '1' and ''): the class table is the one counted here, from Parquet and Arrow."""
    x = ["a", None, "b", "a", "", "b", "a", None]
    n = [1, 2, None, 1, 2, 1, None, 1]
    hierarchies = {"x": [["a", "*"], ["b", "*"], ["", "*"]], "n": [["1", "*"], ["2", "*"], ["", "*"]]}
    data = pa.table({"x": pa.array(x, pa.string()), "n": pa.array(n, pa.int64())})
    pq.write_table(data, tmp_path / "in.parquet")
    expected = Counter(
        (["a", "b", ""].index(v or ""), ["1", "2", ""].index("" if m is None else str(m))) for v, m in zip(x, n)
    )
    for source in (Source(path=str(tmp_path / "in.parquet")), Source(arrow=data)):
        job = table_job({"x": x, "n": n}, hierarchies, k=1)
        job = replace(job, input=source)
        with Session(job) as session:
            engine = session.engine
            assert engine._coded == [True, False]
            found = {tuple(r[:2]): r[2] for r in engine.run('SELECT "q0", "q1", "n" FROM "sqlanon_classes"')}
            assert found == dict(expected) and session.prepared.value_counts == ((3, 2, 3), (4, 2, 2))


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_the_one_scan_over_parquet_and_csv_equals_the_row_tables(adult_available, tmp_path, kind):
    """ADULT's nine QIs: from Parquet every QI is encoded in the scan, from CSV those with at
    most 16 leaves (the others by their text): the class table is the row tables' either way."""
    names = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "occupation",
        "salary-class",
    ]
    job = adult_job(names, k=5)
    if kind == "parquet":
        path = tmp_path / "adult.parquet"
        pq.write_table(
            pacsv.read_csv(
                ADULT / "adult.csv",
                parse_options=pacsv.ParseOptions(delimiter=";"),
                convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}),
            ),
            path,
        )
        job = replace(job, input=Source(path=str(path)))
    with Session(job) as session:
        engine = session.engine
        assert engine._coded == [kind == "parquet" or len(h.labels[0]) <= 16 for h in engine._hierarchies]
        assert any(engine._coded) and (kind == "parquet") == all(engine._coded)
        grouped = sorted(engine.run('SELECT * FROM "sqlanon_classes"'))
        engine._ensure_row_tables()
        keys = ", ".join(f'"q{j}"' for j in range(len(names)))
        from_rows = sorted(engine.run(f'SELECT {keys}, COUNT(*) FROM "sqlanon_data" GROUP BY ALL'))
    assert grouped == from_rows and len(grouped) == 19502 and sum(r[-1] for r in grouped) == 30162


@pytest.mark.parametrize("column", ["x", "n"])
def test_a_value_no_leaf_holds_is_named_whether_the_scan_encoded_it_or_not(column):
    """'c' (text, encoded in the scan) and 3 (an integer, grouped by its text) are in no
    hierarchy: the error names the value and its rows, as before the scan encoded."""
    x = ["a", "c", "b", "c", None] if column == "x" else ["a", "b", "a", "b", "a"]
    n = [1, 2, 3, 3, 3] if column == "n" else [1, 2, 1, 2, 1]
    hierarchies = {"x": [["a", "*"], ["b", "*"], ["", "*"]], "n": [["1", "*"], ["2", "*"]]}
    job = table_job({"x": pa.array(x, pa.string()), "n": pa.array(n, pa.int64())}, hierarchies, k=1)
    from sqlanon.errors import HierarchyError

    shown = "'c'" if column == "x" else "'3'"
    with pytest.raises(
        HierarchyError,
        match=rf"column '{column}' of .* has 1 value\(s\) missing from its hierarchy "
        rf"\({2 if column == 'x' else 3} rows\), e.g. {shown}",
    ):
        Session(job)
