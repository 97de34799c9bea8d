"""``sqlanon init DATA``: a starting job file written from what the data shows.

Every column is listed with its type, distinct count and share of unique values, a
suggested role and, for a suggested quasi-identifier, a hierarchy builder over its values —
all commented out (``#[attributes.x]``, ``#role = ...``): the roles are the user's decision.
Removing the ``#`` in front of the settings wanted gives a job that loads. The figures come
from one DuckDB pass over the input (a CSV read as text, as a run reads it).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from sqlglot import exp

from sqlanon.config.job import Source
from sqlanon.engines.duckdb import DuckDBEngine
from sqlanon.release import Protected, Publication

#: a column with at least this share of unique values is suggested "identifying"
IDENTIFYING_SHARE = 0.9
#: text with at most this many distinct values gets an order hierarchy listing them
ORDER_VALUES = 30


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # integer | number | digits | date | text
    distinct: int
    rows: int
    nulls: int
    low: float | None = None
    high: float | None = None
    width: int | None = None  # digits: the common length

    @property
    def unique_share(self) -> float:
        return self.distinct / self.rows if self.rows else 0.0

    def role(self) -> str:
        if self.rows > 1 and self.unique_share >= IDENTIFYING_SHARE:
            return "identifying"
        if self.distinct <= 1:
            return "insensitive"
        if self.kind == "text" and self.distinct > ORDER_VALUES:
            return "insensitive"
        return "quasi"


def profile(source: Source) -> list[Column]:
    """Each column's type, distinct count and, for numbers, range (one query per column)."""
    engine = DuckDBEngine()
    try:
        names = engine.open(source)
        relation, params = engine._source_relation(source)
        rows = engine.con.execute(f"SELECT COUNT(*) FROM {relation}", params).fetchone()[0]
        return [_column(engine, relation, params, name, engine._types.get(name, "VARCHAR"), rows) for name in names]
    finally:
        engine.close()


def _column(engine, relation: str, params: dict, name: str, duck_type: str, rows: int) -> Column:
    c = exp.column(name, quoted=True).sql("duckdb")
    text = f"CAST({c} AS VARCHAR)"
    distinct, nulls, integers, numbers, dates, low, high, shortest, longest, zeros = engine.con.execute(
        f"SELECT COUNT(DISTINCT {c}), COUNT(*) - COUNT({c}), "
        f"COUNT(TRY_CAST({text} AS BIGINT)), COUNT(TRY_CAST({text} AS DOUBLE)), "
        f"COUNT(TRY_STRPTIME({text}, '%Y-%m-%d')), MIN(TRY_CAST({text} AS DOUBLE)), MAX(TRY_CAST({text} AS DOUBLE)), "
        f"MIN(LENGTH({text})), MAX(LENGTH({text})), COUNT(*) FILTER (WHERE {text} LIKE '0_%') "
        f"FROM {relation}", params).fetchone()
    present = rows - nulls
    kind = "text"
    if present and dates == present:
        kind = "date"
    elif present and integers == present and zeros and shortest == longest:
        kind = "digits"  # codes with leading zeros (zip codes): masked, not counted
    elif present and integers == present:
        kind = "integer"
    elif present and numbers == present:
        kind = "number"
    return Column(name, kind, int(distinct), rows, int(nulls), low, high, int(longest) if longest else None)


def hierarchy_spec(column: Column, values: list[str] | None = None) -> str:
    """A builder for the column, as a TOML inline table."""
    if column.kind in ("integer", "number") and column.low is not None:
        width = _nice((column.high - column.low) / 20 or 1, integral=column.kind == "integer")
        start = math.floor(column.low / width) * width
        widths = [width, width * 2, width * 4]
        return (f"{{ type = \"intervals\", widths = [{', '.join(_number(w) for w in widths)}], "
                f"start = {_number(start)} }}")
    if column.kind == "digits":
        return f"{{ type = \"mask\", mask = \"*\", levels = {max(1, (column.width or 2) - 1)} }}"
    if column.kind == "date":
        return "{ type = \"date\", format = \"%Y-%m-%d\", levels = [\"month\", \"year\", \"decade\"] }"
    if values is None:  # too many values to list: generalized by their leading characters
        return f"{{ type = \"mask\", mask = \"*\", levels = {max(1, min(column.width or 2, 6) - 1)} }}"
    shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
    return f"{{ type = \"order\", values = [{shown}], fanout = [2] }}"


def _nice(raw: float, integral: bool) -> float:
    """The smallest of 1, 2, 5 times a power of ten at or above ``raw`` (at least 1 for integers)."""
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for step in (1, 2, 5, 10):
        if step * power >= raw:
            value = step * power
            return max(1, round(value)) if integral else value
    return 10 * power


def _percent(share: float) -> str:
    return f"{share * 100:.3g}%"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def job_text(source: Source, columns: list[Column], job_path: str, values: dict[str, list[str]]) -> str:
    """The job file: [input] set, every column's entry and [privacy]/[output] commented."""
    folder = os.path.dirname(os.path.abspath(job_path))
    data = os.path.relpath(os.path.abspath(source.path), folder)
    stem = Path(source.path).stem
    lines = [
        f"# A starting job for {Path(source.path).name}, written by `sqlanon init`.",
        "# Each column below shows what the data holds and a suggested role (and hierarchy for a",
        "# quasi-identifier): remove the '#' in front of the settings you keep, adjust them, and give",
        "# every column a role (quasi | sensitive | insensitive | identifying) or list it in input.drop.",
        "",
        "[input]",
        f"path = {json.dumps(data)}",
    ]
    if source.kind == "csv" and source.delimiter != ",":
        lines.append(f"delimiter = {json.dumps(source.delimiter)}")
    if source.encoding:
        lines.append(f"encoding = {json.dumps(source.encoding)}")
    if source.table:
        lines.append(f"table = {json.dumps(source.table)}")
    for column in columns:
        key = column.name if column.name.replace("_", "a").replace("-", "a").isalnum() else json.dumps(column.name)
        facts = (f"# {column.name}: {column.kind}, {column.distinct:,} distinct values, "
                 f"{_percent(column.unique_share)} unique" + (f", {column.nulls:,} empty" if column.nulls else ""))
        if column.low is not None and column.kind in ("integer", "number"):
            facts += f", {_number(column.low)} to {_number(column.high)}"
        role = column.role()
        why = {"identifying": "nearly every value is unique: an identifier, not released",
               "insensitive": "released as it is"}.get(role, "generalized by the hierarchy below")
        lines += ["", facts, f"#[attributes.{key}]", f"#role = \"{role}\"  # suggested: {why}"]
        if role == "quasi":
            lines.append(f"#hierarchy = {hierarchy_spec(column, values.get(column.name))}")
        elif role == "insensitive" and column.distinct > 1:
            lines.append(f"# as a quasi-identifier: hierarchy = {hierarchy_spec(column, values.get(column.name))}")
    lines += ["", "#[privacy]", "#k = 5", "#suppression_limit = 0.02", "",
              "#[output]", f"#path = {json.dumps(stem + '_anonymized.csv')}", f"#report = {json.dumps(stem + '_report.json')}"]
    return "\n".join(lines) + "\n"


def write_job(source: Source, job_path: str, overwrite: bool = False) -> str:
    """Profile the input and write the starting job to ``job_path`` through the file guard
    (never the input, an existing file only with ``overwrite``); return its text."""
    protected = Protected()
    protected.add(source.path, "the input database" if source.kind == "duckdb" else "the input file")
    with Publication(protected, overwrite) as publication:
        publication.reserve(job_path, "job file")
        columns = profile(source)
        values = {c.name: _distinct(source, c.name) for c in columns
                  if c.kind == "text" and c.role() == "quasi" and c.distinct <= ORDER_VALUES}
        text = job_text(source, columns, job_path, values)
        publication.put_text(job_path, text)
        publication.commit()
    return text


def _distinct(source: Source, name: str) -> list[str]:
    engine = DuckDBEngine()
    try:
        engine.open(source)
        return engine.distinct_values(name)
    finally:
        engine.close()
