"""The equivalence classes of the head set, kept up to date incrementally.

Adding a cut value v = (attribute j, rank r) to the head splits only the classes whose records
lie on both sides of r inside the head's interval of j that contains r: the rows with a rank in
[r, next head cut of j) move to new classes. Those rows are found from a per-attribute sort done
once, so descending costs O(rows moved + classes) and backtracking restores the saved ids from a
stack — the data is never re-sorted per node.
"""

from __future__ import annotations

import bisect

import numpy as np

from sqlanon.koptimize.model import IntervalModel


class HeadClasses:
    def __init__(self, model: IntervalModel):
        self.model = model
        m = model.ranks.shape[1]
        self.cls = np.zeros(m, dtype=np.int64)
        self.size = np.zeros(max(2, 2 * m), dtype=np.int64)
        self.size[0] = model.rows
        self.lab = None
        if model.labels is not None:
            self.lab = np.zeros((len(self.size), model.labels.shape[1]), dtype=np.int64)
            self.lab[0] = model.labels.sum(axis=0)
        self.count = 1
        self.cuts: list[list[int]] = [[] for _ in model.domains]
        self.head: list[int] = []
        # Rows sorted by rank, per attribute, and where each rank starts in that order.
        self.by_rank = [np.argsort(model.ranks[j], kind="stable") for j in range(model.dimensions)]
        self.starts = [
            np.searchsorted(model.ranks[j][self.by_rank[j]], np.arange(dom.size + 1), side="left")
            for j, dom in enumerate(model.domains)
        ]
        self._undo: list[tuple] = []

    def sizes(self) -> np.ndarray:
        return self.size[: self.count]

    def labels(self) -> np.ndarray | None:
        return None if self.lab is None else self.lab[: self.count]

    def region(self, v: int) -> tuple[int, np.ndarray]:
        """The rows that move when v is added: rank in [r, next head cut of j)."""
        j, r = self.model.alphabet[v]
        cuts = self.cuts[j]
        i = bisect.bisect_right(cuts, r)
        hi = cuts[i] if i < len(cuts) else self.model.domains[j].size
        return j, self.by_rank[j][self.starts[j][r] : self.starts[j][hi]]

    def push(self, v: int) -> None:
        """Add v to the head: give the moving rows of every truly split class a new class."""
        j, r = self.model.alphabet[v]
        _, rows = self.region(v)
        ids = self.cls[rows]
        moved = np.bincount(ids, weights=self.model.weights[rows], minlength=self.count).astype(np.int64)
        split = np.flatnonzero((moved > 0) & (moved < self.size[: self.count]))
        is_split = np.zeros(self.count, dtype=bool)
        is_split[split] = True
        rows = rows[is_split[ids]]  # rows of a class that moves whole keep their class id
        old = self.cls[rows]
        self._grow(self.count + len(split))
        new = np.full(self.count, -1, dtype=np.int64)
        new[split] = self.count + np.arange(len(split))
        self.cls[rows] = new[old]
        created = slice(self.count, self.count + len(split))
        self.size[created] = moved[split]
        self.size[split] -= moved[split]
        moved_labels = None
        if self.lab is not None:
            moved_labels = np.stack(
                [
                    np.bincount(old, weights=self.model.label_rows[rows, c], minlength=self.count)[split]
                    for c in range(self.lab.shape[1])
                ],
                axis=1,
            ).astype(np.int64)
            self.lab[created] = moved_labels
            self.lab[split] -= moved_labels
        self._undo.append((j, r, rows, old, split, moved[split], moved_labels, self.count))
        self.count += len(split)
        bisect.insort(self.cuts[j], r)
        self.head.append(v)

    def pop(self) -> None:
        """Undo the last push."""
        j, r, rows, old, split, moved, moved_labels, count = self._undo.pop()
        self.cls[rows] = old
        self.size[split] += moved
        if self.lab is not None:
            self.lab[split] += moved_labels
        self.count = count
        self.cuts[j].remove(r)
        self.head.pop()

    def _grow(self, needed: int) -> None:
        if needed <= len(self.size):
            return
        extra = max(needed, 2 * len(self.size)) - len(self.size)
        self.size = np.concatenate([self.size, np.zeros(extra, dtype=np.int64)])
        if self.lab is not None:
            self.lab = np.concatenate([self.lab, np.zeros((extra, self.lab.shape[1]), dtype=np.int64)])
