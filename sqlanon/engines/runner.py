"""The check runner contract: what answers a node's questions once the store has prepared it.

A store (``engines/store.py``) holds the data; a runner checks nodes over the store's base class
table. There are two: the store's own SQL (``engines/sql/runner.py``: every check a query in the
store's database) and the kernel in process (``kernel/runner.py``: the class table fetched once
as arrays). The session asks the store for the one its placement chose
(``Store.runner(where)``), once; the checker and everything after the search hold only it.

A runner answers:

* ``class_stats(node, keep, params, needs, start=None) -> ClassStats``: one check, from the base
  class table or, with ``start``, from a snapshot handle this runner returned;
* ``class_stats_many(nodes, keep, params, needs)``: several at once, or None (one at a time);
* ``keep_snapshot(node) -> handle`` (the node the last ``class_stats`` computed),
  ``drop_snapshot(handle)``, ``reset_snapshots()``: the storage of the snapshots the checker's
  policy keeps (``checks/snapshots.py``); a handle is opaque to everyone but its runner;
* ``class_sizes``, ``class_figures``, ``failing_classes``: a node's classes outside a search
  (risk, explain, the report);
* ``value_counts()``: rows per leaf code of every QI (a one-scan prepare leaves them to the runner);
* ``node_classes(node, keep, params)``: the node's classes with their verdicts as arrays when
  the runner holds them in process (the store's release reads them instead of asking its
  database again), else None.

``where`` says which runner it is (``"sql"`` or ``"local"``); ``batches`` and ``snapshots``
whether the checker may send it several nodes at once and ask it to keep snapshots.

A Protocol, not a base class: the kernel sits below the engines and satisfies it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlanon.core.needs import Need
from sqlanon.core.stats import ClassStats
from sqlanon.criteria.conditions import Conditions
from sqlanon.engines.capabilities import Where
from sqlanon.lattice import Node

SnapshotHandle = Any  # the runner's storage of a node's classes: a temp table, arrays


class CheckRunner(Protocol):
    batches: bool
    snapshots: bool

    @property
    def where(self) -> Where:
        """Read-only: each runner's is a constant of its class (the kernel's ``"local"``)."""
        ...

    def class_stats(
        self, node: Node, keep: Conditions, params: dict, needs: Need, start: SnapshotHandle | None = None
    ) -> ClassStats: ...

    def class_stats_many(
        self, nodes: Sequence[Node], keep: Conditions, params: dict, needs: Need
    ) -> list[ClassStats] | None: ...

    def keep_snapshot(self, node: Node) -> SnapshotHandle: ...

    def drop_snapshot(self, handle: SnapshotHandle) -> None: ...

    def reset_snapshots(self) -> None: ...

    def class_sizes(self, node: Node, keep: Conditions | None = None, params: dict | None = None) -> dict[int, int]: ...

    def class_figures(self, node: Node, keep: Conditions, params: dict) -> list[dict]: ...

    def failing_classes(self, node: Node, keep: Conditions, params: dict, limit: int) -> list[tuple]: ...

    def node_classes(self, node: Node, keep: Conditions, params: dict) -> Any: ...

    def value_counts(self) -> tuple[tuple[int, ...], ...]: ...
