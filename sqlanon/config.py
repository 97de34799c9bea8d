"""The job: what to read, the role of every column, the privacy models, the search and the
output. Built in code or loaded from a TOML file (paths relative to that file)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from sqlanon.errors import ConfigError
from sqlanon.hierarchy import Hierarchy, read_hierarchy
from sqlanon.risk_settings import RISK_KEYS, RiskSettings
from sqlanon.snapshot_settings import SnapshotSettings
from sqlanon.wording import in_code, role_setting

ROLES = ("quasi", "sensitive", "insensitive", "identifying")
SUPPRESSED_MODES = ("mask", "drop")


@dataclass
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
    encoding: str | None = None  # a CSV's text encoding (None: UTF-8), see sqlanon/text_encoding.py

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

    def describe(self) -> str:
        if self.kind == "arrow":
            return "pyarrow Table"
        if self.kind == "postgres":
            return f"PostgreSQL table {self.table}"
        if self.kind == "spark":
            return f"Spark table {self.table}"
        return f"{self.path}" + (f" table {self.table}" if self.table else "")


@dataclass
class Attribute:
    name: str
    role: str
    hierarchy: Hierarchy | str | Path | dict | None = None  # dict: a builder spec
    encoding: str | None = None  # the hierarchy file's text encoding (None: UTF-8)


@dataclass
class Output:
    path: str | None = None
    table: str | None = None
    report: str | None = None
    #: the one-page Markdown summary (its histogram SVG beside it)
    summary: str | None = None
    #: the HTML report: True (default) beside the JSON report (its name with .html), a path, or
    #: False for none (sqlanon/html_report.py)
    html: str | bool = True
    suppressed: str = "mask"  # mask: keep the row with every QI set to '*'; drop: remove it
    delimiter: str = ","
    overwrite: bool = False

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
    defaults; random search gets the same ``max_evaluations``. ``variant``: "kgen", the
    algorithm as the paper describes it (the default), or "hybrid", ours (sqlanon/search/genetic.py)."""

    max_evaluations: int = 5000
    population: int = 100
    crossover: float = 0.9
    mutation: float = 0.2
    horizontal_mutation: float = 0.4
    tournament: int = 2
    variant: str = "kgen"

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


@dataclass
class KOptimizeOptions:
    """``[search.koptimize]``: settings of the ordered-interval algorithms (k-optimize, hill-climb).

    The classification metric's label column is ``[search] label``, as for the lattice
    algorithms. ``suppression_rows``: the
    suppression limit as a number of rows (an int >= 0 or "unlimited"); when absent the limit is
    floor(privacy.suppression_limit * N). ``upper_bound``: "flash" seeds K-Optimize with Flash's
    optimum mapped to cuts, "none" starts without one. ``order``: per attribute, its values in
    the order to use instead of the natural or the hierarchy's order.
    """

    suppression_rows: int | str | None = None
    upper_bound: str = "none"
    order: dict[str, list[str]] = field(default_factory=dict)


INTERVAL_ALGORITHMS = ("k-optimize", "hill-climb")
INTERVAL_OPTIONS = ("time_limit", "step_limit", "seed")  # the [search] keys they take
INTERVAL_METRICS = ("discernibility", "classification")
UPPER_BOUNDS = ("none", "flash")


@dataclass
class Job:
    """An anonymization job. Every input column gets a role or is listed in ``input.drop``."""

    input: Source
    attributes: list[Attribute]
    k: int = 2
    suppression_limit: float = 0.0
    algorithm: str = "flash"
    metric: str = "discernibility"
    engine: str = "duckdb"
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
    weights: dict | None = None
    #: the class label column of the classification metric
    label: str | None = None
    koptimize: KOptimizeOptions = field(default_factory=KOptimizeOptions)
    #: [engine] rollup, history, projection, history_size, history_ratio
    snapshots: SnapshotSettings = field(default_factory=SnapshotSettings)
    #: [engine] DuckDB resources: e.g. "2GB", a folder for spilling, worker threads
    memory_limit: str | None = None
    temp_directory: str | None = None
    threads: int | None = None
    #: [engine] url: the PostgreSQL database (libpq URL or key=value; None: the PG* variables)
    url: str | None = None
    #: [risk] the population behind the sample and the at-risk threshold (sqlanon/risk_settings.py)
    risk: RiskSettings = field(default_factory=RiskSettings)
    #: [engine] Spark: the master URL (default: spark-submit's, else "local[2]") and Spark settings
    master: str | None = None
    spark_conf: dict | None = None
    #: [engine] checks: where each node's check runs, "auto" | "sql" | "local" (sqlanon/placement.py),
    #: and local_budget: the largest class table local checks may hold (a size; default a quarter of free memory)
    checks: str = "auto"
    local_budget: str | None = None
    #: the TOML file the job was read from (never written over by a run)
    file: str | None = None

    @property
    def engine_options(self) -> dict:
        """Keyword arguments of the engine's constructor."""
        options = {"lookup": self.lookup, "snapshots": self.snapshots}
        if self.engine == "duckdb":
            options.update(memory_limit=self.memory_limit, temp_directory=self.temp_directory, threads=self.threads)
            if self.input.kind == "postgres":
                options.update(url=self.url)
        if self.engine == "postgres":
            options.update(url=self.url)
        if self.engine == "spark":
            options.update(master=self.master, spark_conf=self.spark_conf)
        return options

    @property
    def quasi_identifiers(self) -> list[Attribute]:
        return [a for a in self.attributes if a.role == "quasi"]

    def _validate_engine(self) -> None:
        from sqlanon.engines import ENGINES

        if self.engine not in ENGINES:
            raise ConfigError(f"unknown engine '{self.engine}'; valid engines: {', '.join(ENGINES)}")
        snap = self.snapshots
        for key in ("rollup", "history", "projection"):
            if not isinstance(getattr(snap, key), bool) and not (key != "projection" and getattr(snap, key) is None):
                raise ConfigError(f"engine.{key} must be true or false, got {getattr(snap, key)!r}")
        size, ratio = snap.history_size, snap.history_ratio
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ConfigError(f"engine.history_size must be an int >= 0 (snapshots kept), got {size!r}")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1:
            raise ConfigError(f"engine.history_ratio must be a number in [0, 1] (classes / input rows), got {ratio!r}")
        engine = ENGINES[self.engine]
        if self.engine == "spark" and self.input.path is None and self.input.table and self.input.catalog is None:
            self.input.catalog = "spark"  # with the spark engine, a table without a path is Spark's
        # Engines declare the formats they read and write (engines/base.py, Capabilities).
        able_to = engine.capabilities
        ends = (("input", self.input, able_to.inputs), ("output", self.output, able_to.outputs))
        for what, where, able in ends:
            if where.path is None and getattr(where, "arrow", None) is None and not where.table:
                continue
            if where.kind not in able:
                raise ConfigError(
                    f"the {self.engine} engine does not handle {where.kind} {'tables' if where.kind in ('postgres', 'spark') else 'files'} "
                    f"({what} {where.path or where.describe()}); it handles {', '.join(able)}: use [engine] name = "
                    f"\"{where.kind if where.kind in ('postgres', 'spark') else 'duckdb'}\""
                )
        if self.url is not None:
            from sqlanon.pg_connection import refuse_password

            if self.engine != "postgres" and self.input.kind != "postgres":
                raise ConfigError(f"engine.url applies to the postgres engine (or a PostgreSQL input table), not to '{self.engine}'")
            refuse_password(self.url)
        if self.engine != "duckdb":
            given = [k for k in ("memory_limit", "temp_directory", "threads") if getattr(self, k) is not None]
            if given:
                raise ConfigError(f"engine.{given[0]} applies to the duckdb engine only, not to '{self.engine}'")
        self._validate_spark()
        if self.checks not in ("auto", "sql", "local"):
            raise ConfigError(f"engine.checks must be \"auto\", \"sql\" or \"local\", got {self.checks!r}")
        if self.local_budget is not None and not (isinstance(self.local_budget, str) and re.fullmatch(
                r"\s*\d+(\.\d+)?\s*(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)\s*", self.local_budget, re.IGNORECASE)):
            raise ConfigError(f"engine.local_budget must be a size such as \"512MB\" or \"2GiB\", got {self.local_budget!r}")
        if self.memory_limit is not None and not (isinstance(self.memory_limit, str) and re.fullmatch(
                r"\s*\d+(\.\d+)?\s*(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)\s*", self.memory_limit, re.IGNORECASE)):
            raise ConfigError(f"engine.memory_limit must be a size such as \"2GB\" or \"512MiB\", got {self.memory_limit!r}")
        if self.temp_directory is not None and (not isinstance(self.temp_directory, str) or not self.temp_directory):
            raise ConfigError(f"engine.temp_directory must be a folder path, got {self.temp_directory!r}")
        t = self.threads
        if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 1):
            raise ConfigError(f"engine.threads must be an int >= 1, got {t!r}")

    def _validate_spark(self) -> None:
        given = [k for k in ("master", "spark_conf") if getattr(self, k) is not None]
        if given and self.engine != "spark":
            raise ConfigError(f"engine.{given[0]} applies to the spark engine only, not to '{self.engine}'")
        if self.master is not None and (not isinstance(self.master, str) or not self.master.strip()):
            raise ConfigError(f"engine.master must be a Spark master URL such as \"local[2]\" or "
                              f"\"spark://host:7077\", got {self.master!r}")
        conf = self.spark_conf
        if conf is not None and (not isinstance(conf, dict) or not all(
                isinstance(k, str) and k.startswith("spark.") and isinstance(v, (str, int, float, bool)) and not isinstance(v, dict)
                for k, v in conf.items())):
            raise ConfigError("engine.spark_conf must be a table of Spark settings, e.g. "
                              f"{{ \"spark.driver.memory\" = \"4g\" }} (keys start with \"spark.\"), got {conf!r}")
        if self.input.kind == "spark" and self.engine != "spark":
            raise ConfigError(f"the {self.engine} engine does not handle spark tables (input {self.input.describe()}): "
                              "use [engine] name = \"spark\"")

    def _validate_heuristic_settings(self, name: str, options: tuple[str, ...], optimal: bool) -> None:
        t = self.time_limit
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0):
            raise ConfigError(f"search.time_limit must be a number of seconds > 0, got {t!r}")
        for key in ("step_limit", "seed"):
            value = getattr(self, key)
            least = 1 if key == "step_limit" else 0
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise ConfigError(f"search.{key} must be an int >= {least}, got {value!r}")
        if self.stop not in ("best", "first"):
            raise ConfigError(f"search.stop must be 'best' or 'first', got {self.stop!r}")
        self.genetic.validate()
        given = [key for key, default in (("time_limit", None), ("step_limit", None), ("seed", None), ("stop", "best"))
                 if getattr(self, key) != default and key not in options]
        if given:
            from sqlanon.search import ALGORITHMS

            users = [a for a, cls in ALGORITHMS.items() if given[0] in cls.options]
            users += [a for a in INTERVAL_ALGORITHMS if given[0] in INTERVAL_OPTIONS]
            raise ConfigError(
                f"search.{given[0]} does not apply to the algorithm '{name}'"
                + (" (an optimal algorithm always runs to the proven optimum)" if optimal else "")
                + f"; it applies to: {', '.join(users)}"
            )

    def limit_rows(self, rows: int) -> int:
        """floor(s * N) on the exact decimal given, so 0.29 of 100 rows is 29, not 28."""
        return int(Fraction(str(self.suppression_limit)) * rows)

    def interval_limit_rows(self, rows: int) -> int:
        """The suppression limit of the ordered-interval algorithms, in rows."""
        given = self.koptimize.suppression_rows
        if given is None:
            return self.limit_rows(rows)
        return rows if given == "unlimited" else given

    def validate(self) -> None:
        from sqlanon.metrics import METRICS
        from sqlanon.search import ALGORITHMS

        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ConfigError(f"The 'k' parameter must be an int >= 1, got {self.k!r}.")
        s = self.suppression_limit
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
            raise ConfigError(f"The 'suppression_limit' parameter must be a number in [0, 1], got {s!r}.")
        if self.algorithm in INTERVAL_ALGORITHMS:
            self._validate_intervals()
        elif self.metric not in METRICS:
            raise ConfigError(f"unknown metric '{self.metric}'; valid metrics: {', '.join(METRICS)}")
        elif self.algorithm not in ALGORITHMS:
            valid = ", ".join([*ALGORITHMS, *INTERVAL_ALGORITHMS])
            raise ConfigError(f"unknown algorithm '{self.algorithm}'; valid algorithms: {valid}")
        self._validate_engine()
        if isinstance(self.max_lattice_size, bool) or not isinstance(self.max_lattice_size, int) or self.max_lattice_size < 1:
            raise ConfigError(f"The 'max_lattice_size' parameter must be an int >= 1, got {self.max_lattice_size!r}.")
        if not isinstance(self.stable, bool):
            raise ConfigError(f"search.stable must be true or false, got {self.stable!r}")
        if self.algorithm in INTERVAL_ALGORITHMS:
            self._validate_heuristic_settings(self.algorithm, INTERVAL_OPTIONS, optimal=False)
        else:
            algorithm = ALGORITHMS[self.algorithm]
            self._validate_heuristic_settings(self.algorithm, algorithm.options, algorithm.optimal)
        if self.lookup not in ("wide", "join"):
            raise ConfigError(f"engine.lookup must be 'wide' or 'join', got '{self.lookup}'")
        seen = set()
        for a in self.attributes:
            if a.role not in ROLES:
                raise ConfigError(f"attribute '{a.name}': unknown role '{a.role}'; valid roles: {', '.join(ROLES)}")
            if a.name in seen:
                raise ConfigError(f"attribute '{a.name}' is given twice")
            seen.add(a.name)
            if a.role == "quasi" and a.hierarchy is None:
                raise ConfigError(f"quasi-identifier '{a.name}' needs a hierarchy (hierarchy = \"file.csv\")")
            if a.role != "quasi" and a.hierarchy is not None:
                raise ConfigError(
                    f"attribute '{a.name}' has role \"{a.role}\" and a hierarchy, which only a quasi-identifier "
                    "uses (it would be ignored): set role = \"quasi\" to generalize it, or remove the hierarchy")
        self._validate_encodings()
        self._validate_models()
        self._validate_metric_options()
        from sqlanon.metrics import get_metric

        # refuses classification without a label, and weights for a metric that takes none
        get_metric(self.metric, (1.0,) if self.weights else None, self.label)
        if not self.quasi_identifiers:
            raise ConfigError("the job has no quasi-identifier: give at least one attribute role = \"quasi\"")
        if self.output.suppressed not in SUPPRESSED_MODES:
            raise ConfigError(
                f"output.suppressed must be one of {', '.join(SUPPRESSED_MODES)}, got '{self.output.suppressed}'"
            )
        if self.output.path is not None:
            if self.output.kind == "duckdb" and not self.output.table:
                raise ConfigError("output.table is required when the output is a .duckdb file")

    def _validate_encodings(self) -> None:
        """input.encoding for a CSV only (and one DuckDB can read, for the duckdb engine);
        an attribute's encoding only beside a hierarchy file."""
        from sqlanon import text_encoding

        if self.input.encoding is not None:
            if self.input.kind != "csv":
                raise ConfigError(
                    f"input.encoding applies to a CSV input only, not to {self.input.describe()} ({self.input.kind}): "
                    "Parquet and DuckDB store text as UTF-8; remove input.encoding")
            name = text_encoding.codec(self.input.encoding, "input.encoding")
            if self.engine == "duckdb" and name not in text_encoding.DUCKDB:
                raise ConfigError(
                    f"input.encoding = {self.input.encoding!r}: the duckdb engine reads CSV in utf-8, utf-16 or "
                    "latin-1 only; convert the file (e.g. iconv -t utf-8), or use [engine] name = \"memory\"")
        for a in self.attributes:
            if a.encoding is None:
                continue
            if a.hierarchy is None or isinstance(a.hierarchy, (dict, Hierarchy)):
                raise ConfigError(
                    f"attribute '{a.name}': encoding applies to a hierarchy file (hierarchy = \"file.csv\"), "
                    "which this attribute does not have; remove encoding")
            text_encoding.codec(a.encoding, f"the encoding of attribute '{a.name}'")

    def _validate_models(self) -> None:
        from sqlanon.criteria import build_model

        roles = {a.name: a.role for a in self.attributes}
        subsets = 0
        for spec in self.models:
            model = build_model(spec)
            if getattr(model, "population", False):
                subsets += 1
                self._validate_subset(model, roles, subsets)
            if model.attribute is not None and roles.get(model.attribute) != "sensitive":
                raise ConfigError(
                    f"the {model.name} model names attribute '{model.attribute}', which is "
                    + (f"'{roles[model.attribute]}'" if model.attribute in roles else "not in the job")
                    + f": give it role = \"sensitive\" ({role_setting(model.attribute, 'sensitive')})"
                )

    def _validate_subset(self, model, roles: dict, count: int) -> None:
        """A job has one research subset; its boolean column is the model's, never released."""
        if count > 1:
            raise ConfigError("a job takes one delta-presence model (one research subset): merge the entries "
                              "into one with the narrowest dmin and dmax")
        if self.algorithm in INTERVAL_ALGORITHMS:
            raise ConfigError(f"delta-presence is not available for {self.algorithm}: use an algorithm over the "
                              "generalization lattice (flash, ola, incognito, exhaustive or a heuristic)")
        column = model.subset.column
        if column is not None and roles.get(column) not in (None, "identifying"):
            raise ConfigError(
                f"the delta-presence subset column '{column}' has role \"{roles[column]}\": it marks the research "
                "subset and is not released; " + ("do not name it in the roles (or name it in identifying=)" if in_code()
                                                     else "remove its [attributes] entry (or make it \"identifying\")")
            )

    @property
    def research_subset(self):
        """The research subset of the job's delta-presence model (a ResearchSubset), or None."""
        from sqlanon.criteria import build_model

        for spec in self.models:
            model = build_model(spec)
            if getattr(model, "population", False):
                return model.subset
        return None

    @property
    def sensitive_attributes(self) -> list[str]:
        """The attributes whose per-class histograms the models (and the classification
        metric's label) read, in first-use order."""
        from sqlanon.criteria import build_model

        names = [build_model(s).attribute for s in self.models] + [self.label]
        return list(dict.fromkeys(a for a in names if a))

    def _validate_metric_options(self) -> None:
        roles = {a.name: a.role for a in self.attributes}
        if self.weights is not None:
            if not isinstance(self.weights, dict):
                raise ConfigError("search.weights must be a table of QI name = weight, e.g. weights = { age = 2 }")
            for name, w in self.weights.items():
                if roles.get(name) != "quasi":
                    raise ConfigError(f"search.weights names '{name}', which is not a quasi-identifier; QIs: "
                                      f"{[a.name for a in self.quasi_identifiers]}")
                if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
                    raise ConfigError(f"search.weights: the weight of '{name}' must be a number >= 0, got {w!r}")
            if self.weights and max(float(self.weights.get(a.name, 1.0)) for a in self.quasi_identifiers) <= 0:
                raise ConfigError("search.weights: at least one weight must be above 0")
        if self.label is not None and roles.get(self.label) not in ("sensitive", "insensitive"):
            raise ConfigError(f"search.label names '{self.label}', which must be a released column with role "
                              "\"sensitive\" or \"insensitive\"")

    def _validate_intervals(self) -> None:
        """Settings of k-optimize and hill-climb (``[search.koptimize]``)."""
        options = self.koptimize
        if self.metric not in INTERVAL_METRICS:
            raise ConfigError(
                f"metric '{self.metric}' is not available for {self.algorithm}; valid metrics: {', '.join(INTERVAL_METRICS)}"
            )
        if self.metric == "classification" and not self.label:
            raise ConfigError(
                "the classification metric needs the label column: set search.label "
                "(e.g. label = \"salary-class\")"
            )
        if self.label is not None and not isinstance(self.label, str):
            raise ConfigError(f"search.label must be a column name, got {self.label!r}")
        rows = options.suppression_rows
        if rows is not None:
            if rows != "unlimited" and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0):
                raise ConfigError(
                    f"search.koptimize.suppression_rows must be an int >= 0 or \"unlimited\", got {rows!r}"
                )
            if self.suppression_limit:
                raise ConfigError(
                    "give the suppression limit once: privacy.suppression_limit (a fraction) or "
                    "search.koptimize.suppression_rows (rows), not both"
                )
        if options.upper_bound not in UPPER_BOUNDS:
            raise ConfigError(
                f"search.koptimize.upper_bound must be one of {', '.join(UPPER_BOUNDS)}, got {options.upper_bound!r}"
            )
        if not isinstance(options.order, dict):
            raise ConfigError("search.koptimize.order must be a table: attribute = [values in order]")
        if self.algorithm == "hill-climb" and self.time_limit is None and self.step_limit is None:
            raise ConfigError("hill-climb runs until a limit: set search.time_limit (seconds) or search.step_limit")

    def hierarchy_of(self, attribute: Attribute, values=None) -> Hierarchy:
        """The attribute's hierarchy: given, read from its file, or built from its spec over
        ``values`` (the attribute's distinct values, needed only by builders)."""
        h = attribute.hierarchy
        if isinstance(h, Hierarchy):
            return h
        if isinstance(h, dict):
            from sqlanon.hierarchy.builders import build_hierarchy

            return build_hierarchy(attribute.name, h, values() if callable(values) else values)
        return read_hierarchy(h, attribute.name, encoding=attribute.encoding)


_SECTIONS = {
    "input": {"path", "delimiter", "table", "drop", "encoding"},
    "privacy": {"k", "suppression_limit", "models"},
    "search": {"algorithm", "metric", "stable", "max_lattice_size", "weights", "label", "time_limit", "step_limit",
               "seed", "stop", "genetic", "koptimize"},
    "engine": {"name", "lookup", "rollup", "history", "projection", "history_size", "history_ratio",
               "memory_limit", "temp_directory", "threads", "url", "master", "spark_conf", "checks", "local_budget"},
    "output": {"path", "table", "report", "summary", "html", "suppressed", "delimiter"},
    "risk": set(RISK_KEYS),
}

def _with_population(spec: dict, risk: RiskSettings) -> dict:
    """A population-uniqueness entry without its own population takes [risk]'s (and its model)."""
    if "population_size" in spec or "sampling_fraction" in spec:
        return spec
    taken = {"population_size": risk.population_size, "sampling_fraction": risk.sampling_fraction}
    return {"model": risk.model, **{k: v for k, v in taken.items() if v is not None}, **spec}


_KOPTIMIZE = {"suppression_rows", "upper_bound", "order"}


def load_job(path: str | Path, **overrides: Any) -> Job:
    """Load a TOML job file; keyword overrides (CLI flags) win over the file.

    Overrides: k, suppression_limit, metric, algorithm, time_limit, step_limit, seed, output, report, summary,
    html, overwrite.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read job file {path}: {error.strerror or error}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    job = job_from_dict(doc, base=path.parent, where=str(path), **overrides)
    return replace(job, file=str(path))


def job_from_dict(doc: dict, base: Path = Path("."), where: str = "job", **overrides: Any) -> Job:
    unknown = set(doc) - set(_SECTIONS) - {"attributes"}
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {sorted(unknown)}; known: {sorted(_SECTIONS) + ['attributes']}")
    for section, keys in _SECTIONS.items():
        value = doc.get(section, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: [{section}] must be a table")
        extra = set(value) - keys
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [{section}]; known: {sorted(keys)}")

    def resolve(p: str | None) -> str | None:
        if p is None:
            return None
        return str(p) if Path(p).is_absolute() else str(base / p)

    raw_input = doc.get("input", {})
    if "path" not in raw_input and "table" not in raw_input:
        raise ConfigError(f"{where}: [input] needs a path (or a table: a PostgreSQL table, see [engine] url, "
                          "or with the spark engine a Spark table)")
    drop = raw_input.get("drop", [])
    if not isinstance(drop, list) or not all(isinstance(d, str) for d in drop):
        raise ConfigError(f"{where}: input.drop must be a list of column names")
    source = Source(
        path=resolve(raw_input.get("path")),
        delimiter=raw_input.get("delimiter", ","),
        table=raw_input.get("table"),
        drop=tuple(drop),
        encoding=raw_input.get("encoding"),
        catalog="spark" if doc.get("engine", {}).get("name") == "spark" and "path" not in raw_input else None,
    )
    attributes = []
    raw_attributes = doc.get("attributes", {})
    if not isinstance(raw_attributes, dict):
        raise ConfigError(f"{where}: [attributes] must be a table of [attributes.<column>] tables")
    for name, spec in raw_attributes.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"{where}: [attributes.\"{name}\"] must be a table with a role")
        extra = set(spec) - {"role", "hierarchy", "encoding"}
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} for attribute '{name}'; known: encoding, hierarchy, role")
        if "role" not in spec:
            raise ConfigError(f"{where}: attribute '{name}' has no role; give one of {', '.join(ROLES)}")
        hierarchy = spec.get("hierarchy")
        if isinstance(hierarchy, dict):
            if "type" not in hierarchy:
                raise ConfigError(f"{where}: the hierarchy of '{name}' needs a type (intervals, mask, date, order)")
        elif hierarchy is not None and not isinstance(hierarchy, str):
            raise ConfigError(f"{where}: the hierarchy of '{name}' must be a file path or a builder table")
        else:
            hierarchy = resolve(hierarchy)
        attributes.append(Attribute(name, spec["role"], hierarchy, spec.get("encoding")))
    privacy, search, output = doc.get("privacy", {}), doc.get("search", {}), doc.get("output", {})
    koptimize = search.get("koptimize", {})
    if not isinstance(koptimize, dict):
        raise ConfigError(f"{where}: [search.koptimize] must be a table")
    extra = set(koptimize) - _KOPTIMIZE
    if extra:
        raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [search.koptimize]; known: {sorted(_KOPTIMIZE)}")
    k = privacy.get("k")
    models = privacy.get("models", [])
    if not isinstance(models, list):
        raise ConfigError(f"{where}: privacy.models must be an array of tables ([[privacy.models]])")
    risk = RiskSettings.from_table(doc.get("risk", {}), where)
    others = []
    for model in models:
        if isinstance(model, dict) and model.get("type") == "population-uniqueness":
            model = _with_population(model, risk)
        if isinstance(model, dict) and model.get("type") != "k-anonymity":
            others.append(_model_spec(model, resolve, where))
        else:
            k = _model_k(model, k, where)
    if k is None:
        k = 1 if others else 2  # without k-anonymity asked for, every class size is allowed
    job = Job(
        input=source,
        attributes=attributes,
        k=k,
        models=tuple(others),
        suppression_limit=privacy.get("suppression_limit", 0.0),
        algorithm=search.get("algorithm", "flash"),
        metric=search.get("metric", "discernibility"),
        engine=doc.get("engine", {}).get("name", "duckdb"),
        lookup=doc.get("engine", {}).get("lookup", "wide"),
        snapshots=SnapshotSettings(**{k: v for k, v in doc.get("engine", {}).items()
                                      if k in SnapshotSettings.__dataclass_fields__}),
        memory_limit=doc.get("engine", {}).get("memory_limit"),
        temp_directory=resolve(doc.get("engine", {}).get("temp_directory")),
        threads=doc.get("engine", {}).get("threads"),
        url=doc.get("engine", {}).get("url"),
        master=doc.get("engine", {}).get("master"),
        spark_conf=doc.get("engine", {}).get("spark_conf"),
        checks=doc.get("engine", {}).get("checks", "auto"),
        local_budget=doc.get("engine", {}).get("local_budget"),
        stable=search.get("stable", False),
        max_lattice_size=search.get("max_lattice_size", 100_000),
        time_limit=search.get("time_limit"),
        step_limit=search.get("step_limit"),
        seed=search.get("seed"),
        stop=search.get("stop", "best"),
        genetic=_genetic(search.get("genetic", {}), where),
        weights=search.get("weights"),
        label=search.get("label"),
        koptimize=KOptimizeOptions(**koptimize),
        risk=risk,
        output=Output(
            path=resolve(output.get("path")),
            table=output.get("table"),
            report=resolve(output.get("report")),
            summary=resolve(output.get("summary")),
            html=_html_option(output.get("html", True), resolve, where),
            suppressed=output.get("suppressed", "mask"),
            delimiter=output.get("delimiter", ","),
        ),
    )
    return apply_overrides(job, **overrides)


def _html_option(value: Any, resolve, where: str) -> str | bool:
    """output.html: true (beside the report), false (none) or a file path."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value:
        return resolve(value)
    raise ConfigError(f"{where}: output.html must be true, false or a file path (e.g. \"report.html\"), got {value!r}")


def _genetic(table: Any, where: str) -> GeneticParams:
    known = set(GeneticParams.__dataclass_fields__)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [search.genetic] must be a table with keys {sorted(known)}")
    extra = set(table) - known
    if extra:
        raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [search.genetic]; known: {sorted(known)}")
    return GeneticParams(**table)


def _model_spec(model: dict, resolve, where: str) -> dict:
    """Check one [[privacy.models]] entry (other than k-anonymity); resolve its file paths."""
    from sqlanon.criteria import build_model

    spec = dict(model)
    for key in ("hierarchy", "subset_file"):
        if isinstance(spec.get(key), str):
            spec[key] = resolve(spec[key])
    try:
        build_model(spec)
    except ConfigError as error:
        raise ConfigError(f"{where}: [[privacy.models]]: {error}") from None
    return spec


def _model_k(model: Any, k: Any, where: str) -> Any:
    """Read a k-anonymity [[privacy.models]] entry."""
    from sqlanon.criteria import MODEL_NAMES

    if not isinstance(model, dict) or "type" not in model:
        raise ConfigError(f"{where}: each [[privacy.models]] entry needs a type; valid types: {', '.join(MODEL_NAMES)}")
    extra = set(model) - {"type", "k"}
    if extra:
        raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} for the k-anonymity model; known: k")
    if k is not None and model.get("k") != k:
        raise ConfigError(f"{where}: k is given twice with different values ({k} and {model.get('k')})")
    return model.get("k")


def apply_overrides(job: Job, **overrides: Any) -> Job:
    """Apply CLI-style overrides (None means: keep the file's value)."""
    o = {k: v for k, v in overrides.items() if v is not None}
    output = replace(
        job.output,
        path=o.pop("output", job.output.path),
        report=o.pop("report", job.output.report),
        summary=o.pop("summary", job.output.summary),
        html=o.pop("html", job.output.html),
        overwrite=o.pop("overwrite", job.output.overwrite),
    )
    unknown = set(o) - {"k", "suppression_limit", "metric", "algorithm", "time_limit", "step_limit", "seed"}
    if unknown:
        raise ConfigError(f"unknown override(s): {sorted(unknown)}")
    return replace(job, output=output, **o)
