"""The ordered-interval model of Bayardo & Agrawal ("Data Privacy through Optimal
k-Anonymization", ICDE 2005).

Every quasi-identifier gets a total order of the values present in the data: numbers in their
natural order, other values in the order of a preorder traversal of the attribute's hierarchy
(siblings in the order they first appear in the hierarchy file), or the order listed in the job.
An anonymization is a set of *cut values*: the least value of each interval; the least value of
each domain is implicit. The alphabet Σ_all holds every non-least value of every attribute,
attribute by attribute, each attribute's values in their order; a value is its index in Σ_all.

The class table (distinct QI combinations with their row counts and, for the classification
metric, their label counts) comes from the engine once; everything here runs in memory over it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from sqlanon.errors import ConfigError, cut, cuts
from sqlanon.hierarchy import EncodedHierarchy

_SHOW = 5


@dataclass(frozen=True)
class Domain:
    """One attribute's ordered values: ``values[r]`` is the text of rank ``r``."""

    name: str
    values: tuple[str, ...]
    leaf_rank: np.ndarray  # hierarchy leaf code -> rank (-1: the value is not in the data)
    order: str  # "numeric", "hierarchy" or "listed"

    @property
    def size(self) -> int:
        return len(self.values)


@dataclass
class IntervalModel:
    """The data as the search sees it.

    ``ranks[j][i]``: rank in attribute j of distinct row i; ``weights[i]``: its rows;
    ``labels[i][c]``: its rows with label value c (classification only).
    """

    domains: list[Domain]
    ranks: np.ndarray  # (d, m) int64
    weights: np.ndarray  # (m,) int64
    labels: np.ndarray | None  # (m, L) int64
    label_values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.rows = int(self.weights.sum())
        # Σ_all: (attribute, rank) of every non-least value, attribute by attribute.
        self.alphabet: list[tuple[int, int]] = [
            (j, r) for j, dom in enumerate(self.domains) for r in range(1, dom.size)
        ]
        self.first = np.cumsum([0] + [dom.size - 1 for dom in self.domains])  # first alphabet index per attribute

    @property
    def label_rows(self) -> np.ndarray:
        """``labels``, which a model for the classification metric counts."""
        assert self.labels is not None, "the model counts no labels (only the classification metric's does)"
        return self.labels

    @property
    def dimensions(self) -> int:
        return len(self.domains)

    def value_index(self, j: int, rank: int) -> int:
        return int(self.first[j]) + rank - 1

    def cuts_by_attribute(self, cuts: Sequence[int]) -> list[list[int]]:
        """A cut set (alphabet indices) as the sorted cut ranks of each attribute."""
        per: list[list[int]] = [[] for _ in self.domains]
        for v in sorted(cuts):
            j, r = self.alphabet[v]
            per[j].append(r)
        return per

    def intervals(self, cuts: Sequence[int]) -> list[list[tuple[int, int]]]:
        """Per attribute, the (first rank, last rank) of each interval of the cut set."""
        result = []
        for j, ranks in enumerate(self.cuts_by_attribute(cuts)):
            bounds = [0, *ranks, self.domains[j].size]
            result.append([(a, b - 1) for a, b in zip(bounds, bounds[1:])])
        return result

    def describe(self, cuts: Sequence[int]) -> dict[str, list[str]]:
        """Each attribute's intervals as labels (see ``interval_label``)."""
        return {
            dom.name: [interval_label(dom, a, b) for a, b in spans]
            for dom, spans in zip(self.domains, self.intervals(cuts))
        }


def interval_label(domain: Domain, first: int, last: int) -> str:
    """``[first-last]`` (the first and last value of the interval in the attribute's order), or
    the value itself for an interval of one value."""
    if first == last:
        return domain.values[first]
    return f"[{domain.values[first]}-{domain.values[last]}]"


def build_model(
    names: Sequence[str],
    hierarchies: Sequence[EncodedHierarchy],
    codes: np.ndarray,
    counts: np.ndarray,
    label_counts: np.ndarray | None = None,
    label_values: Sequence[str] = (),
    orders: Mapping[str, list[str]] | None = None,
) -> IntervalModel:
    """The model over the engine's class table: ``codes`` (m, d) leaf codes, ``counts`` (m,)."""
    orders = orders or {}
    unknown = sorted(set(orders) - set(names))
    if unknown:
        raise ConfigError(
            f"search.koptimize.order names {unknown}, which are not quasi-identifiers; quasi-identifiers: {list(names)}"
        )
    domains = []
    ranks = np.empty((len(names), len(counts)), dtype=np.int64)
    for j, (name, hierarchy) in enumerate(zip(names, hierarchies)):
        present = np.unique(codes[:, j])
        domain = _domain(name, hierarchy, present, orders.get(name))
        domains.append(domain)
        ranks[j] = domain.leaf_rank[codes[:, j]]
    return IntervalModel(
        domains,
        ranks,
        np.asarray(counts, dtype=np.int64),
        None if label_counts is None else np.asarray(label_counts, dtype=np.int64),
        tuple(label_values),
    )


def _domain(name: str, hierarchy: EncodedHierarchy, present: np.ndarray, listed: list[str] | None) -> Domain:
    texts = {int(code): hierarchy.labels[0][code] for code in present}
    if listed is not None:
        ordered, kind = _listed(name, hierarchy, texts, listed), "listed"
    elif all(_number(t) is not None for t in texts.values()):
        ordered, kind = sorted(texts, key=lambda code: (_number(texts[code]), texts[code])), "numeric"
    else:
        # Preorder traversal: sort by the path from the top; level codes are dense in order of
        # first appearance, so siblings keep the hierarchy file's order.
        top = len(hierarchy.labels) - 1
        ordered = sorted(texts, key=lambda code: tuple(hierarchy.codes[code][l] for l in range(top, -1, -1)))
        kind = "hierarchy"
    leaf_rank = np.full(hierarchy.size, -1, dtype=np.int64)
    leaf_rank[ordered] = np.arange(len(ordered))
    return Domain(name, tuple(texts[c] for c in ordered), leaf_rank, kind)


def _listed(name: str, hierarchy: EncodedHierarchy, texts: dict[int, str], listed) -> list[int]:
    where = f'search.koptimize.order."{name}"'
    if not isinstance(listed, list) or not all(isinstance(v, str) for v in listed):
        raise ConfigError(f"{where} must be a list of the attribute's values (strings), got {cut(listed)}")
    duplicates = sorted({v for v in listed if listed.count(v) > 1})
    if duplicates:
        raise ConfigError(f"{where} lists {cuts(duplicates[:_SHOW])} more than once; list each value once")
    known = set(hierarchy.labels[0])
    strangers = [v for v in listed if v not in known]
    if strangers:
        raise ConfigError(f"{where} lists {cuts(strangers[:_SHOW])}, which are not values of the hierarchy of '{name}'")
    position = {v: i for i, v in enumerate(listed)}
    missing = sorted(t for t in texts.values() if t not in position)
    if missing:
        raise ConfigError(
            f"{where} leaves out {len(missing)} value(s) present in the data, e.g. {cuts(missing[:_SHOW])}; "
            "list every value of the attribute"
        )
    return sorted(texts, key=lambda code: position[texts[code]])


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value else None  # NaN has no place in an order


def cuts_of_levels(
    model: IntervalModel, hierarchies: Sequence[EncodedHierarchy], levels: Sequence[int]
) -> list[int] | None:
    """A full-domain generalization (a lattice node) as a cut set, or None if one of its groups
    is not an interval of the order. A value starts an interval iff its group at the node's
    level differs from its predecessor's; the groups are intervals iff none comes back."""
    cuts = []
    for j, (dom, hierarchy, level) in enumerate(zip(model.domains, hierarchies, levels)):
        leaf_of = np.empty(dom.size, dtype=np.int64)
        leaf_of[dom.leaf_rank[dom.leaf_rank >= 0]] = np.flatnonzero(dom.leaf_rank >= 0)
        groups = [hierarchy.codes[leaf][level] for leaf in leaf_of]
        seen = {groups[0]}
        for r in range(1, dom.size):
            if groups[r] != groups[r - 1]:
                if groups[r] in seen:
                    return None
                seen.add(groups[r])
                cuts.append(model.value_index(j, r))
    return cuts
