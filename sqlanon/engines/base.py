"""The engine contract: what every engine does, what it can do, and what it leaves to the checker.

An engine owns a connection (or arrays) and the prepared data; it executes, it never decides.
Every engine subclasses ``Engine`` (an ``abc.ABC``) and declares ``capabilities``, one typed
value (``Capabilities``) that the session, the configuration and the checker read instead of
probing the engine (no ``hasattr``, no signatures):

* ``placements``: where a node's check can run — ``"sql"`` (a query in the engine) and/or
  ``"local"`` (in process, over the base class table held as arrays, ``kernel/runner.py``);
* ``batches``: it answers several nodes in one query (the SQL engines);
* ``snapshots``: it can store a node's classes and start a later check from them;
* ``research_subset``: it prepares delta-presence's research subset (a population count per class);
* ``inputs`` / ``outputs``: the kinds of ``Source`` it reads and of ``Output`` it writes
  (``csv``, ``parquet``, ``duckdb``, ``postgres``, ``spark``, ``arrow``).

What every engine must do (the abstract methods):

* ``open(source) -> column names``: read the source where it is (no rows yet).
* ``prepare(qis, passthrough, needs, sensitives, subset=None) -> PreparedData``: encode the QIs,
  store the hierarchies and compress the data once into the base class table.
* ``class_stats(node, keep, params, needs, start=None) -> ClassStats``: one check, from the base
  class table or, with ``start``, from a snapshot handle this engine returned.
* ``class_sizes``, ``class_figures``, ``failing_classes``, ``check_sql``: a node's classes
  outside a search (risk, explain); ``sensitive_values``, ``store_tables``,
  ``distinct_values``: what the models and the hierarchy builders read or store.
* ``check_output(output)`` (refuse before the search what it could not write exactly),
  ``write``; for the ordered-interval algorithms ``class_table`` and ``write_intervals``.
* ``close()``.

Snapshots: the engine stores, the checker decides. The checker owns the Flash framework's
roll-up/history policy (``sqlanon/checks/snapshots.py``): before a check it asks the policy which
snapshot to start from and passes its handle as ``class_stats(..., start=handle)``; after the
verdict, if the policy keeps the node, it calls ``keep_snapshot(node) -> handle`` (the node must
be the one the last ``class_stats`` computed: the engine stores those classes, e.g. as a temp
table); when the policy lets a snapshot go it calls ``drop_snapshot(handle)``;
``reset_snapshots()`` drops whatever is left (a new checker, a new search). A handle is opaque
to everyone but the engine that made it. ``keep_snapshot`` refuses a node the last
``class_stats`` did not compute (a node answered in a batch: ``class_stats_many`` reads the
base class table and keeps nothing; the checker batches only with the snapshot policy off).

Placement: the session decides where checks run (``sqlanon/checks/placement.py``, a ``Placement`` the
checker then holds): the engine declares ``placements``, reports the size of what a local
check would fetch (``class_table_columns``), measures its own ``query_latency`` once after
prepare, and executes the decision (``place_checks``).

Counters an engine keeps: ``rows_scanned`` (rows read by every query or pass), ``queries``,
``bytes_fetched`` and ``class_table_bytes`` (what local checks fetched). The roll-up and
history counters are the checker's (``Checker.rollups``, ``Checker.snapshot_hits``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlanon.criteria.conditions import Conditions
from sqlanon.core.needs import Need
from sqlanon.core.specs import Output, Source
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.core.stats import ClassStats
from sqlanon.engines.capabilities import Capabilities, Where

#: the checker's keep conditions (sqlanon/criteria/conditions.py): one type every engine reads
KeepCondition = Conditions


@dataclass(frozen=True)
class PreparedData:
    """What the search needs to know about the encoded input.

    ``value_counts[j][code]``: rows whose QI j has leaf code ``code`` (None from a one-scan SQL
    prepare: the session asks ``value_counts()`` once checks are placed, so local checks count
    them in the kernel). With a research subset (delta-presence) ``rows`` and the counts are the
    subset's and ``population`` the input's rows.
    """

    rows: int
    base_classes: int
    value_counts: tuple[tuple[int, ...], ...] | None
    population: int | None = None


@dataclass(frozen=True)
class OutputColumn:
    name: str
    kind: str  # "qi" or "pass"
    index: int


SnapshotHandle = Any  # the engine's storage of a node's classes: a temp table, arrays


class Engine(ABC):
    """The contract every engine subclasses (see the module docstring)."""

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities]
    version: str
    rows_scanned: int
    queries: int
    class_table_bytes: int
    #: seconds per class-table row a check in SQL scans, beside its fixed cost (``query_latency``)
    row_seconds: ClassVar[float | None] = None

    # -- source and preparation ------------------------------------------------------------
    @abstractmethod
    def open(self, source: Source) -> list[str]: ...

    @abstractmethod
    def prepare(self, qis: Sequence[tuple[str, EncodedHierarchy]], passthrough: Sequence[str],
                needs: Need = Need.NONE, sensitives: Sequence[str] = (),
                subset=None) -> PreparedData:
        """``subset``: delta-presence's research subset; only an engine whose capabilities
        say ``research_subset`` is given one."""

    @abstractmethod
    def distinct_values(self, column: str) -> list[str]: ...

    @abstractmethod
    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]: ...

    @abstractmethod
    def store_tables(self, tables: dict) -> None: ...

    # -- placement ---------------------------------------------------------------------------
    @abstractmethod
    def class_table_columns(self) -> int:
        """Columns of the base class table a local check would fetch (0: nothing is fetched)."""

    def query_latency(self) -> float | None:
        """Seconds a minimal query costs here, measured now (None: this engine runs no queries)."""
        return None

    @abstractmethod
    def place_checks(self, placement: Where) -> None:
        """Run every following check there (one of ``capabilities.placements``)."""

    # -- checks ------------------------------------------------------------------------------
    @abstractmethod
    def class_stats(self, node: Node, keep: KeepCondition, params: dict, needs: Need,
                    start: SnapshotHandle | None = None) -> ClassStats: ...

    def class_stats_many(self, nodes: Sequence[Node], keep: KeepCondition, params: dict,
                         needs: Need) -> list[ClassStats] | None:
        """The figures of several nodes from the base class table in one call, each what
        ``class_stats`` gives for it; None when this engine (or this job) answers one node at
        a time. The checker asks only engines with ``batches``, and only when no snapshot
        policy is on (``Checker.batches``)."""
        return None

    @abstractmethod
    def keep_snapshot(self, node: Node) -> SnapshotHandle:
        """Store the classes of ``node``, the node the last ``class_stats`` computed."""

    @abstractmethod
    def drop_snapshot(self, handle: SnapshotHandle) -> None: ...

    @abstractmethod
    def reset_snapshots(self) -> None:
        """Drop every stored snapshot (a new search starts cold)."""

    @abstractmethod
    def class_sizes(self, node: Node, keep: KeepCondition | None = None, params: dict | None = None) -> dict[int, int]: ...

    @abstractmethod
    def class_figures(self, node: Node, keep: KeepCondition, params: dict) -> list[dict]: ...

    @abstractmethod
    def failing_classes(self, node: Node, keep: KeepCondition, params: dict, limit: int) -> list[tuple]: ...

    @abstractmethod
    def check_sql(self, node: Node, keep: KeepCondition, needs: Need) -> str: ...

    # -- output ------------------------------------------------------------------------------
    @abstractmethod
    def check_output(self, output: Output) -> None:
        """Refuse now (before the search) an output this engine could not write exactly."""

    @abstractmethod
    def write(self, node: Node, keep: KeepCondition, params: dict, columns: Sequence[OutputColumn],
              output: Output, target: str) -> None: ...

    @abstractmethod
    def class_table(self, label: str | None = None) -> tuple: ...

    @abstractmethod
    def write_intervals(self, ranks: Sequence, intervals: Sequence, keep: KeepCondition, params: dict,
                        columns: Sequence[OutputColumn], output: Output, target: str) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
