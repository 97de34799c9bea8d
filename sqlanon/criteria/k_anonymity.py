"""k-anonymity (Samarati & Sweeney 1998): every released class holds at least k rows."""

from __future__ import annotations

from sqlglot import exp

from sqlanon.criteria.base import PrivacyModel
from sqlanon.errors import ConfigError


class KAnonymity(PrivacyModel):
    name = "k-anonymity"

    def __init__(self, k: int):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigError(f"The 'k' parameter must be an int >= 1, got {k!r}.")
        self.k = k

    def class_condition(self, size: exp.Expression) -> exp.Expression:
        return exp.GTE(this=size, expression=exp.Placeholder(this="k"))

    def parameters(self) -> dict[str, object]:
        return {"k": self.k}

    def describe(self) -> dict[str, object]:
        return {"model": self.name, "k": self.k}

    def class_holds(self, value: float) -> bool:
        return value >= self.k
