"""Which materialized class table a check starts from: the Flash framework's roll-up and
history, kept apart from any engine (no SQL; the history's index is bitsets, below).

A snapshot is a node's class table kept by the engine (a temp table, or arrays). A check of
node M may start from the snapshot of any node S <= M (componentwise): the classes of S regroup
into those of M because hierarchies are functional. Roll-up uses the node checked just before
when M generalizes it; the history keeps snapshots of non-anonymous nodes (their
generalizations are the ones still to be checked; an anonymous node's are tagged) with at most
``history_ratio`` times as many classes as the input has rows, at most ``history_size`` of
them, least recently used out first, and offers the stored specialization with the fewest
classes. The policy is the checker's (``Checker.snapshots``): before a check it asks ``start``
and passes the chosen handle to the engine (``class_stats(..., start=handle)``); after the
verdict it asks ``worth_keeping`` and, if so, has the engine store the node
(``keep_snapshot``); ``release`` is the engine's ``drop_snapshot``. The engine owns the
snapshots' storage and nothing else; the counters ``rollups`` and ``hits`` are here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


from sqlanon.lattice import Node, generalizes
from sqlanon.core.snapshots import SnapshotSettings


@dataclass
class Snapshot:
    node: Node
    handle: Any  # the engine's storage: a table name, a tuple of arrays
    classes: int  # rows of the snapshot (classes of the node)


@dataclass(frozen=True)
class Start:
    """Where a check starts: ``kind`` is "base", "rollup" or "history"."""

    kind: str
    snapshot: Snapshot | None = None

    @property
    def handle(self) -> Any:
        """What the engine reads: the snapshot's storage, or None for the base class table."""
        return self.snapshot.handle if self.snapshot is not None else None


class _Levels:
    """Which history slots hold a strict specialization of a node, in about a microsecond:
    per QI j and level l, the slots whose level j is at most l, as the bits of an int, so
    the answer is an AND over the QIs (a scan of 200 entries per check, in Python or numpy,
    would cost as much as a compiled check). Levels above any stored one need no entry."""

    def __init__(self) -> None:
        self.used = 0  # the bits of the slots in use
        self.at_most: list[list[int]] = []  # [j][l]: slots whose level j <= l

    def add(self, slot: int, node: Node) -> None:
        bit = 1 << slot
        if not self.at_most:
            self.at_most = [[] for _ in node]
        for column, level in zip(self.at_most, node):
            if level >= len(column):  # every slot in use is below this new level
                column.extend([self.used] * (level + 1 - len(column)))
            for l in range(level, len(column)):
                column[l] |= bit
        self.used |= bit

    def remove(self, slot: int, node: Node) -> None:
        bit = 1 << slot
        for column, level in zip(self.at_most, node):
            for l in range(level, len(column)):
                column[l] ^= bit
        self.used ^= bit

    def below(self, node: Node) -> int:
        """The bits of the slots whose node is <= ``node`` (componentwise)."""
        found = self.used
        for column, level in zip(self.at_most, node):
            if level < len(column):
                found &= column[level]
        return found


class Snapshots:
    def __init__(self, settings: SnapshotSettings, rows: int, release: Callable[[Any], None]):
        self.settings = settings
        self.rows = rows  # of the input
        self.release = release
        self.last: Snapshot | None = None
        self.history: OrderedDict[Node, Snapshot] = OrderedDict()
        self.rollups = 0
        self.hits = 0
        # The history's entries in numbered slots: ``_levels`` finds the specializations,
        # ``_classes`` and ``_order`` (recency, numbering the entries as the OrderedDict
        # orders them) pick the one to read.
        self._levels = _Levels()
        self._slot: dict[Node, int] = {}
        self._free: list[int] = []
        self._node_at: list[Node | None] = []
        self._classes: list[int] = []
        self._order: list[int] = []
        self._clock = 0

    def worth_keeping(self, node: Node, classes: int, anonymous: bool) -> bool:
        """For an engine where keeping a snapshot costs a query (a temp table): keep only a
        non-anonymous node's (Flash's next checks on its path generalize it; an anonymous
        node's generalizations are tagged), and only when it is small enough to be cheaper
        to read than the base class table, by the history's ratio."""
        return bool(self.settings.rollup or self.settings.history) and self._small_and_open(classes, anonymous)

    def start(self, node: Node) -> Start:
        last = self.last
        if self.settings.rollup and last is not None and last.node != node and generalizes(node, last.node):
            best = last
            kind = "rollup"
        else:
            best, kind = None, "base"
        if self.settings.history and self.history:
            # the fewest classes; among equals the first in the history's order, as a scan would
            candidates = self._levels.below(node)
            itself = self._slot.get(node)
            if itself is not None:
                candidates &= ~(1 << itself)  # a strict specialization only
            chosen, fewest = None, (best.classes, -1) if best is not None else None
            while candidates:
                lowest = candidates & -candidates
                candidates ^= lowest
                slot = lowest.bit_length() - 1
                key = (self._classes[slot], self._order[slot])
                if fewest is None or key < fewest:
                    chosen, fewest = slot, key
            if chosen is not None:
                occupant = self._node_at[chosen]
                assert occupant is not None, "a slot in use holds its node"
                best, kind = self.history[occupant], "history"
        if best is None:
            return Start("base")
        if kind == "history":
            self.history.move_to_end(best.node)
            self._order[self._slot[best.node]] = self._tick()
            self.hits += 1
        else:
            self.rollups += 1
        return Start(kind, best)

    def wants(self, node: Node, classes: int, anonymous: bool) -> bool:
        """Would the history keep this node's snapshot?"""
        return (
            bool(self.settings.history)
            and self.settings.history_size > 0
            and node not in self.history
            and self._small_and_open(classes, anonymous)
        )

    def _small_and_open(self, classes: int, anonymous: bool) -> bool:
        """Non-anonymous (its generalizations are still to be checked) and at most
        ``history_ratio`` times as many classes as the input has rows."""
        return not anonymous and classes <= self.settings.history_ratio * self.rows

    def checked(self, snapshot: Snapshot | None, anonymous: bool) -> None:
        """Record the node just checked (its snapshot if the engine kept one): it becomes the
        roll-up source; the history keeps it if it qualifies; what nobody holds any more is
        released, once."""
        previous = self.last
        evicted = []
        self.last = snapshot if self.settings.rollup else None
        if snapshot is not None and self.wants(snapshot.node, snapshot.classes, anonymous):
            self.history[snapshot.node] = snapshot
            self._store(snapshot)
            while len(self.history) > self.settings.history_size:
                gone = self.history.popitem(last=False)[1]
                self._vacate(gone.node)
                evicted.append(gone)
        # only these can have lost their last holder: the previous roll-up source, what the
        # history evicted, and the new snapshot if nothing kept it
        seen = set()
        for candidate in (previous, *evicted, snapshot):
            if candidate is None or id(candidate) in seen:
                continue
            seen.add(id(candidate))
            if not self._holds(candidate):
                self.release(candidate.handle)

    def _holds(self, snapshot: Snapshot) -> bool:
        return snapshot is self.last or self.history.get(snapshot.node) is snapshot

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _store(self, snapshot: Snapshot) -> None:
        """Put a new history entry in a free slot (the history's size + 1 slots at most)."""
        if self._free:
            slot = self._free.pop()
        else:
            slot = len(self._node_at)
            self._node_at.append(None)
            self._classes.append(0)
            self._order.append(0)
        self._node_at[slot], self._classes[slot], self._order[slot] = snapshot.node, snapshot.classes, self._tick()
        self._slot[snapshot.node] = slot
        self._levels.add(slot, snapshot.node)

    def _vacate(self, node: Node) -> None:
        slot = self._slot.pop(node)
        self._levels.remove(slot, node)
        self._node_at[slot] = None
        self._free.append(slot)

    def _held(self) -> dict[int, Snapshot]:
        return {id(s): s for s in [self.last, *self.history.values()] if s is not None}

    def clear(self) -> None:
        """Forget every snapshot, releasing each once (the counters stay: a policy is one
        checker's, one search's)."""
        held = self._held()
        self.last = None
        self.history.clear()
        self._levels, self._slot, self._free = _Levels(), {}, []
        self._node_at, self._classes, self._order = [], [], []
        for snapshot in held.values():
            self.release(snapshot.handle)
