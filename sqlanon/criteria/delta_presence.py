"""delta-presence (Nergiz, Atzori & Clifton, *Hiding the Presence of Individuals from Shared
Databases*, SIGMOD 2007): the input is the population P, a research subset T of it is
released, and for every class E of the generalized population

    dmin <= |T ∩ E| / |E| <= dmax,

i.e. an adversary who knows P and sees the release can tell that a person is in T with a
probability between dmin and dmax only.

Semantics as ARX (``DPresence`` and its research subset, ``DataSubset``), but for ARX's
k-first quirk on empty classes (below):

* The research subset is a boolean column of the input (``subset``) or a file of identifiers
  (``subset_file``) matched against a column of the input (``key``). Only its rows are
  released, and every other model, the suppression limit and the metric count its rows: n is
  |T ∩ E|, N is |T|. The population rows only give each class its size |E| (``pop``).
* delta(E) = n / |E|. A class of the population without subset rows releases nothing and
  has delta = 0: with dmin > 0 it fails, and as it has no row to suppress, the node is not
  anonymous (the release shows that none of its people is in T). The engines count such
  classes (``ClassStats.empty_classes``) and the checker decides with ``empty_classes_hold``.
  ARX 3.9.2 (``HashGroupify.analyzeAll``: ``entry.count == 0 && anonymous == 1`` sets
  ``dpresent = false``) invalidates the transformation too, but only when the empty class
  passed the minimal-class-size check: with k > 1 it fails k first and ARX accepts the node.
  Here the node fails whatever k.
* A class outside [dmin, dmax] is suppressed whole, within the limit, like any failing class.
* Monotonicity: a class merged from passing classes passes (its delta is a weighted mean of
  theirs); it can fall below dmin only by taking in an empty population class, which fails
  the less generalized node already, so without suppression the model is monotonic with
  generalization. The flag says so only for dmin = 0 (cautious: it costs checks, not
  answers); never with suppression (a failing class merged with a passing one can fail and
  take more rows with it).

The research subset is a property of the prepared data (the engine reads it once, see
``sqlanon/criteria/population.py``), so a job has at most one delta-presence model.
"""

from __future__ import annotations

from sqlglot import exp

from sqlanon.sql import col
from sqlanon.criteria.base import EPSILON, PrivacyModel, as_double
from sqlanon.criteria.options import fraction
from sqlanon.errors import ConfigError
from sqlanon.criteria.population import POP, ResearchSubset, research_subset_of


class DeltaPresence(PrivacyModel):
    name = "delta-presence"
    options = ("dmin", "dmax", "subset", "subset_file", "key")
    monotonic_with_suppression = False
    #: reads each class's population count ``pop`` (carried by the class table)
    population = True
    subset: ResearchSubset  # always given

    def __init__(
        self,
        dmax: float,
        dmin: float = 0.0,
        subset: str | None = None,
        subset_file: str | None = None,
        key: str | None = None,
    ):
        self.dmin = fraction("dmin", dmin, self.name)
        self.dmax = fraction("dmax", dmax, self.name)
        if self.dmin > self.dmax:
            raise ConfigError(f"{self.name}: dmin ({dmin}) is above dmax ({dmax}); give 0 <= dmin <= dmax <= 1.")
        self.subset = research_subset_of(self.name, subset, subset_file, key)
        # delta stays in [0, dmax] under merging; the lower bound can break (see the module docs)
        self.monotonic_with_generalization = self.dmin == 0

    def class_condition(self, size):
        delta = exp.Div(this=as_double(size), expression=as_double(col(POP)))
        return exp.and_(
            exp.GTE(this=delta, expression=self.param("dmin")),
            exp.LTE(this=delta.copy(), expression=self.param("dmax")),
        )

    def parameters(self):
        return {self.name_of("dmin"): self.dmin - EPSILON, self.name_of("dmax"): self.dmax + EPSILON}

    def describe(self):
        return {"model": self.name, "dmin": self.dmin, "dmax": self.dmax, **self.subset.describe()}

    # -- Python twin: delta of a released class from its subset and population rows ---------
    def presence_value(self, rows: int, population: int) -> float:
        return rows / population

    def class_holds(self, value):
        return self.dmin - EPSILON <= value <= self.dmax + EPSILON

    def population_range(self, values: list[float]) -> object:
        return {"dmin": min(values), "dmax": max(values)}

    def empty_classes_hold(self, empty: int) -> bool:
        """The node holds on its ``empty`` population classes without subset rows: each has
        delta = 0, and releases nothing, so suppression cannot remove it."""
        return empty == 0 or self.class_holds(0.0)
