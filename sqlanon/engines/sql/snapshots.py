"""A SQL engine's snapshots: a node's classes kept as a temp table in the wide form, which
later checks read instead of the base class table. The checker's policy
(``sqlanon/checks/snapshots.py``) decides which to keep and release; here they are stored."""

from __future__ import annotations

from dataclasses import dataclass

from sqlanon.core.needs import Need
from sqlanon import sql as c
from sqlanon.lattice import Node


@dataclass(frozen=True)
class Stored:
    """A snapshot's temp table and its row count (rows scanned when a check reads it)."""

    name: str
    rows: int


class SqlSnapshots:
    """Snapshots as temp tables, their names reused.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it reads the attributes
    ``SqlEngine.__init__`` sets and calls the hooks the module docstring there lists.
    """

    def _rows_of(self, handle) -> int:
        return self._base_classes if handle is None else handle.rows

    def _materialize_node(self, node: Node, source) -> Stored:
        """CREATE TEMP TABLE of the node's classes in the wide form, from ``source`` (a
        snapshot's handle) or the base class table."""
        if self._free:  # a released table's name: CREATE OR REPLACE saves a DROP per check
            name = self._free.pop()
        else:
            self._snapshot_serial += 1
            name = f"sqlanon_snap_{self._snapshot_serial}"
        query = c.snapshot_query(node, self._tops, Need.LEAVES in self._needs, len(self._sensitives), Need.LNX in self._needs,
                                 source.name if source is not None else None, self.lookup, self._subset is not None)
        wide_form = source is not None or self.lookup == "wide"
        rows = self._create_table_as(name, query, replace=True, lean_rows=self._rows_of(source) if wide_form else None)
        self.rows_scanned += self._rows_of(source)
        stored = Stored(name, int(rows))
        self._stored[name] = stored
        return stored

    def keep_snapshot(self, node: Node):
        """Materialize the classes of the node just computed. A temp table costs a query about
        as dear as the check, so the checker asks only after the verdict, and only for the
        nodes its policy keeps (``Snapshots.worth_keeping``)."""
        if self.kernel is not None:
            return self.kernel.keep_snapshot(node)
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != node:
            raise ValueError(f"keep_snapshot({node}): the last check computed {pending and pending[0]}")
        return self._materialize_node(node, pending[1])

    def drop_snapshot(self, handle) -> None:
        """The table's name is reused by the next snapshot (CREATE OR REPLACE)."""
        if self.kernel is not None:
            return self.kernel.drop_snapshot(handle)
        del self._stored[handle.name]
        self._free.append(handle.name)

    def reset_snapshots(self) -> None:
        if self.kernel is not None:
            self.kernel.reset_snapshots()
        self._pending = None
        for name in [*self._stored, *self._free]:
            self._drop_table(name)
        self._stored.clear()
        self._free.clear()
