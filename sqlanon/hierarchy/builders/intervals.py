"""Intervals for numeric values: a width per level (each a multiple of the one below) or
explicit cut lists per level, with optional bottom and top coding.

    { type = "intervals", widths = [5, 10, 20], start = 0, bottom = 18, top = 90 }
    { type = "intervals", cuts = [[0, 18, 30, 50, 65], [0, 30, 65]] }

Labels are "a-b" (inclusive) when the values are integers, "[a, b)" otherwise; values below
``bottom`` read "<bottom" and values at or above ``top`` read ">=top" on every level but the last,
and the intervals next to them are clamped to those ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from sqlanon.errors import ConfigError, cut
from sqlanon.hierarchy.builders.common import check_keys, with_top


def _number(attribute: str, text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ConfigError(
            f"attribute '{attribute}': value {cut(text)} is not a number, so an intervals hierarchy "
            "cannot place it; use a mask or order hierarchy, or clean the column"
        ) from None
    if not value.is_finite():
        raise ConfigError(f"attribute '{attribute}': value {cut(text)} is not a finite number")
    return value


def build_intervals(attribute: str, spec: dict, values: Sequence[str]) -> list[list[str]]:
    check_keys(attribute, spec, {"widths", "cuts", "start", "bottom", "top"})
    numbers = {v: _number(attribute, v) for v in values}
    integral = all(n == n.to_integral_value() for n in numbers.values()) and all(
        Decimal(str(x)) == Decimal(str(x)).to_integral_value()
        for x in [spec.get("start", 0), *spec.get("widths", []), *sum(spec.get("cuts", []), [])]
    )
    bottom = None if spec.get("bottom") is None else Decimal(str(spec["bottom"]))
    top = None if spec.get("top") is None else Decimal(str(spec["top"]))
    if ("widths" in spec) == ("cuts" in spec):
        raise ConfigError(f"attribute '{attribute}': an intervals hierarchy needs either widths or cuts")
    levels = _levels_from_widths(attribute, spec) if "widths" in spec else _levels_from_cuts(attribute, spec)

    def label(low: Decimal, high: Decimal) -> str:
        # Clamped to the coded ends, so 18 reads "18-19" when everything below 18 reads "<18".
        low = max(low, bottom) if bottom is not None else low
        high = min(high, top) if top is not None else high
        return f"{_text(low)}-{_text(high - 1)}" if integral else f"[{_text(low)}, {_text(high)})"

    rows = []
    for text in sorted(values, key=numbers.__getitem__):
        n = numbers[text]
        row = [text]
        for place in levels:
            if bottom is not None and n < bottom:
                row.append(f"<{_text(bottom)}")
            elif top is not None and n >= top:
                row.append(f">={_text(top)}")
            else:
                row.append(label(*place(n, text)))
        rows.append(row)
    return with_top(rows)


def _text(value: Decimal) -> str:
    """0.50 -> 0.5, 1.0 -> 1, 100 -> 100 (never 1E+2)."""
    return format(value.normalize(), "f")


def _levels_from_widths(attribute, spec):
    widths = [Decimal(str(w)) for w in spec["widths"]]
    start = Decimal(str(spec.get("start", 0)))
    for lower, upper in zip(widths, widths[1:]):
        if lower <= 0 or upper % lower:
            raise ConfigError(
                f"attribute '{attribute}': interval widths must be positive and each a multiple of the "
                f"one below (got {lower} then {upper}), or the hierarchy would not be functional"
            )

    def level(width):
        def place(n, text):
            low = start + width * math.floor((n - start) / width)
            return low, low + width

        return place

    return [level(w) for w in widths]


def _levels_from_cuts(attribute, spec):
    cuts = [sorted(Decimal(str(c)) for c in level) for level in spec["cuts"]]
    for finer, coarser in zip(cuts, cuts[1:]):
        if not set(coarser) <= set(finer):
            raise ConfigError(
                f"attribute '{attribute}': each cut list must be a subset of the one below "
                f"({[str(c) for c in coarser]} is not within {[str(c) for c in finer]})"
            )

    def level(points):
        def place(n, text):
            for low, high in zip(points, points[1:]):
                if low <= n < high:
                    return low, high
            raise ConfigError(
                f"attribute '{attribute}': value {cut(text)} lies outside the cuts {[str(p) for p in points]}; "
                "widen the first and last cut or use bottom/top coding"
            )

        return place

    return [level(points) for points in cuts]
