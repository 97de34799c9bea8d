"""Jobs the tests build: over the real ADULT data in ../shared/data (every QI with its
hierarchy file) and over small hand-made in-memory tables; the numpy oracle over ADULT; and
``on_engine``, a job as a given engine and check placement runs it."""

from __future__ import annotations

from dataclasses import replace
import csv
from pathlib import Path

import pyarrow as pa

from helpers.oracle import ModelOracle
from helpers.pg import on_postgres

# the ADULT data as the benchmarks know it; the tests import these names from here
from bench.datasets import ADULT, ADULT_QIS
from bench.datasets import ADULT_SUBSET as ADULT_SUBSET
from sqlanon import Attribute, Hierarchy, Job, Output, Source
from sqlanon.engines.profiles import PROFILES
from sqlanon.search import ALGORITHMS
from sqlanon.core.options import gathered

ROOT = Path(__file__).resolve().parents[2]  # the repository (tests/helpers/jobs.py)

#: every registered engine (engines/profiles.py), so a new engine joins the tests that take them
ENGINE_NAMES = sorted(PROFILES)
#: the engines that check in SQL, again with their checks in process ("<name>-local")
LOCAL = [f"{name}-local" for name in ENGINE_NAMES if "sql" in PROFILES[name].capabilities.placements]
#: every engine and check placement, as ``on_engine`` takes them
EVERY_PLACEMENT = sorted(ENGINE_NAMES + LOCAL)


def adult_hierarchy(name: str) -> Path:
    return ADULT / f"adult_hierarchy_{name}.csv"


def adult_job(qis=ADULT_QIS, **kwargs) -> Job:
    """ADULT with the given QIs; the other columns are released unchanged (insensitive)."""
    attributes = [Attribute(q, "quasi", str(adult_hierarchy(q))) for q in qis]
    attributes += [Attribute(c, "insensitive") for c in ADULT_QIS if c not in qis]
    return Job(input=Source(path=str(ADULT / "adult.csv"), delimiter=";"), attributes=attributes, **gathered(kwargs))


def occupation_job(qis, **kwargs) -> Job:
    """``adult_job`` with occupation sensitive (when it is not one of ``qis``)."""
    job = adult_job(qis, **kwargs)
    job = replace(
        job, attributes=[Attribute(a.name, "sensitive") if a.name == "occupation" else a for a in job.attributes]
    )
    return job


def adult_oracle(qis, sensitive: str = "occupation") -> ModelOracle:
    """The numpy oracle (``helpers/oracle.py``) over ADULT's ``qis`` with ``sensitive``'s values."""
    with open(ADULT / "adult.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    hierarchies = {q: [line.split(";") for line in open(adult_hierarchy(q)).read().split("\n") if line] for q in qis}
    return ModelOracle([tuple(r[q] for q in qis) for r in rows], [r[sensitive] for r in rows], hierarchies)


def table_job(
    columns: dict[str, list], hierarchies: dict[str, list[list[str]]], roles: dict[str, str] | None = None, **kwargs
) -> Job:
    """A job over an in-memory pyarrow table; ``hierarchies`` gives the QIs' rows."""
    roles = roles or {}
    attributes = []
    for name in columns:
        if name in hierarchies:
            attributes.append(Attribute(name, "quasi", Hierarchy.from_rows(name, hierarchies[name])))
        else:
            attributes.append(Attribute(name, roles.get(name, "insensitive")))
    kwargs.setdefault("output", Output())
    return Job(input=Source(arrow=pa.table(columns)), attributes=attributes, **gathered(kwargs))


def on_engine(job: Job, engine: str, request) -> Job:
    """The job as ``engine`` runs it. The postgres engine reads a table of its server: the
    job's input (a CSV file or a pyarrow Table) is loaded there once. ``"<engine>-local"``
    checks in process (``[engine] checks = "local"``); a SQL engine's plain name checks in SQL
    (``checks = "sql"``, whatever ``auto`` would choose), so both placements stay tested.
    ``request``: the test's pytest request (the spark and postgres_url fixtures start on first use)."""
    engine, _, placement = engine.partition("-")
    job = replace(job, engine=engine)
    # a job object may go to several engines
    job = replace(job, checks="auto" if engine == "memory" else placement or "sql")
    if engine == "spark":  # reads the file or Table itself, on the run's one SparkSession
        request.getfixturevalue("spark")
    if engine == "postgres":
        return on_postgres(job, request.getfixturevalue("postgres_url"))
    return job


def seeded(algorithm: str, seed: int) -> dict:
    """``seed=`` for an algorithm that takes one (the randomized heuristics), else nothing: a
    search refuses an option of another algorithm."""
    return {"seed": seed} if "seed" in ALGORITHMS[algorithm].Options.keys() else {}
