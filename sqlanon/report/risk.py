"""The risk section of a report: class sizes from the session's runner, figures from sqlanon.reidentification.

``before`` is the input (the node of all zeros over the base class table); ``after`` is the
released output: the kept classes of the chosen node, re-counted on the written file by the
verification and required to agree with the engine's (sqlanon/release/pipeline.py).
Suppressed records are left out of ``after`` and reported beside it, as ARX's risk analysis
does (``RiskModelHistogram`` skips every row ``isOutlier``): they carry no quasi-identifier
value to link.
"""

from __future__ import annotations

from sqlanon.reidentification.analysis import risk_section
from sqlanon.core.risk import population_of
from sqlanon.core.report import Risk
from sqlanon.session import Session


def input_sizes(session) -> dict[int, int]:
    """The input's class sizes: the base classes, grouped at level 0 of every QI."""
    return session.runner.class_sizes(tuple(0 for _ in session.qis))


def node_sizes(session, checker, node) -> dict[int, int]:
    """A node's kept classes (the models' suppression applied), by size."""
    return checker.runner.class_sizes(tuple(node), checker.keep, checker.params)


def population_of_job(job, rows: int) -> tuple[float | None, str]:
    """N and the model for the report: [risk]'s, else a population-uniqueness model's own."""
    settings = job.risk
    if settings.has_population:
        return settings.population(rows), settings.model
    for spec in job.models:
        if spec.get("type") == "population-uniqueness":
            return (
                population_of(spec.get("population_size"), spec.get("sampling_fraction"), rows, spec["type"]),
                spec.get("model", settings.model),
            )
    return None, settings.model


def risk_report(session, before: dict[int, int], after: dict[int, int] | None, suppressed: int | None) -> Risk:
    """The input's risk and the release's (``after`` None when nothing was released)."""
    settings = session.job.risk
    population, model = population_of_job(session.job, session.rows)
    section = lambda sizes, s: risk_section(sizes, settings.threshold, population, model, s)
    return Risk(before=section(before, 0), after=None if after is None else section(after, suppressed or 0))


def analyse(job, node=None) -> dict:
    """The ``risk`` command: the input's risk, or a node's (the job's models applied: the
    classes they fail are suppressed, as the release at that node would be)."""
    with Session(job) as session:
        settings = job.risk
        population, model = population_of_job(job, session.rows)
        suppressed = 0
        if node is None:
            sizes = input_sizes(session)
        else:
            node = session.validate_node(node)
            checker = session.checker()
            suppressed = checker.check(node).stats.suppressed
            sizes = node_sizes(session, checker, node)
        return {
            "input": job.input.describe(),
            "rows": session.rows,
            "quasi_identifiers": session.qis,
            "node": None if node is None else list(node),
            "engine": session.engine.name,
            "risk": risk_section(sizes, settings.threshold, population, model, suppressed),
        }


def text(result: dict) -> str:
    """The ``risk`` command's plain-text output."""
    r = result["risk"]
    where = (
        "input"
        if result["node"] is None
        else "node " + ",".join(map(str, result["node"])) + f" ({r['suppressed_records']} records suppressed)"
    )
    lines = [
        (
            f"Risk of the {where}: {r['records']} records in {r['classes']} classes "
            f"(QIs: {', '.join(result['quasi_identifiers'])})"
        ),
        f"  highest risk          {r['highest_risk']:.6g}",
        f"  average risk          {r['average_risk']:.6g}",
        f"  records at risk       {r['records_at_risk']} ({r['share_at_risk']:.4%}; risk > {r['threshold']})",
        f"  sample uniqueness     {r['sample_uniqueness']:.4%} ({r['sample_uniques']} records)",
    ]
    pop = r.get("population")
    if pop and "estimators" in pop:
        lines.append(f"  population uniqueness (N = {pop['population_size']:.0f}, f = {pop['sampling_fraction']:.6g}):")
        for name, e in pop["estimators"].items():
            value = f"{e['share']:.4%}" if e["share"] is not None else "not converged"
            lines.append(f"    {name:<8} {value}" + (f"  ({e['reason']})" if e["reason"] else ""))
        d = pop["dankar"]
        lines.append(f"    dankar   {d['share']:.4%}  ({d['reason']}{'; fallback' if d['fell_back'] else ''})")
    elif pop:
        lines.append(f"  population uniqueness 0 ({pop.get('reason')})")
    else:
        lines.append("  population uniqueness: give [risk] population_size or sampling_fraction to estimate it")
    lines.append(
        "  class sizes: "
        + ", ".join(
            f"{h['sizes']}: {h['classes']} classes / {h['records']} records" for h in r["histogram"] if h["classes"]
        )
    )
    return "\n".join(lines)
