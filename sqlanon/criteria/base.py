"""The contract of a privacy model.

A model contributes a per-class condition (a sqlglot predicate over the class's aggregates,
with its values as named parameters); a class failing any model's condition is suppressed
whole. A transformation is anonymous when the suppressed rows stay within the limit.
"""

from __future__ import annotations

from sqlglot import exp


class PrivacyModel:
    name: str = ""
    #: anonymity of a node implies anonymity of its generalizations (with suppression).
    monotonic: bool = True

    def class_condition(self, size: exp.Expression) -> exp.Expression:
        """Predicate a class must satisfy to be kept; ``size`` is the class's row count."""
        raise NotImplementedError

    def parameters(self) -> dict[str, object]:
        """Values bound to the placeholders of ``class_condition``."""
        return {}

    def describe(self) -> dict[str, object]:
        return {"model": self.name, **self.parameters()}
