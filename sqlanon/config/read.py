"""A job read from a TOML file (or its dict): every section's keys checked, paths resolved against
the file's folder, command-line overrides applied. The job as a whole is validated at the start
of a run (``config/validate.py``)."""

from __future__ import annotations

import tomllib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from sqlanon.core import files
from sqlanon.config.delimiters import check_delimiter
from sqlanon.config.job import ROLES, Attribute, Job
from sqlanon.config.models import InFile, privacy_models
from sqlanon.core.options import SEARCH_KEYS, SEARCH_TABLES, split
from sqlanon.core.specs import Output, Source
from sqlanon.core.risk import RISK_KEYS, RiskSettings
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.profiles import DEFAULT_ENGINE, PROFILES
from sqlanon.errors import ConfigError

#: the [engine] keys every engine takes; the others are the engine's own (engines/profiles.py)
_ENGINE_COMMON = {"name", "lookup", "checks", "local_budget", *SnapshotSettings.__dataclass_fields__}

_SECTIONS = {
    "input": {"path", "delimiter", "table", "drop", "encoding"},
    "privacy": {"k", "suppression_limit", "models"},
    "search": {"algorithm", "metric", "max_lattice_size", "weights", "label", "gs_factor", "aggregate", *SEARCH_KEYS},
    "engine": None,  # the common keys and the engine's own: checked by the engine's settings
    "output": {"path", "table", "report", "summary", "html", "suppressed", "delimiter", "order", "seed"},
    "risk": set(RISK_KEYS),
}


def load_job(path: str | Path, **overrides: Any) -> Job:
    """Load a TOML job file; keyword overrides (CLI flags) win over the file.

    Overrides: k, suppression_limit, metric, algorithm, time_limit, step_limit, seed, output, report, summary,
    html, overwrite, order (output.order).
    """
    path = Path(path)
    data = files.read_limited(
        str(path),
        "job file",
        files.JOB_LIMIT,
        ConfigError,
        "a job is a short TOML file: check that the path names the job",
        missing=f"cannot read job file {path}: no such file",
    )
    text = files.utf8_text(data, "job file", str(path), ConfigError)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    job = job_from_dict(doc, base=path.parent, where=str(path), **overrides)
    return replace(job, file=str(path))


def job_from_dict(doc: dict, base: Path = Path("."), where: str = "job", **overrides: Any) -> Job:
    unknown = set(doc) - set(_SECTIONS) - {"attributes"}
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {sorted(unknown)}; known: {sorted(_SECTIONS) + ['attributes']}")
    for section, keys in _SECTIONS.items():
        value = doc.get(section, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: [{section}] must be a table")
        if keys is None:
            continue
        extra = set(value) - keys
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [{section}]; known: {sorted(keys)}")

    def resolve(p: str | None) -> str | None:
        if p is None:
            return None
        return str(p) if Path(p).is_absolute() else str(base / p)

    raw_input = doc.get("input", {})
    if "path" not in raw_input and "table" not in raw_input:
        raise ConfigError(
            f"{where}: [input] needs a path (or a table: a PostgreSQL table, see [engine] url, "
            "or with the spark engine a Spark table)"
        )
    drop = raw_input.get("drop", [])
    if not isinstance(drop, list) or not all(isinstance(d, str) for d in drop):
        raise ConfigError(f"{where}: input.drop must be a list of column names")
    for section in ("input", "output"):  # named with the job file here; validate.py checks a job built in code
        check_delimiter(doc.get(section, {}).get("delimiter", ","), f"{where}: {section}.delimiter")
    source = Source(
        path=resolve(raw_input.get("path")),
        delimiter=raw_input.get("delimiter", ","),
        table=raw_input.get("table"),
        drop=tuple(drop),
        encoding=raw_input.get("encoding"),
        # a table without a path is in the engine's catalog (PostgreSQL's, or Spark's)
        catalog=_catalog(doc.get("engine", {}).get("name", DEFAULT_ENGINE)) if "path" not in raw_input else None,
    )
    attributes = []
    raw_attributes = doc.get("attributes", {})
    if not isinstance(raw_attributes, dict):
        raise ConfigError(f"{where}: [attributes] must be a table of [attributes.<column>] tables")
    for name, spec in raw_attributes.items():
        if not isinstance(spec, dict):
            raise ConfigError(f'{where}: [attributes."{name}"] must be a table with a role')
        extra = set(spec) - {"role", "hierarchy", "encoding"}
        if extra:
            raise ConfigError(
                f"{where}: unknown key(s) {sorted(extra)} for attribute '{name}'; known: encoding, hierarchy, role"
            )
        if "role" not in spec:
            raise ConfigError(f"{where}: attribute '{name}' has no role; give one of {', '.join(ROLES)}")
        hierarchy = spec.get("hierarchy")
        if isinstance(hierarchy, dict):
            if "type" not in hierarchy:
                raise ConfigError(f"{where}: the hierarchy of '{name}' needs a type (intervals, mask, date, order)")
        elif hierarchy is not None and not isinstance(hierarchy, str):
            raise ConfigError(f"{where}: the hierarchy of '{name}' must be a file path or a builder table")
        else:
            hierarchy = resolve(hierarchy)
        attributes.append(Attribute(name, spec["role"], hierarchy, spec.get("encoding")))
    privacy, search, output = doc.get("privacy", {}), doc.get("search", {}), doc.get("output", {})
    engine = doc.get("engine", {})
    _search_tables(search, where)
    risk = RiskSettings.from_table(doc.get("risk", {}), where)
    k, others = privacy_models(privacy.get("k"), privacy.get("models", []), risk, InFile(where, resolve))
    job = Job(
        input=source,
        attributes=attributes,
        k=k,
        models=others,
        suppression_limit=privacy.get("suppression_limit", 0.0),
        algorithm=search.get("algorithm", "flash"),
        metric=search.get("metric", "discernibility"),
        engine=engine.get("name", DEFAULT_ENGINE),
        engine_settings=_engine_settings(engine, resolve),
        lookup=engine.get("lookup", "wide"),
        snapshots=SnapshotSettings(**{k: v for k, v in engine.items() if k in SnapshotSettings.__dataclass_fields__}),
        checks=engine.get("checks", "auto"),
        local_budget=engine.get("local_budget"),
        search_options={key: value for key, value in search.items() if key in SEARCH_KEYS},
        max_lattice_size=search.get("max_lattice_size", 100_000),
        weights=search.get("weights"),
        label=search.get("label"),
        gs_factor=search.get("gs_factor", 0.5),
        aggregate=search.get("aggregate"),
        risk=risk,
        output=Output(
            path=resolve(output.get("path")),
            table=output.get("table"),
            report=resolve(output.get("report")),
            summary=resolve(output.get("summary")),
            html=_html_option(output.get("html", True), resolve, where),
            suppressed=output.get("suppressed", "mask"),
            delimiter=output.get("delimiter", ","),
            order=output.get("order", "shuffle"),
            seed=output.get("seed"),
        ),
    )
    return apply_overrides(job, **overrides)


def _html_option(value: Any, resolve, where: str) -> str | bool:
    """output.html: true (beside the report), false (none) or a file path."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value:
        return resolve(value)
    raise ConfigError(f'{where}: output.html must be true, false or a file path (e.g. "report.html"), got {value!r}')


def _search_tables(search: dict, where: str) -> None:
    """[search.genetic] and [search.koptimize]: tables of their class's keys (their values are
    checked with the algorithm's options, when the job is validated)."""
    for key, table in SEARCH_TABLES.items():
        if key not in search:
            continue
        known = {f.name for f in fields(table)}
        if not isinstance(search[key], dict):
            raise ConfigError(f"{where}: [search.{key}] must be a table with keys {sorted(known)}")
        extra = set(search[key]) - known
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {sorted(extra)} in [search.{key}]; known: {sorted(known)}")


def apply_overrides(job: Job, **overrides: Any) -> Job:
    """Apply CLI-style overrides (None means: keep the file's value)."""
    o = {k: v for k, v in overrides.items() if v is not None}
    output = replace(
        job.output,
        path=o.pop("output", job.output.path),
        report=o.pop("report", job.output.report),
        summary=o.pop("summary", job.output.summary),
        html=o.pop("html", job.output.html),
        overwrite=o.pop("overwrite", job.output.overwrite),
        order=o.pop("order", job.output.order),
    )
    unknown = set(o) - {"k", "suppression_limit", "metric", "algorithm", "time_limit", "step_limit", "seed"}
    if unknown:
        raise ConfigError(f"unknown override(s): {sorted(unknown)}")
    options, o = split(o)
    return replace(job, output=output, search_options={**job.search_options, **options}, **o)


def _engine_settings(table: dict, resolve) -> dict:
    """The [engine] keys the engine owns, as given (its profile validates them), with the ones
    it declares as paths resolved against the job file's folder."""
    own = {k: v for k, v in table.items() if k not in _ENGINE_COMMON}
    chosen = PROFILES.get(table.get("name", DEFAULT_ENGINE))
    for key in chosen.settings.PATHS if chosen else ():
        if isinstance(own.get(key), str):
            own[key] = resolve(own[key])
    return own


def _catalog(engine: str) -> str | None:
    chosen = PROFILES.get(engine)
    return chosen.capabilities.tables if chosen else None
