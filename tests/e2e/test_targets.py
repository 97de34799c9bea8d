"""Nothing the user owns is ever overwritten, and a run publishes all its files or none.

Every target a run writes (output, report, Markdown summary and its SVG, a built hierarchy, a
risk file) goes through one guard: never an input (file, glob member, DuckDB database), the
job, a hierarchy, a research-subset file, a manifest, or another target of the same run; an
existing file only with --overwrite. Failures (no solution, a read-only or full report folder,
a rename that fails) leave every file as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers.jobs import ROOT
from helpers.targets import ROWS, run, snapshot, write_job
from sqlanon.errors import OutputError
from sqlanon.release import Protected, Publication


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "work"


# -- the guard: each case the issue names ---------------------------------------------------------


@pytest.mark.parametrize("how", ["file", "flag"])
def test_the_report_is_never_the_input(folder, how):
    job = write_job(folder, report="data.csv" if how == "file" else "report.json")
    before = snapshot(folder)
    flags = ["--report", str(folder / "data.csv")] if how == "flag" else []
    result = run("anonymize", job, *flags)
    assert result.exit_code == 3, result.output
    assert f"the report {folder / 'data.csv'} is the input file, which sqlanon never writes" in result.stderr
    assert snapshot(folder) == before and "Traceback" not in result.output


def test_the_report_is_never_the_input_database(folder):
    folder.mkdir(parents=True)
    db = folder / "db.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE people (age VARCHAR, sex VARCHAR, diagnosis VARCHAR)").fetchall()
    con.executemany("INSERT INTO people VALUES (?, ?, ?)", [list(r) for r in ROWS])
    con.close()
    job = write_job(folder, report="db.duckdb", input_path="db.duckdb", input_table="people")
    before = snapshot(folder)
    result = run("anonymize", job)
    assert result.exit_code == 3 and "is the input database" in result.stderr, result.output
    assert snapshot(folder) == before
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM people").fetchall() == [(12,)]  # still a readable database
    con.close()
    same = write_job(
        folder, output="db.duckdb", input_path="db.duckdb", input_table="people", extra='table = "released"\n'
    )
    result = run("anonymize", same)
    assert result.exit_code == 3 and "is the input database" in result.stderr, result.output


def test_the_report_is_never_the_output_of_the_same_run(folder):
    job = write_job(folder, output="out.csv", report="out.csv")
    before = snapshot(folder)
    result = run("anonymize", job)
    assert result.exit_code == 3 and "is also this run's output: give each its own path" in result.stderr
    assert snapshot(folder) == before


def test_apply_never_writes_over_the_job_or_the_manifest(folder):
    job = write_job(folder)
    assert run("anonymize", job).exit_code == 0
    before = snapshot(folder)
    for target, owner in (("job.toml", "the job file"), ("report.json", "the manifest")):
        result = run(
            "apply",
            job,
            "--manifest",
            folder / "report.json",
            "--output",
            folder / "new.csv",
            "--report",
            folder / target,
            "--overwrite",
        )
        assert result.exit_code == 3 and f"is {owner}, which sqlanon never writes" in result.stderr, result.output
        assert snapshot(folder) == before


def test_an_existing_report_is_replaced_only_with_overwrite(folder):
    job = write_job(folder, output="out.csv", report="report.json")
    (folder / "report.json").write_text("my notes\n")
    before = snapshot(folder)
    result = run("anonymize", job)
    assert (
        result.exit_code == 3 and "the report" in result.stderr and "already exists: use --overwrite" in result.stderr
    )
    assert snapshot(folder) == before  # and out.csv was not written either
    assert run("anonymize", job, "--overwrite").exit_code == 0
    assert json.loads((folder / "report.json").read_text())["verified"]


@pytest.mark.parametrize("alias", ["symlink", "dotdot", "hardlink"])
def test_symlinks_dotdot_and_hard_links_to_the_input_are_the_input(folder, alias):
    job = write_job(folder)
    (folder / "sub").mkdir()
    target = {
        "symlink": folder / "link.csv",
        "dotdot": folder / "sub" / ".." / "data.csv",
        "hardlink": folder / "hard.csv",
    }[alias]
    if alias == "symlink":
        target.symlink_to(folder / "data.csv")
    if alias == "hardlink":
        os.link(folder / "data.csv", target)
    before = snapshot(folder)
    result = run("anonymize", job, "--output", target, "--overwrite")
    assert result.exit_code == 3 and "is the input file" in result.stderr, result.output
    assert snapshot(folder) == before


def test_glob_members_and_new_files_matching_the_input_pattern_are_refused(folder):
    parts = folder / "parts"
    parts.mkdir(parents=True)
    for i, chunk in enumerate((ROWS[:6], ROWS[6:])):
        pq.write_table(
            pa.table({n: [r[j] for r in chunk] for j, n in enumerate(["age", "sex", "diagnosis"])}),
            parts / f"p{i}.parquet",
        )
    job = write_job(folder, input_path="parts/*.parquet", output="out.parquet")
    before = snapshot(folder)
    member = run("anonymize", job, "--output", parts / "p1.parquet", "--overwrite")
    assert member.exit_code == 3 and "is the input file (it matches" in member.stderr, member.output
    fresh = run("anonymize", job, "--output", parts / "new.parquet")
    assert fresh.exit_code == 3 and "matching the input file's pattern" in fresh.stderr, fresh.output
    assert snapshot(folder) == before
    assert run("anonymize", job).exit_code == 0  # beside the pattern it is fine


def test_hierarchies_and_research_subset_files_are_never_targets(folder):
    extra = (
        '[[privacy.models]]\ntype = "delta-presence"\ndmin = 0.0\ndmax = 1.0\nsubset_file = "ids.csv"\nkey = "age"\n'
    )
    job = write_job(folder, extra=extra)
    (folder / "ids.csv").write_text("age\n21\n22\n")
    before = snapshot(folder)
    for target, owner in (("age.csv", "the hierarchy of 'age'"), ("ids.csv", "the research subset file")):
        result = run("anonymize", job, "--report", folder / target, "--overwrite")
        assert result.exit_code == 3 and f"is {owner}" in result.stderr, result.output
    summary = run("anonymize", job, "--markdown", folder / "job.toml", "--overwrite")
    assert summary.exit_code == 3 and "the summary" in summary.stderr and "is the job file" in summary.stderr
    assert snapshot(folder) == before


def test_hierarchy_build_and_risk_outputs_go_through_the_guard(folder):
    job = write_job(folder)
    job.write_text(job.read_text().replace('hierarchy = "sex.csv"', 'hierarchy = { type = "mask", levels = 1 }'))
    before = snapshot(folder)
    for command in (["hierarchy", "build", job, "-a", "sex", "-o"], ["risk", job, "--output"]):
        for target, owner in (
            ("age.csv", "the hierarchy of 'age'"),
            ("job.toml", "the job file"),
            ("data.csv", "the input file"),
        ):
            result = run(*command, folder / target, "--overwrite")
            assert result.exit_code == 3 and f"is {owner}" in result.stderr, (command, result.output)
    assert snapshot(folder) == before
    assert run("risk", job, "--output", folder / "risk.txt").exit_code == 0
    again = run("risk", job, "--output", folder / "risk.txt")
    assert again.exit_code == 3 and "already exists: use --overwrite" in again.stderr
    assert run("risk", job, "--output", folder / "risk.txt", "--overwrite").exit_code == 0
    markdown = run("risk", job, "--format", "markdown", "--output", folder / "risk.md")
    assert markdown.exit_code == 0, markdown.output
    assert (folder / "risk_histogram.svg").exists()


# -- one run publishes as one unit ----------------------------------------------------------------


def test_a_run_without_a_solution_writes_nothing_and_keeps_the_previous_release(folder):
    job = write_job(folder)
    assert run("anonymize", job).exit_code == 0
    before = snapshot(folder)
    result = run("anonymize", job, "--k", "50", "--overwrite", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["success"] is False  # the failure report goes to stdout
    assert "nothing written" in result.stderr
    assert snapshot(folder) == before  # the manifest of the previous release is intact


@pytest.mark.parametrize("previous", [False, True])
def test_a_read_only_report_folder_publishes_nothing(folder, previous, read_only):
    job = write_job(folder, output="out.csv", report="reports/report.json")
    (folder / "reports").mkdir()
    if previous:  # an earlier release: its output and its report (the manifest) must stay as they were
        assert run("anonymize", job).exit_code == 0
    before = snapshot(folder)
    with read_only(folder / "reports"):
        result = run("anonymize", job, "--overwrite")
    assert result.exit_code == 3 and "cannot write the report" in result.stderr, result.output
    assert snapshot(folder) == before
    assert sorted(os.listdir(folder)) == sorted(
        ["age.csv", "data.csv", "job.toml", "reports", "sex.csv"] + (["out.csv"] if previous else [])
    )


def test_a_full_disk_publishes_nothing(folder, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(small)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (small / "filler").write_bytes(b"x" * 8192)  # nothing left for the report
        job = write_job(folder, output="out.csv", report=str(small / "report.json"))
        before = snapshot(folder)
        result = run("anonymize", job)
        assert result.exit_code == 3 and "cannot write the report" in result.stderr, result.output
        assert snapshot(folder) == before and os.listdir(small) == ["filler"]
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_a_failing_rename_puts_back_every_file_already_replaced(tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"old {name}\n")
    publication = Publication(Protected(), overwrite=True)
    with pytest.raises(OutputError, match="nothing of this run was kept"):
        with publication:
            for name in ("a.txt", "b.txt"):
                publication.reserve(str(tmp_path / name), name)
                publication.put_text(str(tmp_path / name), f"new {name}\n")
            (tmp_path / "b.txt").unlink()  # b.txt becomes a folder: its rename must fail, after a.txt's
            (tmp_path / "b.txt").mkdir()
            (tmp_path / "b.txt" / "keep").write_text("x")
            publication.commit()
    assert (tmp_path / "a.txt").read_text() == "old a.txt\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]  # no temporary file, no backup left


# -- every pre-existing file's bytes, whatever the targets ----------------------------------------

PLACES = ["input", "job", "hierarchy", "output", "report", "summary", "fresh"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    output=st.sampled_from(PLACES),
    report=st.sampled_from(PLACES),
    summary=st.sampled_from(PLACES + [None]),
    overwrite=st.booleans(),
)
def test_no_pre_existing_file_changes_unless_it_was_a_target_with_overwrite(
    tmp_path, output, report, summary, overwrite
):
    folder = tmp_path / f"h{abs(hash((output, report, summary, overwrite)))}"
    if folder.exists():
        return
    job = write_job(folder)
    (folder / "old.csv").write_text("age,sex,diagnosis\nold release\n")
    (folder / "old.json").write_text("{}\n")
    (folder / "old.md").write_text("old summary\n")
    paths = {
        "input": "data.csv",
        "job": "job.toml",
        "hierarchy": "age.csv",
        "output": "old.csv",
        "report": "old.json",
        "summary": "old.md",
    }
    fresh = iter(["new.csv", "new.json", "new.md"])
    chosen = [folder / (paths[p] if p != "fresh" else next(fresh)) if p else None for p in (output, report, summary)]
    if chosen[0].suffix not in (".csv", ".parquet"):
        chosen[0] = chosen[0].with_suffix(".csv") if output == "fresh" else chosen[0]
    before = snapshot(folder)
    args = ["anonymize", job, "--output", chosen[0], "--report", chosen[1]]
    args += ["--markdown", chosen[2]] if chosen[2] else []
    result = run(*args, *(["--overwrite"] if overwrite else []))
    assert "Traceback" not in result.output and result.exit_code in (0, 2, 3), result.output
    targets = {str(p.relative_to(folder)) for p in chosen if p}
    if chosen[2]:
        targets.add(chosen[2].stem + "_histogram.svg")
    after = snapshot(folder)
    for name, old in before.items():
        if after.get(name) != old:
            assert result.exit_code == 0 and name in targets and overwrite, (name, result.output)
            assert name not in ("data.csv", "job.toml", "age.csv", "sex.csv")
    if result.exit_code != 0:
        assert after == before  # nothing of a failed run remains


# -- the demo ---------------------------------------------------------------------------------------


def test_demo_runs_from_any_folder_and_never_replaces_someone_elses_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = run("demo")
    assert first.exit_code == 0, first.output
    assert sorted(os.listdir(tmp_path / "demo")) == [
        "patients.csv",
        "patients_anonymized.csv",
        "report.html",
        "report.json",
    ]
    again = run("demo")  # its own results are replaced
    assert again.exit_code == 0 and "wrote 4000 demo rows" not in again.stderr  # the data was already there
    (tmp_path / "demo" / "patients.csv").write_text("name,age\nmine,1\n")
    before = snapshot(tmp_path)
    mine = run("demo")
    assert mine.exit_code == 3 and "is not the demo's data" in mine.stderr
    assert snapshot(tmp_path) == before
    assert run("demo", "--rows", "0").exit_code == 2


@pytest.mark.slow
def test_demo_runs_from_a_built_wheel(tmp_path):
    """A regular (not editable) install ships the demo job and hierarchies."""
    wheels, site, work = tmp_path / "wheels", tmp_path / "site", tmp_path / "work"
    work.mkdir()
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    wheel = next(wheels.glob("sqlanon-*.whl"))
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = subprocess.run(
        [sys.executable, "-c", "import sqlanon; print(sqlanon.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
    )
    assert where.stdout.startswith(str(site)), where.stdout + where.stderr
    demo = subprocess.run(
        [sys.executable, "-m", "sqlanon.cli.commands", "demo", "--rows", "500"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
    )
    assert demo.returncode == 0, demo.stderr
    assert json.loads((work / "demo" / "report.json").read_text())["verified"]


# -- messages for what users get wrong ----------------------------------------------------------------


def test_a_job_without_output_says_nothing_was_written(folder):
    job = write_job(folder, output=None, report=None)
    result = run("anonymize", job)
    assert result.exit_code == 0
    assert "nothing written (no [output] section" in result.stderr
    assert sorted(os.listdir(folder)) == ["age.csv", "data.csv", "job.toml", "sex.csv"]


def test_a_release_with_every_row_suppressed_is_flagged(folder):
    job = write_job(folder)
    result = run("anonymize", job, "--k", "13", "--suppression-limit", "1", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["suppressed"] == 12 and report["rows"] == 12
    assert report["warnings"] == [
        "every one of the 12 rows is suppressed: the release contains no rows (the "
        "models hold only by suppressing everything; relax them or give coarser hierarchies)"
    ]
    assert "warning: every one of the 12 rows is suppressed" in result.stderr
    assert json.loads((folder / "report.json").read_text())["warnings"] == report["warnings"]


@pytest.mark.parametrize(
    "engine, module, hint",
    [("spark", "pyspark", "pip install"), ("postgres", "psycopg", "pip install 'sqlanon[postgres]'")],
)
def test_a_missing_optional_dependency_is_a_named_error_before_anything_is_written(
    folder, monkeypatch, engine, module, hint
):
    job = write_job(
        folder,
        output="out.parquet" if engine == "spark" else None,
        report="report.json",
        input_path="data.parquet" if engine == "spark" else "data.csv",
        input_table=None if engine == "spark" else "public.people",
        extra=f'[engine]\nname = "{engine}"\n',
    )
    if engine == "spark":
        pq.write_table(
            pa.table({n: [r[j] for r in ROWS] for j, n in enumerate(["age", "sex", "diagnosis"])}),
            folder / "data.parquet",
        )
    else:
        job.write_text(job.read_text().replace('path = "data.csv"\n', ""))
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    before = snapshot(folder)
    result = run("anonymize", job)
    assert result.exit_code == 2, result.output
    assert hint in result.stderr and "Traceback" not in result.output
    assert snapshot(folder) == before


def test_a_duckdb_output_table_is_published_with_the_run_or_not_at_all(folder, read_only):
    job = write_job(folder, output="out.duckdb", report="reports/report.json", extra='table = "released"\n')
    (folder / "reports").mkdir()
    assert run("anonymize", job, "--k", "50").exit_code == 1
    assert not (folder / "out.duckdb").exists()  # the database the run created is gone again
    assert run("anonymize", job).exit_code == 0

    def release():
        con = duckdb.connect(str(folder / "out.duckdb"), read_only=True)
        try:
            return (
                con.execute("SELECT table_name FROM duckdb_tables()").fetchall(),
                con.execute("SELECT * FROM released ORDER BY ALL").fetchall(),
            )
        finally:
            con.close()

    before, released = snapshot(folder), release()
    assert released[0] == [("released",)]
    with read_only(folder / "reports"):
        result = run("anonymize", job, "--k", "6", "--overwrite")
    assert result.exit_code == 3 and "cannot write the report" in result.stderr, result.output
    assert release() == released  # the k=2 release as it was, and no temporary table beside it
    assert snapshot(folder)["reports/report.json"] == before["reports/report.json"]
