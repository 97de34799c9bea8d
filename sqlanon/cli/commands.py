"""The command line: thin, it parses flags into a Job, calls the API, prints, exits.

Exit codes: 0 solution written and verified, 1 no transformation satisfies the models,
2 usage, configuration or hierarchy error, 3 data or I/O error, 4 output failed verification (a bug),
130 interrupted.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import click

from sqlanon.config.job import INTERVAL_ALGORITHMS, INTERVAL_METRICS
from sqlanon.config.read import load_job
from sqlanon.cli.entry import checkpoint, install_signal_handlers, interrupted, received
from sqlanon.errors import EXIT_NO_SOLUTION, EXIT_OK, ConfigError, SqlanonError
from sqlanon.report.markdown import summary_targets
from sqlanon.config.names import ALGORITHM_NAMES as ALGORITHMS, METRIC_NAMES as METRICS  # names only, for click's choices


def _api(name: str):
    """A function of sqlanon.anonymizer, imported when a command first calls it: the engines,
    the search, DuckDB and SciPy load inside the command's guard, not with the CLI, so
    ``sqlanon --version`` and ``--help`` stay fast (see sqlanon/cli/entry.py)."""
    def call(*args, **kwargs):
        from sqlanon import anonymizer

        return getattr(anonymizer, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


anonymize, apply_manifest, summary = _api("anonymize"), _api("apply"), _api("summary")

checkpoint("import")  # test hook: a signal can be made to land here, with this module half-loaded


def _run(job, as_json: bool, quiet: bool = False) -> int:
    from sqlanon.progress import Display

    # a bar (tqdm, if installed) or one line on stderr, only when it is a terminal
    progress = Display()
    try:
        result = anonymize(job, on_progress=progress if progress.active and not quiet else None)
    finally:
        progress.close()
    return _finish(job, result, as_json, quiet)


def _finish(job, result, as_json: bool, quiet: bool) -> int:
    """Summary on stderr (unless quiet), the report on stdout with --json, the exit code."""
    if not quiet:
        click.echo(summary(result.report), err=True)
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


def _guard(action) -> None:
    """Turn sqlanon errors into one clear line and the documented exit code, an interrupt
    into the one-line message and 130."""
    # Installed by the entry point already; again here for `python -m sqlanon.cli.commands` and code
    # calling `main` itself. SIGTERM is handled like Ctrl-C, so temporary outputs are removed
    # on the way out.
    install_signal_handlers()
    try:
        code = action()
    except KeyboardInterrupt:
        interrupted()
    except Exception as error:
        if received():  # a library's error made of the signal (DuckDB's "Query interrupted")
            interrupted()
        if not isinstance(error, SqlanonError):
            raise
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    sys.exit(code)


class _Main(click.Group):
    """click's standalone mode turns a KeyboardInterrupt into "Aborted!" and exit code 1; here
    it is the one-line message and 130 wherever it lands: while the arguments are parsed, while
    a command imports what it needs, or in a command outside ``_guard``."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            interrupted()

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            interrupted()


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sqlanon")
def main() -> None:
    """sqlanon: optimal k-anonymization of tables, pushed into DuckDB."""


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--k", "k", type=int, help="Override privacy.k (every class keeps at least k rows).")
@click.option("--suppression-limit", type=float, help="Override privacy.suppression_limit (fraction of rows, 0..1).")
@click.option("--metric", type=click.Choice(sorted({*METRICS, *INTERVAL_METRICS})), help="Override search.metric.")
@click.option("--algorithm", type=click.Choice([*ALGORITHMS, *INTERVAL_ALGORITHMS]), help="Override search.algorithm.")
@click.option("--time-limit", type=float, help="Override search.time_limit (seconds; heuristics, k-optimize, hill-climb).")
@click.option("--step-limit", type=int, help="Override search.step_limit (checks; heuristics, k-optimize, hill-climb).")
@click.option("--seed", type=int, help="Override search.seed (genetic, random, hill-climb).")
@click.option("--output", type=click.Path(dir_okay=False), help="Override output.path (.parquet, .csv, .duckdb).")
@click.option("--report", type=click.Path(dir_okay=False), help="Override output.report (JSON file).")
@click.option("--overwrite", is_flag=True, default=None,
              help="Replace existing targets (output, report, summary); never an input, the job or a hierarchy.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout (nothing else goes there).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no summary on stderr (errors still).")
@click.option("--markdown", type=click.Path(dir_okay=False),
              help="Also write the one-page risk and utility summary (Markdown) here, its histogram SVG beside it.")
@click.option("--html", type=click.Path(dir_okay=False),
              help="Override output.html: write the HTML report here (default: beside the JSON report).")
@click.option("--no-html", is_flag=True, help="Write no HTML report (output.html = false).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="text: summary on stderr; json: as --json; markdown: also write the one-page summary beside "
                   "the output (<output stem>_summary.md and its SVG) unless --markdown names the file.")
def anonymize_command(config, k, suppression_limit, metric, algorithm, time_limit, step_limit, seed, output, report,
                      overwrite, as_json, quiet, markdown, html, no_html, fmt):
    """Anonymize the table described by the TOML job CONFIG."""
    def action() -> int:
        job = load_job(config, k=k, suppression_limit=suppression_limit, metric=metric, algorithm=algorithm,
                       time_limit=time_limit, step_limit=step_limit, seed=seed,
                       output=_absolute(output), report=_absolute(report), summary=_absolute(markdown),
                       html=False if no_html else _absolute(html), overwrite=overwrite)
        if fmt == "markdown" and job.output.summary is None:
            job = replace(job, output=replace(job.output, summary=summary_path(job.output)))
        return _run(job, as_json or fmt == "json", quiet)

    _guard(action)


def summary_path(output) -> str:
    """Where ``--format markdown`` puts the summary: beside the output file (or the report,
    or in the working folder when the output is a database table)."""
    anchor = output.path or output.report
    if anchor:
        path = Path(anchor)
        return str(path.with_name(path.name.split(".")[0] + "_summary.md"))
    return str(Path.cwd() / "sqlanon_summary.md")


main.add_command(anonymize_command, name="anonymize")


@main.command()
@click.argument("config", type=click.Path(dir_okay=False), required=False)
@click.option("--rows", type=click.IntRange(min=1), default=4000, show_default=True, help="Rows of demo data to generate (>= 1).")
@click.option("--overwrite", is_flag=True, help="Replace an input file that is not the demo's data (and, with CONFIG, existing outputs).")
@click.option("--json", "as_json", is_flag=True, help="Also print the report as JSON on stdout.")
def demo(config, rows, overwrite, as_json):
    """Generate the demo patient data and anonymize it: with the packaged demo job into ./demo/
    (replacing the demo's earlier results there), or with the job CONFIG."""
    from sqlanon.demo import demo_job, prepare_data

    def action() -> int:
        job = load_job(config, overwrite=overwrite or None) if config else demo_job(Path.cwd() / "demo")
        if prepare_data(job.input.path, rows, overwrite):
            click.echo(f"wrote {rows} demo rows to {job.input.path}", err=True)
        return _run(job, as_json)

    _guard(action)


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--manifest", "-m", required=True, type=click.Path(dir_okay=False), help="A report.json of an earlier anonymize run.")
@click.option("--output", type=click.Path(dir_okay=False), help="Override output.path.")
@click.option("--report", type=click.Path(dir_okay=False), help="Write this run's report here (output.report of the job is not used).")
@click.option("--overwrite", is_flag=True, default=None,
              help="Replace existing targets (output, report); never an input, the job, a hierarchy or the manifest.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout (nothing else goes there).")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr (errors still).")
def apply(config, manifest, output, report, overwrite, as_json, quiet):
    """Apply a saved transformation to CONFIG's data and re-check the privacy models."""
    from sqlanon.report.manifest import load_manifest

    def action() -> int:
        job = load_job(config, output=_absolute(output), overwrite=overwrite)
        # The job's report path is usually the manifest itself: this run writes a report only
        # where --report says (and the guard refuses the manifest there too), its HTML beside it.
        job = replace(job, output=replace(job.output, report=_absolute(report), summary=None, html=True))
        result = apply_manifest(job, load_manifest(manifest), manifest_path=manifest)
        return _finish(job, result, as_json, quiet)

    _guard(action)


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--node", required=True, help="Levels in QI order, e.g. 1,2,0.")
@click.option("--show", type=int, default=10, show_default=True, help="How many failing classes to list.")
def explain(config, node, show):
    """Print the SQL of a node's check, its figures, and the smallest classes that fail it."""
    from sqlanon.session import Session

    def action() -> int:
        try:
            levels = tuple(int(x) for x in node.split(","))
        except ValueError:
            raise ConfigError(f"--node must be levels separated by commas, e.g. 1,2,0; got {node!r}") from None
        with Session(load_job(config)) as session:
            e = session.explain(levels, show)
        r = e["result"]
        click.echo(f"-- check of node {','.join(map(str, levels))} ({', '.join(f'{q}={l}' for q, l in zip(session.qis, levels))})")
        click.echo(f"-- parameters: {e['parameters']}")
        click.echo(e["sql"] + ";")
        verdict = "anonymous" if r.anonymous else "NOT anonymous"
        click.echo(f"\n{verdict}: {r.stats.suppressed} rows in failing classes, limit {e['limit_rows']}; "
                   f"{r.stats.classes} classes, {r.stats.kept_classes} kept; {session.job.metric} {r.loss}")
        if e["failing"]:
            click.echo(f"smallest failing classes (of {r.stats.classes - r.stats.kept_classes}):")
            for labels, size in e["failing"]:
                click.echo(f"  {size:>6}  " + ", ".join(f"{q}={v}" for q, v in labels.items()))
        return EXIT_OK

    _guard(action)


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--node", help="Levels in QI order, e.g. 1,2,0: the risk of that node's release (default: the input).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="text and json go to stdout; markdown to --output (its histogram PNG beside it) or stdout.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --output file (and its histogram).")
def risk(config, node, fmt, output, overwrite):
    """Re-identification risk of CONFIG's input (or of a node): prosecutor figures, sample and
    population uniqueness, class-size histogram."""
    from sqlanon.report.markdown import markdown as markdown_text, markdown_files, summary_targets
    from sqlanon.report.risk import analyse, text

    def action() -> int:
        levels = None
        if node is not None:
            try:
                levels = tuple(int(x) for x in node.split(","))
            except ValueError:
                raise ConfigError(f"--node must be levels separated by commas, e.g. 1,2,0; got {node!r}") from None
        job, path = load_job(config), _absolute(output)
        targets = summary_targets(path) if path and fmt == "markdown" else [(path, "risk report")]
        with _publication(job, overwrite, targets) as publication:
            result = analyse(job, levels)
            if path is None:
                click.echo({"text": text, "json": lambda r: json.dumps(r, indent=2), "markdown": markdown_text}[fmt](result))
                return EXIT_OK
            files = (markdown_files(result, path) if fmt == "markdown"
                     else {path: (text(result) if fmt == "text" else json.dumps(result, indent=2)) + "\n"})
            for path, body in files.items():
                publication.put_text(path, body)
            publication.commit()
        click.echo(f"wrote {' and '.join(files)}", err=True)
        return EXIT_OK

    _guard(action)


def _publication(job, overwrite: bool, targets):
    """The command's files (path, what) checked against the guard: never an input, the job or a
    hierarchy, an existing file only with --overwrite; published together."""
    from sqlanon.release import Publication, protected_files

    publication = Publication(protected_files(job), overwrite)
    for path, what in targets:
        if path:
            publication.reserve(path, what)
    return publication


@main.group()
def hierarchy() -> None:
    """Build or preview a hierarchy given as a builder spec in a job."""


@hierarchy.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--attribute", "-a", required=True, help="The attribute whose hierarchy to build.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the ARX CSV here (default: stdout).")
@click.option("--overwrite", is_flag=True, help="Replace an existing output file.")
def build(config, attribute, output, overwrite):
    """Build ATTRIBUTE's hierarchy over its data and write it as an ARX CSV (';', no header)."""
    from sqlanon.session import hierarchy_for

    def action() -> int:
        job, path = load_job(config), _absolute(output)
        with _publication(job, overwrite, [(path, "hierarchy file")]) as publication:
            text = _arx_csv(hierarchy_for(job, attribute))
            if path is None:
                click.echo(text, nl=False)
                return EXIT_OK
            publication.put_text(path, text)
            publication.commit()
        click.echo(f"wrote {output}", err=True)
        return EXIT_OK

    _guard(action)


@hierarchy.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--attribute", "-a", required=True, help="The attribute whose hierarchy to show.")
@click.option("--rows", type=int, default=10, show_default=True, help="How many rows to show.")
def preview(config, attribute, rows):
    """Show the first rows of ATTRIBUTE's hierarchy and the number of values per level."""
    from sqlanon.session import hierarchy_for

    def action() -> int:
        h = hierarchy_for(load_job(config), attribute)
        widths = [max(len(r[l]) for r in h.rows) for l in range(h.height + 1)]
        click.echo("  ".join(f"{'level ' + str(l):<{max(w, 7)}}" for l, w in enumerate(widths)))
        for row in h.rows[:rows]:
            click.echo("  ".join(f"{v:<{max(w, 7)}}" for v, w in zip(row, widths)))
        if len(h.rows) > rows:
            click.echo(f"... {len(h.rows) - rows} more rows")
        click.echo("values per level: " + ", ".join(str(d) for d in h.encoded.distinct))
        return EXIT_OK

    _guard(action)


def _arx_csv(h) -> str:
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\n").writerows(h.rows)
    return buffer.getvalue()


def _absolute(path: str | None) -> str | None:
    """A path given on the command line is relative to the working directory. Not resolved:
    messages name it as the user wrote it (the guard compares real paths itself)."""
    return str(Path.cwd() / path) if path else None


if __name__ == "__main__":  # pragma: no cover
    main()


from sqlanon.cli import data as cli_data  # noqa: E402,F401  (registers check and init on the group)
