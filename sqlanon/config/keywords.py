"""What the Python API's keywords name: the input (a path, a Source or a table held in Python)
and the privacy models (``k=`` and ``models=``), shared by ``anonymize`` and ``check``."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from sqlanon import frames
from sqlanon.config.delimiters import check_delimiter
from sqlanon.core.specs import Source
from sqlanon.config.read import _with_population
from sqlanon.core.risk import RiskSettings
from sqlanon.criteria import MODEL_NAMES, build_model
from sqlanon.errors import ConfigError


def source_of(data: Any, delimiter: str = ",", table: str | None = None,
              encoding: str | None = None) -> tuple[Source, frames.Frame | None]:
    """Where ``data`` is: a file path (CSV, Parquet or a DuckDB file with ``table``), a
    ``Source``, or a table in memory."""
    if isinstance(data, Source):
        check_delimiter(data.delimiter, "Source.delimiter")
        return data, None
    if isinstance(data, (str, os.PathLike)):
        check_delimiter(delimiter, "delimiter")
        return Source(path=str(data), delimiter=delimiter, table=table, encoding=encoding), None
    frame = frames.frame(data)
    if frame.kind == "spark":  # replaced by the view's name while the run reads it (see _bound)
        return Source(table="<spark DataFrame>", catalog="spark"), frame
    return Source(arrow=frame.arrow), frame


def plain(value: Any) -> Any:
    """``value`` with numpy's scalars as the Python numbers they hold, inside dicts, lists and
    tuples too: ``k=np.int64(5)`` (a DataFrame's ``.max()``, ``np.arange``) is an int to every
    check of the job and to the report's JSON."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(item) for item in value)
    return value


def models_of(k: int | None, models: Any, risk: RiskSettings) -> tuple[int, list[dict[str, Any]]]:
    k, models = plain(k), plain(models)
    if isinstance(models, dict) or not isinstance(models, (list, tuple)):
        raise ConfigError("models= is a list of dicts, each with a type, e.g. "
                          "[{\"type\": \"distinct-l-diversity\", \"attribute\": \"disease\", \"l\": 3}]")
    specs: list[dict[str, Any]] = []
    for spec in models:
        if not isinstance(spec, dict) or "type" not in spec:
            raise ConfigError(f"each entry of models= is a dict with a type ({', '.join(MODEL_NAMES)}), got {spec!r}")
        if spec["type"] == "k-anonymity":
            if set(spec) - {"type", "k"}:
                raise ConfigError(f"the k-anonymity entry of models= takes k only, got {sorted(spec)}")
            if k is not None and spec.get("k") != k:
                raise ConfigError(f"k is given twice with different values ({k} and {spec.get('k')})")
            k = spec.get("k")
            continue
        spec = _with_population(dict(spec), risk) if spec["type"] == "population-uniqueness" else dict(spec)
        build_model(spec)  # refuses unknown types and keys now, naming them
        specs.append(spec)
    return (k if k is not None else 1 if specs else 2), specs
