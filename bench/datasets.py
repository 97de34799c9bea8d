"""The reference datasets of ../shared/data as jobs (bench-only helper)."""

from __future__ import annotations

import csv
from pathlib import Path

from sqlanon import Attribute, Job, Source

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = {
    "adult": ("adult/adult.csv", "adult/adult_hierarchy_{}.csv"),
    "creditcard": ("creditcard/creditcard_int.csv", "creditcard/creditcard_int_hierarchy_{}.csv"),
    "mach2019": ("mach2019/mach2019_int.csv", "mach2019/mach2019_int_hierarchy_{}.csv"),
}


def columns(name: str) -> list[str]:
    with open(SHARED / FILES[name][0], newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle, delimiter=";"))


def dataset_job(name: str, qis: int | list[str] | None = None, **kwargs) -> Job:
    """``qis``: the first N columns, a list of names, or None for all. Others are insensitive."""
    data, hierarchy = FILES[name]
    names = columns(name)
    chosen = names if qis is None else names[:qis] if isinstance(qis, int) else list(qis)
    attributes = [Attribute(c, "quasi", str(SHARED / hierarchy.format(c))) for c in chosen]
    attributes += [Attribute(c, "insensitive") for c in names if c not in chosen]
    return Job(input=Source(path=str(SHARED / data), delimiter=";"), attributes=attributes, **kwargs)
