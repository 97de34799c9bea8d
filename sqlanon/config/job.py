"""The job: what to read, the role of every column, the privacy models, the search, the engine
and the output. Built in code or read from a TOML file (``config/read.py``), validated once at
the start of a run (``config/validate.py``); frozen: a changed job is a new one (``replace``).

Nothing here runs or validates anything beyond a value's own shape; nothing names an engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Mapping

from sqlanon.core.options import INTERVAL_OPTIONS, IntervalOptions, Options
from sqlanon.core.risk import RiskSettings
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.core.specs import Output, Source
from sqlanon.engines.profiles import DEFAULT_ENGINE
from sqlanon.hierarchy import Hierarchy, read_hierarchy
from sqlanon.hierarchy.builders import build_hierarchy

ROLES = ("quasi", "sensitive", "insensitive", "identifying")


@dataclass(frozen=True)
class Attribute:
    name: str
    role: str
    hierarchy: Hierarchy | str | Path | dict | None = None  # dict: a builder spec
    encoding: str | None = None  # the hierarchy file's text encoding (None: UTF-8)


#: the ordered-interval algorithms (sqlanon/koptimize/), which run apart from the lattice searches
INTERVAL_ALGORITHMS = tuple(INTERVAL_OPTIONS)
INTERVAL_METRICS = ("discernibility", "classification")


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
    #: the [search] keys the algorithm owns, as given (e.g. Lightning's stop, the genetic
    #: search's seed and [search.genetic]), read and checked by the algorithm's options class
    #: (sqlanon/core/options.py) when the job is validated
    search_options: Mapping[str, Any] = field(default_factory=dict)
    max_lattice_size: int = 100_000  # optimal algorithms refuse larger lattices
    output: Output = field(default_factory=Output)
    #: privacy models besides k-anonymity, as [[privacy.models]] entries (dicts with a type)
    models: tuple[dict, ...] = ()
    #: per-QI weights for loss, precision and entropy (QI name -> weight, default 1)
    weights: Mapping[str, float] | None = None
    #: the class label column of the classification metric
    label: str | None = None
    #: how the metric weighs generalization against suppression, 0 to 1 (ARX's gs factor;
    #: 0.5 weighs both alike, the metrics' plain definitions)
    gs_factor: float = 0.5
    #: how loss, precision and entropy combine their per-attribute values (metrics/aggregate.py;
    #: None: the metric's own, as ARX)
    aggregate: str | None = None
    #: [engine] rollup, history, projection, history_size, history_ratio
    snapshots: SnapshotSettings = field(default_factory=SnapshotSettings)
    #: [risk] the population behind the sample and the at-risk threshold (sqlanon/core/risk.py)
    risk: RiskSettings = field(default_factory=RiskSettings)
    #: [engine] checks: where each node's check runs, "auto" | "sql" | "local" (sqlanon/checks/placement.py),
    #: and local_budget: the largest class table local checks may hold (a size; default a quarter of free memory)
    checks: str = "auto"
    local_budget: str | None = None
    #: the TOML file the job was read from (never written over by a run)
    file: str | None = None
    #: whether this is a ``ValidJob`` (what ``config/validate.py`` returns)
    validated: ClassVar[bool] = False

    @property
    def model_specs(self) -> tuple[dict, ...]:
        """Every privacy model of the job as its entry, k-anonymity first: k is a model like
        the others, ``k`` its setting as [privacy] gives it (the models read their entries)."""
        return ({"type": "k-anonymity", "k": self.k}, *self.models)

    @property
    def quasi_identifiers(self) -> list[Attribute]:
        return [a for a in self.attributes if a.role == "quasi"]

    def limit_rows(self, rows: int) -> int:
        """floor(s * N) on the exact decimal given, so 0.29 of 100 rows is 29, not 28."""
        return int(Fraction(str(self.suppression_limit)) * rows)

    def hierarchy_of(self, attribute: Attribute, values=None) -> Hierarchy:
        """The attribute's hierarchy: given, read from its file, or built from its spec over
        ``values`` (the attribute's distinct values, needed only by builders)."""
        h = attribute.hierarchy
        if isinstance(h, Hierarchy):
            return h
        if isinstance(h, dict):
            return build_hierarchy(attribute.name, h, values() if callable(values) else values)
        assert h is not None, f"'{attribute.name}' has no hierarchy (the job's validation refuses a QI without one)"
        return read_hierarchy(h, attribute.name, encoding=attribute.encoding)


class ValidJob(Job):
    """A job ``validate`` passed (``config/validate.py``): the type a run holds. Only
    ``ValidJob.of`` makes one; ``dataclasses.replace`` of a valid job (any change) gives a plain
    ``Job``, which a run validates again, since a changed setting may break what was checked."""

    validated: ClassVar[bool] = True
    #: the algorithm's options, read from ``search_options`` by its options class
    options: Options

    def __new__(cls, *args: Any, **kwargs: Any) -> Job:  # type: ignore[misc]
        # ``replace`` calls the class with every field: what it makes has not been validated
        return Job(*args, **kwargs)

    def release_limit_rows(self, rows: int) -> int:
        """The suppression limit in rows the release is held to: an interval algorithm's
        ``[search.koptimize] suppression_rows`` when given, else floor(s * N)."""
        if isinstance(self.options, IntervalOptions):
            return self.options.limit_rows(rows, self.limit_rows(rows))
        return self.limit_rows(rows)

    @classmethod
    def of(cls, job: Job, options: Options) -> "ValidJob":
        """``job``'s settings as a valid job, with the algorithm's ``options`` read (``validate``
        calls this once every check passed)."""
        valid = object.__new__(cls)
        for setting in fields(job):
            object.__setattr__(valid, setting.name, getattr(job, setting.name))
        object.__setattr__(valid, "options", options)
        return valid
