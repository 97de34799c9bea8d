"""Dates: day -> month -> quarter -> year -> decade, any subset in that order.

    { type = "date", format = "%Y-%m-%d", levels = ["month", "quarter", "year", "decade"] }

Labels: month "2019-03", quarter "2019-Q1", year "2019", decade "2010-2019".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlanon.errors import ConfigError, cut
from sqlanon.hierarchy.builders.common import check_keys, with_top

GRANULARITIES = {
    "month": lambda d: f"{d.year:04d}-{d.month:02d}",
    "quarter": lambda d: f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}",
    "year": lambda d: f"{d.year:04d}",
    "decade": lambda d: f"{d.year // 10 * 10:04d}-{d.year // 10 * 10 + 9:04d}",
}


def build_dates(attribute: str, spec: dict, values: Sequence[str]) -> list[list[str]]:
    check_keys(attribute, spec, {"format", "levels"})
    fmt = spec.get("format", "%Y-%m-%d")
    levels = spec.get("levels", list(GRANULARITIES))
    order = list(GRANULARITIES)
    if not levels or any(l not in GRANULARITIES for l in levels) or levels != sorted(levels, key=order.index):
        raise ConfigError(
            f"attribute '{attribute}': date levels must be a non-empty subset of {order}, in that order; got {levels!r}"
        )
    days = {}
    for value in values:
        try:
            days[value] = datetime.strptime(value, fmt)
        except ValueError:
            raise ConfigError(
                f"attribute '{attribute}': value {cut(value)} does not match the date format {fmt!r}"
            ) from None
    rows = [
        [value] + [GRANULARITIES[l](day) for l in levels] for value, day in sorted(days.items(), key=lambda x: x[1])
    ]
    return with_top(rows)
