"""The one-page risk and utility summary (Markdown) and its class-size histogram (SVG).

Written for a reader who does not run the tool (a data protection officer): each figure is
named in words, with before (the input) and after (the released output) side by side, and
every estimator that did not converge is said so. Nothing is written here: the caller
writes the texts of ``markdown_files``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from sqlanon.report.histogram_svg import histogram_svg
from sqlanon.core.report import Report, Risk


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.2f} %"


def _population_row(section: dict | None) -> str:
    pop = section and section.get("population")
    if not pop:
        return "–"
    model = pop.get("dankar", {}).get("model") if pop.get("model") == "dankar" else pop.get("model")
    model = {"none": "no sample unique", "census": "census"}.get(model, model)
    return f"{_pct(pop.get('share'))} ({model})" if pop.get("share") is not None else f"not estimated ({model})"


def _rows(before: dict, after: dict | None) -> list[tuple[str, str, str]]:
    a = after or {}
    get = lambda d, k, f=str: "–" if not d or d.get(k) is None else f(d[k])
    t = before["threshold"]
    return [
        ("Records assessed", get(before, "records", lambda v: f"{v:,}"), get(a, "records", lambda v: f"{v:,}")),
        (
            "Records suppressed (not released, not assessed)",
            get(before, "suppressed_records", lambda v: f"{v:,}"),
            get(a, "suppressed_records", lambda v: f"{v:,}"),
        ),
        (
            "Groups of records with the same quasi-identifiers",
            get(before, "classes", lambda v: f"{v:,}"),
            get(a, "classes", lambda v: f"{v:,}"),
        ),
        (
            "Highest re-identification risk (1 / smallest group)",
            get(before, "highest_risk", _pct),
            get(a, "highest_risk", _pct),
        ),
        ("Average re-identification risk", get(before, "average_risk", _pct), get(a, "average_risk", _pct)),
        (f"Records at risk (risk above {_pct(t)})", get(before, "share_at_risk", _pct), get(a, "share_at_risk", _pct)),
        (
            "Sample uniqueness (records alone in their group)",
            get(before, "sample_uniqueness", _pct),
            get(a, "sample_uniqueness", _pct),
        ),
        ("Estimated population uniqueness", _population_row(before), _population_row(after)),
    ]


def _notes(label: str, section: dict | None) -> list[str]:
    pop = section and section.get("population")
    if not pop or "estimators" not in pop:
        return []
    notes = [
        f"- {label}: N = {pop['population_size']:,.0f}, sampling fraction {pop['sampling_fraction']:.4g}; "
        f"Dankar's rule: {pop['dankar']['reason']}" + (" **(fallback)**" if pop["dankar"]["fell_back"] else "") + "."
    ]
    for name, e in pop["estimators"].items():
        if not e["converged"]:
            notes.append(f"- {label}: {name} did not converge: {e['reason']}.")
    return notes


def markdown(result: dict, image: str | None = None) -> str:
    """The summary of a risk report of the ``risk`` command (``risk``: one section)."""
    lines = _intro(result["input"], result["rows"], result["quasi_identifiers"])
    if result.get("node"):
        lines.append(
            f"Node: {', '.join(f'{q} level {l}' for q, l in zip(result['quasi_identifiers'], result['node']))} "
            "(the job's privacy models applied; their failing groups suppressed)."
        )
    return _document(lines, result["risk"], None, False, [], image)


def run_markdown(report: Report, image: str | None = None) -> str:
    """The summary of an anonymization report: the risk before and after, the utility."""
    lines = _intro(report.input, report.rows, report.quasi_identifiers)
    utility = []
    if report.success:
        levels = ", ".join(f"{q} level {l}" for q, l in report.levels.items()) if report.levels else "cut set"
        lines.append(
            f"Released: `{report.output}` ({'verified' if report.verified else 'NOT verified'}), "
            f"generalized to {levels}; privacy models: " + ", ".join(_model(m) for m in report.privacy.models) + "."
        )
        utility = [
            "",
            (
                f"Utility: information loss {_loss(report.loss)} ({report.metric} metric); "
                f"{report.suppressed:,} of {report.rows:,} records suppressed; {report.classes:,} groups, the "
                f"smallest of {report.min_class_size}."
            ),
        ]
    else:
        lines.append("**No transformation satisfied the privacy models: nothing was released.**")
    risk = _risk(report)
    return _document(lines, risk.before, risk.after, True, utility, image)


def _risk(report: Report) -> Risk:
    """The risk section every run's report has (``sqlanon/report/build.py`` adds it)."""
    assert report.risk is not None, "a run's report carries its risk"
    return report.risk


def _intro(source: str, rows: int, qis: list[str]) -> list[str]:
    return [
        "# Re-identification risk summary",
        "",
        f"Input: `{source}` ({rows:,} records). Quasi-identifiers (the attributes an "
        f"attacker is assumed to know): {', '.join(qis)}.",
    ]


def _document(
    lines: list[str], before: dict, after: dict | None, anonymized: bool, utility: list[str], image: str | None
) -> str:
    """The page below its introduction: the figures (before and after when ``anonymized``),
    the ``utility`` lines, the group sizes and how to read them."""
    lines = list(lines)
    lines += [
        "",
        "| Figure | Before (input) | After (released) |" if anonymized else "| Figure | Value |",
        "|---|---:|---:|" if anonymized else "|---|---:|",
    ]
    for name, b, a in _rows(before, after):
        lines.append(f"| {name} | {b} | {a} |" if anonymized else f"| {name} | {b} |")
    lines += utility
    lines += ["", "## Group sizes", ""]
    if image:
        lines += [f"![Share of records by the size of their group]({quote(image)})", ""]  # a space would end the link
    lines += [
        "| Group size | Records before | Records after |" if anonymized else "| Group size | Groups | Records |",
        "|---|---:|---:|",
    ]
    after_hist = {h["sizes"]: h for h in (after or {}).get("histogram", [])}
    for h in before["histogram"]:
        if anonymized:
            other = after_hist.get(h["sizes"])
            lines.append(f"| {h['sizes']} | {h['records']:,} | {other['records'] if other else 0:,} |")
        else:
            lines.append(f"| {h['sizes']} | {h['classes']:,} | {h['records']:,} |")
    notes = _notes("Before" if anonymized else "Estimate", before) + _notes("After", after)
    lines += [
        "",
        "## How to read this",
        "",
        (
            "- A group is the set of records sharing the same released quasi-identifier values; an attacker who "
            "knows someone is in the data can at best pick them out of their group, so a record's risk is "
            "1 / (size of its group) (prosecutor model, El Emam & Dankar 2008)."
        ),
        (
            "- Population uniqueness estimates the share of the whole population that would be unique on these "
            "values (Dankar et al. 2012 choose between the models of Pitman, Zayatz and SNB); it needs the "
            "population size or sampling fraction in the job's [risk] table."
        ),
        (
            "- Suppressed records are released without any quasi-identifier value and are not counted in the "
            "figures after (as ARX does)."
        ),
        *notes,
        "",
    ]
    return "\n".join(lines)


def _loss(x) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:.6g}"


def _model(m: dict) -> str:
    rest = ", ".join(f"{k} {v}" for k, v in m.items() if k not in ("model", "achieved", "hierarchy", "order"))
    return f"{m['model']} ({rest})" if rest else m["model"]


def histogram_name(markdown_path: str | Path) -> str:
    """Where the page's histogram goes: beside it, ``<stem>_histogram.svg``."""
    path = Path(markdown_path)
    return str(path.with_name(path.stem + "_histogram.svg"))


def summary_targets(markdown_path: str | Path) -> list[tuple[str, str]]:
    """The files of a summary at ``markdown_path``, each with what it is (for the guard,
    which checks them before the run starts)."""
    return [(str(markdown_path), "summary"), (histogram_name(markdown_path), "summary's histogram")]


def markdown_files(report: Report | dict, markdown_path: str | Path) -> dict[str, str]:
    """The summary page of ``report`` (a run's ``Report``, or the ``risk`` command's result)
    and its histogram, ``{path: text}``, for the caller to write (every file sqlanon writes
    goes through one guard): the histogram first, so that a page is never left pointing to an
    image not yet written."""
    image = histogram_name(markdown_path)
    if isinstance(report, Report):
        return {
            image: histogram_svg(_risk(report).to_dict()),
            str(markdown_path): run_markdown(report, Path(image).name),
        }
    return {image: histogram_svg(report["risk"]), str(markdown_path): markdown(report, Path(image).name)}
