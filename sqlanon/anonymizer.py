"""anonymize(job) -> Result: open the engine, prepare, search, write, verify, report."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlanon.config.job import INTERVAL_ALGORITHMS, Job
from sqlanon.config.validate import validated
from sqlanon.config.engine import settings_of
from sqlanon.koptimize.runner import search_intervals, write_intervals
from sqlanon.progress import Progress
from sqlanon.release import Publication, protected_files
from sqlanon.release.node import NodeRelease
from sqlanon.release.pipeline import Promise, write_verified
from sqlanon.report.build import IntervalRun, LatticeRun, run_report
from sqlanon.report.html import html_report, one_line, summary_html
from sqlanon.report.manifest_input import SavedTransformation, check_hierarchies, held_to_job, saved_transformation
from sqlanon.report.markdown import markdown_files, summary_targets
from sqlanon.report.summary import model_text
from sqlanon.core.report import Report, Seconds
from sqlanon.search import SearchOutcome
from sqlanon.session import Session

#: the library's logger: the run's phases and outcome at INFO (sqlanon itself prints nothing)
log = logging.getLogger("sqlanon")


@dataclass
class Result:
    """The outcome of a job; ``report`` is what report.json holds (a dict), ``details`` the
    same report as dataclasses (``sqlanon.core.report.Report``)."""

    success: bool
    transformation: tuple[int, ...] | None
    levels: dict[str, int] | None
    loss: float | None
    suppressed: int | None
    classes: int | None
    checks: int
    report: dict = field(default_factory=dict)
    #: the released table in the caller's type, when the input was given in code and no
    #: output file was asked for (set by sqlanon/api.py); None otherwise
    table: Any = field(default=None, repr=False, compare=False)
    details: Report | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, report: Report, transformation: tuple[int, ...] | None) -> "Result":
        return cls(
            success=report.success,
            transformation=transformation,
            levels=report.levels,
            loss=report.loss,
            suppressed=report.suppressed,
            classes=report.classes,
            checks=report.checks,
            report=report.to_dict(),
            details=report,
        )

    def __repr__(self) -> str:
        return one_line(self.details)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the HTML report's summary (no histogram, no manifest)."""
        assert self.details is not None, "a result made by ``Result.of`` holds its report"
        return summary_html(self.details)


def anonymize(job: Job, on_check=None, on_phase=None, on_progress=None, on_published=None, interrupted=None) -> Result:
    """Run a job end to end. Raises a ``SqlanonError`` subclass on bad input.

    ``on_check`` is called with every check's result and ``on_phase`` with the name of each
    phase as it starts (prepare, search, write, verify). ``on_progress`` is called with a
    ``sqlanon.progress.Progress`` at each phase's start, after every check and when the
    search ends (the CLI's progress bar is one: ``sqlanon.progress.Display``). The output,
    the report, the summary and the HTML page are published together, and only when a
    transformation was found and the output verified; otherwise nothing is written.
    ``on_published`` is called (without arguments) the moment they all stand: from there on
    nothing takes the release back, an interrupt included. ``interrupted`` (no arguments, a
    bool) is asked just before that moment: when it answers true (a signal came that a library
    swallowed) nothing is published and ``KeyboardInterrupt`` is raised.
    """
    if on_progress is not None:
        on_phase = _phases_to(on_progress, on_phase)
    return _execute(
        job,
        on_check=on_check,
        on_phase=on_phase,
        on_progress=on_progress,
        on_published=on_published,
        interrupted=interrupted,
    )


def _phases_to(on_progress, on_phase):
    def phase(name: str) -> None:
        if on_phase is not None:
            on_phase(name)
        on_progress(Progress(name))

    return phase


def apply(job: Job, manifest: object, manifest_path: str | None = None, on_published=None, interrupted=None) -> Result:
    """Apply a saved transformation (a report, or its manifest, as parsed JSON) to the job's
    data, held to the job's own models and suppression limit, which are re-checked there and
    verified on the written output; ``success`` is False, with a ``reason``, if they no longer
    hold (and nothing is written). A manifest is input: a malformed one, or one whose models,
    limit or suppressed mode differ from the job's, is a ``ConfigError``. ``manifest_path``:
    the manifest's file, which is never written over. ``on_published`` and ``interrupted``: as
    for ``anonymize``."""
    job = validated(job)
    source = f"manifest {manifest_path}" if manifest_path else "the manifest (given in code)"
    saved = held_to_job(saved_transformation(manifest, source), job)
    protect = {manifest_path: "the manifest"} if manifest_path else None
    return _execute(
        job, manifest=saved, node=saved.levels, protect=protect, on_published=on_published, interrupted=interrupted
    )


def _execute(
    job: Job,
    on_check=None,
    on_phase=None,
    manifest: SavedTransformation | None = None,
    node=None,
    protect: dict | None = None,
    on_progress=None,
    on_published=None,
    interrupted=None,
) -> Result:
    job = validated(job)
    with _publication(job, protect, on_published, interrupted) as publication:
        if job.algorithm in INTERVAL_ALGORITHMS and node is None:
            report, transformation = _execute_intervals(job, on_phase, publication), None
        else:
            report, transformation = _execute_lattice(job, on_check, on_phase, manifest, node, publication, on_progress)
        if report.success:
            if job.output.report:
                publication.put_text(job.output.report, report.to_json())
            if job.output.summary:
                for path, text in markdown_files(report, job.output.summary).items():
                    publication.put_text(path, text)
            if job.output.html_path:
                publication.put_text(job.output.html_path, html_report(report))
            publication.commit()
            log.info(
                "published: %s",
                ", ".join(
                    p
                    for p in (
                        job.output.describe() if job.output.writes else None,
                        job.output.report,
                        job.output.summary,
                        job.output.html_path,
                    )
                    if p
                )
                or "nothing (no targets)",
            )
    log.info("done: %s", one_line(report))
    return Result.of(report, transformation)


def _publication(job: Job, protect: dict | None, on_published=None, interrupted=None) -> Publication:
    """Every target of the job, checked now, before any work: none may be a file the job
    reads or another target; an existing one only with ``overwrite``. An exception out of
    the run (a failed write or verification among them) leaves its ``with`` block, whose
    ``Publication.abort`` is the one place anything staged is removed."""
    # Spark's executors write the output from processes of their own: a path, not a descriptor
    publication = Publication(
        protected_files(job, protect),
        job.output.overwrite,
        settings_of(job).url,
        in_process=job.engine != "spark",
        on_commit=on_published,
        interrupted=interrupted,
    )
    publication.reserve_output(job.output, job.input)
    publication.reserve(job.output.report, "report")
    if job.output.summary:
        for path, what in summary_targets(job.output.summary):
            publication.reserve(path, what)
    publication.reserve(job.output.html_path, "HTML report")
    return publication


def _execute_lattice(
    job: Job, on_check, on_phase, manifest: SavedTransformation | None, node, publication: Publication, on_progress=None
) -> tuple[Report, tuple[int, ...] | None]:
    with _opened(job, on_phase) as (session, phase, seconds):
        started = time.perf_counter()
        reason = None
        if node is None:
            outcome, checker = session.search(on_check=on_check, on_progress=on_progress)
        else:
            assert manifest is not None, "a saved transformation gives the node"
            check_hierarchies(job, manifest, session.hierarchy_objects)
            node = session.validate_node(node)
            checker = session.checker()
            result = checker.check(node)
            outcome = SearchOutcome(
                result if result.anonymous else None, {"checks": checker.checks, "tagged": 0}, proven=False
            )
            if not result.anonymous:
                reason = (
                    f"the saved transformation no longer satisfies "
                    f"{', '.join(model_text(m.describe()) for m in checker.models)} on this data: "
                    f"{result.stats.suppressed} rows would be suppressed, the limit is {checker.limit_rows}"
                )
        seconds["search"] = time.perf_counter() - started
        best = outcome.optimum
        release = None if best is None else NodeRelease(session, checker, best)
        started = time.perf_counter()
        verification = None
        if release is not None and job.output.writes:
            promise = Promise(
                best.stats.suppressed,
                checker.limit_rows,
                checker.models,
                session.overall(),
                release.population(),
                release.class_sizes,
            )
            verification = write_verified(session, publication, release.write, promise, phase)
        seconds["output"] = time.perf_counter() - started
        report = run_report(
            LatticeRun(
                session,
                checker,
                outcome,
                Seconds(**seconds),
                verification,
                release,
                applied=node is not None,
                reason=reason,
            )
        )
    return report, (best.node if best else None)


@contextmanager
def _opened(job: Job, on_phase):
    """The job's session, opened with the prepare and search phases announced; yields it, the
    phase callback and the seconds per phase (prepare filled in)."""

    def phase(name: str) -> None:
        log.info(
            "%s: %s",
            name,
            job.input.describe()
            if name == "prepare"
            else job.output.describe()
            if name in ("write", "verify")
            else f"{job.algorithm}, metric {job.metric}",
        )
        if on_phase is not None:
            on_phase(name)

    phase("prepare")
    with Session(job) as session:
        phase("search")
        yield session, phase, {"prepare": session.prepare_seconds}


def _execute_intervals(job: Job, on_phase, publication: Publication) -> Report:
    """k-optimize and hill-climb: the class table from the engine, the search in memory, the
    cuts written through SQL and verified like every output."""
    with _opened(job, on_phase) as (session, phase, seconds):
        started = time.perf_counter()
        outcome = search_intervals(session)
        seconds["search"] = time.perf_counter() - started
        started = time.perf_counter()
        verification = None
        if outcome.found and job.output.writes:
            verification = write_verified(
                session,
                publication,
                lambda target: write_intervals(session, outcome, target),
                Promise(outcome.suppressed, outcome.cost.limit),
                phase,
            )
        seconds["output"] = time.perf_counter() - started
        return run_report(IntervalRun(session, outcome, Seconds(**seconds), verification))
