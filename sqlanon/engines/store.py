"""The store contract: what every engine does with the data, and what it leaves to its runner.

An engine is a store: it owns a connection (or arrays) and the prepared data; it executes, it
never decides. Every engine subclasses ``Store`` (an ``abc.ABC``) and declares
``capabilities``, one typed value (``Capabilities``) that the session, the configuration and
the checker read instead of probing the engine (no ``hasattr``, no signatures):

* ``placements``: where a node's check can run — ``"sql"`` (a query in the engine) and/or
  ``"local"`` (in process, over the base class table held as arrays, ``kernel/runner.py``);
* ``batches``: its SQL runner answers several nodes in one query (the SQL engines);
* ``snapshots``: its runners can store a node's classes and start a later check from them;
* ``research_subset``: it prepares delta-presence's research subset (a population count per class);
* ``inputs`` / ``outputs``: the kinds of ``Source`` it reads and of ``Output`` it writes
  (``csv``, ``parquet``, ``duckdb``, ``postgres``, ``spark``, ``arrow``).

What every store must do (the abstract methods):

* ``open(source) -> column names``: read the source where it is (no rows yet).
* ``prepare(qis, passthrough, needs, sensitives, subset=None) -> PreparedData``: encode the QIs,
  store the hierarchies and compress the data once into the base class table.
* ``runner(where) -> CheckRunner``: what answers the checks (``engines/runner.py``), for one
  of ``capabilities.placements``: a SQL engine's own queries (``engines/sql/runner.py``) or the
  kernel over its class table fetched once as Arrow; the memory engine's is always the kernel.
  The session asks once, after prepare; the checker holds only the runner.
* ``sensitive_values``, ``store_tables``, ``distinct_values``: what the models and the
  hierarchy builders read or store; ``check_sql``: a node's check as this engine would run it
  (explain shows it wherever the checks run).
* ``check_output(output)`` (refuse before the search what it could not write exactly),
  ``write`` (with the runner's ``node_classes`` when it holds them); for the ordered-interval
  algorithms ``class_table`` and ``write_intervals``.
* ``close()``.

Placement: the session decides where checks run (``sqlanon/checks/placement.py``, a
``Placement`` the checker then holds): the store declares ``placements``, reports the size of
what a local check would fetch (``class_table_columns``), measures its own ``query_latency``
once after prepare, and hands out the runner for the decision (``runner``).

Counters a store keeps (its runners add to them): ``rows_scanned`` (rows read by every query or
pass), ``queries``, ``bytes_fetched`` and ``class_table_bytes`` (what local checks fetched). The
roll-up and history counters are the checker's (``Checker.rollups``, ``Checker.snapshot_hits``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from sqlanon.criteria.conditions import Conditions
from sqlanon.core.needs import Need
from sqlanon.core.specs import Output, Source
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node
from sqlanon.engines.capabilities import Capabilities, Where
from sqlanon.engines.runner import CheckRunner

#: the checker's keep conditions (sqlanon/criteria/conditions.py): one type every engine reads
KeepCondition = Conditions


@dataclass(frozen=True)
class PreparedData:
    """What the search needs to know about the encoded input.

    ``value_counts[j][code]``: rows whose QI j has leaf code ``code`` (None from a one-scan SQL
    prepare: the session asks the runner's ``value_counts()`` once checks are placed, so local checks count
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


class Store(ABC):
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
    def prepare(
        self,
        qis: Sequence[tuple[str, EncodedHierarchy]],
        passthrough: Sequence[str],
        needs: Need = Need.NONE,
        sensitives: Sequence[str] = (),
        subset=None,
    ) -> PreparedData:
        """``subset``: delta-presence's research subset; only an engine whose capabilities
        say ``research_subset`` is given one."""

    def value_counts(self) -> tuple[tuple[int, ...], ...]:
        """Rows per leaf code of every QI, asked only of a store whose prepare left them out
        (``PreparedData.value_counts`` None: a SQL engine's one scan, which counts them here)."""
        raise NotImplementedError(f"the {self.name} engine's prepare counts the rows per leaf code")

    @abstractmethod
    def distinct_values(self, column: str) -> list[str]: ...

    @abstractmethod
    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]: ...

    @abstractmethod
    def store_tables(self, tables: dict) -> None: ...

    # -- placement and checks ----------------------------------------------------------------
    @abstractmethod
    def class_table_columns(self) -> int:
        """Columns of the base class table a local check would fetch (0: nothing is fetched)."""

    def query_latency(self) -> float | None:
        """Seconds a minimal query costs here, measured now (None: this engine runs no queries)."""
        return None

    @abstractmethod
    def runner(self, where: Where) -> CheckRunner:
        """What answers every following check there (one of ``capabilities.placements``)."""

    @abstractmethod
    def check_sql(self, node: Node, keep: KeepCondition, needs: Need) -> str: ...

    # -- output ------------------------------------------------------------------------------
    @abstractmethod
    def check_output(self, output: Output) -> None:
        """Refuse now (before the search) an output this engine could not write exactly."""

    @abstractmethod
    def write(
        self,
        node: Node,
        keep: KeepCondition,
        params: dict,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
        classes=None,
    ) -> None:
        """``classes()``: the node's classes and verdicts from a runner in process
        (``CheckRunner.node_classes``; None from the SQL runner), asked only by a release that
        reads them, so a store that finds the verdicts itself costs no pass of the kernel."""

    @abstractmethod
    def class_table(self, label: str | None = None) -> tuple: ...

    @abstractmethod
    def write_intervals(
        self,
        ranks: Sequence,
        intervals: Sequence,
        keep: KeepCondition,
        params: dict,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
    ) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
