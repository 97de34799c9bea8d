"""Which materialized class table a check starts from: the Flash framework's roll-up and
history, kept apart from any engine (no SQL; the history's index is numpy arrays).

A snapshot is a node's class table kept by the engine (a temp table, or arrays). A check of
node M may start from the snapshot of any node S <= M (componentwise): the classes of S regroup
into those of M because hierarchies are functional. Roll-up uses the node checked just before
when M generalizes it; the history keeps snapshots of non-anonymous nodes (their
generalizations are the ones still to be checked; an anonymous node's are tagged) with at most
``history_ratio`` times as many classes as the input has rows, at most ``history_size`` of
them, least recently used out first, and offers the stored specialization with the fewest
classes. The engine owns the snapshots' storage; this module tells it which to read, which to
keep and which to drop (``release``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sqlanon.lattice import Node
from sqlanon.snapshot_settings import SnapshotSettings


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


def generalizes(node: Node, other: Node) -> bool:
    """Is ``node`` a generalization of ``other`` (or equal)?"""
    return all(a >= b for a, b in zip(node, other))


class Snapshots:
    def __init__(self, settings: SnapshotSettings, rows: int, release: Callable[[Any], None]):
        self.settings = settings
        self.rows = rows  # of the input
        self.release = release
        self.last: Snapshot | None = None
        self.history: OrderedDict[Node, Snapshot] = OrderedDict()
        self.rollups = 0
        self.hits = 0
        # The history mirrored in fixed slots of arrays (node, classes, recency): with checks
        # at a fraction of a millisecond, a Python scan of 200 entries per check would cost
        # more than the check. ``_order`` numbers the entries as the OrderedDict orders them.
        self._slot: dict[Node, int] = {}
        self._nodes = self._classes = self._order = self._used = None
        self._clock = 0

    def worth_keeping(self, node: Node, classes: int, anonymous: bool) -> bool:
        """For an engine where keeping a snapshot costs a query (a temp table): keep only a
        non-anonymous node's (Flash's next checks on its path generalize it; an anonymous
        node's generalizations are tagged), and only when it is small enough to be cheaper
        to read than the base class table, by the history's ratio."""
        return (self.settings.rollup or self.settings.history) and self._small_and_open(classes, anonymous)

    def start(self, node: Node) -> Start:
        last = self.last
        if self.settings.rollup and last is not None and last.node != node and generalizes(node, last.node):
            best = last
            kind = "rollup"
        else:
            best, kind = None, "base"
        if self.settings.history and self.history:
            point = np.asarray(node)
            below = self._used & (self._nodes <= point).all(axis=1) & (self._nodes != point).any(axis=1)
            if best is not None:
                below &= self._classes < best.classes
            if below.any():
                # the fewest classes; among equals the first in the history's order, as a scan would
                fewest = below & (self._classes == self._classes[below].min())
                slot = np.flatnonzero(fewest)[np.argmin(self._order[fewest])]
                best, kind = self.history[tuple(int(x) for x in self._nodes[slot])], "history"
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
        return (self.settings.history and self.settings.history_size > 0 and node not in self.history
                and self._small_and_open(classes, anonymous))

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
                self._used[self._slot.pop(gone.node)] = False
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
        """Put a new history entry in a free slot (the arrays sized once, for the history's size + 1)."""
        if self._used is None:
            slots = self.settings.history_size + 1
            self._nodes = np.zeros((slots, len(snapshot.node)), np.int64)
            self._classes, self._order = np.zeros(slots, np.int64), np.zeros(slots, np.int64)
            self._used = np.zeros(slots, bool)
        slot = int(np.flatnonzero(~self._used)[0])
        self._nodes[slot], self._classes[slot], self._order[slot] = snapshot.node, snapshot.classes, self._tick()
        self._used[slot] = True
        self._slot[snapshot.node] = slot

    def _held(self) -> dict[int, Snapshot]:
        return {id(s): s for s in [self.last, *self.history.values()] if s is not None}

    def clear(self) -> None:
        """Forget everything (a new search starts cold, so its counters are its own)."""
        held = self._held()
        self.last = None
        self.history.clear()
        self._slot.clear()
        if self._used is not None:
            self._used[:] = False
        for snapshot in held.values():
            self.release(snapshot.handle)
        self.rollups = self.hits = 0
