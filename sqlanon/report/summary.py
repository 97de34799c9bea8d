"""The few lines a run prints on stderr (the command line) and a refused release names (the
API's ``NotAnonymousError``), read from the typed report."""

from __future__ import annotations

from typing import Any

from sqlanon.core.report import Report
from sqlanon.search import HEURISTICS


def model_text(model: dict[str, Any]) -> str:
    parameters = ", ".join(f"{k}={v}" for k, v in model.items() if k not in ("model", "achieved", "hierarchy", "order"))
    return "k=" + str(model["k"]) if model["model"] == "k-anonymity" else f"{model['model']}({parameters})"


def summary(report: Report) -> str:
    """A short human summary of ``report``."""
    if not report.success and report.reason:
        return f"Not applied: {report.reason}."
    intervals = report.intervals is not None
    searched = f"{report.checks} nodes" if intervals else f"{report.checks} checks of {_lattice_size(report)} nodes"
    if not report.success:
        return _no_solution(report, searched + (" searched" if intervals else ""))
    if intervals:
        proof = "proven optimal" if report.optimal else "best found, not proven optimal"
        cuts = "; ".join(f"{q}: {len(v)} interval(s)" for q, v in (report.cuts or {}).items())
        lines = [f"Cut set ({report.algorithm}, {report.metric}, {proof}): {cuts}"]
    else:
        levels = ", ".join(f"{k}={v}" for k, v in (report.levels or {}).items())
        kind = (
            "Saved transformation"
            if report.algorithm == "apply"
            else "Optimal transformation"
            if report.optimal
            else "Best transformation found"
        )
        lines = [f"{kind} ({report.algorithm}, {report.metric}): {levels}"]
    lines += [
        f"  loss {report.loss}, {report.suppressed} of {report.rows} rows suppressed, "
        f"{report.classes} classes (smallest {report.min_class_size})",
        f"  {searched}, " + ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.to_dict().items()),
    ]
    if report.risk is not None and report.risk.after:
        lines.append(_risk_line(report.risk.before, report.risk.after))
    if report.algorithm in HEURISTICS:
        lines.append(
            f"  heuristic search stopped by {_stopped(report)}; "
            + (
                "the search covered the lattice, so this is the optimum"
                if report.optimal
                else "the optimum may be better"
            )
        )
    if report.output:
        lines.append(f"  wrote {report.output} ({'verified' if report.verified else 'NOT verified'})")
    lines += [f"  warning: {warning}" for warning in report.warnings]
    return "\n".join(lines)


def _no_solution(report: Report, searched: str) -> str:
    models = report.privacy.models
    k = next((m["k"] for m in models if m["model"] == "k-anonymity"), 1)
    reason = f": the input has only {report.rows} rows" if k > report.rows else ""
    named = ", ".join(model_text(m) for m in models)
    if report.algorithm in HEURISTICS and not report.optimal:
        return (
            f"No transformation satisfying {named} found ({report.algorithm} stopped by "
            f"{_stopped(report)} after {searched})."
        )
    return (
        f"No transformation satisfies {named} with at most "
        f"{report.privacy.suppression_limit_rows} suppressed rows{reason} ({searched})."
    )


def _risk_line(b: dict[str, Any], a: dict[str, Any]) -> str:
    population = (
        f", population uniqueness {b['population']['share']:.4g} -> {a['population']['share']:.4g}"
        if b.get("population")
        and a.get("population")
        and b["population"].get("share") is not None
        and a["population"].get("share") is not None
        else ""
    )
    return (
        f"  risk before -> after: highest {b['highest_risk']:.4g} -> {a['highest_risk']:.4g}, "
        f"average {b['average_risk']:.4g} -> {a['average_risk']:.4g}, "
        f"sample uniqueness {b['sample_uniqueness']:.4g} -> {a['sample_uniqueness']:.4g}" + population
    )


def _lattice_size(report: Report) -> int | None:
    return report.search.lattice_size if report.search is not None else None


def _stopped(report: Report) -> str | None:
    return report.search.stopped if report.search is not None else None
