"""anonymize(job) -> Result: open the engine, prepare, search, write, verify, report."""

from __future__ import annotations

import json
import platform
import time
from dataclasses import dataclass, field

import duckdb
import pyarrow
import sqlglot

from sqlanon import __version__
from sqlanon.checker import CheckResult, Checker
from sqlanon.config import Job
from sqlanon.context import metric_context
from sqlanon.criteria import KAnonymity
from sqlanon.engines import create_engine
from sqlanon.engines.base import OutputColumn
from sqlanon.errors import ConfigError, DataError
from sqlanon.lattice import Lattice
from sqlanon.metrics import get_metric
from sqlanon.output import atomic_target, check_target, remove_output, write_text_atomically
from sqlanon.search import ALGORITHMS
from sqlanon.verify import verify


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


def anonymize(job: Job) -> Result:
    """Run a job end to end. Raises a ``SqlanonError`` subclass on bad input."""
    job.validate()
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    hierarchies = {a.name: job.hierarchy_of(a) for a in job.quasi_identifiers}
    engine = create_engine(job.engine, lookup=job.lookup)
    try:
        columns = engine.open(job.input)
        plan = _plan_columns(job, columns)
        if job.output.path is not None:
            check_target(job.output, job.input)
        qis = [a.name for a in job.quasi_identifiers]
        encoded = [hierarchies[q].encoded for q in qis]
        metric = get_metric(job.metric)
        prepared = engine.prepare(list(zip(qis, encoded)), plan["passthrough"], metric.needs)
        ctx = metric_context(prepared.rows, encoded, prepared.value_counts)
        lattice = Lattice([len(e.labels) - 1 for e in encoded], [e.distinct for e in encoded])
        limit_rows = job.limit_rows(prepared.rows)
        checker = Checker(engine, [KAnonymity(job.k)], metric, ctx, limit_rows, job.suppression_limit)
        seconds["prepare"] = time.perf_counter() - started

        started = time.perf_counter()
        outcome = ALGORITHMS[job.algorithm](lattice, checker).run()
        seconds["search"] = time.perf_counter() - started

        best = outcome.optimum
        started = time.perf_counter()
        verification = None
        if best is not None and job.output.path is not None:
            verification = _write_and_verify(job, engine, checker, best, plan, prepared.rows, limit_rows, qis)
        seconds["output"] = time.perf_counter() - started
        report = _report(job, qis, lattice, best, outcome.counters, prepared, limit_rows, seconds, engine, verification)
    finally:
        engine.close()
    if job.output.report:
        write_text_atomically(job.output.report, json.dumps(report, indent=2) + "\n")
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


def _plan_columns(job: Job, columns: list[str]) -> dict:
    """Match roles to the input's columns: every column has a role or is dropped."""
    roles = {a.name: a.role for a in job.attributes}
    unknown = [name for name in list(roles) + list(job.input.drop) if name not in columns]
    if unknown:
        raise ConfigError(
            f"column(s) {unknown} named in the job are not in the input {job.input.describe()}; "
            f"its columns are: {columns}"
        )
    both = [name for name in job.input.drop if name in roles]
    if both:
        raise ConfigError(f"column(s) {both} have a role and are also listed in input.drop: pick one")
    unassigned = [name for name in columns if name not in roles and name not in job.input.drop]
    if unassigned:
        raise ConfigError(
            f"column(s) {unassigned} of {job.input.describe()} have no role: give each an "
            f"[attributes.\"<name>\"] role (quasi, sensitive, insensitive, identifying) or list "
            "it in input.drop"
        )
    passthrough = [name for name in columns if roles.get(name) in ("sensitive", "insensitive")]
    qis = [a.name for a in job.quasi_identifiers]
    output = []
    for name in columns:
        if roles.get(name) == "quasi":
            output.append(OutputColumn(name, "qi", qis.index(name)))
        elif name in passthrough:
            output.append(OutputColumn(name, "pass", passthrough.index(name)))
    return {"passthrough": passthrough, "output": output}


def _write_and_verify(job, engine, checker: Checker, best: CheckResult, plan, rows, limit_rows, qis) -> dict:
    with atomic_target(job.output) as target:
        engine.write(best.node, checker.keep, checker.params, plan["output"], job.output, target)
    try:
        return verify(job.output, qis, job.k, rows, best.stats.suppressed, limit_rows)
    except Exception:
        remove_output(job.output)
        raise


def _report(job, qis, lattice, best, counters, prepared, limit_rows, seconds, engine, verification) -> dict:
    report = {
        "success": best is not None,
        "input": job.input.describe(),
        "rows": prepared.rows,
        "base_classes": prepared.base_classes,
        "quasi_identifiers": qis,
        "privacy": {"models": [{"model": "k-anonymity", "k": job.k}], "suppression_limit": job.suppression_limit,
                    "suppression_limit_rows": limit_rows},
        "algorithm": job.algorithm,
        "metric": job.metric,
        "metric_monotonic": get_metric(job.metric).monotonic(job.suppression_limit),
        "lattice_size": lattice.size,
        "checks": counters["checks"],
        "tagged": counters.get("tagged", 0),
        "pruned_by_bound": counters.get("pruned_by_bound", 0),
        "rows_scanned": engine.rows_scanned,
        "queries": getattr(engine, "queries", None),
        "seconds": {k: round(v, 6) for k, v in seconds.items()},
        "engine": engine.name,
        "lookup": job.lookup,
        "versions": {
            "sqlanon": __version__,
            "python": platform.python_version(),
            "duckdb": duckdb.__version__,
            "sqlglot": sqlglot.__version__,
            "pyarrow": pyarrow.__version__,
        },
    }
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
    report["output"] = job.output.path if (best is not None and job.output.path) else None
    report["verified"] = bool(verification and verification["verified"])
    if verification:
        report["verification"] = verification
    return report


def summary(report: dict) -> str:
    """A short human summary (printed on stderr by the CLI)."""
    if not report["success"]:
        return (f"No transformation satisfies k={report['privacy']['models'][0]['k']} with at most "
                f"{report['privacy']['suppression_limit_rows']} suppressed rows "
                f"({report['checks']} checks of {report['lattice_size']} nodes).")
    levels = ", ".join(f"{k}={v}" for k, v in report["levels"].items())
    lines = [
        f"Optimal transformation ({report['algorithm']}, {report['metric']}): {levels}",
        f"  loss {report['loss']}, {report['suppressed']} of {report['rows']} rows suppressed, "
        f"{report['classes']} classes (smallest {report['min_class_size']})",
        f"  {report['checks']} checks of {report['lattice_size']} nodes, "
        + ", ".join(f"{k} {v:.2f}s" for k, v in report["seconds"].items()),
    ]
    if report["output"]:
        lines.append(f"  wrote {report['output']} ({'verified' if report['verified'] else 'NOT verified'})")
    return "\n".join(lines)
