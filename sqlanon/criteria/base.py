"""The contract of a privacy model.

A model contributes a per-class condition (a sqlglot predicate over the class's aggregates,
with its values as named parameters); a class failing any model's condition is suppressed
whole. A transformation is anonymous when the suppressed rows stay within the limit and every
whole-table model holds on the classes that are kept.

Models over a sensitive attribute read a per-class histogram the engine computes in SQL: rows
``(g0.., v, f, cn, r, q)`` = the class's generalized QI codes, a sensitive value code, its
count in the class, the class size, its rank by count (1 = most frequent) and its frequency in
the whole input. ``class_columns`` reduces those rows to one row of figures per class; the
figures are named ``<key>_<name>`` and the parameters ``<key>_<name>`` too, so any number of
models combine in one query. The same figures are defined again in Python (``class_value``),
over a class's histogram of labels, for the independent re-check of the written output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.sql import col, param

if TYPE_CHECKING:
    from sqlanon.criteria.population import ResearchSubset

#: float comparisons of entropies and distances allow this much rounding error
EPSILON = 1e-10


class PrivacyModel:
    name: str = ""
    #: the sensitive attribute whose per-class histogram the model reads (None: sizes only)
    attribute: str | None = None
    monotonic_with_generalization: bool = True
    monotonic_with_suppression: bool = True
    #: evaluated over all kept classes together rather than class by class
    whole_table: bool = False
    #: reads each class's population count (delta-presence's research subset)
    population: bool = False
    #: the research subset a model reading the population releases (None for the others)
    subset: ResearchSubset | None = None
    #: optional figures the engine must add to ClassStats (e.g. "uniques")
    needs: Need = Need.NONE
    #: the figure reported on the output: the worst class is its min ("min") or max ("max")
    worst: str = "min"
    key: str = "m"
    #: the keys of its job entry beside ``type`` (its constructor's arguments)
    options: tuple[str, ...] = ()

    @property
    def aux(self) -> str | None:
        """The auxiliary table its figures read (t-closeness's distances), None for most models."""
        return None

    def bind(self, key: str) -> "PrivacyModel":
        """Give the model its prefix for column and parameter names in a combined query."""
        self.key = key
        return self

    def name_of(self, figure: str) -> str:
        return f"{self.key}_{figure}"

    def column(self, figure: str) -> exp.Column:
        return col(self.name_of(figure))

    def param(self, figure: str) -> exp.Placeholder:
        return param(self.name_of(figure))

    def monotonic(self, suppression_limit: float) -> bool:
        """Anonymity of a node implies anonymity of its generalizations (ARX's flags: with
        suppression allowed, the model must be monotonic with suppression)."""
        if suppression_limit == 0:
            return self.monotonic_with_generalization
        return self.monotonic_with_suppression

    def class_condition(self, size: exp.Expression) -> exp.Expression:
        """Predicate a class must satisfy to be kept; ``size`` is the class's row count."""
        return exp.true()

    def class_columns(self, histogram: exp.Query, keys: Sequence[str]) -> exp.Select | None:
        """One row per class (``keys`` and the model's figures) from the histogram query."""
        return None

    def prepare(self, values: Sequence[str], counts: Sequence[int]) -> dict[str, object]:
        """Auxiliary tables (name -> pyarrow Table) over the sensitive values, coded by their
        position in ``values`` (the attribute's distinct values as text, sorted; ``counts``
        their rows in the input)."""
        return {}

    def resolve_population(self, input_rows: int) -> None:
        """Told the input's rows before a check; a model whose figures depend on them (population
        uniqueness: N from the sampling fraction) keeps them, the others need nothing."""

    def parameters(self) -> dict[str, object]:
        """Values bound to the placeholders of ``class_condition``."""
        return {}

    def describe(self) -> dict[str, object]:
        return {"model": self.name}

    # -- Python twins, for the re-check of the output and the report -------------------------
    def class_value(self, histogram: dict[str, int], overall: dict[str, float]) -> float:
        """The class's figure from its sensitive histogram (label -> count)."""
        return float(sum(histogram.values()))

    def class_holds(self, value: float) -> bool:
        return True

    def stats_value(self, stats, rows: int) -> float:
        """Whole-table figure of a checked node, from its ClassStats (``rows`` = N)."""
        return 0.0

    def table_value(self, kept_sizes: Sequence[int]) -> float:
        """Whole-table figure over the kept classes' sizes."""
        return 0.0

    def table_holds(self, value: float) -> bool:
        return True

    def derived(self) -> dict[str, object]:
        """Figures the model derives from the input (k-map's k'), reported beside its options
        but not part of ``describe``: the release compares that with a fresh model of the job."""
        return {}

    def population_range(self, values: list[float]) -> object:
        """What a model reading the population reports over the kept classes' values: the
        worst one (delta-presence: the range)."""
        return (min if self.worst == "min" else max)(values)

    def empty_classes_hold(self, empty: int) -> bool:
        """The node holds on its ``empty`` population classes without subset rows (asked of a
        model reading the population only)."""
        return True


def number(value) -> exp.Literal | exp.Neg:
    return exp.Literal.number(value)


def as_double(e: exp.Expression) -> exp.Expression:
    return exp.Cast(this=e, to=exp.DataType.build("DOUBLE"))


def share() -> exp.Expression:
    """p(E, s) = f / |E| as a double."""
    return exp.Div(this=as_double(col("f")), expression=as_double(col("cn")))
