"""The research subset of delta-presence: which input rows are released, and the population
count every class carries beside its subset count.

With a research subset the engine keeps two counts per row of the base class table:
``n``, the rows of the subset (what every model, the suppression limit and the metrics
count), and ``pop``, the rows of the whole input (the population). ``sqlanon_data`` holds
the subset's rows only, so the output releases nothing else; the population's rows are added
to the base class table as rows with ``n = 0`` (and NULL sensitive codes, which no histogram
joins). A class of a node whose ``n`` sums to 0 holds no subset row and is dropped from every
class table (``compiler.population_query`` is joined like a model's figures), but counted
(``compiler.empty_population_query``, the kernel's ``Classes.empty``): with dmin > 0 it fails
the node (``sqlanon/criteria/delta_presence.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sqlanon import sql as c
from sqlanon.errors import ConfigError, shown

#: the population count column of the class tables
POP = "pop"
IDS = "sqlanon_subset_ids"


@dataclass(frozen=True)
class ResearchSubset:
    """A boolean column of the input (``column``), or a file of identifiers (``file``, CSV
    with a header or Parquet) whose column ``key`` matches the input's column ``key``."""

    column: str | None = None
    file: str | None = None
    key: str | None = None

    @property
    def input_column(self) -> str:
        """The input column the subset is read from."""
        if self.column is not None:
            return self.column
        assert self.key is not None, "a subset file comes with its key column"
        return self.key

    def describe(self) -> dict:
        if self.column is not None:
            return {"subset": self.column}
        return {"subset_file": self.file, "key": self.key}


def research_subset_of(model: str, subset, subset_file, key) -> ResearchSubset:
    """The options of a model's research subset (delta-presence's, k-map's), checked."""
    if (subset is None) == (subset_file is None):
        raise ConfigError(
            f'{model}: give the research subset once: subset = "<boolean column>", or '
            'subset_file = "ids.csv" with key = "<identifier column of the input>"'
        )
    if subset_file is not None and key is None:
        raise ConfigError(f'{model}: subset_file needs key = "<column>": the input column its identifiers match')
    if subset is not None and key is not None:
        raise ConfigError(f"{model}: key goes with subset_file, not with subset (a boolean column needs no key)")
    for option, value in (("subset", subset), ("subset_file", subset_file), ("key", key)):
        if value is not None and (not isinstance(value, str) or not value):
            raise ConfigError(f"{model}: '{option}' must be a column name or a path, got {shown(value)}")
    return ResearchSubset(column=subset, file=None if subset_file is None else str(subset_file), key=key)


def subset_condition(subset: ResearchSubset, alias: str) -> exp.Expression:
    """Is a row of ``sqlanon_input`` (aliased ``alias``) in the research subset?"""
    if subset.column is not None:
        return exp.Cast(this=c.col(subset.column, alias), to=exp.DataType.build("BOOLEAN"))
    ids = exp.select(c.col("key")).from_(c.table(IDS))
    return exp.In(this=c.as_text(c.col(subset.input_column, alias)), query=ids.subquery())


def classes_query(qis: list[str], sensitives: int, lnx: bool) -> exp.Select:
    """The base class table with a population: ``(q.., s.., n, pop[, lnx])``.

    Subset rows come from ``sqlanon_data`` (n = rows, pop = 0), population rows from the whole
    input (n = 0, pop = rows, sensitive codes NULL); without sensitive attributes both fall on
    one row per QI combination. ``lnx`` is ln of the subset rows of the row's QI combination
    (NULL when it has none: those rows have n = 0 and add nothing)."""
    keys = [c.col(c.qi(j)) for j in range(len(qis))]
    svals = [c.col(c.sensitive(i)) for i in range(sensitives)]
    zero = exp.Literal.number(0)
    subset = (
        exp.select(*keys, *svals, exp.Count(this=exp.Star()).as_(c.ident("n")), zero.as_(c.ident(POP)))
        .from_(c.table(c.DATA))
        .group_by(*(k.copy() for k in keys), *(s.copy() for s in svals))
    )
    encoded = c.encode_query(qis, [])
    population = (
        exp.select(
            *(k.copy() for k in keys),
            *(
                exp.Cast(this=exp.Null(), to=exp.DataType.build("INT")).as_(c.ident(c.sensitive(i)))
                for i in range(sensitives)
            ),
            zero.copy().as_(c.ident("n")),
            exp.Count(this=exp.Star()).as_(c.ident(POP)),
        )
        .from_(encoded.subquery(c.ident("e")))
        .group_by(*(k.copy() for k in keys))
    )
    union = exp.union(subset, population, distinct=False)
    merged = (
        exp.select(
            *(k.copy() for k in keys),
            *(s.copy() for s in svals),
            exp.Sum(this=c.col("n")).as_(c.ident("n")),
            exp.Sum(this=c.col(POP)).as_(c.ident(POP)),
        )
        .from_(union.subquery(c.ident("u")))
        .group_by(*(k.copy() for k in keys), *(s.copy() for s in svals))
    )
    if not lnx:
        return merged
    combination = exp.Window(this=exp.Sum(this=c.col("n")), partition_by=[k.copy() for k in keys])
    ln = exp.Ln(
        this=exp.Cast(this=exp.Nullif(this=combination, expression=zero.copy()), to=exp.DataType.build("DOUBLE"))
    )
    return exp.select(exp.Star(), ln.as_(c.ident("lnx"))).from_(merged.subquery(c.ident("b")))
