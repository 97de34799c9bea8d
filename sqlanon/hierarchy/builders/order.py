"""An explicit ordered list, grouped by fan-out per level: level 1 groups ``fanout[0]``
consecutive values, level 2 groups ``fanout[1]`` consecutive level-1 groups, and so on.

    { type = "order", values = ["Preschool", "1st-4th", "5th-6th", ...], fanout = [2, 2] }

A group is labelled "first..last" (or the value itself when alone).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlanon.errors import ConfigError, cut
from sqlanon.hierarchy.builders.common import check_keys, with_top


def build_order(attribute: str, spec: dict, values: Sequence[str]) -> list[list[str]]:
    check_keys(attribute, spec, {"values", "fanout"})
    ordered = spec.get("values")
    fanout = spec.get("fanout")
    if not isinstance(ordered, list) or not ordered or len(set(ordered)) != len(ordered):
        raise ConfigError(f"attribute '{attribute}': an order hierarchy needs 'values', a list without repeats")
    if not isinstance(fanout, list) or not all(isinstance(f, int) and f >= 2 for f in fanout):
        raise ConfigError(f"attribute '{attribute}': fanout must be a list of ints >= 2, got {fanout!r}")
    missing = [v for v in values if v not in set(ordered)]
    if missing:
        raise ConfigError(
            f"attribute '{attribute}': {len(missing)} value(s) of the data are not in the ordered list, "
            f"e.g. {', '.join(cut(v) for v in missing[:5])}; add them to 'values'"
        )
    groups = [[i] for i in range(len(ordered))]
    columns = [list(ordered)]
    for f in fanout:
        groups = [sum(groups[i : i + f], []) for i in range(0, len(groups), f)]
        label = {}
        for members in groups:
            text = ordered[members[0]] if len(members) == 1 else f"{ordered[members[0]]}..{ordered[members[-1]]}"
            for m in members:
                label[m] = text
        columns.append([label[i] for i in range(len(ordered))])
    rows = [[column[i] for column in columns] for i in range(len(ordered))]
    return with_top(rows)
