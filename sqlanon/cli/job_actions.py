"""What the commands over a job file do (their flags: sqlanon/cli/job_commands.py): parse the
flags into a Job, call the library, print, return the exit code.

Imported when a command runs (``_actions`` beside its flags), inside the command's guard
(sqlanon/cli/guard.py): this module imports the engines, the search and the reports at its top.

Exit codes: 0 solution written and verified, 1 no transformation satisfies the models,
2 usage, configuration or hierarchy error, 3 data or I/O error, 4 output failed verification (a bug),
130 interrupted.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import click

from sqlanon.anonymizer import anonymize as anonymize_job, apply as apply_manifest
from sqlanon.cli.arguments import absolute, node_levels
from sqlanon.cli.interrupts import published, received
from sqlanon.config.read import load_job
from sqlanon.demo import demo_job, prepare_data
from sqlanon.errors import EXIT_NO_SOLUTION, EXIT_OK, ConfigError
from sqlanon.progress import Display
from sqlanon.release import Publication, protected_files
from sqlanon.report.manifest_input import load_manifest
from sqlanon.report.markdown import markdown as markdown_text, markdown_files, summary_targets
from sqlanon.report.risk import analyse, text
from sqlanon.report.summary import summary
from sqlanon.session import Session, hierarchy_for


def anonymize(
    config,
    k,
    suppression_limit,
    metric,
    algorithm,
    time_limit,
    step_limit,
    seed,
    output,
    report,
    order,
    overwrite,
    as_json,
    quiet,
    markdown,
    html,
    no_html,
    fmt,
) -> int:
    job = load_job(
        config,
        k=k,
        suppression_limit=suppression_limit,
        metric=metric,
        algorithm=algorithm,
        time_limit=time_limit,
        step_limit=step_limit,
        seed=seed,
        output=absolute(output),
        report=absolute(report),
        summary=absolute(markdown),
        html=False if no_html else absolute(html),
        overwrite=overwrite,
        order=order,
    )
    if fmt == "markdown" and job.output.summary is None:
        job = replace(job, output=replace(job.output, summary=summary_path(job.output)))
    return _run(job, as_json or fmt == "json", quiet)


def summary_path(output) -> str:
    """Where ``--format markdown`` puts the summary: beside the output file (or the report,
    or in the working folder when the output is a database table)."""
    anchor = output.path or output.report
    if anchor:
        path = Path(anchor)
        return str(path.with_name(path.name.split(".")[0] + "_summary.md"))
    return str(Path.cwd() / "sqlanon_summary.md")


def demo(config, rows, overwrite, as_json) -> int:
    job = load_job(config, overwrite=overwrite or None) if config else demo_job(Path.cwd() / "demo")
    if job.input.path is None:
        raise ConfigError(f"{config}: the demo writes its data to the job's [input] path; this job reads a table")
    if prepare_data(job.input.path, rows, overwrite):
        click.echo(f"wrote {rows} demo rows to {job.input.path}", err=True)
    return _run(job, as_json)


def apply(config, manifest, output, report, order, overwrite, as_json, quiet) -> int:
    job = load_job(config, output=absolute(output), overwrite=overwrite, order=order)
    # The job's report path is usually the manifest itself: this run writes a report only
    # where --report says (and the guard refuses the manifest there too), its HTML beside it.
    job = replace(job, output=replace(job.output, report=absolute(report), summary=None, html=True))
    result = apply_manifest(
        job, load_manifest(manifest), manifest_path=manifest, on_published=published, interrupted=received
    )
    return _finish(job, result, as_json, quiet)


def _run(job, as_json: bool, quiet: bool = False) -> int:
    # a bar (tqdm, if installed) or one line on stderr, only when it is a terminal
    progress = Display()
    try:
        result = anonymize_job(
            job,
            on_progress=progress if progress.active and not quiet else None,
            on_published=published,
            interrupted=received,
        )
    finally:
        progress.close()
    return _finish(job, result, as_json, quiet)


def _finish(job, result, as_json: bool, quiet: bool) -> int:
    """Summary on stderr (unless quiet), the report on stdout with --json, the exit code."""
    if not quiet:
        assert result.details is not None  # a run's Result carries its typed report
        click.echo(summary(result.details), err=True)
        for line in written(job, result.success):
            click.echo(f"  {line}", err=True)
    if as_json:
        click.echo(json.dumps(result.report, indent=2))
    return EXIT_OK if result.success else EXIT_NO_SOLUTION


def written(job, success: bool) -> list[str]:
    """What the run wrote beside the released table, or why nothing."""
    out = job.output
    if not success:
        return ["nothing written" + (" (the report is printed by --json)" if out.report or out.writes else "")]
    files = ([out.report] if out.report else []) + ([p for p, _ in summary_targets(out.summary)] if out.summary else [])
    files += [out.html_path] if out.html_path else []
    if not out.writes and not files:
        return ["nothing written (no [output] section: give output.path to release the table)"]
    lines = [] if out.writes else ["no table released (no output.path)"]
    return lines + ([f"wrote {', '.join(files)}"] if files else [])


def explain(config, node, show) -> int:
    levels = node_levels(node)
    with Session(load_job(config)) as session:
        e = session.explain(levels, show)
    r = e["result"]
    click.echo(
        f"-- check of node {','.join(map(str, levels))} ({', '.join(f'{q}={l}' for q, l in zip(session.qis, levels))})"
    )
    click.echo(f"-- parameters: {e['parameters']}")
    click.echo(e["sql"] + ";")
    verdict = "anonymous" if r.anonymous else "NOT anonymous"
    click.echo(
        f"\n{verdict}: {r.stats.suppressed} rows in failing classes, limit {e['limit_rows']}; "
        f"{r.stats.classes} classes, {r.stats.kept_classes} kept; {session.job.metric} {r.loss}"
    )
    for reason in e.get("reasons", ()):
        click.echo(f"fails: {reason}")
    if e["failing"]:
        click.echo(f"smallest failing classes (of {r.stats.classes - r.stats.kept_classes}):")
        for labels, size in e["failing"]:
            click.echo(f"  {size:>6}  " + ", ".join(f"{q}={v}" for q, v in labels.items()))
    return EXIT_OK


def risk(config, node, fmt, output, overwrite) -> int:
    levels = None if node is None else node_levels(node)
    job, path = load_job(config), absolute(output)
    targets = summary_targets(path) if path and fmt == "markdown" else [(path, "risk report")]
    with _publication(job, overwrite, targets) as publication:
        result = analyse(job, levels)
        if path is None:
            click.echo(
                {"text": text, "json": lambda r: json.dumps(r, indent=2), "markdown": markdown_text}[fmt](result)
            )
            return EXIT_OK
        files = (
            markdown_files(result, path)
            if fmt == "markdown"
            else {path: (text(result) if fmt == "text" else json.dumps(result, indent=2)) + "\n"}
        )
        for file, body in files.items():
            publication.put_text(file, body)
        publication.commit()
    click.echo(f"wrote {' and '.join(files)}", err=True)
    return EXIT_OK


def _publication(job, overwrite: bool, targets):
    """The command's files (path, what) checked against the guard: never an input, the job or a
    hierarchy, an existing file only with --overwrite; published together."""
    publication = Publication(protected_files(job), overwrite)
    for path, what in targets:
        if path:
            publication.reserve(path, what)
    return publication


def build(config, attribute, output, overwrite) -> int:
    job, path = load_job(config), absolute(output)
    with _publication(job, overwrite, [(path, "hierarchy file")]) as publication:
        arx = _arx_csv(hierarchy_for(job, attribute))
        if path is None:
            click.echo(arx, nl=False)
            return EXIT_OK
        publication.put_text(path, arx)
        publication.commit()
    click.echo(f"wrote {output}", err=True)
    return EXIT_OK


def preview(config, attribute, rows) -> int:
    h = hierarchy_for(load_job(config), attribute)
    widths = [max(len(r[l]) for r in h.rows) for l in range(h.height + 1)]
    click.echo("  ".join(f"{'level ' + str(l):<{max(w, 7)}}" for l, w in enumerate(widths)))
    for row in h.rows[:rows]:
        click.echo("  ".join(f"{v:<{max(w, 7)}}" for v, w in zip(row, widths)))
    if len(h.rows) > rows:
        click.echo(f"... {len(h.rows) - rows} more rows")
    click.echo("values per level: " + ", ".join(str(d) for d in h.encoded.distinct))
    return EXIT_OK


def _arx_csv(h) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\n").writerows(h.rows)
    return buffer.getvalue()
