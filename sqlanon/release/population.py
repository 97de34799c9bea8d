"""What the verification re-counts of delta-presence straight from the input: the population's
and the research subset's rows per class of the written levels, over a fresh connection."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp

from sqlanon.core.specs import Source
from sqlanon.engines.duckdb.sources import csv_relation, table_file_relation
from sqlanon.sql import col, ident

if TYPE_CHECKING:
    from sqlanon.criteria.population import ResearchSubset


@dataclass(frozen=True)
class Population:
    """What the re-check of delta-presence needs beside the output: the input (the
    population), the QIs' hierarchy rows (value -> label at each level), the levels written,
    and the research subset."""

    source: Source
    hierarchies: list
    levels: tuple
    subset: ResearchSubset


def population_counts(population: Population, qis: list[str]) -> tuple[Counter, Counter]:
    """Per class of the written levels (keyed by its labels as written): the input's rows and
    the research subset's rows, counted with a fresh connection straight from the input."""
    source, subset = population.source, population.subset
    params: dict[str, Any]
    con = duckdb.connect()
    try:
        if source.kind == "arrow":
            con.register("population", source.arrow)
            relation, params = "population", {}
        elif source.kind == "csv":  # read as the engine read it: every column text, in the input's encoding
            relation, params = csv_relation(_named(source.path), source.delimiter, source.encoding)
        elif source.kind == "parquet":
            relation, params = "read_parquet($path)", {"path": source.path}
        else:
            con.execute(
                f"ATTACH {exp.Literal.string(_named(source.path)).sql('duckdb')} AS population_db (READ_ONLY)"
            ).fetchall()
            relation = exp.Table(
                this=ident(_named(source.table)), db=ident("main"), catalog=ident("population_db")
            ).sql("duckdb")
            params = {}
        text = [
            exp.Coalesce(
                this=exp.Cast(this=col(q), to=exp.DataType.build("VARCHAR")), expressions=[exp.Literal.string("")]
            )
            for q in qis
        ]
        if subset.column is not None:
            member = f"COALESCE(TRY_CAST({col(subset.column).sql('duckdb')} AS BOOLEAN), FALSE)"
        else:
            reader, ids = table_file_relation(_named(subset.file), "ids")
            key = exp.Cast(this=col(_named(subset.key)), to=exp.DataType.build("VARCHAR")).sql("duckdb")
            member = f"{key} IN (SELECT {key} FROM {reader} WHERE {key} IS NOT NULL)"
            params = {**params, **ids}
        rows = con.execute(
            f"SELECT {', '.join(t.sql('duckdb') for t in text)}, {member} FROM {relation}", params
        ).fetchall()
    finally:
        con.close()
    maps = [{row[0]: row[level] for row in rows_} for rows_, level in zip(population.hierarchies, population.levels)]
    everyone: Counter = Counter()
    chosen: Counter = Counter()
    for row in rows:
        labels = tuple(m[v] for m, v in zip(maps, row[:-1]))
        everyone[labels] += 1
        chosen[labels] += bool(row[-1])
    return everyone, chosen


def _named(name: str | None) -> str:
    """A name the source or the subset must give for its kind (the job's validation saw to it)."""
    assert name is not None, "a name the job requires is missing"
    return name
