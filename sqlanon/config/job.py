"""The job: what to read, the role of every column, the privacy models, the search, the engine
and the output. Built in code or read from a TOML file (``config/read.py``), validated once at
the start of a run (``config/validate.py``); frozen: a changed job is a new one (``replace``).

Nothing here runs or validates anything beyond a value's own shape; nothing names an engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from sqlanon.config.risk import RiskSettings
from sqlanon.config.snapshots import SnapshotSettings
from sqlanon.engines.profiles import DEFAULT_ENGINE
from sqlanon.errors import ConfigError
from sqlanon.hierarchy import Hierarchy, read_hierarchy
from sqlanon.hierarchy.builders import build_hierarchy

ROLES = ("quasi", "sensitive", "insensitive", "identifying")
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
    encoding: str | None = None  # a CSV's text encoding (None: UTF-8), see sqlanon/config/encodings.py

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
class Attribute:
    name: str
    role: str
    hierarchy: Hierarchy | str | Path | dict | None = None  # dict: a builder spec
    encoding: str | None = None  # the hierarchy file's text encoding (None: UTF-8)


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


GENETIC_VARIANTS = ("kgen", "hybrid")


@dataclass(frozen=True)
class GeneticParams:
    """The genetic algorithm's parameters (``[search.genetic]``), with the KGen paper's
    defaults; random search gets the same ``max_evaluations``. ``variant``: "hybrid" (the
    default: sqlanon/search/genetic_hybrid.py), or "kgen", the algorithm as the paper describes it."""

    max_evaluations: int = 5000
    population: int = 100
    crossover: float = 0.9
    mutation: float = 0.2
    horizontal_mutation: float = 0.4
    tournament: int = 2
    variant: str = "hybrid"

    def validate(self) -> None:
        if self.variant not in GENETIC_VARIANTS:
            raise ConfigError(f"search.genetic.variant must be one of {', '.join(map(repr, GENETIC_VARIANTS))}, "
                              f"got {self.variant!r}")
        for name in ("max_evaluations", "population", "tournament"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"search.genetic.{name} must be an int >= 1, got {value!r}")
        for name in ("crossover", "mutation", "horizontal_mutation"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ConfigError(f"search.genetic.{name} must be a probability in [0, 1], got {value!r}")


@dataclass(frozen=True)
class KOptimizeOptions:
    """``[search.koptimize]``: settings of the ordered-interval algorithms (k-optimize, hill-climb).

    The classification metric's label column is ``[search] label``, as for the lattice
    algorithms. ``suppression_rows``: the
    suppression limit as a number of rows (an int >= 0 or "unlimited"); when absent the limit is
    floor(privacy.suppression_limit * N). ``upper_bound``: "flash" seeds K-Optimize with Flash's
    optimum mapped to cuts, "none" starts without one. ``order``: per attribute, its values in
    the order to use instead of the natural or the hierarchy's order. ``threads``: k-optimize walks
    its tree's subtrees on this many threads (cores).
    """

    suppression_rows: int | str | None = None
    upper_bound: str = "none"
    order: Mapping[str, list[str]] = field(default_factory=dict)
    threads: int = 1


INTERVAL_ALGORITHMS = ("k-optimize", "hill-climb")
INTERVAL_OPTIONS = ("time_limit", "step_limit", "seed")  # the [search] keys they take
INTERVAL_METRICS = ("discernibility", "classification")
UPPER_BOUNDS = ("none", "flash")


@dataclass(frozen=True)
class Job:
    """An anonymization job. Every input column gets a role or is listed in ``input.drop``."""

    input: Source
    attributes: tuple[Attribute, ...] | list[Attribute]
    k: int = 2
    suppression_limit: float = 0.0
    algorithm: str = "flash"
    metric: str = "discernibility"
    engine: str = DEFAULT_ENGINE
    #: the [engine] keys the engine owns (e.g. DuckDB's memory_limit, PostgreSQL's url, Spark's
    #: master), read and validated by the engine's settings class (sqlanon/engines/profiles.py)
    engine_settings: Mapping[str, Any] = field(default_factory=dict)
    lookup: str = "wide"  # "wide": levels joined once at preparation; "join": per check
    stable: bool = False  # OLA only: visit nodes in Flash's stable order (StableOLA)
    max_lattice_size: int = 100_000  # optimal algorithms refuse larger lattices
    time_limit: float | None = None  # heuristics: stop after this many seconds
    step_limit: int | None = None  # heuristics: stop after this many checks
    seed: int | None = None  # genetic, random: None draws one (the report records it)
    stop: str = "best"  # lightning: "best" (until a limit or the end) or "first" anonymous node
    genetic: GeneticParams = field(default_factory=GeneticParams)
    output: Output = field(default_factory=Output)
    #: privacy models besides k-anonymity, as [[privacy.models]] entries (dicts with a type)
    models: tuple[dict, ...] = ()
    #: per-QI weights for loss, precision and entropy (QI name -> weight, default 1)
    weights: Mapping[str, float] | None = None
    #: the class label column of the classification metric
    label: str | None = None
    koptimize: KOptimizeOptions = field(default_factory=KOptimizeOptions)
    #: [engine] rollup, history, projection, history_size, history_ratio
    snapshots: SnapshotSettings = field(default_factory=SnapshotSettings)
    #: [risk] the population behind the sample and the at-risk threshold (sqlanon/config/risk.py)
    risk: RiskSettings = field(default_factory=RiskSettings)
    #: [engine] checks: where each node's check runs, "auto" | "sql" | "local" (sqlanon/checks/placement.py),
    #: and local_budget: the largest class table local checks may hold (a size; default a quarter of free memory)
    checks: str = "auto"
    local_budget: str | None = None
    #: the TOML file the job was read from (never written over by a run)
    file: str | None = None
    #: set by config/validate.py on the job it returns, never copied by ``replace``: a changed job
    #: is validated again
    validated: bool = field(default=False, init=False, compare=False, repr=False)

    @property
    def quasi_identifiers(self) -> list[Attribute]:
        return [a for a in self.attributes if a.role == "quasi"]

    def limit_rows(self, rows: int) -> int:
        """floor(s * N) on the exact decimal given, so 0.29 of 100 rows is 29, not 28."""
        return int(Fraction(str(self.suppression_limit)) * rows)

    def interval_limit_rows(self, rows: int) -> int:
        """The suppression limit of the ordered-interval algorithms, in rows."""
        given = self.koptimize.suppression_rows
        if given is None:
            return self.limit_rows(rows)
        return rows if given == "unlimited" else given

    def hierarchy_of(self, attribute: Attribute, values=None) -> Hierarchy:
        """The attribute's hierarchy: given, read from its file, or built from its spec over
        ``values`` (the attribute's distinct values, needed only by builders)."""
        h = attribute.hierarchy
        if isinstance(h, Hierarchy):
            return h
        if isinstance(h, dict):
            return build_hierarchy(attribute.name, h, values() if callable(values) else values)
        return read_hierarchy(h, attribute.name, encoding=attribute.encoding)
