"""The two costs of Bayardo & Agrawal, evaluated in memory over the interval model.

* ``discernibility`` (DM): a kept class E costs |E|² (|E| per record), a suppressed record
  costs |D| (the number of rows) — the same figure as the lattice metric of that name.
* ``classification`` (CM): a kept record costs 1 if its label is not its class's majority
  label, a suppressed record costs 1. The label column is named in the job
  (``search.label``). This CM lives here, apart from the lattice metrics.

A class smaller than k is suppressed whole; an anonymization is feasible iff its suppressed
rows are at most the limit. Each cost also gives the per-row pieces of the paper's lower
bounds (LB_DM, LB_CM), which ``search.py`` combines with the head classes.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from sqlanon.errors import ConfigError
from sqlanon.koptimize import kernels
from sqlanon.koptimize.model import IntervalModel

INFEASIBLE = math.inf


class Cost:
    name = ""
    needs_labels = False

    def __init__(self, model: IntervalModel, k: int, limit: int):
        if self.needs_labels and model.labels is None:
            raise ConfigError("the classification metric needs a label column: set search.label")
        self.model, self.k, self.limit, self.n = model, k, limit, model.rows

    def kept_cost(self, sizes: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def row_suppressed(self) -> np.ndarray:
        """What each distinct row costs when suppressed (all its records)."""
        raise NotImplementedError

    def row_bound(self, class_of_row: np.ndarray, sizes: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
        """Per distinct row, a lower bound on what its records cost in any anonymization whose
        classes are unions of the given (allset) classes, if they are not suppressed by the head."""
        raise NotImplementedError

    def total(self, sizes: np.ndarray, labels: np.ndarray | None, enforce: bool = True) -> tuple[float, int]:
        """(cost, suppressed rows) of a partition given by class sizes (and label counts);
        the cost is INFEASIBLE above the suppression limit unless ``enforce`` is False."""
        kept = sizes >= self.k
        suppressed = int(sizes[~kept].sum())
        if enforce and suppressed > self.limit:
            return INFEASIBLE, suppressed
        kept_labels = None if labels is None else labels[kept]
        return int(self.kept_cost(sizes[kept], kept_labels).sum()) + self.suppressed_cost(suppressed), suppressed

    def suppressed_cost(self, rows: int) -> int:
        raise NotImplementedError

    def class_floor(self, head_of_piece: np.ndarray, piece_sizes: np.ndarray, head_sizes: np.ndarray) -> np.ndarray:
        """Per head class, a lower bound on what its records cost in any descendant that
        suppresses none of them, from the allset's pieces of the class (0 if none is known)."""
        return np.zeros(len(head_sizes), dtype=np.int64)


class Discernibility(Cost):
    name = "discernibility"

    def kept_cost(self, sizes, labels):
        return sizes * sizes

    def suppressed_cost(self, rows):
        return self.n * rows

    def row_suppressed(self):
        return self.n * self.model.weights

    def row_bound(self, class_of_row, sizes, labels):
        # A kept record's class holds its whole allset class and at least k records; a
        # suppressed one costs |D|, which is at least that (or |D| when k > |D|).
        return self.model.weights * np.minimum(np.maximum(sizes[class_of_row], self.k), self.n)

    def class_floor(self, head_of_piece, piece_sizes, head_sizes):
        return kernels.dm_floor(head_of_piece, piece_sizes, head_sizes, self.k)


class Classification(Cost):
    name = "classification"
    needs_labels = True

    def kept_cost(self, sizes, labels):
        return sizes - labels.max(axis=1) if len(sizes) else sizes

    def suppressed_cost(self, rows):
        return rows

    def row_suppressed(self):
        return self.model.weights

    def row_bound(self, class_of_row, sizes, labels):
        # A class that unites allset classes misclassifies at least the sum of their minorities
        # (its majority label is one label for each of them); a suppressed record costs 1, at
        # least its share. Each allset class's minority is carried by one of its rows.
        minority = sizes - labels.max(axis=1)
        bound = np.zeros(len(class_of_row), dtype=np.int64)
        first = np.full(len(sizes), -1, dtype=np.int64)
        first[class_of_row[::-1]] = np.arange(len(class_of_row))[::-1]
        carriers = first[first >= 0]
        bound[carriers] = minority[class_of_row[carriers]]
        return bound


COSTS = {c.name: c for c in (Discernibility, Classification)}


def make_cost(name: str, model: IntervalModel, k: int, limit: int) -> Cost:
    if name not in COSTS:
        raise ConfigError(f"metric '{name}' is not available for k-optimize and hill-climb; valid: {', '.join(COSTS)}")
    return COSTS[name](model, k, limit)


def partition(model: IntervalModel, cut_ranks: Sequence[Sequence[int]]) -> tuple[np.ndarray, int]:
    """Class id of every distinct row under per-attribute cut ranks, and the id range.

    The ids are a mixed-radix number of the interval indices; while that range is small they
    are used as they are (classes may have no rows), which spares a sort.
    """
    m = model.ranks.shape[1]
    key = np.zeros(m, dtype=np.int64)
    radix = 1
    for j, cuts in enumerate(cut_ranks):
        if not len(cuts):
            continue
        marks = np.zeros(model.domains[j].size, dtype=np.int64)
        marks[np.asarray(cuts, dtype=np.int64)] = 1
        index = np.cumsum(marks)[model.ranks[j]]
        width = len(cuts) + 1
        if radix * width >= 2**62:  # keep the key in int64: re-densify first
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel()
            radix = int(key.max()) + 1
        key = key * width + index
        radix *= width
    if radix <= max(4 * m, 1 << 16):
        return key, radix
    _, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    return inverse, int(inverse.max()) + 1


def class_figures(model: IntervalModel, class_of_row: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Sizes (and label counts) of the classes of a partition."""
    sizes = np.bincount(class_of_row, weights=model.weights, minlength=count).astype(np.int64)
    labels = None
    if model.labels is not None:
        labels = np.stack(
            [
                np.bincount(class_of_row, weights=model.labels[:, c], minlength=count)
                for c in range(model.labels.shape[1])
            ],
            axis=1,
        ).astype(np.int64)
    return sizes, labels


def evaluate(cost: Cost, cuts: Sequence[int], enforce: bool = True) -> tuple[float, int]:
    """(cost, suppressed rows) of a cut set, computed from scratch."""
    class_of_row, count = partition(cost.model, cost.model.cuts_by_attribute(cuts))
    return cost.total(*class_figures(cost.model, class_of_row, count), enforce=enforce)
