"""Where a run reads and where it writes, as plain specs: the input source and the output.
Every layer reads them (the engines open and write them, the release guards and publishes
them); the job (``sqlanon/config/job.py``) holds one of each. Nothing here opens a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlanon.errors import ConfigError

SUPPRESSED_MODES = ("mask", "drop")
#: the released rows' order: a uniformly random one (the default), or the input's
ORDERS = ("shuffle", "input")


@dataclass(frozen=True)
class Source:
    """Where the input lives: a CSV file, Parquet files (globs allowed), a table in a DuckDB
    file, a table without a path (PostgreSQL's, or with ``catalog = "spark"`` a Spark table),
    or a pyarrow Table given in code. ``drop`` lists columns deliberately left out."""

    path: str | None = None
    delimiter: str = ","
    table: str | None = None
    arrow: Any = None
    drop: tuple[str, ...] = ()
    catalog: str | None = None  # "spark": ``table`` is in Spark's catalog (set for the spark engine)
    encoding: str | None = None  # a CSV's text encoding (None: UTF-8), see sqlanon/core/encodings.py

    @property
    def kind(self) -> str:
        if self.arrow is not None:
            return "arrow"
        if self.path is None and self.table is not None:  # a table of the engine's database or catalog
            return "spark" if self.catalog == "spark" else "postgres"
        suffix = str(self.path).lower()
        if suffix.endswith(".csv") or suffix.endswith(".tsv") or suffix.endswith(".txt"):
            return "csv"
        if suffix.endswith(".parquet"):
            return "parquet"
        if suffix.endswith(".duckdb") or suffix.endswith(".db"):
            return "duckdb"
        raise ConfigError(
            f"cannot tell the format of input '{self.path}': use a .csv, .parquet (globs allowed) "
            "or .duckdb path, or give a pyarrow Table in code"
        )

    @property
    def named_kind(self) -> str | None:
        """The kind of a source named by a path or table; None for one given in code, whose
        engine settings then depend on no format."""
        return self.kind if self.path or self.table else None

    def describe(self) -> str:
        if self.kind == "arrow":
            return "pyarrow Table"
        if self.kind == "postgres":
            return f"PostgreSQL table {self.table}"
        if self.kind == "spark":
            return f"Spark table {self.table}"
        return f"{self.path}" + (f" table {self.table}" if self.table else "")


@dataclass(frozen=True)
class Output:
    path: str | None = None
    table: str | None = None
    report: str | None = None
    #: the one-page Markdown summary (its histogram SVG beside it)
    summary: str | None = None
    #: the HTML report: True (default) beside the JSON report (its name with .html), a path, or
    #: False for none (sqlanon/report/html.py)
    html: str | bool = True
    suppressed: str = "mask"  # mask: keep the row with every QI set to '*'; drop: remove it
    delimiter: str = ","
    overwrite: bool = False
    #: "shuffle": the rows in a uniformly random order (sqlanon/engines/row_order.py); "input": the input's
    order: str = "shuffle"
    #: a shuffle reproducible from this number (tests); None: a fresh secret key per write, kept nowhere
    seed: int | None = None

    @property
    def kind(self) -> str:
        if self.path is None and self.table:  # a new table in PostgreSQL (the postgres engine's database)
            return "postgres"
        suffix = str(self.path).lower()
        for kind, ends in (("csv", (".csv",)), ("parquet", (".parquet",)), ("duckdb", (".duckdb", ".db"))):
            if suffix.endswith(ends):
                return kind
        raise ConfigError(f"cannot tell the format of output '{self.path}': use .csv, .parquet or .duckdb")

    @property
    def writes(self) -> bool:
        """Whether the job writes an output (a file, or a PostgreSQL table)."""
        return self.path is not None or bool(self.table)

    @property
    def html_path(self) -> str | None:
        """Where the HTML report goes, or None: ``html`` when it names a file, else beside the
        JSON report (``report.json`` -> ``report.html``) unless ``html`` is False."""
        if isinstance(self.html, str):
            return self.html
        if self.html is False or not self.report:
            return None
        return str(Path(self.report).with_suffix(".html"))

    def describe(self) -> str:
        if not self.writes:
            return "(no output)"
        return f"PostgreSQL table {self.table}" if self.kind == "postgres" else str(self.path)
