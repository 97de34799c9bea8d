"""The report people read: one self-contained HTML page per run, written beside report.json.

Everything is inside the file: the styles in one ``<style>`` element, the class-size histogram
as inline SVG (sqlanon/report/histogram_svg.py, the same drawing as the Markdown summary's), no
script, font, image or link to fetch; a Content-Security-Policy forbids the page any request,
so it reads the same offline, in a mail attachment or an archive. It shows what a reader
without the tool needs: the outcome, every privacy model with the value achieved on the
released file, each quasi-identifier's level and loss, the records suppressed, the
re-identification risk before and after (the rows of the Markdown summary), the manifest
that re-applies the transformation and the versions that produced it.

``summary_html`` is the same page's top part alone (Jupyter's ``Result._repr_html_``) and
``one_line`` the one-line ``repr``. Nothing is written here: the caller writes the text
through the run's guard (sqlanon/release/), with the other targets.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from sqlanon.report.histogram_svg import AFTER, histogram_svg
from sqlanon.report.markdown import _rows as risk_rows
from sqlanon.core.report import Report

STYLE = (
    """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;margin:2em auto;max-width:60em;
padding:0 1em;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .7em;border-bottom:1px solid #e5e5e5;
text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:600}.fail{color:#c62828;font-weight:600}.warn{background:#fff4e5;padding:.5em 1em;
border-left:4px solid #f0a020}.lossbar{display:inline-block;height:.8em;background:"""
    + AFTER
    + """;vertical-align:middle}
.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}.card{border:1px solid #ddd;border-radius:6px;
padding:.5em .9em;min-width:8em}.card b{display:block;font-size:1.3em}.card span{color:#666;font-size:.85em}
pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:.85em}figure{margin:1em 0}svg{max-width:100%;height:auto}
"""
)
# no request of any kind: the page is self-contained by construction, and this makes it so
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _e(value: Any) -> str:
    return escape(str(value))


def _count(value: Any) -> str:
    return "–" if value is None else f"{value:,}" if isinstance(value, int) else _e(value)


def _number(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.6g}"
    return f"{int(value):,}" if isinstance(value, (int, float)) else _e(value)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f} %"


def _model_name(model: dict[str, Any]) -> str:
    return str(model.get("model", "?"))


def _model_parameters(model: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in model.items() if k not in ("model", "achieved", "hierarchy", "order"))


def _achieved(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_number(v)}" for k, v in value.items())
    return _number(value)


def _status(report: Report) -> str:
    if not report.success:
        reason = report.reason or "no transformation satisfies the privacy models"
        return f'<p class="fail">Nothing released: {_e(reason)}.</p>'
    if report.intervals is not None:
        kind = "proven optimal" if report.optimal else "best found, not proven optimal"
    elif report.algorithm == "apply":
        kind = "saved transformation applied"
    else:
        kind = "optimal" if report.optimal else "best found, not proven optimal"
    verified = '<span class="ok">verified</span>' if report.verified else '<span class="fail">NOT verified</span>'
    output = report.output or "(no output written)"
    return (
        f'<p><span class="ok">Released</span> {_e(output)} ({verified}); transformation {_e(kind)} by '
        f"{_e(report.algorithm)} under the {_e(report.metric)} metric.</p>"
    )


def _cards(report: Report) -> str:
    rows, suppressed = report.rows, report.suppressed
    share = f" ({_pct(suppressed / rows)})" if suppressed is not None and rows else ""
    cards = [
        ("records in the input", _count(rows)),
        ("records suppressed", _count(suppressed) + share),
        ("groups released", _count(report.classes)),
        ("smallest group", _count(report.min_class_size)),
        (f"information loss ({report.metric})", _number(report.loss)),
    ]
    if report.search is not None:
        cards.append(("checks / lattice nodes", f"{report.checks:,} / {report.search.lattice_size:,}"))
    return (
        '<div class="cards">'
        + "".join(f'<div class="card"><b>{value}</b><span>{_e(name)}</span></div>' for name, value in cards)
        + "</div>"
    )


def _models(report: Report) -> str:
    privacy = report.privacy
    rows = "".join(
        f'<tr><td>{_e(_model_name(m))}</td><td>{_e(_model_parameters(m))}</td><td class="n">{_achieved(m.get("achieved"))}</td></tr>'
        for m in privacy.models
    )
    note = (
        f"<p>Suppression limit: {_pct(privacy.suppression_limit)} of the records "
        f"({_count(privacy.suppression_limit_rows)} rows).</p>"
    )
    return (
        '<table class="models"><tr><th>model</th><th>parameters</th><th class="n">achieved on the release</th></tr>'
        f"{rows}</table>{note}"
    )


def _attributes(report: Report) -> str:
    if report.attributes:
        rows = "".join(
            f'<tr><td>{_e(a.name)}</td><td class="n">{a.level} of {a.height}</td>'
            f'<td class="n">{_count(a.distinct)}</td><td class="n">{_pct(a.loss)}</td>'
            f'<td><span class="lossbar" style="width:{max(0.0, min(1.0, a.loss or 0.0)) * 10:.2f}em"></span></td></tr>'
            for a in report.attributes
        )
        return (
            '<table class="attributes"><tr><th>quasi-identifier</th><th class="n">level</th>'
            '<th class="n">distinct values at this level</th><th class="n">loss</th><th></th></tr>' + rows + "</table>"
            "<p>Distinct values: in the input, generalized to the level. Loss: Iyengar's loss of that attribute "
            "alone (0: every value kept, 100 %: every record generalized to the top of the hierarchy or "
            "suppressed).</p>"
        )
    if report.levels:
        return (
            '<table><tr><th>quasi-identifier</th><th class="n">level</th></tr>'
            + "".join(f'<tr><td>{_e(q)}</td><td class="n">{l}</td></tr>' for q, l in report.levels.items())
            + "</table>"
        )
    if report.cuts:
        return (
            "<table><tr><th>quasi-identifier</th><th>intervals</th></tr>"
            + "".join(f"<tr><td>{_e(q)}</td><td>{_e(', '.join(map(str, v)))}</td></tr>" for q, v in report.cuts.items())
            + "</table>"
        )
    return "<p>–</p>"


def _risk(report: Report) -> str:
    if report.risk is None or not report.risk.before:
        return "<p>–</p>"
    rows = "".join(
        f'<tr><td>{_e(name)}</td><td class="n">{_e(b)}</td><td class="n">{_e(a)}</td></tr>'
        for name, b, a in risk_rows(report.risk.before, report.risk.after)
    )
    return (
        '<table class="risk"><tr><th>figure</th><th class="n">before (input)</th><th class="n">after (released)</th>'
        f"</tr>{rows}</table>"
    )


def _histogram(report: Report) -> str:
    risk = report.risk
    if risk is None or not risk.before:
        return ""
    after_records = {h["sizes"]: h for h in (risk.after or {}).get("histogram", [])}
    table = "".join(
        f'<tr><td>{_e(h["sizes"])}</td><td class="n">{h["classes"]:,}</td><td class="n">{h["records"]:,}</td>'
        f'<td class="n">{_count(after_records.get(h["sizes"], {}).get("classes"))}</td>'
        f'<td class="n">{_count(after_records.get(h["sizes"], {}).get("records"))}</td></tr>'
        for h in risk.before["histogram"]
    )
    return (
        f'<figure class="histogram">{histogram_svg(risk.to_dict())}<figcaption>Share of records by the size of '
        "their group, in the input (grey) and in the released table (blue). A record's re-identification risk is "
        "1 / (size of its group).</figcaption></figure>"
        '<table class="sizes"><tr><th>group size</th><th class="n">groups before</th><th class="n">records before</th>'
        f'<th class="n">groups after</th><th class="n">records after</th></tr>{table}</table>'
    )


def _run(report: Report) -> str:
    items = [
        ("input", report.input),
        ("quasi-identifiers", ", ".join(report.quasi_identifiers)),
        ("engine", report.engine),
        ("checks placed", report.checks_placement),
        ("algorithm", report.algorithm),
        ("metric", report.metric if report.gs_factor is None else f"{report.metric}, gs factor {report.gs_factor}"),
        ("checks", report.checks),
        ("queries", report.queries),
        ("row order", _order(report)),
    ]
    seconds = report.seconds.to_dict()
    if seconds:
        items.append(("seconds", ", ".join(f"{k} {v:.2f}" for k, v in seconds.items())))
    items += [(f"version of {name}", version) for name, version in report.versions.items()]
    return (
        '<table class="run">'
        + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items if v is not None)
        + "</table>"
    )


def _order(report: Report) -> str | None:
    if report.order is None:
        return None
    if report.order == "input":
        return "the input's"
    return "random" + ("" if report.order_seed is None else f", reproducible from seed {report.order_seed}")


def _warnings(report: Report) -> str:
    return "".join(f'<p class="warn">Warning: {_e(w)}</p>' for w in report.warnings)


def _head(report: Report) -> str:
    return (
        f"{_status(report)}{_warnings(report)}{_cards(report) if report.success else ''}"
        f"<h2>Privacy models</h2>{_models(report)}"
        f"<h2>Quasi-identifiers</h2>{_attributes(report) if report.success else '<p>–</p>'}"
        f"<h2>Re-identification risk</h2>{_risk(report)}"
    )


def html_report(report: Report) -> str:
    """The whole page for ``report``: a complete, self-contained HTML document, pure ASCII
    like the SVG it embeds."""
    title = f"sqlanon report: {report.input}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Anonymization report</h1><p>Input <code>{_e(report.input)}</code>, {_count(report.rows)} records.</p>",
        _head(report),
        f"<h2>Group sizes</h2>{_histogram(report)}",
        f"<h2>Run</h2>{_run(report)}",
    ]
    if report.manifest is not None:
        parts.append(
            "<h2>Manifest</h2><p>Re-applies this transformation to new data: "
            "<code>sqlanon apply JOB --manifest report.json</code>.</p>"
            f'<pre class="manifest">{_e(json.dumps(report.manifest.to_dict(), indent=2))}</pre>'
        )
    parts.append("</body></html>\n")
    return "\n".join(parts).encode("ascii", "xmlcharrefreplace").decode("ascii")


def summary_html(report: Report) -> str:
    """The page's top part (outcome, figures, models, quasi-identifiers, risk) as an HTML
    fragment for Jupyter; its styles are scoped to the fragment's own class."""
    return f'<div class="sqlanon-result"><style>{_scoped(STYLE)}</style>{_head(report)}</div>'


def _scoped(style: str) -> str:
    """``style``'s rules with every selector under ``.sqlanon-result`` (a notebook's own
    tables keep their look); the page's ``body`` rule is left out."""
    rules = []
    for rule in style.replace("\n", "").split("}"):
        selectors, _, body = rule.partition("{")
        if body and selectors.strip() != "body":
            rules.append(",".join(f".sqlanon-result {s.strip()}" for s in selectors.split(",")) + "{" + body + "}")
    return "".join(rules)


def one_line(report: Report | None) -> str:
    """``repr(Result)``: the outcome in one line."""
    if report is None:
        return "Result(empty)"
    if not report.success:
        return f"Result(success=False, algorithm={report.algorithm!r}, checks={report.checks})"
    where = (
        ", ".join(f"{q}={l}" for q, l in report.levels.items())
        if report.levels
        else "cut set"
        if report.cuts is not None
        else "?"
    )
    return (
        f"Result(success=True, {report.algorithm}/{report.metric}: {where}; loss {_number(report.loss)}, "
        f"{_count(report.suppressed)} of {_count(report.rows)} rows suppressed, "
        f"{_count(report.classes)} classes, {'verified' if report.verified else 'not verified'})"
    )
