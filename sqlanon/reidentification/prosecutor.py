"""Sample-based (prosecutor) re-identification figures from the class sizes alone.

The prosecutor knows their target is in the released sample, so a record in a class of size
``k`` is re-identified with probability ``1/k`` (El Emam & Dankar, "Protecting privacy using
k-anonymity", JAMIA 15(5), 2008; the figures ARX reports as its sample-based risks):

* highest risk: ``1 / min k``;
* average risk: ``sum over records of 1/k / n`` = classes / records;
* records at risk: records whose ``1/k`` is *strictly above* the threshold (default 0.2, i.e.
  classes smaller than 5), and their share of the records;
* sample uniqueness: share of records in classes of size 1;
* a class-size histogram: classes and records per size bucket.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from sqlanon.reidentification.frame import ClassSizes

#: Lower edges of the default histogram buckets: 1, 2, 3, 4, 5-9, 10-19, 20-49, 50-99, 100+.
DEFAULT_EDGES = (1, 2, 3, 4, 5, 10, 20, 50, 100)


@dataclass(frozen=True)
class Bucket:
    """Classes of size ``low <= k <= high`` (``high`` is ``None`` for the open last bucket)."""

    low: int
    high: int | None
    classes: int
    records: int

    @property
    def label(self) -> str:
        if self.high is None:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class ProsecutorRisk:
    """The sample figures (see the module docstring)."""

    records: int
    classes: int
    highest_risk: float
    average_risk: float
    threshold: float
    records_at_risk: int
    share_at_risk: float
    sample_uniques: int
    sample_uniqueness: float
    histogram: tuple[Bucket, ...]


def prosecutor(
    table: Mapping[int, int] | ClassSizes,
    *,
    threshold: float = 0.2,
    edges: Sequence[int] = DEFAULT_EDGES,
) -> ProsecutorRisk:
    """Prosecutor figures of a sample.

    Args:
        table: ``{class size: number of classes of that size}``.
        threshold: a record is at risk when ``1/k > threshold``; in [0, 1].
        edges: strictly increasing lower edges of the histogram buckets, starting at 1.

    >>> r = prosecutor({1: 1, 2: 1, 5: 2})
    >>> r.highest_risk, r.average_risk, r.records_at_risk, r.sample_uniqueness
    (1.0, 0.3076923076923077, 3, 0.07692307692307693)
    """
    classes = ClassSizes.from_table(table)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"The 'threshold' parameter must be a float in [0, 1], got {threshold!r}.")
    edges = tuple(edges)
    if not edges or edges[0] != 1 or any(b <= a for a, b in pairwise(edges)):
        raise ValueError(f"The 'edges' parameter must be strictly increasing ints starting at 1, got {edges!r}.")
    n = classes.rows
    at_risk = sum(s * c for s, c in zip(classes.sizes, classes.counts) if 1.0 / s > threshold)
    buckets = []
    for i, low in enumerate(edges):
        high = edges[i + 1] - 1 if i + 1 < len(edges) else None
        inside = [(s, c) for s, c in zip(classes.sizes, classes.counts) if s >= low and (high is None or s <= high)]
        buckets.append(Bucket(low, high, sum(c for _, c in inside), sum(s * c for s, c in inside)))
    return ProsecutorRisk(
        records=n,
        classes=classes.classes,
        highest_risk=1.0 / classes.sizes[0],
        average_risk=classes.classes / n,
        threshold=float(threshold),
        records_at_risk=at_risk,
        share_at_risk=at_risk / n,
        sample_uniques=classes.uniques,
        sample_uniqueness=classes.uniques / n,
        histogram=tuple(buckets),
    )
