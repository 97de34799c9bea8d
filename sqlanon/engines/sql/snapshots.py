"""The SQL runner's snapshots: a node's classes kept as a temp table in the wide form, which
later checks read instead of the base class table. The checker's policy
(``sqlanon/checks/snapshots.py``) decides which to keep and release; here they are stored."""

from __future__ import annotations

from dataclasses import dataclass

from sqlanon import sql as c
from sqlanon.core.needs import Need
from sqlanon.engines.sql.layout import Layout
from sqlanon.lattice import Node


@dataclass(frozen=True)
class Stored:
    """A snapshot's temp table and its row count (rows scanned when a check reads it)."""

    name: str
    rows: int


class SnapshotTables:
    """Snapshots of ``store`` as temp tables, their names reused."""

    def __init__(self, store, layout: Layout):
        self.store = store
        self.layout = layout
        self._stored: dict[str, Stored] = {}  # the snapshot tables the checker holds, by name
        self._free: list[str] = []  # names of released snapshot tables, for reuse
        self._serial = 0

    def rows_of(self, handle: Stored | None) -> int:
        """Rows a check over ``handle`` (None: the base class table) scans."""
        return self.layout.base_classes if handle is None else handle.rows

    def keep(self, node: Node, source: Stored | None) -> Stored:
        """CREATE TEMP TABLE of the node's classes in the wide form, from ``source`` (a
        snapshot's handle) or the base class table."""
        layout, store = self.layout, self.store
        if self._free:  # a released table's name: CREATE OR REPLACE saves a DROP per check
            name = self._free.pop()
        else:
            self._serial += 1
            name = f"sqlanon_snap_{self._serial}"
        query = c.snapshot_query(
            node,
            layout.tops,
            Need.LEAVES in layout.needs,
            len(layout.sensitives),
            Need.LNX in layout.needs,
            source.name if source is not None else None,
            layout.lookup,
            layout.subset is not None,
        )
        wide_form = source is not None or layout.lookup == "wide"
        rows = store.create_table(name, query, replace=True, lean_rows=self.rows_of(source) if wide_form else None)
        store.rows_scanned += self.rows_of(source)
        stored = Stored(name, int(rows))
        self._stored[name] = stored
        return stored

    def drop(self, handle: Stored) -> None:
        """The table's name is reused by the next snapshot (CREATE OR REPLACE)."""
        del self._stored[handle.name]
        self._free.append(handle.name)

    def reset(self) -> None:
        for name in [*self._stored, *self._free]:
            self.store.drop_table(name)
        self._stored.clear()
        self._free.clear()
