"""The privacy models' per-class figures in numpy, for the in-memory engine.

Each function mirrors the SQL of the model's ``class_columns`` (see docs/architecture.md,
"Sensitive histograms and verdicts") and returns the same named columns, one value per class.
A node's sensitive histogram comes as parallel arrays sorted by class then value code, each
class's run from ``bounds[c]`` to ``bounds[c + 1]``: ``v`` (value code), ``counts`` (of the
value in the class) and ``share`` (count / class size); ``n`` are the class sizes and ``q``
the values' frequencies in the input. The distances that need every
value of the domain (ordered and hierarchical t-closeness) fill a dense (classes x values)
matrix, a block of classes at a time so memory stays bounded.
"""

from __future__ import annotations

import numpy as np

from sqlanon.kernel.histogram_dense import equal_dense, recursive_dense
from sqlanon.kernel.histogram_emd import Tree
from sqlanon.kernel.histogram_pairs import equal_distance, recursive

#: cells of a dense (classes x values) block
BLOCK_CELLS = 4_000_000


class Histogram:
    """A node's sensitive histograms: class c's values ``v`` and counts in positions
    ``bounds[c]:bounds[c + 1]`` (every class holds at least one value), ``share`` = count / n."""

    def __init__(
        self, bounds: np.ndarray, v: np.ndarray, counts: np.ndarray, share: np.ndarray, n: np.ndarray, q: np.ndarray
    ):
        self._bounds, self.v, self.counts, self.share, self.n, self.q = bounds, v, counts, share, n, q
        self.classes = len(n)
        self.starts = bounds[:-1]
        self._cls: np.ndarray | None = None

    @property
    def cls(self) -> np.ndarray:
        """Each pair's class."""
        if self._cls is None:
            self._cls = np.repeat(np.arange(self.classes), np.diff(self._bounds))
        return self._cls

    @property
    def f(self) -> np.ndarray:
        return self.counts.astype(np.float64)

    def bounds(self) -> np.ndarray:
        """Where each class's pairs start, and the end of the last."""
        return self._bounds

    def count(self) -> np.ndarray:
        return np.diff(self._bounds)

    def total(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.cls, weights=values, minlength=self.classes)

    def maximum(self, values: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(values, self.starts)

    def dense(self):
        """Blocks (first class, diff = p - q) over every value of the domain."""
        m = len(self.q)
        step = max(1, BLOCK_CELLS // max(m, 1))
        bounds = self._bounds[np.minimum(np.arange(0, self.classes + step, step), self.classes)]
        for b, first in enumerate(range(0, self.classes, step)):
            last = min(first + step, self.classes)
            lo, hi = bounds[b], bounds[b + 1]
            block = np.zeros((last - first, m))
            block[self.cls[lo:hi] - first, self.v[lo:hi]] = self.share[lo:hi]
            yield first, block - self.q


def figures(model, h: Histogram, aux, cache: dict | None = None, aux_name: str | None = None) -> dict[str, np.ndarray]:
    """The model's (or the classification metric's) per-class figure columns. ``cache`` keeps
    what depends on the model's auxiliary table only (built once, not per check), under the
    table's name ``aux_name`` (default: ``model.aux``, which hashes the model's settings)."""
    name = model.name
    if name == "classification":
        return {"mx_top": h.maximum(h.counts)}
    if name == "distinct-l-diversity":
        return {model.name_of("distinct"): h.count()}
    if name == "entropy-l-diversity":
        n = h.n.astype(np.float64)
        return {
            model.name_of("entropy"): np.log(n) - h.total(h.f * np.log(h.f)) / n,
            model.name_of("distinct"): h.count(),
        }
    if name == "recursive-cl-diversity":
        # SQL ranks by count (descending), ties by value code; which of two equal counts gets
        # rank l does not change the tail's sum
        top, tail, distinct = recursive(h.bounds(), h.counts, model.l)
        return {model.name_of("top"): top, model.name_of("tail"): tail, model.name_of("distinct"): distinct}
    if name == "delta-disclosure":
        return {model.name_of("delta"): h.maximum(np.abs(np.log(h.share / h.q[h.v])))}
    if name == "beta-likeness":
        q = h.q[h.v]
        gain = (h.share - q) / q
        if not model.enhanced:
            return {model.name_of("gain"): h.maximum(gain)}
        return {model.name_of("excess"): h.maximum(gain - np.minimum(model.beta, -np.log(q)))}
    if name == "t-closeness":
        return {model.name_of("t"): _t(model, h, aux, {} if cache is None else cache, aux_name or model.aux)}
    raise NotImplementedError(f"the memory engine has no figures for the {name} model")


def _t(model, h: Histogram, aux, cache: dict, name: str) -> np.ndarray:
    if model.distance == "equal":
        return equal_distance(h.bounds(), h.v, h.share, h.q)
    result = np.zeros(h.classes)
    if model.distance == "ordered":
        order = cache.get(name)
        if order is None:
            order = cache[name] = np.argsort(np.asarray(aux.column("ord")))  # value codes by rank
        span = max(len(h.q) - 1, 1)
        for first, diff in h.dense():
            result[first : first + len(diff)] = np.abs(np.cumsum(diff[:, order], axis=1)).sum(axis=1) / span
        return result
    return _tree(aux, cache, name).distances(h.bounds(), h.v.astype(np.int64), h.share, h.q)


def _tree(aux, cache: dict, name: str) -> Tree:
    """The sensitive hierarchy of hierarchical t-closeness, built once per auxiliary table."""
    tree = cache.get(name)
    if tree is None:
        height = sum(1 for name in aux.column_names if name.startswith("a")) - 1
        tree = cache[name] = Tree([np.asarray(aux.column(f"a{l}"), np.int64) for l in range(height + 1)])
    return tree


def dense_figures(
    model, counts: np.ndarray, held: np.ndarray, n: np.ndarray, q: np.ndarray, aux, cache: dict, aux_name: str
) -> dict[str, np.ndarray] | None:
    """``figures`` over a dense histogram (a (classes x values) count matrix, the masks of the
    values each class holds, class sizes ``n``; see ``kernel.Dense``)
    for the models that read it row by row in one compiled pass: recursive (c,l)-diversity,
    equal and hierarchical t-closeness, the same values as over the pairs. None for the
    others (the caller turns the matrix into pairs for them)."""
    name = model.name
    if name == "recursive-cl-diversity":
        top, tail, distinct = recursive_dense(counts, held, model.l)
        return {model.name_of("top"): top, model.name_of("tail"): tail, model.name_of("distinct"): distinct}
    if name == "t-closeness" and model.distance == "equal":
        return {model.name_of("t"): equal_dense(counts, held, n, q)}
    if name == "t-closeness" and model.distance == "hierarchical":
        return {model.name_of("t"): _tree(aux, cache, aux_name).dense_distances(counts, held, n, q)}
    return None
