"""A job is frozen and validated once per run; each engine reads and checks its own settings
(sqlanon/engines/profiles.py), so the job layer names none."""

import dataclasses
from dataclasses import replace

import pyarrow as pa
import pytest

import sqlanon
from sqlanon.config import validate as validation
from sqlanon.config.job import Attribute, Job
from sqlanon.core.specs import Output, Source
from sqlanon.config.read import job_from_dict
from sqlanon.config.validate import validate, validated
from sqlanon.config.engine import settings_of
from sqlanon.engines.profiles import PROFILES, DuckDBSettings, SparkSettings
from sqlanon.errors import ConfigError
from sqlanon.hierarchy import Hierarchy


def small_job(**kwargs) -> Job:
    table = pa.table({"zip": ["1", "1", "2", "2", "3"], "x": ["a", "b", "c", "d", "e"]})
    zips = Hierarchy.from_rows("zip", [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3", "*"]])
    return Job(
        input=Source(arrow=table),
        attributes=[Attribute("zip", "quasi", zips), Attribute("x", "insensitive")],
        k=2,
        **kwargs,
    )


def test_a_job_and_its_parts_are_frozen():
    job = small_job()
    for target, field in ((job, "k"), (job.input, "path"), (job.output, "path"), (job.attributes[0], "role")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(target, field, None)


def test_a_run_validates_its_job_once(monkeypatch):
    calls = []
    original = validation.validate
    monkeypatch.setattr(validation, "validate", lambda job: calls.append(job) or original(job))
    job = small_job(suppression_limit=0.2)
    result = sqlanon.anonymize(job)
    assert result.success and result.transformation == (0,) and result.suppressed == 1  # zip 3 alone
    # once, on the job the API runs (its output a temporary Parquet file); the job handed in is left as it was
    assert len(calls) == 1 and calls[0].input == job.input and calls[0].k == job.k and not job.validated


def test_validated_is_not_copied_by_replace():
    checked = validate(small_job())
    assert checked.validated and validated(checked) is checked
    changed = replace(checked, k=0)
    assert not changed.validated
    with pytest.raises(ConfigError, match="'k' parameter must be an int >= 1"):
        validated(changed)


def test_a_pathless_table_is_the_engines_catalogs():
    job = replace(small_job(), input=Source(table="people"), engine="spark", output=Output(path="o.parquet"))
    assert job.input.catalog is None and job.input.kind == "postgres"
    checked = validate(job)
    assert checked.input.catalog == "spark" and checked.input.kind == "spark"
    assert job.input.catalog is None  # validation returned a new job, it mutated nothing


def doc(engine: dict) -> dict:
    return {
        "input": {"path": "d.csv"},
        "attributes": {"zip": {"role": "quasi", "hierarchy": "h.csv"}},
        "engine": engine,
    }


def test_each_engine_reads_its_own_settings(tmp_path):
    job = job_from_dict(doc({"name": "duckdb", "threads": 2, "temp_directory": "spill"}), base=tmp_path)
    assert job.engine_settings == {"threads": 2, "temp_directory": str(tmp_path / "spill")}  # its paths resolved
    assert settings_of(job) == DuckDBSettings(threads=2, temp_directory=str(tmp_path / "spill"))
    assert settings_of(job).duckdb_config() == {
        "memory_limit": None,
        "temp_directory": str(tmp_path / "spill"),
        "threads": 2,
    }
    spark = job_from_dict(doc({"name": "spark", "master": "local[1]"}), base=tmp_path)
    assert settings_of(spark) == SparkSettings(master="local[1]") and settings_of(spark).url is None


@pytest.mark.parametrize(
    "engine, message",
    [
        (
            {"name": "postgres", "memory_limit": "2GB"},
            "engine.memory_limit applies to the duckdb engine only, not to 'postgres'",
        ),
        (
            {"name": "memory", "url": "postgresql://h/db"},
            "engine.url applies to the duckdb and postgres engines only, not to 'memory'",
        ),
        (
            {"name": "duckdb", "url": "postgresql://h/db"},
            r"engine.url applies to the postgres engine \(or a PostgreSQL input",
        ),
        ({"name": "duckdb", "threads": 0}, "engine.threads must be an int >= 1, got 0"),
        ({"name": "duckdb", "memory_limit": "lots"}, "engine.memory_limit must be a size"),
        ({"name": "postgres", "url": "postgresql://u:secret@h/db"}, "engine.url holds a password"),
        (
            {"name": "duckdb", "colour": "blue"},
            "unknown key engine.colour; the duckdb engine takes memory_limit, temp_directory, threads, url besides",
        ),
        ({"name": "oracle"}, "unknown engine 'oracle'; valid engines: duckdb, memory, postgres, spark"),
    ],
)
def test_an_engine_refuses_settings_it_does_not_own(tmp_path, engine, message):
    job = job_from_dict(doc(engine), base=tmp_path)
    with pytest.raises(ConfigError, match=message):
        validate(replace(job, input=Source(arrow=pa.table({"zip": ["1"]}))))


def test_every_engine_has_a_profile_matching_its_class():
    for name, profile in PROFILES.items():
        cls = sqlanon.engines.ENGINES[name]
        assert cls.name == name and cls.capabilities is profile.capabilities


@pytest.mark.parametrize("value", [";;", "", "é", "\n", "\r", '"', "\x00", 1, None])
def test_a_delimiter_is_one_ascii_character_in_a_job_file_and_in_code(tmp_path, value):
    """DuckDB would read ';;' or 'é', pyarrow (memory, Spark) and Python's csv would not: every
    engine gets one ASCII character, printable or a tab, other than the quote (exit 2)."""
    file = tmp_path / "job.toml"
    for section in ("input", "output"):
        document = {
            "input": {"path": "d.csv"},
            "attributes": {"x": {"role": "quasi", "hierarchy": "h.csv"}},
            "output": {"path": "o.csv"},
        }
        document[section]["delimiter"] = value
        with pytest.raises(ConfigError) as refused:
            job_from_dict(document, base=tmp_path, where=str(file))
        message = str(refused.value)
        assert message.startswith(f"{file}: {section}.delimiter = {value!r}: a delimiter is one ")
        assert "\n" not in message and "e.g. ',', ';', '|' or '\\t' (a tab)" in message
    for job in (
        replace(small_job(), input=Source(path="d.csv", delimiter=value)),
        replace(small_job(), output=Output(path="o.csv", delimiter=value)),
    ):
        with pytest.raises(ConfigError, match="delimiter = .*: a delimiter is one"):
            validate(job)
    with pytest.raises(ConfigError, match=r"^delimiter = .*: a delimiter is one"):
        sqlanon.check(tmp_path / "d.csv", quasi="x", delimiter=value)
    with pytest.raises(ConfigError, match=r"^Source.delimiter = .*: a delimiter is one"):
        sqlanon.check(Source(path=str(tmp_path / "d.csv"), delimiter=value), quasi="x")


@pytest.mark.parametrize("delimiter", ["|", "\t", " "])
def test_a_one_character_delimiter_reads_alike_on_duckdb_and_memory(tmp_path, delimiter):
    rows = [("zip", "x"), ("1", "a b"), ("1", "c"), ("2", "d"), ("2", "e"), ("3", "f")]
    data = tmp_path / "d.csv"
    data.write_text("".join(delimiter.join(f'"{v}"' if delimiter in v else v for v in row) + "\n" for row in rows))
    zips = [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3", "*"]]
    released = {}
    for engine in ("duckdb", "memory"):
        out = tmp_path / f"{engine}.csv"
        result = sqlanon.anonymize(
            str(data),
            quasi={"zip": zips},
            insensitive=["x"],
            k=2,
            suppression_limit=0.2,
            delimiter=delimiter,
            engine=engine,
            output=str(out),
        )
        assert result.success and result.transformation == (0,) and result.suppressed == 1
        released[engine] = sorted(out.read_text().splitlines())  # the order rows are released in is not the point
    assert released["duckdb"] == released["memory"] == ["*,f", "1,a b", "1,c", "2,d", "2,e", "zip,x"]
