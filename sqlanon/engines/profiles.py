"""What the job layer knows of each engine without loading it: what it can do (``Capabilities``),
its own ``[engine]`` settings (validated here, by the engine's settings class), and where its
class lives.

The job (``sqlanon/config/``) names no engine: it keeps the ``[engine]`` keys an engine owns as
given (``Job.engine_settings``) and asks the engine's profile to read them. An engine class is
imported only when a run opens one (``load``): ``sqlanon --help``, ``load_job`` and the
validation of a job load no database driver.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit
from dataclasses import dataclass, fields
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from sqlanon.core.encodings import DUCKDB
from sqlanon.engines.capabilities import Capabilities
from sqlanon.errors import ConfigError

if TYPE_CHECKING:
    from sqlanon.engines.store import Store

#: a size as the job gives one ("512MB", "2GiB"): engine settings and engine.local_budget
SIZE = re.compile(r"\s*\d+(\.\d+)?\s*(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)\s*", re.IGNORECASE)


def refuse_password(url: str) -> None:
    """A password in the job file is refused, pointing at PGPASSWORD and ~/.pgpass."""
    fix = (
        "engine.url holds a password: remove it from the job file and give it in the PGPASSWORD "
        "environment variable or in ~/.pgpass"
    )
    if not isinstance(url, str):
        raise ConfigError(
            f'engine.url must be a libpq connection string such as "postgresql://user@host:5432/db", got {url!r}'
        )
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        if parts.password is not None or "password" in parse_qs(parts.query):
            raise ConfigError(fix)
    elif re.search(r"(^|\s)password\s*=", url):
        raise ConfigError(fix)


@dataclass(frozen=True)
class Settings:
    """An engine's own ``[engine]`` keys, read and validated by ``read``. Every engine's
    settings say which PostgreSQL database it reads (``url``, None for most) and what a DuckDB
    connection that re-reads its output needs (``duckdb_config``)."""

    #: keys given as paths, resolved against the job file's folder
    PATHS: ClassVar[tuple[str, ...]] = ()

    @property
    def url(self) -> str | None:
        return None

    def duckdb_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def read(cls, engine: str, table: Mapping[str, Any], input_kind: str | None) -> Settings:
        """The settings from the ``[engine]`` keys this engine owns; a key another engine owns
        is refused, naming the engines it applies to."""
        known = {f.name for f in fields(cls)}
        for key in table:
            if key not in known:
                users = [name for name, p in PROFILES.items() if key in {f.name for f in fields(p.settings)}]
                if not users:
                    raise ConfigError(
                        f"unknown key engine.{key}; the {engine} engine takes "
                        f"{', '.join(sorted(known)) or 'none of its own'} besides name, lookup, checks, "
                        "local_budget and the snapshot keys"
                    )
                raise ConfigError(
                    f"engine.{key} applies to the {' and '.join(users)} engine"
                    f"{'s' if len(users) > 1 else ''} only, not to '{engine}'"
                )
        settings = cls(**table)
        settings.check(engine, input_kind)
        return settings

    def check(self, engine: str, input_kind: str | None) -> None:
        """Refuse values of the wrong type or shape (a subclass checks its own keys)."""


@dataclass(frozen=True)
class MemorySettings(Settings):
    pass


def _size(name: str, value: Any, example: str) -> None:
    if value is not None and not (isinstance(value, str) and SIZE.fullmatch(value)):
        raise ConfigError(f"engine.{name} must be a size such as {example}, got {value!r}")


def _url(url: str | None) -> None:
    if url is not None:
        refuse_password(url)


@dataclass(frozen=True)
class DuckDBSettings(Settings):
    """DuckDB's resources (a memory limit, a folder for spilling, worker threads) and, for a
    PostgreSQL input table, that database's URL."""

    memory_limit: str | None = None
    temp_directory: str | None = None
    threads: int | None = None
    url: str | None = None  # a field here, a property on the base

    PATHS: ClassVar[tuple[str, ...]] = ("temp_directory",)

    def duckdb_config(self) -> dict[str, Any]:
        return {"memory_limit": self.memory_limit, "temp_directory": self.temp_directory, "threads": self.threads}

    def check(self, engine: str, input_kind: str | None) -> None:
        _size("memory_limit", self.memory_limit, '"2GB" or "512MiB"')
        if self.temp_directory is not None and (not isinstance(self.temp_directory, str) or not self.temp_directory):
            raise ConfigError(f"engine.temp_directory must be a folder path, got {self.temp_directory!r}")
        t = self.threads
        if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 1):
            raise ConfigError(f"engine.threads must be an int >= 1, got {t!r}")
        if self.url is not None and input_kind != "postgres":
            raise ConfigError(
                f"engine.url applies to the postgres engine (or a PostgreSQL input table), not to '{engine}'"
            )
        _url(self.url)


@dataclass(frozen=True)
class PostgresSettings(Settings):
    """The database (a libpq URL or key=value string; None: the ``PG*`` environment variables)."""

    url: str | None = None  # a field here, a property on the base

    def check(self, engine: str, input_kind: str | None) -> None:
        _url(self.url)


@dataclass(frozen=True)
class SparkSettings(Settings):
    """The master URL (default: spark-submit's, else ``local[2]``) and Spark settings."""

    master: str | None = None
    spark_conf: Mapping[str, Any] | None = None

    def check(self, engine: str, input_kind: str | None) -> None:
        if self.master is not None and (not isinstance(self.master, str) or not self.master.strip()):
            raise ConfigError(
                f'engine.master must be a Spark master URL such as "local[2]" or '
                f'"spark://host:7077", got {self.master!r}'
            )
        conf = self.spark_conf
        if conf is not None and (
            not isinstance(conf, dict)
            or not all(
                isinstance(k, str) and k.startswith("spark.") and isinstance(v, (str, int, float, bool))
                for k, v in conf.items()
            )
        ):
            raise ConfigError(
                "engine.spark_conf must be a table of Spark settings, e.g. "
                f'{{ "spark.driver.memory" = "4g" }} (keys start with "spark."), got {conf!r}'
            )


@dataclass(frozen=True)
class Profile:
    name: str
    #: "module:Class", imported by ``load``
    engine: str
    capabilities: Capabilities
    settings: type[Settings]


#: SQL engines check in SQL or in process, answer several nodes in one query, keep snapshots as temp tables
SQL_CAPABILITIES = Capabilities(placements=("sql", "local"), inputs=(), outputs=(), batches=True, snapshots=True)

PROFILES: dict[str, Profile] = {
    # a PostgreSQL output table is the postgres engine's; delta-presence's research subset is DuckDB's only;
    # DuckDB's CSV reader decodes some encodings itself (core/encodings.py)
    "duckdb": Profile(
        "duckdb",
        "sqlanon.engines.duckdb.engine:DuckDBEngine",
        Capabilities(
            placements=SQL_CAPABILITIES.placements,
            inputs=("csv", "parquet", "duckdb", "postgres", "arrow"),
            outputs=("csv", "parquet", "duckdb"),
            batches=True,
            research_subset=True,
            csv_encodings=tuple(DUCKDB),
        ),
        DuckDBSettings,
    ),
    # checks only in process (there is no SQL to run), one node at a time; snapshots are arrays
    "memory": Profile(
        "memory",
        "sqlanon.engines.memory.engine:MemoryEngine",
        Capabilities(
            placements=("local",), inputs=("csv", "parquet", "arrow"), outputs=("csv", "parquet"), batches=False
        ),
        MemorySettings,
    ),
    "postgres": Profile(
        "postgres",
        "sqlanon.engines.postgres.engine:PostgresEngine",
        Capabilities(
            placements=SQL_CAPABILITIES.placements,
            inputs=("postgres",),
            outputs=("postgres", "csv", "parquet"),
            batches=True,
        ),
        PostgresSettings,
    ),
    # a table without a path is Spark's (its catalog), not PostgreSQL's
    "spark": Profile(
        "spark",
        "sqlanon.engines.spark.engine:SparkEngine",
        Capabilities(
            placements=SQL_CAPABILITIES.placements,
            inputs=("parquet", "spark", "csv", "arrow"),
            outputs=("parquet", "csv"),
            batches=True,
            tables="spark",
        ),
        SparkSettings,
    ),
}


#: the engine a job runs on when it names none
DEFAULT_ENGINE = "duckdb"


def profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ConfigError(f"unknown engine '{name}'; valid engines: {', '.join(PROFILES)}")
    return PROFILES[name]


def load(name: str) -> type[Store]:
    """The engine's class, imported on first use: the one place engines are loaded by name, so
    that a job can be read and validated without any database driver."""
    module, _, cls = profile(name).engine.partition(":")
    return getattr(import_module(module), cls)
