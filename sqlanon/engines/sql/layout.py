"""What a prepared SQL store holds, as its runners read it: the QIs and their hierarchies, the
sensitive attributes, the research subset, the base class table's rows and the layout of the
check queries. A SQL store hands it out once its tables are built (``SqlEngine.layout``); the
SQL runner and the fetch for local checks read this, not the store's own attributes."""

from __future__ import annotations

from dataclasses import dataclass

from sqlanon.core.needs import Need
from sqlanon.criteria.population import ResearchSubset
from sqlanon.hierarchy import EncodedHierarchy


@dataclass(frozen=True)
class Layout:
    """``rows``: the input's (the research subset's) rows; ``base_classes``: rows of the base
    class table; ``tops``: each QI's top level; ``pairs``: the QIs paired with the next one in
    the base wide table (``compiler.with_pairs``, DuckDB); ``lookup``: "wide" or a join layout;
    ``projection``: a check over a snapshot takes a column already at its level as it is."""

    qi_names: tuple[str, ...]
    hierarchies: tuple[EncodedHierarchy, ...]
    sensitives: tuple[str, ...]
    subset: ResearchSubset | None
    needs: Need
    rows: int
    base_classes: int
    tops: tuple[int, ...]
    pairs: tuple[int, ...]
    lookup: str
    projection: bool
