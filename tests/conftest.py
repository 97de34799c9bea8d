"""The tests' fixtures, and only fixtures (pytest finds them here): shared code lives in
``helpers/`` and no test imports this file (``tests/project/test_layout.py``)."""

from __future__ import annotations

import contextlib
import csv
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.jobs import ADULT, ADULT_QIS, ADULT_SUBSET, ROOT, adult_job
from helpers.pg import postgres_url  # noqa: F401  a fixture: the run's throwaway PostgreSQL server
from helpers.presence import SUBSET


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
        (tmp_path / "hierarchies" / f"demo_{name}.csv").write_bytes(
            (ROOT / "sqlanon" / "demo" / "hierarchies" / f"demo_{name}.csv").read_bytes()
        )
    path = tmp_path / "demo.toml"
    path.write_text((ROOT / "sqlanon" / "demo" / "job.toml").read_text())
    return path


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """The one SparkSession of the test run (local[2], two shuffle partitions, no UI, quiet):
    every Spark engine opens its own session (own temp views) on its context."""
    pyspark = pytest.importorskip("pyspark", reason="the spark engine's tests need pyspark: pip install '.[spark]'")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sqlanon-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("FATAL")
    assert pyspark.__version__
    yield session
    session.stop()


@pytest.fixture(scope="session")
def adult_available():
    if not (ADULT / "adult.csv").exists():
        pytest.fail(f"ADULT not found at {ADULT}: the tests need ../shared/data beside the project")
    return ADULT


@pytest.fixture
def read_only():
    """``with read_only(folder):`` no one can create a file in ``folder`` — root included (the
    immutable attribute), since the tests run as root here; skips where neither works."""

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


@pytest.fixture(scope="module")
def adult_population(tmp_path_factory, adult_available):
    """ADULT as the population, with a deterministic research subset (women under 40 and
    every fifth row: 10,758 of 30,162), written to Parquet outside the repository."""
    with open(ADULT / "adult.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    member = [(r["sex"] == "Female" and int(r["age"]) < 40) or i % 5 == 0 for i, r in enumerate(rows)]
    columns = {c: [r[c] for r in rows] for c in ADULT_QIS}
    path = tmp_path_factory.mktemp("presence") / "adult.parquet"
    pq.write_table(pa.table({**columns, SUBSET: member}), path)
    return path, rows, member


@pytest.fixture(scope="module")
def metric_sessions(adult_available):
    """ADULT sessions, one per metric, for a module's grid of ARX's optima (helpers/arx_grid.py)."""
    from helpers.arx_grid import MetricSessions

    opened = MetricSessions()
    with opened.stack:
        yield opened
