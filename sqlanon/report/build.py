"""The run's report, built as dataclasses (sqlanon/core/report.py) from what the run hands over
(``LatticeRun``, ``IntervalRun``): the session, the search's outcome, the release and its
verification. The one place report.json's fields come from: the anonymizer only reads it."""

from __future__ import annotations

import platform
import time
from dataclasses import asdict, dataclass
from typing import Any

import duckdb
import pyarrow
import sqlglot

from sqlanon.core.version import version
from sqlanon.koptimize.runner import interval_report
from sqlanon.report.attributes import attribute_figures
from sqlanon.criteria import KAnonymity
from sqlanon.report.manifest import build_manifest
from sqlanon.report.risk import input_sizes, risk_report
from sqlanon.core.report import Privacy, Report, SearchFigures, Seconds, Solution, VerificationReport


def versions() -> dict[str, str]:
    return {
        "sqlanon": version(),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "sqlglot": sqlglot.__version__,
        "pyarrow": pyarrow.__version__,
    }


@dataclass(frozen=True)
class LatticeRun:
    """What a lattice run hands the report: its session and checker, the search's outcome (or
    the saved node's check), the seconds of its phases so far, the verification of the written
    output (None when nothing was written), the ``NodeRelease`` of the optimum (None without
    one), whether a saved transformation was applied and, when it no longer holds, why."""

    session: Any
    checker: Any
    outcome: Any
    seconds: Seconds
    verification: VerificationReport | None
    release: Any
    applied: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class IntervalRun:
    """What a k-optimize or hill-climb run hands the report: its session, the search's outcome,
    the seconds of its phases so far and the verification of the written output."""

    session: Any
    outcome: Any
    seconds: Seconds
    verification: VerificationReport | None


def run_report(run: LatticeRun | IntervalRun) -> Report:
    """The whole report of a run, its risk section computed here (and timed as the ``risk``
    phase)."""
    report = _lattice_run(run) if isinstance(run, LatticeRun) else _interval_run(run)
    if report.success:
        report.warnings = warnings(report)
    return report


def _lattice_run(run: LatticeRun) -> Report:
    session, checker, best = run.session, run.checker, run.outcome.optimum
    report = lattice_report(
        session,
        checker,
        best,
        run.outcome,
        run.seconds,
        run.verification,
        models_report(checker, best, run.verification, session.rows, run.release),
    )
    started = time.perf_counter()
    # the release's classes: re-counted on the written output (and confirmed against the
    # engine's by the verification), else the engine's
    after = None if run.release is None else run.verification.sizes() if run.verification else run.release.class_sizes()
    report.risk = risk_report(session, input_sizes(session), after, best.stats.suppressed if best else None)
    report.seconds.risk = round(time.perf_counter() - started, 6)
    if run.applied:
        report.algorithm = "apply"
    report.reason = run.reason
    if run.release is not None:
        report.manifest = build_manifest(session.job, session.qis, best.node, session.hierarchy_objects)
        report.attributes = attribute_figures(run.release)
    return report


def _interval_run(run: IntervalRun) -> Report:
    session, outcome = run.session, run.outcome
    solution = outcome.solution
    report = common_report(session, outcome.found, outcome.cost.limit, run.seconds, run.verification)
    report.intervals = interval_report(outcome)
    started = time.perf_counter()
    # the cut set's classes are counted on the written file only (no lattice node to group by)
    after = run.verification.sizes() if run.verification else None
    report.risk = risk_report(session, input_sizes(session), after, solution.suppressed if after is not None else None)
    report.seconds.risk = round(time.perf_counter() - started, 6)
    report.interval_checks = solution.counters.get("nodes", solution.counters.get("evaluations", 0))
    return report


def common_report(
    session, success: bool, limit_rows: int, seconds: Seconds, verification: VerificationReport | None
) -> Report:
    """The report fields every algorithm shares."""
    job, prepared, engine = session.job, session.prepared, session.engine
    latency = session.check_placement.latency
    written = success and job.output.writes
    return Report(
        success=success,
        input=job.input.describe(),
        rows=prepared.rows,
        base_classes=prepared.base_classes,
        population_rows=prepared.population,
        quasi_identifiers=session.qis,
        privacy=Privacy(
            # the interval algorithms check k-anonymity only; a lattice search's models: as achieved (lattice_report)
            models=[KAnonymity(job.k).describe()],
            suppression_limit=job.suppression_limit,
            suppression_limit_rows=limit_rows,
        ),
        algorithm=job.algorithm,
        metric=job.metric,
        gs_factor=None if job.gs_factor == 0.5 else job.gs_factor,
        aggregate=job.aggregate,
        rows_scanned=engine.rows_scanned,
        queries=engine.queries,
        seconds=seconds,
        engine=engine.name,
        # where the checks ran (sqlanon/checks/placement.py) and what local checks fetched
        checks_placement=session.placement,
        checks_placement_reason=session.placement_reason,
        query_latency_ms=None if latency is None else round(latency * 1e3, 3),
        class_table_bytes=engine.class_table_bytes,
        lookup=job.lookup,
        snapshots=asdict(session.snapshot_settings),
        versions=versions(),
        output=job.output.describe() if written else None,
        order=job.output.order if written else None,
        order_seed=job.output.seed if written else None,
        verified=bool(verification and verification.verified),
        verification=verification,
    )


def lattice_report(
    session,
    checker,
    best,
    outcome,
    seconds: Seconds,
    verification: VerificationReport | None,
    models: list[dict[str, Any]],
) -> Report:
    """A lattice search's report: the common fields, the models as achieved (``models``), the
    search's figures and the released node's."""
    counters = outcome.counters
    report = common_report(session, best is not None, checker.limit_rows, seconds, verification)
    report.privacy.models = models
    report.privacy.monotonic = checker.monotonic_models
    report.search = SearchFigures(
        algorithm_counters={k: v for k, v in counters.items() if k != "seconds"},
        optimal=outcome.proven,
        stopped=counters.get("stopped", "done"),
        trace=outcome.trace,
        metric_monotonic=checker.monotonic_metric,
        lattice_size=session.lattice.size,
        checks=counters["checks"],
        tagged=counters.get("tagged", 0),
        rollups=checker.rollups,
        snapshot_hits=checker.snapshot_hits,
        pruned=counters.get("pruned", 0),
        skipped_by_bound=counters.get("skipped_by_bound", 0),
    )
    if best is not None:
        s = best.stats
        report.solution = Solution(
            transformation=list(best.node),
            levels=dict(zip(session.qis, best.node)),
            loss=best.loss,
            suppressed=s.suppressed,
            classes=s.kept_classes,
            min_class_size=s.min_kept,
        )
    return report


def models_report(checker, best, verification: VerificationReport | None, rows: int, release) -> list[dict[str, Any]]:
    """Every model with the value achieved on the output: re-measured on the written output
    by the verification, else (no output written) the checker's figures where it has them
    (``release``: the ``NodeRelease`` of ``best``, for δ-presence's range)."""
    if verification and verification.models:
        return verification.models
    models = []
    for model in checker.models:
        entry = {**model.describe(), **model.derived()}
        if best is not None and model.population:
            entry["achieved"] = release.presence_range(model)
        elif best is not None and model.whole_table:
            entry["achieved"] = model.stats_value(best.stats, rows)
        elif best is not None and model.attribute is None:
            entry["achieved"] = best.stats.min_kept
        models.append(entry)
    return models


def warnings(report: Report) -> list[str]:
    """What a reader of a successful report must not miss."""
    found = []
    if report.suppressed is not None and report.suppressed >= report.rows > 0:
        found.append(
            f"every one of the {report.rows} rows is suppressed: the release contains no rows (the "
            "models hold only by suppressing everything; relax them or give coarser hierarchies)"
        )
    return found
