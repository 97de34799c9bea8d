"""What the Python API's keywords name: the input (a path, a Source or a table held in Python)
and the privacy models (``k=`` and ``models=``), shared by ``anonymize`` and ``check``."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from sqlanon import frames
from sqlanon.config.delimiters import check_delimiter
from sqlanon.core.specs import Source
from sqlanon.config.models import privacy_models
from sqlanon.core.names import MODEL_NAMES
from sqlanon.core.risk import RiskSettings
from sqlanon.criteria import build_model


def source_of(
    data: Any, delimiter: str = ",", table: str | None = None, encoding: str | None = None
) -> tuple[Source, frames.Frame | None]:
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


class InCode:
    """Messages about the API's ``k=`` and ``models=``."""

    def not_a_list(self) -> str:
        return (
            "models= is a list of dicts, each with a type, e.g. "
            '[{"type": "distinct-l-diversity", "attribute": "disease", "l": 3}]'
        )

    def no_type(self, entry: Any) -> str:
        return f"each entry of models= is a dict with a type ({', '.join(MODEL_NAMES)}), got {entry!r}"

    def k_keys(self, entry: dict) -> str:
        return f"the k-anonymity entry of models= takes k only, got {sorted(entry)}"

    def k_twice(self, k: Any, other: Any) -> str:
        return f"k is given twice with different values ({k} and {other})"

    def entry(self, spec: dict) -> dict:
        build_model(spec)  # refuses unknown types and keys now, naming them
        return spec


def models_of(k: int | None, models: Any, risk: RiskSettings) -> tuple[int, tuple[dict[str, Any], ...]]:
    """``k=`` and ``models=`` read as a job file's [privacy] is (``config/models.py``)."""
    return privacy_models(plain(k), plain(models), risk, InCode())
