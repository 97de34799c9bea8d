"""``check``: assess a table as it is — no hierarchies, every quasi-identifier at its level 0.

The table is grouped once by its QIs (and the values of the attributes the models read),
as text with NULL as '' like the engines match them, by DuckDB (a file, a DuckDB table, a
table in memory) or by Spark (a Spark DataFrame). Each class is then evaluated by the models'
Python definitions — the ones the independent verification of every output uses
(``sqlanon/release/verify.py``) — and each model's worst value over the classes is what the table
achieves. Rows whose every QI is ``*`` are a release's suppressed rows: counted beside the
classes, as the risk analysis leaves them out, not a class of their own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import duckdb
from sqlglot import exp

from sqlanon.core.specs import Source
from sqlanon.config.keywords import models_of, plain, source_of
from sqlanon.core.risk import RiskSettings
from sqlanon.core.wording import from_code
from sqlanon.criteria import build_models
from sqlanon.criteria.base import PrivacyModel
from sqlanon.engines.duckdb.engine import DuckDBEngine
from sqlanon.core.mask import MASK
from sqlanon.errors import ConfigError, DataError, cut
from sqlanon.frames import Frame
from sqlanon.reidentification.analysis import risk_section

#: the longest value a listed class shows (longer ones are cut, with their length)
SHOWN = 80


@dataclass
class Assessment:
    """What ``check`` found. ``holds``: every model holds on the table as it is. ``offending``:
    the smallest classes failing a per-class model, each ``(values, size, failed models)``."""

    holds: bool
    input: str
    rows: int
    classes: int
    suppressed: int
    quasi_identifiers: list[str]
    models: list[dict[str, Any]]
    risk: dict[str, Any]
    offending_classes: int = 0
    offending_rows: int = 0
    offending: list[tuple[dict[str, str], int, list[str]]] = field(default_factory=list)

    def to_dict(self, redact: bool = False) -> dict[str, Any]:
        shown = [
            {"values": None if redact else values, "size": size, "fails": fails}
            for values, size, fails in self.offending
        ]
        return {
            "holds": self.holds,
            "input": self.input,
            "rows": self.rows,
            "classes": self.classes,
            "suppressed": self.suppressed,
            "quasi_identifiers": self.quasi_identifiers,
            "models": self.models,
            "offending_classes": self.offending_classes,
            "offending_rows": self.offending_rows,
            "offending": shown,
            "risk": self.risk,
        }

    def text(self, redact: bool = False) -> str:
        """The ``check`` command's report: values cut to 80 characters, or hidden with ``redact``."""
        r = self.risk
        lines = [
            f"{self.input}: {self.rows} rows in {self.classes} classes of {', '.join(self.quasi_identifiers)}"
            + (f" ({self.suppressed} suppressed rows, every QI '*', not counted as a class)" if self.suppressed else "")
        ]
        for model in self.models:
            lines.append(
                f"  {_model_name(model):<48} achieved {_figure(model['achieved'])}"
                + ("" if model["holds"] else "  FAILS")
            )
        lines.append(
            f"  risk: highest {r['highest_risk']:.4g}, average {r['average_risk']:.4g}, "
            f"records at risk {r['records_at_risk']} ({r['share_at_risk']:.2%}), "
            f"sample uniqueness {r['sample_uniqueness']:.2%}"
        )
        population = r.get("population") or {}
        if population.get("share") is not None:
            lines.append(f"  population uniqueness ({population.get('model')}): {population['share']:.4%}")
        if self.holds:
            lines.append("The models hold.")
            return "\n".join(lines)
        lines.append(
            "The models do NOT hold"
            + (
                f": {self.offending_classes} classes ({self.offending_rows} rows) fail"
                if self.offending_classes
                else " on the table as a whole"
            )
        )
        if self.offending:
            lines.append("smallest offending classes" + (" (values hidden)" if redact else "") + ":")
        for values, size, fails in self.offending:
            shown = "(hidden)" if redact else ", ".join(f"{q}={cut(v, SHOWN)}" for q, v in values.items())
            lines.append(f"  {size:>6}  {shown}  [{', '.join(fails)}]")
        return "\n".join(lines)


def check(
    data: Any,
    quasi: Any,
    k: int | None = None,
    models: Any = (),
    *,
    show: int = 10,
    delimiter: str = ",",
    table: str | None = None,
    encoding: str | None = None,
    risk: dict[str, Any] | None = None,
) -> Assessment:
    """Assess ``data`` as it is (a table in memory, a Spark DataFrame, or a CSV, Parquet or
    DuckDB file — ``table`` names the table of a DuckDB file): ``quasi`` lists its QIs;
    ``k`` and ``models`` (``[[privacy.models]]`` entries as dicts) are the models to check.

    >>> import pyarrow as pa, sqlanon
    >>> found = sqlanon.check(pa.table({"zip": ["1", "1", "2"]}), quasi=["zip"], k=2)
    >>> found.holds, found.models[0]["achieved"], found.offending
    (False, 1, [({'zip': '2'}, 1, ['k-anonymity'])])
    """
    with from_code():
        qis = [quasi] if isinstance(quasi, str) else list(quasi or [])
        if not qis or not all(isinstance(q, str) for q in qis) or len(set(qis)) != len(qis):
            raise ConfigError(
                f'quasi= must list the quasi-identifier columns (each once), e.g. quasi=["age", "zip"]; got {quasi!r}'
            )
        settings = RiskSettings.from_table(plain(risk or {}), "risk=")
        k, specs = models_of(k, models, settings)
        if any(spec["type"] == "delta-presence" or {"subset", "subset_file"} & set(spec) for spec in specs):
            raise ConfigError(
                "check assesses a table as it is; delta-presence and k-map with a research subset compare "
                "a release with its population: anonymize with the model instead"
            )
        chosen = build_models([{"type": "k-anonymity", "k": k}, *specs])
        attributes = list(dict.fromkeys(m.attribute for m in chosen if m.attribute))
        source, frame = source_of(data, delimiter, table, encoding)
        described = source.describe() if frame is None else f"{frame.kind} table"
        rows = _groups(source, frame, qis, attributes)
        return _assess(rows, qis, attributes, chosen, described, show, settings)


def _groups(source: Source, frame: Frame | None, qis: list[str], attributes: list[str]) -> list[tuple[Any, ...]]:
    """(QI texts..., attribute texts..., rows) per distinct combination."""
    names = [*qis, *attributes]
    if frame is not None and frame.kind == "spark":
        from pyspark.sql import functions as F

        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise ConfigError(f"column(s) {missing} are not in the Spark DataFrame; its columns: {frame.columns}")
        texts = [F.coalesce(F.col(f"`{n}`").cast("string"), F.lit("")).alias(f"c{i}") for i, n in enumerate(names)]
        grouped = frame.native.select(*texts).groupBy(*(f"c{i}" for i in range(len(names)))).count()
        return [tuple(row) for row in grouped.collect()]
    engine = DuckDBEngine()
    try:
        columns = engine.open(source)
        missing = [n for n in names if n not in columns]
        if missing:
            hint = ""
            if source.kind == "csv" and len(columns) == 1:
                hint = next(
                    (
                        f"; the header reads as one column: set the delimiter to {s!r}"
                        for s in (";", ",", "\t", "|")
                        if s != source.delimiter and s in columns[0]
                    ),
                    "",
                )
            raise ConfigError(
                f"column(s) {missing} are not in {source.describe()}; its columns: "
                f"{', '.join(map(cut, columns[:20]))}{hint}"
            )
        relation, params = engine._source_relation(source)
        selected = [
            exp.Coalesce(
                this=exp.Cast(this=exp.column(n, quoted=True), to=exp.DataType.build("VARCHAR")),
                expressions=[exp.Literal.string("")],
            ).as_(exp.to_identifier(f"c{i}", quoted=True))
            for i, n in enumerate(names)
        ]
        query = (
            exp.select(*selected, exp.Count(this=exp.Star()).as_("n"))
            .from_(exp.to_identifier("r"))
            .group_by(*(exp.Literal.number(i + 1) for i in range(len(names))))
        )
        sql = query.sql("duckdb").replace("FROM r", f"FROM {relation} AS r", 1)
        try:
            return engine.con.execute(sql, params).fetchall()
        except duckdb.Error as error:
            raise engine._read_error(source, error) from None
    finally:
        engine.close()


def _assess(
    rows: list[tuple[Any, ...]],
    qis: list[str],
    attributes: list[str],
    models: list[PrivacyModel],
    described: str,
    show: int,
    settings: RiskSettings,
) -> Assessment:
    d = len(qis)
    masked = tuple(MASK for _ in qis)
    sizes: Counter[tuple[str, ...]] = Counter()
    histograms: defaultdict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
    suppressed = total = 0
    for row in rows:
        key, n = tuple(row[:d]), int(row[-1])
        total += n
        if key == masked:
            suppressed += n
            continue
        sizes[key] += n
        histograms[key][tuple(row[d:-1])] += n
    if total == 0:
        raise DataError(f"{described} has no rows: there is nothing to assess")
    # each sensitive value's frequency in the whole table (suppressed rows included, as in a run)
    overall: dict[str, dict[str, float]] = {}
    for i, name in enumerate(attributes):
        counts: Counter[str] = Counter()
        for row in rows:
            counts[row[d + i]] += int(row[-1])
        distinct = sorted(counts)
        overall[name] = {v: counts[v] / total for v in distinct}
        for model in models:
            if model.attribute == name:
                model.prepare(distinct, [counts[v] for v in distinct])
    for model in models:
        model.resolve_population(total)
    values: dict[int, list[float]] = defaultdict(list)
    failing: list[tuple[dict[str, str], int, list[str]]] = []
    failed: set[int] = set()  # the models some class fails
    offending_rows = 0
    for key, size in sizes.items():
        fails: list[str] = []
        for index, model in enumerate(models):
            value: float
            if model.attribute is None:
                value = size
            else:
                position = attributes.index(model.attribute)
                counts = Counter()
                for combination, n in histograms[key].items():
                    counts[combination[position]] += n
                value = model.class_value(counts, overall[model.attribute])
            values[index].append(value)
            if not model.class_holds(value):
                fails.append(model.name)
                failed.add(index)
        if fails:
            offending_rows += size
            failing.append((dict(zip(qis, key)), size, fails))
    failing.sort(key=lambda item: (item[1], tuple(item[0].values())))
    reported: list[dict[str, Any]] = []
    holds = not failing
    for index, model in enumerate(models):
        entry: dict[str, Any] = {**model.describe()}
        if model.whole_table:
            entry["achieved"] = model.table_value(list(sizes.values()))
            entry["holds"] = bool(model.table_holds(entry["achieved"])) and index not in failed
        else:
            found = values[index]
            entry["achieved"] = (min if model.worst == "min" else max)(found) if found else None
            entry["holds"] = index not in failed
        holds = holds and entry["holds"]
        reported.append(entry)
    table = Counter(sizes.values())
    return Assessment(
        holds=holds,
        input=described,
        rows=total,
        classes=len(sizes),
        suppressed=suppressed,
        quasi_identifiers=list(qis),
        models=reported,
        risk=risk_section(dict(table), settings.threshold, settings.population(total), settings.model, suppressed),
        offending_classes=len(failing),
        offending_rows=offending_rows,
        offending=failing[: max(show, 0)],
    )


def _model_name(model: dict[str, Any]) -> str:
    settings = ", ".join(
        f"{k}={v}" for k, v in model.items() if k not in ("model", "achieved", "holds", "hierarchy", "order")
    )
    return f"{model['model']}({settings})"


def _figure(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
