"""``sqlanon init DATA``: a starting job file written from what the data shows.

Every column is listed with its type, distinct count and share of unique values, a
suggested role and, for a suggested quasi-identifier, a hierarchy builder over its values —
all commented out (``#[attributes.x]``, ``#role = ...``): the roles are the user's decision.
Removing the ``#`` in front of the settings wanted gives a job that loads. The figures come
from one query over the input (sqlanon/cli/column_profile.py), the suggestions from the rules
of sqlanon/cli/column_roles.py.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from sqlanon.cli.column_profile import Column, profile
from sqlanon.cli.column_roles import Suggestion, about, suggest, unique_share
from sqlanon.core.specs import Source
from sqlanon.release import Protected, Publication


def facts(column: Column, suggestion: Suggestion) -> str:
    """The comment line that says what the column holds: exact counts, or estimates (~)."""
    kind = suggestion.kind
    if column.duck_type != "VARCHAR" and column.duck_type.lower() != kind:  # the type, unless the kind says it
        duck_type = column.duck_type if len(column.duck_type) <= 60 else column.duck_type[:60] + "…"
        kind += f" ({_shown(duck_type)})"
    if column.exact:
        counted = f"{column.distinct:,} distinct {'value' if column.distinct == 1 else 'values'}"
    else:
        counted = f"~{about(column.distinct)} distinct values"
    counted += f", {unique_share(column)} unique"
    line = f"# {_shown(column.name)}: {kind}, {counted}"
    if column.nulls:
        line += f", {column.nulls:,} empty"
    if column.low is not None and suggestion.kind in ("integer", "number"):
        line += f", {_number(column.low)} to {_number(column.high)}"
    return line


def _number(value: float | None) -> str:
    assert value is not None
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _shown(name: str) -> str:
    """A name as a comment line can hold it: as it is, or quoted when it holds a line break or
    another control character."""
    return name if name.isprintable() else json.dumps(name, ensure_ascii=False)


def _key(name: str) -> str:
    """The name as a TOML key: bare when TOML allows it, else quoted."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def column_lines(column: Column) -> list[str]:
    """A column's block: what it holds, then its suggested entry, commented out."""
    suggestion = suggest(column)
    lines = [
        "",
        facts(column, suggestion),
        f"#[attributes.{_key(column.name)}]",
        f'#role = "{suggestion.role}"  # suggested: {suggestion.why}',
    ]
    if suggestion.hierarchy:
        lines.append(f"#hierarchy = {suggestion.hierarchy}")
    if suggestion.alternative:
        lines.append(f"# as a quasi-identifier: hierarchy = {suggestion.alternative}")
    if suggestion.note:
        lines.append(f"# note: {suggestion.note}")
    return lines


def job_text(source: Source, columns: list[Column], job_path: str) -> str:
    """The job file: [input] set, every column's entry and [privacy]/[output] commented; it
    ends with a line break, as a text file does."""
    assert source.path is not None  # init reads a file
    folder = os.path.dirname(os.path.abspath(job_path))
    data = os.path.relpath(os.path.abspath(source.path), folder)
    stem = Path(source.path).stem
    lines = [
        f"# A starting job for {_shown(Path(source.path).name)}, written by `sqlanon init`.",
        "# Each column below shows what the data holds (~: an estimate) and a suggested role (and",
        "# hierarchy for a quasi-identifier): remove the '#' in front of the settings you keep, adjust",
        "# them, and give every column a role (quasi | sensitive | insensitive | identifying) or list",
        "# it in input.drop.",
        "",
        "[input]",
        f"path = {json.dumps(data, ensure_ascii=False)}",
    ]
    if source.kind == "csv" and source.delimiter != ",":
        lines.append(f"delimiter = {json.dumps(source.delimiter)}")
    if source.encoding:
        lines.append(f"encoding = {json.dumps(source.encoding)}")
    if source.table:
        lines.append(f"table = {json.dumps(source.table, ensure_ascii=False)}")
    for column in columns:
        lines += column_lines(column)
    lines += [
        "",
        "#[privacy]",
        "#k = 5",
        "#suppression_limit = 0.02",
        "",
        "#[output]",
        f"#path = {json.dumps(stem + '_anonymized.csv', ensure_ascii=False)}",
        f"#report = {json.dumps(stem + '_report.json', ensure_ascii=False)}",
    ]
    return "\n".join(lines) + "\n"


def write_job(source: Source, job_path: str, overwrite: bool = False) -> str:
    """Profile the input and write the starting job to ``job_path`` through the file guard
    (never the input, an existing file only with ``overwrite``); return its text."""
    protected = Protected()
    protected.add(source.path, "the input database" if source.kind == "duckdb" else "the input file")
    with Publication(protected, overwrite) as publication:
        publication.reserve(job_path, "job file")
        text = job_text(source, profile(source).columns, job_path)
        publication.put_text(job_path, text)
        publication.commit()
    return text
