"""anonymize(job) -> Result: open the engine, prepare, search, write, verify, report."""

from __future__ import annotations

import json
import logging
import platform
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb
import pyarrow
import sqlglot

from sqlanon import __version__
from sqlanon.report.attributes import attribute_figures
from sqlanon.checks.checker import CheckResult, Checker
from sqlanon.config.job import INTERVAL_ALGORITHMS, Job
from sqlanon.config.validate import validated
from sqlanon.engines import settings_of
from sqlanon.report.manifest import build_manifest, check_hierarchies, job_for_manifest
from sqlanon.release import Publication, protected_files
from sqlanon.report.risk import checked_sizes, input_sizes, node_sizes, risk_report
from sqlanon.search import HEURISTICS, SearchOutcome
from sqlanon.report.html import html_report, one_line, summary_html
from sqlanon.report.markdown import markdown_files, summary_targets
from sqlanon.session import Session
from sqlanon.release.verify import Population, fresh_database, verify
from sqlanon.progress import Progress
from sqlanon.koptimize.runner import interval_report, search_intervals, write_intervals

#: the library's logger: the run's phases and outcome at INFO (sqlanon itself prints nothing)
log = logging.getLogger("sqlanon")


@dataclass
class Result:
    """The outcome of a job; ``report`` is what report.json holds."""

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

    def __repr__(self) -> str:
        return one_line(self.report)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the HTML report's summary (no histogram, no manifest)."""
        return summary_html(self.report)


def anonymize(job: Job, on_check=None, on_phase=None, on_progress=None) -> Result:
    """Run a job end to end. Raises a ``SqlanonError`` subclass on bad input.

    ``on_check`` is called with every check's result and ``on_phase`` with the name of each
    phase as it starts (prepare, search, write, verify). ``on_progress`` is called with a
    ``sqlanon.progress.Progress`` at each phase's start, after every check and when the
    search ends (the CLI's progress bar is one: ``sqlanon.progress.Display``). The output,
    the report, the summary and the HTML page are published together, and only when a
    transformation was found and the output verified; otherwise nothing is written.
    """
    if on_progress is not None:
        on_phase = _phases_to(on_progress, on_phase)
    return _execute(job, on_check=on_check, on_phase=on_phase, on_progress=on_progress)


def _phases_to(on_progress, on_phase):
    def phase(name: str) -> None:
        if on_phase is not None:
            on_phase(name)
        on_progress(Progress(name))

    return phase


def apply(job: Job, manifest: dict, manifest_path: str | None = None) -> Result:
    """Apply a saved transformation (a report's manifest) to the job's data, re-checking the
    models there; ``success`` is False, with a ``reason``, if they no longer hold (and
    nothing is written). ``manifest_path``: the manifest's file, which is never written over."""
    job, node = job_for_manifest(job, manifest)
    protect = {manifest_path: "the manifest"} if manifest_path else None
    return _execute(job, manifest=manifest, node=node, protect=protect)


def _execute(job: Job, on_check=None, on_phase=None, manifest: dict | None = None, node=None,
             protect: dict | None = None, on_progress=None) -> Result:
    job = validated(job)
    with _publication(job, protect) as publication:
        if job.algorithm in INTERVAL_ALGORITHMS and node is None:
            result = _execute_intervals(job, on_phase, publication)
        else:
            result = _execute_lattice(job, on_check, on_phase, manifest, node, publication, on_progress)
        if result.success:
            _add_warnings(result.report)
            if job.output.report:
                publication.put_text(job.output.report, json.dumps(result.report, indent=2) + "\n")
            if job.output.summary:
                for path, text in markdown_files(result.report, job.output.summary).items():
                    publication.put_text(path, text)
            if job.output.html_path:
                publication.put_text(job.output.html_path, html_report(result.report))
            publication.commit()
            log.info("published: %s", ", ".join(p for p in (job.output.describe() if job.output.writes else None,
                                                             job.output.report, job.output.summary,
                                                             job.output.html_path) if p) or "nothing (no targets)")
    log.info("done: %s", one_line(result.report))
    return result


def _publication(job: Job, protect: dict | None) -> Publication:
    """Every target of the job, checked now, before any work: none may be a file the job
    reads or another target; an existing one only with ``overwrite``."""
    publication = Publication(protected_files(job, protect), job.output.overwrite, settings_of(job).url)
    publication.reserve_output(job.output, job.input)
    publication.reserve(job.output.report, "report")
    if job.output.summary:
        for path, what in summary_targets(job.output.summary):
            publication.reserve(path, what)
    publication.reserve(job.output.html_path, "HTML report")
    return publication


def _add_warnings(report: dict) -> None:
    """What a reader of a successful report must not miss."""
    warnings = []
    if report.get("suppressed") is not None and report["suppressed"] >= report["rows"] > 0:
        warnings.append(f"every one of the {report['rows']} rows is suppressed: the release contains no rows (the "
                        "models hold only by suppressing everything; relax them or give coarser hierarchies)")
    if warnings:
        report["warnings"] = warnings


def _execute_lattice(job: Job, on_check, on_phase, manifest: dict | None, node, publication: Publication,
                     on_progress=None) -> Result:
    with _opened(job, on_phase) as (session, phase, seconds):
        started = time.perf_counter()
        reason = None
        if node is None:
            outcome, checker = session.search(on_check=on_check, on_progress=on_progress)
        else:
            check_hierarchies(job, manifest, session.hierarchy_objects)
            node = session.validate_node(node)
            checker = session.checker()
            result = checker.check(node)
            outcome = SearchOutcome(result if result.anonymous else None, {"checks": checker.checks, "tagged": 0}, proven=False)
            if not result.anonymous:
                reason = (f"the saved transformation no longer satisfies "
                          f"{', '.join(_model_text(m.describe()) for m in checker.models)} on this data: "
                          f"{result.stats.suppressed} rows would be suppressed, the limit is {checker.limit_rows}")
        seconds["search"] = time.perf_counter() - started
        best = outcome.optimum
        started = time.perf_counter()
        verification = None
        if best is not None and job.output.writes:
            verification = _write_and_verify(session, checker, best, phase, publication)
        seconds["output"] = time.perf_counter() - started
        report = _report(session, checker, best, outcome, seconds, verification)
        started = time.perf_counter()
        after = None if best is None else checked_sizes(node_sizes(session, checker, best.node), verification,
                                                        job.output.describe())
        report["risk"] = risk_report(session, input_sizes(session), after, best.stats.suppressed if best else None)
        report["seconds"]["risk"] = round(time.perf_counter() - started, 6)
        if node is not None:
            report["algorithm"] = "apply"
        if reason:
            report["reason"] = reason
        if best is not None:
            report["manifest"] = build_manifest(job, session.qis, best.node, session.hierarchy_objects)
            report["attributes"] = attribute_figures(session, checker, best)
    return Result(
        success=best is not None,
        transformation=best.node if best else None,
        levels=report.get("levels"),
        loss=best.loss if best else None,
        suppressed=best.stats.suppressed if best else None,
        classes=best.stats.kept_classes if best else None,
        checks=outcome.counters["checks"],
        report=report,
    )


@contextmanager
def _opened(job: Job, on_phase):
    """The job's session, opened with the prepare and search phases announced; yields it, the
    phase callback and the seconds per phase (prepare filled in)."""
    def phase(name: str) -> None:
        log.info("%s: %s", name, job.input.describe() if name == "prepare" else job.output.describe()
                 if name in ("write", "verify") else f"{job.algorithm}, metric {job.metric}")
        if on_phase is not None:
            on_phase(name)

    phase("prepare")
    with Session(job) as session:
        phase("search")
        yield session, phase, {"prepare": session.prepare_seconds}


def _execute_intervals(job: Job, on_phase, publication: Publication) -> Result:
    """k-optimize and hill-climb: the class table from the engine, the search in memory, the
    cuts written through SQL and verified like every output."""
    with _opened(job, on_phase) as (session, phase, seconds):
        started = time.perf_counter()
        outcome = search_intervals(session)
        seconds["search"] = time.perf_counter() - started
        started = time.perf_counter()
        verification = None
        solution = outcome.solution
        if outcome.found and job.output.writes:
            verification = _publish(session, phase, publication, lambda target: write_intervals(session, outcome, target),
                                    solution.suppressed, outcome.cost.limit)
        seconds["output"] = time.perf_counter() - started
        report = _common_report(session, outcome.found, outcome.cost.limit, seconds, verification)
        report.update(interval_report(outcome))
        started = time.perf_counter()
        # the cut set's classes are counted on the written file only (no lattice node to group by)
        after = None
        if verification:
            after = {int(size): int(count) for size, count in verification["class_sizes"]}
        report["risk"] = risk_report(session, input_sizes(session), after, solution.suppressed if after is not None else None)
        report["seconds"]["risk"] = round(time.perf_counter() - started, 6)
        report["checks"] = solution.counters.get("nodes", solution.counters.get("evaluations", 0))
    return Result(
        success=outcome.found,
        transformation=None,
        levels=None,
        loss=solution.cost if outcome.found else None,
        suppressed=solution.suppressed,
        classes=report.get("classes"),
        checks=report["checks"],
        report=report,
    )


def _write_and_verify(session: Session, checker: Checker, best: CheckResult, phase, publication: Publication) -> dict:
    job = session.job
    population = None
    if session.subset is not None:  # delta-presence is re-checked against the input itself
        population = Population(job.input, [h.rows for h in session.hierarchy_objects], best.node, session.subset)
    return _publish(
        session, phase, publication,
        lambda target: session.engine.write(best.node, checker.keep, checker.params, session.output_columns, job.output, target),
        best.stats.suppressed, checker.limit_rows, checker.models, session.overall(), population,
    )


def _publish(session: Session, phase, publication: Publication, write, suppressed: int, limit_rows: int, models=(),
             overall=None, population=None) -> dict:
    """Write the output under its temporary name, then verify it there, independently: only
    a verified output is ever published."""
    job = session.job
    phase("write")
    # the verification's own database, with the job's DuckDB settings, made before the write
    # (one made after a large COPY costs several times as much: verify.fresh_database)
    settings = settings_of(job)
    config = settings.duckdb_config()
    database = fresh_database(publication.staged_output, config)
    try:
        write(publication.output_target)
        publication.output_written()
    except BaseException:
        if database is not None:
            database.close()
        raise
    phase("verify")
    return verify(publication.staged_output, session.qis, job.k, session.rows, suppressed, limit_rows, models, overall,
                  population, url=settings.url, named=job.output.describe(), config=config, database=database)


def _common_report(session: Session, success: bool, limit_rows: int, seconds, verification) -> dict:
    """The report fields every algorithm shares."""
    job, prepared, engine = session.job, session.prepared, session.engine
    report = {
        "success": success,
        "input": job.input.describe(),
        "rows": prepared.rows,
        "base_classes": prepared.base_classes,
        **({"population_rows": prepared.population} if getattr(prepared, "population", None) is not None else {}),
        "quasi_identifiers": session.qis,
        "privacy": {"models": [{"model": "k-anonymity", "k": job.k}], "suppression_limit": job.suppression_limit,
                    "suppression_limit_rows": limit_rows},
        "algorithm": job.algorithm,
        "metric": job.metric,
        "rows_scanned": engine.rows_scanned,
        "queries": engine.queries,
        "seconds": {k: round(v, 6) for k, v in seconds.items()},
        "engine": engine.name,
        # where the checks ran (sqlanon/checks/placement.py) and what local checks fetched
        "checks_placement": session.placement,
        "checks_placement_reason": session.placement_reason,
        "query_latency_ms": None if session.check_placement.latency is None else round(session.check_placement.latency * 1e3, 3),
        "class_table_bytes": engine.class_table_bytes,
        "lookup": job.lookup,
        "snapshots": asdict(session.snapshot_settings),
        "versions": {
            "sqlanon": __version__,
            "python": platform.python_version(),
            "duckdb": duckdb.__version__,
            "sqlglot": sqlglot.__version__,
            "pyarrow": pyarrow.__version__,
        },
        "output": job.output.describe() if (success and job.output.writes) else None,
        "verified": bool(verification and verification["verified"]),
    }
    if verification:
        report["verification"] = verification
    return report


def _report(session: Session, checker: Checker, best, outcome: SearchOutcome, seconds, verification) -> dict:
    qis, counters = session.qis, outcome.counters
    report = _common_report(session, best is not None, checker.limit_rows, seconds, verification)
    report["privacy"].update(models=_models_report(checker, best, verification, session.rows),
                             monotonic=checker.monotonic_models)
    report.update({
        "algorithm_counters": {k: v for k, v in counters.items() if k != "seconds"},
        "optimal": outcome.proven,
        "stopped": counters.get("stopped", "done"),
        "trace": outcome.trace,
        "metric_monotonic": checker.monotonic_metric,
        "lattice_size": session.lattice.size,
        "checks": counters["checks"],
        "tagged": counters.get("tagged", 0),
        "rollups": checker.rollups,
        "snapshot_hits": checker.snapshot_hits,
        "pruned": counters.get("pruned", 0),
        "skipped_by_bound": counters.get("skipped_by_bound", 0),
    })
    if best is not None:
        s = best.stats
        report.update({
            "transformation": list(best.node),
            "levels": dict(zip(qis, best.node)),
            "loss": best.loss,
            "suppressed": s.suppressed,
            "classes": s.kept_classes,
            "min_class_size": s.min_kept,
        })
    return report


def _model_text(model: dict) -> str:
    parameters = ", ".join(f"{k}={v}" for k, v in model.items() if k not in ("model", "achieved", "hierarchy", "order"))
    return "k=" + str(model["k"]) if model["model"] == "k-anonymity" else f"{model['model']}({parameters})"


def _models_report(checker: Checker, best, verification, rows: int) -> list[dict]:
    """Every model with the value achieved on the output: re-measured on the written output
    by the verification, else (no output written) the checker's figures where it has them."""
    if verification and verification.get("models"):
        return verification["models"]
    models = []
    for model in checker.models:
        entry = model.describe()
        if best is not None and getattr(model, "population", False):
            kept = [r for r in checker.engine.class_figures(best.node, checker.keep, checker.params) if r["kept"]]
            deltas = [model.presence_value(r["n"], r["pop"]) for r in kept]
            entry["achieved"] = {"dmin": min(deltas), "dmax": max(deltas)} if deltas else None
        elif best is not None and model.whole_table:
            entry["achieved"] = model.stats_value(best.stats, rows)
        elif best is not None and model.attribute is None:
            entry["achieved"] = best.stats.min_kept
        models.append(entry)
    return models


def summary(report: dict) -> str:
    """A short human summary (printed on stderr by the CLI)."""
    if not report["success"] and report.get("reason"):
        return f"Not applied: {report['reason']}."
    intervals = "interval_model" in report
    if not report["success"]:
        models = report["privacy"]["models"]
        k = next((m["k"] for m in models if m["model"] == "k-anonymity"), 1)
        reason = f": the input has only {report['rows']} rows" if k > report["rows"] else ""
        named = ", ".join(_model_text(m) for m in models)
        searched = (f"{report['checks']} nodes searched" if intervals
                    else f"{report['checks']} checks of {report['lattice_size']} nodes")
        if report["algorithm"] in HEURISTICS and not report["optimal"]:
            return (f"No transformation satisfying {named} found ({report['algorithm']} stopped by "
                    f"{report['stopped']} after {searched}).")
        return (f"No transformation satisfies {named} with at most "
                f"{report['privacy']['suppression_limit_rows']} suppressed rows{reason} ({searched}).")
    if intervals:
        proof = "proven optimal" if report["proven_optimal"] else "best found, not proven optimal"
        cuts = "; ".join(f"{q}: {len(v)} interval(s)" for q, v in report["cuts"].items())
        lines = [f"Cut set ({report['algorithm']}, {report['metric']}, {proof}): {cuts}"]
    else:
        levels = ", ".join(f"{k}={v}" for k, v in report["levels"].items())
        kind = ("Saved transformation" if report["algorithm"] == "apply"
                else "Optimal transformation" if report["optimal"] else "Best transformation found")
        lines = [f"{kind} ({report['algorithm']}, {report['metric']}): {levels}"]
    lines += [
        f"  loss {report['loss']}, {report['suppressed']} of {report['rows']} rows suppressed, "
        f"{report['classes']} classes (smallest {report['min_class_size']})",
        (f"  {report['checks']} nodes" if intervals else f"  {report['checks']} checks of {report['lattice_size']} nodes")
        + ", " + ", ".join(f"{k} {v:.2f}s" for k, v in report["seconds"].items()),
    ]
    risk = report.get("risk") or {}
    if risk.get("after"):
        b, a = risk["before"], risk["after"]
        lines.append(f"  risk before -> after: highest {b['highest_risk']:.4g} -> {a['highest_risk']:.4g}, "
                     f"average {b['average_risk']:.4g} -> {a['average_risk']:.4g}, "
                     f"sample uniqueness {b['sample_uniqueness']:.4g} -> {a['sample_uniqueness']:.4g}"
                     + (f", population uniqueness {b['population']['share']:.4g} -> {a['population']['share']:.4g}"
                        if b.get("population") and a.get("population") and b["population"].get("share") is not None
                        and a["population"].get("share") is not None else ""))
    if report["algorithm"] in HEURISTICS:
        lines.append(f"  heuristic search stopped by {report['stopped']}; "
                     + ("the search covered the lattice, so this is the optimum" if report["optimal"]
                        else "the optimum may be better"))
    if report["output"]:
        lines.append(f"  wrote {report['output']} ({'verified' if report['verified'] else 'NOT verified'})")
    lines += [f"  warning: {warning}" for warning in report.get("warnings", [])]
    return "\n".join(lines)
