"""The report of a run as typed dataclasses: what report.json holds, built once by the pipeline.

``Report.to_dict()`` is the JSON document (``Result.report``, ``--json``, report.json), with
its keys in the order report.json has always had them; the Markdown summary, the HTML page
and ``Result``'s display read the dataclasses. A section that does not apply to the run is
None and left out of the document (``omit`` below): the verification when nothing was
written, the lattice search's figures for an interval algorithm, the solution when none was
found. Sections whose keys are open-ended stay dicts: a model's description (each model names
its own parameters), the risk figures (``sqlanon.reidentification.analysis.risk_section``) and the
interval algorithms' part (``sqlanon.koptimize.runner.interval_report``).

This module imports nothing of sqlanon: every layer may build or read a report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

#: field metadata: leave the key out of the document when the value is None (or empty)
OMIT = {"omit": True}
#: field metadata: the section's keys go into the document itself (None: nothing)
FLAT = {"flat": True}


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it: the report's sections through their ``to_dict``."""
    if isinstance(value, _Section):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class _Section:
    """A report section: its fields, in order, as a dict; ``omit`` fields left out when None
    or empty."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if (f.metadata.get("omit") or f.metadata.get("flat")) and (value is None or value == []):
                continue
            if f.metadata.get("flat"):
                out.update(_plain(value))
            else:
                out[f.metadata.get("key", f.name)] = _plain(value)
        return out


@dataclass
class Privacy(_Section):
    """The models (each described by itself, with the value ``achieved`` on the release) and
    the suppression limit. ``monotonic``: whether every model is (lattice searches only)."""

    models: list[dict[str, Any]]
    suppression_limit: float
    suppression_limit_rows: int
    monotonic: bool | None = field(default=None, metadata=OMIT)


@dataclass
class Seconds(_Section):
    """The run's phases, in seconds (rounded to microseconds); read by the ARX harness."""

    prepare: float
    search: float
    output: float
    risk: float | None = field(default=None, metadata=OMIT)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                setattr(self, f.name, round(value, 6))


@dataclass
class VerificationReport(_Section):
    """What the re-read of the written output found (``sqlanon.release.verify``): every model
    with its achieved value re-measured there, the released classes' sizes (size, classes),
    the rows and groups read and the suppressed rows found."""

    verified: bool
    models: list[dict[str, Any]]
    class_sizes: list[list[int]]
    rows: int
    groups: int
    min_group_size: int | None
    suppressed_rows_found: int
    masked_rows: int

    def sizes(self) -> dict[int, int]:
        """Class size -> released classes (the risk's "after")."""
        return {int(size): int(count) for size, count in self.class_sizes}


@dataclass
class SearchFigures(_Section):
    """A lattice search's figures (sqlanon.search)."""

    algorithm_counters: dict[str, Any]
    optimal: bool
    stopped: str
    trace: list[dict[str, Any]]
    metric_monotonic: bool
    lattice_size: int
    checks: int
    tagged: int
    rollups: int
    snapshot_hits: int
    pruned: int
    skipped_by_bound: int


@dataclass
class Solution(_Section):
    """The released node of a lattice search."""

    transformation: list[int]
    levels: dict[str, int]
    loss: float
    suppressed: int
    classes: int
    min_class_size: int | None


@dataclass
class Risk(_Section):
    """Re-identification risk of the input (``before``) and of the release (``after``, None
    when nothing was released); each a ``sqlanon.reidentification.analysis.risk_section``."""

    before: dict[str, Any]
    after: dict[str, Any] | None


@dataclass
class AttributeFigures(_Section):
    """One QI of the released node (sqlanon/report/attributes.py)."""

    name: str
    level: int
    height: int
    distinct: int | None
    loss: float | None


@dataclass
class Manifest(_Section):
    """Enough to apply the same transformation to new data (sqlanon/report/manifest.py)."""

    version: int
    quasi_identifiers: list[str]
    levels: dict[str, int]
    hierarchies: dict[str, str]
    models: list[dict[str, Any]]
    suppression_limit: float
    suppressed: str


@dataclass
class Report(_Section):
    """One run's report. The lattice path fills ``search`` (and ``solution`` when it found
    one); the interval algorithms fill ``intervals`` and ``interval_checks``."""

    success: bool
    input: str
    rows: int
    base_classes: int
    population_rows: int | None = field(metadata=OMIT)
    quasi_identifiers: list[str]
    privacy: Privacy
    algorithm: str
    metric: str
    #: the metric's gs factor when not 0.5 (the weighting of generalization against suppression)
    gs_factor: float | None = field(metadata=OMIT)
    #: the metric's aggregate function when the job chose one
    aggregate: str | None = field(metadata=OMIT)
    rows_scanned: int
    queries: int
    seconds: Seconds
    engine: str
    checks_placement: str | None
    checks_placement_reason: str | None
    query_latency_ms: float | None
    class_table_bytes: int | None
    lookup: str
    snapshots: dict[str, Any]
    versions: dict[str, str]
    output: str | None
    #: the written rows' order, "shuffle" or "input" (None: nothing written), and the seed of a
    #: reproducible shuffle when the job gave one; a shuffle's drawn key is never reported
    order: str | None = field(metadata=OMIT)
    order_seed: int | None = field(metadata=OMIT)
    verified: bool
    verification: VerificationReport | None = field(default=None, metadata=OMIT)
    search: SearchFigures | None = field(default=None, metadata=FLAT)
    intervals: dict[str, Any] | None = field(default=None, metadata=FLAT)
    solution: Solution | None = field(default=None, metadata=FLAT)
    risk: Risk | None = None
    #: an interval search's checks, after its risk (a lattice search's are in ``search``)
    interval_checks: int | None = field(default=None, metadata={**OMIT, "key": "checks"})
    reason: str | None = field(default=None, metadata=OMIT)
    manifest: Manifest | None = field(default=None, metadata=OMIT)
    attributes: list[AttributeFigures] | None = field(default=None, metadata=OMIT)
    warnings: list[str] = field(default_factory=list, metadata=OMIT)

    # -- what the readers ask, the same for both kinds of search ---------------------------
    @property
    def checks(self) -> int:
        return self.search.checks if self.search is not None else self.interval_checks or 0

    @property
    def levels(self) -> dict[str, int] | None:
        return self.solution.levels if self.solution is not None else None

    @property
    def loss(self) -> float | None:
        if self.solution is not None:
            return self.solution.loss
        return (self.intervals or {}).get("loss")

    @property
    def suppressed(self) -> int | None:
        if self.solution is not None:
            return self.solution.suppressed
        return (self.intervals or {}).get("suppressed")

    @property
    def classes(self) -> int | None:
        if self.solution is not None:
            return self.solution.classes
        return (self.intervals or {}).get("classes")

    @property
    def min_class_size(self) -> int | None:
        if self.solution is not None:
            return self.solution.min_class_size
        return (self.intervals or {}).get("min_class_size")

    @property
    def optimal(self) -> bool:
        """Proven optimal (a lattice search's ``optimal``, an interval search's ``proven_optimal``)."""
        if self.search is not None:
            return self.search.optimal
        return bool((self.intervals or {}).get("proven_optimal"))

    @property
    def cuts(self) -> dict[str, list] | None:
        return (self.intervals or {}).get("cuts")

    # -- the document ------------------------------------------------------------------------
    # to_dict (from _Section): the fields in order, ``FLAT`` sections' keys in place, so the
    # keys keep report.json's order: the common fields, the verification, the search's
    # figures (lattice or intervals), the solution, the risk, then (intervals) the checks,
    # the reason, the manifest, the attributes and the warnings.

    def to_json(self) -> str:
        """report.json's text."""
        return json.dumps(self.to_dict(), indent=2) + "\n"
