"""Shared fixtures: the real ADULT data from ../shared/data and small hand-made tables."""

from __future__ import annotations

from dataclasses import replace
import csv
import os
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from sqlanon import Attribute, Hierarchy, Job, Output, Source

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
ADULT = SHARED / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class"]

sys.path.insert(0, str(Path(__file__).parent))


def adult_hierarchy(name: str) -> Path:
    return ADULT / f"adult_hierarchy_{name}.csv"


def adult_job(qis=ADULT_QIS, **kwargs) -> Job:
    """ADULT with the given QIs; the other columns are released unchanged (insensitive)."""
    attributes = [Attribute(q, "quasi", str(adult_hierarchy(q))) for q in qis]
    attributes += [Attribute(c, "insensitive") for c in ADULT_QIS if c not in qis]
    return Job(input=Source(path=str(ADULT / "adult.csv"), delimiter=";"), attributes=attributes, **kwargs)


def occupation_job(qis, **kwargs) -> Job:
    """``adult_job`` with occupation sensitive (when it is not one of ``qis``)."""
    job = adult_job(qis, **kwargs)
    job = replace(job, attributes=[Attribute(a.name, "sensitive") if a.name == "occupation" else a for a in job.attributes])
    return job


def adult_oracle(qis, sensitive: str = "occupation"):
    """The numpy oracle (tests/oracle.py) over ADULT's ``qis`` with ``sensitive``'s values."""
    with open(ADULT / "adult.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    hierarchies = {q: [line.split(";") for line in open(adult_hierarchy(q)).read().split("\n") if line] for q in qis}
    return ModelOracle([tuple(r[q] for q in qis) for r in rows], [r[sensitive] for r in rows], hierarchies)


#: every engine and check placement, as ``on_engine`` takes them
EVERY_PLACEMENT = ["duckdb", "duckdb-local", "memory", "postgres", "postgres-local", "spark", "spark-local"]


def table_job(columns: dict[str, list], hierarchies: dict[str, list[list[str]]], roles: dict[str, str] | None = None, **kwargs) -> Job:
    """A job over an in-memory pyarrow table; ``hierarchies`` gives the QIs' rows."""
    roles = roles or {}
    attributes = []
    for name in columns:
        if name in hierarchies:
            attributes.append(Attribute(name, "quasi", Hierarchy.from_rows(name, hierarchies[name])))
        else:
            attributes.append(Attribute(name, roles.get(name, "insensitive")))
    kwargs.setdefault("output", Output())
    return Job(input=Source(arrow=pa.table(columns)), attributes=attributes, **kwargs)


ADULT_SUBSET = ["sex", "age", "race", "marital-status", "education", "workclass"]  # 720 nodes


@pytest.fixture(scope="session")
def adult_subset_session(adult_available):
    """ADULT with six QIs, every optional figure prepared, class figures shared across searches."""
    from sqlanon.session import ALL_NEEDS, Session

    with Session(adult_job(ADULT_SUBSET), needs=ALL_NEEDS, share_stats=True) as session:
        yield session


@pytest.fixture
def demo_job(tmp_path):
    """The packaged demo job copied next to fresh demo data, so the test writes only under tmp_path."""
    from sqlanon.demo import HIERARCHIES, write_patients

    write_patients(tmp_path / "demo" / "patients.csv")
    (tmp_path / "hierarchies").mkdir()
    for name in HIERARCHIES:
        (tmp_path / "hierarchies" / f"demo_{name}.csv").write_bytes((ROOT / "sqlanon" / "demo" / "hierarchies" / f"demo_{name}.csv").read_bytes())
    path = tmp_path / "demo.toml"
    path.write_text((ROOT / "sqlanon" / "demo" / "job.toml").read_text())
    return path


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """The one SparkSession of the test run (local[2], two shuffle partitions, no UI, quiet):
    every Spark engine opens its own session (own temp views) on its context."""
    pyspark = pytest.importorskip("pyspark", reason="the spark engine's tests need pyspark: pip install '.[spark]'")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("sqlanon-tests")
               .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse"))).getOrCreate())
    session.sparkContext.setLogLevel("FATAL")
    assert pyspark.__version__
    yield session
    session.stop()


@pytest.fixture(scope="session")
def adult_available():
    if not (ADULT / "adult.csv").exists():
        pytest.fail(f"ADULT not found at {ADULT}: the tests need ../shared/data beside the project")
    return ADULT


from oracle import ModelOracle  # noqa: E402  the numpy oracle (tests/oracle.py)
from pg import postgres_url  # noqa: E402,F401  the session's throwaway PostgreSQL server (tests/pg.py)


def on_engine(job: Job, engine: str, request) -> Job:
    """The job as ``engine`` runs it. The postgres engine reads a table of its server: the
    job's input (a CSV file or a pyarrow Table) is loaded there once. ``"<engine>-local"``
    checks in process (``[engine] checks = "local"``); a SQL engine's plain name checks in SQL
    (``checks = "sql"``, whatever ``auto`` would choose), so both placements stay tested."""
    engine, _, placement = engine.partition("-")
    job = replace(job, engine=engine)
    job = replace(job, checks="auto" if engine == "memory" else placement or "sql")
    if engine == "spark":  # reads the file or Table itself, on the run's one SparkSession
        request.getfixturevalue("spark")
    if engine == "postgres":
        from pg import on_postgres

        return on_postgres(job, request.getfixturevalue("postgres_url"))
    return job


@pytest.fixture
def read_only():
    """``with read_only(folder):`` no one can create a file in ``folder`` — root included (the
    immutable attribute), since the tests run as root here; skips where neither works."""
    import contextlib
    import subprocess

    @contextlib.contextmanager
    def frozen(path):
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
            undo = ["chattr", "-i", str(path)]
        else:
            path.chmod(0o555)
            done, undo = None, ["chmod", "755", str(path)]
        try:
            try:
                (path / ".probe").touch()
            except OSError:
                yield path
                return
            (path / ".probe").unlink()
            pytest.skip(f"cannot make a read-only folder here ({done.stderr if done else 'chmod'!r})")
        finally:
            subprocess.run(undo, check=False)

    return frozen
