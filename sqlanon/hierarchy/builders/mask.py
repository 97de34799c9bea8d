"""Masking for codes such as zip codes: each level masks one more character from the right,
keeping the width; ``levels`` caps the number of masked characters.

    { type = "mask", mask = "*", levels = 3 }      # 47011 -> 4701* -> 470** -> 47*** -> *
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlanon.errors import ConfigError
from sqlanon.hierarchy.builders.common import check_keys, with_top


def build_mask(attribute: str, spec: dict, values: Sequence[str]) -> list[list[str]]:
    check_keys(attribute, spec, {"mask", "levels"})
    mask = spec.get("mask", "*")
    if not isinstance(mask, str) or len(mask) != 1:
        raise ConfigError(f"attribute '{attribute}': mask must be one character, got {mask!r}")
    longest = max((len(v) for v in values), default=0)
    levels = spec.get("levels", longest)
    if not isinstance(levels, int) or not 1 <= levels <= max(longest, 1):
        raise ConfigError(f"attribute '{attribute}': levels must be an int in [1, {longest}], got {levels!r}")
    rows = []
    for value in values:
        rows.append(
            [value] + [value[: max(0, len(value) - i)] + mask * min(i, len(value)) for i in range(1, levels + 1)]
        )
    return with_top(rows, mask)
