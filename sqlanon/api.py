"""The Python API: ``anonymize``, ``Anonymizer``, ``explain`` and ``risk`` over a table held in
Python (pandas, polars, pyarrow, a DuckDB relation, a Spark DataFrame, anything with
``__arrow_c_stream__``), a file path, or a ``Job``.

A job file and a keyword call are two faces of one ``Job``: the keywords build it
(``job_from_keywords``) and both run through ``sqlanon.anonymizer``. With an input given in
code and no ``output=``, the released table comes back as ``Result.table`` in the caller's
type: the run writes it to a temporary Parquet file, verifies it there like any output, and
reads it back (a Spark DataFrame reads the file in place, see ``sqlanon.frames``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sqlanon import anonymizer, frames
from sqlanon.anonymizer import Result
from sqlanon.assess import check
from sqlanon.checks.checker import CheckResult
from sqlanon.config.job import ROLES, Attribute, Job
from sqlanon.core.options import gathered
from sqlanon.core.specs import Output, Source
from sqlanon.config.keywords import models_of, plain, source_of
from sqlanon.core.risk import RiskSettings
from sqlanon.core.wording import from_code
from sqlanon.engines import create_engine
from sqlanon.engines.profiles import PROFILES
from sqlanon.errors import ConfigError, NotAnonymousError
from sqlanon.hierarchy import Hierarchy
from sqlanon.progress import ProgressArgument, ProgressCallback, progress_callback
from sqlanon.report.risk import analyse
from sqlanon.report.summary import summary
from sqlanon.session import Session

#: keywords of ``anonymize`` that set the Job's search and engine (the job file's names; the
#: algorithm's own go to ``Job.search_options``); the
#: engines' own settings (``memory_limit=``, ``url=``, ``master=`` ...) go to ``Job.engine_settings``
_JOB_KEYWORDS = (
    "metric",
    "algorithm",
    "weights",
    "label",
    "gs_factor",
    "aggregate",
    "time_limit",
    "step_limit",
    "seed",
    "stop",
    "stable",
    "max_lattice_size",
    "lookup",
    "checks",
    "local_budget",
)
_ENGINE_KEYWORDS = tuple(dict.fromkeys(f.name for p in PROFILES.values() for f in fields(p.settings)))
RELEASED = "Result.table (in memory)"


def job_from_keywords(
    data: Any,
    quasi: Any,
    *,
    k: int | None = None,
    suppression_limit: float = 0.0,
    models: Any = (),
    sensitive: Any = (),
    insensitive: Any = (),
    identifying: Any = (),
    others: str | None = None,
    engine: str | None = None,
    risk: dict[str, Any] | None = None,
    output: str | os.PathLike[str] | None = None,
    report: str | os.PathLike[str] | None = None,
    summary: str | os.PathLike[str] | None = None,
    suppressed: str = "mask",
    overwrite: bool = False,
    delimiter: str = ",",
    table: str | None = None,
    encoding: str | None = None,
    order: str = "shuffle",
    order_seed: int | None = None,
    **settings: Any,
) -> tuple[Job, frames.Frame | None]:
    """The Job the keywords describe, and the in-memory table it reads (None for a file).

    ``quasi``: column -> hierarchy (a file path, a builder dict with a ``type``, a
    ``Hierarchy``, or its rows as a list of lists or a table). ``models``: ``[[privacy.models]]``
    entries as dicts. Columns a model or the classification ``label`` reads are sensitive
    (insensitive for the label) unless named otherwise; every other column needs a role, or
    ``others`` ("insensitive": released unchanged, "identifying": left out). ``order``:
    "shuffle" (the rows in a random order, ``order_seed`` making it reproducible) or "input"
    (``[output] order`` and ``seed``).
    """
    unknown = set(settings) - set(_JOB_KEYWORDS) - set(_ENGINE_KEYWORDS)
    if unknown:
        raise ConfigError(
            f"unknown keyword(s) {sorted(unknown)}; the settings are k, suppression_limit, models, "
            f"sensitive, insensitive, identifying, others, engine, risk, output, report, summary, "
            f"suppressed, overwrite, delimiter, table, encoding, order, order_seed, "
            f"{', '.join(_JOB_KEYWORDS + _ENGINE_KEYWORDS)}"
        )
    if not isinstance(quasi, dict) or not quasi:
        raise ConfigError(
            "quasi= must name the quasi-identifiers with their hierarchies, e.g. "
            'quasi={"age": "age.csv", "zip": {"type": "mask"}}'
        )
    source, frame = source_of(data, delimiter, table, encoding)
    suppression_limit, risk, settings = plain(suppression_limit), plain(risk), plain(settings)
    risk_settings = RiskSettings.from_table(risk or {}, "risk=")
    k, specs = models_of(k, models, risk_settings)
    roles = _roles(quasi, sensitive, insensitive, identifying)
    for spec in specs:  # a model's attribute is sensitive unless named otherwise
        if isinstance(spec.get("attribute"), str):
            roles.setdefault(spec["attribute"], "sensitive")
    if isinstance(settings.get("label"), str):
        roles.setdefault(settings["label"], "insensitive")
    if others is not None:
        if others not in ("insensitive", "identifying", "sensitive"):
            raise ConfigError(
                f'others= must be "insensitive" (released unchanged), "sensitive" or '
                f'"identifying" (left out), got {others!r}'
            )
        subset = {spec.get("subset") for spec in specs if spec.get("subset")}  # delta-presence's, k-map's
        for name in _columns(source, frame, engine):
            if name not in subset:
                roles.setdefault(name, others)
    attributes = [
        Attribute(name, role, _hierarchy(name, quasi[name]) if role == "quasi" else None)
        for name, role in roles.items()
    ]
    if engine is None:
        engine = "spark" if frame is not None and frame.kind == "spark" else "duckdb"
    elif frame is not None and frame.kind == "spark" and engine != "spark":
        raise ConfigError(
            f"a Spark DataFrame is anonymized by the spark engine in its own SparkContext: "
            f'leave out engine= (or give engine="spark"), not {engine!r}'
        )
    out = Output(
        path=_path(output),
        report=_path(report),
        summary=_path(summary),
        suppressed=suppressed,
        overwrite=overwrite,
        order=order,
        seed=order_seed,
    )
    own = {key: settings.pop(key) for key in list(settings) if key in _ENGINE_KEYWORDS}
    job = Job(
        input=source,
        attributes=attributes,
        k=k,
        suppression_limit=suppression_limit,
        models=tuple(specs),
        engine=engine,
        engine_settings=own,
        risk=risk_settings,
        output=out,
        **gathered(settings),  # the algorithm's own keys into search_options, as [search] gives them
    )
    return job, frame


def _roles(quasi: dict[str, Any], sensitive: Any, insensitive: Any, identifying: Any) -> dict[str, str]:
    roles: dict[str, str] = {}
    for role, names in (
        ("quasi", list(quasi)),
        ("sensitive", sensitive),
        ("insensitive", insensitive),
        ("identifying", identifying),
    ):
        names = [names] if isinstance(names, str) else list(names)
        for name in names:
            if name in roles:
                raise ConfigError(f"column {name!r} is named in {roles[name]}= and {role}=: give it one role")
            roles[name] = role
    assert set(roles.values()) <= set(ROLES)
    return roles


def _hierarchy(name: str, given: Any) -> Hierarchy | str | dict[str, Any]:
    if isinstance(given, dict):
        spec: dict[str, Any] = plain(given)  # a builder's numbers (widths, levels) may be numpy's
        return spec
    if isinstance(given, Hierarchy):
        return given
    if isinstance(given, (str, os.PathLike)):
        return str(given)
    if frames.kind_of(given) not in (None, "spark"):
        table = frames.frame(given).arrow
        assert table is not None  # only a Spark DataFrame is held without Arrow
        rows = table.to_pylist()
        return Hierarchy.from_rows(name, [["" if v is None else str(v) for v in row.values()] for row in rows])
    if isinstance(given, (list, tuple)) and all(isinstance(row, (list, tuple)) for row in given):
        return Hierarchy.from_rows(name, [[str(v) for v in row] for row in given])
    raise ConfigError(
        f"the hierarchy of {name!r} must be a file path, a builder dict with a type (intervals, mask, "
        f"date, order), a Hierarchy, or its rows (a list of lists, or a table); got {type(given).__name__}"
    )


def _path(path: str | os.PathLike[str] | None) -> str | None:
    return None if path is None else str(Path(path))


def _columns(source: Source, frame: frames.Frame | None, engine: str | None) -> list[str]:
    """The input's columns (a file is opened by the engine, reading no rows)."""
    if frame is not None:
        return frame.columns
    reader = create_engine("duckdb" if engine in (None, "memory", "duckdb") else engine)
    try:
        return reader.open(source)
    finally:
        reader.close()


# -- running ---------------------------------------------------------------------------------
@contextmanager
def bound(job: Job, frame: frames.Frame | None) -> Iterator[tuple[Job, frames.Frame | None]]:
    """The job reading ``frame`` where the engine can: a Spark DataFrame as a global temporary
    view for the duration of the run; any other table in memory (also one given in
    ``Source(arrow=...)`` of a Job) as a pyarrow Table."""
    if frame is None and job.input.kind == "arrow":
        frame = frames.frame(job.input.arrow)
        if frame.kind != "spark":
            job = replace(job, input=replace(job.input, arrow=frame.arrow))
    if frame is None or frame.kind != "spark":
        yield job, frame
        return
    view = frames.spark_view(frame)
    try:
        yield replace(job, engine="spark", input=Source(table=view, catalog="spark", drop=job.input.drop)), frame
    finally:
        frames.drop_spark_view(frame, view)


def run(
    job: Job,
    frame: frames.Frame | None = None,
    manifest: dict[str, Any] | None = None,
    on_check: Callable[[CheckResult], None] | None = None,
    on_phase: Callable[[str], None] | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Anonymize (or with ``manifest`` apply a saved transformation to) the job's data; with a
    table given in code and no output, the released table is ``Result.table``."""

    def execute(job: Job) -> Result:
        if manifest is not None:
            return anonymizer.apply(job, manifest)
        return anonymizer.anonymize(job, on_check=on_check, on_phase=on_phase, on_progress=on_progress)

    with from_code(job.file is None), bound(job, frame) as (job, frame):
        if frame is None or job.output.writes or job.output.table:
            return execute(job)
        folder = frames.keep_folder() if frame.kind == "spark" else tempfile.mkdtemp(prefix="sqlanon-")
        target = os.path.join(folder, "released.parquet")
        try:
            result = execute(replace(job, output=replace(job.output, path=target)))
            details = result.details
            assert details is not None  # a run's Result carries its typed report
            if result.success:
                released = None if frame.kind == "spark" else pq.read_table(target)
                result.table = frames.restore(frame, released, target, {a.name for a in job.quasi_identifiers})
                details.output = RELEASED
            if frame.kind != "pyarrow":  # a pyarrow Table is what Source.describe() names
                details.input = f"{frame.kind} table"
            result.report = details.to_dict()
            return result
        finally:
            if frame.kind != "spark":
                shutil.rmtree(folder, ignore_errors=True)


def anonymize(
    data: Any,
    quasi: dict[str, Any] | None = None,
    *,
    on_check: Callable[[CheckResult], None] | None = None,
    on_phase: Callable[[str], None] | None = None,
    progress: ProgressArgument = None,
    on_progress: ProgressCallback | None = None,
    **settings: Any,
) -> Result:
    """Anonymize ``data`` and return a ``Result`` (``.table``: the released data in the type of
    ``data`` when no ``output=`` file is given).

    ``data`` is a ``Job`` (from ``load_job`` or built in code; then no other setting is
    taken), a table in memory, or a file path; ``quasi`` and the keywords build the Job
    (see ``job_from_keywords``). ``on_check`` is called with every check's result and
    ``on_phase`` with the name of each phase as it starts. ``progress``: True (a progress
    display, in a notebook too), "auto" (a display only on a terminal), or a callable taking
    ``sqlanon.progress.Progress``; ``on_progress`` is the same callable under the name
    ``anonymizer.anonymize`` gives it. Nothing is displayed by default.

    >>> import pyarrow as pa, sqlanon
    >>> people = pa.table({"age": ["31", "32", "33", "34"], "city": ["A", "A", "B", "B"]})
    >>> age = [["31", "30-34", "*"], ["32", "30-34", "*"], ["33", "30-34", "*"], ["34", "30-34", "*"]]
    >>> result = sqlanon.anonymize(people, quasi={"age": age}, k=2, insensitive=["city"])
    >>> result.levels, result.table.column("age").to_pylist()
    ({'age': 1}, ['30-34', '30-34', '30-34', '30-34'])
    """
    if isinstance(data, Job):
        if quasi is not None or settings:
            raise ConfigError(
                "a Job carries its own settings: call anonymize(job) alone, or give the data and "
                "its settings as keywords (anonymize(data, quasi={...}, k=...))"
            )
        job, frame = data, None
    else:
        with from_code():
            job, frame = job_from_keywords(data, quasi, **settings)
    display, close = progress_callback(on_progress if progress is None else progress)
    try:
        return run(job, frame, on_check=on_check, on_phase=on_phase, on_progress=display)
    finally:
        close()


class Anonymizer:
    """Find a transformation on one table, apply it to others (scikit-learn's fit/transform).

    ``Anonymizer(quasi={...}, k=5, ...)`` takes ``anonymize``'s keywords (no ``output``).
    ``fit(train)`` searches the optimum on ``train``; ``transform(new)`` releases ``new`` at
    the same levels, re-checking every model on it, and raises ``NotAnonymousError`` when
    they no longer hold (its ``result`` says why). Each returns the released table in the
    type of its input; ``result_`` and ``last_result_`` keep the runs' ``Result``.
    """

    def __init__(self, quasi: dict[str, Any], **settings: Any) -> None:
        refused = [key for key in ("output", "report", "summary", "overwrite") if key in settings]
        if refused:
            raise ConfigError(
                f"Anonymizer returns the released tables; it takes no {refused[0]}= (use "
                "sqlanon.anonymize(data, ..., output=...) to write a file)"
            )
        self.quasi = quasi
        self.settings = settings
        self.result_: Result | None = None
        self.last_result_: Result | None = None

    @property
    def levels_(self) -> dict[str, int] | None:
        return None if self.result_ is None else self.result_.levels

    @property
    def manifest_(self) -> dict[str, Any] | None:
        # the report's own document: what ``transform`` applies, edits included
        return None if self.result_ is None else self.result_.report.get("manifest")

    def fit(self, data: Any) -> "Anonymizer":
        result = anonymize(data, self.quasi, **self.settings)
        report = result.details
        assert report is not None  # a run's Result carries its typed report
        if not result.success:
            raise NotAnonymousError(summary(report), result)
        if report.manifest is None:
            raise ConfigError(
                f"the algorithm {report.algorithm!r} finds cuts, not levels of the "
                "hierarchies: fit/transform needs a lattice algorithm (flash, ola, lightning, ...)"
            )
        self.result_ = self.last_result_ = result
        return self

    def transform(self, data: Any) -> Any:
        if self.result_ is None:
            raise ConfigError("this Anonymizer is not fitted yet: call fit(train) first")
        with from_code():
            job, frame = job_from_keywords(data, self.quasi, **self.settings)
        result = run(job, frame, manifest=self.manifest_)
        self.last_result_ = result
        if not result.success:
            raise NotAnonymousError(
                f"{result.report.get('reason', 'the models do not hold')}; nothing was "
                "released (fit on data like this, or relax the models)",
                result,
            )
        return result.table

    def fit_transform(self, data: Any) -> Any:
        fitted = self.fit(data).result_
        assert fitted is not None  # fit sets it or raises
        return fitted.table


def explain(
    data: Any, node: Iterable[int], quasi: dict[str, Any] | None = None, show: int = 10, **settings: Any
) -> dict[str, Any]:
    """A node's check: its SQL (with parameters), its figures (``result``), the suppression
    limit in rows and the smallest classes failing the models (``failing``: (labels, size))."""
    with from_code(not isinstance(data, Job) or data.file is None):
        job, frame = (data, None) if isinstance(data, Job) else job_from_keywords(data, quasi, **settings)
        with bound(job, frame) as (job, _), Session(job) as session:
            explained = session.explain(tuple(node), show)
            explained["quasi_identifiers"] = session.qis
            return explained


def risk(data: Any, quasi: Any = None, node: Iterable[int] | None = None, **settings: Any) -> dict[str, Any]:
    """Re-identification risk: of a table as it is (``quasi`` a list of columns, each at its
    level 0, no hierarchies; see ``sqlanon.check``), or of a Job's input or ``node`` (the
    ``risk`` command; ``quasi`` with hierarchies builds the Job from keywords)."""
    if not isinstance(data, Job) and not isinstance(quasi, dict):
        if node is not None:
            raise ConfigError("node= needs hierarchies: give quasi= as a dict of column -> hierarchy, or a Job")
        assessed = check(data, quasi=quasi, **settings)
        return {
            "input": assessed.input,
            "rows": assessed.rows,
            "quasi_identifiers": assessed.quasi_identifiers,
            "node": None,
            "engine": "duckdb",
            "risk": assessed.risk,
        }
    with from_code(not isinstance(data, Job) or data.file is None):
        job, frame = (data, None) if isinstance(data, Job) else job_from_keywords(data, quasi, **settings)
        with bound(job, frame) as (job, _):
            return analyse(job, None if node is None else tuple(node))
