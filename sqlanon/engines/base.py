"""The engine contract (see docs/architecture.md).

An engine owns a connection and the prepared data. ``open`` reads the source where it is and
returns its column names; ``prepare`` encodes the QIs, stores the hierarchies as lookup tables
and compresses the data once into the base class table; ``class_stats`` answers one check;
``class_sizes`` gives a node's class-size table ``{size: classes}`` (the risk analysis);
``write`` produces the released table for a node into a file or table. After each check the
checker calls ``checked(node, anonymous)`` so the engine can keep or drop the node's snapshot
(see ``sqlanon/snapshots.py``: the engine stores snapshots, the policy chooses them);
``reset_snapshots`` starts a search cold. Counters: ``rows_scanned`` (rows read by every
query or pass), ``rollups`` and ``snapshot_hits`` (checks started from the node checked
just before, or from the history), ``queries``. For the ordered-interval
algorithms (K-Optimize, hill climbing), ``class_table`` returns the class table once for an
in-memory search and ``write_intervals`` writes the released table of a cut set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlglot import exp

from sqlanon.config import Output, Source
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.stats import ClassStats

KeepCondition = Callable[[exp.Expression], exp.Expression]


@dataclass(frozen=True)
class PreparedData:
    """What the search needs to know about the encoded input.

    ``value_counts[j][code]``: rows whose QI j has leaf code ``code``. With a research subset
    (delta-presence) ``rows`` and the counts are the subset's and ``population`` the input's rows.
    """

    rows: int
    base_classes: int
    value_counts: tuple[tuple[int, ...], ...]
    population: int | None = None


@dataclass(frozen=True)
class OutputColumn:
    name: str
    kind: str  # "qi" or "pass"
    index: int


class Engine(Protocol):
    name: str
    version: str
    rows_scanned: int
    rollups: int
    snapshot_hits: int
    queries: int

    def open(self, source: Source) -> list[str]: ...

    def prepare(
        self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str]
    ) -> PreparedData: ...

    def class_stats(
        self, node: Node, keep: KeepCondition, params: dict, needs: frozenset[str]
    ) -> ClassStats: ...

    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]: ...

    def checked(self, node: Node, anonymous: bool) -> None: ...

    def reset_snapshots(self) -> None: ...

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]: ...

    def store_tables(self, tables: dict) -> None: ...

    def distinct_values(self, column: str) -> list[str]: ...

    def check_output(self, output: Output) -> None:
        """Refuse now (before the search) an output this engine could not write exactly."""
        ...

    def write(
        self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
        output: Output, target: str,
    ) -> None: ...

    def class_table(self, label: str | None = None) -> tuple: ...

    def write_intervals(
        self, ranks: Sequence, intervals: Sequence, keep: KeepCondition, params: dict,
        columns: Sequence[OutputColumn], output: Output, target: str,
    ) -> None: ...

    def close(self) -> None: ...
