"""Hierarchy builders: a spec in the job (``hierarchy = { type = "...", ... }``) plus the
attribute's distinct values give the rows of an ARX-format hierarchy. The spec is the source of
truth; the rows are validated like a hierarchy read from a file.
"""

from __future__ import annotations

from typing import Callable, Sequence

from sqlanon.errors import ConfigError, DataError
from sqlanon.hierarchy.builders.common import check_keys, with_top
from sqlanon.hierarchy.builders.dates import build_dates
from sqlanon.hierarchy.builders.intervals import build_intervals
from sqlanon.hierarchy.builders.mask import build_mask
from sqlanon.hierarchy.builders.order import build_order
from sqlanon.hierarchy.model import Hierarchy

BUILDERS: dict[str, Callable[[str, dict, Sequence[str]], list[list[str]]]] = {
    "intervals": build_intervals,
    "mask": build_mask,
    "date": build_dates,
    "order": build_order,
}


def build_hierarchy(attribute: str, spec: dict, values: Sequence[str]) -> Hierarchy:
    """Rows for every value in ``values`` (the attribute's distinct values), validated."""
    kind = spec.get("type")
    if kind not in BUILDERS:
        raise ConfigError(
            f"attribute '{attribute}': unknown hierarchy type {kind!r}; valid types: {', '.join(BUILDERS)}"
        )
    if not values:  # a builder's levels are drawn from the values: none, nothing to build (or anonymize)
        raise DataError(
            f"attribute '{attribute}': the {kind} hierarchy builder has no value to build over: the "
            "input has no rows, there is nothing to anonymize (give a table with rows, or a hierarchy file)"
        )
    rows = BUILDERS[kind](attribute, spec, sorted(set(values)))
    return Hierarchy.from_rows(attribute, rows, source=f"{kind} builder")


__all__ = ["BUILDERS", "build_hierarchy", "check_keys", "with_top"]
