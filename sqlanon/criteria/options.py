"""Checks of model parameters with uniform messages (scikit-learn style)."""

from __future__ import annotations

from sqlanon.errors import ConfigError


def positive_int(key: str, value, model: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{model}: the '{key}' parameter must be an int >= 1, got {value!r}.")
    return value


def number_at_least(key: str, value, model: str, minimum: float, strict: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or value < minimum or (strict and value == minimum):
        relation = ">" if strict else ">="
        raise ConfigError(f"{model}: the '{key}' parameter must be a number {relation} {minimum}, got {value!r}.")
    return float(value)


def fraction(key: str, value, model: str) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not 0 <= value <= 1:
        raise ConfigError(f"{model}: the '{key}' parameter must be a number in [0, 1], got {value!r}.")
    return float(value)
